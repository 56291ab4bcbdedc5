"""ExternallyAppliedSpatialForce: one entry of the plant's applied_spatial_force input list."""
from __future__ import annotations

import numpy as np

from ..tree.indices import BodyIndex
from mallard.multibody.math import SpatialForce


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
