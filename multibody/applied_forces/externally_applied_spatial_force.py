"""ExternallyAppliedSpatialForce: one entry of the plant's applied_spatial_force input list; and
ExternallyAppliedSpatialForceMultiplexer (Drake's), which concatenates such lists so several force sources can feed
the plant's single applied_spatial_force input."""
from __future__ import annotations

import numpy as np

from ..tree.indices import BodyIndex
from mallard.multibody.math import SpatialForce
from ...systems.framework import LeafSystem, Value


class ExternallyAppliedSpatialForce:
    """A spatial force F_Bq_W applied at point Bq of body `body_index` (p_BoBq_B from Bo, in B), in W."""

    __slots__ = ("body_index", "p_BoBq_B", "F_Bq_W")

    def __init__(self, body_index=BodyIndex(0), p_BoBq_B=None, F_Bq_W=None):
        self.body_index = body_index
        self.p_BoBq_B = np.zeros(3) if p_BoBq_B is None else np.asarray(p_BoBq_B, dtype=float)
        if F_Bq_W is None:
            F_Bq_W = SpatialForce(np.zeros(3), np.zeros(3))
        self.F_Bq_W = F_Bq_W

    def __repr__(self) -> str:
        return f"ExternallyAppliedSpatialForce(body_index={int(self.body_index)}, p_BoBq_B={self.p_BoBq_B!r})"


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
