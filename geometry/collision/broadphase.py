"""Broad phase: world AABBs of geometries and sweep-and-prune over them.

Sorting the boxes' lower x bounds and sweeping gives all overlapping pairs in
O(n log n + candidates). Unbounded geometries (half spaces) are paired with every other
geometry separately, since they overlap everything's x interval.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision.mesh_graph import hull_extreme

PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = range(8)
SDF = 8


@njit(cache=True, error_model="numpy")
def compute_aabbs(types, sizes, R, p, verts, vadr, vnum, inflate):
    """World AABBs (lo, hi) of n geometries, each grown by inflate[i]; half spaces get +-inf."""
    zi = np.zeros(types.shape[0] + 1, np.int64)
    return hull_aabbs(types, sizes, R, p, verts, vadr, vnum, inflate, zi[:0], zi, np.zeros(types.shape[0]))


@njit(cache=True, error_model="numpy")
def hull_aabbs(types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii):
    """compute_aabbs with the mesh rows' extremes found by climbing their hull graphs (collision/mesh_graph.py:
    row i's at graph[gadr[i]:gadr[i + 1]], radii[i] its largest vertex norm; the same bounds as a scan)."""
    n = types.shape[0]
    lo = np.empty((n, 3))
    hi = np.empty((n, 3))
    for g in range(n):
        t = types[g]
        s = sizes[g]
        for i in range(3):
            if t == PLANE or t == HFIELD:
                e = math.inf
            elif t == SPHERE:
                e = s[0]
            elif t == CAPSULE:
                e = s[0] + s[1] * abs(R[g, i, 2])
            elif t == CYLINDER:
                a = R[g, i, 2]
                e = s[0] * math.sqrt(max(0.0, 1.0 - a * a)) + s[1] * abs(a)
            elif t == BOX or t == SDF:  # an SDF: its box about Go (geometry/sdf_shape.py)
                e = abs(R[g, i, 0]) * s[0] + abs(R[g, i, 1]) * s[1] + abs(R[g, i, 2]) * s[2]
            elif t == ELLIPSOID:
                e = math.sqrt((R[g, i, 0] * s[0]) ** 2 + (R[g, i, 1] * s[1]) ** 2 + (R[g, i, 2] * s[2]) ** 2)
            else:
                e = -1.0
            if e >= 0.0:
                lo[g, i] = p[g, i] - e - inflate[g]
                hi[g, i] = p[g, i] + e + inflate[g]
        if t == MESH:
            v = verts[vadr[g]:vadr[g] + vnum[g]]
            gr = graph[gadr[g]:gadr[g + 1]]
            for i in range(3):  # the extremes of the hull vertices along world axis i: min x = -max(-x) exactly
                a, b, c, o = R[g, i, 0], R[g, i, 1], R[g, i, 2], p[g, i]
                mx = hull_extreme(v, gr, radii[g], a, b, c, o)[1]
                mn = -hull_extreme(v, gr, radii[g], -a, -b, -c, -o)[1]
                lo[g, i] = mn - inflate[g]
                hi[g, i] = mx + inflate[g]
    return lo, hi


@njit(cache=True, error_model="numpy")
def sweep_and_prune(lo, hi):
    """All pairs (i < j) whose boxes overlap; boxes with an infinite bound pair with everyone."""
    n = lo.shape[0]
    finite = np.empty(n, np.int64)
    infinite = np.empty(n, np.int64)
    nfin = 0
    ninf = 0
    for g in range(n):
        if math.isinf(lo[g, 0]) or math.isinf(hi[g, 0]) or math.isinf(lo[g, 1]) or math.isinf(lo[g, 2]):
            infinite[ninf] = g
            ninf += 1
        else:
            finite[nfin] = g
            nfin += 1
    keys = np.empty(nfin)
    for a in range(nfin):
        keys[a] = lo[finite[a], 0]
    order = np.argsort(keys)
    cap = 4 * n + 16
    pairs = np.empty((cap, 2), np.int64)
    m = 0
    for a in range(nfin):
        i = finite[order[a]]
        hx = hi[i, 0]
        for b in range(a + 1, nfin):
            j = finite[order[b]]
            if lo[j, 0] > hx:
                break
            if lo[j, 1] > hi[i, 1] or lo[i, 1] > hi[j, 1] or lo[j, 2] > hi[i, 2] or lo[i, 2] > hi[j, 2]:
                continue
            if m >= cap:
                bigger = np.empty((2 * cap, 2), np.int64)
                bigger[:m] = pairs[:m]
                pairs = bigger
                cap *= 2
            pairs[m, 0] = min(i, j)
            pairs[m, 1] = max(i, j)
            m += 1
    for a in range(ninf):
        i = infinite[a]
        for j in range(n):
            if j == i:
                continue
            # two unbounded geometries pair once; the rest overlap by construction
            isinf_j = math.isinf(lo[j, 0]) or math.isinf(hi[j, 0]) or math.isinf(lo[j, 1]) or math.isinf(lo[j, 2])
            if isinf_j and j < i:
                continue
            if m >= cap:
                bigger = np.empty((2 * cap, 2), np.int64)
                bigger[:m] = pairs[:m]
                pairs = bigger
                cap *= 2
            pairs[m, 0] = min(i, j)
            pairs[m, 1] = max(i, j)
            m += 1
    return pairs[:m].copy()


@njit(cache=True, error_model="numpy")
def filter_pairs(pairs, types, frame, contype, conaffinity, excluded_keys, n):
    """Keep pairs on different frames, with a contact routine for their types (no pair of planes and
    height fields), passing MuJoCo's contype/conaffinity test, and not in the sorted array of
    excluded keys (i * n + j, i < j)."""
    keep = np.zeros(pairs.shape[0], np.bool_)
    for q in range(pairs.shape[0]):
        i = pairs[q, 0]
        j = pairs[q, 1]
        if frame[i] == frame[j]:
            continue
        if types[i] <= HFIELD and types[j] <= HFIELD:  # plane / height field against plane / height field
            continue
        if (contype[i] & conaffinity[j]) == 0 and (contype[j] & conaffinity[i]) == 0:
            continue
        if excluded_keys.shape[0] > 0:
            key = i * n + j
            pos = np.searchsorted(excluded_keys, key)
            if pos < excluded_keys.shape[0] and excluded_keys[pos] == key:
                continue
        keep[q] = True
    return pairs[keep]
