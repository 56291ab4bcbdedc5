"""AddFrameTriadIllustration (pydrake.visualization): draw a frame as an RGB triad of cylinders (x red, y green,
z blue) registered as illustration geometry on the frame's body, as Drake's _triad.py does."""
from __future__ import annotations

import numpy as np

from mallard.geometry import Cylinder, FrameId, GeometryInstance, MakePhongIllustrationProperties, SceneGraph
from mallard.multibody.math import RigidTransform, RotationMatrix

__all__ = ["AddFrameTriadIllustration"]


def _axis_rotation(axis: np.ndarray, angle: float) -> RotationMatrix:
    """R of a rotation by ``angle`` about the unit ``axis`` (Rodrigues)."""
    K = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return RotationMatrix(np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * K @ K)


def AddFrameTriadIllustration(*, scene_graph: SceneGraph, body=None, frame=None, frame_index=None,
                              frame_id: FrameId | None = None, plant=None, name: str | None = None,
                              length: float = 0.3, radius: float = 0.005, opacity: float = 0.9,
                              X_FT: RigidTransform | None = None) -> tuple:
    """Add illustration cylinders named "_frames::<name>::x-axis" (y, z) showing a frame: give exactly one of
    ``body``, ``frame``, ``frame_index`` (with ``plant``) or ``frame_id`` (with ``plant``). Body frames are
    drawn bright, other frames at half brightness; ``X_FT`` offsets the triad T from the frame F. Returns the
    three new GeometryIds (x, y, z)."""
    if sum(x is not None for x in (body, frame, frame_index, frame_id)) != 1:
        raise ValueError("Must provide exactly one of body=, frame=, frame_index=, or frame_id=")
    X_FT = RigidTransform() if X_FT is None else X_FT
    resolved = "body="
    if frame_index is not None:
        if plant is None:
            raise ValueError("When using frame_index=, the plant cannot be None.")
        frame = plant.get_frame(frame_index)
    if frame is not None:
        body = frame.body()
        X_FT = frame.GetFixedPoseInBodyFrame() @ X_FT
        resolved = "frame=" if frame_index is None else "frame_index="
    if body is not None:
        if plant is not None and plant is not body.GetParentPlant():
            raise ValueError(f"Mismatched {resolved} and plant=; remove the plant= arg")
        plant = body.GetParentPlant()
        frame_id = plant.GetBodyFrameIdOrThrow(body.index())
    if plant is None:
        raise ValueError("When using frame_id=, the plant cannot be None.")
    if frame is None:
        frame = plant.GetBodyFromFrameId(frame_id).body_frame()
    if name is None:
        name = f"{frame.name()}({int(frame.model_instance())})"
    brightness = 1.0 if frame.is_body_frame() else 0.5
    source_id = plant.get_source_id()
    eye = np.eye(3)
    result = []
    for i, axis in enumerate("xyz"):
        # Center the cylinder (along its own z) halfway along axis i, turned onto that axis.
        X_TG = RigidTransform(_axis_rotation(eye[1 - i], np.pi / 2), 0.5 * length * eye[i])
        geometry = GeometryInstance(X_FT @ X_TG, Cylinder(radius, length), f"_frames::{name}::{axis}-axis")
        geometry.set_illustration_properties(MakePhongIllustrationProperties(np.append(eye[i] * brightness, opacity)))
        result.append(scene_graph.RegisterGeometry(source_id, frame_id, geometry))
    return tuple(result)
