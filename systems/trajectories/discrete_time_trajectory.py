"""`DiscreteTimeTrajectory`: matrix values defined only at discrete times (pydrake.trajectories).

value(t) is the value whose time is within `time_comparison_tolerance` of t; any other t is an error.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .piecewise_polynomial import PiecewisePolynomial
from .spline_fitting import as_matrix_list
from .trajectory import Trajectory

__all__ = ["DiscreteTimeTrajectory"]


class DiscreteTimeTrajectory(Trajectory):
    """Values (each a scalar, vector or matrix; a vector is a column) at increasing `times` (seconds)."""

    def __init__(self, times: Sequence[float], values, time_comparison_tolerance: float = np.finfo(float).eps):
        super().__init__()
        t = np.asarray(times, dtype=float).ravel()
        v = as_matrix_list(values, "DiscreteTimeTrajectory")
        if t.size != v.shape[0]:
            raise ValueError(f"DiscreteTimeTrajectory: {t.size} times but {v.shape[0]} values")
        if not time_comparison_tolerance >= 0:
            raise ValueError(f"DiscreteTimeTrajectory: time_comparison_tolerance must be >= 0, got "
                             f"{time_comparison_tolerance}")
        if np.any(np.diff(t) <= time_comparison_tolerance):
            raise ValueError(f"DiscreteTimeTrajectory: times must increase by more than "
                             f"time_comparison_tolerance={time_comparison_tolerance}, got {t.tolist()}")
        self._times, self._values, self._tol = t, v, float(time_comparison_tolerance)

    def Clone(self) -> "DiscreteTimeTrajectory":
        return DiscreteTimeTrajectory(self._times, self._values, self._tol)

    def ToZeroOrderHold(self) -> PiecewisePolynomial:
        """A PiecewisePolynomial holding each value until the next time."""
        return PiecewisePolynomial.ZeroOrderHold(self._times, list(self._values))

    def time_comparison_tolerance(self) -> float:
        return self._tol

    def num_times(self) -> int:
        return int(self._times.size)

    def get_times(self) -> list[float]:
        return self._times.tolist()

    def do_value(self, t: float) -> np.ndarray:
        i = int(np.argmin(np.abs(self._times - t))) if self._times.size else -1
        if i < 0 or abs(t - self._times[i]) > self._tol:
            raise RuntimeError(f"Value requested at time {t} does not match any of the trajectory times within "
                               f"tolerance {self._tol}.")
        return self._values[i].copy()

    def do_rows(self) -> int:
        return int(self._values.shape[1])

    def do_cols(self) -> int:
        return int(self._values.shape[2])

    def do_start_time(self) -> float:
        return float(self._times[0])

    def do_end_time(self) -> float:
        return float(self._times[-1])
