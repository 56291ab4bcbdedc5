"""ExternallyAppliedSpatialForceMultiplexer: concatenates lists of ExternallyAppliedSpatialForce (Drake's), so
several force sources can feed MultibodyPlant's single applied_spatial_force input."""
from __future__ import annotations

from ...systems.framework import LeafSystem, Value

__all__ = ["ExternallyAppliedSpatialForceMultiplexer"]


class ExternallyAppliedSpatialForceMultiplexer(LeafSystem):
    """Inputs u0 … u{n−1}, each a list of ExternallyAppliedSpatialForce; output y0, their concatenation in
    input order."""

    def __init__(self, num_inputs: int) -> None:
        super().__init__()
        if int(num_inputs) < 0:
            raise ValueError(f"ExternallyAppliedSpatialForceMultiplexer: num_inputs must be >= 0, got {num_inputs}")
        self._inputs = [self.DeclareAbstractInputPort(f"u{i}", Value([])) for i in range(int(num_inputs))]
        self.DeclareAbstractOutputPort("y0", lambda: Value([]), self._Concatenate)

    def _Concatenate(self, context, value) -> None:
        out = []
        for port in self._inputs:
            out.extend(port.Eval(context))
        value.set_value(out)
