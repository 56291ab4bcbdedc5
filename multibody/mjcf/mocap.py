"""MJCF mocap bodies (`<body mocap="true">`): world welds whose pose is an input of MultibodyPlant.

MuJoCo moves a mocap body to `d.mocap_pos` / `d.mocap_quat` every step and gives it zero velocity. The plant
welds each mocap body to the world (parsers/mjcf/to_plant.py) and, per context, overrides that weld's joint
frame X_WF with the pose read from the `mocap_pose` input port: nmocap·7 values [x y z qw qx qy qz] per mocap
body, in MuJoCo's mocap order (MJCF models in load order). When the port is unconnected the pose comes from a
numeric parameter that defaults to the MJCF pose and that keyframes (`mpos` / `mquat`) set. The compiled step
takes the poses as an input (pipeline/smooth.py MocapJointFrames; the plant's kinematics cache uses the same).
"""
from __future__ import annotations

import numpy as np

from ..pipeline.smooth import MOCAP_POSE_SIZE as _POSE_SIZE, MocapJointFrames
from ..math.functions import quaternion_from_rotation_matrix


class MjcfMocap:
    """The mocap welds of a finalized plant: their body indices, the default poses and the per-context joint frames."""

    def __init__(self, plant, bodies: list):
        self.bodies = np.array([int(b.index()) for b in bodies], dtype=np.int64)  #: plant body per mocap id
        self.names = [b.name() for b in bodies]
        jf = plant._model.jf
        default = []
        for b in self.bodies:  # the weld's X_PF (the world is the parent; X_MB is the identity for MJCF welds)
            R = jf[b, 0:9].reshape(3, 3)
            default.append(np.concatenate([jf[b, 9:12], _quat_from_R(R)]))
            if not (np.allclose(jf[b, 12:21], np.eye(3).ravel(), atol=0, rtol=0) and not np.any(jf[b, 21:24])):
                raise RuntimeError(f"mocap body '{plant.get_body(b).name()}': its weld to the world must have "
                                   "the body frame as its child frame")
        self.default_poses = np.concatenate(default)
        self.param_index = plant.DeclareNumericParameter(self.default_poses.copy())
        self.port = plant.DeclareVectorInputPort("mocap_pose", self.default_poses.size, required=False)

    def EvalPoses(self, plant, context) -> np.ndarray:
        """(nmocap, 7) poses [x y z qw qx qy qz]: the input port's value, else the context's parameter."""
        if self.port.HasValue(context):
            x = np.asarray(self.port.Eval(context), dtype=float)
            what = f"MultibodyPlant '{plant.get_name()}': the mocap_pose input"
        else:
            x = context.get_numeric_parameter(self.param_index).get_value()
            what = f"MultibodyPlant '{plant.get_name()}': the mocap pose parameter"
        X = x.reshape(-1, _POSE_SIZE)
        if not np.isfinite(X).all():
            raise RuntimeError(f"{what} has non-finite entries")
        bad = np.flatnonzero(np.linalg.norm(X[:, 3:], axis=1) == 0)
        if bad.size:
            raise ValueError(f"{what}: zero quaternion for mocap bodies {[self.names[i] for i in bad]}")
        return X

    def PoseVector(self, context) -> np.ndarray:
        """The flat poses (nmocap·7) the compiled step reads: the input port's value, else the context's parameter
        (not copied); the step checks them."""
        if self.port.HasValue(context):
            return np.ascontiguousarray(self.port.Eval(context), dtype=np.float64).reshape(-1)
        return context.get_numeric_parameter(self.param_index)._data

    def JointFrames(self, plant, context, jf: np.ndarray) -> np.ndarray:
        """A copy of the model's joint-frame array `jf` with the mocap welds' X_WF set from the context's poses."""
        poses = np.ascontiguousarray(self.EvalPoses(plant, context), dtype=np.float64).reshape(-1)
        return MocapJointFrames(np.ascontiguousarray(jf, dtype=np.float64), self.bodies, poses)

    def SetDefaultPoses(self, context, start: int, mpos: np.ndarray, mquat: np.ndarray) -> None:
        """Set the context's mocap pose parameter of mocap ids start, start+1, ... (MuJoCo's mpos / mquat layout)."""
        mpos = np.asarray(mpos, dtype=float).reshape(-1, 3)
        mquat = np.asarray(mquat, dtype=float).reshape(-1, 4)
        if mpos.shape[0] != mquat.shape[0] or start + mpos.shape[0] > self.bodies.size:
            raise ValueError(f"mocap poses: got {mpos.shape[0]} positions and {mquat.shape[0]} quaternions from mocap "
                             f"id {start}; the plant has {self.bodies.size} mocap bodies")
        p = context.get_mutable_numeric_parameter(self.param_index).get_mutable_value().reshape(-1, _POSE_SIZE)
        p[start:start + mpos.shape[0], :3] = mpos
        p[start:start + mpos.shape[0], 3:] = mquat


def _quat_from_R(R: np.ndarray) -> np.ndarray:
    """Unit quaternion [w x y z] (w ≥ 0) of the rotation matrix R."""
    q = np.asarray(quaternion_from_rotation_matrix(R), dtype=float)
    return -q if q[0] < 0 else q


def DeclareMjcfMocap(plant):
    """At Finalize: the plant's MjcfMocap (parameter and `mocap_pose` input port), or None without mocap bodies."""
    bodies = [b for pm in plant._mjcf_maps for b in getattr(pm, "mocap", [])]
    return MjcfMocap(plant, bodies) if bodies else None


def MocapStart(plant, plant_map) -> int:
    """The first plant mocap id of the MJCF model `plant_map` (mocap ids run over MJCF models in load order)."""
    start = 0
    for pm in plant._mjcf_maps:
        if pm is plant_map:
            return start
        start += len(getattr(pm, "mocap", []))
    raise KeyError("the MJCF model is not attached to this plant")
