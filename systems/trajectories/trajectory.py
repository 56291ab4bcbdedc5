"""`Trajectory`: a matrix-valued function of time, as `pydrake.trajectories.Trajectory`.

Subclasses (in Python, as in pydrake) override `do_value` (or `DoValue`), `do_start_time`, `do_end_time`,
`do_rows`, `do_cols` and optionally `do_has_derivative` / `DoEvalDerivative` / `DoMakeDerivative`. A Python
subclass is cloned by deep copy, wrapped in `_WrappedTrajectory` as pydrake does.
"""
from __future__ import annotations

import copy
from typing import Sequence

import numpy as np


class Trajectory:
    """A time-indexed matrix y(t) of shape (rows, cols); times are in seconds."""

    def __init__(self) -> None:
        pass

    # ---- public API (pydrake names) -------------------------------------------------------------
    def value(self, t: float) -> np.ndarray:
        """The (rows, cols) value at time `t` (seconds)."""
        return np.asarray(self.do_value(float(t)), dtype=float)

    def vector_values(self, t: Sequence[float]) -> np.ndarray:
        """Values at many times: (rows, len(t)) for a column trajectory, (len(t), cols) for a row one."""
        rows, cols = self.rows(), self.cols()
        if cols != 1 and rows != 1:
            raise RuntimeError(
                f"vector_values() only supports vector-valued trajectories; this one is {rows}x{cols}")
        times = np.asarray(t, dtype=float).ravel()
        if cols == 1:
            out = np.empty((rows, times.size))
            for i, ti in enumerate(times):
                out[:, i] = self.value(ti)[:, 0]
        else:
            out = np.empty((times.size, cols))
            for i, ti in enumerate(times):
                out[i, :] = self.value(ti)[0, :]
        return out

    def EvalDerivative(self, t: float, derivative_order: int = 1) -> np.ndarray:
        """The (rows, cols) `derivative_order`-th time derivative at `t`."""
        if derivative_order < 0:
            raise ValueError(f"derivative_order must be >= 0, got {derivative_order}")
        if derivative_order == 0:
            return self.value(t)
        if not self.has_derivative():
            raise RuntimeError(f"{type(self).__name__} does not support derivatives (has_derivative() is False)")
        return np.asarray(self.DoEvalDerivative(float(t), int(derivative_order)), dtype=float)

    def MakeDerivative(self, derivative_order: int = 1) -> "Trajectory":
        """A new trajectory that is the `derivative_order`-th time derivative of this one."""
        if derivative_order < 0:
            raise ValueError(f"derivative_order must be >= 0, got {derivative_order}")
        if not self.has_derivative():
            raise RuntimeError(f"{type(self).__name__} does not support derivatives (has_derivative() is False)")
        derivative = self.DoMakeDerivative(int(derivative_order))
        if _is_user_class(type(self)):
            return _WrappedTrajectory(derivative)
        return derivative

    def has_derivative(self) -> bool:
        """Whether EvalDerivative / MakeDerivative are supported."""
        return self.do_has_derivative()

    def start_time(self) -> float:
        """First time (seconds) of the trajectory's domain."""
        return self.do_start_time()

    def end_time(self) -> float:
        """Last time (seconds) of the trajectory's domain."""
        return self.do_end_time()

    def rows(self) -> int:
        """Number of rows of value(t)."""
        return self.do_rows()

    def cols(self) -> int:
        """Number of columns of value(t)."""
        return self.do_cols()

    def Clone(self) -> "Trajectory":
        """A deep copy (a Python subclass's copy comes wrapped in `_WrappedTrajectory`, as in pydrake)."""
        return _WrappedTrajectory(copy.deepcopy(self))

    # ---- overridable hooks -----------------------------------------------------------------------
    def do_value(self, t: float) -> np.ndarray:
        return self.DoValue(t)

    def DoValue(self, t: float) -> np.ndarray:
        raise RuntimeError(f"{type(self).__name__} must override do_value(t)")

    def do_has_derivative(self) -> bool:
        return False

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        raise RuntimeError(f"{type(self).__name__} must override DoEvalDerivative(t, derivative_order)")

    def DoMakeDerivative(self, derivative_order: int) -> "Trajectory":
        raise RuntimeError(f"{type(self).__name__} supports derivatives but must implement DoMakeDerivative()")

    def do_start_time(self) -> float:
        raise RuntimeError(f"{type(self).__name__} must override do_start_time()")

    def do_end_time(self) -> float:
        raise RuntimeError(f"{type(self).__name__} must override do_end_time()")

    def do_rows(self) -> int:
        raise RuntimeError(f"{type(self).__name__} must override do_rows()")

    def do_cols(self) -> int:
        raise RuntimeError(f"{type(self).__name__} must override do_cols()")


def _is_user_class(cls: type) -> bool:
    """True for a Trajectory subclass written outside mallard (pydrake wraps those in _WrappedTrajectory)."""
    return not cls.__module__.startswith("mallard.")


# At the bottom: _WrappedTrajectory derives from Trajectory.
from .wrapped_trajectory import _WrappedTrajectory  # noqa: E402
