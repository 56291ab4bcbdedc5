"""Solve a `ConstraintProblem`: the object-level entry point over the compiled solvers.

`SolveConstraints(problem, M, qacc_smooth)` runs Newton (MuJoCo's default), CG or PGS with
MuJoCo's controls (iterations, tolerance, ls_iterations, ls_tolerance) and warm start, and returns
a `ConstraintSolverResult` that says whether it converged, after how many iterations, with what
residual — a non-converged solve is reported, never silently returned as if exact.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .assembler import ConstraintProblem
from .linalg import MatTVec, MatVec
from .noslip import NoSlip
from .pgs_solver import ForceFromAcceleration, PGSSolve
from .primal_solver import CheckedPrimalSolve, ConstraintUpdate, PrimalSolve, StartPoint

SOLVERS = ("newton", "cg", "pgs")
_NO_WARMSTART = np.zeros(0)
_NO_BLOCKS = np.zeros(0, dtype=np.int64)
_checked_blocks = [None]  # last validated read-only tree_blocks array


@dataclass
class ConstraintSolverResult:
    """Solution of one constraint solve.

    qacc (nv,) generalized accelerations; efc_force (nefc,) row forces (N, N m); efc_state row
    states (0 satisfied, 1 quadratic, 2/3 friction saturated, 4 cone); qfrc_constraint = J' f;
    converged / iterations / residual (scaled gradient norm for Newton/CG, scaled cost decrease for
    PGS); cost of the primal objective at qacc; solver name.
    """
    qacc: np.ndarray
    efc_force: np.ndarray
    efc_state: np.ndarray
    qfrc_constraint: np.ndarray
    converged: bool
    iterations: int
    residual: float
    cost: float
    solver: str

    def ThrowIfNotConverged(self, what: str = "constraint solver") -> None:
        """Raise RuntimeError if the solve did not converge, stating iterations and residual."""
        if not self.converged:
            raise RuntimeError(f"{what} ({self.solver}) did not converge: {self.iterations} iterations, "
                               f"residual {self.residual:.3e}; raise `iterations` or loosen `tolerance`")


def _primal_cost(problem, M, qacc_smooth, qacc):
    nefc = problem.nefc
    force = np.zeros(nefc)
    state = np.zeros(nefc, dtype=np.int64)
    e = qacc - qacc_smooth
    jar = MatVec(np.ascontiguousarray(problem.J), qacc) - problem.efc_aref
    s = ConstraintUpdate(jar, problem.efc_D, problem.efc_R, problem.efc_frictionloss, problem.efc_type,
                         problem.efc_id, problem.ne, problem.nf, problem.con_dim, problem.con_mu,
                         problem.con_friction, force, state)
    return 0.5 * float(np.sum(e * MatVec(M, e))) + s, force, state


def SolveConstraints(problem: ConstraintProblem, M, qacc_smooth, solver: str = "newton",
                     iterations: int = 100, tolerance: float = 1e-8, ls_iterations: int = 50,
                     ls_tolerance: float = 0.01, qacc_warmstart=None,
                     meaninertia: float | None = None, tree_blocks=None,
                     check_mass_matrix: bool = True, noslip_iterations: int = 0,
                     noslip_tolerance: float = 1e-6) -> ConstraintSolverResult:
    """Minimize 1/2 |a - a0|_M^2 + s(J a - aref) for the accelerations a and the constraint forces.

    M (nv, nv) mass matrix (kg, kg m^2), qacc_smooth = a0 = M^-1 (forces without constraints).
    The warm start qacc_warmstart is used if its cost is below that of qacc_smooth (as MuJoCo).
    meaninertia scales the tolerances (default: mean of diag(M)). tree_blocks (optional, int array):
    start offsets (first 0, last nv) of the dof ranges of M's independent trees, e.g. one per free body,
    which the Newton solver's sparse factorization orders by (found from M when not given).
    check_mass_matrix=False skips the O(nv^2) symmetry / positive-diagonal check of M, for callers whose M
    is symmetric by construction (the plant's step); a non-positive-definite M still raises ValueError.
    noslip_iterations > 0 runs MuJoCo's noslip sweeps on the friction rows afterwards (noslip.py).
    """
    if solver not in SOLVERS:
        raise ValueError(f"SolveConstraints: solver '{solver}' is not one of {SOLVERS}")
    if iterations < 0 or ls_iterations < 0:
        raise ValueError("SolveConstraints: iterations and ls_iterations must be >= 0")
    if not (tolerance >= 0 and ls_tolerance >= 0):
        raise ValueError("SolveConstraints: tolerance and ls_tolerance must be >= 0")
    nv = problem.nv
    M = np.ascontiguousarray(M, dtype=np.float64)
    a0 = np.ascontiguousarray(qacc_smooth, dtype=np.float64).reshape(-1)
    if M.shape != (nv, nv) or a0.shape != (nv,):
        raise ValueError(f"SolveConstraints: expected M ({nv}, {nv}) and qacc_smooth ({nv},), got "
                         f"{M.shape} and {a0.shape}")
    J = np.ascontiguousarray(problem.J)
    args = (J, problem.efc_aref, problem.efc_D, problem.efc_R, problem.efc_frictionloss, problem.efc_type,
            problem.efc_id, problem.ne, problem.nf, problem.con_dim)
    w = _NO_WARMSTART
    if qacc_warmstart is not None:
        w = np.ascontiguousarray(qacc_warmstart, dtype=np.float64).reshape(-1)
        if w.shape != (nv,):
            raise ValueError(f"SolveConstraints: qacc_warmstart must have {nv} entries, got {w.shape}")
    lean = solver != "pgs" and not check_mass_matrix  # the checks run inside the solve call (CheckedPrimalSolve)
    status, start = 0, a0
    if not lean:  # checks (and, for PGS, the warm start choice; Newton/CG choose it inside PrimalSolve)
        status, start = StartPoint(M, a0, w if solver == "pgs" else _NO_WARMSTART, *args, problem.con_mu,
                                   problem.con_friction, bool(check_mass_matrix))
        if solver != "pgs" and w.shape[0] and np.isfinite(w).all():
            start = w
    if status in (1, 2):
        raise ValueError("SolveConstraints: M, qacc_smooth or aref contain NaN/inf (check the state)")
    if status == 3:
        raise ValueError("SolveConstraints: the mass matrix M must be symmetric with a positive diagonal "
                         "(positive definite); check the inertias and armature of the model")
    if tree_blocks is None:
        blocks = _NO_BLOCKS
    elif tree_blocks is _checked_blocks[0] and tree_blocks[-1] == nv:  # the plant's fixed array, checked before
        blocks = tree_blocks
    else:
        blocks = np.ascontiguousarray(tree_blocks, dtype=np.int64).reshape(-1)
        if blocks.shape[0] < 2 or blocks[0] != 0 or blocks[-1] != nv or np.any(np.diff(blocks) <= 0):
            raise ValueError(f"SolveConstraints: tree_blocks must increase from 0 to nv={nv}, got {blocks.tolist()}")
        if (isinstance(tree_blocks, np.ndarray) and tree_blocks.dtype == np.int64 and tree_blocks.ndim == 1
                and tree_blocks.base is None and not tree_blocks.flags.writeable):  # immutable: check it once
            _checked_blocks[0] = tree_blocks
    if meaninertia is None:
        meaninertia = float(np.mean(np.diag(M))) if nv else 1.0
    scale = 1.0 / (meaninertia * max(1, nv))
    try:
        if solver == "pgs":
            f0 = ForceFromAcceleration(start, *args, problem.con_mu, problem.con_friction)
            qacc, force, converged, it, residual = PGSSolve(M, a0, *args, problem.con_friction, f0,
                                                            int(iterations), float(tolerance), scale)
            cost, _, state = _primal_cost(problem, M, a0, qacc)
            qfrc = MatTVec(J, force)
        elif lean:
            status, qacc, force, state, converged, it, residual, cost, qfrc = CheckedPrimalSolve(
                M, a0, *args, problem.con_mu, problem.con_friction, w, solver == "newton",
                int(iterations), float(tolerance), int(ls_iterations), float(ls_tolerance), scale, blocks)
            if status == 1:
                raise ValueError("SolveConstraints: M, qacc_smooth or aref contain NaN/inf (check the state)")
        else:
            qacc, force, state, converged, it, residual, cost, qfrc = PrimalSolve(
                M, a0, *args, problem.con_mu, problem.con_friction, start, solver == "newton",
                int(iterations), float(tolerance), int(ls_iterations), float(ls_tolerance), scale, blocks)
    except np.linalg.LinAlgError:
        raise ValueError(f"SolveConstraints ({solver}): the mass matrix M (or M + J'DJ) is not positive "
                         f"definite; check the inertias and armature of the model") from None
    if noslip_iterations > 0 and problem.nefc and status != 4:
        qacc, force, qfrc = NoSlip(M, a0, J, problem.efc_aref, problem.efc_R, problem.efc_frictionloss,
                                   problem.efc_type, problem.efc_id, problem.ne, problem.nf, problem.con_dim,
                                   problem.con_friction, force, int(noslip_iterations), float(noslip_tolerance),
                                   scale, blocks)
        if not np.isfinite(qacc).all():
            status = 4
    if status == 4 or (not lean and not np.isfinite(qacc).all()):
        raise RuntimeError(f"SolveConstraints ({solver}): the solution contains NaN/inf after {it} "
                           f"iterations (residual {residual}); the constraint problem is ill-posed")
    return ConstraintSolverResult(qacc=qacc, efc_force=force, efc_state=state,
                                  qfrc_constraint=qfrc, converged=bool(converged),
                                  iterations=int(it), residual=float(residual), cost=float(cost),
                                  solver=solver)
