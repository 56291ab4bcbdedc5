"""`DerivativeTrajectory`: the derivative of order k of another trajectory, evaluated through its
`EvalDerivative` (pydrake.trajectories.DerivativeTrajectory)."""
from __future__ import annotations

import numpy as np

from .trajectory import Trajectory

__all__ = ["DerivativeTrajectory"]


class DerivativeTrajectory(Trajectory):
    """value(t) = nominal.EvalDerivative(t, derivative_order); `nominal` is cloned."""

    def __init__(self, nominal: Trajectory, derivative_order: int = 1) -> None:
        super().__init__()
        if not nominal.has_derivative():
            raise RuntimeError(f"DerivativeTrajectory: the nominal {type(nominal).__name__} has no derivatives "
                               "(has_derivative() is False)")
        if derivative_order < 0:
            raise ValueError(f"DerivativeTrajectory: derivative_order must be >= 0, got {derivative_order}")
        self._nominal = nominal.Clone()
        self._order = int(derivative_order)

    def Clone(self) -> "DerivativeTrajectory":
        return DerivativeTrajectory(self._nominal, self._order)

    def do_value(self, t: float) -> np.ndarray:
        return self._nominal.EvalDerivative(t, self._order)

    def do_has_derivative(self) -> bool:
        return True

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        return self._nominal.EvalDerivative(t, self._order + derivative_order)

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        return DerivativeTrajectory(self._nominal, self._order + derivative_order)

    def do_rows(self) -> int:
        return self._nominal.rows()

    def do_cols(self) -> int:
        return self._nominal.cols()

    def do_start_time(self) -> float:
        return self._nominal.start_time()

    def do_end_time(self) -> float:
        return self._nominal.end_time()
