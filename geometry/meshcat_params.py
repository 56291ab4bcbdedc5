"""Value types of the Meshcat API (pydrake.geometry.MeshcatParams and Meshcat's nested types): server
settings, camera descriptions, the gamepad state and the side of triangles to draw."""
from __future__ import annotations

import dataclasses
import enum
from typing import Optional, Union


@dataclasses.dataclass
class PropertyTuple:
    """A property to set on the scene when the Meshcat starts: SetProperty(path, property, value)."""

    path: str = ""
    property: str = ""
    value: Union[bool, float, str, list] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class MeshcatParams:
    """Settings of a Meshcat server (pydrake's fields). ``port=None`` tries 7000..7099; a given port must be
    free (RuntimeError otherwise, as pydrake); 0 picks any free port. ``host`` must be a loopback address
    (pydrake's "*" is taken as loopback, with a warning): mallard never serves the scene beyond this machine.
    ``initial_properties`` are set on the scene at construction; ``realtime_rate_period`` (s) is how often
    the realtime rate shown in the viewer is recomputed."""

    PropertyTuple = PropertyTuple

    host: str = "localhost"
    port: Optional[int] = None
    web_url_pattern: str = "http://{host}:{port}"
    initial_properties: list = dataclasses.field(default_factory=list)
    show_stats_plot: bool = False
    realtime_rate_period: float = 0.25


class SideOfFaceToRender(enum.IntEnum):
    """Which side of a triangle is drawn (three.js's FrontSide / BackSide / DoubleSide)."""

    kFrontSide = 0
    kBackSide = 1
    kDoubleSide = 2


@dataclasses.dataclass
class PerspectiveCamera:
    """A three.js perspective camera: vertical field of view ``fov`` (degrees), ``aspect`` ratio, clipping
    distances ``near`` and ``far`` (m) and ``zoom``."""

    fov: float = 75.0
    aspect: float = 1.0
    near: float = 0.01
    far: float = 100.0
    zoom: float = 1.0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, float(getattr(self, f.name)))

    def lowered(self) -> dict:
        return {"type": "PerspectiveCamera", "fov": float(self.fov), "aspect": float(self.aspect),
                "near": float(self.near), "far": float(self.far), "zoom": float(self.zoom)}


@dataclasses.dataclass
class OrthographicCamera:
    """A three.js orthographic camera: the view box ``left``, ``right``, ``top``, ``bottom``, ``near``,
    ``far`` (m) and ``zoom``."""

    left: float = -1.0
    right: float = 1.0
    top: float = -1.0
    bottom: float = 1.0
    near: float = -1000.0
    far: float = 1000.0
    zoom: float = 1.0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, float(getattr(self, f.name)))

    def lowered(self) -> dict:
        return {"type": "OrthographicCamera", "left": float(self.left), "right": float(self.right),
                "top": float(self.top), "bottom": float(self.bottom), "near": float(self.near),
                "far": float(self.far), "zoom": float(self.zoom)}


@dataclasses.dataclass
class Gamepad:
    """The state of a gamepad connected to a browser showing the scene: its ``index`` (None when no gamepad
    message has arrived), ``button_values`` in [0, 1] and ``axes`` in [-1, 1]."""

    index: Optional[int] = None
    button_values: list = dataclasses.field(default_factory=list)
    axes: list = dataclasses.field(default_factory=list)
