"""Explicit integrators: Euler, semi-explicit Euler, RK2, RK3, RK4, Bogacki–Shampine 3(2), Dormand–Prince 5(4)."""
from __future__ import annotations

import numpy as np

from .integrator_base import IntegratorBase

__all__ = [
    "ExplicitEulerIntegrator", "SemiExplicitEulerIntegrator", "RungeKutta2Integrator", "RungeKutta3Integrator",
    "RungeKutta4Integrator", "BogackiShampine3Integrator", "RungeKutta5Integrator",
]


class _FixedStepIntegrator(IntegratorBase):
    """An integrator without error estimation: constructed with its (maximum) step size, as in Drake."""

    def __init__(self, system, max_step_size: float, context=None) -> None:
        super().__init__(system, max_step_size, context)


class ExplicitEulerIntegrator(_FixedStepIntegrator):
    """x₁ = x₀ + h f(t₀, x₀); first order, fixed steps of at most max_step_size."""

    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        k1 = self._f(t0, x0)
        self._set(t0 + h, x0 + h * k1)
        return None


class SemiExplicitEulerIntegrator(_FixedStepIntegrator):
    """v₁ = v₀ + h v̇(t₀, x₀), q₁ = q₀ + h N(q₀) v₁: symplectic for mechanical systems; fixed steps."""


    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        xdot = self._f(t0, x0)
        cs = ctx._continuous
        nq, nv = cs.num_q(), cs.num_v()
        if cs._q_index is None:
            q_idx, v_idx = np.arange(nq), np.arange(nq, nq + nv)
            z_idx = np.arange(nq + nv, cs.size())
        else:
            q_idx, v_idx, z_idx = cs._q_index, cs._v_index, cs._z_index
        x1 = x0.copy()
        x1[v_idx] = x0[v_idx] + h * xdot[v_idx]
        if nq:
            qdot = self._system._map_v_to_qdot(ctx, x1[v_idx])
            x1[q_idx] = x0[q_idx] + h * qdot
        x1[z_idx] = x0[z_idx] + h * xdot[z_idx]
        self._set(t0 + h, x1)
        return None


class RungeKutta2Integrator(_FixedStepIntegrator):
    """Explicit trapezoid (Heun): second order, fixed steps."""


    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        k1 = self._f(t0, x0)
        k2 = self._f(t0 + h, x0 + h * k1)
        self._set(t0 + h, x0 + (0.5 * h) * (k1 + k2))
        return None


class RungeKutta4Integrator(_FixedStepIntegrator):
    """The classical fourth-order Runge–Kutta method, fixed steps."""


    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        k1 = self._f(t0, x0)
        k2 = self._f(t0 + 0.5 * h, x0 + 0.5 * h * k1)
        k3 = self._f(t0 + 0.5 * h, x0 + 0.5 * h * k2)
        k4 = self._f(t0 + h, x0 + h * k3)
        self._set(t0 + h, x0 + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4))
        return None


class RungeKutta3Integrator(IntegratorBase):
    """Third-order Runge–Kutta (Kutta's method) with an embedded second-order (midpoint) error estimate.

    The default integrator of the Simulator (accuracy 1e-4, max step 0.1 s), as in Drake.
    """

    supports_error_control = True
    error_order = 3

    def __init__(self, system, context=None) -> None:
        super().__init__(system, None, context)

    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        k1 = self._f(t0, x0)
        k2 = self._f(t0 + 0.5 * h, x0 + 0.5 * h * k1)
        k3 = self._f(t0 + h, x0 + h * (2.0 * k2 - k1))
        x1 = x0 + (h / 6.0) * (k1 + 4.0 * k2 + k3)
        self._set(t0 + h, x1)
        return x1 - (x0 + h * k2)


class BogackiShampine3Integrator(IntegratorBase):
    """Bogacki–Shampine 3(2): third order with a second-order embedded error estimate."""

    supports_error_control = True
    error_order = 3

    def __init__(self, system, context=None) -> None:
        super().__init__(system, None, context)

    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        k1 = self._f(t0, x0)
        k2 = self._f(t0 + 0.5 * h, x0 + 0.5 * h * k1)
        k3 = self._f(t0 + 0.75 * h, x0 + 0.75 * h * k2)
        x1 = x0 + h * (2.0 / 9.0 * k1 + 1.0 / 3.0 * k2 + 4.0 / 9.0 * k3)
        k4 = self._f(t0 + h, x1)
        x1_low = x0 + h * (7.0 / 24.0 * k1 + 0.25 * k2 + 1.0 / 3.0 * k3 + 0.125 * k4)
        return x1 - x1_low


# Dormand–Prince 5(4) tableau.
_DP_C = (0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_DP_A = (
    (),
    (1 / 5,),
    (3 / 40, 9 / 40),
    (44 / 45, -56 / 15, 32 / 9),
    (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
    (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
    (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84),
)
_DP_B5 = np.array((35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0))
_DP_B4 = np.array((5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40))


class RungeKutta5Integrator(IntegratorBase):
    """Dormand–Prince 5(4): fifth order with a fourth-order embedded error estimate (scheme 'runge_kutta5')."""

    supports_error_control = True
    error_order = 5
    _default_accuracy, _loosest_accuracy = 1e-5, 1e-3

    def __init__(self, system, context=None) -> None:
        super().__init__(system, None, context)

    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        k = np.empty((7, x0.shape[0]))
        k[0] = self._f(t0, x0)
        for i in range(1, 7):
            xi = x0.copy()
            for j, a in enumerate(_DP_A[i]):
                if a:
                    xi += (h * a) * k[j]
            k[i] = self._f(t0 + _DP_C[i] * h, xi)
        x1 = x0 + h * (_DP_B5 @ k)
        self._set(t0 + h, x1)
        return h * ((_DP_B5 - _DP_B4) @ k)
