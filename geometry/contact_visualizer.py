"""ContactVisualizer: draws a MultibodyPlant's contact forces in Meshcat as arrows
(pydrake.multibody.meshcat.ContactVisualizer, ContactVisualizerParams). Point contacts are drawn here; hydroelastic
contact surfaces under ``<prefix>/hydroelastic`` (hydroelastic_contact_visualizer.py).

It is a LeafSystem with one abstract input, ``contact_results`` (the plant's ContactResults). Every
``publish_period`` it draws each point contact whose force magnitude is at least ``force_threshold`` as a
double-headed arrow centred at the contact point C along the force on body B, of length
|f_Bc_W| / ``newtons_per_meter`` (m) between the two cone tips' bases (the equal and opposite forces on A and B).
Arrows are reused and hidden (``visible`` false) when their contact goes away.

Scene paths: ``<prefix>/point/<bodyA>+<bodyB>/<k>`` for the k-th contact of that body pair (a box on a plane
has four), each holding ``shaft`` (a unit cylinder along z, stretched with the ``scale`` property), ``head``
(a cone at +z) and ``tail`` (a cone at -z). The pose X_WC of the arrow node (z along f_Bc_W) is keyed in a
Meshcat recording along with the shaft's scale and the heads' offsets, so recorded animations replay the forces.
"""
from __future__ import annotations

import dataclasses
import math
import re
import weakref

import numpy as np

from mallard.common.overloads import Overload, declares, resolve
from mallard.geometry.arrows import cone_mesh, frame_along, shaft_mesh
from mallard.geometry.hydroelastic_contact_visualizer import HydroelasticContactDrawing, geometry_full_names
from mallard.geometry.meshcat import Meshcat
from mallard.geometry.query_object import QueryObject
from mallard.geometry.rgba import Rgba
from mallard.systems.framework import LeafSystem, OutputPort, Value

_BUILDERS_WITH_NAMED_VISUALIZER: "weakref.WeakSet" = weakref.WeakSet()


@dataclasses.dataclass
class ContactVisualizerParams:
    """Settings of a ContactVisualizer (pydrake's defaults): publish period (s), arrow color, Meshcat path
    prefix, whether initialization deletes old arrows, the smallest force drawn (N), the force scale
    (N per metre of arrow) and the shaft radius (m); for hydroelastic contacts the force and moment colors, the
    smallest moment drawn (N·m) and the moment scale (N·m per metre of arrow)."""

    publish_period: float = 1.0 / 32.0
    color: Rgba = dataclasses.field(default_factory=lambda: Rgba(0.0, 1.0, 0.0, 1.0))
    hydro_force_color: Rgba = dataclasses.field(default_factory=lambda: Rgba(1.0, 0.0, 0.0, 1.0))
    hydro_moment_color: Rgba = dataclasses.field(default_factory=lambda: Rgba(0.0, 0.0, 1.0, 1.0))
    prefix: str = "contact_forces"
    delete_on_initialization_event: bool = True
    force_threshold: float = 0.01
    moment_threshold: float = 0.01
    newtons_per_meter: float = 10.0
    newton_meters_per_meter: float = 3.0
    radius: float = 0.002

    def Validate(self) -> "ContactVisualizerParams":
        """Raise ValueError naming the first bad field; returns self."""
        for name in ("publish_period", "newtons_per_meter", "newton_meters_per_meter", "radius"):
            v = getattr(self, name)
            if not isinstance(v, (int, float, np.number)) or not math.isfinite(v) or v <= 0:
                raise ValueError(f"ContactVisualizerParams.{name} must be finite and > 0; given {v!r}")
        for name in ("force_threshold", "moment_threshold"):
            v = getattr(self, name)
            if not isinstance(v, (int, float, np.number)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"ContactVisualizerParams.{name} must be finite and >= 0; given {v!r}")
        for name in ("color", "hydro_force_color", "hydro_moment_color"):
            if not isinstance(getattr(self, name), Rgba):
                raise ValueError(f"ContactVisualizerParams.{name} must be an Rgba; given "
                                 f"{type(getattr(self, name)).__name__}")
        if not isinstance(self.prefix, str) or not self.prefix.strip("/"):
            raise ValueError(f"ContactVisualizerParams.prefix must be a non-empty path; given {self.prefix!r}")
        return self


def _segment(name: str) -> str:
    """A scene-path segment from an element name (no '/' or '::' inside)."""
    return re.sub(r"::|/", "_", name) or "unnamed"


_ADD_OVERLOADS = (
    Overload(("builder", None), ("contact_results_port", OutputPort), ("query_object_port", OutputPort),
             ("meshcat", Meshcat), ("params", None, None)),
    Overload(("builder", None), ("contact_results_port", OutputPort), ("meshcat", Meshcat), ("params", None, None)),
    Overload(("builder", None), ("plant", None), ("meshcat", Meshcat), ("params", None, None)))


class ContactVisualizer(LeafSystem):
    """Shows point-contact forces of a MultibodyPlant in a Meshcat, updated at params.publish_period."""

    def __init__(self, meshcat: Meshcat, params: ContactVisualizerParams | None = None):
        super().__init__()
        from mallard.multibody.contact.contact_results import ContactResults  # geometry must not import it eagerly
        if not isinstance(meshcat, Meshcat):
            raise ValueError(f"ContactVisualizer needs a Meshcat (see StartMeshcat()); given {type(meshcat).__name__}")
        params = ContactVisualizerParams() if params is None else params
        if not isinstance(params, ContactVisualizerParams):
            raise ValueError(f"ContactVisualizer: params must be ContactVisualizerParams; given "
                             f"{type(params).__name__}")
        self._params = dataclasses.replace(params).Validate()
        self._meshcat = meshcat
        self._prefix = self._params.prefix.strip("/")
        self._head_length = 4.0 * self._params.radius  # m: each cone's height
        self._contact_port = self.DeclareAbstractInputPort("contact_results", Value(ContactResults()))
        # hydroelastic arrows are named after the geometries: their names come from a QueryObject on this port
        self._query_port = self.DeclareAbstractInputPort("query_object", Value(QueryObject()), required=False)
        self.DeclarePeriodicPublishEvent(self._params.publish_period, 0.0, self._publish)
        self.DeclareForcedPublishEvent(self._publish)
        self.DeclareInitializationPublishEvent(self._on_initialize)
        self._arrows: dict[str, bool] = {}  # arrow path -> currently visible
        self._hydro = HydroelasticContactDrawing(meshcat, self._params, f"{self._prefix}/hydroelastic")
        self._names: dict | None = None  # GeometryId -> Drake's full name, made at the first hydroelastic contact
        self._last_time: float | None = None

    # ----- ports and setup ----------------------------------------------------------------------------
    def contact_results_input_port(self):
        """The abstract input port ``contact_results`` (ContactResults from a MultibodyPlant)."""
        return self._contact_port

    def query_object_input_port(self):
        """The abstract input port ``query_object`` (SceneGraph's QueryObject; optional)."""
        return self._query_port

    @staticmethod
    @declares(_ADD_OVERLOADS)
    def AddToBuilder(*args, **kwargs) -> "ContactVisualizer":
        """AddToBuilder(builder, plant, meshcat, params=None), or AddToBuilder(builder, contact_results_port,
        [query_object_port,] meshcat, params=None): add a ContactVisualizer fed by a finalized plant's
        contact_results output (or the given port); returns the visualizer, named "meshcat_contact_visualizer"
        unless that name is taken."""
        k, a = resolve("ContactVisualizer.AddToBuilder", _ADD_OVERLOADS, args, kwargs)
        builder, meshcat, params = a["builder"], a["meshcat"], a["params"]
        if k == 2:
            plant = a["plant"]
            if not hasattr(plant, "get_contact_results_output_port"):
                raise ValueError("ContactVisualizer.AddToBuilder: pass a finalized MultibodyPlant; given "
                                 f"{type(plant).__name__}")
            if not plant.is_finalized():
                raise RuntimeError(f"ContactVisualizer.AddToBuilder: MultibodyPlant '{plant.get_name()}' is not "
                                   "finalized; call plant.Finalize() first")
            contact_port = plant.get_contact_results_output_port()
        else:
            contact_port = a["contact_results_port"]
        visualizer = ContactVisualizer(meshcat, params)
        getter = getattr(builder, "GetSystems", None)
        if getter is not None:
            taken = "meshcat_contact_visualizer" in {s.get_name() for s in getter()}
        else:  # builders without GetSystems: remember which ones already hold a visualizer under that name
            taken = builder in _BUILDERS_WITH_NAMED_VISUALIZER
        if not taken:
            visualizer.set_name("meshcat_contact_visualizer")
        builder.AddSystem(visualizer)
        if not taken and getter is None:
            _BUILDERS_WITH_NAMED_VISUALIZER.add(builder)
        builder.Connect(contact_port, visualizer.contact_results_input_port())
        if a.get("query_object_port") is not None:
            builder.Connect(a["query_object_port"], visualizer.query_object_input_port())
        return visualizer

    # ----- drawing ----------------------------------------------------------------------------------
    def _create_arrow(self, path: str, t: float) -> None:
        m, r = self._meshcat, self._params.radius
        color = self._params.color
        m.SetTriangleMesh(f"{path}/shaft", *shaft_mesh(r), rgba=color)
        m.SetTriangleMesh(f"{path}/head", *cone_mesh(2.0 * r, self._head_length, +1.0), rgba=color)
        m.SetTriangleMesh(f"{path}/tail", *cone_mesh(2.0 * r, self._head_length, -1.0), rgba=color)
        if m.is_recording() and self._last_time is not None and \
                self._last_time >= m.get_mutable_recording().start_time():
            m.SetProperty(path, "visible", False, self._last_time)  # hidden in the recording before it appears

    def _draw_arrow(self, path: str, p_WC: np.ndarray, f_W: np.ndarray, t: float) -> None:
        m = self._meshcat
        length = float(np.linalg.norm(f_W)) / self._params.newtons_per_meter
        m.SetTransform(path, frame_along(f_W, p_WC), t)
        m.SetProperty(f"{path}/shaft", "scale", [1.0, 1.0, length], t)
        for child, sign in (("head", 1.0), ("tail", -1.0)):
            X = np.eye(4)
            X[2, 3] = sign * 0.5 * length
            m.SetTransform(f"{path}/{child}", X, t)
        if not self._arrows.get(path, False):
            m.SetProperty(path, "visible", True, t)
        self._arrows[path] = True

    def _on_initialize(self, context) -> None:
        if self._params.delete_on_initialization_event:
            self._meshcat.Delete(self._prefix)
            self._arrows = {}
            self._hydro.Delete()
        self._last_time = None
        self._publish(context)

    def _publish(self, context) -> None:
        results = self._contact_port.Eval(context)
        plant = results.plant() if hasattr(results, "plant") else None
        t = context.get_time()
        drawn: set[str] = set()
        per_pair: dict[tuple, int] = {}
        for i in range(results.num_point_pair_contacts()):
            info = results.point_pair_contact_info(i)
            f_W = info.contact_force()
            if not np.all(np.isfinite(f_W)):
                raise RuntimeError(f"ContactVisualizer: contact {i} has a non-finite force {f_W.tolist()} at t = {t} s")
            if np.linalg.norm(f_W) < max(self._params.force_threshold, 1e-12):
                continue
            key = (info.bodyA_index(), info.bodyB_index())
            k = per_pair.get(key, 0)
            per_pair[key] = k + 1
            names = [_segment(plant.get_body(b).name()) if plant is not None else f"body{int(b)}" for b in key]
            path = f"{self._prefix}/point/{names[0]}+{names[1]}/{k}"
            if path not in self._arrows:
                self._create_arrow(path, t)
                self._arrows[path] = False
            self._draw_arrow(path, info.contact_point(), f_W, t)
            drawn.add(path)
        for path, visible in self._arrows.items():
            if visible and path not in drawn:
                self._meshcat.SetProperty(path, "visible", False, t)
                self._arrows[path] = False
        self._hydro.Update(t, results, lambda: self._geometry_names(context, plant))
        self._last_time = t

    def _geometry_names(self, context, plant) -> dict:
        """GeometryId -> Drake's full name of the plant's collision geometries (made once)."""
        if self._names is None:
            query = self._query_port.Eval(context) if self._query_port.HasValue(context) else None
            self._names = geometry_full_names(plant, None if query is None else query.inspector())
        return self._names

    # ----- inspection -------------------------------------------------------------------------------
    def arrow_paths(self, visible_only: bool = True) -> list[str]:
        """(mallard) The Meshcat paths of the arrows drawn so far (only those shown at the last publish when
        `visible_only`), e.g. 'contact_forces/point/WorldBody+box/0'."""
        return sorted(p for p, v in self._arrows.items() if v or not visible_only)

    def Delete(self) -> None:
        """Remove every arrow this visualizer drew from the Meshcat scene."""
        self._meshcat.Delete(self._prefix)
        self._arrows = {}
        self._hydro.Delete()
