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
def clip_by_tetrahedron(P, k, T4, buf):
    """Polygon P[:k] clipped by the four faces of the tetrahedron with vertices T4 (4, 3); the result is in P,
    its count returned (0 when nothing remains). buf is scratch of P's shape."""
    for f in range(4):
        a, b, c, o = (f + 1) % 4, (f + 2) % 4, (f + 3) % 4, f
        ux, uy, uz = T4[b, 0] - T4[a, 0], T4[b, 1] - T4[a, 1], T4[b, 2] - T4[a, 2]
        vx, vy, vz = T4[c, 0] - T4[a, 0], T4[c, 1] - T4[a, 1], T4[c, 2] - T4[a, 2]
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        h0 = nx * T4[a, 0] + ny * T4[a, 1] + nz * T4[a, 2]
        if nx * T4[o, 0] + ny * T4[o, 1] + nz * T4[o, 2] - h0 > 0.0:  # the outward normal of the face opposite f
            nx, ny, nz, h0 = -nx, -ny, -nz, -h0
        k = _clip(P, k, nx, ny, nz, h0, buf)
        for i in range(k):
            for q in range(3):
                P[i, q] = buf[i, q]
        if k == 0:
            return 0
    return k


@njit(cache=True)
def slice_tetrahedron(T4, n, p0, out):
    """The polygon where the plane n·(x − p0) = 0 (n unit) cuts the tetrahedron T4 (4, 3), wound counter-clockwise
    about n, into out; returns its vertex count (0 when the plane misses it)."""
    h = np.empty(4)
    above = 0
    for i in range(4):
        h[i] = height(n, T4[i], p0)
        if h[i] > 0.0:
            above += 1
    if above == 0 or above == 4:
        return 0
    k = 0
    for e in range(6):
        a, b = _TET_EDGES[e, 0], _TET_EDGES[e, 1]
        if (h[a] > 0.0) != (h[b] > 0.0):
            t = h[a] / (h[a] - h[b])
            for c in range(3):
                out[k, c] = T4[a, c] + t * (T4[b, c] - T4[a, c])
            k += 1
    if k < 3:
        return 0
    order_about_normal(out, k, n)
    return k


@njit(cache=True)
def order_about_normal(P, k, n):
    """Sorts the vertices of a convex planar polygon P[:k] counter-clockwise about n (in place)."""
    c = np.zeros(3)
    for i in range(k):
        c += P[i]
    c /= k
    t = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = t - n * dot3(t, n)
    t1 /= np.sqrt(dot3(t1, t1))
    t2 = cross3(n, t1)
    ang = np.empty(k)
    for i in range(k):
        d = P[i] - c
        ang[i] = np.arctan2(dot3(d, t2), dot3(d, t1))
    idx = np.argsort(ang)
    tmp = P[:k].copy()
    for i in range(k):
        P[i] = tmp[idx[i]]


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
def _polygon_area_centroid(V, n_hint):
    """(area, centroid, unit normal) of a convex planar polygon V (k, 3) (fan from vertex 0, Drake's
    CalcPolygonCentroid weights; the normal from the vertices' winding, n_hint when degenerate)."""
    k = V.shape[0]
    s = np.zeros(3)
    for i in range(1, k - 1):
        s += cross3(V[i] - V[0], V[i + 1] - V[0])
    ln = np.sqrt(dot3(s, s))
    n = s / ln if ln > 0.0 else n_hint.copy()
    acc = np.zeros(3)
    w = 0.0
    for i in range(1, k - 1):
        wi = dot3(cross3(V[i] - V[0], V[i + 1] - V[0]), n)
        acc += wi * (V[0] + V[i] + V[i + 1]) / 3.0
        w += wi
    if w == 0.0:
        c = np.zeros(3)
        for i in range(k):
            c += V[i]
        return 0.5 * ln, c / k, n
    return 0.5 * ln, acc / w, n


@njit(cache=True)
def emit_polygon(buf, P, pr, k, n_L, g_first_L, g_other_L, R, p, swap, triangles):
    """Adds polygon P[:k] (local frame L, pressures pr[:k], unit normal n_L out of the other geometry into the
    first, gradients of the first's and the other's field in L, NaN when rigid) to the buffer in World, X_WL =
    (R, p). swap: the first geometry is N (its GeometryId is the larger), so the winding and normal are reversed
    and the gradients exchanged. triangles: the triangle representation (a fan around the centroid).
    Returns the buffer (its arrays may have been reallocated)."""
    V, vp, fi, fs, fn, fc, fa, fp, gM, gN, cnt = buf
    W = np.empty((k, 3))
    q = np.empty(k)
    for i in range(k):
        src = k - 1 - i if swap else i
        W[i] = matvec3(R, P[src]) + p
        q[i] = pr[src]
    n_W = matvec3(R, n_L)
    g_first = matvec3(R, g_first_L)
    g1, g2 = g_first, matvec3(R, g_other_L)
    if swap:
        n_W = -n_W
        g1, g2 = g2, g1
    area, c, n = _polygon_area_centroid(W, n_W)
    pc = q[0] + height(g_first, c, W[0])  # the pressure is linear on the polygon
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
    for i in range(k):
        V[nv + i] = W[i]
        vp[nv + i] = q[i]
    if not triangles:
        for i in range(k):
            fi[ni + i] = nv + i
        fs[nf + 1] = ni + k
        fn[nf], fc[nf], fa[nf], fp[nf], gM[nf], gN[nf] = n, c, area, pc, g1, g2
    else:
        ci = nv + k
        V[ci] = c
        vp[ci] = pc
        for i in range(k):  # Drake's fan: triangle (v[i-1], v[i], centroid)
            a, b = (i + k - 1) % k, i
            cr = cross3(W[b] - W[a], c - W[a])
            ln = np.sqrt(dot3(cr, cr))
            f = nf + i
            fi[ni + 3 * i], fi[ni + 3 * i + 1], fi[ni + 3 * i + 2] = nv + a, nv + b, ci
            fs[f + 1] = ni + 3 * i + 3
            fn[f] = cr / ln if ln > 0.0 else n
            fc[f] = (W[a] + W[b] + c) / 3.0
            fa[f] = 0.5 * ln
            fp[f] = (q[a] + q[b] + pc) / 3.0
            gM[f], gN[f] = g1, g2
    cnt[0], cnt[1], cnt[2] = nv + add_v, nf + add_f, ni + add_i
    return (V, vp, fi, fs, fn, fc, fa, fp, gM, gN, cnt)
