"""`FunctionHandleTrajectory`: a trajectory given by a Python function of time (pydrake.trajectories)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .derivative_trajectory import DerivativeTrajectory
from .trajectory import Trajectory

__all__ = ["FunctionHandleTrajectory"]


class FunctionHandleTrajectory(Trajectory):
    """value(t) = func(t), a (rows, cols) matrix; `set_derivative(func(t, order))` enables derivatives."""

    def __init__(self, func: Callable, rows: int, cols: int = 1, start_time: float = -np.inf,
                 end_time: float = np.inf) -> None:
        super().__init__()
        if func is None:
            raise ValueError("FunctionHandleTrajectory: func must be a function of time, got None")
        if rows < 0 or cols < 0:
            raise ValueError(f"FunctionHandleTrajectory: rows and cols must be >= 0, got {rows}x{cols}")
        if start_time > end_time:
            raise ValueError(f"FunctionHandleTrajectory: start_time {start_time} > end_time {end_time}")
        self._func, self._rows, self._cols = func, int(rows), int(cols)
        self._start, self._end = float(start_time), float(end_time)
        self._derivative: Callable | None = None

    def set_derivative(self, func: Callable) -> None:
        """Provides the derivatives: func(t, derivative_order) -> (rows, cols) matrix."""
        self._derivative = func

    def Clone(self) -> "FunctionHandleTrajectory":
        clone = FunctionHandleTrajectory(self._func, self._rows, self._cols, self._start, self._end)
        clone._derivative = self._derivative
        return clone

    def _checked(self, value, what: str) -> np.ndarray:
        m = np.asarray(value, dtype=float)
        if m.ndim < 2:
            m = m.reshape(self._rows, self._cols) if m.size == self._rows * self._cols else m
        if m.shape != (self._rows, self._cols):
            raise RuntimeError(f"FunctionHandleTrajectory: {what} returned shape {np.shape(value)}, expected "
                               f"({self._rows}, {self._cols})")
        return m

    def do_value(self, t: float) -> np.ndarray:
        return self._checked(self._func(t), "func")

    def do_has_derivative(self) -> bool:
        return self._derivative is not None

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        return self._checked(self._derivative(t, derivative_order), "the derivative function")

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        return DerivativeTrajectory(self, derivative_order)

    def do_rows(self) -> int:
        return self._rows

    def do_cols(self) -> int:
        return self._cols

    def do_start_time(self) -> float:
        return self._start

    def do_end_time(self) -> float:
        return self._end
