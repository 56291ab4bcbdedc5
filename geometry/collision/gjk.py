"""General convex collision: support functions, GJK (distance and witness points) and EPA
(penetration depth and normal) over the Minkowski difference A - B.

Shapes are given by type code, size (half extents), pose (p, R) and, for meshes, the hull
vertices in the geometry frame. Used for exact signed distances and penetration depths
(narrowphase.signed_distance, point_distance); contacts use MuJoCo 4's own GJK/EPA (collision/ccd.py).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision._vec import cross3, dot3, matTvec, matvec
from mallard.geometry.collision.mesh_graph import hull_extreme

SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = 2, 3, 4, 5, 6, 7

_GJK_ITERS = 128
_EPA_ITERS = 250
_MAXV = 260
_MAXF = 4 * _MAXV  # alive faces stay below 2 _MAXV; compaction keeps room for one expansion


@njit(cache=True, error_model="numpy")
def support(t, s, p, R, verts, d):
    """The point of shape (t, s, p, R, verts) farthest along world direction ``d``."""
    return support_g(t, s, p, R, verts, np.zeros(0, np.int64), 0.0, d)


@njit(cache=True, error_model="numpy")
def support_g(t, s, p, R, verts, g, r, d):
    """``support`` with a mesh's hull graph g and bounding radius r (collision/mesh_graph.py; g empty: a scan):
    the same vertex as the scan, found by climbing the graph."""
    dl = matTvec(R, d)
    x = np.zeros(3)
    if t == SPHERE:
        n = math.sqrt(dot3(dl, dl))
        if n > 0:
            x = dl * (s[0] / n)
        else:
            x[0] = s[0]
    elif t == CAPSULE:
        n = math.sqrt(dot3(dl, dl))
        if n > 0:
            x = dl * (s[0] / n)
        x[2] += s[1] if dl[2] >= 0 else -s[1]
    elif t == ELLIPSOID:
        sd = s * dl
        n = math.sqrt(dot3(sd, sd))
        if n > 0:
            x = s * sd / n
        else:
            x[0] = s[0]
    elif t == CYLINDER:
        n = math.sqrt(dl[0] * dl[0] + dl[1] * dl[1])
        if n > 0:
            x[0] = dl[0] * s[0] / n
            x[1] = dl[1] * s[0] / n
        x[2] = s[1] if dl[2] >= 0 else -s[1]
    elif t == BOX:
        for i in range(3):
            x[i] = s[i] if dl[i] >= 0 else -s[i]
    elif g.shape[0] > 0 and dl[0] == dl[0] and dl[1] == dl[1] and dl[2] == dl[2]:
        k = hull_extreme(verts, g, r, dl[0], dl[1], dl[2], 0.0)[0]  # the first farthest vertex, as the scan
        x = verts[k].copy()
    else:
        best = -1e300
        k = -1
        for i in range(verts.shape[0]):  # the first farthest vertex (copied once, after the scan)
            v = verts[i, 0] * dl[0] + verts[i, 1] * dl[1] + verts[i, 2] * dl[2]
            if v > best:
                best = v
                k = i
        if k >= 0:
            x = verts[k].copy()
    return matvec(R, x) + p


@njit(cache=True, error_model="numpy")
def _solve_small(A, b, nq):
    """Solve the nq x nq system A x = b (nq <= 3) by Cramer's rule; returns (x, ok)."""
    x = np.zeros(3)
    if nq == 1:
        if abs(A[0, 0]) <= 1e-300:
            return x, False
        x[0] = b[0] / A[0, 0]
        return x, True
    if nq == 2:
        det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
        if abs(det) <= 1e-12 * abs(A[0, 0] * A[1, 1]) or det == 0.0:
            return x, False
        x[0] = (b[0] * A[1, 1] - A[0, 1] * b[1]) / det
        x[1] = (A[0, 0] * b[1] - b[0] * A[1, 0]) / det
        return x, True
    c0 = A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1]
    c1 = A[1, 2] * A[2, 0] - A[1, 0] * A[2, 2]
    c2 = A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]
    det = A[0, 0] * c0 + A[0, 1] * c1 + A[0, 2] * c2
    if abs(det) <= 1e-12 * abs(A[0, 0] * A[1, 1] * A[2, 2]) or det == 0.0:
        return x, False
    inv = 1.0 / det
    x[0] = (b[0] * c0 + A[0, 1] * (A[1, 2] * b[2] - b[1] * A[2, 2]) + A[0, 2] * (b[1] * A[2, 1] - A[1, 1] * b[2])) * inv
    x[1] = (A[0, 0] * (b[1] * A[2, 2] - A[1, 2] * b[2]) + b[0] * c1 + A[0, 2] * (A[1, 0] * b[2] - b[1] * A[2, 0])) * inv
    x[2] = (A[0, 0] * (A[1, 1] * b[2] - b[1] * A[2, 1]) + A[0, 1] * (b[1] * A[2, 0] - A[1, 0] * b[2]) + b[0] * c2) * inv
    return x, True


@njit(cache=True, error_model="numpy")
def _closest_on_simplex(W, m, lam):
    """Closest point to the origin on the simplex W[:m] (m <= 4). Writes barycentric weights into
    ``lam`` (zeros for dropped vertices) and returns the point. Tries every face of the simplex
    (at most 15) and keeps the nearest projection with positive weights."""
    best = 1e300
    bestv = np.zeros(3)
    bestlam = np.zeros(4)
    idx = np.empty(4, np.int64)
    A = np.empty((3, 3))
    b = np.empty(3)
    l = np.zeros(4)
    for mask in range(1, 1 << m):
        q = 0
        for i in range(m):
            if mask & (1 << i):
                idx[q] = i
                q += 1
        l[:] = 0.0
        if q == 1:
            l[0] = 1.0
        else:
            # minimize |sum l_i w_i| with sum l_i = 1: eliminate l_0
            w0 = W[idx[0]]
            nq = q - 1
            for r in range(nq):
                er = W[idx[r + 1]] - w0
                b[r] = -dot3(er, w0)
                for c in range(nq):
                    A[r, c] = dot3(er, W[idx[c + 1]] - w0)
            sol, ok = _solve_small(A, b, nq)
            if not ok:
                continue
            l[0] = 1.0 - (sol[0] + sol[1] + sol[2])
            for r in range(nq):
                l[r + 1] = sol[r]
        ok = True
        for r in range(q):
            if l[r] <= 0.0 and q > 1:
                ok = False
        if not ok:
            continue
        v = np.zeros(3)
        for r in range(q):
            v += l[r] * W[idx[r]]
        d = dot3(v, v)
        if d < best:
            best = d
            bestv = v
            bestlam[:] = 0.0
            for r in range(q):
                bestlam[idx[r]] = l[r]
    lam[:] = bestlam
    return bestv


@njit(cache=True, error_model="numpy")
def gjk(t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, W, WA, WB):
    """GJK on A - B. Returns (distance, m, status): status 0 = separated (distance > 0, witness
    points from the simplex W/WA/WB[:m] and weights W[4]... see ``witness``), 1 = overlapping
    (simplex holds up to 4 points of A - B, the origin inside or on it)."""
    return gjk_cutoff(t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, W, WA, WB, math.inf)


@njit(cache=True, error_model="numpy")
def gjk_cutoff(t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, W, WA, WB, cutoff):
    """gjk_g without hull graphs."""
    z = np.zeros(0, np.int64)
    return gjk_g(t1, s1, p1, R1, v1, z, 0.0, t2, s2, p2, R2, v2, z, 0.0, W, WA, WB, cutoff)


@njit(cache=True, error_model="numpy")
def gjk_g(t1, s1, p1, R1, v1, g1, r1, t2, s2, p2, R2, v2, g2, r2, W, WA, WB, cutoff):
    """``gjk`` that stops as soon as a support plane proves the distance larger than ``cutoff`` (MuJoCo's GJK
    cutoff: a pair farther apart than its margin has no contact): then returns (a lower bound of the distance,
    above cutoff, m, 0) without witness points. The bound v·w/|v| (w the support point of A - B along -v) holds
    for any v; a 1e-9 relative slack keeps the test conservative under rounding, so a pair it stops has no
    contact in the full iteration either."""
    v = p1 - p2
    if dot3(v, v) < 1e-24:
        v = np.array([1.0, 0.0, 0.0])
    m = 0
    lam = np.zeros(4)
    scale = 1e-300
    for _ in range(_GJK_ITERS):
        a = support_g(t1, s1, p1, R1, v1, g1, r1, -v)
        b = support_g(t2, s2, p2, R2, v2, g2, r2, v)
        w = a - b
        vv = dot3(v, v)
        ww = dot3(w, w)
        scale = max(scale, ww)
        vw = dot3(v, w)
        if vw > 0.0 and vw > cutoff * math.sqrt(vv) + 1e-9 * math.sqrt(vv * ww):
            return vw / math.sqrt(vv), m, 0
        if m > 0 and vv - dot3(v, w) <= 1e-13 * vv:
            return math.sqrt(vv), m, 0
        dup = False
        for i in range(m):
            d = W[i] - w
            if dot3(d, d) < 1e-26 * scale:
                dup = True
        if dup:
            return math.sqrt(vv), m, 0
        W[m] = w
        WA[m] = a
        WB[m] = b
        m += 1
        v = _closest_on_simplex(W, m, lam)
        q = 0
        for i in range(m):
            if lam[i] > 0:
                W[q] = W[i]
                WA[q] = WA[i]
                WB[q] = WB[i]
                lam[q] = lam[i]
                q += 1
        m = q
        if m == 4 or dot3(v, v) < 1e-26 * scale:
            return 0.0, m, 1
    return math.sqrt(dot3(v, v)), m, 0


@njit(cache=True, error_model="numpy")
def witness(W, WA, WB, m):
    """Witness points (on A, on B) of the GJK simplex W[:m]."""
    lam = np.zeros(4)
    _closest_on_simplex(W, m, lam)
    pa = np.zeros(3)
    pb = np.zeros(3)
    for i in range(m):
        pa += lam[i] * WA[i]
        pb += lam[i] * WB[i]
    return pa, pb


@njit(cache=True, error_model="numpy")
def _face_plane(V, i, j, k):
    n = cross3(V[j] - V[i], V[k] - V[i])
    ln = math.sqrt(dot3(n, n))
    if ln < 1e-300:
        return n, 0.0, False
    n = n / ln
    return n, dot3(n, V[i]), True


@njit(cache=True, error_model="numpy")
def epa(t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, W, WA, WB, m):
    """Expanding polytope from a GJK simplex containing the origin. Returns (depth, normal n from
    A to B, witness on A, witness on B); depth < 0 if the polytope could not be built."""
    z = np.zeros(0, np.int64)
    return epa_g(t1, s1, p1, R1, v1, z, 0.0, t2, s2, p2, R2, v2, z, 0.0, W, WA, WB, m)


@njit(cache=True, error_model="numpy")
def epa_g(t1, s1, p1, R1, v1, g1, r1, t2, s2, p2, R2, v2, g2, r2, W, WA, WB, m):
    """``epa`` with the meshes' hull graphs (support_g)."""
    V = np.zeros((_MAXV, 3))
    VA = np.zeros((_MAXV, 3))
    VB = np.zeros((_MAXV, 3))
    nv = m
    for i in range(m):
        V[i] = W[i]
        VA[i] = WA[i]
        VB[i] = WB[i]
    # grow the simplex to a tetrahedron
    dirs = np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0], [0, -1.0, 0], [0, 0, 1.0], [0, 0, -1.0]])
    scale = 1e-300
    for i in range(nv):
        scale = max(scale, math.sqrt(dot3(V[i], V[i])))
    guard = 0
    while nv < 4 and guard < 40:
        guard += 1
        if nv == 3:
            n = cross3(V[1] - V[0], V[2] - V[0])
            cand = np.empty((2, 3))
            cand[0] = n
            cand[1] = -n
        elif nv == 2:
            e = V[1] - V[0]
            a = np.array([1.0, 0.0, 0.0]) if abs(e[0]) < 0.6 * math.sqrt(dot3(e, e)) else np.array([0.0, 1.0, 0.0])
            p = cross3(e, a)
            q = cross3(e, p)
            cand = np.empty((4, 3))
            cand[0] = p
            cand[1] = -p
            cand[2] = q
            cand[3] = -q
        else:
            cand = dirs
        added = False
        bestgain = 0.0
        for c in range(cand.shape[0]):
            d = cand[c]
            a = support_g(t1, s1, p1, R1, v1, g1, r1, d)
            b = support_g(t2, s2, p2, R2, v2, g2, r2, -d)
            w = a - b
            # gain: distance of w from the affine hull of the current points
            if nv == 1:
                g = math.sqrt(dot3(w - V[0], w - V[0]))
            elif nv == 2:
                e = V[1] - V[0]
                r = cross3(e, w - V[0])
                g = math.sqrt(dot3(r, r) / max(dot3(e, e), 1e-300))
            else:
                n = cross3(V[1] - V[0], V[2] - V[0])
                g = abs(dot3(n, w - V[0])) / max(math.sqrt(dot3(n, n)), 1e-300)
            if g > bestgain:
                bestgain = g
                V[nv] = w
                VA[nv] = a
                VB[nv] = b
        if bestgain > 1e-12 * max(scale, 1e-12):
            nv += 1
            added = True
        if not added:
            break
    if nv < 4:
        # flat Minkowski difference (touching): zero depth along the best available normal
        return 0.0, np.zeros(3), np.zeros(3), np.zeros(3)

    F = np.zeros((_MAXF, 3), np.int64)
    FN = np.zeros((_MAXF, 3))
    FD = np.zeros(_MAXF)
    alive = np.zeros(_MAXF, np.bool_)
    nf = 0
    # orient the tetrahedron's faces outward
    cen = (V[0] + V[1] + V[2] + V[3]) / 4.0
    tet = ((0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2))
    for f in range(4):
        i, j, k = tet[f]
        n, d, _ok = _face_plane(V, i, j, k)
        if dot3(n, V[i] - cen) < 0:
            j, k = k, j
            n, d, _ok = _face_plane(V, i, j, k)
        F[nf, 0] = i
        F[nf, 1] = j
        F[nf, 2] = k
        FN[nf] = n
        FD[nf] = d
        alive[nf] = True
        nf += 1

    edges = np.zeros((3 * _MAXF, 2), np.int64)
    for i in range(4):
        scale = max(scale, math.sqrt(dot3(V[i], V[i])))
    tol = 1e-11 * scale
    last = -1.0
    res_n = np.zeros(3)
    res_a = np.zeros(3)
    res_b = np.zeros(3)
    for _ in range(_EPA_ITERS):
        if nf > _MAXF // 2:
            q = 0
            for f in range(nf):
                if alive[f]:
                    F[q] = F[f]
                    FN[q] = FN[f]
                    FD[q] = FD[f]
                    alive[q] = True
                    q += 1
            for f in range(q, nf):
                alive[f] = False
            nf = q
        best = -1
        bd = 1e300
        for f in range(nf):
            if alive[f] and FD[f] < bd:
                bd = FD[f]
                best = f
        if best < 0 or bd < last - tol or bd < -tol:
            break  # rounding broke the polytope: keep the last consistent face
        last = bd
        n = FN[best].copy()
        _face_witness(V, VA, VB, F[best, 0], F[best, 1], F[best, 2], n, bd, res_a, res_b)
        res_n[:] = n
        # support of A - B along the face normal n is a(n) - b(-n)
        a = support_g(t1, s1, p1, R1, v1, g1, r1, n)
        b = support_g(t2, s2, p2, R2, v2, g2, r2, -n)
        w = a - b
        if dot3(w, n) - bd <= tol or nv >= _MAXV:
            break
        V[nv] = w
        VA[nv] = a
        VB[nv] = b
        ne = 0
        for f in range(nf):
            if alive[f] and dot3(FN[f], w - V[F[f, 0]]) > 0.0:
                alive[f] = False
                for e in range(3):
                    ea = F[f, e]
                    eb = F[f, (e + 1) % 3]
                    # an edge shared with another removed face appears reversed: cancel it
                    found = -1
                    for q in range(ne):
                        if edges[q, 0] == eb and edges[q, 1] == ea:
                            found = q
                            break
                    if found >= 0:
                        edges[found] = edges[ne - 1]
                        ne -= 1
                    else:
                        edges[ne, 0] = ea
                        edges[ne, 1] = eb
                        ne += 1
        for q in range(ne):
            if nf >= _MAXF:
                break
            i, j = edges[q, 0], edges[q, 1]
            n2, d2, ok = _face_plane(V, i, j, nv)
            if not ok:
                continue
            F[nf, 0] = i
            F[nf, 1] = j
            F[nf, 2] = nv
            FN[nf] = n2
            FD[nf] = d2
            alive[nf] = True
            nf += 1
        nv += 1
    if last < 0:
        return -1.0, np.zeros(3), np.zeros(3), np.zeros(3)
    # the origin lies inside A - B and n points out of it: translating A by -n*depth separates
    # the shapes, so B lies along +n from A
    return last, res_n, res_a, res_b


@njit(cache=True, error_model="numpy")
def _face_witness(V, VA, VB, i, j, k, n, depth, pa, pb):
    """Witness points on A and B for the origin's projection n*depth onto face (i, j, k)."""
    x = n * depth
    e0 = V[j] - V[i]
    e1 = V[k] - V[i]
    e2 = x - V[i]
    d00 = dot3(e0, e0)
    d01 = dot3(e0, e1)
    d11 = dot3(e1, e1)
    d20 = dot3(e2, e0)
    d21 = dot3(e2, e1)
    den = d00 * d11 - d01 * d01
    if abs(den) < 1e-300:
        lb, lc = 0.0, 0.0
    else:
        lb = (d11 * d20 - d01 * d21) / den
        lc = (d00 * d21 - d01 * d20) / den
    la = 1.0 - lb - lc
    pa[:] = la * VA[i] + lb * VA[j] + lc * VA[k]
    pb[:] = la * VB[i] + lb * VB[j] + lc * VB[k]
