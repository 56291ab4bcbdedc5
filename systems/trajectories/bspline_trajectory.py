"""`BsplineTrajectory`: a matrix-valued B-spline x(t) = Σᵢ Pᵢ Bᵢ(t) over a `BsplineBasis` (pydrake.trajectories).

Each control point Pᵢ is a (rows, cols) matrix; the basis (order k, knots t₀..t_{n+k-1}) defines the domain
[t_{k-1}, t_n] and the weights Bᵢ(t). Times outside the domain are clamped to it, as in Drake. Derivatives are
B-splines of lower order whose control points are scaled differences (k - j) / (t_{i+k} - t_{i+j}) (Pᵢ₊₁ - Pᵢ).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.multibody.math.bspline_basis import BsplineBasis

from .trajectory import Trajectory

scipy_sparse = LazyModule("scipy.sparse")  # loaded on first use (import time)

__all__ = ["BsplineTrajectory"]


def _control_point_list(control_points) -> list[np.ndarray]:
    """pydrake's two overloads: a (rows, n) matrix whose columns are the n control points, or a list of n matrices."""
    try:
        matrix = np.asarray(control_points, dtype=float)
    except ValueError:  # ragged: a list of matrices of (possibly) different shapes, checked below
        matrix = None
    if matrix is not None and matrix.ndim == 2:
        return [matrix[:, i:i + 1].copy() for i in range(matrix.shape[1])]
    if matrix is not None and matrix.ndim != 3:
        raise TypeError("BsplineTrajectory: control_points must be a (rows, num_control_points) matrix or a list of "
                        f"matrices, got an array of shape {matrix.shape}")
    points = [_matrix(p) for p in control_points]
    if any(p.ndim != 2 for p in points):
        raise TypeError("BsplineTrajectory: each control point must be a 2-D matrix")
    return points


def _matrix(point) -> np.ndarray:
    """A control point as a 2-D float matrix (a 1-D vector is a column, as pybind11 converts it)."""
    p = np.array(point, dtype=float)
    return p.reshape(-1, 1) if p.ndim == 1 else p


class BsplineTrajectory(Trajectory):
    """`BsplineTrajectory()` is empty; `BsplineTrajectory(basis, control_points)` needs one control point per basis
    function, all of the same shape."""

    def __init__(self, basis: BsplineBasis | None = None, control_points=None) -> None:
        super().__init__()
        if (basis is None) != (control_points is None):
            raise TypeError("BsplineTrajectory: pass both basis and control_points, or neither")
        self._basis = BsplineBasis() if basis is None else BsplineBasis(basis)
        self._points = [] if control_points is None else _control_point_list(control_points)
        self._check_invariants()

    def _check_invariants(self) -> None:
        n = self._basis.num_basis_functions()
        if len(self._points) != n:
            raise RuntimeError(f"BsplineTrajectory: {len(self._points)} control points for a basis of {n} basis "
                               "functions (they must be equal)")
        shapes = {p.shape for p in self._points}
        if len(shapes) > 1:
            raise RuntimeError(f"BsplineTrajectory: the control points differ in shape: {sorted(shapes)}")

    # ---- accessors --------------------------------------------------------------------------------
    def basis(self) -> BsplineBasis:
        return BsplineBasis(self._basis)

    def control_points(self) -> list[np.ndarray]:
        return [p.copy() for p in self._points]

    def num_control_points(self) -> int:
        return len(self._points)

    def InitialValue(self) -> np.ndarray:
        return self.value(self.start_time())

    def FinalValue(self) -> np.ndarray:
        return self.value(self.end_time())

    # ---- linear maps from the control points ------------------------------------------------------------
    def _difference_coefficient(self, i: int, j: int) -> float:
        """(k - j) / (t_{i+k} - t_{i+j}): the weight of Pᵢ₊₁ - Pᵢ in the j-th derivative's control point i."""
        t, k = self._basis.knots(), self._basis.order()
        return (k - j) / (t[i + k] - t[i + j])

    def _derivative_coefficients(self, derivative_order: int, indices: range | None = None) -> list:
        """Control points of the derivative of that order (only `indices` of the base basis updated, as Drake)."""
        coefficients = list(self._points)
        for j in range(1, derivative_order + 1):
            active = range(self.num_control_points() - j) if indices is None else range(indices.start,
                                                                                        indices.stop - j)
            for i in active:
                coefficients[i] = self._difference_coefficient(i, j) * (coefficients[i + 1] - coefficients[i])
            coefficients.pop()
        return coefficients

    def _lower_order_basis(self, derivative_order: int) -> BsplineBasis:
        knots = self._basis.knots()
        return BsplineBasis(self._basis.order() - derivative_order, knots[derivative_order:len(knots) - derivative_order])

    def _clamp(self, t: float) -> float:
        return min(max(float(t), self.start_time()), self.end_time())

    def AsLinearInControlPoints(self, derivative_order: int = 1) -> scipy_sparse.csc_matrix:
        """M with [P₀ … P_{n-1}] M = the control points of the `derivative_order`-th derivative (a sparse matrix)."""
        if derivative_order < 0:
            raise ValueError(f"AsLinearInControlPoints: derivative_order must be >= 0, got {derivative_order}")
        n = self.num_control_points()
        if derivative_order == 0:
            return scipy_sparse.identity(n, format="csc")
        if derivative_order >= self._basis.order():
            return scipy_sparse.csc_matrix((n, 1))
        M = np.eye(n)
        for j in range(1, derivative_order + 1):
            for i in range(n - j):
                M[:, i] = self._difference_coefficient(i, j) * (M[:, i + 1] - M[:, i])
        return scipy_sparse.csc_matrix(M[:, :n - derivative_order])

    def EvaluateLinearInControlPoints(self, parameter_value: float, derivative_order: int = 0) -> np.ndarray:
        """m with x⁽ᵈ⁾(parameter_value) = [P₀ … P_{n-1}] m (a column trajectory only)."""
        if derivative_order < 0:
            raise ValueError(f"EvaluateLinearInControlPoints: derivative_order must be >= 0, got {derivative_order}")
        if self.cols() != 1:
            raise RuntimeError(f"EvaluateLinearInControlPoints: the trajectory must be a column (cols() == 1), "
                               f"it has {self.cols()} columns")
        t = self._clamp(parameter_value)
        n = self.num_control_points()
        if derivative_order == 0:
            return self._basis.EvaluateLinearInControlPoints(t)
        if derivative_order >= self._basis.order():
            return np.zeros(n)
        active = self._basis.ComputeActiveBasisFunctionIndices(parameter_value=t)
        M = np.eye(n)
        for j in range(1, derivative_order + 1):
            for i in range(active[0], active[-1] - j + 1):
                M[:, i] = self._difference_coefficient(i, j) * (M[:, i + 1] - M[:, i])
        lower = self._lower_order_basis(derivative_order)
        weights = lower.EvaluateLinearInControlPoints(t)
        m = np.zeros(n)
        for i in lower.ComputeActiveBasisFunctionIndices(parameter_value=t):
            m += M[:, i] * weights[i]
        return m

    # ---- editing and copies ---------------------------------------------------------------------
    def InsertKnots(self, additional_knots: Sequence[float]) -> None:
        """Inserts each knot (Boehm's algorithm) without changing the curve; each must lie in the domain."""
        for t_bar in (float(t) for t in additional_knots):
            if not self.start_time() <= t_bar <= self.end_time():
                raise RuntimeError(f"BsplineTrajectory.InsertKnots: knot {t_bar} is outside the domain "
                                   f"[{self.start_time()}, {self.end_time()}]")
            t, k = self._basis.knots(), self._basis.order()
            ell = self._basis.FindContainingInterval(t_bar)
            points = [self._points[0]]
            for i in range(1, self.num_control_points()):
                if i < ell - k + 2:
                    a = 1.0
                elif i <= ell:
                    a = (t_bar - t[i]) / (t[i + k - 1] - t[i])
                else:
                    a = 0.0
                points.append((1.0 - a) * self._points[i - 1] + a * self._points[i])
            points.append(self._points[-1])
            self._points = points
            self._basis = BsplineBasis(k, t[:ell + 1] + [t_bar] + t[ell + 1:])

    def CopyWithSelector(self, select: Callable[[np.ndarray], np.ndarray]) -> "BsplineTrajectory":
        """The trajectory whose control points are select(Pᵢ)."""
        return BsplineTrajectory(self._basis, [np.asarray(select(p.copy()), dtype=float) for p in self._points])

    def CopyBlock(self, start_row: int, start_col: int, block_rows: int, block_cols: int) -> "BsplineTrajectory":
        """The trajectory of the (block_rows, block_cols) block at (start_row, start_col) of every value."""
        if not (0 <= start_row and 0 <= start_col and 0 <= block_rows and 0 <= block_cols
                and start_row + block_rows <= self.rows() and start_col + block_cols <= self.cols()):
            raise IndexError(f"BsplineTrajectory.CopyBlock: the block ({start_row}, {start_col}) of size "
                             f"{block_rows}x{block_cols} is outside the {self.rows()}x{self.cols()} values")
        return self.CopyWithSelector(lambda p: p[start_row:start_row + block_rows, start_col:start_col + block_cols])

    def CopyHead(self, n: int) -> "BsplineTrajectory":
        """The trajectory of the first n rows of a column trajectory."""
        if self.cols() != 1 or n <= 0:
            raise RuntimeError(f"BsplineTrajectory.CopyHead: needs a column trajectory and n > 0 (cols() = "
                               f"{self.cols()}, n = {n})")
        return self.CopyBlock(0, 0, n, 1)

    def Clone(self) -> "BsplineTrajectory":
        return BsplineTrajectory(self._basis, self._points)

    def __copy__(self) -> "BsplineTrajectory":
        return self.Clone()

    def __deepcopy__(self, memo: dict) -> "BsplineTrajectory":
        return self.Clone()

    def __getstate__(self) -> tuple:
        return self.basis(), self.control_points()

    def __setstate__(self, state: tuple) -> None:
        basis, points = state
        self._basis, self._points = BsplineBasis(basis), [_matrix(p) for p in points]
        self._check_invariants()

    # ---- Trajectory hooks --------------------------------------------------------------------
    def do_value(self, t: float) -> np.ndarray:
        return np.asarray(self._basis.EvaluateCurve(self._points, self._clamp(t)), dtype=float)

    def do_has_derivative(self) -> bool:
        return True

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        if derivative_order == 0:
            return self.value(t)
        if derivative_order >= self._basis.order():
            return np.zeros((self.rows(), self.cols()))
        t = self._clamp(t)
        active = self._basis.ComputeActiveBasisFunctionIndices(parameter_value=t)
        coefficients = self._derivative_coefficients(derivative_order, range(active[0], active[-1] + 1))
        lower = self._lower_order_basis(derivative_order)
        zero = np.zeros((self.rows(), self.cols()))
        points = [zero] * lower.num_basis_functions()
        for i in lower.ComputeActiveBasisFunctionIndices(parameter_value=t):
            points[i] = coefficients[i]
        return np.asarray(lower.EvaluateCurve(points, t), dtype=float)

    def DoMakeDerivative(self, derivative_order: int) -> "BsplineTrajectory":
        if derivative_order == 0:
            return self.Clone()
        knots = self._basis.knots()
        if derivative_order > self._basis.degree():
            return BsplineTrajectory(BsplineBasis(1, [knots[0], knots[-1]]), [np.zeros((self.rows(), self.cols()))])
        return BsplineTrajectory(self._lower_order_basis(derivative_order),
                                 self._derivative_coefficients(derivative_order))

    def do_rows(self) -> int:
        return self._points[0].shape[0] if self._points else 0

    def do_cols(self) -> int:
        return self._points[0].shape[1] if self._points else 0

    def do_start_time(self) -> float:
        self._check_not_empty("start_time")
        return self._basis.initial_parameter_value()

    def do_end_time(self) -> float:
        self._check_not_empty("end_time")
        return self._basis.final_parameter_value()

    def _check_not_empty(self, what: str) -> None:
        if not self._points:
            raise RuntimeError(f"BsplineTrajectory.{what}: the trajectory is empty (constructed without a basis and "
                               "control points)")
