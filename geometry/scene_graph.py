"""SceneGraph: the System that owns geometry (pydrake.geometry.SceneGraph).

Sources (e.g. a MultibodyPlant) register frames and geometries, then feed frame poses through
one ``<source>_pose`` input port each (a FramePoseVector of X_PF). The ``query`` output port gives
a QueryObject for proximity queries. Registration changes the model; each new Context starts
from a copy of it (``model_inspector()`` shows the model, ``QueryObject.inspector()`` the context).
"""
from __future__ import annotations

import copy

from mallard.common.overloads import Overload, declares, resolve
from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.collision_filter import CollisionFilterManager
from mallard.geometry.frame_pose_vector import FramePoseVector
from mallard.geometry.geometry_instance import GeometryFrame, GeometryInstance
from mallard.geometry.geometry_state import GeometryState, world_frame_id
from mallard.geometry.identifiers import FrameId, GeometryId, GeometryLookupError, SourceId
from mallard.geometry.properties import (IllustrationProperties, PerceptionProperties, ProximityProperties, Role,
                                         RoleAssign, copy_properties)
from mallard.geometry.scene_graph_config import SceneGraphConfig
from mallard.geometry.shapes import Shape
from mallard.geometry.query_object import QueryObject
from mallard.geometry.scene_graph_inspector import SceneGraphInspector
from mallard.geometry._poses import as_Rp
from mallard.systems.framework import Context, LeafSystem, Value


class _Poses:
    """Cached world poses of one context: frames (R_WF, p_WF) and geometries (R_WG, p_WG)."""

    __slots__ = ("compiled", "R_WF", "p_WF", "R_WG", "p_WG")

    def __init__(self):
        self.compiled = None
        self.R_WF = self.p_WF = self.R_WG = self.p_WG = None


class SceneGraph(LeafSystem):
    """Geometry registration, poses and proximity queries as a System."""

    def __init__(self, config: SceneGraphConfig | None = None):
        super().__init__()
        self._config = SceneGraphConfig()
        self._model = GeometryState()
        if config is not None:
            self.set_config(config)
        self._source_ports: dict[SourceId, int] = {}
        self._augmented = None  # (model key, config defaults, the default state of contexts): _default_state
        self._state_index = int(self.DeclareAbstractParameter(Value(self._model)))
        self._query_port = self.DeclareAbstractOutputPort("query", lambda: Value(QueryObject()), self._calc_query,
                                                          {self.nothing_ticket()})
        self._pose_cache = self.DeclareCacheEntry(
            "geometry world poses", alloc=lambda: Value(_Poses()), calc=self._calc_poses,
            prerequisites_of_calc={self.all_input_ports_ticket(), self.all_parameters_ticket()})

    # ----- config --------------------------------------------------------------------------------------
    def get_config(self, context: Context | None = None) -> SceneGraphConfig:
        """The SceneGraph's configuration (the object itself, as pydrake returns it)."""
        return self._config

    def set_config(self, config: SceneGraphConfig) -> None:
        """Replace the configuration (validated; RuntimeError for an invalid one)."""
        if not isinstance(config, SceneGraphConfig):
            raise TypeError(f"SceneGraph.set_config needs a SceneGraphConfig; given {type(config).__name__}")
        config.ValidateOrThrow()
        self._config = copy.deepcopy(config)

    # ----- ports ---------------------------------------------------------------------------------------
    def get_query_output_port(self):
        """The abstract output port ``query`` (a QueryObject)."""
        return self._query_port

    def get_source_pose_port(self, source_id: SourceId):
        """The abstract input port ``<source>_pose`` (a FramePoseVector) of a registered source."""
        if source_id not in self._source_ports:
            raise GeometryLookupError(f"SceneGraph.get_source_pose_port: source {source_id!r} is not registered; "
                                      f"registered: {[self._model.sources[s] for s in self._source_ports]}")
        return self.get_input_port(self._source_ports[source_id])

    # ----- context plumbing ----------------------------------------------------------------------------
    def _default_state(self) -> GeometryState:
        """What a context's geometry state starts from, as Drake's augmented model: the model with the config's
        default proximity properties (the model's, seen through model_inspector(), stay as registered). Made
        again when the model changed (its version, or a properties object it handed out changed in place), or the
        config's defaults; contexts get copy-on-write clones of it, and it is itself never changed nor handed out."""
        model, defaults = self._model, self._config.default_proximity_properties
        cached = self._augmented
        if cached is None or cached[0] != model.version or cached[1] != defaults \
                or len(cached[2]) != len(model._handed_out) or not all(p == s for p, s in cached[2]):
            state = model.Clone()
            state.set_proximity_defaults(defaults)
            handed = tuple((p, copy_properties(p)) for p in model._handed_out.values())
            cached = self._augmented = (model.version, copy.deepcopy(defaults), handed, state)
        return cached[3]

    def _allocate_context_tree(self):
        self._abstract_parameter_models[self._state_index].set_value(self._default_state())
        return super()._allocate_context_tree()

    def SetDefaultParameters(self, context, parameters) -> None:
        self._abstract_parameter_models[self._state_index].set_value(self._default_state())
        super().SetDefaultParameters(context, parameters)

    def _state(self, context) -> GeometryState:
        return context.get_abstract_parameter(self._state_index).get_value()

    def _mutable_state(self, context) -> GeometryState:
        self._check_context(context, "SceneGraph")
        return context.get_mutable_abstract_parameter(self._state_index).get_value()

    def _target(self, args: tuple, what: str):
        if args and isinstance(args[0], Context):
            return self._mutable_state(args[0]), args[1:], True
        return self._model, args, False

    def _calc_query(self, context, value) -> None:
        value.set_value(QueryObject(self, context))

    def _calc_poses(self, context, value) -> None:
        poses = value.get_mutable_value() if hasattr(value, "get_mutable_value") else value
        if not isinstance(poses, _Poses):
            poses = _Poses()
            value.set_value(poses)
        state = self._state(context)
        compiled = state.compiled()
        vectors = {}
        for sid, rows in compiled.source_frames.items():
            if not rows:
                continue
            name = state.sources[sid]
            if sid not in self._source_ports:
                raise RuntimeError(f"SceneGraph: source '{name}' has frames but no pose input port in this system")
            raw = self._eval_input_raw(context, self._source_ports[sid])
            if raw is None:
                raise RuntimeError(
                    f"SceneGraph: the input port '{name}_pose' of source '{name}' is not connected, so the poses of "
                    f"its {len(rows)} frame(s) are unknown. Connect the source's pose output (for a MultibodyPlant: "
                    "plant.get_geometry_pose_output_port()) to scene_graph.get_source_pose_port(source_id), or "
                    "FixValue a FramePoseVector on it, before querying.")
            fpv = raw.get_value()
            if not isinstance(fpv, FramePoseVector):
                raise ValueError(f"SceneGraph: input '{name}_pose' must hold a FramePoseVector; got "
                                 f"{type(fpv).__name__}")
            vectors[sid] = fpv
        R_WF, p_WF = compiled.frame_poses(vectors, state.sources)
        poses.compiled = compiled
        poses.R_WF, poses.p_WF = R_WF, p_WF
        poses.R_WG, poses.p_WG = compiled.geometry_poses(R_WF, p_WF)

    def _eval_poses(self, context) -> _Poses:
        poses = self._pose_cache.Eval(context)
        if poses.compiled is not self._state(context).compiled():
            # the context's geometry data changed in place (e.g. filters applied through a manager
            # obtained earlier): recompute
            self._calc_poses(context, self._pose_cache.EvalAbstract(context))
        return poses

    # ----- registration ----------------------------------------------------------------------------------
    def _split_context(self, who: str, args: tuple, kwargs: dict):
        """(the GeometryState to edit: a context's or the model, the remaining args, kwargs)."""
        if "context" in kwargs:
            kwargs = dict(kwargs)
            context = kwargs.pop("context")
        elif args and isinstance(args[0], Context):
            context, args = args[0], args[1:]
        else:
            return self._model, args, kwargs
        if not isinstance(context, Context):
            raise TypeError(f"SceneGraph.{who}: context must be a Context; given {type(context).__name__}")
        return self._mutable_state(context), args, kwargs

    def RegisterSource(self, name: str = "") -> SourceId:
        """Register a geometry source; declares its ``<name>_pose`` input port. Names must be unique."""
        if not isinstance(name, str):
            raise ValueError(f"RegisterSource: name must be a string; given {type(name).__name__}")
        if name == "":
            name = f"Source_{len(self._model.sources)}"
        sid = self._model.register_source(name)
        port = self.DeclareAbstractInputPort(f"{name}_pose", Value(FramePoseVector()))
        self._source_ports[sid] = int(port.get_index())
        return sid

    def SourceIsRegistered(self, id: SourceId) -> bool:
        return id in self._model.sources

    _FRAME_OVERLOADS = (Overload(("source_id", SourceId), ("frame", GeometryFrame)),
                        Overload(("source_id", SourceId), ("parent_id", FrameId), ("frame", GeometryFrame)))

    @declares(_FRAME_OVERLOADS)
    def RegisterFrame(self, *args, **kwargs) -> FrameId:
        """RegisterFrame(source_id, frame) on the world frame, or RegisterFrame(source_id, parent_id, frame)."""
        _, a = resolve("SceneGraph.RegisterFrame", self._FRAME_OVERLOADS, args, kwargs)
        return self._model.register_frame(a["source_id"], a.get("parent_id", world_frame_id()), a["frame"])

    _GEOMETRY_OVERLOADS = (Overload(("source_id", SourceId), ("frame_id", FrameId),
                                    ("geometry", GeometryInstance)),)

    @declares(_GEOMETRY_OVERLOADS, context_first=True)
    def RegisterGeometry(self, *args, **kwargs) -> GeometryId:
        """RegisterGeometry([context,] source_id, frame_id, geometry): attach a GeometryInstance to a frame
        of the source (in the model, or only in ``context``); roles follow the properties set on it."""
        state, args, kwargs = self._split_context("RegisterGeometry", args, kwargs)
        _, a = resolve("SceneGraph.RegisterGeometry", self._GEOMETRY_OVERLOADS, args, kwargs)
        return state.register_geometry(a["source_id"], a["frame_id"], a["geometry"])

    def RegisterAnchoredGeometry(self, source_id: SourceId, geometry: GeometryInstance) -> GeometryId:
        """Register a geometry fixed in the world frame."""
        if not isinstance(geometry, GeometryInstance):
            raise ValueError(f"RegisterAnchoredGeometry needs a GeometryInstance; given {type(geometry).__name__}")
        return self._model.register_geometry(source_id, world_frame_id(), geometry)

    _REMOVE_OVERLOADS = (Overload(("source_id", SourceId), ("geometry_id", GeometryId)),)

    @declares(_REMOVE_OVERLOADS, context_first=True)
    def RemoveGeometry(self, *args, **kwargs) -> None:
        """RemoveGeometry([context,] source_id, geometry_id)."""
        state, args, kwargs = self._split_context("RemoveGeometry", args, kwargs)
        _, a = resolve("SceneGraph.RemoveGeometry", self._REMOVE_OVERLOADS, args, kwargs)
        state.remove_geometry(a["source_id"], a["geometry_id"])

    _ROLE_OVERLOADS = (Overload(("source_id", SourceId), ("geometry_id", GeometryId),
                                ("properties", (ProximityProperties, IllustrationProperties, PerceptionProperties)),
                                ("assign", RoleAssign, RoleAssign.kNew)),)

    @declares(_ROLE_OVERLOADS, context_first=True)
    def AssignRole(self, *args, **kwargs) -> None:
        """AssignRole([context,] source_id, geometry_id, properties, assign=RoleAssign.kNew): give a geometry
        the role of ``properties`` (Proximity/Illustration/PerceptionProperties)."""
        state, args, kwargs = self._split_context("AssignRole", args, kwargs)
        _, a = resolve("SceneGraph.AssignRole", self._ROLE_OVERLOADS, args, kwargs)
        state.assign_role(a["source_id"], a["geometry_id"], a["properties"], a["assign"])

    _REMOVE_ROLE_OVERLOADS = (Overload(("source_id", SourceId), ("frame_id", FrameId), ("role", Role)),
                              Overload(("source_id", SourceId), ("geometry_id", GeometryId), ("role", Role)))

    @declares(_REMOVE_ROLE_OVERLOADS, context_first=True)
    def RemoveRole(self, *args, **kwargs) -> int:
        """RemoveRole([context,] source_id, geometry_id or frame_id, role): the number of geometries whose role
        was removed."""
        state, args, kwargs = self._split_context("RemoveRole", args, kwargs)
        k, a = resolve("SceneGraph.RemoveRole", self._REMOVE_ROLE_OVERLOADS, args, kwargs)
        if k == 0:
            return state.remove_frame_role(a["source_id"], a["frame_id"], Role(a["role"]))
        return state.remove_role(a["source_id"], a["geometry_id"], Role(a["role"]))

    _SHAPE_OVERLOADS = (Overload(("source_id", SourceId), ("geometry_id", GeometryId), ("shape", Shape),
                                 ("X_FG", None, None)),)

    @declares(_SHAPE_OVERLOADS, context_first=True)
    def ChangeShape(self, *args, **kwargs) -> None:
        """ChangeShape([context,] source_id, geometry_id, shape, X_FG=None): replace a geometry's shape (and its
        pose in its frame when X_FG is given)."""
        state, args, kwargs = self._split_context("ChangeShape", args, kwargs)
        _, a = resolve("SceneGraph.ChangeShape", self._SHAPE_OVERLOADS, args, kwargs)
        R = p = None
        if a["X_FG"] is not None:
            R, p = as_Rp(a["X_FG"], "ChangeShape X_FG")
        state.change_shape(a["source_id"], a["geometry_id"], a["shape"], R, p)

    def RenameFrame(self, frame_id: FrameId, name: str) -> None:
        self._model.rename_frame(frame_id, name)

    def RenameGeometry(self, geometry_id: GeometryId, name: str) -> None:
        self._model.rename_geometry(geometry_id, name)

    # ----- inspection and filters -------------------------------------------------------------------------
    def model_inspector(self) -> SceneGraphInspector:
        """An inspector of the model (what new contexts start from)."""
        return SceneGraphInspector(self._model)

    def collision_filter_manager(self, context=None) -> CollisionFilterManager:
        """A manager editing the model's collision filters, or the given context's."""
        return CollisionFilterManager(self._model if context is None else self._mutable_state(context))

    @staticmethod
    def world_frame_id() -> FrameId:
        return world_frame_id()

    # ----- rendering: mallard has no render engines ---------------------------------------------------------
    def RendererCount(self, context: Context | None = None) -> int:
        """0: mallard has no render engines (cameras and rendering are out of its scope)."""
        return 0

    @declares((Overload(("name", str)),), context_first=True)
    def HasRenderer(self, *args, **kwargs) -> bool:
        """HasRenderer([context,] name): always False, mallard has no render engines."""
        self._split_context("HasRenderer", args, kwargs)
        return False


SceneGraph_ = ScalarTemplate("SceneGraph_", SceneGraph)
