"""Frames: the body frame of every RigidBody, and FixedOffsetFrame welded to another frame."""
from __future__ import annotations

import numpy as np

from .element import MultibodyElement


class Frame(MultibodyElement):
    """A frame F fixed to a body B, with constant pose X_BF."""

    _kind = "frame"

    def __init__(self, name: str, body, R_BF: np.ndarray, p_BF: np.ndarray, model_instance=None):
        super().__init__(name, model_instance if model_instance is not None else body.model_instance())
        self._body = body
        self._R_BF = np.asarray(R_BF, dtype=float)
        self._p_BF = np.asarray(p_BF, dtype=float)

    def body(self):
        """The body this frame is fixed to."""
        return self._body

    def is_world_frame(self) -> bool:
        """True for the world frame."""
        return self._body.is_world_body() and self.is_body_frame()

    def is_body_frame(self) -> bool:
        """True if this is a body's own frame."""
        return False

    def GetFixedPoseInBodyFrame(self):
        """X_BF as a RigidTransform."""
        from ._convert import make_rigid_transform
        return make_rigid_transform(self._R_BF, self._p_BF)

    CalcPoseInBodyFrame = GetFixedPoseInBodyFrame
    GetFixedOffsetPoseInBody = GetFixedPoseInBodyFrame

    def CalcPoseInWorld(self, context):
        """X_WF(q)."""
        return self.GetParentPlant().CalcRelativeTransform(context, self.GetParentPlant().world_frame(), self)

    def CalcPose(self, context, frame_M):
        """X_MF(q)."""
        return self.GetParentPlant().CalcRelativeTransform(context, frame_M, self)

    def CalcRotationMatrixInWorld(self, context):
        """R_WF(q)."""
        return self.GetParentPlant().CalcRelativeRotationMatrix(context, self.GetParentPlant().world_frame(), self)

    def CalcRotationMatrix(self, context, frame_M):
        """R_MF(q)."""
        return self.GetParentPlant().CalcRelativeRotationMatrix(context, frame_M, self)

    def CalcSpatialVelocityInWorld(self, context):
        """V_WF at Fo, expressed in W."""
        plant = self.GetParentPlant()
        return plant.CalcSpatialVelocity(context, self, plant.world_frame(), plant.world_frame())

    def CalcSpatialVelocity(self, context, frame_M, frame_E):
        """V_MF at Fo, expressed in E."""
        return self.GetParentPlant().CalcSpatialVelocity(context, self, frame_M, frame_E)


class RigidBodyFrame(Frame):
    """The frame B of a RigidBody, at Bo (X_BB = identity)."""

    def __init__(self, body):
        super().__init__(body.name(), body, np.eye(3), np.zeros(3), body.model_instance())

    def is_body_frame(self) -> bool:
        return True

    def model_instance(self):
        return self._body.model_instance()


BodyFrame = RigidBodyFrame


class FixedOffsetFrame(Frame):
    """A frame F with a fixed pose X_PF in a parent frame P (or a body, meaning its body frame)."""

    def __init__(self, name: str, P, X_PF=None, model_instance=None):
        from ._convert import pose_to_arrays
        from .rigid_body import RigidBody
        if isinstance(P, RigidBody):
            P = P.body_frame()
        if not isinstance(P, Frame):
            raise ValueError(f"FixedOffsetFrame '{name}': parent must be a Frame or RigidBody, got {type(P).__name__}")
        R_PF, p_PF = pose_to_arrays(X_PF, f"FixedOffsetFrame '{name}' X_PF")
        R_BP, p_BP = P._R_BF, P._p_BF
        super().__init__(name, P.body(), R_BP @ R_PF, p_BP + R_BP @ p_PF,
                         model_instance if model_instance is not None else P.model_instance())
        self._parent_frame = P
        self._R_PF, self._p_PF = R_PF, p_PF

    def parent_frame(self):
        """The frame P this frame is offset from."""
        return self._parent_frame

    def GetPoseInParentFrame(self):
        """X_PF as a RigidTransform."""
        from ._convert import make_rigid_transform
        return make_rigid_transform(self._R_PF, self._p_PF)
