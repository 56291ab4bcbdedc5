"""QueryObject: geometric queries on a SceneGraph context's current poses (pydrake.geometry).

It is what SceneGraph's ``query`` output port produces; it stays tied to the context it came
from and always sees that context's current poses. All queries use the proximity geometries.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry._poses import make_transform
from mallard.geometry.bounding_box import Aabb, Obb
from mallard.geometry.collision.engine import mujoco_contact_frame
from mallard.geometry.collision.point_pair import HalfSpacePointPair
from mallard.geometry.identifiers import FrameId, GeometryId, GeometryLookupError
from mallard.geometry.hydroelastic.contact_surface import MakeContactSurfaces
from mallard.geometry.hydroelastic.surface_kernels import contact_surfaces
from mallard.geometry.query_results import (ContactPointSet, HydroelasticContactRepresentation,
                                            PenetrationAsPointPair, SignedDistancePair, SignedDistanceToPoint,
                                            SortedPair)
from mallard.geometry.scene_graph_inspector import SceneGraphInspector


class _IdList(Sequence):
    """GeometryIds of contact rows (ids[index[k]]), listed on first use: the contact solver reads the row
    indices, so most steps never build the list."""

    __slots__ = ("_ids", "_index", "_list")

    def __init__(self, ids: list, index: np.ndarray):
        self._ids, self._index, self._list = ids, index, None

    def _get(self) -> list:
        if self._list is None:
            ids = self._ids
            self._list = [ids[i] for i in self._index.tolist()]
        return self._list

    def __getitem__(self, k):
        return self._get()[k]

    def __len__(self) -> int:
        return int(self._index.shape[0])

    def __iter__(self):
        return iter(self._get())

    def __eq__(self, other) -> bool:
        return self._get() == (other._get() if isinstance(other, _IdList) else other)

    def __repr__(self) -> str:
        return repr(self._get())


class QueryObject:
    """Proximity and pose queries against one SceneGraph context."""

    def __init__(self, scene_graph=None, context=None):
        self._sg = scene_graph
        self._context = context

    def _check(self):
        if self._sg is None or self._context is None:
            raise RuntimeError("This QueryObject is not attached to a SceneGraph context; get one by evaluating "
                               "SceneGraph's query output port (scene_graph.get_query_output_port().Eval(context))")

    def _poses(self):
        self._check()
        return self._sg._eval_poses(self._context)

    def inspector(self) -> SceneGraphInspector:
        """An inspector of the geometry data in this query's context."""
        self._check()
        return SceneGraphInspector(self._sg._state(self._context))

    # ----- poses -------------------------------------------------------------------------------------
    def GetPoseInWorld(self, id=None, *, frame_id: FrameId | None = None, geometry_id: GeometryId | None = None):
        """X_WF of a frame or X_WG of a geometry (``id``, or frame_id= / geometry_id=), as a RigidTransform."""
        given = [x for x in (id, frame_id, geometry_id) if x is not None]
        if len(given) != 1:
            raise TypeError("QueryObject.GetPoseInWorld: pass exactly one id (positionally, frame_id= or geometry_id=)")
        id = given[0]
        P = self._poses()
        c = P.compiled
        if isinstance(id, FrameId):
            if id not in c.frame_index:
                raise GeometryLookupError(f"GetPoseInWorld: frame {id!r} is not registered")
            r = c.frame_index[id]
            return make_transform(P.R_WF[r], P.p_WF[r])
        if isinstance(id, GeometryId):
            r = c.row(id)
            return make_transform(P.R_WG[r], P.p_WG[r])
        raise ValueError(f"GetPoseInWorld takes a FrameId or GeometryId; given {type(id).__name__}")

    def GetPoseInParent(self, frame_id: FrameId):
        """X_PF of a frame in its parent frame (as its source reported it)."""
        P = self._poses()
        c = P.compiled
        if frame_id not in c.frame_index:
            raise GeometryLookupError(f"GetPoseInParent: frame {frame_id!r} is not registered")
        r = c.frame_index[frame_id]
        par = c.frame_parent[r]
        R = P.R_WF[par].T @ P.R_WF[r]
        p = P.R_WF[par].T @ (P.p_WF[r] - P.p_WF[par])
        return make_transform(R, p)

    def _prox_poses(self):
        P = self._poses()
        c = P.compiled
        if c.proximity_is_all:  # the cached arrays themselves (the queries only read them)
            return P, c, P.R_WG, P.p_WG
        rows = c.proximity_rows
        return P, c, np.ascontiguousarray(P.R_WG[rows]), np.ascontiguousarray(P.p_WG[rows])

    # ----- penetration -------------------------------------------------------------------------------
    def ComputePointPairPenetration(self) -> list[PenetrationAsPointPair]:
        """One PenetrationAsPointPair per penetrating, unfiltered pair of proximity geometries
        (the deepest point of the pair's contact set; FCL's point for a half space against a box, capsule or
        cylinder, as Drake), sorted by (id_A, id_B)."""
        return self._point_pairs(frozenset())

    def _point_pairs(self, exclude) -> list[PenetrationAsPointPair]:
        """ComputePointPairPenetration without the pairs of proximity rows (i, j), i < j, in `exclude` (the
        hydroelastic pairs of ComputeContactSurfacesWithFallback), which are never built."""
        P, c, R, p = self._prox_poses()
        dist, pos, normal, _, g1, g2 = c.model.contacts(R, p, use_margins=False)
        best: dict[tuple, int] = {}
        for k in np.nonzero(dist < 0)[0]:
            key = (int(g1[k]), int(g2[k]))
            if exclude and (min(key), max(key)) in exclude:
                continue
            if key not in best or dist[k] < dist[best[key]]:
                best[key] = int(k)
        out = []
        ids = c.proximity_ids
        model = c.model
        for (i, j), k in best.items():
            depth = -float(dist[k])
            n = normal[k]
            on_1 = pos[k] + n * (0.5 * depth)  # geometry 1's point deepest inside 2
            on_2 = pos[k] - n * (0.5 * depth)
            fcl = HalfSpacePointPair(model.types, model.sizes, R, p, i, j)
            if fcl is not None:  # a half space and a box / capsule / cylinder: Drake's (FCL's) single point
                on_1, on_2, n, depth = fcl
            if ids[i] < ids[j]:
                out.append(PenetrationAsPointPair(ids[i], ids[j], on_1, on_2, -n.copy(), depth))
            else:
                out.append(PenetrationAsPointPair(ids[j], ids[i], on_2, on_1, n.copy(), depth))
        out.sort(key=lambda r: (r.id_A.get_value(), r.id_B.get_value()))
        return out

    def HasCollisions(self) -> bool:
        """True if any unfiltered pair of proximity geometries penetrates."""
        P, c, R, p = self._prox_poses()
        dist = c.model.contacts(R, p, use_margins=False)[0]
        return bool(np.any(dist < 0))

    def FindCollisionCandidates(self) -> list[SortedPair]:
        """Unfiltered pairs whose bounding boxes overlap (a superset of the colliding pairs)."""
        P, c, R, p = self._prox_poses()
        ids = c.proximity_ids
        return [SortedPair(ids[i], ids[j]) for i, j in c.model.candidate_pairs(R, p)]

    def ComputeContactPoints(self) -> ContactPointSet:
        """(mallard) The contact set MuJoCo generates for the proximity geometries: for every unfiltered
        pair within the sum of their "mujoco" margins (and every MuJoCo explicit pair, geometry/mujoco_pairs.py, within
        its own margin + gap whatever the filters), up to 8+ points (box-box), 4 (box/cylinder on
        a plane), 2 (capsule on plane, parallel capsules) or 1, with MuJoCo's distance, position and
        contact frame. This is the entry point for the contact solver."""
        P, c, R, p = self._prox_poses()
        m = c.model
        ids = c.proximity_ids
        got = m.contact_points(R, p, c.gaps)
        if got is not None:  # one compiled call (no SDF geometries)
            dist, pos, frame, g1, g2, margin, gap = got
            return ContactPointSet(id_1=_IdList(ids, g1), id_2=_IdList(ids, g2), index_1=g1, index_2=g2, dist=dist,
                                   pos_W=pos, frame_W=frame, margin=margin, gap=gap)
        dist, pos, normal, tangent, g1, g2 = m.contacts(R, p, use_margins=True)
        frame = mujoco_contact_frame(normal, tangent) if len(dist) else np.zeros((0, 3, 3))
        margin, gap = m.margins[g1] + m.margins[g2], c.gaps[g1] + c.gaps[g2]
        if m.forced is not None:  # explicit (MuJoCo) pairs: their own margins and gaps, after the dynamic ones
            fd, fp, ff, f1, f2, fm, fg = m.forced_contact_points(R, p)
            dist, pos, frame = np.concatenate([dist, fd]), np.concatenate([pos, fp]), np.concatenate([frame, ff])
            g1, g2 = np.concatenate([g1, f1]), np.concatenate([g2, f2])
            margin, gap = np.concatenate([margin, fm]), np.concatenate([gap, fg])
        return ContactPointSet(id_1=[ids[i] for i in g1.tolist()], id_2=[ids[j] for j in g2.tolist()],
                               index_1=g1, index_2=g2, dist=dist, pos_W=pos, frame_W=frame, margin=margin, gap=gap)

    # ----- signed distance ---------------------------------------------------------------------------
    def _signed_pairs(self, c, R, p, pairs, rows, order_by_id=True) -> list[SignedDistancePair]:
        ids = c.proximity_ids
        out = []
        for q, (i, j) in enumerate(pairs):
            d, pa, pb, n = rows[q, 0], rows[q, 1:4], rows[q, 4:7], rows[q, 7:10]
            if order_by_id and ids[j] < ids[i]:
                i, j, pa, pb, n = j, i, pb, pa, -n
            p_ACa = R[i].T @ (pa - p[i])
            p_BCb = R[j].T @ (pb - p[j])
            # n points from A to B; Drake's nhat_BA_W points from B to A
            out.append(SignedDistancePair(ids[i], ids[j], p_ACa, p_BCb, float(d), -n.copy()))
        return out

    def ComputeSignedDistancePairwiseClosestPoints(self, max_distance: float = math.inf) -> list[SignedDistancePair]:
        """Signed distance and witness points of every unfiltered proximity pair whose distance is at
        most ``max_distance`` (m), sorted by (id_A, id_B)."""
        if math.isnan(max_distance):
            raise ValueError("max_distance must not be NaN")
        P, c, R, p = self._prox_poses()
        m = c.model
        if math.isinf(max_distance):
            pairs = m.all_pairs()
        else:
            pairs = m.candidate_pairs(R, p, max(0.5 * max_distance, 0.0) + 1e-12)
        rows = m.pair_distances(R, p, pairs)
        keep = rows[:, 0] <= max_distance
        out = self._signed_pairs(c, R, p, pairs[keep], rows[keep])
        out.sort(key=lambda r: (r.id_A.get_value(), r.id_B.get_value()))
        return out

    def ComputeSignedDistancePairClosestPoints(self, geometry_id_A: GeometryId,
                                               geometry_id_B: GeometryId) -> SignedDistancePair:
        """Signed distance and witness points of one pair (ids kept in the order given)."""
        P, c, R, p = self._prox_poses()
        st = self._sg._state(self._context)
        for g in (geometry_id_A, geometry_id_B):
            if st.geometry(g).proximity is None:
                raise RuntimeError(f"ComputeSignedDistancePairClosestPoints: geometry '{st.geometries[g].name}' has "
                                   "no proximity role")
        if st.collision_filtered(geometry_id_A, geometry_id_B):
            raise RuntimeError(f"ComputeSignedDistancePairClosestPoints: the pair ('{st.geometries[geometry_id_A].name}'"
                               f", '{st.geometries[geometry_id_B].name}') is filtered")
        i, j = c.proximity_index[geometry_id_A], c.proximity_index[geometry_id_B]
        from mallard.geometry.shapes import PLANE
        if c.model.types[i] == PLANE and c.model.types[j] == PLANE:
            raise RuntimeError("ComputeSignedDistancePairClosestPoints: distance between two half spaces is undefined")
        pairs = np.array([[i, j]], np.int64)
        rows = c.model.pair_distances(R, p, pairs)
        return self._signed_pairs(c, R, p, pairs, rows, order_by_id=False)[0]

    def ComputeSignedDistanceToPoint(self, p_WQ, threshold: float = math.inf) -> list[SignedDistanceToPoint]:
        """Signed distance from point Q (World, m) to every proximity geometry within ``threshold``."""
        q = np.asarray(p_WQ, dtype=float).reshape(-1)
        if q.size != 3 or not np.all(np.isfinite(q)):
            raise ValueError(f"ComputeSignedDistanceToPoint: p_WQ must be 3 finite numbers; given {q.tolist()}")
        P, c, R, p = self._prox_poses()
        m = c.model
        from mallard.geometry.shapes import HFIELD
        idx = np.nonzero(m.types != HFIELD)[0]
        rows = m.point_distances(R, p, q, idx)
        out = []
        for k, g in enumerate(idx):
            if rows[k, 0] <= threshold:
                p_GN = R[g].T @ (rows[k, 1:4] - p[g])
                out.append(SignedDistanceToPoint(c.proximity_ids[g], p_GN, float(rows[k, 0]), rows[k, 4:7].copy()))
        return out

    # ----- bounding boxes ----------------------------------------------------------------------------
    def ComputeAabbInWorld(self, geometry_id: GeometryId) -> Aabb | None:
        """As Drake, only deformable geometries have a world Aabb; mallard has none, so this is None for every
        registered geometry (RuntimeError for an unknown id)."""
        self._check()
        self._sg._state(self._context).geometry(geometry_id)
        return None

    def ComputeObbInWorld(self, geometry_id: GeometryId) -> Obb | None:
        """The geometry's oriented bounding box posed in World (None for a half space)."""
        obb = self.inspector().GetObbInGeometryFrame(geometry_id)
        if obb is None:
            return None
        return Obb(self.GetPoseInWorld(geometry_id) @ obb.pose(), obb.half_width())

    def GetConfigurationsInWorld(self, deformable_geometry_id: GeometryId) -> np.ndarray:
        """Vertex positions of a deformable geometry; mallard has no deformable geometries, so every id is
        rejected with a RuntimeError."""
        self._check()
        name = self._sg._state(self._context).geometry(deformable_geometry_id).name
        raise RuntimeError(f"GetConfigurationsInWorld: geometry '{name}' is not deformable (mallard has no deformable "
                           "geometries)")

    # ----- hydroelastic contact ----------------------------------------------------------------------
    def _surfaces(self, representation, who: str, fallback: bool):
        """(contact surfaces, point pairs of the other penetrating pairs). Without fallback, a penetrating pair that
        cannot have a surface (no representation, two rigid geometries, a compliant half space against a compliant
        mesh) raises (Drake raises for such a pair as soon as its bounding boxes overlap)."""
        triangles = HydroelasticContactRepresentation(representation) == HydroelasticContactRepresentation.kTriangle
        out, points = self._surface_arrays(triangles, who, fallback)
        return MakeContactSurfaces(out, self._prox_poses()[1].proximity_ids, triangles), points

    def _surface_arrays(self, triangles: bool, who: str, fallback: bool):
        """(contact_surfaces()'s arrays (surface_kernels.py; surfaces' rows index proximity_ids), point pairs of the
        other penetrating pairs): _surfaces without building ContactSurface objects (the plant's force path)."""
        P, c, R, p = self._prox_poses()
        h = c.hydroelastic()
        out = contact_surfaces(h.pairs, h.gid, R, p, h.arrays(), triangles)
        hydro = h.pair_set()
        index = c.proximity_index
        points = self._point_pairs(hydro)
        if not fallback and points:
            st = self._sg._state(self._context)
            i, j = sorted((index[points[0].id_A], index[points[0].id_B]))
            raise RuntimeError(_unsupported_pair(who, st, c.proximity_ids[i], c.proximity_ids[j], h, i, j))
        return out, points

    def ComputeContactSurfaces(self, representation: HydroelasticContactRepresentation) -> list:
        """The hydroelastic contact surfaces (ContactSurface, World) of the pairs where a compliant geometry meets a
        rigid or compliant one, ordered by (id_M, id_N); RuntimeError when a penetrating pair cannot have one (see
        ComputeContactSurfacesWithFallback)."""
        return self._surfaces(representation, "ComputeContactSurfaces", fallback=False)[0]

    def ComputeContactSurfacesWithFallback(self, representation: HydroelasticContactRepresentation):
        """(surfaces, point pairs): hydroelastic contact surfaces where both geometries have a representation and
        one is compliant; PenetrationAsPointPair for the other penetrating pairs."""
        return self._surfaces(representation, "ComputeContactSurfacesWithFallback", fallback=True)


def _unsupported_pair(who: str, st, id_a, id_b, h, i: int, j: int) -> str:
    """Drake's words for a pair that cannot have a contact surface."""
    names = f"'{st.geometries[id_a].name}' (id {id_a.get_value()}) and '{st.geometries[id_b].name}' " \
            f"(id {id_b.get_value()})"
    if not h.has_representation(i) or not h.has_representation(j):
        why = "one of them has no hydroelastic representation"
    elif not h.is_soft(i) and not h.is_soft(j):
        why = "both are rigid"
    else:
        why = "a compliant half space cannot touch a compliant mesh, and two half spaces cannot touch"
    return (f"{who}: requested a contact surface between {names}, but {why}; use a fallback, e.g. "
            "QueryObject.ComputeContactSurfacesWithFallback() or MultibodyPlant.set_contact_model("
            "ContactModel.kHydroelasticWithFallback)")


QueryObject_ = ScalarTemplate("QueryObject_", QueryObject)
