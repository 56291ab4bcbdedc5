"""`SpatialVelocity` V_MB_E = [w_MB_E; v_MBo_E], mirroring `pydrake.multibody.math.SpatialVelocity`."""
from __future__ import annotations

from mallard.multibody.math import functions as F
from mallard.multibody.math.spatial_vector import SpatialVector, _offset

__all__ = ["SpatialVelocity"]


class SpatialVelocity(SpatialVector):
    """Angular velocity w (rad/s) and translational velocity v (m/s) of a frame, expressed in E."""

    __slots__ = ()
    _NAMES = ("w", "v", "V")

    def Shift(self, offset) -> "SpatialVelocity":
        """V_MBq_E from this V_MBp_E and offset p_BpBq_E (Bq fixed on B): [w; v + w × p]."""
        return SpatialVelocity._wrap(F.shift_spatial_velocity(self._V, _offset(offset, "SpatialVelocity.Shift")))

    def ComposeWithMovingFrameVelocity(self, position_of_moving_frame, velocity_of_moving_frame
                                       ) -> "SpatialVelocity":
        """V_MB_E from this V_MP_E, p_PoBo_E and V_PB_E (B moving in P): V_MP shifted to Bo plus V_PB."""
        p = _offset(position_of_moving_frame, "SpatialVelocity.ComposeWithMovingFrameVelocity")
        if not isinstance(velocity_of_moving_frame, SpatialVelocity):
            raise TypeError("ComposeWithMovingFrameVelocity(): velocity_of_moving_frame must be a SpatialVelocity.")
        return SpatialVelocity._wrap(F.shift_spatial_velocity(self._V, p) + velocity_of_moving_frame._V)

    def dot(self, force=None, momentum=None) -> float:
        """Power F_B_E · V_MB_E for a SpatialForce, or 2× kinetic energy for a SpatialMomentum (same E)."""
        from mallard.multibody.math.spatial_force import SpatialForce
        from mallard.multibody.math.spatial_momentum import SpatialMomentum
        other = force if momentum is None else momentum
        return self._power(other, (SpatialForce, SpatialMomentum), "dot")

    def __matmul__(self, other) -> float:
        return self.dot(other)
