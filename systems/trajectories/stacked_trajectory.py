"""`StackedTrajectory`: trajectories with the same time span stacked row-wise or column-wise
(pydrake.trajectories)."""
from __future__ import annotations

import numpy as np

from .trajectory import Trajectory

__all__ = ["StackedTrajectory"]


class StackedTrajectory(Trajectory):
    """value(t) stacks the values of the appended trajectories (rows when `rowwise`, else columns)."""

    def __init__(self, rowwise: bool = True) -> None:
        super().__init__()
        self._rowwise = bool(rowwise)
        self._children: list[Trajectory] = []
        self._rows = self._cols = 0

    def Append(self, traj: Trajectory) -> None:
        """Stacks a copy of `traj`; its start / end times, and its cols (rowwise) or rows, must match."""
        if self._children:
            if traj.start_time() != self.start_time() or traj.end_time() != self.end_time():
                raise ValueError(f"StackedTrajectory.Append: time span [{traj.start_time()}, {traj.end_time()}] "
                                 f"differs from [{self.start_time()}, {self.end_time()}]")
            if self._rowwise and traj.cols() != self._cols or not self._rowwise and traj.rows() != self._rows:
                raise ValueError(f"StackedTrajectory.Append: a {traj.rows()}x{traj.cols()} trajectory does not stack "
                                 f"{'row' if self._rowwise else 'column'}-wise onto {self._rows}x{self._cols}")
        if self._rowwise:
            self._rows += traj.rows()
            self._cols = traj.cols()
        else:
            self._cols += traj.cols()
            self._rows = traj.rows()
        self._children.append(traj.Clone())

    def Clone(self) -> "StackedTrajectory":
        clone = StackedTrajectory(self._rowwise)
        for child in self._children:
            clone.Append(child)
        return clone

    def _stack(self, blocks: list[np.ndarray]) -> np.ndarray:
        if not blocks:
            return np.zeros((self._rows, self._cols))
        return np.vstack(blocks) if self._rowwise else np.hstack(blocks)

    def do_value(self, t: float) -> np.ndarray:
        return self._stack([c.value(t) for c in self._children])

    def do_has_derivative(self) -> bool:
        return all(c.has_derivative() for c in self._children)

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        return self._stack([c.EvalDerivative(t, derivative_order) for c in self._children])

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        out = StackedTrajectory(self._rowwise)
        for child in self._children:
            out.Append(child.MakeDerivative(derivative_order))
        return out

    def do_rows(self) -> int:
        return self._rows

    def do_cols(self) -> int:
        return self._cols

    def do_start_time(self) -> float:
        return self._children[0].start_time() if self._children else 0.0

    def do_end_time(self) -> float:
        return self._children[0].end_time() if self._children else 0.0
