"""SceneGraph registration half of MultibodyPlant: source, body frames, visual/collision geometry.

The plant owns the body ↔ frame ↔ geometry bookkeeping; SceneGraph owns the geometries.  Body frames
are registered eagerly (every body when the plant becomes a source, later bodies in AddRigidBody), as
in Drake; the geometry_pose output reports X_WB for every registered body frame.
"""
from __future__ import annotations

import numpy as np

from ...common.overloads import bind

from ..tree._convert import make_rigid_transform, pose_to_arrays
from ...geometry import (CollisionFilterDeclaration, CoulombFriction, GeometryFrame, GeometryInstance, GeometrySet,
                         IllustrationProperties, MakePhongIllustrationProperties, PerceptionProperties,
                         ProximityProperties)


class _GeometryMixin:
    """RegisterAsSourceForSceneGraph, Register{Visual,Collision}Geometry and the geometry lookups."""

    def _init_geometry(self) -> None:
        self._scene_graph = None
        self._source_id = None
        self._visual_geometries: dict[int, list] = {}
        self._collision_geometries: dict[int, list] = {}
        self._body_of_frame_id: dict = {}
        #: bodies whose joint to their parent must not filter collisions (MJCF models with filterparent disabled)
        self._adjacent_filter_exempt: set[int] = set()

    # ---- source and frames ---------------------------------------------------------------------------
    def RegisterAsSourceForSceneGraph(self, scene_graph):
        """Register this plant (by its name) as a geometry source of `scene_graph`; returns the SourceId."""
        self._ThrowIfFinalized("RegisterAsSourceForSceneGraph")
        if scene_graph is None:
            raise ValueError("RegisterAsSourceForSceneGraph: scene_graph is None")
        if self._scene_graph is not None:
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}' is already registered as a SceneGraph source")
        self._source_id = scene_graph.RegisterSource(self.get_name())
        self._scene_graph = scene_graph
        self._geometry_frame_ids[0] = scene_graph.world_frame_id()
        self._body_of_frame_id[scene_graph.world_frame_id()] = 0
        for body in self._bodies[1:]:
            self._RegisterBodyFrameWithSceneGraph(body)
        return self._source_id

    def _RegisterBodyFrameWithSceneGraph(self, body) -> None:
        mi = int(body.model_instance())
        name = body.name() if mi in (0, 1) else f"{self._instance_names[mi]}::{body.name()}"
        fid = self._scene_graph.RegisterFrame(self._source_id, GeometryFrame(name, mi))
        self._geometry_frame_ids[int(body.index())] = fid
        self._body_of_frame_id[fid] = int(body.index())

    def geometry_source_is_registered(self) -> bool:
        return self._source_id is not None

    def get_source_id(self):
        """The SourceId, or None if the plant is not a SceneGraph source."""
        return self._source_id

    def _check_scene_graph(self, scene_graph, what):
        self._ThrowIfFinalized(what)
        if self._scene_graph is None:
            raise RuntimeError(f"{what}: call RegisterAsSourceForSceneGraph(scene_graph) first")
        if scene_graph is not None and scene_graph is not self._scene_graph:
            raise RuntimeError(f"{what}: this is not the SceneGraph the plant registered with")

    def _body_frame_id(self, body, what):
        self._check_element(body, "body", self._bodies)
        return self._geometry_frame_ids[int(body.index())]

    def _register_instance(self, body, instance, what):
        fid = self._body_frame_id(body, what)
        mi = int(body.model_instance())
        if mi not in (0, 1):  # Drake scopes a geometry's name by its body's model instance (not world/default)
            instance.set_name(f"{self._instance_names[mi]}::{instance.name()}")
        if int(body.index()) == 0:
            return self._scene_graph.RegisterAnchoredGeometry(self._source_id, instance)
        return self._scene_graph.RegisterGeometry(self._source_id, fid, instance)

    # ---- geometry -----------------------------------------------------------------------------------------
    def RegisterVisualGeometry(self, body, *args, **kwargs):
        """(body, X_BG, shape, name[, diffuse_color | properties]) or (body, geometry_instance)."""
        self._check_scene_graph(None, "RegisterVisualGeometry")
        b = bind("RegisterVisualGeometry", args, kwargs, ("geometry_instance",), ("X_BG", "shape", "name"),
                 ("X_BG", "shape", "name", "diffuse_color"), ("X_BG", "shape", "name", "properties"))
        if "geometry_instance" in b:
            instance = b["geometry_instance"]
            if instance.illustration_properties() is None:
                instance.set_illustration_properties(IllustrationProperties())
        else:
            instance = GeometryInstance(_as_transform(b["X_BG"]), b["shape"], b["name"])
            props = b.get("diffuse_color", b.get("properties"))
            if props is None:
                props = IllustrationProperties()
            elif not isinstance(props, IllustrationProperties):
                props = MakePhongIllustrationProperties(np.asarray(props, dtype=float))
            instance.set_illustration_properties(props)
            perception = PerceptionProperties()
            if props.HasProperty("phong", "diffuse"):
                perception.AddProperty("phong", "diffuse", props.GetProperty("phong", "diffuse"))
            instance.set_perception_properties(perception)
        gid = self._register_instance(body, instance, "RegisterVisualGeometry")
        self._visual_geometries.setdefault(int(body.index()), []).append(gid)
        return gid

    def RegisterCollisionGeometry(self, body, X_BG, shape, name: str, properties=None, coulomb_friction=None):
        """Register proximity geometry; `properties` is a ProximityProperties (its ("material",
        "coulomb_friction") and hydroelastic properties default to the SceneGraph config's
        default_proximity_properties, as in Drake), or pass `coulomb_friction` (a CoulombFriction)."""
        self._check_scene_graph(None, "RegisterCollisionGeometry")
        if (properties is None) == (coulomb_friction is None):
            raise TypeError(f"RegisterCollisionGeometry '{name}': pass exactly one of properties or coulomb_friction")
        properties = coulomb_friction if properties is None else properties
        if isinstance(properties, CoulombFriction):
            friction, properties = properties, ProximityProperties()
            properties.AddProperty("material", "coulomb_friction", friction)
        if not isinstance(properties, ProximityProperties):
            raise ValueError(f"RegisterCollisionGeometry '{name}': properties must be ProximityProperties or "
                             f"CoulombFriction, got {type(properties).__name__}")
        if properties.HasProperty("material", "coulomb_friction") and not isinstance(
                properties.GetProperty("material", "coulomb_friction"), CoulombFriction):
            raise ValueError(f"RegisterCollisionGeometry '{name}' on body '{body.name()}': the proximity property "
                             "('material', 'coulomb_friction') must be a CoulombFriction (leave it out for the "
                             "SceneGraph's default friction)")
        instance = GeometryInstance(_as_transform(X_BG), shape, name)
        instance.set_proximity_properties(properties)
        gid = self._register_instance(body, instance, "RegisterCollisionGeometry")
        self._collision_geometries.setdefault(int(body.index()), []).append(gid)
        return gid

    def GetVisualGeometriesForBody(self, body) -> list:
        return list(self._visual_geometries.get(int(body.index()), []))

    def GetCollisionGeometriesForBody(self, body) -> list:
        return list(self._collision_geometries.get(int(body.index()), []))

    def num_visual_geometries(self) -> int:
        return sum(len(v) for v in self._visual_geometries.values())

    def num_collision_geometries(self) -> int:
        return sum(len(v) for v in self._collision_geometries.values())

    def GetBodyFromFrameId(self, frame_id):
        """The body whose SceneGraph frame is `frame_id`, or None."""
        b = self._body_of_frame_id.get(frame_id)
        return None if b is None else self._bodies[b]

    def GetBodyFrameIdIfExists(self, body_index):
        return self._geometry_frame_ids.get(int(body_index))

    def GetBodyFrameIdOrThrow(self, body_index):
        fid = self._geometry_frame_ids.get(int(body_index))
        if fid is None:
            raise RuntimeError(f"body {int(body_index)} has no SceneGraph frame; register the plant as a source first")
        return fid

    def CollectRegisteredGeometries(self, bodies):
        """A GeometrySet with every geometry registered to the given bodies."""
        if self._scene_graph is None:
            raise RuntimeError("CollectRegisteredGeometries: the plant is not registered with a SceneGraph")
        ids = []
        for b in bodies:
            ids += self.GetVisualGeometriesForBody(b) + self.GetCollisionGeometriesForBody(b)
        return GeometrySet(ids)

    def ExcludeCollisionGeometriesWithCollisionFilterGroupPair(self, collision_filter_group_a,
                                                               collision_filter_group_b) -> None:
        """Exclude collisions within one named group (same names) or between two groups."""
        self._check_scene_graph(None, "ExcludeCollisionGeometriesWithCollisionFilterGroupPair")
        (name_a, set_a), (name_b, set_b) = collision_filter_group_a, collision_filter_group_b
        decl = CollisionFilterDeclaration()
        decl.ExcludeWithin(set_a) if name_a == name_b else decl.ExcludeBetween(set_a, set_b)
        self._scene_graph.collision_filter_manager().Apply(decl)

    def _FilterAdjacentAndWeldedCollisions(self) -> None:
        """At Finalize: no collisions between bodies welded together, nor (unless
        set_adjacent_bodies_collision_filters(False)) between bodies joined by a joint whose parent is not the
        world. Mocap bodies are world welds, so they do not collide with the world either (as in MuJoCo, which
        skips pairs of dof-less bodies); joints into MJCF bodies with filterparent disabled filter nothing."""
        if self._scene_graph is None or not self._collision_geometries:
            return
        decl = CollisionFilterDeclaration()
        adjacent = self.get_adjacent_bodies_collision_filters()
        for j in self._joints if adjacent else ():
            a, b = j.parent_body(), j.child_body()
            if int(a.index()) == 0 or int(b.index()) in self._adjacent_filter_exempt:
                continue
            ga, gb = self.GetCollisionGeometriesForBody(a), self.GetCollisionGeometriesForBody(b)
            if ga and gb:
                decl.ExcludeBetween(GeometrySet(ga), GeometrySet(gb))
        done = set()
        for body in self._bodies:
            if int(body.index()) in done:
                continue
            group = self.GetBodiesWeldedTo(body)
            done |= {int(g.index()) for g in group}
            ids = [g for member in group for g in self.GetCollisionGeometriesForBody(member)]
            if len(group) > 1 and len(ids) > 1:
                decl.ExcludeWithin(GeometrySet(ids))
        self._scene_graph.collision_filter_manager().Apply(decl)

    def EvalSceneGraphInspector(self, context):
        """The SceneGraphInspector from the geometry_query input port."""
        return self.get_geometry_query_input_port().Eval(context).inspector()


def _as_transform(X):
    if X is None or hasattr(X, "GetAsMatrix4"):
        return X if X is not None else make_rigid_transform(np.eye(3), np.zeros(3))
    R, p = pose_to_arrays(X, "X_BG")
    return make_rigid_transform(R, p)
