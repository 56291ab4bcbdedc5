"""Broad phase: world AABBs of geometries and sweep-and-prune over them.

Sorting the boxes' lower x bounds and sweeping gives all overlapping pairs in
O(n log n + candidates). Unbounded geometries (half spaces) are paired with every other
geometry separately, since they overlap everything's x interval.

`broad_phase` is the discrete step's version of hull_aabbs → sweep_and_prune → filter_pairs, with the same pairs in
the same order for less work: a mesh's box is its hull's box in its own frame (`local_boxes`, fixed per scene)
turned into the world (a conservative box), except the lower x bound, which orders the sweep and is the exact one;
a pair is first tested against the conservative boxes and the static filters, and only then against the exact
bounds it needs, each climbed once per call on the hull graph. The half-space pairs are fixed per scene
(`plane_pairs`).
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
        for i in range(3):
            e = _extent(t, sizes[g], R, g, i)
            if e >= 0.0:
                lo[g, i] = p[g, i] - e - inflate[g]
                hi[g, i] = p[g, i] + e + inflate[g]
        if t == MESH:
            for i in range(3):
                lo[g, i] = _mesh_bound(g, i, False, R, p, verts, vadr, vnum, inflate, graph, gadr, radii)
                hi[g, i] = _mesh_bound(g, i, True, R, p, verts, vadr, vnum, inflate, graph, gadr, radii)
    return lo, hi


@njit(cache=True, error_model="numpy")
def _extent(t, s, R, g, i):
    """Half extent along world axis i of a primitive of type t and sizes s with orientation R[g] (inf: unbounded;
    -1: a mesh, bounded by its vertices)."""
    if t == PLANE or t == HFIELD:
        return math.inf
    if t == SPHERE:
        return s[0]
    if t == CAPSULE:
        return s[0] + s[1] * abs(R[g, i, 2])
    if t == CYLINDER:
        a = R[g, i, 2]
        return s[0] * math.sqrt(max(0.0, 1.0 - a * a)) + s[1] * abs(a)
    if t == BOX or t == SDF:  # an SDF: its box about Go (geometry/sdf_shape.py)
        return abs(R[g, i, 0]) * s[0] + abs(R[g, i, 1]) * s[1] + abs(R[g, i, 2]) * s[2]
    if t == ELLIPSOID:
        return math.sqrt((R[g, i, 0] * s[0]) ** 2 + (R[g, i, 1] * s[1]) ** 2 + (R[g, i, 2] * s[2]) ** 2)
    return -1.0


@njit(cache=True, error_model="numpy")
def _mesh_bound(g, i, upper, R, p, verts, vadr, vnum, inflate, graph, gadr, radii):
    """The exact upper (else lower) bound along world axis i of mesh row g's hull vertices, grown by inflate[g]:
    the extreme climbed on its hull graph (min x = -max(-x) exactly)."""
    v = verts[vadr[g]:vadr[g] + vnum[g]]
    gr = graph[gadr[g]:gadr[g + 1]]
    a, b, c, o = R[g, i, 0], R[g, i, 1], R[g, i, 2], p[g, i]
    if upper:
        return hull_extreme(v, gr, radii[g], a, b, c, o)[1] + inflate[g]
    return -hull_extreme(v, gr, radii[g], -a, -b, -c, -o)[1] - inflate[g]


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


@njit(cache=True, error_model="numpy", inline="always")
def box_test(t, u0, w0, i, j):
    """The t-th (0 to 4) of sweep_and_prune's box tests of rows i and j on exact bounds, as (a, ka, b, kb): the rows
    are apart when bound ka of row a exceeds bound kb of row b (bounds [lo x, lo y, lo z, hi x, hi y, hi z]).
    Test 0 is the sweep's: the lower x of u0 (the later row in the sweep) against the upper x of w0; then y and z,
    each as j's lower against i's upper, then i's lower against j's upper."""
    if t == 0:
        return u0, 0, w0, 3
    if t % 2 == 1:
        return j, (t + 1) // 2, i, (t + 1) // 2 + 3
    return i, t // 2, j, t // 2 + 3


@njit(cache=True, error_model="numpy")
def filter_pairs(pairs, types, frame, contype, conaffinity, excluded_keys, n):
    """Keep pairs on different frames, with a contact routine for their types (no pair of planes and
    height fields), passing MuJoCo's contype/conaffinity test, and not in the sorted array of
    excluded keys (i * n + j, i < j)."""
    keep = np.zeros(pairs.shape[0], np.bool_)
    for q in range(pairs.shape[0]):
        keep[q] = pair_allowed(pairs[q, 0], pairs[q, 1], types, frame, contype, conaffinity, excluded_keys, n)
    return pairs[keep]


@njit(cache=True, error_model="numpy")
def pair_allowed(i, j, types, frame, contype, conaffinity, excluded_keys, n):
    """filter_pairs' test of the pair (i < j)."""
    if frame[i] == frame[j]:
        return False
    if types[i] <= HFIELD and types[j] <= HFIELD:  # plane / height field against plane / height field
        return False
    if (contype[i] & conaffinity[j]) == 0 and (contype[j] & conaffinity[i]) == 0:
        return False
    if excluded_keys.shape[0] > 0:
        key = i * n + j
        pos = np.searchsorted(excluded_keys, key)
        if pos < excluded_keys.shape[0] and excluded_keys[pos] == key:
            return False
    return True


@njit(cache=True, error_model="numpy")
def local_boxes(types, verts, vadr, vnum):
    """(n, 6) [center, half extents] of each mesh row's hull vertices in its own frame G (zeros for other rows):
    `broad_phase` turns them into conservative world boxes. Fixed per scene."""
    n = types.shape[0]
    box = np.zeros((n, 6))
    for g in range(n):
        if types[g] != MESH or vnum[g] == 0:
            continue
        for k in range(3):
            mn = math.inf
            mx = -math.inf
            for r in range(vadr[g], vadr[g] + vnum[g]):
                mn = min(mn, verts[r, k])
                mx = max(mx, verts[r, k])
            box[g, k] = 0.5 * (mn + mx)
            box[g, 3 + k] = 0.5 * (mx - mn)
    return box


@njit(cache=True, error_model="numpy")
def plane_pairs(types, frame, contype, conaffinity, excluded_keys):
    """The pairs sweep_and_prune → filter_pairs gives for the unbounded rows (planes, height fields), in its order:
    each unbounded row i in row order with every other row j in row order (an unbounded j after i only), kept by
    filter_pairs' test. They depend on the scene alone; `broad_phase` appends them to the swept pairs."""
    n = types.shape[0]
    out = np.empty((0, 2), np.int64)
    m = 0
    for i in range(n):
        if types[i] > HFIELD:
            continue
        for j in range(n):
            if j == i or (types[j] <= HFIELD and j < i):
                continue
            a, b = min(i, j), max(i, j)
            if not pair_allowed(a, b, types, frame, contype, conaffinity, excluded_keys, n):
                continue
            if m == out.shape[0]:
                bigger = np.empty((2 * m + 8, 2), np.int64)
                bigger[:m] = out[:m]
                out = bigger
            out[m, 0], out[m, 1] = a, b
            m += 1
    return out[:m].copy()


@njit(cache=True, error_model="numpy")
def broad_phase(types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, planes, frame, contype,
                conaffinity, excluded_keys):
    """filter_pairs(sweep_and_prune(hull_aabbs(...)), ...) followed by nothing else: the same pairs in the same order,
    for poses with finite values. box: local_boxes; planes: plane_pairs of the same filters (see the module
    docstring). A mesh row's exact bounds are climbed only for pairs whose conservative boxes overlap and that pass
    the filters; the other rows' boxes are exact and cost a few flops."""
    n = types.shape[0]
    lo = np.empty((n, 3))  # the sweep's boxes: exact, but a mesh row's are conservative (its lower x: exact)
    hi = np.empty((n, 3))
    ex = np.empty((n, 6))  # a mesh row's exact bounds [lo x, lo y, lo z, hi x, hi y, hi z] as they are climbed
    have = np.zeros((n, 6), np.bool_)
    finite = np.empty(n, np.int64)
    nfin = 0
    for g in range(n):
        t = types[g]
        if t <= HFIELD:
            continue
        finite[nfin] = g
        nfin += 1
        if t != MESH:  # exact boxes: their bounds are the exact ones too
            for i in range(3):
                e = _extent(t, sizes[g], R, g, i)
                lo[g, i] = ex[g, i] = p[g, i] - e - inflate[g]
                hi[g, i] = ex[g, 3 + i] = p[g, i] + e + inflate[g]
                have[g, i] = have[g, 3 + i] = True
            continue
        for i in range(3):  # the hull's box in G turned into the world, widened past rounding
            c = p[g, i] + R[g, i, 0] * box[g, 0] + R[g, i, 1] * box[g, 1] + R[g, i, 2] * box[g, 2]
            e = abs(R[g, i, 0]) * box[g, 3] + abs(R[g, i, 1]) * box[g, 4] + abs(R[g, i, 2]) * box[g, 5]
            e += 1e-9 * (abs(p[g, i]) + radii[g]) + 1e-300
            lo[g, i] = c - e - inflate[g]
            hi[g, i] = c + e + inflate[g]
        lo[g, 0] = ex[g, 0] = _mesh_bound(g, 0, False, R, p, verts, vadr, vnum, inflate, graph, gadr, radii)
        have[g, 0] = True
    keys = np.empty(nfin)
    for a in range(nfin):
        keys[a] = lo[finite[a], 0]
    order = np.argsort(keys)
    cap = 4 * n + 16
    pairs = np.empty((cap, 2), np.int64)
    m = 0
    nkeys = excluded_keys.shape[0]
    for a in range(nfin):
        i = finite[order[a]]
        hx = hi[i, 0]
        for b in range(a + 1, nfin):
            j = finite[order[b]]
            if lo[j, 0] > hx:
                break
            if lo[j, 1] > hi[i, 1] or lo[i, 1] > hi[j, 1] or lo[j, 2] > hi[i, 2] or lo[i, 2] > hi[j, 2]:
                continue
            # pair_allowed's test written out here: a call per candidate pair (or an inlined copy, whose arguments
            # become variables) cost the reference counting of its arrays, more than the test (most of a 47-geometry
            # arm's step, whose overlapping pairs are mostly filtered); the excluded key searched as np.searchsorted
            a0, b0 = min(i, j), max(i, j)
            if frame[a0] == frame[b0] or (types[a0] <= HFIELD and types[b0] <= HFIELD):
                continue
            if (contype[a0] & conaffinity[b0]) == 0 and (contype[b0] & conaffinity[a0]) == 0:
                continue
            if nkeys > 0:
                key = a0 * n + b0
                kl, kh = 0, nkeys
                while kl < kh:
                    mid = (kl + kh) >> 1
                    if excluded_keys[mid] < key:
                        kl = mid + 1
                    else:
                        kh = mid
                if kl < nkeys and excluded_keys[kl] == key:
                    continue
            if types[i] == MESH or types[j] == MESH:
                # sweep_and_prune's test on the exact boxes (row i first in the sweep): upper x of i against lower x
                # of j, then y and z both ways, each mesh bound climbed once per call when a test first needs it.
                # Written out (a call per test passed 16 arguments, each array reference-counted, up to ten times
                # per pair); the bounds are the same numbers in any order, so the pairs are too
                apart = False
                for t in range(5):
                    u, ku, w, kw = box_test(t, j, i, i, j)
                    if not have[u, ku]:
                        ex[u, ku] = _mesh_bound(u, ku, False, R, p, verts, vadr, vnum, inflate, graph, gadr, radii)
                        have[u, ku] = True
                    if not have[w, kw]:
                        ex[w, kw] = _mesh_bound(w, kw - 3, True, R, p, verts, vadr, vnum, inflate, graph, gadr, radii)
                        have[w, kw] = True
                    if ex[u, ku] > ex[w, kw]:
                        apart = True
                        break
                if apart:
                    continue
            if m >= cap:
                bigger = np.empty((2 * cap, 2), np.int64)
                bigger[:m] = pairs[:m]
                pairs = bigger
                cap *= 2
            pairs[m, 0] = min(i, j)
            pairs[m, 1] = max(i, j)
            m += 1
    out = np.empty((m + planes.shape[0], 2), np.int64)
    out[:m] = pairs[:m]
    out[m:] = planes
    return out
