"""`_WrappedTrajectory`: a Trajectory that forwards to another one (pydrake wraps Python trajectories in it
when they are cloned or differentiated)."""
from __future__ import annotations

import copy

import numpy as np

from .trajectory import Trajectory

__all__ = ["_WrappedTrajectory"]


class _WrappedTrajectory(Trajectory):
    """Forwards every query to `trajectory` (held, not copied)."""

    def __init__(self, trajectory: Trajectory) -> None:
        super().__init__()
        if not isinstance(trajectory, Trajectory):
            raise TypeError(f"_WrappedTrajectory: expected a Trajectory, got {type(trajectory).__name__}")
        self._trajectory = trajectory

    def unwrap(self) -> Trajectory:
        return self._trajectory

    def Clone(self) -> "_WrappedTrajectory":
        return _WrappedTrajectory(copy.deepcopy(self._trajectory))

    def do_value(self, t: float) -> np.ndarray:
        return self._trajectory.value(t)

    def do_has_derivative(self) -> bool:
        return self._trajectory.has_derivative()

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        return self._trajectory.EvalDerivative(t, derivative_order)

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        return self._trajectory.MakeDerivative(derivative_order)

    def do_rows(self) -> int:
        return self._trajectory.rows()

    def do_cols(self) -> int:
        return self._trajectory.cols()

    def do_start_time(self) -> float:
        return self._trajectory.start_time()

    def do_end_time(self) -> float:
        return self._trajectory.end_time()

    def __repr__(self) -> str:
        return f"_WrappedTrajectory({self._trajectory!r})"
