"""The constraint solve of the discrete step (MuJoCo's mj_fwdConstraint, MJX's solver.py): minimize
½‖a − a₀‖²_M̂ + s(J·a − aref) for the accelerations a by Newton (default), CG or PGS (contact/primal_solver.py,
contact/pgs_solver.py), warm-started with the previous step's solution when its cost is lower (as MuJoCo).

With MuJoCo's position integration and joint damping, the constraints are solved with the undamped M and a₀ (as
MuJoCo's Euler does) and the implicit damping is applied afterwards to the total force:
a = (M + h·D)⁻¹(M̂·a₀ + Jᵀf).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..contact.contact_results import ContactForcesInto
from ..contact.elimination import ReverseTreeSolve
from ..contact.linalg import MatTVec, RowSupportIn
from ..contact.noslip import NoSlip
from ..contact.pgs_solver import ForceFromAcceleration, PGSSolve
from ..contact.primal_solver import CheckedPrimalSolveRows, StartPoint
from ..kernels.joint_kernels import BALL_QUATERNION, QUATERNION_FLOATING
from .efc_rows import EF_FORCE
from .integrate import rotate_quaternion_blocks
from .primal_rows import PRIMAL_BAD_INPUT, PRIMAL_NOT_FINITE, primal_solve
from .structs import BOOL, FLOAT, INT, declare

SOLVER_NEWTON, SOLVER_CG, SOLVER_PGS = 0, 1, 2
SOLVER_CODES = {"newton": SOLVER_NEWTON, "cg": SOLVER_CG, "pgs": SOLVER_PGS}
#: Status codes of `solve`.
SOLVE_OK, SOLVE_NOT_CONVERGED, SOLVE_BAD_INPUT, SOLVE_NOT_FINITE = 0, 1, 2, 3


@structref.register
class OptionModelType(types.StructRef):
    """numba type of OptionModel."""


class OptionModel(structref.StructRefProxy):
    """The constraint solver's options and the step's integration choices."""


OPTION_MODEL = declare(OptionModelType, OptionModel, [
    ("use_solver", BOOL),         # the plant has constraint rows or contact geometry (else one dense solve)
    ("cone", INT),                # 0 pyramidal, 1 elliptic
    ("impratio", FLOAT),
    ("solver", INT),              # SOLVER_*
    ("iterations", INT), ("tolerance", FLOAT), ("ls_iterations", INT), ("ls_tolerance", FLOAT),
    ("mujoco_positions", BOOL),   # q⁺ by MuJoCo's mj_integratePos (else Drake's q + h·N(q)·v⁺)
    ("mujoco_damping", BOOL),     # MuJoCo's Euler: constraints solved with M, damping applied afterwards
    ("noslip_iterations", INT), ("noslip_tolerance", FLOAT),  # MuJoCo's noslip sweeps (contact/noslip.py)
])


@njit(cache=True)
def new_option_model(use_solver, cone, impratio, solver, iterations, tolerance, ls_iterations, ls_tolerance,
                     mujoco_positions, mujoco_damping, noslip_iterations, noslip_tolerance):
    o = structref.new(OPTION_MODEL)
    o.use_solver, o.cone, o.impratio, o.solver = use_solver, cone, impratio, solver
    o.iterations, o.tolerance, o.ls_iterations, o.ls_tolerance = iterations, tolerance, ls_iterations, ls_tolerance
    o.mujoco_positions, o.mujoco_damping = mujoco_positions, mujoco_damping
    o.noslip_iterations, o.noslip_tolerance = noslip_iterations, noslip_tolerance
    return o


def CompileOptions(plant, use_solver: bool, mjcf_positions: bool) -> OptionModel:
    """The OptionModel of the plant's ConstraintSolverOptions. `mjcf_positions`: MuJoCo's position update applies
    even without constraint rows (MJCF models)."""
    opts = plant.get_constraint_solver_options()
    mujoco = opts.position_integration_is_mujoco(plant)
    m = plant._model
    return new_option_model(bool(use_solver), 1 if opts.cone == "elliptic" else 0, float(opts.impratio),
                            SOLVER_CODES[opts.solver], int(opts.iterations), float(opts.tolerance),
                            int(opts.ls_iterations), float(opts.ls_tolerance),
                            bool(mujoco and (use_solver or mjcf_positions)),
                            bool(use_solver and mujoco and np.any(m.damping)),
                            int(opts.noslip_iterations), float(opts.noslip_tolerance))


@njit(cache=True)
def _undamped(t, M_hat, a):
    """(M̂ − h·D)⁻¹·M̂·a: the acceleration of the forces M̂·a without the implicit damping (tree-sparse
    Cholesky, ReverseTreeSolve: M's trees, as MuJoCo's factorization, O(nv·depth²) instead of a dense LU's O(nv³))."""
    M = M_hat.copy()
    for i in range(t.nv):
        M[i, i] -= t.h * t.damping[i]
    return ReverseTreeSolve(M, t.mass_blocks, np.dot(M_hat, a))


@njit(cache=True)
def _child_frame_warm_start(t, q, x, to_child):
    """x with the angular block of each ball and free joint mapped between the parent frame F the plant keeps it
    in and the child frame M MuJoCo keeps it in (to_child: x_M = R_FMᵀ·x_F; else x_F = R_FM·x_M), at positions q.
    MuJoCo's warm start is its previous qacc in its own coordinates: reused at the next step, an angular
    acceleration stays fixed to the rotating body, not to the world."""
    nb = t.ji.shape[0]
    n = 0
    for b in range(nb):
        if t.ji[b, 1] == QUATERNION_FLOATING or t.ji[b, 1] == BALL_QUATERNION:
            n += 1
    if n == 0:
        return x
    qs, vs = np.empty(n, np.int64), np.empty(n, np.int64)
    n = 0
    for b in range(nb):
        if t.ji[b, 1] == QUATERNION_FLOATING or t.ji[b, 1] == BALL_QUATERNION:
            qs[n], vs[n] = t.ji[b, 2], t.ji[b, 4]
            n += 1
    return rotate_quaternion_blocks(q, x, qs, vs, to_child)


@njit(cache=True, _nrt=False)
def _child_frame_into(ji, q, x, out, to_child):
    """_child_frame_warm_start(t, q, x, to_child) into out, ji = t.ji (integrate.rotate_quaternion_blocks'
    arithmetic)."""
    for k in range(x.shape[0]):
        out[k] = x[k]
    for bd in range(ji.shape[0]):
        if ji[bd, 1] != QUATERNION_FLOATING and ji[bd, 1] != BALL_QUATERNION:
            continue
        a, b = ji[bd, 2], ji[bd, 4]
        n = math.sqrt(q[a] ** 2 + q[a + 1] ** 2 + q[a + 2] ** 2 + q[a + 3] ** 2)
        w, i, j, l = q[a] / n, q[a + 1] / n, q[a + 2] / n, q[a + 3] / n
        R00, R01, R02 = 1 - 2 * (j * j + l * l), 2 * (i * j - w * l), 2 * (i * l + w * j)
        R10, R11, R12 = 2 * (i * j + w * l), 1 - 2 * (i * i + l * l), 2 * (j * l - w * i)
        R20, R21, R22 = 2 * (i * l - w * j), 2 * (j * l + w * i), 1 - 2 * (i * i + j * j)
        x0, x1, x2 = x[b], x[b + 1], x[b + 2]
        if to_child:  # R_FMᵀ·x
            out[b] = 0.0 + R00 * x0 + R10 * x1 + R20 * x2
            out[b + 1] = 0.0 + R01 * x0 + R11 * x1 + R21 * x2
            out[b + 2] = 0.0 + R02 * x0 + R12 * x1 + R22 * x2
        else:
            out[b] = 0.0 + R00 * x0 + R01 * x1 + R02 * x2
            out[b + 1] = 0.0 + R10 * x0 + R11 * x1 + R12 * x2
            out[b + 2] = 0.0 + R20 * x0 + R21 * x1 + R22 * x2


@njit(cache=True)
def _outputs(d, nv, ncon, nefc):
    """d.qacc, d.qfrc_constraint, d.tau_contact, d.qacc_warmstart as the rows of d.sol_out (4 × nv), d.efc_force
    and d.con_force as views of the row buffers (efc_rows.py) when they hold nefc rows and ncon contacts (else new
    arrays: rows appended after the MuJoCo rows)."""
    if d.sol_out.shape[0] != 4 or d.sol_out.shape[1] != nv:
        d.sol_out = np.zeros((4, nv))
    out = d.sol_out
    d.qacc, d.qfrc_constraint, d.tau_contact, d.qacc_warmstart = out[0], out[1], out[2], out[3]
    if d.efc_bf.shape[1] >= nefc and d.con_bforce.shape[0] >= ncon:
        d.efc_force = d.efc_bf[EF_FORCE, :nefc]
        d.con_force = d.con_bforce[:ncon]
    else:
        d.efc_force = np.zeros(nefc)
        d.con_force = np.zeros((ncon, 6))


@njit(cache=True)
def _solve_no_rows(m, d, M, a0):
    """`solve` without constraint rows (so without contacts): d.qacc = a₀, zero constraint and contact forces, and
    the warm start. The arrays of the Data's previous step are written in place when their sizes fit (no
    allocation in a step without rows after another)."""
    t, o = m.tree, m.opt
    nv = t.nv
    if d.con_force.shape[0] != 0 or d.con_force.shape[1] != 6:
        d.con_force = np.zeros((0, 6))
    if d.efc_force.shape[0] != 0:
        d.efc_force = np.zeros(0)
    if d.tau_contact.shape[0] != nv:
        d.tau_contact = np.empty(nv)
    if d.qfrc_constraint.shape[0] != nv:
        d.qfrc_constraint = np.empty(nv)
    if d.qacc.shape[0] != nv:
        d.qacc = np.empty(nv)
    for i in range(nv):
        d.tau_contact[i] = 0.0
        d.qfrc_constraint[i] = 0.0
        d.qacc[i] = a0[i]
    # next step's warm start: MuJoCo's qacc of this step, whose damping is applied only when integrating
    d.qacc_warmstart = _child_frame_warm_start(t, d.q, a0 if not o.mujoco_damping else _undamped(t, M, a0), True)
    d.warm_valid = True


@njit(cache=True)
def solve(m, d, warm, warm_valid):
    """d.qacc from d.M (M̂), d.qacc_smooth (a₀) and the rows d.efc_*; row forces d.efc_force, J'f d.qfrc_constraint,
    contact-frame forces d.con_force, generalized contact forces d.tau_contact, and d.qacc_warmstart (next step's
    warm start: the solver's own qacc, also without rows, as MuJoCo's; `warm` is zero after a reset, as MuJoCo's,
    when warm_valid is False; `warm` and d.qacc_warmstart keep the angular blocks of ball and free joints in the
    child frame, as MuJoCo's qacc_warmstart). With rows, the outputs are views of Data's buffers (`_outputs`) and
    Newton / CG solve in Data's workspace (primal_rows.py). Returns SOLVE_*."""
    t, o = m.tree, m.opt
    nv = t.nv
    nefc = d.efc_J.shape[0]
    M, a0 = d.M, d.qacc_smooth
    tau_smooth = np.zeros(0)
    if o.mujoco_damping and nefc:
        tau_smooth = np.dot(M, a0)
        M = M.copy()
        for i in range(nv):
            M[i, i] -= t.h * t.damping[i]
        a0 = ReverseTreeSolve(M, t.mass_blocks, tau_smooth)  # tree-sparse (a dense LU: 22 humanoids' 594 dofs)
    d.solver_iterations, d.solver_residual, d.solver_converged = 0, 0.0, True
    if nefc == 0:
        _solve_no_rows(m, d, M, a0)
        return SOLVE_OK
    ncon = d.ncon
    _outputs(d, nv, ncon, nefc)
    qacc, qfrc, force = d.qacc, d.qfrc_constraint, d.efc_force
    for k in range(nv):
        d.tau_contact[k] = 0.0
    for c in range(ncon):
        for k in range(6):
            d.con_force[c, k] = 0.0
    scale = 1.0 / (t.meaninertia * max(1, nv))
    # MuJoCo's qacc_warmstart is zero after a reset (d.qacc_warmstart holds the warm start until the solve is done)
    w = d.qacc_warmstart
    if warm_valid:
        _child_frame_into(t.ji, d.q, warm, w, False)
    else:
        w[:] = 0.0
    J = d.efc_J
    if o.solver == SOLVER_PGS:
        status, start = StartPoint(M, a0, w, J, d.efc_aref, d.efc_D, d.efc_R, d.efc_floss, d.efc_type, d.efc_id,
                                   d.ne, d.nf, d.con_dim, d.con_mu, d.con_fric, False)
        if status != 0:
            return SOLVE_BAD_INPUT
        f0 = ForceFromAcceleration(start, J, d.efc_aref, d.efc_D, d.efc_R, d.efc_floss, d.efc_type, d.efc_id, d.ne,
                                   d.nf, d.con_dim, d.con_mu, d.con_fric)
        qa, fo, converged, it, residual = PGSSolve(M, a0, J, d.efc_aref, d.efc_D, d.efc_R, d.efc_floss,
                                                   d.efc_type, d.efc_id, d.ne, d.nf, d.con_dim, d.con_fric, f0,
                                                   o.iterations, o.tolerance, scale)
        qacc[:] = qa
        force[:] = fo
        qfrc[:] = MatTVec(J, force)
        for k in range(nv):
            if not np.isfinite(qacc[k]):
                return SOLVE_NOT_FINITE
    elif t.solver_blocks.shape[0] >= 2:
        status, converged, it, residual = primal_solve(m, d, M, a0, w, o.solver == SOLVER_NEWTON, force, qacc, qfrc)
        if status == PRIMAL_BAD_INPUT:
            return SOLVE_BAD_INPUT
        if status == PRIMAL_NOT_FINITE:
            return SOLVE_NOT_FINITE
    else:  # the trees unknown: one problem, factored in M's blocks (allocates)
        idx, start = RowSupportIn(J, d.ne + d.nf + d.nl, d.efc_id, d.con_chain, d.con_chain_adr)
        status, qa, fo, _state, converged, it, residual, _cost, qf = CheckedPrimalSolveRows(
            M, a0, J, d.efc_aref, d.efc_D, d.efc_R, d.efc_floss, d.efc_type, d.efc_id, d.ne, d.nf, d.con_dim,
            d.con_mu, d.con_fric, w, o.solver == SOLVER_NEWTON, o.iterations, o.tolerance, o.ls_iterations,
            o.ls_tolerance, scale, t.solver_blocks, idx, start)
        if status == 1:
            return SOLVE_BAD_INPUT
        if status == 4:
            return SOLVE_NOT_FINITE
        qacc[:] = qa
        force[:] = fo
        qfrc[:] = qf
    if o.noslip_iterations > 0:
        qa, fo, qf = NoSlip(M, a0, J, d.efc_aref, d.efc_R, d.efc_floss, d.efc_type, d.efc_id, d.ne, d.nf,
                            d.con_dim, d.con_fric, force, o.noslip_iterations, o.noslip_tolerance, scale,
                            t.solver_blocks)
        qacc[:] = qa
        force[:] = fo
        qfrc[:] = qf
        for k in range(nv):
            if not np.isfinite(qacc[k]):
                return SOLVE_NOT_FINITE
    _child_frame_into(t.ji, d.q, qacc, d.qacc_warmstart, True)
    d.warm_valid = True
    d.solver_iterations, d.solver_residual, d.solver_converged = it, residual, converged
    if o.mujoco_damping:
        Md = M.copy()
        for i in range(nv):
            Md[i, i] += t.h * t.damping[i]
        qacc[:] = ReverseTreeSolve(Md, t.mass_blocks, tau_smooth + qfrc)
    if ncon:
        ContactForcesInto(force, d.efc_type, d.con_efc_address, d.con_dim, d.con_fric, d.con_force)
        c0 = d.con_efc_address[0]
        if c0 == 0:
            d.tau_contact[:] = qfrc
        elif c0 < nefc:  # J[c0:]'·force[c0:] (linalg.MatTVec's sums without its products by J's zeros: row i is
            tc = d.tau_contact  # zero outside its contact's chain)
            ident, chain, cadr = d.efc_id, d.con_chain, d.con_chain_adr
            for i in range(c0, nefc):
                xi = force[i]
                if xi != 0.0:
                    c = ident[i]
                    for p in range(cadr[c], cadr[c + 1]):
                        tc[chain[p]] += J[i, chain[p]] * xi
    return SOLVE_OK if converged else SOLVE_NOT_CONVERGED
