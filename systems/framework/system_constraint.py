"""System constraints declared from outside a system (`System._AddExternalConstraint`): a named function of
the context with lower / upper bounds, as pydrake's `ExternalSystemConstraint`."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["ExternalSystemConstraint"]


class ExternalSystemConstraint:
    """`calc(system, context) -> array` constrained to lie in [lower, upper] (empty by default)."""

    def __init__(self, description: str = "", bounds: tuple[Any, Any] | None = None,
                 calc: Callable | None = None) -> None:
        self._description = description
        lower, upper = bounds if bounds is not None else (np.zeros(0), np.zeros(0))
        self._lower = np.asarray(lower, dtype=float).reshape(-1)
        self._upper = np.asarray(upper, dtype=float).reshape(-1)
        if self._lower.shape != self._upper.shape:
            raise ValueError(f"ExternalSystemConstraint {description!r}: lower bound size {self._lower.size} != "
                             f"upper bound size {self._upper.size}")
        self._calc = calc

    def description(self) -> str:
        return self._description

    def size(self) -> int:
        return self._lower.size

    def lower_bound(self) -> np.ndarray:
        return self._lower.copy()

    def upper_bound(self) -> np.ndarray:
        return self._upper.copy()

    def Calc(self, system, context) -> np.ndarray:
        """The constrained value for `context` of `system` (empty when no calc function was given)."""
        if self._calc is None:
            return np.zeros(0)
        return np.asarray(self._calc(system, context), dtype=float).reshape(-1)
