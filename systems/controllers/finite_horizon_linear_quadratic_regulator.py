"""Finite-horizon LQR about a nominal trajectory of a continuous-time system (pydrake.systems.controllers).

With x̄ = x − x0(t), ū = u − u0(t), the dynamics linearized along the nominal, ẋ̄ = A(t)x̄ + B(t)ū + c(t)
(c = f(t, x0, u0) − ẋ0), and the cost
    x̄d(tf)ᵀQf x̄d(tf) + ∫ x̄dᵀQ x̄d + ūdᵀR ūd + 2 x̄dᵀN ūd dt,   x̄d = x − xd(t), ūd = u − ud(t),
the cost-to-go is J = x̄ᵀS x̄ + 2x̄ᵀsx + s0 and the optimal input u = u0 − K x̄ − k0, where
    −Ṡ   = SA + AᵀS − (N + SB)R⁻¹(N + SB)ᵀ + Q,                       S(tf) = Qf (0 if no Qf)
    −ṡx  = qx − (N + SB)R⁻¹r + Aᵀsx + Sc,   qx = −Q x̃d − N ũd,  r = −R ũd − Nᵀx̃d + Bᵀsx
    −ṡ0  = x̃dᵀQx̃d + ũdᵀRũd + 2x̃dᵀNũd − rᵀR⁻¹r + 2sxᵀc
    K = R⁻¹(N + SB)ᵀ,  k0 = −ũd + R⁻¹(−Nᵀx̃d + Bᵀsx)             (x̃d = xd − x0, ũd = ud − u0).
The square-root method integrates P with S = PPᵀ instead. The Riccati equations run backwards from tf with
scipy's DOP853 (relative accuracy `simulator_config.accuracy`, steps at most `max_step_size`); A(t), B(t)
come from central finite differences of the system's time derivatives, so any Python LeafSystem works.
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import InputPortSelection, LeafSystem, PortDataType
from mallard.systems.primitives._util import input_data
from mallard.systems.trajectories import PiecewisePolynomial
from ._checks import matrix

__all__ = ["FiniteHorizonLinearQuadraticRegulator", "FiniteHorizonLinearQuadraticRegulatorOptions",
           "FiniteHorizonLinearQuadraticRegulatorResult", "MakeFiniteHorizonLinearQuadraticRegulator"]

_kStep = np.finfo(float).eps ** (1.0 / 3.0)
_WHAT = "FiniteHorizonLinearQuadraticRegulator"


class FiniteHorizonLinearQuadraticRegulatorOptions:
    """Optional inputs: Qf, N, nominal x0/u0 and desired xd/ud trajectories, the input port, the integrator."""

    def __init__(self) -> None:
        self.Qf = None
        self.N = None
        self.x0 = None
        self.u0 = None
        self.xd = None
        self.ud = None
        self.input_port_index = InputPortSelection.kUseFirstInputIfItExists
        self.use_square_root_method = False
        from mallard.systems.analysis import SimulatorConfig  # deferred: pydantic is slow to import
        self.simulator_config = SimulatorConfig()

    def __repr__(self) -> str:
        return (f"FiniteHorizonLinearQuadraticRegulatorOptions(Qf={self.Qf}, N={self.N}, "
                f"input_port_index={self.input_port_index}, use_square_root_method={self.use_square_root_method},"
                f" simulator_config={self.simulator_config!r})")


class FiniteHorizonLinearQuadraticRegulatorResult:
    """Trajectories x0, u0, K, k0 (u = u0 − K(x − x0) − k0) and S, sx, s0 (the cost-to-go)."""

    def __init__(self, x0, u0, K, k0, S, sx, s0) -> None:
        self.x0, self.u0, self.K, self.k0, self.S, self.sx, self.s0 = x0, u0, K, k0, S, sx, s0


class _Linearization:
    """A(t), B(t), f(t, x0, u0) of `system` by central differences on a private copy of `context`."""

    def __init__(self, system, context, port) -> None:
        self.system, self.port = system, port
        self.ctx = context.Clone()
        for p in (system.get_input_port(i) for i in range(system.num_input_ports())):
            if p is not port and p.get_data_type() == PortDataType.kVectorValued and p.HasValue(context):
                p.FixValue(self.ctx, p.Eval(context))

    def f(self, t: float, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        self.ctx.SetTime(t)
        self.ctx.SetContinuousState(x)
        self.port.FixValue(self.ctx, u)
        return self.system.EvalTimeDerivatives(self.ctx).CopyToVector()

    def __call__(self, t: float, x: np.ndarray, u: np.ndarray):
        n, m = x.size, u.size
        A, B = np.empty((n, n)), np.empty((n, m))
        for j in range(n):
            h = _kStep * max(1.0, abs(x[j]))
            xp, xm = x.copy(), x.copy()
            xp[j] += h
            xm[j] -= h
            A[:, j] = (self.f(t, xp, u) - self.f(t, xm, u)) / (xp[j] - xm[j])
        for j in range(m):
            h = _kStep * max(1.0, abs(u[j]))
            up, um = u.copy(), u.copy()
            up[j] += h
            um[j] -= h
            B[:, j] = (self.f(t, x, up) - self.f(t, x, um)) / (up[j] - um[j])
        f0 = self.f(t, x, u)
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(B)) and np.all(np.isfinite(f0))):
            raise RuntimeError(f"{_WHAT}: the dynamics of {self.system.GetSystemPathname()} are not finite along the "
                               f"nominal trajectory at t = {t}")
        return A, B, f0


def _psd(M: np.ndarray, name: str, strict: bool) -> None:
    if not np.allclose(M, M.T, atol=1e-8 * max(1.0, float(np.max(np.abs(M))))):
        raise ValueError(f"{_WHAT}: {name} must be symmetric")
    w = np.linalg.eigvalsh(0.5 * (M + M.T))
    bound = (1e-8 * max(1.0, float(np.max(np.abs(w))))) if strict else -1e-10 * max(1.0, float(np.max(np.abs(w))))
    if (w.min() <= bound) if strict else (w.min() < bound):
        raise ValueError(f"{_WHAT}: {name} must be positive {'definite' if strict else 'semi-definite'} "
                         f"(eigenvalues {w})")


def _trajectory(value, t0: float, tf: float, rows: int, name: str, need_derivative: bool):
    if not all(hasattr(value, a) for a in ("value", "start_time", "end_time", "rows")):
        raise TypeError(f"{_WHAT}: options.{name} must be a Trajectory (e.g. a PiecewisePolynomial)")
    if value.start_time() > t0 or value.end_time() < tf:
        raise ValueError(f"{_WHAT}: options.{name} spans [{value.start_time()}, {value.end_time()}] but must cover "
                         f"[t0, tf] = [{t0}, {tf}]")
    if value.rows() != rows or value.cols() != 1:
        raise ValueError(f"{_WHAT}: options.{name} must be a {rows}x1 trajectory, got {value.rows()}x{value.cols()}")
    if need_derivative and not value.has_derivative():
        raise ValueError(f"{_WHAT}: options.{name} must have a derivative (the nominal state rate enters c(t))")
    return value


def _column(traj, t: float) -> np.ndarray:
    return np.asarray(traj.value(t), dtype=float).reshape(-1)


def FiniteHorizonLinearQuadraticRegulator(system, context, t0: float, tf: float, Q, R,
                                          options: FiniteHorizonLinearQuadraticRegulatorOptions | None = None
                                          ) -> FiniteHorizonLinearQuadraticRegulatorResult:
    """Solve the time-varying LQR of a continuous-time `system` on [t0, tf] (see the module docstring).

    The nominal x0/u0 default to the constant state and input in `context`. Only systems whose context holds
    continuous state alone are supported (the discrete-time variant is not provided by mallard).
    """
    opts = options if options is not None else FiniteHorizonLinearQuadraticRegulatorOptions()
    system.ValidateContext(context)
    t0, tf = float(t0), float(tf)
    if not (np.isfinite(t0) and np.isfinite(tf) and tf > t0):
        raise ValueError(f"{_WHAT}: need finite t0 < tf, got t0 = {t0}, tf = {tf}")
    if context.num_discrete_state_groups() or context.num_abstract_states():
        raise ValueError(f"{_WHAT}: {system.GetSystemPathname()} ({type(system).__name__}) has discrete or abstract "
                         "state; mallard solves the continuous-time problem only (systems with continuous state alone)")
    n = context.num_continuous_states()
    if n == 0:
        raise ValueError(f"{_WHAT}: {system.GetSystemPathname()} has no continuous state")
    index = opts.input_port_index
    if isinstance(index, InputPortSelection) and index == InputPortSelection.kNoInput:
        raise ValueError(f"{_WHAT}: options.input_port_index must select an input, not kNoInput")
    i = 0 if isinstance(index, InputPortSelection) else int(index)
    if not 0 <= i < system.num_input_ports():
        raise ValueError(f"{_WHAT}: input port {i} does not exist; {system.GetSystemPathname()} has "
                         f"{system.num_input_ports()} input ports")
    port = system.get_input_port(i)
    if port.get_data_type() != PortDataType.kVectorValued or port.size() == 0:
        raise ValueError(f"{_WHAT}: input port '{port.get_name()}' must be a non-empty vector port; pass "
                         "options.input_port_index to select the actuation input")
    m = port.size()

    Q_, R_ = matrix(Q, f"{_WHAT}: Q"), matrix(R, f"{_WHAT}: R")
    if Q_.shape != (n, n) or R_.shape != (m, m):
        raise ValueError(f"{_WHAT}: Q must be {n}x{n} and R {m}x{m} (num_states, num_inputs), got {Q_.shape} and "
                         f"{R_.shape}")
    _psd(Q_, "Q", strict=False)
    _psd(R_, "R", strict=True)
    N_ = np.zeros((n, m)) if opts.N is None else matrix(opts.N, f"{_WHAT}: options.N")
    if N_.shape != (n, m):
        raise ValueError(f"{_WHAT}: options.N must be {n}x{m}, got {N_.shape}")
    Qf = None
    if opts.Qf is not None:
        Qf = matrix(opts.Qf, f"{_WHAT}: options.Qf")
        if Qf.shape != (n, n):
            raise ValueError(f"{_WHAT}: options.Qf must be {n}x{n}, got {Qf.shape}")
        _psd(Qf, "options.Qf", strict=bool(opts.use_square_root_method))
    elif opts.use_square_root_method:
        raise ValueError(f"{_WHAT}: options.Qf is required when options.use_square_root_method is True")

    if opts.x0 is None:
        x0 = PiecewisePolynomial(context.get_continuous_state_vector().CopyToVector())
    else:
        x0 = _trajectory(opts.x0, t0, tf, n, "x0", need_derivative=True)
    if opts.u0 is None:
        if not port.HasValue(context):
            raise RuntimeError(f"{_WHAT}: input port '{port.get_name()}' is neither connected nor fixed in `context`;"
                               " fix it to the nominal input or pass options.u0")
        u0 = PiecewisePolynomial(np.asarray(port.Eval(context), dtype=float))
    else:
        u0 = _trajectory(opts.u0, t0, tf, m, "u0", need_derivative=False)
    xd = None if opts.xd is None else _trajectory(opts.xd, t0, tf, n, "xd", need_derivative=False)
    ud = None if opts.ud is None else _trajectory(opts.ud, t0, tf, m, "ud", need_derivative=False)

    lin = _Linearization(system, context, port)
    Rinv = np.linalg.inv(R_)
    sqrt = bool(opts.use_square_root_method)
    nn = n * n

    def nominal(t):
        x_nom, u_nom = _column(x0, t), _column(u0, t)
        A, B, f0 = lin(t, x_nom, u_nom)
        xdot_nom = np.asarray(x0.EvalDerivative(t, 1), dtype=float).reshape(-1)
        xd0 = np.zeros(n) if xd is None else _column(xd, t) - x_nom
        ud0 = np.zeros(m) if ud is None else _column(ud, t) - u_nom
        return A, B, f0 - xdot_nom, xd0, ud0

    def rhs(t, y):
        A, B, c, xd0, ud0 = nominal(t)
        if sqrt:
            P = y[:nn].reshape(n, n)
            S = P @ P.T
        else:
            S = y[:nn].reshape(n, n)
        sx = y[nn:nn + n]
        NSB = N_ + S @ B
        r = -R_ @ ud0 - N_.T @ xd0 + B.T @ sx
        if sqrt:
            PinvT = np.linalg.inv(P).T
            minus_head = A.T @ P - 0.5 * NSB @ Rinv @ (B.T @ P + N_.T @ PinvT) + 0.5 * Q_ @ PinvT
        else:
            minus_head = S @ A + A.T @ S - NSB @ Rinv @ NSB.T + Q_
        minus_sx = -Q_ @ xd0 - N_ @ ud0 - NSB @ Rinv @ r + A.T @ sx + S @ c
        minus_s0 = xd0 @ Q_ @ xd0 + ud0 @ R_ @ ud0 + 2.0 * xd0 @ N_ @ ud0 - r @ Rinv @ r + 2.0 * sx @ c
        return -np.concatenate([minus_head.reshape(-1), minus_sx, [minus_s0]])

    y_f = np.zeros(nn + n + 1)
    if Qf is not None:
        Qs = 0.5 * (Qf + Qf.T)
        if sqrt:  # the symmetric square root P = V sqrt(W) V^T of Qf = V W V^T
            w, V = np.linalg.eigh(Qs)
            y_f[:nn] = ((V * np.sqrt(w)) @ V.T).reshape(-1)
        else:
            y_f[:nn] = Qs.reshape(-1)
        if xd is not None:
            xd0_f = _column(xd, tf) - _column(x0, tf)
            y_f[nn:nn + n] = -Qs @ xd0_f
            y_f[-1] = xd0_f @ Qs @ xd0_f
    from scipy.integrate import solve_ivp  # deferred: only this solver needs it
    config = opts.simulator_config
    rtol = float(config.accuracy)
    max_step = float(config.max_step_size) if config.max_step_size > 0 else np.inf
    sol = solve_ivp(rhs, (tf, t0), y_f, method="DOP853", rtol=rtol, atol=rtol * 1e-3, max_step=max_step,
                    dense_output=True)
    if not sol.success or not np.all(np.isfinite(sol.y)):
        raise RuntimeError(f"{_WHAT}: integrating the Riccati equation from tf = {tf} back to t0 = {t0} failed "
                           f"({sol.message}); the solution may have escaped to infinity (check Q, R and Qf)")
    return _make_result(sol, rhs, nominal, x0, u0, Rinv, R_, N_, n, m, sqrt)


def _make_result(sol, rhs, nominal, x0, u0, Rinv, R_, N_, n: int, m: int, sqrt: bool
                 ) -> FiniteHorizonLinearQuadraticRegulatorResult:
    """S, sx, s0 as cubic Hermite splines through the solver steps; K, k0 as cubic Lagrange interpolants."""
    nn = n * n
    times = sol.t[::-1]
    ys = sol.y[:, ::-1]
    ydots = np.stack([rhs(t, ys[:, k]) for k, t in enumerate(times)], axis=1)

    def unpack_S(y, ydot=None):
        head = y[:nn].reshape(n, n)
        if not sqrt:
            return head if ydot is None else (head, ydot[:nn].reshape(n, n))
        if ydot is None:
            return head @ head.T
        Pdot = ydot[:nn].reshape(n, n)
        return head @ head.T, Pdot @ head.T + head @ Pdot.T

    S_samples, S_dots = zip(*(unpack_S(ys[:, k], ydots[:, k]) for k in range(times.size)))
    S = PiecewisePolynomial.CubicHermite(times, list(S_samples), list(S_dots))
    sx = PiecewisePolynomial.CubicHermite(times, ys[nn:nn + n, :], ydots[nn:nn + n, :])
    s0 = PiecewisePolynomial.CubicHermite(times, ys[-1:, :], ydots[-1:, :])

    def gains(t):
        y = sol.sol(t)
        S_t, sx_t = unpack_S(y), y[nn:nn + n]
        _A, B, _c, xd0, ud0 = nominal(t)
        return Rinv @ (N_ + S_t @ B).T, (-ud0 + Rinv @ (-N_.T @ xd0 + B.T @ sx_t))[:, None]

    K, k0 = PiecewisePolynomial(), PiecewisePolynomial()
    previous = gains(times[0])
    for a, b in zip(times[:-1], times[1:]):
        sample_times = [a, a + (b - a) / 3.0, a + 2.0 * (b - a) / 3.0, b]
        samples = [previous] + [gains(t) for t in sample_times[1:]]
        K.ConcatenateInTime(PiecewisePolynomial.LagrangeInterpolatingPolynomial(sample_times,
                                                                                [s[0] for s in samples]))
        k0.ConcatenateInTime(PiecewisePolynomial.LagrangeInterpolatingPolynomial(sample_times,
                                                                                 [s[1] for s in samples]))
        previous = samples[-1]
    return FiniteHorizonLinearQuadraticRegulatorResult(x0.Clone(), u0.Clone(), K, k0, S, sx, s0)


class _FiniteHorizonController(LeafSystem):
    """u(t) = u0(t) − K(t)(x − x0(t)) − k0(t): input `plant_state` → output `command` (depends on time)."""

    def __init__(self, result: FiniteHorizonLinearQuadraticRegulatorResult) -> None:
        super().__init__()
        self._result = result
        self.DeclareVectorInputPort("plant_state", result.K.cols())
        self.DeclareVectorOutputPort("command", result.K.rows(), self._calc,
                                     {self.time_ticket(), self.input_port_ticket(0)})

    def _calc(self, context, output) -> None:
        t = context.get_time()
        r = self._result
        x = input_data(self, context, 0)
        output._data[:] = (_column(r.u0, t) - np.asarray(r.K.value(t)) @ (x - _column(r.x0, t))
                           - _column(r.k0, t))


def MakeFiniteHorizonLinearQuadraticRegulator(system, context, t0: float, tf: float, Q, R,
                                              options: FiniteHorizonLinearQuadraticRegulatorOptions | None = None
                                              ) -> LeafSystem:
    """A System implementing the finite-horizon LQR policy: `plant_state` → `command`."""
    return _FiniteHorizonController(FiniteHorizonLinearQuadraticRegulator(system, context, t0, tf, Q, R, options))
