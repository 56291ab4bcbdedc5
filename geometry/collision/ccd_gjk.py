"""MuJoCo 4's native GJK (engine_collision_gjk.c as MuJoCo 4.0 runs it): support points of the shapes and of
their Minkowski difference A - B with MuJoCo's rounding, the signed-volume distance subalgorithm (Montanari et al.
2017) and the GJK loop with its stopping rules. A shape is a tuple (type, size, p, R, hull vertices, hull graph,
bounding radius, margin) in the world frame; a margin inflates it by half its value (MuJoCo's ccd objects).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision.mesh_graph import hull_extreme

SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = 2, 3, 4, 5, 6, 7
POINT, LINE = 100, 101  # a sphere shrunk to its centre, a capsule to its segment

MINVAL = 1e-15
MINVAL2 = MINVAL * MINVAL
MAXVAL2 = 1e10 * 1e10
MAXLIM = 1.7976931348623157e308  # DBL_MAX


@njit(cache=True, error_model="numpy")
def _support1(t, s, p, R, verts, g, r, d0, d1, d2, out):
    """MuJoCo's support point of one shape along the unit world direction d (its rounding) into out; returns
    the box corner or mesh vertex index (-1 for smooth shapes)."""
    if t == POINT:
        out[0], out[1], out[2] = p[0], p[1], p[2]
        return -1
    if t == SPHERE:
        out[0] = s[0] * d0 + p[0]
        out[1] = s[0] * d1 + p[1]
        out[2] = s[0] * d2 + p[2]
        return -1
    if t == LINE:
        dot = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
        scl = s[1] if dot >= 0 else -s[1]
        out[0] = R[0, 2] * scl + p[0]
        out[1] = R[1, 2] * scl + p[1]
        out[2] = R[2, 2] * scl + p[2]
        return -1
    l0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2
    l1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
    l2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
    idx = -1
    if t == CAPSULE:
        x0, x1, x2 = l0 * s[0], l1 * s[0], l2 * s[0]
        x2 += s[1] if l2 >= 0 else -s[1]
    elif t == ELLIPSOID:
        x0, x1, x2 = l0 * s[0], l1 * s[1], l2 * s[2]
        n2 = x0 * x0 + x1 * x1 + x2 * x2
        if n2 < MINVAL2:
            out[0] = R[0, 0] * s[0] + p[0]
            out[1] = R[1, 0] * s[0] + p[1]
            out[2] = R[2, 0] * s[0] + p[2]
            return -1
        ninv = 1 / math.sqrt(n2)
        x0 *= ninv * s[0]
        x1 *= ninv * s[1]
        x2 *= ninv * s[2]
    elif t == CYLINDER:
        n2 = l0 * l0 + l1 * l1
        scl = s[0] / math.sqrt(n2) if n2 >= MINVAL2 else 0.0
        x0, x1 = scl * l0, scl * l1
        x2 = s[1] if l2 >= 0 else -s[1]
    elif t == BOX:
        x0 = s[0] if l0 >= 0 else -s[0]
        x1 = s[1] if l1 >= 0 else -s[1]
        x2 = s[2] if l2 >= 0 else -s[2]
        idx = (1 if x0 > 0 else 0) | (2 if x1 > 0 else 0) | (4 if x2 > 0 else 0)
    else:  # mesh: the first farthest hull vertex
        if g.shape[0] > 0 and l0 == l0 and l1 == l1 and l2 == l2:
            idx = hull_extreme(verts, g, r, l0, l1, l2, 0.0)[0]
        else:
            best = -3.4028234663852886e38
            idx = 0
            for i in range(verts.shape[0]):
                v = l0 * verts[i, 0] + l1 * verts[i, 1] + l2 * verts[i, 2]
                if v > best:
                    best = v
                    idx = i
        x0, x1, x2 = verts[idx, 0], verts[idx, 1], verts[idx, 2]
    out[0] = R[0, 0] * x0 + R[0, 1] * x1 + R[0, 2] * x2 + p[0]
    out[1] = R[1, 0] * x0 + R[1, 1] * x1 + R[1, 2] * x2 + p[1]
    out[2] = R[2, 0] * x0 + R[2, 1] * x1 + R[2, 2] * x2 + p[2]
    return idx


@njit(cache=True, error_model="numpy")
def support_ab(A, B, d0, d1, d2, V, V1, V2, VI, i):
    """Vertex i of A - B along d (and -d for B), with the shapes' margins (half each, MuJoCo's inflation)."""
    t1, s1, p1, R1, v1, g1, r1, m1 = A
    t2, s2, p2, R2, v2, g2, r2, m2 = B
    VI[i, 0] = _support1(t1, s1, p1, R1, v1, g1, r1, d0, d1, d2, V1[i])
    if m1 > 0:
        h = 0.5 * m1
        V1[i, 0] += d0 * h
        V1[i, 1] += d1 * h
        V1[i, 2] += d2 * h
    n0, n1, n2 = -d0, -d1, -d2
    VI[i, 1] = _support1(t2, s2, p2, R2, v2, g2, r2, n0, n1, n2, V2[i])
    if m2 > 0:
        h = 0.5 * m2
        V2[i, 0] += n0 * h
        V2[i, 1] += n1 * h
        V2[i, 2] += n2 * h
    for c in range(3):
        V[i, c] = V1[i, c] - V2[i, c]


@njit(cache=True, error_model="numpy")
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, error_model="numpy")
def cross_into(r, a, b):
    r[0] = a[1] * b[2] - a[2] * b[1]
    r[1] = a[2] * b[0] - a[0] * b[2]
    r[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True, error_model="numpy")
def det3(a, b, c):
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


@njit(cache=True, error_model="numpy")
def _lincomb(res, lam, n, W):
    """res = Σ lam[k]·W[k] over k < n, summed left to right as MuJoCo's lincomb."""
    for c in range(3):
        acc = lam[0] * W[0, c]
        for k in range(1, n):
            acc = acc + lam[k] * W[k, c]
        res[c] = acc if n > 0 else 0.0


@njit(cache=True, error_model="numpy")
def _same_sign(a, b):
    if a > 0 and b > 0:
        return 1
    if a < 0 and b < 0:
        return -1
    return 0


@njit(cache=True, error_model="numpy")
def _plane_try(res, a, b, v, last):
    """One of projectOriginPlane's three normals n = a × b: 1 projected, 0 try the next, -1 degenerate."""
    n0 = a[1] * b[2] - a[2] * b[1]
    n1 = a[2] * b[0] - a[0] * b[2]
    n2 = a[0] * b[1] - a[1] * b[0]
    nv = n0 * v[0] + n1 * v[1] + n2 * v[2]
    nn = n0 * n0 + n1 * n1 + n2 * n2
    if not last:
        if nn == 0:
            return -1
        if not (nv != 0 and nn > MINVAL):
            return 0
    f = nv / nn
    res[0], res[1], res[2] = n0 * f, n1 * f, n2 * f
    return 1


@njit(cache=True, error_model="numpy")
def project_origin_plane(res, v1, v2, v3):
    """The origin projected on the plane through v1, v2, v3 into res; 1 when the triangle is degenerate."""
    d21 = v2 - v1
    d31 = v3 - v1
    d32 = v3 - v2
    r = _plane_try(res, d32, d21, v2, False)
    if r == 0:
        r = _plane_try(res, d21, d31, v1, False)
        if r == 0:
            r = _plane_try(res, d31, d32, v3, True)
    return 1 if r < 0 else 0


@njit(cache=True, error_model="numpy")
def _s1d(lam, s1, s2):
    diff = s2 - s1
    scl = -(dot(s2, diff) / dot(diff, diff))
    po = s2 + scl * diff
    mu_max = s1[0] - s2[0]
    index = 0
    mu = s1[1] - s2[1]
    if abs(mu) >= abs(mu_max):
        mu_max, index = mu, 1
    mu = s1[2] - s2[2]
    if abs(mu) >= abs(mu_max):
        mu_max, index = mu, 2
    C1 = po[index] - s2[index]
    C2 = s1[index] - po[index]
    same = _same_sign(mu_max, C1) != 0 and _same_sign(mu_max, C2) != 0
    lam[0] = C1 / mu_max if same else 0.0
    lam[1] = C2 / mu_max if same else 1.0


@njit(cache=True, error_model="numpy")
def triangle_minors(s1, s2, s3):
    M14 = s2[1] * s3[2] - s2[2] * s3[1] - s1[1] * s3[2] + s1[2] * s3[1] + s1[1] * s2[2] - s1[2] * s2[1]
    M24 = s2[0] * s3[2] - s2[2] * s3[0] - s1[0] * s3[2] + s1[2] * s3[0] + s1[0] * s2[2] - s1[2] * s2[0]
    M34 = s2[0] * s3[1] - s2[1] * s3[0] - s1[0] * s3[1] + s1[1] * s3[0] + s1[0] * s2[1] - s1[1] * s2[0]
    mu1, mu2, mu3 = abs(M14), abs(M24), abs(M34)
    if mu1 >= mu2 and mu1 >= mu3:
        return M14, 1, 2
    if mu2 >= mu3:
        return M24, 0, 2
    return M34, 0, 1


@njit(cache=True, error_model="numpy")
def triangle_areas(p, s1, s2, s3, x, y):
    C31 = p[x] * s2[y] + p[y] * s3[x] + s2[x] * s3[y] - p[x] * s3[y] - p[y] * s2[x] - s3[x] * s2[y]
    C32 = p[x] * s3[y] + p[y] * s1[x] + s3[x] * s1[y] - p[x] * s1[y] - p[y] * s3[x] - s1[x] * s3[y]
    C33 = p[x] * s1[y] + p[y] * s2[x] + s1[x] * s2[y] - p[x] * s2[y] - p[y] * s1[x] - s2[x] * s1[y]
    return C31, C32, C33


@njit(cache=True, error_model="numpy")
def _s2d(lam, s1, s2, s3):
    po = np.empty(3)
    if project_origin_plane(po, s1, s2, s3):
        _s1d(lam, s1, s2)
        lam[2] = 0.0
        return
    M_max, x, y = triangle_minors(s1, s2, s3)
    C31, C32, C33 = triangle_areas(po, s1, s2, s3, x, y)
    c1, c2, c3 = _same_sign(M_max, C31), _same_sign(M_max, C32), _same_sign(M_max, C33)
    if c1 != 0 and c2 != 0 and c3 != 0:
        lam[0], lam[1], lam[2] = C31 / M_max, C32 / M_max, C33 / M_max
        return
    dmin = MAXLIM
    l1 = np.empty(2)
    if c1 == 0:
        _s1d(l1, s2, s3)
        xx = l1[0] * s2 + l1[1] * s3
        lam[0], lam[1], lam[2] = 0.0, l1[0], l1[1]
        dmin = dot(xx, xx)
    if c2 == 0:
        _s1d(l1, s1, s3)
        xx = l1[0] * s1 + l1[1] * s3
        d = dot(xx, xx)
        if d < dmin:
            lam[0], lam[1], lam[2] = l1[0], 0.0, l1[1]
            dmin = d
    if c3 == 0:
        _s1d(l1, s1, s2)
        xx = l1[0] * s1 + l1[1] * s2
        d = dot(xx, xx)
        if d < dmin:
            lam[0], lam[1], lam[2] = l1[0], l1[1], 0.0


@njit(cache=True, error_model="numpy")
def _s3d(lam, s1, s2, s3, s4):
    C41 = -det3(s2, s3, s4)
    C42 = det3(s1, s3, s4)
    C43 = -det3(s1, s2, s4)
    C44 = det3(s1, s2, s3)
    m_det = C41 + C42 + C43 + C44
    c = (_same_sign(m_det, C41), _same_sign(m_det, C42), _same_sign(m_det, C43), _same_sign(m_det, C44))
    if c[0] != 0 and c[1] != 0 and c[2] != 0 and c[3] != 0:
        lam[0], lam[1], lam[2], lam[3] = C41 / m_det, C42 / m_det, C43 / m_det, C44 / m_det
        return
    dmin = MAXLIM
    first = True
    l2 = np.empty(3)
    for skip in range(4):
        if c[skip] != 0:
            continue
        if skip == 0:
            a, b, e = s2, s3, s4
        elif skip == 1:
            a, b, e = s1, s3, s4
        elif skip == 2:
            a, b, e = s1, s2, s4
        else:
            a, b, e = s1, s2, s3
        _s2d(l2, a, b, e)
        xx = l2[0] * a + l2[1] * b + l2[2] * e
        d = dot(xx, xx)
        if first or d < dmin:
            first = False
            j = 0
            for q in range(4):
                if q == skip:
                    lam[q] = 0.0
                else:
                    lam[q] = l2[j]
                    j += 1
            dmin = d


@njit(cache=True, error_model="numpy")
def _subdistance(lam, n, V):
    lam[:] = 0.0
    if n == 4:
        _s3d(lam, V[0], V[1], V[2], V[3])
    elif n == 3:
        _s2d(lam, V[0], V[1], V[2])
    elif n == 2:
        _s1d(lam, V[0], V[1])
    else:
        lam[0] = 1.0


@njit(cache=True, error_model="numpy")
def discrete_pair(A, B):
    """Both shapes are boxes or meshes without margin: GJK and EPA terminate exactly (MuJoCo's discreteGeoms)."""
    return (A[7] == 0 and B[7] == 0 and (A[0] == BOX or A[0] == MESH) and (B[0] == BOX or B[0] == MESH))


@njit(cache=True, error_model="numpy")
def gjk(A, B, x1, x2, S, S1, S2, SI, tol, kmax, cutoff):
    """MuJoCo 4's GJK from the witness guesses x1, x2 (the shapes' centres). cutoff 0: contact only (stops when a
    support plane separates; MuJoCo 4 runs no intersection test on a tetrahedron: its gjk_iterations agree);
    > 0: distances up to it. Returns
    (dist, nsimplex, separated, nx); the witness points are left in x1, x2 and the simplex in S (S1, S2, SI)."""
    get_dist = cutoff > 0
    tol2 = tol * tol
    separated = False
    discrete = discrete_pair(A, B)
    epsilon = 0.0 if discrete else 0.5 * tol2
    min_norm = MINVAL if discrete else tol
    xk = x1 - x2
    x_norm = math.sqrt(dot(xk, xk))
    x_prev = 0.0
    lam = np.zeros(4)
    n = 0
    k = 0
    while k < kmax:
        if x_norm < min_norm or abs(x_prev - x_norm) < MINVAL:
            break
        f = 1 / x_norm
        support_ab(A, B, -(xk[0] * f), -(xk[1] * f), -(xk[2] * f), S, S1, S2, SI, n)
        sk = S[n]
        if xk[0] * (xk[0] - sk[0]) + xk[1] * (xk[1] - sk[1]) + xk[2] * (xk[2] - sk[2]) < epsilon:
            break
        lower = dot(xk, sk)
        if not get_dist:
            if lower > 0:
                return MAXLIM, 0, True, 0
        elif cutoff < MAXLIM:
            if lower > 0 and lower >= cutoff * x_norm:
                return MAXLIM, 0, True, 0
        _subdistance(lam, n + 1, S)
        n = 0
        for i in range(4):
            if lam[i] == 0:
                continue
            if i != n:
                S[n], S1[n], S2[n], SI[n] = S[i], S1[i], S2[i], SI[i]
            lam[n] = lam[i]
            n += 1
        if n < 1:
            return MAXLIM, 0, True, 0
        _lincomb(xk, lam, n, S)
        x_prev = x_norm
        x_norm = math.sqrt(dot(xk, xk))
        if n == 4:
            break
        k += 1
    if n > 0:
        _lincomb(x1, lam, n, S1)
        _lincomb(x2, lam, n, S2)
    T, T1, T2 = np.empty((1, 3)), np.empty((1, 3)), np.empty((1, 3))
    TI = np.empty((1, 2), np.int64)
    f = 1 / x_norm
    support_ab(A, B, -(xk[0] * f), -(xk[1] * f), -(xk[2] * f), T, T1, T2, TI, 0)
    if dot(xk, T[0]) > 0:
        separated = True
    return (0.0 if (n == 4 and not separated) else x_norm), n, separated, 1
