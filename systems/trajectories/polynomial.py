"""`Polynomial`: a univariate polynomial in the segment-local time, as `PiecewisePolynomial.getPolynomial`
returns one element of one segment (coefficients in ascending powers)."""
from __future__ import annotations

from math import factorial

import numpy as np

__all__ = ["Polynomial"]


class Polynomial:
    """p(s) = c_0 + c_1 s + ... + c_d s^d, s being the time since the segment's start (seconds)."""

    def __init__(self, coefficients) -> None:
        c = np.atleast_1d(np.asarray(coefficients, dtype=float)).ravel()
        self._c = c if c.size else np.zeros(1)

    def GetCoefficients(self) -> np.ndarray:
        """The coefficients c_0 ... c_d (ascending powers)."""
        return self._c.copy()

    def GetDegree(self) -> int:
        """The degree d (stored terms count, as Drake's does)."""
        return self._c.size - 1

    def EvaluateUnivariate(self, x: float, derivative_order: int = 0) -> float:
        """The `derivative_order`-th derivative of p at x."""
        return float(np.polynomial.polynomial.polyval(x, self.Derivative(derivative_order)._c))

    def Derivative(self, derivative_order: int = 1) -> "Polynomial":
        k = int(derivative_order)
        if k < 0:
            raise ValueError(f"Polynomial.Derivative: derivative_order must be >= 0, got {k}")
        if k >= self._c.size:
            return Polynomial([0.0])
        scale = np.array([factorial(j + k) / factorial(j) for j in range(self._c.size - k)])
        return Polynomial(self._c[k:] * scale)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Polynomial) and np.array_equal(self._c, other._c)

    def __repr__(self) -> str:
        return f"Polynomial({self._c.tolist()})"
