"""`SpatialForce` F_Bp_E = [tau; f] (torque about Bp, force), mirroring pydrake's SpatialForce."""
from __future__ import annotations

from mallard.multibody.math import functions as F
from mallard.multibody.math.spatial_vector import SpatialVector, _offset

__all__ = ["SpatialForce"]


class SpatialForce(SpatialVector):
    """Torque tau (N·m) about a point Bp and force f (N) applied at Bp, expressed in E."""

    __slots__ = ()
    _NAMES = ("tau", "f", "F")

    def Shift(self, offset) -> "SpatialForce":
        """F_Bq_E, the equivalent force system at Bq, from this F_Bp_E and p_BpBq_E: [τ − p × f; f]."""
        return SpatialForce._wrap(F.shift_spatial_force(self._V, _offset(offset, "SpatialForce.Shift")))

    def dot(self, velocity) -> float:
        """Power F_B_E · V_MB_E of this force on a frame moving with `velocity` (same E)."""
        from mallard.multibody.math.spatial_velocity import SpatialVelocity
        return self._power(velocity, (SpatialVelocity,), "dot")

    def __matmul__(self, other) -> float:
        return self.dot(other)
