"""`ExponentialPlusPiecewisePolynomial`: y(t) = K expm(A (t - t_j)) alpha_j + pp(t) on segment j
(pydrake.trajectories; e.g. the center-of-mass trajectories of linear inverted-pendulum planners)."""
from __future__ import annotations

import numpy as np

from .piecewise_polynomial import PiecewisePolynomial
from .piecewise_trajectory import PiecewiseTrajectory

__all__ = ["ExponentialPlusPiecewisePolynomial"]


def _expm(M: np.ndarray) -> np.ndarray:
    """Matrix exponential by scaling and squaring of a degree-18 Taylor series (small matrices)."""
    norm = float(np.max(np.sum(np.abs(M), axis=1))) if M.size else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0.5 else 0
    X = M / (2.0 ** squarings)
    term = np.eye(M.shape[0])
    result = term.copy()
    for k in range(1, 19):
        term = term @ X / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result


def _matrix(x) -> np.ndarray:
    """A matrix from a scalar, a vector (a column, as Eigen converts it) or a matrix."""
    m = np.asarray(x, dtype=float)
    return m.reshape(1, 1) if m.ndim == 0 else (m[:, None] if m.ndim == 1 else m)


class ExponentialPlusPiecewisePolynomial(PiecewiseTrajectory):
    """K (rows x n), A (n x n), alpha (n x segments) and a column PiecewisePolynomial part (its breaks)."""

    def __init__(self, K, A, alpha, piecewise_polynomial_part: PiecewisePolynomial) -> None:
        super().__init__()
        self._K, self._A, self._alpha = _matrix(K), _matrix(A), _matrix(alpha)
        n = self._A.shape[0]
        if self._A.shape != (n, n) or self._K.shape[1] != n or self._alpha.shape[0] != n:
            raise ValueError(f"ExponentialPlusPiecewisePolynomial: inconsistent sizes K {self._K.shape}, "
                             f"A {self._A.shape}, alpha {self._alpha.shape}")
        if self._alpha.shape[1] != piecewise_polynomial_part.get_number_of_segments():
            raise ValueError(f"ExponentialPlusPiecewisePolynomial: alpha has {self._alpha.shape[1]} columns, the "
                             f"polynomial part has {piecewise_polynomial_part.get_number_of_segments()} segments")
        self._pp = piecewise_polynomial_part.Clone()
        self._breaks = np.asarray(self._pp.get_segment_times(), dtype=float)

    def Clone(self) -> "ExponentialPlusPiecewisePolynomial":
        return ExponentialPlusPiecewisePolynomial(self._K, self._A, self._alpha, self._pp)

    def shiftRight(self, offset: float) -> None:
        """Shifts the trajectory `offset` seconds later."""
        self._breaks = self._breaks + float(offset)
        self._pp.shiftRight(offset)

    def derivative(self, derivative_order: int = 1) -> "ExponentialPlusPiecewisePolynomial":
        """The `derivative_order`-th derivative (K A^k, same A and alpha, derivative of the polynomial part)."""
        K = self._K @ np.linalg.matrix_power(self._A, int(derivative_order))
        return ExponentialPlusPiecewisePolynomial(K, self._A, self._alpha, self._pp.derivative(derivative_order))

    def do_value(self, t: float) -> np.ndarray:
        j = self.get_segment_index(t)
        exponential = _expm(self._A * (t - self._breaks[j]))
        return self._pp.value(t) + self._K @ exponential @ self._alpha[:, j:j + 1]

    def do_rows(self) -> int:
        return self._pp.rows()

    def do_cols(self) -> int:
        return self._pp.cols()
