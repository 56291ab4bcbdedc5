"""MeshcatVisualizer: draws a SceneGraph's geometries in Meshcat and moves them as the poses change
(pydrake.geometry.MeshcatVisualizer, MeshcatVisualizerParams).

It is a LeafSystem with one abstract input, ``query`` (SceneGraph's QueryObject). On initialization
it (re)creates one Meshcat object per geometry with the chosen role, in its color; every
``publish_period`` it sets the world pose of every frame (and keys the recording, if one is on).
Scene paths are ``<prefix>/<frame name, '::' as '/'>/<geometry name, '::' as '/'>``, as in Drake; proximity
geometry is drawn as its convex hull where it has one.
"""
from __future__ import annotations

import dataclasses
import math
import re

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.meshcat import Meshcat
from mallard.geometry.meshcat_animation import MeshcatAnimation
from mallard.geometry.mesh_shapes import Convex, Mesh
from mallard.geometry.properties import Role
from mallard.geometry.query_object import QueryObject
from mallard.geometry.rgba import Rgba
from mallard.systems.framework import LeafSystem, Value


@dataclasses.dataclass
class MeshcatVisualizerParams:
    """Settings of a MeshcatVisualizer (pydrake's fields): publish period (s), which role to draw, the color
    of geometries that name none, the Meshcat path prefix, whether initialization deletes what the prefix
    holds, an opacity ("α") slider and its initial value, initial visibility, and which geometries to draw
    (those whose ("meshcat", "accepting") property names this prefix, plus those without it when
    ``include_unspecified_accepting``)."""

    publish_period: float = 1.0 / 64.0
    role: Role = Role.kIllustration
    default_color: Rgba = dataclasses.field(default_factory=lambda: Rgba(0.9, 0.9, 0.9, 1.0))
    prefix: str = "visualizer"
    delete_on_initialization_event: bool = True
    enable_alpha_slider: bool = False
    initial_alpha_slider_value: float = 1.0
    visible_by_default: bool = True
    show_hydroelastic: bool = False
    include_unspecified_accepting: bool = True


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
        if params.show_hydroelastic:
            raise ValueError("MeshcatVisualizer: show_hydroelastic needs hydroelastic meshes, which mallard does not "
                             "build yet; leave it False")
        self._meshcat = meshcat
        self._params = dataclasses.replace(params)
        self._prefix = params.prefix
        self._alpha_slider = f"{params.prefix} α"
        self._alpha = float(params.initial_alpha_slider_value)
        if params.enable_alpha_slider:
            self._alpha = meshcat.AddSlider(self._alpha_slider, 0.02, 1.0, 0.02, self._alpha)
        self._geometry_paths: list[str] = []
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
    def AddToBuilder(builder, scene_graph=None, meshcat: Meshcat | None = None,
                     params: MeshcatVisualizerParams | None = None, *,
                     query_object_port=None) -> "MeshcatVisualizer":
        """AddToBuilder(builder, scene_graph, meshcat, params) or AddToBuilder(builder, query_object_port=...,
        meshcat=..., params=...): add a MeshcatVisualizer fed by a SceneGraph's query output (the SceneGraph or
        the port may also be passed positionally); returns it, named "meshcat_visualizer(<prefix>)"."""
        source = scene_graph if scene_graph is not None else query_object_port
        if (scene_graph is None) == (query_object_port is None):
            raise TypeError("MeshcatVisualizer.AddToBuilder: pass exactly one of scene_graph or query_object_port")
        if hasattr(source, "get_query_output_port"):
            port = source.get_query_output_port()
        elif hasattr(source, "get_index") and hasattr(source, "Eval"):
            port = source
        else:
            raise ValueError("MeshcatVisualizer.AddToBuilder: pass a SceneGraph or its query output port; given "
                             f"{type(source).__name__}")
        visualizer = builder.AddSystem(MeshcatVisualizer(meshcat, params))
        name = f"meshcat_visualizer({visualizer._prefix})"
        if not builder.HasSubsystemNamed(name):
            visualizer.set_name(name)
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

    def _accepts(self, inspector, gid) -> bool:
        props = inspector.GetProperties(gid, Role(self._params.role))
        if props is not None and props.HasProperty("meshcat", "accepting"):
            return props.GetProperty("meshcat", "accepting") == self._prefix
        return self._params.include_unspecified_accepting

    def _draw_geometries(self, query: QueryObject) -> None:
        inspector = query.inspector()
        role = Role(self._params.role)
        meshcat = self._meshcat
        meshcat.Delete(self._prefix)
        self._frame_paths = {}
        self._geometry_paths = []
        used: set[str] = set()
        for gid in inspector.GetAllGeometryIds(role):
            if not self._accepts(inspector, gid):
                continue
            fid = inspector.GetFrameId(gid)
            if fid == inspector.world_frame_id():
                frame_path = self._prefix
            else:
                frame_path = self._frame_paths.setdefault(fid, f"{self._prefix}/{_segment(inspector.GetName(fid))}")
            path = f"{frame_path}/{_segment(inspector.GetName(gid))}"
            if path in used:
                path = f"{path}_{gid.get_value()}"
            used.add(path)
            shape = inspector.GetShape(gid)
            try:
                if role == Role.kProximity and isinstance(shape, Mesh):  # as Drake: proximity shows the hull
                    shape = Convex(source=shape.source(), scale3=shape.scale3())
                meshcat.SetObject(path, shape, self._color(inspector, gid))
            except (ValueError, FileNotFoundError) as e:
                raise type(e)(f"MeshcatVisualizer: geometry '{inspector.GetName(gid)}' on frame "
                              f"'{inspector.GetName(fid)}': {e}") from e
            meshcat.SetTransform(path, inspector.GetPoseInFrame(gid))
            self._geometry_paths.append(path)
        if not self._params.visible_by_default:
            meshcat.SetProperty(self._prefix, "visible", False)
        if self._params.enable_alpha_slider:
            for path in self._geometry_paths:
                meshcat.SetProperty(path, "modulated_opacity", self._alpha)
        self._version = inspector.geometry_version()

    def _on_initialize(self, context) -> None:
        query = self._query_port.Eval(context)
        version = query.inspector().geometry_version()
        if self._params.delete_on_initialization_event or self._version is None \
                or not self._version.IsSameAs(version, Role(self._params.role)):
            self._draw_geometries(query)  # deletes the prefix first
        self._publish(context)

    def _publish(self, context) -> None:
        query = self._query_port.Eval(context)
        version = query.inspector().geometry_version()
        if self._version is None or not self._version.IsSameAs(version, Role(self._params.role)):
            self._draw_geometries(query)
        t = context.get_time()
        for fid, path in self._frame_paths.items():
            self._meshcat.SetTransform(path, query.GetPoseInWorld(fid), t)
        if self._params.enable_alpha_slider:
            alpha = self._meshcat.GetSliderValue(self._alpha_slider)
            if alpha != self._alpha:
                self._alpha = alpha
                self._meshcat.SetProperty(self._prefix, "modulated_opacity", alpha)
        self._meshcat.SetSimulationTime(t)

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


MeshcatVisualizer_ = ScalarTemplate("MeshcatVisualizer_", MeshcatVisualizer)
