"""`TimeVaryingAffineSystem`: the base of AffineSystem and TrajectoryAffineSystem (pydrake.systems.primitives).

Continuous (time_period == 0):  xdot = A(t) x + B(t) u + f0(t),        y = C(t) x + D(t) u + y0(t).
Discrete  (time_period  > 0):  x[n+1] = A(t) x[n] + B(t) u[n] + f0(t) (periodic update, offset 0, t = n h).
Ports: input u0 when there are inputs, output y0 when there are outputs. Subclasses give the coefficients
(`_coefficients(t)`) and the output's prerequisites. The default state is x0 (configure_default_state); a
random state is x0 + S w, w standard normal, S S^T = covariance (configure_random_state).
"""
from __future__ import annotations

import math

import numpy as np

from mallard.systems.framework import LeafSystem

from ._util import as_matrix, as_vector, input_data

__all__ = ["TimeVaryingAffineSystem"]


class TimeVaryingAffineSystem(LeafSystem):
    """State, ports, events and default / random state of an affine system with time-varying coefficients."""

    def __init__(self, num_states: int, num_inputs: int, num_outputs: int, time_period: float,
                 direct_feedthrough: bool = True) -> None:
        super().__init__()
        tp = float(time_period)
        if not (tp >= 0.0 and math.isfinite(tp)):
            raise ValueError(f"{type(self).__name__}: time_period must be >= 0 (0 = continuous time), got "
                             f"{time_period}")
        n, m, p = int(num_states), int(num_inputs), int(num_outputs)
        self._n, self._m, self._p, self._time_period = n, m, p, tp
        self._x0 = np.zeros(n)
        self._Sx = np.zeros((n, n))
        if n:
            if tp == 0.0:
                self.DeclareContinuousState(n)
            else:
                self.DeclareDiscreteState(n)
                self.DeclarePeriodicDiscreteUpdateEvent(tp, 0.0, self._update)
        if m:
            self.DeclareVectorInputPort("u0", m)
        if p:
            if direct_feedthrough:
                prerequisites = {self.all_sources_ticket()}
            elif n:
                prerequisites = {self.xc_ticket() if tp == 0.0 else self.xd_ticket(), self.time_ticket()}
            else:
                prerequisites = {self.time_ticket()}
            self.DeclareVectorOutputPort("y0", p, self._calc_output, prerequisites)

    def _coefficients(self, t: float) -> tuple:
        """(A, B, f0, C, D, y0) at time t (seconds)."""
        raise TypeError(f"{type(self).__name__} must define _coefficients(t)")

    def time_period(self) -> float:
        return self._time_period

    def num_states(self) -> int:
        return self._n

    def num_inputs(self) -> int:
        return self._m

    def num_outputs(self) -> int:
        return self._p

    def configure_default_state(self, x0) -> None:
        """Default initial state x0 of new contexts."""
        x = as_vector(x0, "configure_default_state: x0")
        if x.shape[0] != self._n:
            raise ValueError(f"configure_default_state: x0 must have size {self._n}, got {x.shape[0]}")
        self._x0 = x

    def configure_random_state(self, covariance) -> None:
        """Random initial states are x0 + S w with S S^T = covariance and w standard normal."""
        P = as_matrix(covariance, "configure_random_state: covariance")
        if P.shape != (self._n, self._n):
            raise ValueError(f"configure_random_state: covariance must be {self._n}x{self._n}, got {P.shape}")
        if not np.allclose(P, P.T):
            raise ValueError("configure_random_state: covariance must be symmetric")
        w, V = np.linalg.eigh(P)
        if np.any(w < -1e-12 * max(1.0, float(np.max(np.abs(w))))):
            raise ValueError("configure_random_state: covariance must be positive semi-definite")
        self._Sx = V @ np.diag(np.sqrt(np.maximum(w, 0.0)))

    # ---- dynamics ---------------------------------------------------------------------------------
    def _state(self, context) -> np.ndarray:
        return context._continuous._vector._data if self._time_period == 0.0 else \
            context.get_discrete_state(0)._data

    def _f(self, context) -> np.ndarray:
        A, B, f0, _C, _D, _y0 = self._coefficients(context.get_time())
        r = A @ self._state(context) + f0
        if self._m:
            r += B @ input_data(self, context, 0)
        return r

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        derivatives._vector._data[:] = self._f(context)

    def _update(self, context, discrete_state) -> None:
        discrete_state.get_mutable_value(0)[:] = self._f(context)

    def _calc_output(self, context, output) -> None:
        _A, _B, _f0, C, D, y0 = self._coefficients(context.get_time())
        y = output._data
        y[:] = y0
        if self._n:
            y += C @ self._state(context)
        if self._m and np.any(D != 0.0):
            y += D @ input_data(self, context, 0)

    def SetDefaultState(self, context, state) -> None:
        super().SetDefaultState(context, state)
        self._write_state(state, self._x0)

    def SetRandomState(self, context, state, generator) -> None:
        super().SetDefaultState(context, state)
        w = generator.standard_normal(self._n) if hasattr(generator, "standard_normal") else \
            np.random.default_rng(int(generator())).standard_normal(self._n)
        self._write_state(state, self._x0 + self._Sx @ w)

    def _write_state(self, state, x) -> None:
        if not self._n:
            return
        if self._time_period == 0.0:
            state._continuous._vector._data[:] = x
        else:
            state._discrete._groups[0]._data[:] = x
