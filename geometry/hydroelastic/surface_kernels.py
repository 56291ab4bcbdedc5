"""Compiled hydroelastic contact surfaces (Drake's hydroelastic_calculator and the intersections it calls), over
the packed representations of representation.py and the geometries' world poses:

* compliant mesh S – rigid half space R (ComputeContactSurfaceFromSoftVolumeRigidHalfSpace): each tetrahedron of S
  sliced by R's boundary plane; normal +Rz (out of R into S), pressure and gradient from S's field;
* compliant mesh S – rigid mesh R (ComputeContactSurfaceFromSoftVolumeRigidSurface): each triangle of R whose
  normal is within 5π/8 of the tetrahedron's pressure gradient, clipped by the tetrahedron; normal the triangle's;
* compliant M – compliant N (ComputeContactSurfaceFromCompliantVolumes): per pair of tetrahedra, the plane where
  the two linear fields are equal, normal ∇p_M − ∇p_N (both gradients within 5π/8 of ±normal), sliced by M's
  tetrahedron and clipped by N's; pressure from M's field;
* compliant half space S – rigid mesh R (ComputeContactSurfaceFromSoftHalfSpaceRigidMesh): R's triangles facing
  into S clipped by its plane, pressure E·depth/slab_thickness.

M is the geometry of smaller GeometryId; face normals point out of N into M. Candidate tetrahedra and triangles
are pruned by bounding spheres (Drake uses bounding-volume hierarchies; the surfaces are the same).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .polygon_ops import (clip_by_half_space, clip_by_planes, clip_by_tetrahedron, clip_by_tetrahedron_drake, dist3,
                          dot3, emit_polygon, height, matvec3, new_buffer, order_about_normal, remove_near_duplicates,
                          slice_tetrahedron, slice_tetrahedron_points, tetrahedron_face_planes)

HYDRO_NONE, HYDRO_RIGID_MESH, HYDRO_RIGID_PLANE, HYDRO_SOFT_MESH, HYDRO_SOFT_PLANE = range(5)
_COS_ALPHA = np.cos(5.0 * np.pi / 8.0)
_MAXP = 16  # vertices of a clipped polygon: at most 3 + 4 (triangle by tetrahedron) or 4 + 4 (slice by tetrahedron)


@njit(cache=True)
def _aligned(a, b):
    """cos of the angle between a and the unit vector b is above cos(5π/8) (a zero a counts as aligned)."""
    na = np.sqrt(dot3(a, a))
    if na == 0.0:
        return True
    return dot3(a, b) / na > _COS_ALPHA


@njit(cache=True)
def _separated(T4, n, h):
    """All four vertices of T4 lie strictly on one side of the plane n·x = h."""
    above = below = 0
    for i in range(4):
        hh = dot3(n, T4[i]) - h
        if hh > 0.0:
            above += 1
        elif hh < 0.0:
            below += 1
    return above == 4 or below == 4


@njit(cache=True)
def _tet_into(verts, tets, t, T4):
    for i in range(4):
        for c in range(3):
            T4[i, c] = verts[tets[t, i], c]


@njit(cache=True)
def _tet(verts, tets, t):
    T4 = np.empty((4, 3))
    for i in range(4):
        T4[i] = verts[tets[t, i]]
    return T4


@njit(cache=True)
def _soft_vs_plane(buf, s, r, R_WG, p_WG, h, swap, triangles):
    """Compliant mesh s against the rigid half space r, in s's frame."""
    (kind, modulus, slab, bound, tet_adr, tet_num, sv, st, sp, sg, se0, tsph, tri_adr, tri_num, rv, rt, tn,
     trsph) = h
    R, p = R_WG[s], p_WG[s]
    n_S = R.T @ R_WG[r][:, 2].copy()
    p_S = R.T @ (p_WG[r] - p)
    P = np.empty((_MAXP, 3))
    pr = np.empty(_MAXP)
    nan3 = np.full(3, np.nan)
    T4 = np.empty((4, 3))
    for t in range(tet_adr[s], tet_adr[s] + tet_num[s]):
        if height(n_S, tsph[t], p_S) > tsph[t, 3]:
            continue
        _tet_into(sv, st, t, T4)
        k = slice_tetrahedron(T4, n_S, p_S, P)
        k = remove_near_duplicates(P, k)
        if k < 3:
            continue
        for i in range(k):
            pr[i] = se0[t] + dot3(sg[t], P[i])
        buf = emit_polygon(buf, P, pr, k, n_S, sg[t], nan3, R, p, swap, triangles)
    return buf


@njit(cache=True)
def _soft_vs_mesh(buf, s, r, R_WG, p_WG, h, swap, triangles):
    """Compliant mesh s against the rigid triangle mesh r, in s's frame."""
    (kind, modulus, slab, bound, tet_adr, tet_num, sv, st, sp, sg, se0, tsph, tri_adr, tri_num, rv, rt, tn,
     trsph) = h
    R, p = R_WG[s], p_WG[s]
    R_SR = R.T @ R_WG[r]
    p_SR = R.T @ (p_WG[r] - p)
    c_r = matvec3(R_SR, bound[r]) + p_SR
    tris = np.empty(tri_num[r], np.int64)
    nt = 0
    for f in range(tri_adr[r], tri_adr[r] + tri_num[r]):  # triangles near s
        c = matvec3(R_SR, trsph[f]) + p_SR
        if dist3(c, bound[s]) <= trsph[f, 3] + bound[s, 3]:
            tris[nt] = f
            nt += 1
    P = np.empty((_MAXP, 3))
    B = np.empty((_MAXP, 3))
    pr = np.empty(_MAXP)
    nan3 = np.full(3, np.nan)
    tri_c = np.empty((nt, 3))
    tri_n = np.empty((nt, 3))
    tri_h = np.empty(nt)  # the triangle's plane: tri_n·x = tri_h
    for q in range(nt):
        tri_c[q] = matvec3(R_SR, trsph[tris[q]]) + p_SR
        tri_n[q] = matvec3(R_SR, tn[tris[q]])
        tri_h[q] = dot3(tri_n[q], matvec3(R_SR, rv[rt[tris[q], 0]]) + p_SR)
    T4 = np.empty((4, 3))
    for t in range(tet_adr[s], tet_adr[s] + tet_num[s]):
        if dist3(tsph[t], c_r) > tsph[t, 3] + bound[r, 3]:
            continue
        _tet_into(sv, st, t, T4)
        for q in range(nt):
            f = tris[q]
            if abs(dot3(tri_n[q], tsph[t]) - tri_h[q]) > tsph[t, 3]:  # the sphere misses the triangle's plane
                continue
            if dist3(tri_c[q], tsph[t]) > tsph[t, 3] + trsph[f, 3]:
                continue
            if not _aligned(sg[t], tri_n[q]):
                continue
            if _separated(T4, tri_n[q], tri_h[q]):
                continue
            for i in range(3):
                P[i] = matvec3(R_SR, rv[rt[f, i]]) + p_SR
            k = clip_by_tetrahedron_drake(P, 3, T4, B)
            k = remove_near_duplicates(P, k)
            if k < 3:
                continue
            for i in range(k):
                pr[i] = se0[t] + dot3(sg[t], P[i])
            buf = emit_polygon(buf, P, pr, k, tri_n[q], sg[t].copy(), nan3, R, p, swap, triangles, True)
    return buf


@njit(cache=True)
def _soft_vs_soft(buf, m, n, R_WG, p_WG, h, triangles):
    """Compliant meshes m and n (m of smaller id), in m's frame. N's tetrahedra near M are moved into M's frame once
    per call; a pair is sliced only when the tetrahedra's bounding spheres and boxes (in M) overlap and the plane of
    equal pressure crosses both, and the slice is clipped only when no face plane of N's tetrahedron separates it:
    the culls drop only pairs whose polygon would be empty."""
    (kind, modulus, slab, bound, tet_adr, tet_num, sv, st, sp, sg, se0, tsph, tri_adr, tri_num, rv, rt, tn,
     trsph) = h
    R, p = R_WG[m], p_WG[m]
    R_MN = R.T @ R_WG[n]
    p_MN = R.T @ (p_WG[n] - p)
    p_NMo = -matvec3(R_MN.T.copy(), p_MN)
    c_n = matvec3(R_MN, bound[n]) + p_MN
    box = np.empty((2, 3))  # M's box, then the box of N's candidates (both in M)
    v0, v1 = st[tet_adr[m]:tet_adr[m] + tet_num[m]].min(), st[tet_adr[m]:tet_adr[m] + tet_num[m]].max() + 1
    _box_into(sv[v0:v1], box)
    nc = 0
    cand = np.empty(tet_num[n], np.int64)
    cN = np.empty((tet_num[n], 3))  # N's candidate tetrahedra in M: bounding-sphere centers,
    UN = np.empty((tet_num[n], 4, 3))  # vertices,
    boxN = np.empty((tet_num[n], 2, 3))  # boxes (min, max),
    faceN = np.empty((tet_num[n], 4, 4))  # outward face planes (n, n·x of the face),
    gNq = np.empty((tet_num[n], 3))  # pressure gradients
    f1q = np.empty(tet_num[n])  # and their field's value at Mo
    for u in range(tet_adr[n], tet_adr[n] + tet_num[n]):
        c = matvec3(R_MN, tsph[u]) + p_MN
        if dist3(c, bound[m]) > tsph[u, 3] + bound[m, 3]:
            continue
        for i in range(4):
            UN[nc, i] = matvec3(R_MN, sv[st[u, i]]) + p_MN
        _box_into(UN[nc], boxN[nc])
        if not _boxes_overlap(boxN[nc], box):
            continue
        cand[nc], cN[nc] = u, c
        gNq[nc] = matvec3(R_MN, sg[u])
        f1q[nc] = se0[u] + dot3(sg[u], p_NMo)
        tetrahedron_face_planes(UN[nc], faceN[nc])
        nc += 1
    if nc == 0:
        return buf
    box[0], box[1] = boxN[0, 0], boxN[0, 1]
    for q in range(1, nc):
        for c in range(3):
            box[0, c] = min(box[0, c], boxN[q, 0, c])
            box[1, c] = max(box[1, c], boxN[q, 1, c])
    boxM = np.empty((2, 3))
    P = np.empty((_MAXP, 3))
    B = np.empty((_MAXP, 3))
    pr = np.empty(_MAXP)
    nh = np.empty(3)  # the unit normal of the plane where the two fields are equal, (∇p_M − ∇p_N) normalized
    neg = np.empty(3)  # −nh
    p_Q = np.empty(3)  # a point of that plane
    for t in range(tet_adr[m], tet_adr[m] + tet_num[m]):
        if dist3(tsph[t], c_n) > tsph[t, 3] + bound[n, 3]:
            continue
        gM = sg[t]
        T4 = _tet(sv, st, t)
        _box_into(T4, boxM)
        if not _boxes_overlap(boxM, box):
            continue
        for q in range(nc):
            u = cand[q]
            if dist3(cN[q], tsph[t]) > tsph[t, 3] + tsph[u, 3] or not _boxes_overlap(boxM, boxN[q]):
                continue
            gN = gNq[q]
            n0, n1, n2 = gM[0] - gN[0], gM[1] - gN[1], gM[2] - gN[2]
            mag = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
            if mag <= 0.0:
                continue
            nh[0], nh[1], nh[2] = n0 / mag, n1 / mag, n2 / mag
            neg[0], neg[1], neg[2] = -nh[0], -nh[1], -nh[2]
            if not _aligned(gM, nh) or not _aligned(gN, neg):
                continue
            w = (f1q[q] - se0[t]) / mag
            p_Q[0], p_Q[1], p_Q[2] = w * nh[0], w * nh[1], w * nh[2]
            if _separated(UN[q], nh, dot3(nh, p_Q)):  # the plane misses N's tetrahedron
                continue
            k = slice_tetrahedron_points(T4, nh, p_Q, P)
            if k < 3 or _outside_a_face(P, k, faceN[q]):
                continue
            order_about_normal(P, k, nh)
            k = remove_near_duplicates(P, k)
            if k < 3:
                continue
            k = clip_by_planes(P, k, faceN[q], B)
            k = remove_near_duplicates(P, k)
            if k < 3:
                continue
            for i in range(k):
                pr[i] = se0[t] + dot3(gM, P[i])
            buf = emit_polygon(buf, P, pr, k, nh.copy(), gM.copy(), gN.copy(), R, p, False, triangles)
    return buf


@njit(cache=True)
def _box_into(X, box):
    """The axis-aligned bounding box (min row 0, max row 1) of the points X (k, 3), into box (2, 3)."""
    for c in range(3):
        lo = hi = X[0, c]
        for i in range(1, X.shape[0]):
            lo = min(lo, X[i, c])
            hi = max(hi, X[i, c])
        box[0, c], box[1, c] = lo, hi


@njit(cache=True)
def _boxes_overlap(a, b):
    """Whether two axis-aligned boxes (min row 0, max row 1) share a point (touching counts)."""
    for c in range(3):
        if a[0, c] > b[1, c] or b[0, c] > a[1, c]:
            return False
    return True


@njit(cache=True)
def _outside_a_face(P, k, faces):
    """Whether the points P[:k] all lie strictly outside one of the face planes (4, 4) [n, n·x] of a tetrahedron:
    then clipping their polygon by it leaves nothing."""
    for f in range(4):
        out = True
        for i in range(k):
            if faces[f, 0] * P[i, 0] + faces[f, 1] * P[i, 1] + faces[f, 2] * P[i, 2] - faces[f, 3] <= 0.0:
                out = False
                break
        if out:
            return True
    return False


@njit(cache=True)
def _soft_plane_vs_mesh(buf, s, r, R_WG, p_WG, h, swap, triangles):
    """Compliant half space s against the rigid triangle mesh r, in r's frame."""
    (kind, modulus, slab, bound, tet_adr, tet_num, sv, st, sp, sg, se0, tsph, tri_adr, tri_num, rv, rt, tn,
     trsph) = h
    R, p = R_WG[r], p_WG[r]
    n_R = R.T @ R_WG[s][:, 2].copy()
    o_R = R.T @ (p_WG[s] - p)
    scale = modulus[s] / slab[s]
    grad_R = -scale * n_R
    P = np.empty((_MAXP, 3))
    B = np.empty((_MAXP, 3))
    pr = np.empty(_MAXP)
    nan3 = np.full(3, np.nan)
    for f in range(tri_adr[r], tri_adr[r] + tri_num[r]):
        if height(n_R, trsph[f], o_R) > trsph[f, 3]:
            continue
        if not (-dot3(tn[f], n_R) > _COS_ALPHA):
            continue
        for i in range(3):
            P[i] = rv[rt[f, i]]
        k = clip_by_half_space(P, 3, n_R, o_R, B)
        for i in range(k):
            P[i] = B[i]
        k = remove_near_duplicates(P, k)
        if k < 3:
            continue
        for i in range(k):
            pr[i] = -scale * height(n_R, P[i], o_R)
        buf = emit_polygon(buf, P, pr, k, tn[f].copy(), grad_R, nan3, R, p, swap, triangles)
    return buf


@njit(cache=True)
def _near(s, r, kind, bound, R_WG, p_WG):
    """The bounding spheres of s and r overlap (or a sphere reaches into a half space)."""
    if kind[r] == HYDRO_RIGID_PLANE or kind[r] == HYDRO_SOFT_PLANE:
        s, r = r, s
    c_r = R_WG[r] @ bound[r, :3].copy() + p_WG[r]
    if kind[s] == HYDRO_RIGID_PLANE or kind[s] == HYDRO_SOFT_PLANE:
        return R_WG[s][:, 2].copy() @ (c_r - p_WG[s]) <= bound[r, 3]
    c_s = R_WG[s] @ bound[s, :3].copy() + p_WG[s]
    d = c_s - c_r
    return np.sqrt(d @ d) <= bound[s, 3] + bound[r, 3]


@njit(cache=True)
def contact_surfaces(pairs, gid, R_WG, p_WG, h, triangles):
    """The contact surfaces of the hydroelastic pairs (rows (np, 2), ordered by GeometryId) at poses R_WG, p_WG.
    Returns (surface rows (ns, 2) [M, N], surface face starts (ns + 1), vertices (nv, 3), vertex pressures, face
    vertex indices (flat), face starts into them (nf + 1), face normals (nf, 3), centroids (nf, 3), areas,
    centroid pressures, ∇p_M (nf, 3), ∇p_N (nf, 3)), all in World; a rigid geometry's gradients are NaN."""
    kind, bound = h[0], h[3]
    buf = new_buffer()
    npair = pairs.shape[0]
    surf = np.empty((npair, 2), np.int64)
    sface = np.zeros(npair + 1, np.int64)
    ns = 0
    for q in range(npair):
        i, j = pairs[q, 0], pairs[q, 1]
        if not _near(i, j, kind, bound, R_WG, p_WG):
            continue
        f0 = buf[10][1]
        ki, kj = kind[i], kind[j]
        if ki == HYDRO_SOFT_MESH and kj == HYDRO_SOFT_MESH:
            m, n = (i, j) if gid[i] < gid[j] else (j, i)
            buf = _soft_vs_soft(buf, m, n, R_WG, p_WG, h, triangles)
        else:
            s, r = (i, j) if ki == HYDRO_SOFT_MESH or ki == HYDRO_SOFT_PLANE else (j, i)
            swap = gid[s] > gid[r]
            if kind[s] == HYDRO_SOFT_MESH and kind[r] == HYDRO_RIGID_PLANE:
                buf = _soft_vs_plane(buf, s, r, R_WG, p_WG, h, swap, triangles)
            elif kind[s] == HYDRO_SOFT_MESH and kind[r] == HYDRO_RIGID_MESH:
                buf = _soft_vs_mesh(buf, s, r, R_WG, p_WG, h, swap, triangles)
            elif kind[s] == HYDRO_SOFT_PLANE and kind[r] == HYDRO_RIGID_MESH:
                buf = _soft_plane_vs_mesh(buf, s, r, R_WG, p_WG, h, swap, triangles)
        f1 = buf[10][1]
        if f1 > f0:
            a, b = (i, j) if gid[i] < gid[j] else (j, i)
            surf[ns, 0], surf[ns, 1] = a, b
            sface[ns + 1] = f1
            ns += 1
    V, vp, fi, fs, fn, fc, fa, fp, gM, gN, cnt = buf
    nv, nf, ni = cnt[0], cnt[1], cnt[2]
    return (surf[:ns].copy(), sface[:ns + 1].copy(), V[:nv].copy(), vp[:nv].copy(), fi[:ni].copy(),
            fs[:nf + 1].copy(), fn[:nf].copy(), fc[:nf].copy(), fa[:nf].copy(), fp[:nf].copy(), gM[:nf].copy(),
            gN[:nf].copy())
