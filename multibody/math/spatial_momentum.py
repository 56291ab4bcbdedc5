"""`SpatialMomentum` L_MSp_E = [h; l] (angular momentum about Sp, linear momentum), as pydrake's."""
from __future__ import annotations

from mallard.multibody.math import functions as F
from mallard.multibody.math.spatial_vector import SpatialVector, _offset

__all__ = ["SpatialMomentum"]


class SpatialMomentum(SpatialVector):
    """Angular momentum h (kg·m²/s) about a point Sp and linear momentum l (kg·m/s), expressed in E."""

    __slots__ = ()
    _NAMES = ("h", "l", "L")

    def Shift(self, offset) -> "SpatialMomentum":
        """L_MSq_E from this L_MSp_E and p_SpSq_E: [h − p × l; l]."""
        return SpatialMomentum._wrap(F.shift_spatial_force(self._V, _offset(offset, "SpatialMomentum.Shift")))

    def dot(self, velocity) -> float:
        """L_MSp_E · V_MSp_E: twice the kinetic energy when this is a body's momentum about Sp."""
        from mallard.multibody.math.spatial_velocity import SpatialVelocity
        return self._power(velocity, (SpatialVelocity,), "dot")

    def __matmul__(self, other) -> float:
        return self.dot(other)
