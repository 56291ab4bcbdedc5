"""The bounding-sphere filter of candidate pairs, and the discrete step's broad phase over a pair list fixed per scene.

MuJoCo drops most geometry pairs before any pose-dependent test: contype / conaffinity, parent-child and explicit
exclusions, pairs on one body, pairs without a contact routine. These filters depend on the scene alone, so a scene
with few pairs that pass them lists those pairs once when it compiles (`static_pairs`), and each step tests only the
listed pairs (`listed_pairs`): their bounding spheres (engine.sphere_filter's test), then their boxes (broad_phase's:
a mesh's box from its hull's box in its frame, its exact bounds climbed only for the pairs still near). The pairs that
survive are ordered as sweep and prune orders them (by the position of each pair's rows in the sweep's sort of the
boxes' lower x bounds), so `listed_pairs` returns

    sphere_filter(broad_phase(...))

exactly (the same pairs in the same order, planes' pairs last) at a cost proportional to the listed pairs, with no
sort when fewer than two survive. A scene whose filters keep more than LIST_MAX pairs sweeps instead.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from mallard.geometry.collision.broadphase import (HFIELD, MESH, PLANE, _extent, _mesh_bound, box_test,
                                                    pair_allowed)
from mallard.geometry.collision.narrowphase import has_collider, rbound

#: the most pairs a scene lists (CollisionModel's `static_pairs` limit). 0 for now: only scenes whose filters leave
#: no bounded pair list theirs. Measured (thread CPU, one process): kuka_iiwa_14 (396 listed sphere pairs, none near)
#: 3.1 us listed against 7.1 us swept, but trossen_vx300s (214 pairs with meshes) 24.7 against 8.2 and MuJoCo's
#: humanoid (140 capsule pairs, several near) 37 against 5.2: the box test's calls per near pair and the sweep order's
#: per-row calls cost more than the sweep; per-row boxes computed once per step would remove them.
LIST_MAX = 0


@njit(cache=True, error_model="numpy")
def bounding_sphere_filter(pairs, types, sizes, R, p, verts, vadr, vnum, margins):
    """The candidate pairs (order kept) but those whose bounding spheres about the geometry origins are farther apart
    than the pair's margin, or, against a plane, whose sphere lies above the plane by more than it (MuJoCo's
    mj_filterSphere): pairs the narrow phase would find no contact for, dropped before it runs. A 1e-9 relative
    slack keeps the test conservative under rounding; height fields and SDFs are not filtered."""
    return sphere_filter(pairs, types, R, p, bounding_radii(types, sizes, verts, vadr, vnum), margins)


@njit(cache=True, error_model="numpy")
def bounding_radii(types, sizes, verts, vadr, vnum):
    """collision/narrowphase.py rbound of every geometry (0 for planes, height fields and SDFs): fixed per scene."""
    n = types.shape[0]
    rb = np.zeros(n)
    for g in range(n):
        if types[g] != PLANE and types[g] != HFIELD and types[g] <= MESH:
            rb[g] = rbound(types[g], sizes[g], verts[vadr[g]:vadr[g] + vnum[g]])
    return rb


@njit(cache=True, error_model="numpy")
def sphere_filter(pairs, types, R, p, rb, margins):
    """bounding_sphere_filter over the geometries' bounding radii rb (bounding_radii)."""
    keep = np.empty(pairs.shape[0], np.bool_)
    sphere_keep(pairs, types, R, p, rb, margins, keep)
    return pairs[keep]


@njit(cache=True, error_model="numpy")
def sphere_keep(pairs, types, R, p, rb, margins, keep):
    """sphere_filter's test of each pair into keep (pairs.shape[0],); returns the number kept."""
    nkeep = 0
    for q in range(pairs.shape[0]):
        i, j = pairs[q, 0], pairs[q, 1]
        ti, tj = types[i], types[j]
        keep[q] = True
        if ti == HFIELD or tj == HFIELD or ti > MESH or tj > MESH or (ti == PLANE and tj == PLANE):
            nkeep += 1
            continue
        margin = margins[i] + margins[j]
        if ti == PLANE or tj == PLANE:
            pl, o = (i, j) if ti == PLANE else (j, i)
            lim = margin + rb[o]
            d = (R[pl, 0, 2] * (p[o, 0] - p[pl, 0]) + R[pl, 1, 2] * (p[o, 1] - p[pl, 1])
                 + R[pl, 2, 2] * (p[o, 2] - p[pl, 2]))
            if d > lim + 1e-9 * (1.0 + abs(lim) + abs(d)):
                keep[q] = False
        else:
            lim = rb[i] + rb[j] + margin
            lim += 1e-9 * (1.0 + abs(lim))
            d2 = (p[i, 0] - p[j, 0]) ** 2 + (p[i, 1] - p[j, 1]) ** 2 + (p[i, 2] - p[j, 2]) ** 2
            if d2 > lim * lim:
                keep[q] = False
        nkeep += keep[q]
    return nkeep


@njit(cache=True, error_model="numpy")
def static_pairs(types, frame, contype, conaffinity, excluded_keys, limit):
    """(pairs (m, 2), listed): every pair (i < j, in row order) of bounded rows that broad_phase's filters keep and
    that has a contact routine (the only pairs the step's broad and narrow phases can give contacts for), and True;
    or no pairs and False when they number more than `limit` (LIST_MAX): sweeping is then cheaper."""
    n = types.shape[0]
    rows = np.empty(n, np.int64)
    nr = 0
    for g in range(n):
        if types[g] > HFIELD and (contype[g] != 0 or conaffinity[g] != 0):
            rows[nr] = g
            nr += 1
    out = np.empty((16, 2), np.int64)
    m = 0
    for a in range(nr):
        i = rows[a]
        for b in range(a + 1, nr):
            j = rows[b]
            if not has_collider(types[i], types[j]):
                continue
            if not pair_allowed(i, j, types, frame, contype, conaffinity, excluded_keys, n):
                continue
            if m == limit:
                return np.zeros((0, 2), np.int64), False
            if m == out.shape[0]:
                bigger = np.empty((2 * m, 2), np.int64)
                bigger[:m] = out[:m]
                out = bigger
            out[m, 0], out[m, 1] = i, j
            m += 1
    return out[:m].copy(), True


@njit(cache=True, error_model="numpy")
def _box_bound(g, k, upper, t, sizes, R, p, inflate, box, radii):
    """broad_phase's box bound of row g along world axis k (upper, else lower): exact for a primitive, the hull box's
    conservative bound for a mesh (t: the row's type)."""
    if t != MESH:
        e = _extent(t, sizes[g], R, g, k)
        return p[g, k] + e + inflate[g] if upper else p[g, k] - e - inflate[g]
    c = p[g, k] + R[g, k, 0] * box[g, 0] + R[g, k, 1] * box[g, 1] + R[g, k, 2] * box[g, 2]
    e = abs(R[g, k, 0]) * box[g, 3] + abs(R[g, k, 1]) * box[g, 4] + abs(R[g, k, 2]) * box[g, 5]
    e += 1e-9 * (abs(p[g, k]) + radii[g]) + 1e-300
    return c + e + inflate[g] if upper else c - e - inflate[g]


@njit(cache=True, error_model="numpy")
def _exact(g, s, types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex, have):
    """The exact box bound s of row g (s < 3: lower along axis s, else upper along s - 3): a primitive's box, a mesh's
    hull extreme climbed once per call (cached in ex / have)."""
    if types[g] != MESH:
        return _box_bound(g, s % 3, s >= 3, types[g], sizes, R, p, inflate, box, radii)
    if not have[g, s]:
        ex[g, s] = _mesh_bound(g, s % 3, s >= 3, R, p, verts, vadr, vnum, inflate, graph, gadr, radii)
        have[g, s] = True
    return ex[g, s]


@njit(cache=True, error_model="numpy")
def _sweep_positions(types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex, have):
    """Each bounded row's position in broad_phase's sweep order (its sort of the rows' exact lower x bounds, the
    same keys in the same order, so the same permutation whatever the ties); -1 for unbounded rows."""
    n = types.shape[0]
    finite = np.empty(n, np.int64)
    nfin = 0
    for g in range(n):
        if types[g] > HFIELD:
            finite[nfin] = g
            nfin += 1
    keys = np.empty(nfin)
    for a in range(nfin):
        keys[a] = _exact(finite[a], 0, types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex,
                         have)
    order = np.argsort(keys)
    pos = np.full(n, -1, np.int64)
    for a in range(nfin):
        pos[finite[order[a]]] = a
    return pos


@njit(cache=True, error_model="numpy")
def listed_pairs(types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, planes, cand):
    """sphere_filter(broad_phase(...), ...) of a scene whose pairs are listed (static_pairs: cand), with margins
    `inflate`: the listed pairs whose bounding spheres and boxes meet, in the sweep's order, then the unbounded rows'
    pairs `planes` (plane_pairs) that pass the sphere test. For poses with finite values."""
    n = types.shape[0]
    surv = np.empty(8, np.int64)
    m = 0
    ex = np.empty((0, 6))
    have = np.zeros((0, 6), np.bool_)
    for q in range(cand.shape[0]):
        i, j = cand[q, 0], cand[q, 1]
        # sphere_keep's test of two bounded rows, written out (a call per pair would count its arrays' references)
        lim = radii[i] + radii[j] + (inflate[i] + inflate[j])
        lim += 1e-9 * (1.0 + abs(lim))
        if (p[i, 0] - p[j, 0]) ** 2 + (p[i, 1] - p[j, 1]) ** 2 + (p[i, 2] - p[j, 2]) ** 2 > lim * lim:
            continue
        ti, tj = types[i], types[j]
        apart = False
        for k in range(3):  # broad_phase's boxes (a mesh's conservative)
            if (_box_bound(j, k, False, tj, sizes, R, p, inflate, box, radii)
                    > _box_bound(i, k, True, ti, sizes, R, p, inflate, box, radii)
                    or _box_bound(i, k, False, ti, sizes, R, p, inflate, box, radii)
                    > _box_bound(j, k, True, tj, sizes, R, p, inflate, box, radii)):
                apart = True
                break
        if apart:
            continue
        if ti == MESH or tj == MESH:  # the exact boxes; along x only the later row's lower against the other's upper
            if ex.shape[0] == 0:
                ex = np.empty((n, 6))
                have = np.zeros((n, 6), np.bool_)
            li = _exact(i, 0, types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex, have)
            lj = _exact(j, 0, types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex, have)
            u, w = (j, i) if li <= lj else (i, j)
            for s in range(5):
                a, sa, b, sb = box_test(s, u, w, i, j)
                if (_exact(a, sa, types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex, have)
                        > _exact(b, sb, types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex,
                                 have)):
                    apart = True
                    break
            if apart:
                continue
        if m == surv.shape[0]:
            bigger = np.empty(2 * m, np.int64)
            bigger[:m] = surv[:m]
            surv = bigger
        surv[m] = q
        m += 1
    if m >= 2:  # the sweep's order: by the position of the pair's earlier row, then of its later one
        if ex.shape[0] == 0:
            ex = np.empty((n, 6))
            have = np.zeros((n, 6), np.bool_)
        pos = _sweep_positions(types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii, box, ex, have)
        rank = np.empty(m, np.int64)
        for s in range(m):
            a, b = pos[cand[surv[s], 0]], pos[cand[surv[s], 1]]
            rank[s] = min(a, b) * n + max(a, b)
        order = np.argsort(rank)  # distinct ranks: any sort gives this order
        sorted_surv = np.empty(m, np.int64)
        for s in range(m):
            sorted_surv[s] = surv[order[s]]
        surv = sorted_surv
    keep = np.empty(planes.shape[0], np.bool_)
    nkeep = sphere_keep(planes, types, R, p, radii, inflate, keep)
    out = np.empty((m + nkeep, 2), np.int64)
    for s in range(m):
        out[s, 0], out[s, 1] = cand[surv[s], 0], cand[surv[s], 1]
    r = m
    for q in range(planes.shape[0]):
        if keep[q]:
            out[r, 0], out[r, 1] = planes[q, 0], planes[q, 1]
            r += 1
    return out
