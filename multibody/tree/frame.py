"""Frames: the body frame of every RigidBody, and FixedOffsetFrame welded to another frame."""
from __future__ import annotations

import numpy as np

from mallard.systems.framework.weak_owner import WeakAttribute

from .element import MultibodyElement, hands_out


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

    # ---- pose in the body ---------------------------------------------------------------------------
    def _pose_in_body(self, context=None) -> tuple[np.ndarray, np.ndarray]:
        """(R_BF, p_BF): the default pose, or the one in `context` when a FixedOffsetFrame's X_PF was set there."""
        return self._R_BF, self._p_BF

    def GetFixedPoseInBodyFrame(self):
        """X_BF as a RigidTransform (the default, not a per-context, pose)."""
        from ._convert import make_rigid_transform
        return make_rigid_transform(self._R_BF, self._p_BF)

    def GetFixedRotationMatrixInBodyFrame(self):
        """R_BF as a RotationMatrix."""
        from ._convert import make_rotation_matrix
        return make_rotation_matrix(self._R_BF)

    def GetFixedOffsetPoseInBody(self, X_FQ):
        """X_BQ = X_BF · X_FQ for a frame Q given in F."""
        return self.GetFixedPoseInBodyFrame() @ X_FQ

    def GetFixedRotationMatrixInBody(self, R_FQ):
        """R_BQ = R_BF · R_FQ."""
        return self.GetFixedRotationMatrixInBodyFrame() @ R_FQ

    def CalcPoseInBodyFrame(self, context):
        """X_BF in `context` (a FixedOffsetFrame's X_PF is a context parameter)."""
        from ._convert import make_rigid_transform
        return make_rigid_transform(*self._pose_in_body(context))

    def CalcRotationMatrixInBodyFrame(self, context):
        """R_BF in `context`."""
        from ._convert import make_rotation_matrix
        return make_rotation_matrix(self._pose_in_body(context)[0])

    def CalcOffsetPoseInBody(self, context, X_FQ):
        """X_BQ = X_BF(context) · X_FQ."""
        return self.CalcPoseInBodyFrame(context) @ X_FQ

    def CalcOffsetRotationMatrixInBody(self, context, R_FQ):
        """R_BQ = R_BF(context) · R_FQ."""
        return self.CalcRotationMatrixInBodyFrame(context) @ R_FQ

    # ---- pose in other frames -------------------------------------------------------------------------
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

    # ---- velocities -------------------------------------------------------------------------------------
    def EvalAngularVelocityInWorld(self, context) -> np.ndarray:
        """w_WF_W (rad/s): the angular velocity of F (that of its body) in the world."""
        return self.GetParentPlant().EvalBodySpatialVelocityInWorld(context, self._body).rotational().copy()

    def CalcAngularVelocity(self, context, measured_in_frame, expressed_in_frame) -> np.ndarray:
        """w_MF_E = w_WF − w_WM, expressed in E (rad/s)."""
        w = self.EvalAngularVelocityInWorld(context) - measured_in_frame.EvalAngularVelocityInWorld(context)
        return expressed_in_frame.CalcRotationMatrixInWorld(context).matrix().T @ w

    def CalcSpatialVelocityInWorld(self, context):
        """V_WF at Fo, expressed in W."""
        plant = self.GetParentPlant()
        return plant.CalcSpatialVelocity(context, self, plant.world_frame(), plant.world_frame())

    def CalcSpatialVelocity(self, context, frame_M, frame_E):
        """V_MF at Fo, expressed in E."""
        return self.GetParentPlant().CalcSpatialVelocity(context, self, frame_M, frame_E)

    def CalcRelativeSpatialVelocityInWorld(self, context, other_frame):
        """V_W_BF_W = V_WF_W − V_WB_W for the other frame B (each at its own origin)."""
        return self.CalcSpatialVelocityInWorld(context) - other_frame.CalcSpatialVelocityInWorld(context)

    def CalcRelativeSpatialVelocity(self, context, other_frame, measured_in_frame, expressed_in_frame):
        """V_M_BF_E = V_MF_E − V_MB_E for the other frame B."""
        return (self.CalcSpatialVelocity(context, measured_in_frame, expressed_in_frame)
                - other_frame.CalcSpatialVelocity(context, measured_in_frame, expressed_in_frame))

    # ---- accelerations ----------------------------------------------------------------------------------
    def CalcSpatialAccelerationInWorld(self, context):
        """A_WF at Fo, expressed in W: the body's A_WB shifted from Bo to Fo."""
        plant = self.GetParentPlant()
        A_WB = plant.EvalBodySpatialAccelerationInWorld(context, self._body)
        w_WB = plant.EvalBodySpatialVelocityInWorld(context, self._body).rotational()
        R_WB = plant.EvalBodyPoseInWorld(context, self._body).rotation().matrix()
        return A_WB.Shift(R_WB @ self._pose_in_body(context)[1], w_WB)

    def CalcSpatialAcceleration(self, context, measured_in_frame, expressed_in_frame):
        """A_MF at Fo, expressed in E (Drake's frame.cc: minus the coincident point's and Coriolis terms)."""
        from mallard.multibody.math import SpatialAcceleration
        frame_M, frame_E = measured_in_frame, expressed_in_frame
        A_WF = self.CalcSpatialAccelerationInWorld(context)
        if frame_M.is_world_frame():
            A_MF = A_WF
        else:
            plant = self.GetParentPlant()
            A_WM = frame_M.CalcSpatialAccelerationInWorld(context)
            w_WM = frame_M.EvalAngularVelocityInWorld(context)
            V_MF = self.CalcSpatialVelocity(context, frame_M, plant.world_frame())
            alpha = A_WF.rotational() - A_WM.rotational() - np.cross(w_WM, V_MF.rotational())
            R_WM = frame_M.CalcRotationMatrixInWorld(context).matrix()
            p_MoFo_W = R_WM @ self.CalcPose(context, frame_M).translation()
            a_coincident = A_WM.Shift(p_MoFo_W, w_WM).translational()
            a = A_WF.translational() - a_coincident - 2.0 * np.cross(w_WM, V_MF.translational())
            A_MF = SpatialAcceleration(alpha, a)
        if frame_E.is_world_frame():
            return A_MF
        return A_MF.Rotate(frame_E.CalcRotationMatrixInWorld(context).inverse())

    def CalcRelativeSpatialAccelerationInWorld(self, context, other_frame):
        """A_W_BF_W = A_WF_W − A_WB_W for the other frame B."""
        return self.CalcSpatialAccelerationInWorld(context) - other_frame.CalcSpatialAccelerationInWorld(context)

    def CalcRelativeSpatialAcceleration(self, context, other_frame, measured_in_frame, expressed_in_frame):
        """A_M_BF_E = A_MF_E − A_MB_E for the other frame B."""
        return (self.CalcSpatialAcceleration(context, measured_in_frame, expressed_in_frame)
                - other_frame.CalcSpatialAcceleration(context, measured_in_frame, expressed_in_frame))


class RigidBodyFrame(Frame):
    """The frame B of a RigidBody, at Bo (X_BB = identity). It holds its body weakly: the body holds it (no
    reference cycle, see MultibodyElement)."""

    def __init__(self, body):
        super().__init__(body.name(), body, np.eye(3), np.zeros(3), body.model_instance())

    _body = WeakAttribute()

    def is_body_frame(self) -> bool:
        return True

    def model_instance(self):
        return self._body.model_instance()


BodyFrame = RigidBodyFrame


class FixedOffsetFrame(Frame):
    """A frame F with pose X_PF in a parent frame P (or a body, meaning its body frame).

    FixedOffsetFrame(name, P, X_PF, model_instance=None) or FixedOffsetFrame(name, bodyB, X_BF). X_PF is the
    default; SetPoseInParentFrame(context, X_PF) changes it in one Context (a parameter, as in Drake).
    """

    def __init__(self, name: str, P=None, X_PF=None, model_instance=None, *, bodyB=None, X_BF=None):
        from ._convert import pose_to_arrays
        from .rigid_body import RigidBody
        if bodyB is not None:
            P, X_PF = bodyB, X_BF if X_PF is None else X_PF
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

    def _pose_in_body(self, context=None) -> tuple[np.ndarray, np.ndarray]:
        overrides = None if context is None or self._plant is None else self._plant._frame_pose_overrides(context)
        if not overrides:
            return self._R_BF, self._p_BF
        R_BP, p_BP = self._parent_frame._pose_in_body(context)
        R_PF, p_PF = overrides.get(int(self._index), (self._R_PF, self._p_PF))
        return R_BP @ R_PF, p_BP + R_BP @ p_PF

    def GetPoseInParentFrame(self, context=None):
        """X_PF: the default, or the pose in `context`."""
        from ._convert import make_rigid_transform
        overrides = None if context is None else self.GetParentPlant()._frame_pose_overrides(context)
        return make_rigid_transform(*(overrides or {}).get(int(self._index), (self._R_PF, self._p_PF)))

    def SetPoseInParentFrame(self, context, X_PF) -> None:
        """Set X_PF in `context` only (the default, used by new contexts, is unchanged)."""
        from ._convert import pose_to_arrays
        self.GetParentPlant()._SetFramePoseInContext(context, self, *pose_to_arrays(X_PF, "X_PF"))


# Element accessors give users handles that keep the plant alive (see MultibodyElement).
hands_out(Frame, ("body",))
hands_out(FixedOffsetFrame, ("parent_frame",))
