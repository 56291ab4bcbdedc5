"""VectorSystem: a LeafSystem with one vector input, one vector output and vector-valued state."""
from __future__ import annotations

import numpy as np

from .leaf_system import LeafSystem

__all__ = ["VectorSystem"]


class VectorSystem(LeafSystem):
    """Override DoCalcVectorOutput(context, u, x, y), DoCalcVectorTimeDerivatives(context, u, x, xdot)
    and/or DoCalcVectorDiscreteVariableUpdates(context, u, x, xn); u, x are read-only, y/xdot/xn writable."""

    def __init__(self, input_size: int, output_size: int, direct_feedthrough: bool | None = None) -> None:
        super().__init__()
        if input_size > 0:
            self.DeclareVectorInputPort("u0", input_size)
        if output_size > 0:
            prereqs = None if (direct_feedthrough is None or direct_feedthrough) and input_size > 0 else \
                {self.all_sources_except_input_ports_ticket()}
            self.DeclareVectorOutputPort("y0", output_size, self._calc_vector_output, prereqs)

    def _input(self, context) -> np.ndarray:
        if not self._input_ports:
            return np.zeros(0)
        raw = self._eval_input_raw(context, 0)
        if raw is None:
            raise RuntimeError(f"{self._input_ports[0].GetFullDescription()} is not connected")
        return raw.get_value()

    def _state(self, context) -> np.ndarray:
        if context.num_continuous_states():
            return context.get_continuous_state_vector().get_value()
        if context.num_discrete_state_groups():
            return context.get_discrete_state_vector().get_value()
        return np.zeros(0)

    def _calc_vector_output(self, context, output) -> None:
        self.DoCalcVectorOutput(context, self._input(context), self._state(context), output.get_mutable_value())

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        self.DoCalcVectorTimeDerivatives(context, self._input(context), self._state(context),
                                         derivatives.get_mutable_vector().get_mutable_value())

    def DoCalcVectorOutput(self, context, u, x, y) -> None:
        """Default: y = x (the state is the output)."""
        y[:] = x

    def DoCalcVectorTimeDerivatives(self, context, u, x, xdot) -> None:
        if xdot.size:
            raise RuntimeError(f"{self.GetSystemPathname()} has continuous state but does not override "
                               "DoCalcVectorTimeDerivatives")

    def DoCalcVectorDiscreteVariableUpdates(self, context, u, x, xn) -> None:
        if xn.size:
            raise RuntimeError(f"{self.GetSystemPathname()} has discrete state but does not override "
                               "DoCalcVectorDiscreteVariableUpdates")

    def DeclarePeriodicDiscreteUpdate(self, period_sec: float, offset_sec: float = 0.0) -> None:
        """Declares the periodic update that calls DoCalcVectorDiscreteVariableUpdates."""
        def update(context, discrete_state):
            self.DoCalcVectorDiscreteVariableUpdates(context, self._input(context), self._state(context),
                                                     discrete_state.get_mutable_vector().get_mutable_value())
        self.DeclarePeriodicDiscreteUpdateEvent(period_sec, offset_sec, update)
