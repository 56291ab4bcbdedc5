"""SceneGraphInspector: read-only view of SceneGraph's registered sources, frames and geometries
(pydrake.geometry). Get it from ``scene_graph.model_inspector()`` or ``query_object.inspector()``."""
from __future__ import annotations

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry._poses import make_transform
from mallard.geometry.bounding_box import Obb
from mallard.geometry.collision_filter import GeometrySet
from mallard.geometry.geometry_instance import GeometryInstance
from mallard.geometry.geometry_state import GeometryState, GeometryVersion, world_frame_id
from mallard.geometry.hydroelastic.representation import HydroelasticMesh
from mallard.geometry.identifiers import FrameId, GeometryId, GeometryLookupError, SourceId
from mallard.geometry.mesh_shapes import Convex, Mesh
from mallard.geometry.obb_maker import CalcObb, ObbFromPoints
from mallard.geometry.properties import Role
from mallard.geometry.query_results import SortedPair


class SceneGraphInspector:
    """Read-only queries on a GeometryState."""

    def __init__(self, state: GeometryState):
        self._state = state

    # ----- counts and ids ------------------------------------------------------------------------------
    def num_sources(self) -> int:
        """Registered sources, including SceneGraph's own (as Drake counts)."""
        return len(self._state.sources)

    def num_frames(self) -> int:
        """Registered frames, including the world frame."""
        return len(self._state.frames)

    def num_geometries(self) -> int:
        return len(self._state.geometries)

    def world_frame_id(self) -> FrameId:
        return world_frame_id()

    def GetAllSourceIds(self) -> list[SourceId]:
        return list(self._state.sources)

    def GetAllFrameIds(self) -> list[FrameId]:
        return list(self._state.frames)

    def GetAllGeometryIds(self, role: Role | None = None) -> list[GeometryId]:
        """All geometry ids (with the given role if one is given), in registration order."""
        return [g for g in self._state.geometries if self._state.has_role(g, role)]

    def GetGeometryIds(self, geometry_set: GeometrySet, role: Role | None = None) -> set[GeometryId]:
        """The geometries named by ``geometry_set`` (frames expanded) that have ``role``."""
        return {g for g in self._state.expand_set(geometry_set) if self._state.has_role(g, role)}

    def NumGeometriesWithRole(self, role: Role) -> int:
        return sum(1 for g in self._state.geometries if self._state.has_role(g, role))

    def NumDynamicGeometries(self) -> int:
        return sum(1 for g in self._state.geometries if not self._state.is_anchored(g))

    def NumAnchoredGeometries(self) -> int:
        return sum(1 for g in self._state.geometries if self._state.is_anchored(g))

    def GetCollisionCandidates(self) -> set:
        """Every unfiltered pair of proximity geometries, as SortedPairs."""
        st = self._state
        prox = [g for g in st.geometries if st.geometries[g].proximity is not None]
        out = set()
        for a in range(len(prox)):
            for b in range(a + 1, len(prox)):
                if not st.collision_filtered(prox[a], prox[b]):
                    out.add(SortedPair(prox[a], prox[b]))
        return out

    # ----- sources -------------------------------------------------------------------------------------
    def SourceIsRegistered(self, source_id: SourceId) -> bool:
        return source_id in self._state.sources

    def GetName(self, id=None, *, source_id: SourceId | None = None, frame_id: FrameId | None = None,
                geometry_id: GeometryId | None = None) -> str:
        """The name of a source, frame or geometry: GetName(id), or by keyword source_id=, frame_id=,
        geometry_id=."""
        id = _one_id("GetName", id, source_id=source_id, frame_id=frame_id, geometry_id=geometry_id)
        if isinstance(id, SourceId):
            return self._state.source(id)
        if isinstance(id, FrameId):
            return self._state.frame(id).name
        if isinstance(id, GeometryId):
            return self._state.geometry(id).name
        raise ValueError(f"GetName takes a SourceId, FrameId or GeometryId; given {type(id).__name__}")

    def FramesForSource(self, source_id: SourceId) -> set[FrameId]:
        self._state.source(source_id)
        return set(self._state.source_frames[source_id])

    def NumFramesForSource(self, source_id: SourceId) -> int:
        return len(self.FramesForSource(source_id))

    def BelongsToSource(self, id=None, source_id: SourceId | None = None, *, frame_id: FrameId | None = None,
                        geometry_id: GeometryId | None = None) -> bool:
        """Whether the frame or geometry (``id``, or frame_id= / geometry_id=) belongs to ``source_id``."""
        id = _one_id("BelongsToSource", id, frame_id=frame_id, geometry_id=geometry_id)
        self._state.source(source_id)
        if isinstance(id, FrameId):
            return self._state.frame(id).source == source_id
        return self._state.geometry(id).source == source_id

    def GetOwningSourceName(self, id=None, *, frame_id: FrameId | None = None,
                            geometry_id: GeometryId | None = None) -> str:
        """The name of the source that registered the frame or geometry (``id``, frame_id= or geometry_id=)."""
        id = _one_id("GetOwningSourceName", id, frame_id=frame_id, geometry_id=geometry_id)
        rec = self._state.frame(id) if isinstance(id, FrameId) else self._state.geometry(id)
        return self._state.sources[rec.source]

    # ----- frames --------------------------------------------------------------------------------------
    def GetParentFrame(self, frame_id: FrameId) -> FrameId:
        return self._state.frame(frame_id).parent

    def GetFrameGroup(self, frame_id: FrameId) -> int:
        return self._state.frame(frame_id).group

    def NumGeometriesForFrame(self, frame_id: FrameId) -> int:
        return len(self._state.frame(frame_id).geometries)

    def NumGeometriesForFrameWithRole(self, frame_id: FrameId, role: Role) -> int:
        return sum(1 for g in self._state.frame(frame_id).geometries if self._state.has_role(g, role))

    def GetGeometries(self, frame_id: FrameId, role: Role | None = None) -> list[GeometryId]:
        """Geometries attached to ``frame_id`` (with ``role`` if given), in registration order."""
        return [g for g in self._state.frame(frame_id).geometries if self._state.has_role(g, role)]

    def GetGeometryIdByName(self, frame_id: FrameId, role: Role, name: str) -> GeometryId:
        """The geometry on ``frame_id`` with ``role`` named ``name``."""
        names = []
        for g in self._state.frame(frame_id).geometries:
            if self._state.has_role(g, role):
                names.append(self._state.geometries[g].name)
                if self._state.geometries[g].name == name:
                    return g
        raise GeometryLookupError(f"GetGeometryIdByName: frame '{self._state.frames[frame_id].name}' has no geometry "
                                  f"named '{name}' with role {role.name}; it has: {sorted(names)}")

    # ----- geometries ----------------------------------------------------------------------------------
    def GetFrameId(self, geometry_id: GeometryId) -> FrameId:
        return self._state.geometry(geometry_id).frame

    def GetShape(self, geometry_id: GeometryId):
        return self._state.geometry(geometry_id).shape

    def GetPoseInFrame(self, geometry_id: GeometryId):
        """X_FG: the geometry's pose in the frame it is attached to."""
        rec = self._state.geometry(geometry_id)
        return make_transform(rec.R_FG, rec.p_FG)

    def GetProperties(self, geometry_id: GeometryId, role: Role):
        return self._state.properties(geometry_id, role)

    def GetProximityProperties(self, geometry_id: GeometryId):
        """The geometry's ProximityProperties, or None if it has no proximity role."""
        return self._state.properties(geometry_id, Role.kProximity)

    def GetIllustrationProperties(self, geometry_id: GeometryId):
        return self._state.properties(geometry_id, Role.kIllustration)

    def GetPerceptionProperties(self, geometry_id: GeometryId):
        return self._state.properties(geometry_id, Role.kPerception)

    def IsDeformableGeometry(self, geometry_id: GeometryId) -> bool:
        self._state.geometry(geometry_id)
        return False

    def CollisionFiltered(self, geometry_id1: GeometryId, geometry_id2: GeometryId) -> bool:
        """True if the pair can never be reported in contact (same frame, excluded, masks, or either
        lacks the proximity role)."""
        st = self._state
        a, b = st.geometry(geometry_id1), st.geometry(geometry_id2)
        if a.proximity is None or b.proximity is None:
            raise RuntimeError(f"CollisionFiltered: both geometries need the proximity role ('{a.name}', '{b.name}')")
        return st.collision_filtered(geometry_id1, geometry_id2)

    def CloneGeometryInstance(self, geometry_id: GeometryId) -> GeometryInstance:
        """A new GeometryInstance (new id) with the geometry's shape, pose in frame, name and properties."""
        rec = self._state.geometry(geometry_id)
        inst = GeometryInstance(make_transform(rec.R_FG, rec.p_FG), rec.shape.Clone(), rec.name)
        if rec.proximity is not None:
            inst.set_proximity_properties(rec.proximity)
        if rec.illustration is not None:
            inst.set_illustration_properties(rec.illustration)
        if rec.perception is not None:
            inst.set_perception_properties(rec.perception)
        return inst

    def GetConvexHull(self, geometry_id: GeometryId):
        """The convex hull (PolygonSurfaceMesh) of a Mesh or Convex geometry, None for other shapes."""
        shape = self._state.geometry(geometry_id).shape
        return shape.GetConvexHull() if isinstance(shape, (Mesh, Convex)) else None

    def maybe_get_hydroelastic_mesh(self, geometry_id: GeometryId):
        """The mesh representing the geometry in hydroelastic contact (in its frame G): a VolumeMesh for a compliant
        geometry, a TriangleSurfaceMesh for a rigid one, None for a half space or without hydroelastic properties."""
        rec = self._state.geometry(geometry_id)
        return HydroelasticMesh(rec.shape, rec.proximity, rec.name)

    def GetObbInGeometryFrame(self, geometry_id: GeometryId) -> Obb | None:
        """The oriented bounding box of the geometry in its frame G (fitted to all vertices of a Mesh),
        None for a half space."""
        shape = self._state.geometry(geometry_id).shape
        if isinstance(shape, Mesh):
            return ObbFromPoints(shape._mesh_arrays()[0])
        return CalcObb(shape)

    def geometry_version(self) -> GeometryVersion:
        """The revision of the geometry data, per role."""
        return self._state.geometry_version

    # ----- deformable geometries: mallard has none ------------------------------------------------------
    def NumDeformableGeometriesWithRole(self, role: Role) -> int:
        """0: mallard has no deformable geometries."""
        return 0

    def GetAllDeformableGeometryIds(self) -> list[GeometryId]:
        """[]: mallard has no deformable geometries."""
        return []


def _one_id(who: str, id, **named):
    """The one id given positionally or by one of pydrake's keywords."""
    given = [v for v in named.values() if v is not None]
    if (id is not None) + len(given) != 1:
        raise TypeError(f"SceneGraphInspector.{who}: pass exactly one id (positionally or as "
                        f"{' / '.join(k + '=' for k in named)})")
    return id if id is not None else given[0]


SceneGraphInspector_ = ScalarTemplate("SceneGraphInspector_", SceneGraphInspector)
