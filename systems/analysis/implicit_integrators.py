"""Implicit integrators for stiff systems: implicit Euler (with an implicit-trapezoid error estimate)
and two-stage Radau IIA (third order, implicit-Euler error estimate). Newton iterations use a
finite-difference Jacobian of the derivative function, reused until convergence degrades.
"""
from __future__ import annotations

import numpy as np

from mallard.common.lazy_import import LazyModule
from .integrator_base import IntegratorBase, _StepFailed

scipy_linalg = LazyModule("scipy.linalg")  # loaded on first use (import time)

__all__ = ["ImplicitEulerIntegrator", "RadauIntegrator"]

_NEWTON_ITERATIONS = 10


class _ImplicitBase(IntegratorBase):
    supports_error_control = True
    _default_accuracy, _loosest_accuracy, _initial_step_fraction = 1e-1, 5e-1, 1.0  # Drake's defaults

    def __init__(self, system, context=None) -> None:
        super().__init__(system, None, context)
        self._jacobian: np.ndarray | None = None
        self._num_jacobian_evaluations = 0

    def get_num_jacobian_evaluations(self) -> int:
        return self._num_jacobian_evaluations

    def GetStatisticsSummary(self) -> list[tuple[str, int | float]]:
        """The base statistics plus the substep failures and Jacobian evaluations (mallard does not split the
        counts between the integrator and its error estimator as Drake does)."""
        return super().GetStatisticsSummary() + [
            ("integrator_num_step_shrinkages_from_substep_failures",
             self.get_num_step_shrinkages_from_substep_failures()),
            ("integrator_num_substep_failures", self.get_num_substep_failures()),
            ("integrator_num_jacobian_evaluations", self.get_num_jacobian_evaluations())]

    def _calc_jacobian(self, t: float, x: np.ndarray) -> np.ndarray:
        """∂f/∂x by forward differences with steps scaled to each coordinate."""
        f0 = self._f(t, x)
        n = x.shape[0]
        jac = np.empty((n, n))
        eps = np.sqrt(np.finfo(float).eps)
        for i in range(n):
            dx = eps * max(1.0, abs(x[i]))
            xp = x.copy()
            xp[i] += dx
            jac[:, i] = (self._f(t, xp) - f0) / dx
        self._num_jacobian_evaluations += 1
        self._jacobian = jac
        return jac

    def _newton_tolerance(self) -> float:
        return 1e-3 * self.get_accuracy_in_use() if not self._fixed else 1e-10

    def _solve_stages(self, t0: float, x0: np.ndarray, h: float, A: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Solves Z_i = h Σ_j A_ij f(t0 + c_j h, x0 + Z_j) for the stage increments Z (s × n) by Newton."""
        s, n = A.shape[0], x0.shape[0]
        for attempt in range(2):
            jac = self._jacobian if (self._jacobian is not None and attempt == 0) else self._calc_jacobian(t0, x0)
            iteration = np.eye(s * n) - h * np.kron(A, jac)
            try:
                lu = scipy_linalg.lu_factor(iteration, check_finite=True)
            except (ValueError, np.linalg.LinAlgError):
                continue
            Z = np.zeros((s, n))
            tol = self._newton_tolerance()
            previous = np.inf
            for _ in range(_NEWTON_ITERATIONS):
                F = np.array([self._f(t0 + c[j] * h, x0 + Z[j]) for j in range(s)])
                residual = (Z - h * (A @ F)).reshape(-1)
                dZ = scipy_linalg.lu_solve(lu, -residual).reshape(s, n)
                Z += dZ
                size = float(np.max(np.abs(dZ) / np.maximum(1.0, np.abs(x0)))) if n else 0.0
                if not np.isfinite(size):
                    break
                if size < tol:
                    return Z
                if size > previous:  # diverging: refresh the Jacobian once
                    break
                previous = size
        raise _StepFailed(f"Newton iterations did not converge with step {h:g} s")


_IE_A, _IE_C = np.array([[1.0]]), np.array([1.0])
_TRAP_A, _TRAP_C = np.array([[0.5]]), np.array([1.0])
_RADAU_A = np.array([[5.0 / 12.0, -1.0 / 12.0], [0.75, 0.25]])
_RADAU_C = np.array([1.0 / 3.0, 1.0])


class ImplicitEulerIntegrator(_ImplicitBase):
    """x₁ = x₀ + h f(t₁, x₁): first order, L-stable; error estimated against the implicit trapezoid rule."""

    error_order = 2

    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        x_ie = x0 + self._solve_stages(t0, x0, h, _IE_A, _IE_C)[0]
        err = None
        if not self._fixed:
            f0 = self._f(t0, x0)
            # Implicit trapezoid: x = x0 + h/2 (f0 + f(t1, x)) — solved as a one-stage method on the shifted start.
            z = self._solve_stages(t0, x0 + 0.5 * h * f0, h, _TRAP_A, _TRAP_C)[0]
            err = x_ie - (x0 + 0.5 * h * f0 + z)
        self._set(t0 + h, x_ie)
        return err


class RadauIntegrator(_ImplicitBase):
    """Two-stage Radau IIA (third order, stiffly accurate); error estimated against implicit Euler."""

    error_order = 3

    def __init__(self, system, context=None, num_stages: int = 2) -> None:
        super().__init__(system, context)
        if num_stages not in (1, 2):
            raise ValueError(f"RadauIntegrator: num_stages must be 1 or 2, got {num_stages}")
        self._stages = num_stages
        if num_stages == 1:
            self.error_order = 2
        else:
            self._default_accuracy, self._loosest_accuracy = 1e-3, 1e-2

    def _do_step(self, h):
        ctx = self._context
        t0, x0 = ctx._time, ctx._xc.copy()
        if self._stages == 1:
            x1 = x0 + self._solve_stages(t0, x0, h, _IE_A, _IE_C)[0]
            err = None
            if not self._fixed:
                f0 = self._f(t0, x0)
                z = self._solve_stages(t0, x0 + 0.5 * h * f0, h, _TRAP_A, _TRAP_C)[0]
                err = x1 - (x0 + 0.5 * h * f0 + z)
        else:
            x1 = x0 + self._solve_stages(t0, x0, h, _RADAU_A, _RADAU_C)[-1]
            err = None
            if not self._fixed:
                err = x1 - (x0 + self._solve_stages(t0, x0, h, _IE_A, _IE_C)[0])
        self._set(t0 + h, x1)
        return err
