"""`PathParameterizedTrajectory`: a path r(s) retimed by a scalar time scaling s(t), value(t) = r(s(t))
(pydrake.trajectories). Derivatives follow Faà di Bruno's formula with Bell polynomials, as Drake's."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .derivative_trajectory import DerivativeTrajectory
from .trajectory import Trajectory

__all__ = ["PathParameterizedTrajectory"]


def _bell_polynomial(n: int, k: int, x: np.ndarray) -> float:
    """The partial Bell polynomial B_{n,k}(x_1, ..., x_{n-k+1})."""

    @lru_cache(maxsize=None)
    def bell(n: int, k: int) -> float:
        if n == 0 and k == 0:
            return 1.0
        if n == 0 or k == 0:
            return 0.0
        total, a = 0.0, 1.0
        for i in range(1, n - k + 2):
            total += a * bell(n - i, k - 1) * x[i - 1]
            a = a * (n - i) / i
        return total
    return bell(n, k)


class PathParameterizedTrajectory(Trajectory):
    """`path` (any trajectory) evaluated at s = time_scaling(t) (a 1x1 trajectory); both are cloned."""

    def __init__(self, path: Trajectory, time_scaling: Trajectory) -> None:
        super().__init__()
        if (time_scaling.rows(), time_scaling.cols()) != (1, 1):
            raise ValueError(f"PathParameterizedTrajectory: time_scaling must be 1x1, got "
                             f"{time_scaling.rows()}x{time_scaling.cols()}")
        self._path, self._scaling = path.Clone(), time_scaling.Clone()

    def path(self) -> Trajectory:
        return self._path

    def time_scaling(self) -> Trajectory:
        return self._scaling

    def Clone(self) -> "PathParameterizedTrajectory":
        return PathParameterizedTrajectory(self._path, self._scaling)

    def _clamped(self, t: float) -> float:
        return min(max(t, self._scaling.start_time()), self._scaling.end_time())

    def do_value(self, t: float) -> np.ndarray:
        return self._path.value(self._scaling.value(self._clamped(t))[0, 0])

    def do_has_derivative(self) -> bool:
        return self._path.has_derivative() and self._scaling.has_derivative()

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        time = self._clamped(t)
        s = self._scaling.value(time)[0, 0]
        s_dots = np.array([self._scaling.EvalDerivative(time, k + 1)[0, 0] for k in range(derivative_order)])
        out = np.zeros((self.rows(), self.cols()))
        for k in range(1, derivative_order + 1):
            out += self._path.EvalDerivative(s, k) * _bell_polynomial(derivative_order, k, s_dots)
        return out

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        return DerivativeTrajectory(self, derivative_order)

    def do_rows(self) -> int:
        return self._path.rows()

    def do_cols(self) -> int:
        return self._path.cols()

    def do_start_time(self) -> float:
        return self._scaling.start_time()

    def do_end_time(self) -> float:
        return self._scaling.end_time()
