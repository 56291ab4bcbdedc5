"""GeometryInstance (a shape, a pose in its parent frame, a name and role properties) and
GeometryFrame (a named frame a source moves) — the registration records of SceneGraph."""
from __future__ import annotations

from mallard.geometry._poses import as_Rp, make_transform
from mallard.geometry.identifiers import FrameId, GeometryId
from mallard.geometry.properties import (IllustrationProperties, PerceptionProperties, ProximityProperties,
                                         copy_properties)
from mallard.geometry.shapes import Shape


def _check_name(name: str, who: str) -> str:
    if not isinstance(name, str):
        raise ValueError(f"{who} name must be a string; given {type(name).__name__}")
    stripped = name.strip()
    if not stripped or stripped != name:
        raise ValueError(f"{who} name {name!r} is invalid: it must be non-empty and have no leading or "
                         "trailing whitespace")
    return name


class GeometryInstance:
    """A geometry to register: pose X_PG in its parent frame P, a Shape, a name, and optional role
    properties. Its GeometryId is assigned at construction."""

    def __init__(self, X_PG, shape: Shape, name: str):
        if not isinstance(shape, Shape):
            raise ValueError(f"GeometryInstance '{name}' needs a Shape; given {type(shape).__name__}")
        self._R, self._p = as_Rp(X_PG, f"GeometryInstance '{name}' pose")
        self._shape = shape
        self._name = _check_name(name, "GeometryInstance")
        self._id = GeometryId.get_new_id()
        self._proximity: ProximityProperties | None = None
        self._illustration: IllustrationProperties | None = None
        self._perception: PerceptionProperties | None = None

    def id(self) -> GeometryId:
        return self._id

    def pose(self):
        """X_PG as a RigidTransform."""
        return make_transform(self._R, self._p)

    def set_pose(self, X_PG) -> None:
        self._R, self._p = as_Rp(X_PG, f"GeometryInstance '{self._name}' pose")

    def shape(self) -> Shape:
        return self._shape

    def name(self) -> str:
        return self._name

    def set_name(self, name: str) -> None:
        self._name = _check_name(name, "GeometryInstance")

    def set_proximity_properties(self, properties: ProximityProperties) -> None:
        if not isinstance(properties, ProximityProperties):
            raise ValueError(f"set_proximity_properties needs ProximityProperties; given {type(properties).__name__}")
        self._proximity = copy_properties(properties)

    def set_illustration_properties(self, properties: IllustrationProperties) -> None:
        if not isinstance(properties, IllustrationProperties):
            raise ValueError("set_illustration_properties needs IllustrationProperties; "
                             f"given {type(properties).__name__}")
        self._illustration = copy_properties(properties)

    def set_perception_properties(self, properties: PerceptionProperties) -> None:
        if not isinstance(properties, PerceptionProperties):
            raise ValueError(f"set_perception_properties needs PerceptionProperties; given {type(properties).__name__}")
        self._perception = copy_properties(properties)

    def proximity_properties(self) -> ProximityProperties | None:
        return self._proximity

    def illustration_properties(self) -> IllustrationProperties | None:
        return self._illustration

    def perception_properties(self) -> PerceptionProperties | None:
        return self._perception

    def mutable_proximity_properties(self) -> ProximityProperties:
        if self._proximity is None:
            raise RuntimeError(f"GeometryInstance '{self._name}' has no proximity properties; set them first")
        return self._proximity

    def mutable_illustration_properties(self) -> IllustrationProperties:
        if self._illustration is None:
            raise RuntimeError(f"GeometryInstance '{self._name}' has no illustration properties; set them first")
        return self._illustration

    def mutable_perception_properties(self) -> PerceptionProperties:
        if self._perception is None:
            raise RuntimeError(f"GeometryInstance '{self._name}' has no perception properties; set them first")
        return self._perception

    def __repr__(self) -> str:
        return f"GeometryInstance(name={self._name!r}, shape={self._shape!r}, id={self._id!r})"


class GeometryFrame:
    """A frame a geometry source registers and moves; ``frame_group`` is a user integer (the
    plant uses the body's model instance index)."""

    def __init__(self, frame_name: str, frame_group_id: int = 0):
        self._name = _check_name(frame_name, "GeometryFrame")
        if int(frame_group_id) != frame_group_id or frame_group_id < 0:
            raise ValueError(f"GeometryFrame '{frame_name}': frame_group_id must be a non-negative integer; "
                             f"given {frame_group_id!r}")
        self._group = int(frame_group_id)
        self._id = FrameId.get_new_id()

    def id(self) -> FrameId:
        return self._id

    def name(self) -> str:
        return self._name

    def frame_group(self) -> int:
        return self._group

    def __repr__(self) -> str:
        return f"GeometryFrame(name={self._name!r}, frame_group={self._group}, id={self._id!r})"
