"""MuJoCo 4's EPA (engine_collision_gjk.c as MuJoCo 4.0 runs it): the initial polytope from GJK's 1-, 2- or
3-simplex (a hexahedron about a segment or a triangle, or the tetrahedron), then expansion through the face nearest
the origin with its horizon, stopping when this iteration's support bound is within the tolerance of the lower
bound (MuJoCo 4's rule: its epa_iterations agree). The witness points come from the last face's affine
coordinates. Shapes as in collision/ccd_gjk.py.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision.ccd_gjk import (MAXLIM, MINVAL, MINVAL2, cross_into, det3, discrete_pair, dot,
                                                project_origin_plane, support_ab, triangle_areas, triangle_minors)


@njit(cache=True, error_model="numpy")
def _epa_support(A, B, d, dnorm, PV, PV1, PV2, PI, cnt):
    """A new polytope vertex along d / dnorm (x if dnorm is tiny); returns its index."""
    d0, d1, d2 = 1.0, 0.0, 0.0
    if dnorm > MINVAL:
        d0, d1, d2 = d[0] / dnorm, d[1] / dnorm, d[2] / dnorm
    n = cnt[0]
    cnt[0] += 1
    support_ab(A, B, d0, d1, d2, PV, PV1, PV2, PI, n)
    return n


@njit(cache=True, error_model="numpy")
def _attach(PV, FV, FA, Fv, Fd, Fx, cnt, center, v1, v2, v3, a1, a2, a3):
    """Attach face (v1, v2, v3) with neighbours (a1, a2, a3); returns its squared distance to the origin (0 when
    degenerate)."""
    f = cnt[1]
    cnt[1] += 1
    FV[f, 0], FV[f, 1], FV[f, 2] = v1, v2, v3
    FA[f, 0], FA[f, 1], FA[f, 2] = a1, a2, a3
    if project_origin_plane(Fv[f], PV[v3], PV[v2], PV[v1]):
        Fd[f] = 0.0
        Fx[f] = -1
        return 0.0
    if ((Fv[f, 0] * (PV[v1, 0] - center[0]) + Fv[f, 1] * (PV[v1, 1] - center[1])
         + Fv[f, 2] * (PV[v1, 2] - center[2])) < 0):
        Fv[f, 0] *= -1
        Fv[f, 1] *= -1
        Fv[f, 2] *= -1
    Fd[f] = dot(Fv[f], Fv[f])
    Fx[f] = -1
    return Fd[f]


@njit(cache=True, error_model="numpy")
def _insert(S, S1, S2, SI, i, PV, PV1, PV2, PI, cnt):
    n = cnt[0]
    cnt[0] += 1
    PV[n], PV1[n], PV2[n], PI[n] = S[i], S1[i], S2[i], SI[i]
    return n


@njit(cache=True, error_model="numpy")
def _tri_affine(lam, v1, v2, v3, p):
    M_max, x, y = triangle_minors(v1, v2, v3)
    C31, C32, C33 = triangle_areas(p, v1, v2, v3, x, y)
    lam[0], lam[1], lam[2] = C31 / M_max, C32 / M_max, C33 / M_max


@njit(cache=True, error_model="numpy")
def _tri_point(v1, v2, v3, p):
    lam = np.empty(3)
    _tri_affine(lam, v1, v2, v3, p)
    if lam[0] < 0 or lam[1] < 0 or lam[2] < 0:
        return False
    d0 = v1[0] * lam[0] + v2[0] * lam[1] + v3[0] * lam[2] - p[0]
    d1 = v1[1] * lam[0] + v2[1] * lam[1] + v3[1] * lam[2] - p[1]
    d2 = v1[2] * lam[0] + v2[2] * lam[1] + v3[2] * lam[2] - p[2]
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2) < MINVAL


@njit(cache=True, error_model="numpy")
def _same_side(p0, p1, p2, p3):
    n = np.empty(3)
    cross_into(n, p1 - p0, p2 - p0)
    dot1 = dot(n, p3 - p0)
    dot2 = dot(n, p0 * -1.0)
    return (dot1 > 0 and dot2 > 0) or (dot1 < 0 and dot2 < 0)


@njit(cache=True, error_model="numpy")
def _test_tetra(p0, p1, p2, p3):
    return _same_side(p0, p1, p2, p3) and _same_side(p1, p2, p3, p0) and _same_side(p2, p3, p0, p1) and \
        _same_side(p3, p0, p1, p2)


@njit(cache=True, error_model="numpy")
def _ray_triangle(v1, v2, v3, v4, v5):
    d12, d13, d14, d15 = v2 - v1, v3 - v1, v4 - v1, v5 - v1
    vol1 = det3(d13, d14, d12)
    vol2 = det3(d14, d15, d12)
    vol3 = det3(d15, d13, d12)
    if vol1 >= 0 and vol2 >= 0 and vol3 >= 0:
        return 1
    if vol1 <= 0 and vol2 <= 0 and vol3 <= 0:
        return -1
    return 0


@njit(cache=True, error_model="numpy")
def _polytope3(A, B, S, S1, S2, SI, P, F, cnt, center):
    """The hexahedron around GJK's triangle (MuJoCo's polytope3); 0 on success."""
    PV, PV1, PV2, PI = P
    FV, FA, Fv, Fd, Fx, MAP = F
    v1, v2, v3 = S[0], S[1], S[2]
    for c in range(3):
        center[c] = (v1[c] + v2[c] + v3[c]) * (1.0 / 3.0)
    n = np.empty(3)
    cross_into(n, v2 - v1, v3 - v1)
    n_norm = math.sqrt(dot(n, n))
    if n_norm < MINVAL:
        return 3
    n_neg = n * -1.0
    v1i = _insert(S, S1, S2, SI, 0, PV, PV1, PV2, PI, cnt)
    v2i = _insert(S, S1, S2, SI, 1, PV, PV1, PV2, PI, cnt)
    v3i = _insert(S, S1, S2, SI, 2, PV, PV1, PV2, PI, cnt)
    v5i = _epa_support(A, B, n_neg, n_norm, PV, PV1, PV2, PI, cnt)
    v4i = _epa_support(A, B, n, n_norm, PV, PV1, PV2, PI, cnt)
    if _tri_point(PV[v1i], PV[v2i], PV[v3i], PV[v4i]):
        return 4
    if _tri_point(PV[v1i], PV[v2i], PV[v3i], PV[v5i]):
        return 5
    for a, b, c, x, y, z in ((v4i, v1i, v2i, 1, 3, 2), (v4i, v3i, v1i, 2, 4, 0), (v4i, v2i, v3i, 0, 5, 1),
                             (v5i, v2i, v1i, 5, 0, 4), (v5i, v1i, v3i, 3, 1, 5), (v5i, v3i, v2i, 4, 2, 3)):
        if _attach(PV, FV, FA, Fv, Fd, Fx, cnt, center, a, b, c, x, y, z) < MINVAL2:
            return 7
    for i in range(6):
        MAP[i] = i
        Fx[i] = i
    cnt[2] = 6
    return 0


@njit(cache=True, error_model="numpy")
def _replace3(S, S1, S2, SI, P, cnt, a, b, c):
    PV, PV1, PV2, PI = P
    for q, i in ((0, a), (1, b), (2, c)):
        S[q], S1[q], S2[q], SI[q] = PV[i], PV1[i], PV2[i], PI[i]
    cnt[0], cnt[1], cnt[2] = 0, 0, 0


@njit(cache=True, error_model="numpy")
def _polytope2(A, B, S, S1, S2, SI, P, F, cnt, center):
    """The hexahedron around GJK's segment: three points 120° apart about it (MuJoCo's polytope2)."""
    PV, PV1, PV2, PI = P
    FV, FA, Fv, Fd, Fx, MAP = F
    v1, v2 = S[0].copy(), S[1].copy()
    for c in range(3):
        center[c] = (v1[c] + v2[c]) * 0.5
    diff = v2 - v1
    value = MAXLIM
    index = 0
    for i in range(3):
        if abs(diff[i]) < value:
            value = abs(diff[i])
            index = i
    e = np.zeros(3)
    e[index] = 1.0
    d1 = np.empty(3)
    cross_into(d1, e, diff)
    nd = math.sqrt(dot(diff, diff))
    u1, u2, u3 = diff[0] / nd, diff[1] / nd, diff[2] / nd
    sn, cs = 0.86602540378, -0.5
    R = np.array([[cs + u1 * u1 * (1 - cs), u1 * u2 * (1 - cs) - u3 * sn, u1 * u3 * (1 - cs) + u2 * sn],
                  [u2 * u1 * (1 - cs) + u3 * sn, cs + u2 * u2 * (1 - cs), u2 * u3 * (1 - cs) - u1 * sn],
                  [u1 * u3 * (1 - cs) - u2 * sn, u2 * u3 * (1 - cs) + u1 * sn, cs + u3 * u3 * (1 - cs)]])
    d2 = np.empty(3)
    d3 = np.empty(3)
    for r in range(3):
        d2[r] = R[r, 0] * d1[0] + R[r, 1] * d1[1] + R[r, 2] * d1[2]
    for r in range(3):
        d3[r] = R[r, 0] * d2[0] + R[r, 1] * d2[1] + R[r, 2] * d2[2]
    v1i = _insert(S, S1, S2, SI, 0, PV, PV1, PV2, PI, cnt)
    v2i = _insert(S, S1, S2, SI, 1, PV, PV1, PV2, PI, cnt)
    v3i = _epa_support(A, B, d1, math.sqrt(dot(d1, d1)), PV, PV1, PV2, PI, cnt)
    v4i = _epa_support(A, B, d2, math.sqrt(dot(d2, d2)), PV, PV1, PV2, PI, cnt)
    v5i = _epa_support(A, B, d3, math.sqrt(dot(d3, d3)), PV, PV1, PV2, PI, cnt)
    for a, b, c, x, y, z in ((v1i, v3i, v4i, 1, 3, 2), (v1i, v5i, v3i, 2, 4, 0), (v1i, v4i, v5i, 0, 5, 1),
                             (v2i, v4i, v3i, 5, 0, 4), (v2i, v3i, v5i, 3, 1, 5), (v2i, v5i, v4i, 4, 2, 3)):
        if _attach(PV, FV, FA, Fv, Fd, Fx, cnt, center, a, b, c, x, y, z) < MINVAL2:
            _replace3(S, S1, S2, SI, P, cnt, a, b, c)
            return _polytope3(A, B, S, S1, S2, SI, P, F, cnt, center)
    if _ray_triangle(v1, v2, PV[v3i], PV[v4i], PV[v5i]) == 0:
        return 2
    for i in range(6):
        MAP[i] = i
        Fx[i] = i
    cnt[2] = 6
    return 0


@njit(cache=True, error_model="numpy")
def _polytope4(A, B, S, S1, S2, SI, P, F, cnt, center):
    """GJK's tetrahedron as the first polytope (MuJoCo's polytope4); a face through the origin: its triangle."""
    PV, PV1, PV2, PI = P
    FV, FA, Fv, Fd, Fx, MAP = F
    v1 = _insert(S, S1, S2, SI, 0, PV, PV1, PV2, PI, cnt)
    v2 = _insert(S, S1, S2, SI, 1, PV, PV1, PV2, PI, cnt)
    v3 = _insert(S, S1, S2, SI, 2, PV, PV1, PV2, PI, cnt)
    v4 = _insert(S, S1, S2, SI, 3, PV, PV1, PV2, PI, cnt)
    for c in range(3):
        center[c] = (((PV[v1, c] + PV[v2, c]) + PV[v3, c]) + PV[v4, c]) * 0.25
    for a, b, c, x, y, z in ((v1, v2, v3, 1, 3, 2), (v1, v4, v2, 2, 3, 0), (v1, v3, v4, 0, 3, 1),
                             (v4, v3, v2, 2, 0, 1)):
        if _attach(PV, FV, FA, Fv, Fd, Fx, cnt, center, a, b, c, x, y, z) < MINVAL2:
            _replace3(S, S1, S2, SI, P, cnt, a, b, c)
            return _polytope3(A, B, S, S1, S2, SI, P, F, cnt, center)
    if not _test_tetra(PV[v1], PV[v2], PV[v3], PV[v4]):
        return 6
    for i in range(4):
        MAP[i] = i
        Fx[i] = i
    cnt[2] = 4
    return 0


@njit(cache=True, error_model="numpy")
def _delete(F, cnt, f):
    FV, FA, Fv, Fd, Fx, MAP = F
    if Fx[f] >= 0:
        cnt[2] -= 1
        MAP[Fx[f]] = MAP[cnt[2]]
        Fx[MAP[Fx[f]]] = Fx[f]
    Fx[f] = -2


@njit(cache=True, error_model="numpy")
def _edge(FV, f, vertex):
    if FV[f, 0] == vertex:
        return 0
    if FV[f, 1] == vertex:
        return 1
    return 2


@njit(cache=True, error_model="numpy")
def _visible(Fv, Fd, f, w):
    return dot(Fv[f], w) - Fd[f] > MINVAL


@njit(cache=True, error_model="numpy")
def _horizon_rec(F, cnt, f0, e0, w, HI, HE, nh, stack):
    """MuJoCo's recursive horizonRec from face f0 entered by edge e0, depth first with an explicit stack; returns
    (visible, horizon edges)."""
    FV, FA, Fv, Fd, Fx, MAP = F
    if not _visible(Fv, Fd, f0, w):
        return False, nh
    _delete(F, cnt, f0)
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2] = f0, e0, 1
    while top >= 0:
        f, e, k = stack[top, 0], stack[top, 1], stack[top, 2]
        if k == 3:
            top -= 1
            continue
        stack[top, 2] = k + 1
        i = (e + k) % 3
        adj = FA[f, i]
        if Fx[adj] > -2:
            adj_edge = _edge(FV, adj, FV[f, (i + 1) % 3])
            if _visible(Fv, Fd, adj, w):
                _delete(F, cnt, adj)
                top += 1
                stack[top, 0], stack[top, 1], stack[top, 2] = adj, adj_edge, 1
            else:
                HE[nh] = adj_edge
                HI[nh] = adj
                nh += 1
    return True, nh


@njit(cache=True, error_model="numpy")
def _horizon(F, cnt, f, w, HI, HE, stack):
    FV, FA, Fv, Fd, Fx, MAP = F
    _delete(F, cnt, f)
    nh = 0
    for q in range(3):
        adj = FA[f, q]
        adj_edge = _edge(FV, adj, FV[f, (q + 1) % 3])
        if q > 0 and Fx[adj] <= -2:
            continue
        vis, nh = _horizon_rec(F, cnt, adj, adj_edge, w, HI, HE, nh, stack)
        if not vis:
            HE[nh] = adj_edge
            HI[nh] = adj
            nh += 1
    return nh


@njit(cache=True, error_model="numpy")
def _epa(A, B, P, F, cnt, center, tol, kmax, x1, x2):
    """MuJoCo's EPA on the initial polytope; returns (face or -1, dist) and the witness points in x1, x2."""
    PV, PV1, PV2, PI = P
    FV, FA, Fv, Fd, Fx, MAP = F
    nfmax = FV.shape[0]
    HI = np.empty(nfmax, np.int64)
    HE = np.empty(nfmax, np.int64)
    stack = np.empty((nfmax, 3), np.int64)
    upper, upper2 = MAXLIM, MAXLIM
    face = -1
    discrete = discrete_pair(A, B)
    tolerance = MINVAL if discrete else tol
    kk = kmax if kmax < 1000 else 1000
    for k in range(kk):
        pface = face
        lower2 = MAXLIM
        for i in range(cnt[2]):
            if Fd[MAP[i]] < lower2:
                face = MAP[i]
                lower2 = Fd[face]
        if lower2 > upper2 or face < 0:
            face = pface
            break
        if lower2 <= 0:
            break
        lower = math.sqrt(lower2)
        wi = _epa_support(A, B, Fv[face], lower, PV, PV1, PV2, PI, cnt)
        upper_k = dot(Fv[face], PV[wi]) / lower
        if upper_k < upper:
            upper = upper_k
            upper2 = upper * upper
        if upper_k - lower < tolerance:  # MuJoCo 4 stops on this iteration's bound (its epa_iterations agree)
            if k == 0 and upper < lower - 1e-10:
                face = -1
            break
        if discrete:
            i = 0
            nv = cnt[0] - 1
            while i < nv:
                if PI[wi, 0] == PI[i, 0] and PI[wi, 1] == PI[i, 1]:
                    break
                i += 1
            if i != nv:
                break
        nedges = _horizon(F, cnt, face, PV[wi], HI, HE, stack)
        if nedges < 3:
            face = -1
            break
        nfaces = cnt[1]
        if nedges > nfmax - nfaces:
            break
        bad = False
        for i in range(nedges):
            cur = nfaces + i
            nxt = nfaces + (i + 1) % nedges
            prv = nfaces + nedges - 1 if i == 0 else cur - 1
            hf, he = HI[i], HE[i]
            v1 = FV[hf, he]
            v2 = FV[hf, (he + 1) % 3]
            FA[hf, he] = cur
            dist2 = _attach(PV, FV, FA, Fv, Fd, Fx, cnt, center, wi, v2, v1, prv, hf, nxt)
            if dist2 == 0:
                face = -1
                bad = True
                break
            if dist2 >= lower2 and dist2 <= upper2:
                j = cnt[2]
                cnt[2] += 1
                MAP[j] = cnt[1] - 1
                Fx[cnt[1] - 1] = j
        if bad or cnt[2] == 0 or face < 0:
            break
    if face < 0:
        return -1, 0.0
    lam = np.empty(3)
    a, b, c = FV[face, 0], FV[face, 1], FV[face, 2]
    _tri_affine(lam, PV[a], PV[b], PV[c], Fv[face])
    for q in range(3):
        x1[q] = (lam[0] * PV1[a, q] + lam[1] * PV1[b, q]) + lam[2] * PV1[c, q]
        x2[q] = (lam[0] * PV2[a, q] + lam[1] * PV2[b, q]) + lam[2] * PV2[c, q]
    return face, -math.sqrt(Fd[face])


@njit(cache=True, error_model="numpy")
def epa_depth(A, B, S, S1, S2, SI, ns, tol, kmax, x1, x2, FI, FW):
    """The penetration distance (< 0) of overlapping shapes from GJK's simplex S[:ns] (ns 2 to 4), the witness
    points into x1, x2; 0 when the polytope cannot be built or EPA fails (MuJoCo then reports no contact). The
    final face's three vertices go to FI (3, 2: each shape's support index) and FW (3, 6: the support points on
    A, then on B), the features MuJoCo's multi-contact starts from (collision/multiccd.py)."""
    nv, nf = 5 + kmax, 6 * kmax
    P = (np.zeros((nv, 3)), np.zeros((nv, 3)), np.zeros((nv, 3)), np.full((nv, 2), -1, np.int64))
    F = (np.zeros((nf, 3), np.int64), np.zeros((nf, 3), np.int64), np.zeros((nf, 3)), np.zeros(nf),
         np.full(nf, -1, np.int64), np.zeros(nf, np.int64))
    cnt = np.zeros(3, np.int64)
    center = np.zeros(3)
    if ns == 2:
        ret = _polytope2(A, B, S, S1, S2, SI, P, F, cnt, center)
    elif ns == 3:
        ret = _polytope3(A, B, S, S1, S2, SI, P, F, cnt, center)
    else:
        ret = _polytope4(A, B, S, S1, S2, SI, P, F, cnt, center)
    if ret != 0:
        return 0.0
    face, d = _epa(A, B, P, F, cnt, center, tol, kmax, x1, x2)
    if face < 0:
        return 0.0
    FV = F[0]
    for i in range(3):
        v = FV[face, i]
        FI[i, 0], FI[i, 1] = P[3][v, 0], P[3][v, 1]
        FW[i, :3] = P[1][v]
        FW[i, 3:] = P[2][v]
    return d
