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
    out = np.empty(3)
    _support_into(t, s, p, R, verts, g, r, d[0], d[1], d[2], out)
    return out


@njit(cache=True, error_model="numpy")
def _support_into(t, s, p, R, verts, g, r, d0, d1, d2, out):
    """support_g along world direction (d0, d1, d2), written into out: the same products and sums in the same
    order, in scalars (GJK asks for two support points per iteration; the arrays cost more than the arithmetic)."""
    l0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2
    l1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
    l2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
    x0 = x1 = x2 = 0.0
    if t == SPHERE or t == CAPSULE:
        n = math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)
        if n > 0:
            f = s[0] / n
            x0, x1, x2 = l0 * f, l1 * f, l2 * f
        elif t == SPHERE:
            x0 = s[0]
        if t == CAPSULE:
            x2 += s[1] if l2 >= 0 else -s[1]
    elif t == ELLIPSOID:
        e0, e1, e2 = s[0] * l0, s[1] * l1, s[2] * l2
        n = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        if n > 0:
            x0, x1, x2 = s[0] * e0 / n, s[1] * e1 / n, s[2] * e2 / n
        else:
            x0 = s[0]
    elif t == CYLINDER:
        n = math.sqrt(l0 * l0 + l1 * l1)
        if n > 0:
            x0 = l0 * s[0] / n
            x1 = l1 * s[0] / n
        x2 = s[1] if l2 >= 0 else -s[1]
    elif t == BOX:
        x0 = s[0] if l0 >= 0 else -s[0]
        x1 = s[1] if l1 >= 0 else -s[1]
        x2 = s[2] if l2 >= 0 else -s[2]
    elif g.shape[0] > 0 and l0 == l0 and l1 == l1 and l2 == l2:
        k = hull_extreme(verts, g, r, l0, l1, l2, 0.0)[0]  # the first farthest vertex, as the scan
        x0, x1, x2 = verts[k, 0], verts[k, 1], verts[k, 2]
    else:
        best = -1e300
        k = -1
        for i in range(verts.shape[0]):  # the first farthest vertex
            v = verts[i, 0] * l0 + verts[i, 1] * l1 + verts[i, 2] * l2
            if v > best:
                best = v
                k = i
        if k >= 0:
            x0, x1, x2 = verts[k, 0], verts[k, 1], verts[k, 2]
    out[0] = R[0, 0] * x0 + R[0, 1] * x1 + R[0, 2] * x2 + p[0]
    out[1] = R[1, 0] * x0 + R[1, 1] * x1 + R[1, 2] * x2 + p[1]
    out[2] = R[2, 0] * x0 + R[2, 1] * x1 + R[2, 2] * x2 + p[2]


@njit(cache=True, error_model="numpy", _nrt=False)
def _solve_small(ws, nq):
    """Solve the nq x nq system A x = b (nq <= 3) by Cramer's rule, A = ws[0:9] (rows of 3), b = ws[9:12], into
    x = ws[20:23] (zeros past nq); returns whether it is regular."""
    ws[20] = ws[21] = ws[22] = 0.0
    if nq == 1:
        if abs(ws[0]) <= 1e-300:
            return False
        ws[20] = ws[9] / ws[0]
        return True
    if nq == 2:
        det = ws[0] * ws[4] - ws[1] * ws[3]
        if abs(det) <= 1e-12 * abs(ws[0] * ws[4]) or det == 0.0:
            return False
        ws[20] = (ws[9] * ws[4] - ws[1] * ws[10]) / det
        ws[21] = (ws[0] * ws[10] - ws[9] * ws[3]) / det
        return True
    a00, a01, a02, a10, a11, a12, a20, a21, a22 = ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7], ws[8]
    b0, b1, b2 = ws[9], ws[10], ws[11]
    c0 = a11 * a22 - a12 * a21
    c1 = a12 * a20 - a10 * a22
    c2 = a10 * a21 - a11 * a20
    det = a00 * c0 + a01 * c1 + a02 * c2
    if abs(det) <= 1e-12 * abs(a00 * a11 * a22) or det == 0.0:
        return False
    inv = 1.0 / det
    ws[20] = (b0 * c0 + a01 * (a12 * b2 - b1 * a22) + a02 * (b1 * a21 - a11 * b2)) * inv
    ws[21] = (a00 * (b1 * a22 - a12 * b2) + b0 * c1 + a02 * (a10 * b2 - b1 * a20)) * inv
    ws[22] = (a00 * (a11 * b2 - b1 * a21) + a01 * (b1 * a20 - a10 * b2) + b0 * c2) * inv
    return True


@njit(cache=True, error_model="numpy")
def _closest_on_simplex(W, m, lam):
    """Closest point to the origin on the simplex W[:m] (m <= 4). Writes barycentric weights into
    ``lam`` (zeros for dropped vertices) and returns the point. Tries every face of the simplex
    (at most 15) and keeps the nearest projection with positive weights."""
    v = np.zeros(3)
    _closest_into(W, m, lam, v, np.empty(26), np.empty(4, np.int64))
    return v


@njit(cache=True, error_model="numpy", _nrt=False)
def _closest_into(W, m, lam, v, ws, idx):
    """_closest_on_simplex into v (zeros when no face qualifies), with scratch ws (26) and idx (4): the same
    products and sums in the same order, without the small arrays each face made."""
    best = 1e300
    v[0] = v[1] = v[2] = 0.0
    for i in range(4):
        ws[16 + i] = 0.0  # the best weights
    for mask in range(1, 1 << m):
        q = 0
        for i in range(m):
            if mask & (1 << i):
                idx[q] = i
                q += 1
        for i in range(4):
            ws[12 + i] = 0.0  # the weights l
        if q == 1:
            ws[12] = 1.0
        else:
            # minimize |sum l_i w_i| with sum l_i = 1: eliminate l_0
            i0 = idx[0]
            nq = q - 1
            for r in range(nq):
                ir = idx[r + 1]
                e0, e1, e2 = W[ir, 0] - W[i0, 0], W[ir, 1] - W[i0, 1], W[ir, 2] - W[i0, 2]
                ws[9 + r] = -(e0 * W[i0, 0] + e1 * W[i0, 1] + e2 * W[i0, 2])
                for c in range(nq):
                    ic = idx[c + 1]
                    ws[3 * r + c] = (e0 * (W[ic, 0] - W[i0, 0]) + e1 * (W[ic, 1] - W[i0, 1])
                                     + e2 * (W[ic, 2] - W[i0, 2]))
            if not _solve_small(ws, nq):
                continue
            ws[12] = 1.0 - (ws[20] + ws[21] + ws[22])
            for r in range(nq):
                ws[13 + r] = ws[20 + r]
        ok = True
        for r in range(q):
            if ws[12 + r] <= 0.0 and q > 1:
                ok = False
        if not ok:
            continue
        x0 = x1 = x2 = 0.0
        for r in range(q):
            lr = ws[12 + r]
            x0 += lr * W[idx[r], 0]
            x1 += lr * W[idx[r], 1]
            x2 += lr * W[idx[r], 2]
        d = x0 * x0 + x1 * x1 + x2 * x2
        if d < best:
            best = d
            v[0], v[1], v[2] = x0, x1, x2
            for i in range(4):
                ws[16 + i] = 0.0
            for r in range(q):
                ws[16 + idx[r]] = ws[12 + r]
    for i in range(4):
        lam[i] = ws[16 + i]


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
        v[0], v[1], v[2] = 1.0, 0.0, 0.0
    m = 0
    lam = np.zeros(4)
    a = np.empty(3)
    b = np.empty(3)
    w = np.empty(3)
    ws = np.empty(26)
    idx = np.empty(4, np.int64)
    scale = 1e-300
    for _ in range(_GJK_ITERS):  # (the support points and the simplex's closest point written in place)
        _support_into(t1, s1, p1, R1, v1, g1, r1, -v[0], -v[1], -v[2], a)
        _support_into(t2, s2, p2, R2, v2, g2, r2, v[0], v[1], v[2], b)
        for c in range(3):
            w[c] = a[c] - b[c]
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
            d0, d1, d2 = W[i, 0] - w[0], W[i, 1] - w[1], W[i, 2] - w[2]
            if d0 * d0 + d1 * d1 + d2 * d2 < 1e-26 * scale:
                dup = True
        if dup:
            return math.sqrt(vv), m, 0
        W[m] = w
        WA[m] = a
        WB[m] = b
        m += 1
        _closest_into(W, m, lam, v, ws, idx)
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
