"""Batch collision over arrays: the narrow phase over candidate pairs and the queries built on it.

``CollisionModel`` holds the static description of the proximity geometries (types, sizes,
convex-hull vertices and facet planes, margins, masks, frames, exclusions); its methods take the
world poses (R_WG (n, 3, 3), p_WG (n, 3)) and return plain arrays. The Python layer above
(QueryObject) turns them into pydrake result objects.
"""
from __future__ import annotations


import numpy as np
from numba import njit

from mallard.geometry.collision.broadphase import (broad_phase, compute_aabbs, filter_pairs, hull_aabbs, local_boxes,
                                                   plane_pairs, sweep_and_prune)
from mallard.geometry.collision.hfield import pack_height_field
from mallard.geometry.collision.mesh_graph import PackMeshGraphs
from mallard.geometry.collision.narrowphase import (HFIELD, MAXCON, MAXCON_HFIELD, MESH, collide_g, has_collider,
                                                    point_distance, signed_distance)
from mallard.geometry.collision.pair_list import LIST_MAX, bounding_radii, listed_pairs, sphere_filter, static_pairs


@njit(cache=True, error_model="numpy")
def _narrowphase(pairs, start, types, sizes, R, p, verts, vadr, vnum, margins, out, og1, og2, faces, fadr, graph, gadr,
                 radii):
    """Contacts of pairs[start:] into out/og1/og2 (MuJoCo order: lower type first). Stops before a
    pair that might not fit; returns (contacts written, next pair)."""
    cap = out.shape[0]
    k = 0
    q = start
    while q < pairs.shape[0]:
        i = pairs[q, 0]
        j = pairs[q, 1]
        if k + (MAXCON_HFIELD if types[i] == HFIELD or types[j] == HFIELD else MAXCON) > cap:
            break
        if types[i] > types[j]:
            i, j = j, i
        if has_collider(types[i], types[j]):
            margin = margins[i] + margins[j]
            vi = verts[vadr[i]:vadr[i] + vnum[i]]  # a row slice of C-contiguous verts: no copy needed
            vj = verts[vadr[j]:vadr[j] + vnum[j]]
            n = collide_g(out, k, margin, types[i], sizes[i], p[i], R[i], vi, types[j], sizes[j], p[j], R[j], vj,
                          faces[fadr[i]:fadr[i + 1]], faces[fadr[j]:fadr[j + 1]], graph[gadr[i]:gadr[i + 1]],
                          radii[i], graph[gadr[j]:gadr[j + 1]], radii[j])
            for c in range(n):
                og1[k + c] = i
                og2[k + c] = j
            k += n
        q += 1
    return k, q


@njit(cache=True, error_model="numpy")
def _pair_distances(pairs, types, sizes, R, p, verts, vadr, vnum, out):
    """Signed distance, witness points (world) and normal (1 -> 2) for each pair:
    out[q] = [d, pa(3), pb(3), n(3)]."""
    for q in range(pairs.shape[0]):
        i = pairs[q, 0]
        j = pairs[q, 1]
        d, pa, pb, n = signed_distance(types[i], sizes[i], p[i], R[i], verts[vadr[i]:vadr[i] + vnum[i]].copy(),
                                       types[j], sizes[j], p[j], R[j], verts[vadr[j]:vadr[j] + vnum[j]].copy())
        out[q, 0] = d
        out[q, 1:4] = pa
        out[q, 4:7] = pb
        out[q, 7:10] = n


@njit(cache=True, error_model="numpy")
def _point_distances(q, idx, types, sizes, R, p, verts, vadr, vnum, planes, padr, pnum, out):
    """Signed distance from point q to each geometry in idx: out[k] = [d, p_WN(3), grad_W(3)]."""
    for k in range(idx.shape[0]):
        g = idx[k]
        d, nw, gw = point_distance(types[g], sizes[g], p[g], R[g], verts[vadr[g]:vadr[g] + vnum[g]].copy(),
                                   planes[padr[g]:padr[g] + pnum[g]].copy(), q)
        out[k, 0] = d
        out[k, 1:4] = nw
        out[k, 4:7] = gw


@njit(cache=True)
def _contact_frames(normal, tangent, frame):
    """Kernel of mujoco_contact_frame: fills frame (K, 3, 3)."""
    for c in range(normal.shape[0]):
        nx, ny, nz = normal[c, 0], normal[c, 1], normal[c, 2]
        ln = np.sqrt(nx * nx + ny * ny + nz * nz)
        nx, ny, nz = nx / ln, ny / ln, nz / ln
        yx, yy, yz = tangent[c, 0], tangent[c, 1], tangent[c, 2]
        if yx * yx + yy * yy + yz * yz < 0.25:
            yx, yy, yz = (0.0, 1.0, 0.0) if -0.5 < ny < 0.5 else (0.0, 0.0, 1.0)
        d = nx * yx + ny * yy + nz * yz
        yx, yy, yz = yx - nx * d, yy - ny * d, yz - nz * d
        ly = np.sqrt(yx * yx + yy * yy + yz * yz)
        if ly < 1e-15:  # hint parallel to the normal: MuJoCo's normalize gives (1, 0, 0)
            yx, yy, yz, ly = 1.0, 0.0, 0.0, 1.0
        yx, yy, yz = yx / ly, yy / ly, yz / ly
        frame[c, 0, 0], frame[c, 0, 1], frame[c, 0, 2] = nx, ny, nz
        frame[c, 1, 0], frame[c, 1, 1], frame[c, 1, 2] = yx, yy, yz
        frame[c, 2, 0] = ny * yz - nz * yy
        frame[c, 2, 1] = nz * yx - nx * yz
        frame[c, 2, 2] = nx * yy - ny * yx


def mujoco_contact_frame(normal: np.ndarray, tangent: np.ndarray) -> np.ndarray:
    """MuJoCo's contact frames (K, 3, 3): rows are the normal and two tangents; the first tangent is
    the hint when given (capsule axis), else world y (or z when the normal is close to y)."""
    normal = np.ascontiguousarray(normal, dtype=np.float64).reshape(-1, 3)
    tangent = np.ascontiguousarray(tangent, dtype=np.float64).reshape(-1, 3)
    frame = np.zeros((normal.shape[0], 3, 3))
    _contact_frames(normal, tangent, frame)
    return frame


@njit(cache=True, error_model="numpy")
def step_pairs(types, sizes, R, p, verts, vadr, vnum, margins, frame_of, contype, conaffinity, excluded_keys, graph,
               gadr, radii, box, planes, cand, listed):
    """The pairs the contact query runs the narrow phase on, in its order: the swept pairs (collision/broadphase.py
    broad_phase over AABBs grown by the margins, with its filters; box: local_boxes, planes: plane_pairs of these
    filters) that pass the bounding-sphere filter; for a scene whose pairs are listed (collision/pair_list.py
    static_pairs: cand, listed) the same pairs from the list. graph, gadr: the mesh rows' hull graphs
    (collision/mesh_graph.py), radii: bounding_radii."""
    if listed:
        return listed_pairs(types, sizes, R, p, verts, vadr, vnum, margins, graph, gadr, radii, box, planes, cand)
    if types.shape[0] < 2:
        return np.zeros((0, 2), np.int64)
    pairs = broad_phase(types, sizes, R, p, verts, vadr, vnum, margins, graph, gadr, radii, box, planes, frame_of,
                        contype, conaffinity, excluded_keys)
    return sphere_filter(pairs, types, R, p, radii, margins)


@njit(cache=True, error_model="numpy")
def pairs_contact_points(pairs, types, sizes, R, p, verts, vadr, vnum, margins, gaps, cap0, faces, fadr, graph, gadr,
                         radii):
    """The narrow phase over `pairs` (step_pairs; buffers grown until every pair fits) and the contact frames.
    Returns (dist (K,), pos (K, 3), frame (K, 3, 3), geom1 (K,), geom2 (K,), margin (K,), gap (K,))."""
    cap = max(64, 4 * pairs.shape[0] + cap0, cap0)
    while True:
        out = np.empty((cap, 10))
        og1 = np.empty(cap, np.int64)
        og2 = np.empty(cap, np.int64)
        k, q = _narrowphase(pairs, 0, types, sizes, R, p, verts, vadr, vnum, margins, out, og1, og2, faces, fadr,
                            graph, gadr, radii)
        if q >= pairs.shape[0]:
            break
        cap *= 2  # rare: more contacts than the first guess; run again with room for all
    dist = np.empty(k)
    pos = np.empty((k, 3))
    normal = np.empty((k, 3))
    tangent = np.empty((k, 3))
    g1 = og1[:k].copy()
    g2 = og2[:k].copy()
    margin = np.empty(k)
    gap = np.empty(k)
    for c in range(k):
        dist[c] = out[c, 0]
        for i in range(3):
            pos[c, i] = out[c, 1 + i]
            normal[c, i] = out[c, 4 + i]
            tangent[c, i] = out[c, 7 + i]
        margin[c] = margins[g1[c]] + margins[g2[c]]
        gap[c] = gaps[g1[c]] + gaps[g2[c]]
    frame = np.zeros((k, 3, 3))
    _contact_frames(normal, tangent, frame)
    return dist, pos, frame, g1, g2, margin, gap


@njit(cache=True, error_model="numpy")
def scene_contact_points(types, sizes, R, p, verts, vadr, vnum, margins, frame_of, contype, conaffinity,
                         excluded_keys, gaps, cap0, faces, fadr, graph, gadr, radii, box, planes, cand, listed):
    """The whole MuJoCo contact query in one call: step_pairs, then pairs_contact_points.
    Returns (dist (K,), pos (K, 3), frame (K, 3, 3), geom1 (K,), geom2 (K,), margin (K,), gap (K,))."""
    pairs = step_pairs(types, sizes, R, p, verts, vadr, vnum, margins, frame_of, contype, conaffinity, excluded_keys,
                       graph, gadr, radii, box, planes, cand, listed)
    return pairs_contact_points(pairs, types, sizes, R, p, verts, vadr, vnum, margins, gaps, cap0, faces, fadr, graph,
                                gadr, radii)


@njit(cache=True, error_model="numpy")
def pair_contact_points(forced, forced_margin, forced_gap, types, sizes, R, p, verts, vadr, vnum, faces, fadr, graph,
                        gadr, radii):
    """Contacts of the forced (explicit) pairs, each collided with its own margin + gap whatever the filters,
    the lower type first (the pair's order otherwise kept, as MuJoCo). Returns as scene_contact_points, plus the
    pair (row of `forced`) of each contact."""
    m = forced.shape[0]
    cap = max(64, m * max(MAXCON, MAXCON_HFIELD))
    out = np.empty((cap, 10))
    og1 = np.empty(cap, np.int64)
    og2 = np.empty(cap, np.int64)
    omar = np.empty(cap)
    ogap = np.empty(cap)
    opair = np.empty(cap, np.int64)
    k = 0
    for q in range(m):
        i = forced[q, 0]
        j = forced[q, 1]
        if types[i] > types[j]:
            i, j = j, i
        if not has_collider(types[i], types[j]):
            continue
        vi = verts[vadr[i]:vadr[i] + vnum[i]]
        vj = verts[vadr[j]:vadr[j] + vnum[j]]
        n = collide_g(out, k, forced_margin[q] + forced_gap[q], types[i], sizes[i], p[i], R[i], vi, types[j],
                      sizes[j], p[j], R[j], vj, faces[fadr[i]:fadr[i + 1]], faces[fadr[j]:fadr[j + 1]],
                      graph[gadr[i]:gadr[i + 1]], radii[i], graph[gadr[j]:gadr[j + 1]], radii[j])
        for c in range(n):
            og1[k + c] = i
            og2[k + c] = j
            omar[k + c] = forced_margin[q]
            ogap[k + c] = forced_gap[q]
            opair[k + c] = q
        k += n
    dist = out[:k, 0].copy()
    pos = out[:k, 1:4].copy()
    frame = np.zeros((k, 3, 3))
    _contact_frames(out[:k, 4:7].copy(), out[:k, 7:10].copy(), frame)
    return dist, pos, frame, og1[:k].copy(), og2[:k].copy(), omar[:k].copy(), ogap[:k].copy(), opair[:k].copy()


class CollisionModel:
    """Static arrays describing n proximity geometries for the compiled collision kernels."""

    def __init__(self, types, sizes, frame, verts, vadr, vnum, planes, padr, pnum, margins, contype,
                 conaffinity, excluded_keys):
        self.n = int(len(types))
        self.types = np.ascontiguousarray(types, dtype=np.int64)
        self.sizes = np.ascontiguousarray(sizes, dtype=float).reshape(self.n, 3)
        self.frame = np.ascontiguousarray(frame, dtype=np.int64)
        self.verts = np.ascontiguousarray(verts, dtype=float).reshape(-1, 3)
        self.vadr = np.ascontiguousarray(vadr, dtype=np.int64)
        self.vnum = np.ascontiguousarray(vnum, dtype=np.int64)
        self.planes = np.ascontiguousarray(planes, dtype=float).reshape(-1, 4)
        self.padr = np.ascontiguousarray(padr, dtype=np.int64)
        self.pnum = np.ascontiguousarray(pnum, dtype=np.int64)
        self.margins = np.ascontiguousarray(margins, dtype=float)
        self.contype = np.ascontiguousarray(contype, dtype=np.int64)
        self.conaffinity = np.ascontiguousarray(conaffinity, dtype=np.int64)
        self.excluded_keys = np.unique(np.asarray(excluded_keys, dtype=np.int64))
        self.sdf: dict = {}  #: row -> SignedDistanceField for type-8 geometries (set by CompiledScene)
        self.hfield: dict = {}  #: row -> HeightField (set_height_fields)
        self._n_hfield = int(np.count_nonzero(self.types == HFIELD))
        self.faces = np.zeros(0)  #: the mesh rows' packed hull faces (set_hull_faces), row i's at fadr[i]:fadr[i+1]
        self.fadr = np.zeros(self.n + 1, np.int64)
        self.forced = None  #: explicit pairs (set_forced_pairs): rows (m, 2), margins (m,), gaps (m,)
        self._dynamic_excluded = self.excluded_keys  # exclusions of the dynamic pairs (+ the forced pairs)
        #: the mesh rows' hull graphs (set_mesh_graphs; collision/mesh_graph.py), row i's at graph[gadr[i]:gadr[i+1]]
        self.graph, self.gadr = PackMeshGraphs(self.n, {})
        #: bounding radius of each row about its origin (narrowphase.rbound; fixed per scene)
        self.radii = bounding_radii(self.types, self.sizes, self.verts, self.vadr, self.vnum)
        #: the mesh rows' hull boxes in their frames (broadphase.local_boxes), the unbounded rows' pairs of the
        #: contact queries (broadphase.plane_pairs with the dynamic exclusions)
        self.box_local = local_boxes(self.types, self.verts, self.vadr, self.vnum)
        self.plane_pairs = plane_pairs(self.types, self.frame, self.contype, self.conaffinity, self._dynamic_excluded)
        #: the bounded rows' pairs the filters keep, when few (collision/pair_list.py static_pairs)
        self.cand_pairs, self.listed = static_pairs(self.types, self.frame, self.contype, self.conaffinity,
                                                    self._dynamic_excluded, LIST_MAX)

    def set_mesh_graphs(self, graphs: dict) -> None:
        """Attach the hull graphs of mesh rows (``graphs``: row -> mesh_graph.MeshGraph array; rows left out, or
        with an empty graph, are scanned), with every mesh row's chunks (mesh_graph.MeshChunks) for the scans."""
        for row in graphs:
            if not 0 <= int(row) < self.n or self.types[int(row)] != MESH:
                raise ValueError(f"CollisionModel.set_mesh_graphs: row {row} is not a mesh row")
        hulls = {r: self.verts[self.vadr[r]:self.vadr[r] + self.vnum[r]] for r in np.nonzero(self.types == MESH)[0]}
        self.graph, self.gadr = PackMeshGraphs(self.n, graphs, hulls)

    def set_forced_pairs(self, rows: np.ndarray, margins: np.ndarray, gaps: np.ndarray) -> None:
        """Pairs (m, 2) of rows the contact queries collide whatever their filters (MuJoCo's explicit contact
        pairs), each with its own margin and gap (m); the same pairs are dropped from the dynamic candidates."""
        rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1, 2)
        margins = np.ascontiguousarray(margins, dtype=float).reshape(-1)
        gaps = np.ascontiguousarray(gaps, dtype=float).reshape(-1)
        if margins.shape[0] != rows.shape[0] or gaps.shape[0] != rows.shape[0]:
            raise ValueError("CollisionModel.set_forced_pairs: rows, margins and gaps must have one entry per pair")
        if rows.size and (rows.min() < 0 or rows.max() >= self.n or np.any(rows[:, 0] == rows[:, 1])):
            raise ValueError(f"CollisionModel.set_forced_pairs: pairs must join two different rows in [0, {self.n})")
        if rows.shape[0] == 0:
            self.forced = None
            self._dynamic_excluded = self.excluded_keys
            self.plane_pairs = plane_pairs(self.types, self.frame, self.contype, self.conaffinity, self.excluded_keys)
            self.cand_pairs, self.listed = static_pairs(self.types, self.frame, self.contype, self.conaffinity,
                                                        self.excluded_keys, LIST_MAX)
            return
        if any(int(r) in self.sdf for r in rows.reshape(-1).tolist()):
            raise ValueError("explicit contact pairs with SignedDistanceField (MJCF type='sdf') geometries are not "
                             "supported; collide them dynamically (contype / conaffinity)")
        self.forced = (rows, margins, gaps)
        keys = np.minimum(rows[:, 0], rows[:, 1]) * self.n + np.maximum(rows[:, 0], rows[:, 1])
        self._dynamic_excluded = np.unique(np.concatenate([self.excluded_keys, keys]))
        self.plane_pairs = plane_pairs(self.types, self.frame, self.contype, self.conaffinity, self._dynamic_excluded)
        self.cand_pairs, self.listed = static_pairs(self.types, self.frame, self.contype, self.conaffinity,
                                                    self._dynamic_excluded, LIST_MAX)

    def set_hull_faces(self, faces: dict) -> None:
        """Attach the hull faces of convex mesh rows (``faces``: row -> collision/hull_polygons.py array), which
        the plane-mesh kernel prunes to its contact points as MuJoCo does."""
        sizes = np.zeros(self.n, np.int64)
        for row, f in faces.items():
            if not 0 <= int(row) < self.n or self.types[int(row)] != MESH:
                raise ValueError(f"CollisionModel.set_hull_faces: row {row} is not a mesh row")
            sizes[int(row)] = len(f)
        self.fadr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        flat = [np.asarray(faces[r], float) for r in sorted(faces, key=int)]
        self.faces = np.ascontiguousarray(np.concatenate(flat) if flat else np.zeros(0))

    def set_height_fields(self, fields: dict) -> None:
        """Attach the grids of the height-field rows (``fields``: row -> HeightField): each grid is packed
        into the vertex array (collision/hfield.py) where the height-field kernel reads it."""
        extra = [self.verts]
        nv = len(self.verts)
        for row, shape in sorted(fields.items()):
            row = int(row)
            if not 0 <= row < self.n or self.types[row] != HFIELD:
                raise ValueError(f"CollisionModel.set_height_fields: row {row} is not a height-field geometry")
            packed = pack_height_field(shape.heights(), shape.size())
            extra.append(packed)
            self.vadr[row], self.vnum[row] = nv, len(packed)
            nv += len(packed)
            self.hfield[row] = shape
        self.verts = np.ascontiguousarray(np.concatenate(extra))

    def _check_height_fields(self) -> None:
        if len(self.hfield) != self._n_hfield:
            missing = [int(r) for r in np.nonzero(self.types == HFIELD)[0] if int(r) not in self.hfield]
            raise RuntimeError(f"CollisionModel: height-field geometries {missing} have no grid attached; the scene "
                               "compiler must call set_height_fields({row: HeightField}) for them")

    def candidate_pairs(self, R, p, inflate: float | np.ndarray = 0.0, use_masks: bool = True) -> np.ndarray:
        """Unfiltered-out pairs (i < j) whose AABBs, grown by ``inflate`` per geometry, overlap."""
        if self.n < 2:
            return np.zeros((0, 2), np.int64)
        if isinstance(inflate, np.ndarray) and inflate.shape == (self.n,) and inflate.dtype == np.float64:
            infl = inflate
        else:
            infl = np.broadcast_to(np.asarray(inflate, dtype=float), (self.n,)).copy()
        lo, hi = hull_aabbs(self.types, self.sizes, R, p, self.verts, self.vadr, self.vnum, infl, self.graph, self.gadr,
                            self.radii)
        pairs = sweep_and_prune(lo, hi)
        if use_masks:
            ct, ca = self.contype, self.conaffinity
        else:
            ct = ca = np.full(self.n, 1, np.int64)
        return filter_pairs(pairs, self.types, self.frame, ct, ca, self.excluded_keys, self.n)

    def all_pairs(self) -> np.ndarray:
        """Every unfiltered pair (i < j) regardless of distance."""
        iu, ju = np.triu_indices(self.n, 1)
        pairs = np.stack([iu, ju], axis=1).astype(np.int64)
        return filter_pairs(pairs, self.types, self.frame, self.contype, self.conaffinity, self.excluded_keys,
                            self.n)

    def contact_points(self, R, p, gaps: np.ndarray):
        """The margin-inclusive MuJoCo contacts with their frames in one compiled call: (dist, pos, frame
        (K, 3, 3), geom1, geom2, margin, gap); None when SDF geometries need the general path (contacts)."""
        if self.sdf:
            return None
        if self._n_hfield:
            self._check_height_fields()
        got = scene_contact_points(self.types, self.sizes, R, p, self.verts, self.vadr, self.vnum, self.margins,
                                   self.frame, self.contype, self.conaffinity, self._dynamic_excluded, gaps,
                                   max(MAXCON, MAXCON_HFIELD), self.faces, self.fadr, self.graph, self.gadr,
                                   self.radii, self.box_local, self.plane_pairs, self.cand_pairs, self.listed)
        if self.forced is None:
            return got
        return self._with_forced(got, R, p)

    def forced_contact_points(self, R, p) -> tuple:
        """The forced pairs' contacts alone, as contact_points returns them (empty without forced pairs)."""
        if self.forced is None:
            return (np.zeros(0), np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros(0, np.int64), np.zeros(0, np.int64),
                    np.zeros(0), np.zeros(0))
        rows, fm, fg = self.forced
        return pair_contact_points(rows, fm, fg, self.types, self.sizes, R, p, self.verts, self.vadr, self.vnum,
                                   self.faces, self.fadr, self.graph, self.gadr, self.radii)[:7]

    def _with_forced(self, got: tuple, R, p) -> tuple:
        """The dynamic contacts `got` followed by the forced pairs' contacts (in pair order)."""
        rows, fm, fg = self.forced
        pc = pair_contact_points(rows, fm, fg, self.types, self.sizes, R, p, self.verts, self.vadr, self.vnum,
                                 self.faces, self.fadr, self.graph, self.gadr, self.radii)[:7]
        if pc[0].shape[0] == 0:
            return got
        if got[0].shape[0] == 0:
            return pc
        return tuple(np.concatenate([a, b]) for a, b in zip(got, pc))

    def contacts(self, R, p, pairs: np.ndarray | None = None, use_margins: bool = True):
        """MuJoCo-style contacts: (dist (K,), pos (K, 3), normal (K, 3), tangent hint (K, 3),
        geom1 (K,), geom2 (K,)); geom1 has the lower type code, normals point from geom1 to geom2."""
        margins = self.margins if use_margins else np.zeros(self.n)
        if self._n_hfield:
            self._check_height_fields()
        if pairs is None:
            pairs = self.candidate_pairs(R, p, margins)
            if self.forced is not None and len(pairs):  # explicit pairs are collided by forced_contact_points
                keys = pairs[:, 0] * self.n + pairs[:, 1]
                pairs = pairs[~np.isin(keys, self._dynamic_excluded)]
        cap = max(64, 4 * len(pairs) + MAXCON, MAXCON_HFIELD)
        out = np.empty((cap, 10))
        g1 = np.empty(cap, np.int64)
        g2 = np.empty(cap, np.int64)
        start = 0
        chunks = []
        while True:
            k, start = _narrowphase(pairs, start, self.types, self.sizes, R, p, self.verts, self.vadr, self.vnum,
                                    margins, out, g1, g2, self.faces, self.fadr, self.graph, self.gadr, self.radii)
            if start >= len(pairs) and not chunks:  # one pass (the usual case): this call's buffers, no copy
                chunks.append((out[:k], g1[:k], g2[:k]))
                break
            chunks.append((out[:k].copy(), g1[:k].copy(), g2[:k].copy()))
            if start >= len(pairs):
                break
        if len(chunks) == 1:
            o, a, b = chunks[0]
        else:
            o = np.concatenate([c[0] for c in chunks])
            a = np.concatenate([c[1] for c in chunks])
            b = np.concatenate([c[2] for c in chunks])
        if self.sdf:
            o, a, b = self._sdf_contacts(R, p, pairs, o, a, b)
        return o[:, 0].copy(), o[:, 1:4].copy(), o[:, 4:7].copy(), o[:, 7:10].copy(), a, b

    def _sdf_contacts(self, R, p, pairs, o, a, b):
        """Append the contacts of pairs with an SDF geometry (geometry/sdf_shape.py), the SDF second (lower type
        first; two SDFs by row): MuJoCo's routines for each partner type, see collision/sdf_pairs.py."""
        from mallard.geometry.collision.sdf_pairs import sdf_pair_contacts
        rows = [o]
        g1, g2 = [a], [b]
        for i, j in np.asarray(pairs, np.int64).reshape(-1, 2).tolist():
            if i not in self.sdf and j not in self.sdf:
                continue
            if self.types[i] > self.types[j] or (self.types[i] == self.types[j] and i > j):
                i, j = j, i
            pos, nrm, dist = sdf_pair_contacts(self, R, p, i, j)
            if len(dist):
                rows.append(np.column_stack([dist, pos, nrm, np.zeros((len(dist), 3))]))
                g1.append(np.full(len(dist), i, np.int64))
                g2.append(np.full(len(dist), j, np.int64))
        return np.concatenate(rows), np.concatenate(g1), np.concatenate(g2)

    def pair_distances(self, R, p, pairs: np.ndarray) -> np.ndarray:
        """(m, 10) rows [d, p_WCa(3), p_WCb(3), n(3) from the first to the second geometry]."""
        out = np.empty((len(pairs), 10))
        if self._n_hfield and len(pairs) and np.any(self.types[np.asarray(pairs, np.int64).reshape(-1)] == HFIELD):
            raise RuntimeError("signed distances between geometry pairs are not computed for HeightField (MJCF "
                               "type='hfield') geometries; use contact queries (ComputeContactPoints, "
                               "ComputePointPairPenetration) for them")
        if self.sdf and any(int(i) in self.sdf or int(j) in self.sdf for i, j in np.asarray(pairs).reshape(-1, 2)):
            raise RuntimeError("signed distances between geometry pairs are not computed for SignedDistanceField "
                               "(MJCF type='sdf') geometries; use contact queries (ComputeContactPoints, "
                               "ComputePointPairPenetration) or ComputeSignedDistanceToPoint for them")
        if len(pairs):
            _pair_distances(np.ascontiguousarray(pairs, dtype=np.int64), self.types, self.sizes, R, p, self.verts,
                            self.vadr, self.vnum, out)
        return out

    def point_distances(self, R, p, q, idx: np.ndarray) -> np.ndarray:
        """(m, 7) rows [d, p_WN(3), grad_W(3)] from world point q to geometries idx."""
        out = np.empty((len(idx), 7))
        sdf_rows = [k for k, g in enumerate(np.asarray(idx).tolist()) if g in self.sdf]
        if sdf_rows:  # SDF geometries: the field's distance and gradient at the point (geometry/sdf_shape.py)
            keep = np.setdiff1d(np.arange(len(idx)), sdf_rows)
            out[keep] = self.point_distances(R, p, q, np.asarray(idx)[keep])
            for k in sdf_rows:
                g = int(idx[k])
                field = self.sdf[g].sdf()
                x = R[g].T @ (np.asarray(q, float) - p[g])
                d = field.Distance(x)
                grad = R[g] @ field.Gradient(x)
                grad /= max(np.linalg.norm(grad), 1e-15)
                out[k, 0], out[k, 1:4], out[k, 4:7] = d, np.asarray(q, float) - d * grad, grad
            return out
        if len(idx):
            _point_distances(np.asarray(q, dtype=float), np.ascontiguousarray(idx, dtype=np.int64), self.types,
                             self.sizes, R, p, self.verts, self.vadr, self.vnum, self.planes, self.padr, self.pnum,
                             out)
        return out
