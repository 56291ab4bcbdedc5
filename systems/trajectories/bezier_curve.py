"""`BezierCurve`: a vector-valued Bézier curve over [start_time, end_time] (pydrake.trajectories).

control_points is (rows, order + 1), one control point per column; value(t) = sum_i B_i,n(s) p_i with
s = (t - start_time) / (end_time - start_time) clamped to [0, 1].
"""
from __future__ import annotations

from math import comb

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.common.scalar_template import double_only_error

from .trajectory import Trajectory

scipy_sparse = LazyModule("scipy.sparse")  # loaded on first use (import time)

__all__ = ["BezierCurve"]


def _difference_matrix(n: int, duration: float) -> scipy_sparse.csc_matrix:
    """(n+1, n) map from n+1 control points to the n control points of the derivative curve."""
    coeff = n / duration
    rows = np.concatenate([np.arange(1, n + 1), np.arange(n)])
    cols = np.concatenate([np.arange(n), np.arange(n)])
    data = np.concatenate([np.full(n, coeff), np.full(n, -coeff)])
    return scipy_sparse.csc_matrix((data, (rows, cols)), shape=(n + 1, n))


class BezierCurve(Trajectory):
    """`BezierCurve()` is empty (0 rows, order -1); `BezierCurve(start_time, end_time, control_points)`."""

    def __init__(self, start_time: float = 0.0, end_time: float = 1.0, control_points=None) -> None:
        super().__init__()
        if not end_time >= start_time:
            raise ValueError(f"BezierCurve: end_time {end_time} must not be before start_time {start_time}")
        points = np.zeros((0, 0)) if control_points is None else np.asarray(control_points, dtype=float)
        if points.ndim == 1:
            points = points[:, None]
        self._t0, self._t1, self._points = float(start_time), float(end_time), points.copy()

    def order(self) -> int:
        """The polynomial order (number of control points - 1)."""
        return self._points.shape[1] - 1

    def control_points(self) -> np.ndarray:
        return self._points.copy()

    def BernsteinBasis(self, i: int, time: float, order: int | None = None) -> float:
        """The i-th Bernstein basis polynomial of degree `order` (default: the curve's) at `time`."""
        n = self.order() if order is None else int(order)
        s = (time - self._t0) / (self._t1 - self._t0)
        return float(comb(n, i) * s ** i * (1.0 - s) ** (n - i))

    def _derivative_points(self, derivative_order: int) -> np.ndarray:
        points, n = self._points, self.order()
        for _ in range(derivative_order):
            points = (points[:, 1:] - points[:, :-1]) * n / (self._t1 - self._t0)
            n -= 1
        return points

    def AsLinearInControlPoints(self, derivative_order: int = 1) -> scipy_sparse.csc_matrix:
        """M such that the control points of the `derivative_order`-th derivative are control_points() @ M."""
        if derivative_order < 0:
            raise ValueError(f"AsLinearInControlPoints: derivative_order must be >= 0, got {derivative_order}")
        n = self.order()
        if derivative_order > n:
            return scipy_sparse.csc_matrix((n + 1, 0))
        M = scipy_sparse.identity(n + 1, format="csc")
        for k in range(derivative_order):
            M = (M @ _difference_matrix(n - k, self._t1 - self._t0)).tocsc()
        return M

    def GetExpression(self, time=None):
        """Symbolic expressions of the curve: not available (mallard computes in double only)."""
        raise double_only_error("BezierCurve.GetExpression (symbolic)")

    def ElevateOrder(self) -> None:
        """Raises the order by one without changing the curve (degree elevation)."""
        n = self.order()
        if n < 0:
            self._points = np.zeros((self._points.shape[0], 1))
            return
        Q = np.empty((self._points.shape[0], n + 2))
        Q[:, 0], Q[:, n + 1] = self._points[:, 0], self._points[:, n]
        for i in range(1, n + 1):
            a = i / (n + 1)
            Q[:, i] = self._points[:, i - 1] * a + self._points[:, i] * (1 - a)
        self._points = Q

    def _evaluate(self, points: np.ndarray, order: int, time: float) -> np.ndarray:
        t = min(max(time, self._t0), self._t1)
        v = np.zeros(self._points.shape[0])
        for i in range(points.shape[1]):
            v += self.BernsteinBasis(i, t, order) * points[:, i]
        return v[:, None]

    def Clone(self) -> "BezierCurve":
        return BezierCurve(self._t0, self._t1, self._points)

    def do_value(self, t: float) -> np.ndarray:
        return self._evaluate(self._points, self.order(), t)

    def do_has_derivative(self) -> bool:
        return True

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        if derivative_order > self.order():
            return np.zeros((self.rows(), 1))
        return self._evaluate(self._derivative_points(derivative_order), self.order() - derivative_order, t)

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        if derivative_order == 0:
            return self.Clone()
        if derivative_order > self.order():
            return BezierCurve(self._t0, self._t1, np.zeros((self.rows(), 1)))
        return BezierCurve(self._t0, self._t1, self._derivative_points(derivative_order))

    def do_rows(self) -> int:
        return self._points.shape[0]

    def do_cols(self) -> int:
        return 1

    def do_start_time(self) -> float:
        return self._t0

    def do_end_time(self) -> float:
        return self._t1
