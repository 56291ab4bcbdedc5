"""BsplineBasis: the B-spline basis functions of one order over a knot vector (pydrake.math.BsplineBasis).

Knots t₀ ≤ … ≤ t_{n+k-1} for n basis functions of order k (degree k − 1); curves are evaluated with de Boor's
algorithm on [t_{k-1}, t_n], as Drake does.
"""
from __future__ import annotations

import bisect
import enum
from typing import Sequence

import numpy as np

from ._validation import MathValueError

__all__ = ["BsplineBasis", "KnotVectorType"]


class KnotVectorType(enum.IntEnum):
    """How BsplineBasis(order, num_basis_functions, type, ...) spaces its knots."""
    kUniform = 0
    kClampedUniform = 1


def _make_knots(order: int, n: int, type: KnotVectorType, t0: float, tf: float) -> list[float]:
    if n < order:
        raise MathValueError(f"The number of basis functions ({n}) should be greater than or equal to the order "
                         f"({order}).")
    if not t0 <= tf:
        raise MathValueError(f"BsplineBasis: initial_parameter_value ({t0}) must not exceed final_parameter_value ({tf})")
    dt = (tf - t0) / (n - order + 1.0)
    clamped = KnotVectorType(type) == KnotVectorType.kClampedUniform
    knots = []
    for i in range(n + order):
        if clamped and i < order:
            knots.append(t0)
        elif clamped and i >= n:
            knots.append(tf)
        else:
            knots.append(t0 + dt * (i - (order - 1)))
    return knots


class BsplineBasis:
    """B-spline basis of `order` over `knots` (or a uniform / clamped-uniform knot vector)."""

    def __init__(self, *args, **kwargs) -> None:
        other = kwargs.pop("other", None)
        if other is None and len(args) == 1 and not kwargs and isinstance(args[0], BsplineBasis):
            other = args[0]
        if other is not None:
            self._order, self._knots = other._order, list(other._knots)
            return
        names = ("order", "knots")
        if "num_basis_functions" in kwargs or (len(args) >= 2 and np.ndim(args[1]) == 0):
            names = ("order", "num_basis_functions", "type", "initial_parameter_value", "final_parameter_value")
        values = dict(zip(names, args))
        values.update(kwargs)
        if set(values) - set(names):
            raise TypeError(f"BsplineBasis(): unexpected arguments {sorted(set(values) - set(names))}")
        order = int(values.get("order", 0))
        if "num_basis_functions" in values:
            knots = _make_knots(order, int(values["num_basis_functions"]),
                                values.get("type", KnotVectorType.kClampedUniform),
                                float(values.get("initial_parameter_value", 0.0)),
                                float(values.get("final_parameter_value", 1.0)))
        else:
            knots = [float(t) for t in values.get("knots", [])]
        if len(knots) < 2 * order:
            raise MathValueError(f"The number of knots ({len(knots)}) should be greater than or equal to twice the order "
                             f"({2 * order}).")
        if any(b < a for a, b in zip(knots, knots[1:])):
            raise MathValueError(f"BsplineBasis: knots must be sorted in non-descending order, got {knots}")
        self._order, self._knots = order, knots

    def order(self) -> int:
        return self._order

    def degree(self) -> int:
        return self._order - 1

    def num_basis_functions(self) -> int:
        return len(self._knots) - self._order

    def knots(self) -> list[float]:
        return list(self._knots)

    def initial_parameter_value(self) -> float:
        return self._knots[self._order - 1]

    def final_parameter_value(self) -> float:
        return self._knots[self.num_basis_functions()]

    def _check_parameter(self, t: float, what: str) -> float:
        t = float(t)
        if not self.initial_parameter_value() <= t <= self.final_parameter_value():
            raise MathValueError(f"BsplineBasis.{what}: parameter_value {t} is outside [{self.initial_parameter_value()}, "
                             f"{self.final_parameter_value()}]")
        return t

    def FindContainingInterval(self, parameter_value: float) -> int:
        """Index ℓ of the greatest knot ≤ parameter_value that is strictly below final_parameter_value()."""
        t = self._check_parameter(parameter_value, "FindContainingInterval")
        if t < self.final_parameter_value():
            return bisect.bisect_right(self._knots, t) - 1
        return bisect.bisect_left(self._knots, t) - 1

    def ComputeActiveBasisFunctionIndices(self, parameter_interval=None, parameter_value=None) -> list[int]:
        """Indices of the basis functions that are nonzero somewhere on the interval (or at the value)."""
        if parameter_value is not None:
            lo = hi = parameter_value
        elif np.ndim(parameter_interval) == 0:
            lo = hi = parameter_interval
        else:
            lo, hi = parameter_interval
        first = self.FindContainingInterval(lo) - self._order + 1
        return list(range(first, self.FindContainingInterval(hi) + 1))

    def EvaluateCurve(self, control_points: Sequence, parameter_value: float):
        """The curve Σᵢ control_points[i] Bᵢ(parameter_value), by de Boor's algorithm."""
        if len(control_points) != self.num_basis_functions():
            raise MathValueError(f"BsplineBasis.EvaluateCurve: {len(control_points)} control points for "
                             f"{self.num_basis_functions()} basis functions")
        t_bar = self._check_parameter(parameter_value, "EvaluateCurve")
        t, k = self._knots, self._order
        ell = self.FindContainingInterval(t_bar)
        p = [np.asarray(control_points[ell - r], dtype=float) for r in range(k)]
        for j in range(1, k):
            for r in range(k - j):
                i = ell - r
                alpha = (t_bar - t[i]) / (t[i + k - j] - t[i])
                p[r] = (1.0 - alpha) * p[r + 1] + alpha * p[r]
        return p[0]

    def EvaluateLinearInControlPoints(self, parameter_value: float) -> np.ndarray:
        """The vector M with EvaluateCurve(control_points, parameter_value) = control_points · M."""
        return self.EvaluateCurve(list(np.eye(self.num_basis_functions())), parameter_value)

    def EvaluateBasisFunctionI(self, i: int, parameter_value: float) -> float:
        """The value of basis function i at parameter_value."""
        delta = np.zeros(self.num_basis_functions())
        delta[int(i)] = 1.0
        return float(self.EvaluateCurve(list(delta), parameter_value))

    def __eq__(self, other) -> bool:
        return isinstance(other, BsplineBasis) and self._order == other._order and self._knots == other._knots

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = None

    def __getstate__(self):
        return self._order, list(self._knots)

    def __setstate__(self, state) -> None:
        self._order, self._knots = int(state[0]), [float(t) for t in state[1]]

    def __repr__(self) -> str:
        return f"BsplineBasis(order={self._order}, knots={self._knots})"
