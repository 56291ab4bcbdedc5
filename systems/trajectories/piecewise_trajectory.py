"""`PiecewiseTrajectory`: the segment bookkeeping shared by piecewise trajectories (breaks t_0 < ... < t_N,
segment i spanning [t_i, t_{i+1}]), as pydrake.trajectories.PiecewiseTrajectory."""
from __future__ import annotations

import bisect

import numpy as np

from .spline_fitting import kEpsilonTime
from .trajectory import Trajectory

__all__ = ["PiecewiseTrajectory", "kEpsilonTime"]


class PiecewiseTrajectory(Trajectory):
    """Subclasses keep their breaks in `_breaks` (a float array, empty when there are no segments)."""

    _breaks: np.ndarray = np.zeros(0)

    def get_number_of_segments(self) -> int:
        return max(int(len(self._breaks)) - 1, 0)

    def get_segment_times(self) -> list[float]:
        """The breaks t_0 ... t_N (seconds)."""
        return [float(b) for b in self._breaks]

    def _check_segment(self, segment_index: int) -> int:
        n = self.get_number_of_segments()
        if not 0 <= int(segment_index) < n:
            raise RuntimeError(f"Segment number {segment_index} out of range [0, {n}) of this "
                               f"{type(self).__name__}")
        return int(segment_index)

    def start_time(self, segment_index: int | None = None) -> float:
        """The start time of the trajectory, or of segment `segment_index`."""
        if segment_index is None:
            return self.do_start_time()
        return float(self._breaks[self._check_segment(segment_index)])

    def end_time(self, segment_index: int | None = None) -> float:
        """The end time of the trajectory, or of segment `segment_index`."""
        if segment_index is None:
            return self.do_end_time()
        return float(self._breaks[self._check_segment(segment_index) + 1])

    def duration(self, segment_index: int) -> float:
        i = self._check_segment(segment_index)
        return float(self._breaks[i + 1] - self._breaks[i])

    def get_segment_index(self, t: float) -> int:
        """The segment containing `t` (the first or last one outside [start_time, end_time])."""
        n = self.get_number_of_segments()
        if n == 0:
            return 0
        i = bisect.bisect_right(self._breaks, float(t)) - 1
        return min(max(i, 0), n - 1)

    def is_time_in_range(self, t: float) -> bool:
        return bool(len(self._breaks) >= 2 and self._breaks[0] <= t <= self._breaks[-1])

    def _require_segments(self, what: str) -> None:
        if self.get_number_of_segments() == 0:
            raise RuntimeError(f"{type(self).__name__}.{what}: the trajectory has no segments")

    def do_start_time(self) -> float:
        self._require_segments("start_time")
        return float(self._breaks[0])

    def do_end_time(self) -> float:
        self._require_segments("end_time")
        return float(self._breaks[-1])
