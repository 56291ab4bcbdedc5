"""CompiledScene: a GeometryState flattened into arrays — frame order, geometry poses in their
frames, and the proximity geometries as a CollisionModel — plus world-pose evaluation."""
from __future__ import annotations

import numpy as np
from numba import njit

from mallard.geometry import shapes as S
from mallard.geometry.collision.engine import CollisionModel
from mallard.geometry.collision.hull_polygons import hull_polygons
from mallard.geometry.collision.mesh_graph import MeshGraph
from mallard.geometry.hydroelastic.representation import HydroelasticScene
from mallard.geometry.identifiers import GeometryLookupError
from mallard.geometry.mujoco_pairs import GetMujocoExplicitPairs
from mallard.geometry.properties import MUJOCO_GROUP, GetMujocoContactParameters


def _hull_data(shape, properties=None):
    """(hull vertices (m, 3), facet planes (f, 4) [n, h], packed hull faces (collision/hull_polygons.py), hull
    graph (collision/mesh_graph.py)) of
    a Mesh/Convex in its frame G. The faces are the ("mujoco", "hull_faces") proximity property when it is
    given over exactly the shape's points and they all lie on the hull (an MJCF mesh: MuJoCo's faces, built in
    the mesh file's frame), else MuJoCo's rule applied in frame G. When this frame's hull drops some of those
    points (nearly coplanar after the move to frame G and the rounding to single precision), the hull is the
    points with the ("mujoco", "hull_triangles") property, MuJoCo's triangles."""
    v, t = shape._hull_arrays()
    faces = None if properties is None else properties.GetPropertyOrDefault(MUJOCO_GROUP, "hull_faces", None)
    tris = None if properties is None else properties.GetPropertyOrDefault(MUJOCO_GROUP, "hull_triangles", None)
    points = shape._mesh_arrays()[0]
    if faces is not None and tris is not None and len(v) != len(points) and int(faces[1]) == len(points):
        # MuJoCo's hull keeps nearly coplanar points this frame's hull drops: its own triangles over every point
        # (else the faces, built over all of them, would be thrown away below and their normals recomputed)
        v, t = np.asarray(points, float), np.asarray(tris, np.int64).reshape(-1, 3)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    n = np.cross(b - a, c - a)
    ln = np.linalg.norm(n, axis=1)
    ok = ln > 1e-14 * max(1.0, float(np.abs(v).max()))
    n = n[ok] / ln[ok, None]
    h = np.einsum("ij,ij->i", n, a[ok])
    if faces is None or int(faces[1]) != len(v) or len(v) != len(shape._mesh_arrays()[0]):
        faces = hull_polygons(v, t)
    return v, np.column_stack([n, h]), faces, MeshGraph(v, t)


@njit(cache=True)
def _compose_frames(frame_parent, R_PF, p_PF, R_WF, p_WF):
    """X_WF = X_WP X_PF for frames 1.. in breadth-first order (parents first); frame 0 is the world."""
    for r in range(1, frame_parent.shape[0]):
        a = frame_parent[r]
        for i in range(3):
            for k in range(3):
                R_WF[r, i, k] = R_WF[a, i, 0] * R_PF[r, 0, k] + R_WF[a, i, 1] * R_PF[r, 1, k] + \
                    R_WF[a, i, 2] * R_PF[r, 2, k]
            p_WF[r, i] = R_WF[a, i, 0] * p_PF[r, 0] + R_WF[a, i, 1] * p_PF[r, 1] + R_WF[a, i, 2] * p_PF[r, 2] + \
                p_WF[a, i]


@njit(cache=True)
def _world_from_block(frame_parent, dst, src, R_blk, p_blk):
    """(R_WF, p_WF) of all frames when one pose block gives every frame's pose in its parent: frame dst[k]
    takes block entry src[k], frame 0 is the world."""
    nf = frame_parent.shape[0]
    R_PF = np.empty((nf, 3, 3))
    p_PF = np.empty((nf, 3))
    for k in range(dst.shape[0]):
        d, s = dst[k], src[k]
        for i in range(3):
            p_PF[d, i] = p_blk[s, i]
            for j in range(3):
                R_PF[d, i, j] = R_blk[s, i, j]
    R_WF = np.empty((nf, 3, 3))
    p_WF = np.zeros((nf, 3))
    for i in range(3):
        for j in range(3):
            R_WF[0, i, j] = 1.0 if i == j else 0.0
    _compose_frames(frame_parent, R_PF, p_PF, R_WF, p_WF)
    return R_WF, p_WF


@njit(cache=True)
def compose_poses(geom_frame, R_FG, p_FG, R_WF, p_WF):
    """X_WG = X_WF X_FG for every geometry G on frame geom_frame[G] (R_WG (ng, 3, 3), p_WG (ng, 3))."""
    ng = geom_frame.shape[0]
    R_WG = np.empty((ng, 3, 3))
    p_WG = np.empty((ng, 3))
    compose_poses_into(geom_frame, R_FG, p_FG, R_WF, p_WF, R_WG, p_WG)
    return R_WG, p_WG


@njit(cache=True)
def compose_poses_into(geom_frame, R_FG, p_FG, R_WF, p_WF, R_WG, p_WG):
    """compose_poses into R_WG (ng, 3, 3), p_WG (ng, 3)."""
    for g in range(geom_frame.shape[0]):
        f = geom_frame[g]
        for i in range(3):
            for k in range(3):
                R_WG[g, i, k] = R_WF[f, i, 0] * R_FG[g, 0, k] + R_WF[f, i, 1] * R_FG[g, 1, k] + \
                    R_WF[f, i, 2] * R_FG[g, 2, k]
            p_WG[g, i] = R_WF[f, i, 0] * p_FG[g, 0] + R_WF[f, i, 1] * p_FG[g, 1] + R_WF[f, i, 2] * p_FG[g, 2] + \
                p_WF[f, i]


class CompiledScene:
    """Arrays for one version of a GeometryState."""

    def __init__(self, state):
        self.frame_ids = state.frame_order()
        self.frame_index = {fid: k for k, fid in enumerate(self.frame_ids)}
        self.frame_parent = np.array([self.frame_index[state.frames[f].parent] for f in self.frame_ids], np.int64)
        # frames grouped by depth below the world (frame_ids is in breadth-first order)
        depth = np.zeros(len(self.frame_ids), np.int64)
        for r in range(1, len(self.frame_ids)):
            depth[r] = depth[self.frame_parent[r]] + 1
        self.frame_levels = [np.nonzero(depth == d)[0] for d in range(1, int(depth.max()) + 1)] if len(depth) > 1 \
            else []
        # frames each source must report poses for
        self.source_frames = {sid: [self.frame_index[f] for f in fl] for sid, fl in state.source_frames.items()}
        self.geometry_ids = list(state.geometries)
        self.geometry_index = {gid: k for k, gid in enumerate(self.geometry_ids)}
        ng = len(self.geometry_ids)
        self.geom_frame = np.array([self.frame_index[state.geometries[g].frame] for g in self.geometry_ids], np.int64)
        self.R_FG = np.array([state.geometries[g].R_FG for g in self.geometry_ids]).reshape(ng, 3, 3)
        self.p_FG = np.array([state.geometries[g].p_FG for g in self.geometry_ids]).reshape(ng, 3)
        self._gathers: dict = {}  # source -> (block ids, frame rows, block positions) for frame_poses
        # (source, its frame rows) when that one source registered every non-world frame (e.g. only a plant)
        with_frames = [(sid, rows) for sid, rows in self.source_frames.items() if rows]
        self._single_source = None
        if len(with_frames) == 1 and sorted(with_frames[0][1]) == list(range(1, len(self.frame_ids))) \
                and self.frame_parent.shape[0] == len(self.frame_ids):
            self._single_source = with_frames[0]

        prox = [g for g in self.geometry_ids if state.geometries[g].proximity is not None]
        self.proximity_ids = prox
        self.proximity_rows = np.array([self.geometry_index[g] for g in prox], np.int64)
        # every geometry is a proximity geometry, in order: queries read the pose arrays without a gather
        self.proximity_is_all = bool(np.array_equal(self.proximity_rows, np.arange(len(self.geometry_ids))))
        self.proximity_index = {g: k for k, g in enumerate(prox)}
        n = len(prox)
        types = np.zeros(n, np.int64)
        sizes = np.zeros((n, 3))
        margins = np.zeros(n)
        gaps = np.zeros(n)
        contype = np.ones(n, np.int64)
        conaff = np.ones(n, np.int64)
        verts, planes = [], []
        vadr = np.zeros(n, np.int64)
        vnum = np.zeros(n, np.int64)
        padr = np.zeros(n, np.int64)
        pnum = np.zeros(n, np.int64)
        nv = npl = 0
        sdf = {}
        faces = {}
        graphs = {}
        for k, gid in enumerate(prox):
            rec = state.geometries[gid]
            types[k] = rec.shape._kernel_type()
            sizes[k] = rec.shape._kernel_size()
            mj = GetMujocoContactParameters(rec.proximity)
            margins[k], gaps[k], contype[k], conaff[k] = mj.margin, mj.gap, mj.contype, mj.conaffinity
            if rec.shape._kernel_type() == 8:  # SignedDistanceField (geometry/sdf_shape.py)
                sdf[k] = rec.shape
            if isinstance(rec.shape, (S.Mesh, S.Convex)):
                v, pl, faces[k], graphs[k] = _hull_data(rec.shape, rec.proximity)
                verts.append(v)
                planes.append(pl)
                vadr[k], vnum[k], padr[k], pnum[k] = nv, len(v), npl, len(pl)
                nv += len(v)
                npl += len(pl)
        excluded = []
        for pair in state.excluded:
            a, b = tuple(pair)
            if a in self.proximity_index and b in self.proximity_index:
                i, j = sorted((self.proximity_index[a], self.proximity_index[b]))
                excluded.append(i * n + j)
        self.gaps = gaps
        self.model = CollisionModel(
            types, sizes, self.geom_frame[self.proximity_rows] if n else np.zeros(0, np.int64),
            np.concatenate(verts) if verts else np.zeros((0, 3)), vadr, vnum,
            np.concatenate(planes) if planes else np.zeros((0, 4)), padr, pnum, margins, contype, conaff, excluded)
        self.model.sdf = sdf
        self.model.set_hull_faces(faces)
        self.model.set_mesh_graphs(graphs)
        hfields = {k: state.geometries[g].shape for k, g in enumerate(prox)
                   if isinstance(state.geometries[g].shape, S.HeightField)}
        if hfields:
            self.model.set_height_fields(hfields)
        self._set_explicit_pairs(state, prox)
        self._hydro_state = state
        self._hydro = None

    def hydroelastic(self) -> HydroelasticScene:
        """The hydroelastic representations of the proximity geometries (meshes and pressure fields), built on the
        first call (geometry/hydroelastic/representation.py)."""
        if self._hydro is None:
            st, prox = self._hydro_state, self.proximity_ids
            recs = [st.geometries[g] for g in prox]
            self._hydro = HydroelasticScene([r.shape for r in recs], [r.proximity for r in recs],
                                            [r.name for r in recs],
                                            lambda i, j: st.collision_filtered(prox[i], prox[j]),
                                            np.array([g.get_value() for g in prox], np.int64))
        return self._hydro

    def _set_explicit_pairs(self, state, prox) -> None:
        """MuJoCo explicit pairs (geometry/mujoco_pairs.py) between proximity geometries, in pair order, as the
        collision model's forced pairs."""
        found = []
        for k, gid in enumerate(prox):
            for pair in GetMujocoExplicitPairs(state.geometries[gid].proximity):
                j = self.proximity_index.get(pair.partner)
                if j is None:
                    raise ValueError(f"geometry '{state.geometries[gid].name}': its explicit contact pair names "
                                     f"geometry {pair.partner!r}, which is not a proximity geometry of this scene")
                if j == k:
                    raise ValueError(f"geometry '{state.geometries[gid].name}': an explicit contact pair needs two "
                                     "different geometries")
                found.append((pair.order, len(found), k, j, pair.margin, pair.gap))
        if found:
            found.sort()
            self.model.set_forced_pairs(np.array([[f[2], f[3]] for f in found], np.int64),
                                        np.array([f[4] for f in found]), np.array([f[5] for f in found]))

    def _missing_pose(self, sid, fid, source_names):
        return RuntimeError(f"SceneGraph: source '{source_names[sid]}' provided no pose for its frame "
                            f"{fid!r} (its '{source_names[sid]}_pose' FramePoseVector must hold a pose for "
                            "every frame the source registered)")

    def _block_gather(self, sid, rows, ids, source_names):
        """(frame rows, positions in the block) for a source whose poses are one SetFromArrays block."""
        got = self._gathers.get(sid)
        if got is not None and got[0] == ids:
            return got[1], got[2]
        pos = {fid: k for k, fid in enumerate(ids)}
        src = []
        for r in rows:
            fid = self.frame_ids[r]
            if fid not in pos:
                raise self._missing_pose(sid, fid, source_names)
            src.append(pos[fid])
        got = (list(ids), np.asarray(rows, np.int64), np.asarray(src, np.int64))
        self._gathers[sid] = got
        return got[1], got[2]

    def frame_poses(self, pose_vectors: dict, source_names: dict):
        """World poses (R_WF (nf, 3, 3), p_WF (nf, 3)) of all frames from the sources' FramePoseVectors
        (poses relative to each frame's parent). ``pose_vectors`` maps SourceId -> FramePoseVector."""
        nf = len(self.frame_ids)
        single = self._single_source
        if single is not None and len(pose_vectors) == 1:  # one source owns every frame: one compiled call
            fpv = pose_vectors.get(single[0])
            block = fpv._Block() if fpv is not None else None
            if block is not None and block[1].dtype == np.float64 and block[2].dtype == np.float64:
                dst, src = self._block_gather(single[0], single[1], block[0], source_names)
                return _world_from_block(self.frame_parent, dst, src, np.ascontiguousarray(block[1]),
                                         np.ascontiguousarray(block[2]))
        R_PF = np.empty((nf, 3, 3))
        p_PF = np.empty((nf, 3))
        R_PF[0] = np.eye(3)
        p_PF[0] = 0.0
        for sid, rows in self.source_frames.items():
            if not rows:
                continue
            fpv = pose_vectors.get(sid)
            block = fpv._Block() if fpv is not None else None
            if block is not None:
                dst, src = self._block_gather(sid, rows, block[0], source_names)
                R_PF[dst] = block[1][src]
                p_PF[dst] = block[2][src]
                continue
            for r in rows:
                fid = self.frame_ids[r]
                if fpv is None or not fpv.has_id(fid):
                    raise self._missing_pose(sid, fid, source_names)
                R_PF[r], p_PF[r] = fpv._Rp(fid)
        R_WF = np.empty_like(R_PF)
        p_WF = np.empty_like(p_PF)
        R_WF[0] = R_PF[0]
        p_WF[0] = p_PF[0]
        _compose_frames(self.frame_parent, R_PF, p_PF, R_WF, p_WF)
        return R_WF, p_WF

    def geometry_poses(self, R_WF, p_WF):
        """World poses (R_WG (ng, 3, 3), p_WG (ng, 3)) of all geometries."""
        return compose_poses(self.geom_frame, np.ascontiguousarray(self.R_FG), np.ascontiguousarray(self.p_FG),
                               R_WF, p_WF)

    def row(self, gid) -> int:
        try:
            return self.geometry_index[gid]
        except KeyError:
            raise GeometryLookupError(f"Referenced geometry {gid!r} has not been registered") from None
