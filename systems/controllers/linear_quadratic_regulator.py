"""Infinite-horizon linear quadratic regulators (pydrake.systems.controllers).

Continuous time:  min ∫ xᵀQx + uᵀRu + 2xᵀNu dt  s.t. ẋ = Ax + Bu      →  u = −Kx,  J = xᵀSx.
Discrete time:    min Σ xᵀQx + uᵀRu + 2xᵀNu     s.t. x[n+1] = Ax + Bu  →  u = −Kx,  J = xᵀSx.

S solves the algebraic Riccati equation (scipy.linalg.solve_continuous_are / solve_discrete_are);
K = R⁻¹(BᵀS + Nᵀ) (continuous) or (R + BᵀSB)⁻¹(BᵀSA + Nᵀ) (discrete). Stabilizability of (A − BR⁻¹Nᵀ, B)
is checked first so a hopeless problem fails with a clear RuntimeError instead of a solver traceback.
"""
from __future__ import annotations

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.systems.framework import Context, InputPortSelection, OutputPortSelection, PortDataType, System
from mallard.systems.primitives import AffineSystem, IsStabilizable, LinearSystem, Linearize
from ._checks import matrix

scipy_linalg = LazyModule("scipy.linalg")  # loaded on first use (import time)

__all__ = ["DiscreteTimeLinearQuadraticRegulator", "LinearQuadraticRegulator"]


def _lqr_matrices(A, B, Q, R, N, what: str):
    """Validated float copies (A n×n, B n×m, Q n×n, R m×m, N n×m; empty N → zeros)."""
    A_, B_, Q_, R_ = (matrix(M, f"{what}: {name}") for M, name in ((A, "A"), (B, "B"), (Q, "Q"), (R, "R")))
    n = A_.shape[0]
    if n == 0 or A_.shape != (n, n):
        raise ValueError(f"{what}: A must be a non-empty square num_states x num_states matrix, got shape "
                         f"{A_.shape}")
    if B_.shape[0] != n or B_.shape[1] == 0:
        raise ValueError(f"{what}: B must be num_states x num_inputs = {n} x m with m > 0, got shape {B_.shape}")
    m = B_.shape[1]
    if Q_.shape != (n, n):
        raise ValueError(f"{what}: Q must be num_states x num_states = {n} x {n}, got shape {Q_.shape}")
    if R_.shape != (m, m):
        raise ValueError(f"{what}: R must be num_inputs x num_inputs = {m} x {m}, got shape {R_.shape}")
    N_ = np.zeros((n, m)) if N is None else matrix(N, f"{what}: N")
    if N_.size == 0:
        N_ = np.zeros((n, m))
    if N_.shape != (n, m):
        raise ValueError(f"{what}: N must be num_states x num_inputs = {n} x {m} (or empty), got shape {N_.shape}")
    for M, name in ((Q_, "Q"), (R_, "R")):
        if not np.allclose(M, M.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.max(np.abs(M))))):
            raise ValueError(f"{what}: {name} must be symmetric")
    Q_ = 0.5 * (Q_ + Q_.T)
    R_ = 0.5 * (R_ + R_.T)
    try:
        np.linalg.cholesky(R_)
    except np.linalg.LinAlgError:
        raise ValueError(f"{what}: R must be positive definite (its eigenvalues are "
                         f"{np.linalg.eigvalsh(R_)})") from None
    return A_, B_, Q_, R_, N_


def _check_stabilizable(A, B, R, N, discrete: bool, what: str) -> None:
    A1 = A - B @ np.linalg.solve(R, N.T)
    n, m = B.shape
    probe = LinearSystem(A1, B, np.zeros((0, n)), np.zeros((0, m)), 1.0 if discrete else 0.0)
    if not IsStabilizable(probe):
        region = "on or outside the unit circle" if discrete else "with non-negative real part"
        eig = np.linalg.eigvals(A1)
        raise RuntimeError(f"{what}: the system is not stabilizable: (A - B R^-1 N^T, B) has an eigenvalue {region} "
                           f"that the input cannot influence (eigenvalues {np.round(eig, 6)}), so the "
                           f"{'discrete' if discrete else 'continuous'} algebraic Riccati equation has no "
                           "stabilizing solution. Check B, or linearize about a different operating point.")


def _solve(solver, args, what: str, kind: str) -> np.ndarray:
    try:
        S = solver(*args)
    except (np.linalg.LinAlgError, ValueError) as err:
        raise RuntimeError(f"{what}: the {kind} algebraic Riccati equation has no stabilizing solution ({err}). "
                           "The pair (Q - N R^-1 N^T, A - B R^-1 N^T) must be detectable: every unstable mode must "
                           "be penalized by Q.") from None
    if not np.all(np.isfinite(S)):
        raise RuntimeError(f"{what}: the {kind} algebraic Riccati equation returned a non-finite solution")
    return 0.5 * (S + S.T)


def _check_closed_loop(A, B, K, discrete: bool, what: str) -> None:
    """The Riccati solution must stabilize A − BK; otherwise (Q, A) has an undetectable marginal mode."""
    eig = np.linalg.eigvals(A - B @ K)
    margin = 1e-9
    stable = np.all(np.abs(eig) < 1.0 - margin) if discrete else np.all(eig.real < -margin)
    if not stable:
        kind = "discrete" if discrete else "continuous"
        raise RuntimeError(f"{what}: the {kind} algebraic Riccati equation has no stabilizing solution: the closed "
                           f"loop A - B K keeps the eigenvalues {np.round(eig, 9)}. Either (A, B) is not "
                           "stabilizable or (Q - N R^-1 N^T, A - B R^-1 N^T) is not detectable: penalize every "
                           "marginally stable mode in Q.")


def _kernel(F: np.ndarray) -> np.ndarray:
    """P whose orthonormal rows span the null space of F (P Fᵀ = 0, P Pᵀ = I), by pivoted QR of Fᵀ."""
    Qf, Rf, _ = scipy_linalg.qr(F.T, pivoting=True)
    tol = max(F.shape) * np.finfo(float).eps * (abs(Rf[0, 0]) if Rf.size else 0.0)
    rank = int(np.sum(np.abs(np.diag(Rf)) > tol)) if Rf.size else 0
    return Qf[:, rank:].T


def _continuous_lqr(A, B, Q, R, N, what: str, F=None) -> tuple[np.ndarray, np.ndarray]:
    A, B, Q, R, N = _lqr_matrices(A, B, Q, R, N, what)
    if F is not None and np.size(F):
        return _constrained_lqr(A, B, Q, R, N, matrix(F, f"{what}: F"), what)
    _check_stabilizable(A, B, R, N, False, what)
    S = _solve(scipy_linalg.solve_continuous_are, (A, B, Q, R, None, N), what, "continuous")
    K = np.linalg.solve(R, B.T @ S + N.T)
    _check_closed_loop(A, B, K, False, what)
    return K, S


def _constrained_lqr(A, B, Q, R, N, F, what: str) -> tuple[np.ndarray, np.ndarray]:
    """LQR on the subspace F x = 0: with y = P x (P the kernel of F), solve the reduced problem
    ẏ = P A1 Pᵀ y + P B u̅ with cost yᵀ P Q1 Pᵀ y + u̅ᵀ R u̅ (A1 = A − B R⁻¹Nᵀ, Q1 = Q − N R⁻¹Nᵀ), as Drake does."""
    n = A.shape[0]
    if F.shape[1] != n:
        raise ValueError(f"{what}: F must have num_states = {n} columns, got shape {F.shape}")
    P = _kernel(F)
    if P.shape[0] == 0:
        raise ValueError(f"{what}: F x = 0 leaves no state free (rank(F) must be < num_states)")
    A1 = A - B @ np.linalg.solve(R, N.T)
    Q1 = Q - N @ np.linalg.solve(R, N.T)
    Ay, By, Qy = P @ A1 @ P.T, P @ B, P @ Q1 @ P.T
    _check_stabilizable(Ay, By, R, np.zeros_like(By), False, what)
    Sy = _solve(scipy_linalg.solve_continuous_are, (Ay, By, 0.5 * (Qy + Qy.T), R), what, "continuous")
    S = P.T @ Sy @ P
    K = np.linalg.solve(R, B.T @ S + N.T @ P.T @ P)
    return K, S


def DiscreteTimeLinearQuadraticRegulator(A, B, Q, R, N=None) -> tuple[np.ndarray, np.ndarray]:
    """(K, S) of the discrete-time LQR: u[n] = −K x[n] minimizes Σ xᵀQx + uᵀRu + 2xᵀNu, cost-to-go xᵀSx."""
    what = "DiscreteTimeLinearQuadraticRegulator"
    A, B, Q, R, N = _lqr_matrices(A, B, Q, R, N, what)
    H = np.block([[Q, N], [N.T, R]])
    if np.min(np.linalg.eigvalsh(0.5 * (H + H.T))) < -1e-10 * max(1.0, float(np.max(np.abs(H)))):
        raise ValueError(f"{what}: the cost [Q N; N' R] must be positive semi-definite")
    _check_stabilizable(A, B, R, N, True, what)
    S = _solve(scipy_linalg.solve_discrete_are, (A, B, Q, R, None, N), what, "discrete")
    K = np.linalg.solve(R + B.T @ S @ B, B.T @ S @ A + N.T)
    _check_closed_loop(A, B, K, True, what)
    return K, S


def _lqr_for(A, B, Q, R, N, time_period: float, what: str) -> tuple[np.ndarray, np.ndarray]:
    if time_period > 0.0:
        return DiscreteTimeLinearQuadraticRegulator(A, B, Q, R, N)
    return _continuous_lqr(A, B, Q, R, N, what)


def LinearQuadraticRegulator(*args, **kwargs):
    """Three forms, as in pydrake:

    * `(A, B, Q, R, N=empty, F=empty)` → `(K, S)` for ẋ = Ax + Bu (u = −Kx, J = xᵀSx), on the subspace
      F x = 0 when F is given;
    * `(system: LinearSystem, Q, R, N=empty)` → a stateless LinearSystem with D = −K (discrete LQR when the
      system's time_period > 0);
    * `(system, context, Q, R, N=empty, input_port_index=0)` → an AffineSystem u = u0 − K(x − x0) that
      takes the system's full state: the system is linearized (by finite differences, so any Python
      LeafSystem works) about the equilibrium (x0, u0) stored in `context`.
    """
    what = "LinearQuadraticRegulator"
    if args and isinstance(args[0], System):
        if len(args) > 1 and isinstance(args[1], Context) or "context" in kwargs:
            return _regulator_at_context(*args, **kwargs)
        return _regulator_for_linear_system(*args, **kwargs)
    names = ("A", "B", "Q", "R", "N", "F")
    if len(args) > len(names):
        raise TypeError(f"{what}(A, B, Q, R, N=empty, F=empty) takes at most 6 arguments, got {len(args)}")
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in values:
            raise TypeError(f"{what}: unexpected or repeated argument '{key}'; the matrix form is "
                            "(A, B, Q, R, N=empty, F=empty)")
        values[key] = value
    missing = [k for k in names[:4] if k not in values]
    if missing:
        raise TypeError(f"{what}: missing {missing}; call (A, B, Q, R, N=empty), (system, Q, R, N=empty) or "
                        "(system, context, Q, R, N=empty, input_port_index=0)")
    return _continuous_lqr(values["A"], values["B"], values["Q"], values["R"], values.get("N"), what,
                           values.get("F"))


def _regulator_for_linear_system(system, Q, R, N=None) -> LinearSystem:
    if not isinstance(system, LinearSystem):
        raise TypeError("LinearQuadraticRegulator(system, Q, R, N): system must be a LinearSystem; for any other "
                        "system (an AffineSystem included) pass the operating point too: "
                        "LinearQuadraticRegulator(system, context, Q, R)")
    K, _S = _lqr_for(system.A(), system.B(), Q, R, N, system.time_period(), "LinearQuadraticRegulator")
    n, m = system.num_states(), system.num_inputs()
    return LinearSystem(np.zeros((0, 0)), np.zeros((0, n)), np.zeros((m, 0)), -K, system.time_period())


def _regulator_at_context(system, context, Q, R, N=None, input_port_index=0) -> AffineSystem:
    what = "LinearQuadraticRegulator"
    system.ValidateContext(context)
    if isinstance(input_port_index, InputPortSelection) and input_port_index == InputPortSelection.kNoInput:
        raise ValueError(f"{what}: input_port_index must select the input to regulate, not kNoInput")
    if context.num_total_states() == 0:
        raise ValueError(f"{what}: {system.GetSystemPathname()} ({type(system).__name__}) has no state to regulate")
    if isinstance(input_port_index, InputPortSelection):
        if system.num_input_ports() == 0:
            raise ValueError(f"{what}: {system.GetSystemPathname()} ({type(system).__name__}) has no input port to "
                             "regulate with")
        port = system.get_input_port(0)
    else:
        i = int(input_port_index)
        if not 0 <= i < system.num_input_ports():
            raise ValueError(f"{what}: input_port_index {i} is out of range; {system.GetSystemPathname()} "
                             f"({type(system).__name__}) has {system.num_input_ports()} input ports")
        port = system.get_input_port(i)
    if port.get_data_type() == PortDataType.kVectorValued and port.size() == 0:
        raise ValueError(f"{what}: input port '{port.get_name()}' of {system.GetSystemPathname()} "
                         f"({type(system).__name__}) has size 0; there is nothing to actuate (a plant without "
                         "actuators cannot be regulated)")
    linear = Linearize(system, context, int(port.get_index()), OutputPortSelection.kNoOutput)
    K, _S = _lqr_for(linear.A(), linear.B(), Q, R, N, linear.time_period(), what)
    if linear.time_period() > 0.0:
        x0 = np.concatenate([context.get_discrete_state(i).CopyToVector()
                             for i in range(context.num_discrete_state_groups())])
    else:
        x0 = context.get_continuous_state_vector().CopyToVector()
    u0 = np.asarray(port.Eval(context), dtype=float)
    n, m = x0.size, u0.size
    return AffineSystem(np.zeros((0, 0)), np.zeros((0, n)), np.zeros(0), np.zeros((m, 0)), -K, u0 + K @ x0,
                        linear.time_period())
