"""Compiled polygon operations of hydroelastic contact surfaces (Drake's mesh_plane_intersection,
ClipPolygonByHalfSpace, RemoveNearlyDuplicateVertices and the contact-surface mesh builders).

Polygons are (k, 3) arrays of vertices wound counter-clockwise about their normal. `SurfaceBuffer` is a set of
growable arrays holding every face of the surfaces found in one query, in World: a face is a polygon (or, in the
triangle representation, one triangle of the polygon's fan around its centroid) with its unit normal (out of N into
M), centroid, area, pressure at the centroid and the pressure gradients of M and N (NaN for a rigid geometry).
"""
from __future__ import annotations

import numpy as np
from numba import njit

_NEAR_SQ = 1e-14 * 1e-14
#: Edges of a tetrahedron as pairs of local vertices.
_TET_EDGES = np.array([[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]], np.int64)


@njit(cache=True)
def dot3(a, b):
    """a·b of two 3-vectors (no BLAS call: these kernels take millions of small products)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def height(n, x, p0):
    """n·(x − p0) of 3-vectors."""
    return n[0] * (x[0] - p0[0]) + n[1] * (x[1] - p0[1]) + n[2] * (x[2] - p0[2])


@njit(cache=True)
def dist3(a, b):
    """|a − b| of 3-vectors."""
    return np.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


@njit(cache=True)
def cross3(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def matvec3(R, x):
    """R·x of a 3×3 matrix and a 3-vector."""
    return np.array([R[0, 0] * x[0] + R[0, 1] * x[1] + R[0, 2] * x[2], R[1, 0] * x[0] + R[1, 1] * x[1] + R[1, 2] * x[2],
                     R[2, 0] * x[0] + R[2, 1] * x[1] + R[2, 2] * x[2]])


@njit(cache=True)
def remove_near_duplicates(P, k):
    """Drops consecutive vertices closer than 1e-14 m (and a last vertex equal to the first); returns the new
    count (the vertices are compacted in place in P[:count])."""
    if k <= 1:
        return k
    m = 1
    for i in range(1, k):
        if dist3(P[i], P[m - 1]) ** 2 >= _NEAR_SQ:
            P[m] = P[i]
            m += 1
    if m >= 3:
        if dist3(P[0], P[m - 1]) ** 2 < _NEAR_SQ:
            m -= 1
    return m


@njit(cache=True)
def clip_by_half_space(P, k, n, p0, out):
    """Sutherland–Hodgman: the part of polygon P[:k] with n·(x − p0) <= 0 into out; returns its vertex count."""
    return _clip(P, k, n[0], n[1], n[2], n[0] * p0[0] + n[1] * p0[1] + n[2] * p0[2], out)


@njit(cache=True)
def _clip(P, k, nx, ny, nz, h0, out):
    """The part of P[:k] with n·x − h0 <= 0 into out (no allocation); returns its vertex count."""
    m = 0
    for i in range(k):
        j = i + 1 if i + 1 < k else 0
        di = nx * P[i, 0] + ny * P[i, 1] + nz * P[i, 2] - h0
        dj = nx * P[j, 0] + ny * P[j, 1] + nz * P[j, 2] - h0
        if di <= 0.0:
            for c in range(3):
                out[m, c] = P[i, c]
            m += 1
            if dj > 0.0:
                wa = dj / (dj - di)
                for c in range(3):
                    out[m, c] = wa * P[i, c] + (1.0 - wa) * P[j, c]
                m += 1
        elif dj <= 0.0:
            wa = dj / (dj - di)
            for c in range(3):
                out[m, c] = wa * P[i, c] + (1.0 - wa) * P[j, c]
            m += 1
    return m


@njit(cache=True)
def tetrahedron_face_planes(T4, planes):
    """The outward planes (n, n·x on the face; n unnormalized) of the tetrahedron's faces opposite each vertex, into
    planes (4, 4): n·x − planes[f, 3] > 0 outside face f."""
    for f in range(4):
        a, b, c, o = (f + 1) % 4, (f + 2) % 4, (f + 3) % 4, f
        ux, uy, uz = T4[b, 0] - T4[a, 0], T4[b, 1] - T4[a, 1], T4[b, 2] - T4[a, 2]
        vx, vy, vz = T4[c, 0] - T4[a, 0], T4[c, 1] - T4[a, 1], T4[c, 2] - T4[a, 2]
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        h0 = nx * T4[a, 0] + ny * T4[a, 1] + nz * T4[a, 2]
        if nx * T4[o, 0] + ny * T4[o, 1] + nz * T4[o, 2] - h0 > 0.0:  # the outward normal of the face opposite f
            nx, ny, nz, h0 = -nx, -ny, -nz, -h0
        planes[f, 0], planes[f, 1], planes[f, 2], planes[f, 3] = nx, ny, nz, h0


@njit(cache=True)
def clip_by_tetrahedron(P, k, T4, buf):
    """Polygon P[:k] clipped by the four faces of the tetrahedron with vertices T4 (4, 3); the result is in P,
    its count returned (0 when nothing remains). buf is scratch of P's shape."""
    planes = np.empty((4, 4))
    tetrahedron_face_planes(T4, planes)
    return clip_by_planes(P, k, planes, buf)


@njit(cache=True)
def clip_by_planes(P, k, planes, buf):
    """Polygon P[:k] clipped by the half spaces n·x − h <= 0 of planes (·, 4) [n, h] in turn; the result is in P,
    its count returned (0 when nothing remains). buf is scratch of P's shape."""
    for f in range(planes.shape[0]):
        k = _clip(P, k, planes[f, 0], planes[f, 1], planes[f, 2], planes[f, 3], buf)
        for i in range(k):
            for q in range(3):
                P[i, q] = buf[i, q]
        if k == 0:
            return 0
    return k


#: Drake's faces of a tetrahedron (ClipTriangleByTetrahedron): vertices (a, b, c), outward normal (b − a)×(c − a).
_DRAKE_TET_FACES = ((1, 2, 3), (0, 3, 2), (0, 1, 3), (0, 2, 1))


@njit(cache=True)
def _drake_height(n0, n1, n2, disp, x):
    """Plane::CalcHeight: n̂·x − displacement (Eigen's summation order)."""
    return (n0 * x[0] + n1 * x[1]) + n2 * x[2] - disp


@njit(cache=True)
def clip_by_tetrahedron_drake(P, k, T4, buf):
    """clip_by_tetrahedron with Drake's arithmetic (ClipTriangleByTetrahedron, ClipPolygonByHalfSpace,
    CalcIntersection): the faces in Drake's order, unit plane normals, a vertex kept when its height is <= 0 and
    each cut point wa·current + (1 − wa)·previous. The round-off of the cut points decides the sign of a face
    normal's tiny tilt, which decides whether a face whose pressure gradient lies in the contact plane becomes a
    discrete contact pair (a seed of the asymmetry of a flat impact); this keeps that decision Drake's."""
    for a, b, c in _DRAKE_TET_FACES:
        ux, uy, uz = T4[b, 0] - T4[a, 0], T4[b, 1] - T4[a, 1], T4[b, 2] - T4[a, 2]
        vx, vy, vz = T4[c, 0] - T4[a, 0], T4[c, 1] - T4[a, 1], T4[c, 2] - T4[a, 2]
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        mag = np.sqrt((nx * nx + ny * ny) + nz * nz)
        nx, ny, nz = nx / mag, ny / mag, nz / mag
        disp = (nx * T4[a, 0] + ny * T4[a, 1]) + nz * T4[a, 2]
        m = 0
        prev = k - 1
        hp = _drake_height(nx, ny, nz, disp, P[prev])
        for i in range(k):
            hc = _drake_height(nx, ny, nz, disp, P[i])
            if hc <= 0.0 or hp <= 0.0:
                if (hc <= 0.0) != (hp <= 0.0):  # CalcIntersection(current, previous)
                    wa = hp / (hp - hc)
                    wb = 1.0 - wa
                    for q in range(3):
                        buf[m, q] = wa * P[i, q] + wb * P[prev, q]
                    m += 1
                if hc <= 0.0:
                    for q in range(3):
                        buf[m, q] = P[i, q]
                    m += 1
            prev, hp = i, hc
        k = m
        for i in range(k):
            for q in range(3):
                P[i, q] = buf[i, q]
        if k == 0:
            return 0
    return k


@njit(cache=True)
def drake_polygon_area_centroid(P, k):
    """PolygonSurfaceMesh::CalcAreaNormalAndCentroid of the convex polygon P[:k] in its own frame: (area, centroid
    (3 floats), unit normal (3 floats)); Drake's fan about vertex 0 with |cross| weights and Σ cross as normal."""
    n0 = n1 = n2 = 0.0
    dbl = 0.0
    s0 = s1 = s2 = 0.0
    for i in range(1, k - 1):
        a0, a1, a2 = P[i, 0] - P[0, 0], P[i, 1] - P[0, 1], P[i, 2] - P[0, 2]
        b0, b1, b2 = P[i + 1, 0] - P[0, 0], P[i + 1, 1] - P[0, 1], P[i + 1, 2] - P[0, 2]
        x0, x1, x2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
        n0, n1, n2 = n0 + x0, n1 + x1, n2 + x2
        cm = np.sqrt((x0 * x0 + x1 * x1) + x2 * x2)
        dbl += cm
        s0 += cm * ((P[0, 0] + P[i, 0]) + P[i + 1, 0])
        s1 += cm * ((P[0, 1] + P[i, 1]) + P[i + 1, 1])
        s2 += cm * ((P[0, 2] + P[i, 2]) + P[i + 1, 2])
    area = dbl / 2.0
    ln = np.sqrt((n0 * n0 + n1 * n1) + n2 * n2)
    if ln > 0.0:
        n0, n1, n2 = n0 / ln, n1 / ln, n2 / ln
    if area != 0.0:
        c0, c1, c2 = s0 / 6.0 / area, s1 / 6.0 / area, s2 / 6.0 / area
    else:
        c0 = c1 = c2 = 0.0
        for i in range(k):
            c0, c1, c2 = c0 + P[i, 0], c1 + P[i, 1], c2 + P[i, 2]
        c0, c1, c2 = c0 / k, c1 / k, c2 / k
    return area, c0, c1, c2, n0, n1, n2


@njit(cache=True)
def slice_tetrahedron_points(T4, n, p0, out):
    """The points where the plane n·(x − p0) = 0 crosses the tetrahedron T4's edges, in edge order, into out;
    returns their count (0 when the plane misses it)."""
    h0, h1, h2, h3 = height(n, T4[0], p0), height(n, T4[1], p0), height(n, T4[2], p0), height(n, T4[3], p0)
    above = (h0 > 0.0) + (h1 > 0.0) + (h2 > 0.0) + (h3 > 0.0)
    if above == 0 or above == 4:
        return 0
    h = (h0, h1, h2, h3)
    k = 0
    for e in range(6):
        a, b = _TET_EDGES[e, 0], _TET_EDGES[e, 1]
        if (h[a] > 0.0) != (h[b] > 0.0):
            t = h[a] / (h[a] - h[b])
            for c in range(3):
                out[k, c] = T4[a, c] + t * (T4[b, c] - T4[a, c])
            k += 1
    return k


@njit(cache=True)
def slice_tetrahedron(T4, n, p0, out):
    """The polygon where the plane n·(x − p0) = 0 (n unit) cuts the tetrahedron T4 (4, 3), wound counter-clockwise
    about n, into out; returns its vertex count (0 when the plane misses it)."""
    k = slice_tetrahedron_points(T4, n, p0, out)
    if k < 3:
        return 0
    order_about_normal(out, k, n)
    return k


@njit(cache=True)
def order_about_normal(P, k, n):
    """Sorts the vertices of a convex planar polygon P[:k] counter-clockwise about n (in place). (Scalar arithmetic
    in the order of the vector expressions it replaces: no temporary arrays.)"""
    c0 = c1 = c2 = 0.0
    for i in range(k):
        c0 += P[i, 0]
        c1 += P[i, 1]
        c2 += P[i, 2]
    c0, c1, c2 = c0 / k, c1 / k, c2 / k
    t0, t1_, t2_ = (1.0, 0.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0, 0.0)
    tn = t0 * n[0] + t1_ * n[1] + t2_ * n[2]
    u0, u1, u2 = t0 - n[0] * tn, t1_ - n[1] * tn, t2_ - n[2] * tn
    ln = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    u0, u1, u2 = u0 / ln, u1 / ln, u2 / ln
    w0, w1, w2 = n[1] * u2 - n[2] * u1, n[2] * u0 - n[0] * u2, n[0] * u1 - n[1] * u0
    ang = np.empty(k)
    for i in range(k):
        d0, d1, d2 = P[i, 0] - c0, P[i, 1] - c1, P[i, 2] - c2
        ang[i] = np.arctan2(d0 * w0 + d1 * w1 + d2 * w2, d0 * u0 + d1 * u1 + d2 * u2)
    if k >= 16:
        idx = np.argsort(ang)
        tmp = P[:k].copy()
        for i in range(k):
            P[i] = tmp[idx[i]]
        return
    for i in range(1, k):  # the insertion sort numba's argsort runs on fewer than 16 items, moving rows in place
        a, x0, x1, x2 = ang[i], P[i, 0], P[i, 1], P[i, 2]
        j = i
        while j > 0 and (a < ang[j - 1] or (np.isnan(ang[j - 1]) and not np.isnan(a))):  # numba's lt_floats
            ang[j] = ang[j - 1]
            P[j, 0], P[j, 1], P[j, 2] = P[j - 1, 0], P[j - 1, 1], P[j - 1, 2]
            j -= 1
        ang[j] = a
        P[j, 0], P[j, 1], P[j, 2] = x0, x1, x2


@njit(cache=True)
def _grow(a, n):
    if n <= a.shape[0]:
        return a
    shape = (max(2 * a.shape[0], n),) + a.shape[1:]
    b = np.empty(shape, a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def new_buffer():
    """(vertices (·, 3), vertex pressures, face vertex indices (flat), face starts into them, face normals,
    centroids, areas, centroid pressures, grad M, grad N, counts [vertices, faces, indices]) with room to grow."""
    return (np.empty((256, 3)), np.empty(256), np.empty(512, np.int64), np.zeros(65, np.int64), np.empty((64, 3)),
            np.empty((64, 3)), np.empty(64), np.empty(64), np.empty((64, 3)), np.empty((64, 3)),
            np.zeros(3, np.int64))


@njit(cache=True)
def _polygon_area_centroid(V, h0, h1, h2):
    """(area, centroid, unit normal) of a convex planar polygon V (k, 3) as 7 floats (fan from vertex 0, Drake's
    CalcPolygonCentroid weights; the normal from the vertices' winding, the hint (h0, h1, h2) when degenerate).
    Scalar arithmetic in the order of the vector expressions it replaces (no temporary arrays)."""
    k = V.shape[0]
    s0 = s1 = s2 = 0.0
    for i in range(1, k - 1):
        a0, a1, a2 = V[i, 0] - V[0, 0], V[i, 1] - V[0, 1], V[i, 2] - V[0, 2]
        b0, b1, b2 = V[i + 1, 0] - V[0, 0], V[i + 1, 1] - V[0, 1], V[i + 1, 2] - V[0, 2]
        s0 += a1 * b2 - a2 * b1
        s1 += a2 * b0 - a0 * b2
        s2 += a0 * b1 - a1 * b0
    ln = np.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    if ln > 0.0:
        n0, n1, n2 = s0 / ln, s1 / ln, s2 / ln
    else:
        n0, n1, n2 = h0, h1, h2
    acc0 = acc1 = acc2 = 0.0
    w = 0.0
    for i in range(1, k - 1):
        a0, a1, a2 = V[i, 0] - V[0, 0], V[i, 1] - V[0, 1], V[i, 2] - V[0, 2]
        b0, b1, b2 = V[i + 1, 0] - V[0, 0], V[i + 1, 1] - V[0, 1], V[i + 1, 2] - V[0, 2]
        wi = (a1 * b2 - a2 * b1) * n0 + (a2 * b0 - a0 * b2) * n1 + (a0 * b1 - a1 * b0) * n2
        acc0 += wi * (V[0, 0] + V[i, 0] + V[i + 1, 0]) / 3.0
        acc1 += wi * (V[0, 1] + V[i, 1] + V[i + 1, 1]) / 3.0
        acc2 += wi * (V[0, 2] + V[i, 2] + V[i + 1, 2]) / 3.0
        w += wi
    if w == 0.0:
        c0 = c1 = c2 = 0.0
        for i in range(k):
            c0 += V[i, 0]
            c1 += V[i, 1]
            c2 += V[i, 2]
        return 0.5 * ln, c0 / k, c1 / k, c2 / k, n0, n1, n2
    return 0.5 * ln, acc0 / w, acc1 / w, acc2 / w, n0, n1, n2


@njit(cache=True)
def _rotate(R, x):
    """R·x of a 3×3 matrix and a 3-vector as three floats (matvec3's arithmetic)."""
    return (R[0, 0] * x[0] + R[0, 1] * x[1] + R[0, 2] * x[2], R[1, 0] * x[0] + R[1, 1] * x[1] + R[1, 2] * x[2],
            R[2, 0] * x[0] + R[2, 1] * x[1] + R[2, 2] * x[2])


@njit(cache=True)
def emit_polygon(buf, P, pr, k, n_L, g_first_L, g_other_L, R, p, swap, triangles, local=False):
    """Adds polygon P[:k] (local frame L, pressures pr[:k], unit normal n_L out of the other geometry into the
    first, gradients of the first's and the other's field in L, NaN when rigid) to the buffer in World, X_WL =
    (R, p). swap: the first geometry is N (its GeometryId is the larger), so the winding and normal are reversed
    and the gradients exchanged. triangles: the triangle representation (a fan around the centroid). local: the
    polygon's area, normal and centroid computed in L with Drake's arithmetic (drake_polygon_area_centroid), as
    Drake builds the soft-volume/rigid-surface mesh in the soft geometry's frame before moving it to World.
    Returns the buffer (its arrays may have been reallocated). Written without temporary arrays (this runs per face
    of every contact surface of every derivative evaluation)."""
    V, vp, fi, fs, fn, fc, fa, fp, gM, gN, cnt = buf
    nv, nf, ni = cnt[0], cnt[1], cnt[2]
    add_v = k + 1 if triangles else k
    add_f = k if triangles else 1
    add_i = 3 * k if triangles else k
    V = _grow(V, nv + add_v)
    vp = _grow(vp, nv + add_v)
    fi = _grow(fi, ni + add_i)
    fs = _grow(fs, nf + add_f + 1)
    fn = _grow(fn, nf + add_f)
    fc = _grow(fc, nf + add_f)
    fa = _grow(fa, nf + add_f)
    fp = _grow(fp, nf + add_f)
    gM = _grow(gM, nf + add_f)
    gN = _grow(gN, nf + add_f)
    for i in range(k):  # the polygon in World: W = V[nv:nv + k]
        src = k - 1 - i if swap else i
        x0, x1, x2 = P[src, 0], P[src, 1], P[src, 2]
        for j in range(3):  # matvec3(R, P[src]) + p
            V[nv + i, j] = (R[j, 0] * x0 + R[j, 1] * x1 + R[j, 2] * x2) + p[j]
        vp[nv + i] = pr[src]
    W = V[nv:nv + k]
    n0, n1, n2 = _rotate(R, n_L)
    f0, f1, f2 = _rotate(R, g_first_L)
    o0, o1, o2 = _rotate(R, g_other_L)
    if swap:
        n0, n1, n2 = -n0, -n1, -n2
    if local:  # Drake's soft-volume/rigid-surface mesh: area, normal, centroid in L, then moved to World
        area, l0, l1, l2, k0, k1, k2 = drake_polygon_area_centroid(P, k)
        m0, m1, m2 = _rotate(R, (k0, k1, k2))
        if swap:  # ContactSurface's SwapMAndN: the winding reversed, the normal negated
            m0, m1, m2 = -m0, -m1, -m2
        c0, c1, c2 = _rotate(R, (l0, l1, l2))
        c0, c1, c2 = c0 + p[0], c1 + p[1], c2 + p[2]
    else:
        area, c0, c1, c2, m0, m1, m2 = _polygon_area_centroid(W, n0, n1, n2)
    # the pressure is linear on the polygon: height(g_first, c, W[0])
    pc = vp[nv] + (f0 * (c0 - W[0, 0]) + f1 * (c1 - W[0, 1]) + f2 * (c2 - W[0, 2]))
    if swap:
        f0, f1, f2, o0, o1, o2 = o0, o1, o2, f0, f1, f2
    if not triangles:
        for i in range(k):
            fi[ni + i] = nv + i
        fs[nf + 1] = ni + k
        fn[nf, 0], fn[nf, 1], fn[nf, 2] = m0, m1, m2
        fc[nf, 0], fc[nf, 1], fc[nf, 2] = c0, c1, c2
        fa[nf], fp[nf] = area, pc
        gM[nf, 0], gM[nf, 1], gM[nf, 2] = f0, f1, f2
        gN[nf, 0], gN[nf, 1], gN[nf, 2] = o0, o1, o2
    else:
        ci = nv + k
        V[ci, 0], V[ci, 1], V[ci, 2] = c0, c1, c2
        vp[ci] = pc
        for i in range(k):  # Drake's fan: triangle (v[i-1], v[i], centroid)
            a, b = (i + k - 1) % k, i
            a0, a1, a2 = W[b, 0] - W[a, 0], W[b, 1] - W[a, 1], W[b, 2] - W[a, 2]
            b0, b1, b2 = c0 - W[a, 0], c1 - W[a, 1], c2 - W[a, 2]
            r0, r1, r2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
            ln = np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
            f = nf + i
            fi[ni + 3 * i], fi[ni + 3 * i + 1], fi[ni + 3 * i + 2] = nv + a, nv + b, ci
            fs[f + 1] = ni + 3 * i + 3
            if ln > 0.0:
                fn[f, 0], fn[f, 1], fn[f, 2] = r0 / ln, r1 / ln, r2 / ln
            else:
                fn[f, 0], fn[f, 1], fn[f, 2] = m0, m1, m2
            fc[f, 0] = (W[a, 0] + W[b, 0] + c0) / 3.0
            fc[f, 1] = (W[a, 1] + W[b, 1] + c1) / 3.0
            fc[f, 2] = (W[a, 2] + W[b, 2] + c2) / 3.0
            fa[f] = 0.5 * ln
            fp[f] = (vp[nv + a] + vp[nv + b] + pc) / 3.0
            gM[f, 0], gM[f, 1], gM[f, 2] = f0, f1, f2
            gN[f, 0], gN[f, 1], gN[f, 2] = o0, o1, o2
    cnt[0], cnt[1], cnt[2] = nv + add_v, nf + add_f, ni + add_i
    return (V, vp, fi, fs, fn, fc, fa, fp, gM, gN, cnt)
