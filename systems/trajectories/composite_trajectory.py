"""`CompositeTrajectory`: trajectories joined end to start in time, one per segment (pydrake.trajectories)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .path_parameterized_trajectory import PathParameterizedTrajectory
from .piecewise_polynomial import PiecewisePolynomial
from .piecewise_trajectory import PiecewiseTrajectory
from .trajectory import Trajectory

__all__ = ["CompositeTrajectory"]


class CompositeTrajectory(PiecewiseTrajectory):
    """Segment i is `segments[i]` on [start_time_i, end_time_i]; each segment must start exactly where the
    previous one ends (see AlignAndConcatenate to shift them)."""

    def __init__(self, segments: Sequence[Trajectory]) -> None:
        super().__init__()
        segments = [s.Clone() for s in segments]
        for i, segment in enumerate(segments[1:], start=1):
            if segment.start_time() != segments[i - 1].end_time():
                raise ValueError(f"CompositeTrajectory: segment {i} starts at {segment.start_time()} but segment "
                                 f"{i - 1} ends at {segments[i - 1].end_time()}; use AlignAndConcatenate")
            if (segment.rows(), segment.cols()) != (segments[0].rows(), segments[0].cols()):
                raise ValueError(f"CompositeTrajectory: segment {i} is {segment.rows()}x{segment.cols()}, segment 0 "
                                 f"is {segments[0].rows()}x{segments[0].cols()}")
        self._segments = segments
        self._breaks = np.array([s.start_time() for s in segments] + [segments[-1].end_time()]) if segments \
            else np.zeros(1)

    @staticmethod
    def AlignAndConcatenate(segments: Sequence[Trajectory]) -> "CompositeTrajectory":
        """Each segment after the first is shifted in time to start where the previous one ends."""
        if not segments:
            raise ValueError("CompositeTrajectory.AlignAndConcatenate: segments is empty")
        aligned = [segments[0]]
        for segment in segments[1:]:
            start = aligned[-1].end_time()
            duration = segment.end_time() - segment.start_time()
            retime = PiecewisePolynomial.FirstOrderHold([start, start + duration],
                                                        [[[segment.start_time()]], [[segment.end_time()]]])
            aligned.append(PathParameterizedTrajectory(segment, retime))
        return CompositeTrajectory(aligned)

    def segment(self, segment_index: int) -> Trajectory:
        return self._segments[self._check_segment(segment_index)]

    def Clone(self) -> "CompositeTrajectory":
        return CompositeTrajectory(self._segments)

    def do_value(self, t: float) -> np.ndarray:
        return self._segments[self.get_segment_index(t)].value(t)

    def do_has_derivative(self) -> bool:
        return all(s.has_derivative() for s in self._segments)

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        return self._segments[self.get_segment_index(t)].EvalDerivative(t, derivative_order)

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        if derivative_order == 0:
            return self.Clone()
        return CompositeTrajectory([s.MakeDerivative(derivative_order) for s in self._segments])

    def do_rows(self) -> int:
        self._require_segments("rows")
        return self._segments[0].rows()

    def do_cols(self) -> int:
        self._require_segments("cols")
        return self._segments[0].cols()
