"""MeshcatVisualizer: draws a SceneGraph's geometries in Meshcat and moves them as the poses change
(pydrake.geometry.MeshcatVisualizer, MeshcatVisualizerParams).

It is a LeafSystem with one abstract input, ``query`` (SceneGraph's QueryObject). On initialization
it (re)creates one Meshcat object per geometry with the chosen role, in its color; every
``publish_period`` it sets the world pose of every frame (and keys the recording, if one is on).
Scene paths are ``<prefix>/<frame name, '::' as '/'>/<geometry name>``.
"""
from __future__ import annotations

import dataclasses
import math
import re

import numpy as np

from mallard.geometry.meshcat import Meshcat
from mallard.geometry.meshcat_animation import MeshcatAnimation
from mallard.geometry.properties import Role
from mallard.geometry.query_object import QueryObject
from mallard.geometry.rgba import Rgba
from mallard.systems.framework import LeafSystem, Value


@dataclasses.dataclass
class MeshcatVisualizerParams:
    """Settings of a MeshcatVisualizer: publish period (s), which role to draw, the color of
    geometries that name none, and the Meshcat path prefix."""

    publish_period: float = 1.0 / 64.0
    role: Role = Role.kIllustration
    default_color: Rgba = dataclasses.field(default_factory=lambda: Rgba(0.9, 0.9, 0.9, 1.0))
    prefix: str = ""
    delete_on_initialization_event: bool = True
    visible_by_default: bool = True

    def resolved_prefix(self) -> str:
        if self.prefix:
            return self.prefix
        return {Role.kProximity: "proximity", Role.kPerception: "perception"}.get(Role(self.role), "illustration")


def _segment(name: str) -> str:
    """A scene-path segment from an element name ('::' scopes become '/', no empty parts)."""
    parts = [p for p in re.split(r"::|/", name) if p]
    return "/".join(parts) if parts else "unnamed"


class MeshcatVisualizer(LeafSystem):
    """Shows the geometries of a SceneGraph in a Meshcat, updated at params.publish_period."""

    def __init__(self, meshcat: Meshcat, params: MeshcatVisualizerParams | None = None):
        super().__init__()
        if not isinstance(meshcat, Meshcat):
            raise ValueError(f"MeshcatVisualizer needs a Meshcat (see StartMeshcat()); given {type(meshcat).__name__}")
        params = MeshcatVisualizerParams() if params is None else params
        if not isinstance(params, MeshcatVisualizerParams):
            raise ValueError(f"MeshcatVisualizer: params must be MeshcatVisualizerParams; given {type(params).__name__}")
        period = float(params.publish_period)
        if not math.isfinite(period) or period <= 0:
            raise ValueError(f"MeshcatVisualizer: publish_period must be finite and > 0 s; given "
                             f"{params.publish_period!r}")
        if Role(params.role) not in (Role.kIllustration, Role.kProximity, Role.kPerception):
            raise ValueError(f"MeshcatVisualizer: role must be kIllustration, kProximity or kPerception; given "
                             f"{params.role!r}")
        self._meshcat = meshcat
        self._params = dataclasses.replace(params)
        self._prefix = params.resolved_prefix()
        self._query_port = self.DeclareAbstractInputPort("query", Value(QueryObject()))
        self.DeclarePeriodicPublishEvent(period, 0.0, self._publish)
        self.DeclareForcedPublishEvent(self._publish)
        self.DeclareInitializationPublishEvent(self._on_initialize)
        self._version = None  # geometry version of the drawn scene
        self._frame_paths: dict = {}  # FrameId -> scene path of the frame

    # ----- ports and setup ----------------------------------------------------------------------------
    def query_object_input_port(self):
        """The abstract input port ``query`` (a QueryObject from SceneGraph)."""
        return self._query_port

    @staticmethod
    def AddToBuilder(builder, scene_graph_or_query_port, meshcat: Meshcat,
                     params: MeshcatVisualizerParams | None = None) -> "MeshcatVisualizer":
        """Add a MeshcatVisualizer to ``builder`` fed by a SceneGraph's query output (pass the SceneGraph
        or its query output port); returns the visualizer."""
        if hasattr(scene_graph_or_query_port, "get_query_output_port"):
            port = scene_graph_or_query_port.get_query_output_port()
        elif hasattr(scene_graph_or_query_port, "get_index") and hasattr(scene_graph_or_query_port, "Eval"):
            port = scene_graph_or_query_port
        else:
            raise ValueError("MeshcatVisualizer.AddToBuilder: pass a SceneGraph or its query output port; given "
                             f"{type(scene_graph_or_query_port).__name__}")
        visualizer = builder.AddSystem(MeshcatVisualizer(meshcat, params))
        builder.Connect(port, visualizer.query_object_input_port())
        return visualizer

    # ----- drawing ----------------------------------------------------------------------------------
    def _color(self, inspector, gid) -> Rgba:
        props = inspector.GetProperties(gid, Role(self._params.role))
        if props is not None:
            for group, name in (("phong", "diffuse"), ("meshcat", "color")):
                color = props.GetPropertyOrDefault(group, name, None)
                if isinstance(color, Rgba):
                    return color
                if color is not None:
                    c = np.asarray(color, dtype=float).reshape(-1)
                    if c.size in (3, 4):
                        return Rgba(*c)
        return self._params.default_color

    def _draw_geometries(self, query: QueryObject) -> None:
        inspector = query.inspector()
        role = Role(self._params.role)
        meshcat = self._meshcat
        meshcat.Delete(self._prefix)
        self._frame_paths = {}
        used: set[str] = set()
        for gid in inspector.GetAllGeometryIds(role):
            fid = inspector.GetFrameId(gid)
            if fid not in self._frame_paths:
                self._frame_paths[fid] = f"{self._prefix}/{_segment(inspector.GetName(fid))}"
            path = f"{self._frame_paths[fid]}/{_segment(inspector.GetName(gid))}"
            if path in used:
                path = f"{path}_{gid.get_value()}"
            used.add(path)
            try:
                meshcat.SetObject(path, inspector.GetShape(gid), self._color(inspector, gid))
            except (ValueError, FileNotFoundError) as e:
                raise type(e)(f"MeshcatVisualizer: geometry '{inspector.GetName(gid)}' on frame "
                              f"'{inspector.GetName(fid)}': {e}") from e
            meshcat.SetTransform(path, inspector.GetPoseInFrame(gid))
        if not self._params.visible_by_default:
            meshcat.SetProperty(self._prefix, "visible", False)
        self._version = inspector.geometry_version()

    def _on_initialize(self, context) -> None:
        query = self._query_port.Eval(context)
        if self._params.delete_on_initialization_event or self._version != query.inspector().geometry_version():
            self._draw_geometries(query)  # deletes the prefix first
        self._publish(context)

    def _publish(self, context) -> None:
        query = self._query_port.Eval(context)
        if self._version != query.inspector().geometry_version():
            self._draw_geometries(query)
        t = context.get_time()
        for fid, path in self._frame_paths.items():
            self._meshcat.SetTransform(path, query.GetPoseInWorld(fid), t)

    # ----- recording --------------------------------------------------------------------------------
    def StartRecording(self, set_transforms_while_recording: bool = True) -> MeshcatAnimation:
        """Record the poses published from now on, one frame per publish period."""
        self._meshcat.StartRecording(1.0 / self._params.publish_period, set_transforms_while_recording)
        return self._meshcat.get_mutable_recording()

    def StopRecording(self) -> None:
        self._meshcat.StopRecording()

    def PublishRecording(self) -> None:
        """Send the recording to the browser (and into Meshcat.StaticHtml())."""
        self._meshcat.PublishRecording()

    def DeleteRecording(self) -> None:
        self._meshcat.DeleteRecording()

    def get_mutable_recording(self) -> MeshcatAnimation:
        return self._meshcat.get_mutable_recording()

    def Delete(self) -> None:
        """Remove everything this visualizer drew from the Meshcat scene."""
        self._meshcat.Delete(self._prefix)
        self._version = None
