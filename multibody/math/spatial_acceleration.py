"""`SpatialAcceleration` A_MB_E = [alpha_MB_E; a_MBo_E], mirroring pydrake's SpatialAcceleration."""
from __future__ import annotations

import numpy as np

from mallard.multibody.math.spatial_vector import SpatialVector, _offset
from mallard.multibody.math.spatial_velocity import SpatialVelocity
from mallard.multibody.math._validation import as_vector3

__all__ = ["SpatialAcceleration"]


class SpatialAcceleration(SpatialVector):
    """Angular acceleration alpha (rad/s²) and translational acceleration a (m/s²) of a frame, expressed in E."""

    __slots__ = ()
    _NAMES = ("alpha", "a", "A")

    def Shift(self, offset, angular_velocity_of_this_frame) -> "SpatialAcceleration":
        """A_MBq_E from this A_MBp_E, p_BpBq_E and w_MB_E: [α; a + α × p + w × (w × p)]."""
        p = _offset(offset, "SpatialAcceleration.Shift")
        w = as_vector3(angular_velocity_of_this_frame, "angular_velocity_of_this_frame", "SpatialAcceleration.Shift")
        out = self._V.copy()
        out[3:6] += np.cross(self._V[0:3], p) + np.cross(w, np.cross(w, p))
        return SpatialAcceleration._wrap(out)

    def ShiftWithZeroAngularVelocity(self, offset) -> "SpatialAcceleration":
        """Shift() when w_MB is zero: [α; a + α × p]."""
        p = _offset(offset, "SpatialAcceleration.ShiftWithZeroAngularVelocity")
        out = self._V.copy()
        out[3:6] += np.cross(self._V[0:3], p)
        return SpatialAcceleration._wrap(out)

    def ComposeWithMovingFrameAcceleration(self, position_of_moving_frame, angular_velocity_of_this_frame,
                                           velocity_of_moving_frame, acceleration_of_moving_frame
                                           ) -> "SpatialAcceleration":
        """A_MB_E from this A_MP_E, p_PoBo_E, w_MP_E, V_PB_E and A_PB_E (B moving in P).

        α_MB = α_MP + α_PB + w_MP × w_PB;
        a_MBo = a_MPo + α_MP × p + w_MP × (w_MP × p) + 2 w_MP × v_PBo + a_PBo.
        """
        func = "SpatialAcceleration.ComposeWithMovingFrameAcceleration"
        p = _offset(position_of_moving_frame, func)
        w = as_vector3(angular_velocity_of_this_frame, "angular_velocity_of_this_frame", func)
        if not isinstance(velocity_of_moving_frame, SpatialVelocity):
            raise TypeError(f"{func}(): velocity_of_moving_frame must be a SpatialVelocity.")
        if not isinstance(acceleration_of_moving_frame, SpatialAcceleration):
            raise TypeError(f"{func}(): acceleration_of_moving_frame must be a SpatialAcceleration.")
        V_PB = velocity_of_moving_frame._V
        out = self._V + acceleration_of_moving_frame._V
        out[0:3] += np.cross(w, V_PB[0:3])
        out[3:6] += np.cross(self._V[0:3], p) + np.cross(w, np.cross(w, p)) + 2.0 * np.cross(w, V_PB[3:6])
        return SpatialAcceleration._wrap(out)
