"""Batch collision over arrays: the narrow phase over candidate pairs and the queries built on it.

``CollisionModel`` holds the static description of the proximity geometries (types, sizes,
convex-hull vertices and facet planes, margins, masks, frames, exclusions); its methods take the
world poses (R_WG (n, 3, 3), p_WG (n, 3)) and return plain arrays. The Python layer above
(QueryObject) turns them into pydrake result objects.
"""
from __future__ import annotations


import numpy as np
from numba import njit

from mallard.geometry.collision.broadphase import compute_aabbs, filter_pairs, sweep_and_prune
from mallard.geometry.collision.narrowphase import MAXCON, collide, has_collider, point_distance, signed_distance


@njit(cache=True, error_model="numpy")
def _narrowphase(pairs, start, types, sizes, R, p, verts, vadr, vnum, margins, out, og1, og2):
    """Contacts of pairs[start:] into out/og1/og2 (MuJoCo order: lower type first). Stops before a
    pair that might not fit; returns (contacts written, next pair)."""
    cap = out.shape[0]
    k = 0
    q = start
    while q < pairs.shape[0]:
        if k + MAXCON > cap:
            break
        i = pairs[q, 0]
        j = pairs[q, 1]
        if types[i] > types[j]:
            i, j = j, i
        if has_collider(types[i], types[j]):
            margin = margins[i] + margins[j]
            n = collide(out, k, margin, types[i], sizes[i], p[i], R[i], verts[vadr[i]:vadr[i] + vnum[i]].copy(),
                        types[j], sizes[j], p[j], R[j], verts[vadr[j]:vadr[j] + vnum[j]].copy())
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


def mujoco_contact_frame(normal: np.ndarray, tangent: np.ndarray) -> np.ndarray:
    """MuJoCo's contact frames (K, 3, 3): rows are the normal and two tangents; the first tangent is
    the hint when given (capsule axis), else world y (or z when the normal is close to y)."""
    K = normal.shape[0]
    frame = np.zeros((K, 3, 3))
    frame[:, 0] = normal / np.linalg.norm(normal, axis=1, keepdims=True)
    y = tangent.copy()
    undefined = np.einsum("ij,ij->i", y, y) < 0.25
    nx1 = frame[:, 0, 1]
    use_y = undefined & (nx1 < 0.5) & (nx1 > -0.5)
    y[undefined] = 0.0
    y[use_y, 1] = 1.0
    y[undefined & ~use_y, 2] = 1.0
    y -= frame[:, 0] * np.einsum("ij,ij->i", frame[:, 0], y)[:, None]
    ny = np.linalg.norm(y, axis=1)
    degenerate = ny < 1e-15  # hint parallel to the normal: MuJoCo's normalize gives (1, 0, 0)
    y[degenerate] = [1.0, 0.0, 0.0]
    ny[degenerate] = 1.0
    y /= ny[:, None]
    frame[:, 1] = y
    frame[:, 2] = np.cross(frame[:, 0], y)
    return frame


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

    def candidate_pairs(self, R, p, inflate: float | np.ndarray = 0.0, use_masks: bool = True) -> np.ndarray:
        """Unfiltered-out pairs (i < j) whose AABBs, grown by ``inflate`` per geometry, overlap."""
        if self.n < 2:
            return np.zeros((0, 2), np.int64)
        infl = np.broadcast_to(np.asarray(inflate, dtype=float), (self.n,)).copy()
        lo, hi = compute_aabbs(self.types, self.sizes, R, p, self.verts, self.vadr, self.vnum, infl)
        pairs = sweep_and_prune(lo, hi)
        ones = np.full(self.n, 1, np.int64)
        ct, ca = (self.contype, self.conaffinity) if use_masks else (ones, ones)
        return filter_pairs(pairs, self.types, self.frame, ct, ca, self.excluded_keys, self.n)

    def all_pairs(self) -> np.ndarray:
        """Every unfiltered pair (i < j) regardless of distance."""
        iu, ju = np.triu_indices(self.n, 1)
        pairs = np.stack([iu, ju], axis=1).astype(np.int64)
        return filter_pairs(pairs, self.types, self.frame, self.contype, self.conaffinity, self.excluded_keys,
                            self.n)

    def contacts(self, R, p, pairs: np.ndarray | None = None, use_margins: bool = True):
        """MuJoCo-style contacts: (dist (K,), pos (K, 3), normal (K, 3), tangent hint (K, 3),
        geom1 (K,), geom2 (K,)); geom1 has the lower type code, normals point from geom1 to geom2."""
        margins = self.margins if use_margins else np.zeros(self.n)
        if pairs is None:
            pairs = self.candidate_pairs(R, p, margins)
        cap = max(64, 4 * len(pairs) + MAXCON)
        out = np.empty((cap, 10))
        g1 = np.empty(cap, np.int64)
        g2 = np.empty(cap, np.int64)
        total = 0
        start = 0
        chunks = []
        while True:
            k, start = _narrowphase(pairs, start, self.types, self.sizes, R, p, self.verts, self.vadr, self.vnum,
                                    margins, out, g1, g2)
            chunks.append((out[:k].copy(), g1[:k].copy(), g2[:k].copy()))
            total += k
            if start >= len(pairs):
                break
        if len(chunks) == 1:
            o, a, b = chunks[0]
        else:
            o = np.concatenate([c[0] for c in chunks])
            a = np.concatenate([c[1] for c in chunks])
            b = np.concatenate([c[2] for c in chunks])
        return o[:, 0].copy(), o[:, 1:4].copy(), o[:, 4:7].copy(), o[:, 7:10].copy(), a, b

    def pair_distances(self, R, p, pairs: np.ndarray) -> np.ndarray:
        """(m, 10) rows [d, p_WCa(3), p_WCb(3), n(3) from the first to the second geometry]."""
        out = np.empty((len(pairs), 10))
        if len(pairs):
            _pair_distances(np.ascontiguousarray(pairs, dtype=np.int64), self.types, self.sizes, R, p, self.verts,
                            self.vadr, self.vnum, out)
        return out

    def point_distances(self, R, p, q, idx: np.ndarray) -> np.ndarray:
        """(m, 7) rows [d, p_WN(3), grad_W(3)] from world point q to geometries idx."""
        out = np.empty((len(idx), 7))
        if len(idx):
            _point_distances(np.asarray(q, dtype=float), np.ascontiguousarray(idx, dtype=np.int64), self.types,
                             self.sizes, R, p, self.verts, self.vadr, self.vnum, self.planes, self.padr, self.pnum,
                             out)
        return out
