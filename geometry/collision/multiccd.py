"""Several contacts for a penetrating box/mesh pair from one convex penetration (MuJoCo 4's multicontact after
EPA, engine_collision_gjk.c): up to four points where two faces touch, instead of one.

Given the penetration normal n (geom 1 -> geom 2), each geom's feature that touches is its support set along n
(geom 1) or -n (geom 2): a vertex, an edge or a face, whose candidate faces are the faces through all of it
(mesh faces: collision/hull_polygons.py; box faces: its six sides). Two candidate faces whose normals are
opposed within MuJoCo's face tolerance (cos > 0.996) touch face to face: as MuJoCo 4 (checked against it to
1e-16), geom 1's face is clipped by the side planes of geom 2's face (planes through its edges containing geom
1's normal), the clipped vertices below geom 2's face are the contacts, each at its depth below that face, at
the midpoint of the vertex and the vertex pushed along geom 2's normal by that depth, normal along -n2 (more
than four: the largest-area quadrilateral by MuJoCo's polygonQuad walk; MuJoCo 4 prunes some polygons of more
than four vertices to another quadrilateral). Else an edge of one geom that is parallel to a candidate face of
the other (|cos| < 0.0888) is clipped by that face (two contacts). Otherwise (vertex or edge against a face at
an angle) the single EPA contact stands."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision._vec import cross3, dot3, matTvec, matvec, put

BOX, MESH = 6, 7
FACE_TOL = 0.996  # MuJoCo's mjFACE_TOL: opposed face normals
EDGE_TOL = 0.0888  # MuJoCo's mjEDGE_TOL: an edge parallel to a face
_MINVAL = 1e-15
_SUPPORT_TOL = 1e-9  # support-set tolerance, relative to the geom's size

# box face f: corner bit (0 x, 1 y, 2 z) and side; corners of each face in MuJoCo's order (signs of x, y, z)
_BOX_FACE = np.array([
    [[1, 1, 1], [1, 1, -1], [1, -1, -1], [1, -1, 1]],
    [[-1, 1, -1], [-1, 1, 1], [-1, -1, 1], [-1, -1, -1]],
    [[-1, 1, -1], [1, 1, -1], [1, 1, 1], [-1, 1, 1]],
    [[-1, -1, 1], [1, -1, 1], [1, -1, -1], [-1, -1, -1]],
    [[-1, 1, 1], [1, 1, 1], [1, -1, 1], [-1, -1, 1]],
    [[1, 1, -1], [-1, 1, -1], [-1, -1, -1], [1, -1, -1]]], dtype=np.float64)


@njit(cache=True, error_model="numpy")
def _corner(s, i):
    """Box corner i (bit 0: +x, bit 1: +y, bit 2: +z) in the box frame."""
    c = np.empty(3)
    c[0] = s[0] if i & 1 else -s[0]
    c[1] = s[1] if i & 2 else -s[1]
    c[2] = s[2] if i & 4 else -s[2]
    return c


@njit(cache=True, error_model="numpy")
def _on_box_face(f, i):
    bit = (i >> (f // 2)) & 1
    return bit == 1 if f % 2 == 0 else bit == 0


@njit(cache=True, error_model="numpy")
def _support_set(t, s, R, v, d, idx):
    """Indices (mesh vertices, box corners) of the geom's points farthest along world direction d, within a
    tolerance relative to its size; returns their count (at most idx.size)."""
    dl = matTvec(R, d)
    n = 8 if t == BOX else v.shape[0]
    best = -1e300
    size = 0.0
    for i in range(n):
        x = _corner(s, i) if t == BOX else v[i]
        best = max(best, dot3(x, dl))
        size = max(size, math.sqrt(dot3(x, x)))
    tol = _SUPPORT_TOL * max(size, 1e-300)
    m = 0
    for i in range(n):
        x = _corner(s, i) if t == BOX else v[i]
        if dot3(x, dl) >= best - tol and m < idx.shape[0]:
            idx[m] = i
            m += 1
    return m


@njit(cache=True, error_model="numpy")
def _faces_through(t, f, idx, m, out):
    """Faces through all m points idx (box sides in index order; mesh faces in the vertex's face order)."""
    c = 0
    if t == BOX:
        for face in range(6):
            ok = True
            for a in range(m):
                if not _on_box_face(face, idx[a]):
                    ok = False
                    break
            if ok:
                out[c] = face
                c += 1
        return c
    nv = int(f[1])
    vpoly, padr = 3 + nv, 3 + nv + int(f[2 + nv])
    npoly = int(f[0])
    pvert = padr + npoly + 1 + 3 * npoly
    for q in range(int(f[2 + idx[0]]), int(f[3 + idx[0]])):
        face = int(f[vpoly + q])
        ok = True
        for a in range(1, m):
            found = False
            for r in range(int(f[padr + face]), int(f[padr + face + 1])):
                if int(f[pvert + r]) == idx[a]:
                    found = True
                    break
            if not found:
                ok = False
                break
        if ok and c < out.shape[0]:
            out[c] = face
            c += 1
    return c


@njit(cache=True, error_model="numpy")
def _face_normal(t, f, R, face):
    if t == BOX:
        nl = np.zeros(3)
        nl[face // 2] = 1.0 if face % 2 == 0 else -1.0
        return matvec(R, nl)
    nv = int(f[1])
    nrm = 3 + nv + int(f[2 + nv]) + int(f[0]) + 1
    return matvec(R, f[nrm + 3 * face:nrm + 3 * face + 3].copy())


@njit(cache=True, error_model="numpy")
def _face_vertices(t, s, p, R, v, f, face):
    """World vertices of a face: a box side in MuJoCo's order, a mesh face in reverse order (clockwise about
    its outward normal), as MuJoCo's boxFace/meshFace."""
    if t == BOX:
        out = np.empty((4, 3))
        for i in range(4):
            out[i] = matvec(R, _BOX_FACE[face, i] * s) + p
        return out
    nv = int(f[1])
    padr = 3 + nv + int(f[2 + nv])
    npoly = int(f[0])
    pvert = padr + npoly + 1 + 3 * npoly
    lo, hi = int(f[padr + face]), int(f[padr + face + 1])
    out = np.empty((hi - lo, 3))
    for j in range(hi - lo):
        out[j] = matvec(R, v[int(f[pvert + hi - 1 - j])]) + p
    return out


@njit(cache=True, error_model="numpy")
def _edges(t, s, p, R, v, f, idx, m, ends):
    """Unit directions of the edges of the feature idx[:m] (m = 1 vertex: its edges; 2: that edge) from its
    first point, their far ends in ``ends``; returns (count, first point (world))."""
    x0 = matvec(R, _corner(s, idx[0]) if t == BOX else v[idx[0]]) + p
    if m >= 2:
        ends[0] = matvec(R, _corner(s, idx[1]) if t == BOX else v[idx[1]]) + p
        return 1, x0
    c = 0
    if t == BOX:
        for b in range(3):
            ends[c] = matvec(R, _corner(s, idx[0] ^ (1 << b))) + p
            c += 1
        return c, x0
    nv = int(f[1])
    vpoly, padr = 3 + nv, 3 + nv + int(f[2 + nv])
    npoly = int(f[0])
    pvert = padr + npoly + 1 + 3 * npoly
    for q in range(int(f[2 + idx[0]]), int(f[3 + idx[0]])):
        face = int(f[vpoly + q])
        lo, hi = int(f[padr + face]), int(f[padr + face + 1])
        for r in range(lo, hi):
            if int(f[pvert + r]) == idx[0]:
                prev = lo + (hi - 1 - lo) if r == lo else r - 1
                if c < ends.shape[0]:
                    ends[c] = matvec(R, v[int(f[pvert + prev])]) + p
                    c += 1
                break
    return c, x0


@njit(cache=True, error_model="numpy")
def _normalize(x):
    n = math.sqrt(dot3(x, x))
    if n < _MINVAL:
        out = np.zeros(3)
        out[0] = 1.0
        return out
    return x / n


@njit(cache=True, error_model="numpy")
def _area4(a, b, c, d):
    g = cross3(d - a, b - d) + cross3(c - b, a - c)
    return 0.5 * math.sqrt(dot3(g, g))


@njit(cache=True, error_model="numpy")
def _quad(poly, n):
    """Indices of a largest-area quadrilateral of a convex polygon (MuJoCo's polygonQuad)."""
    a, b, c, d = 0, 1, 2, 3
    res = np.array([0, 1, 2, 3])
    m = _area4(poly[a], poly[b], poly[c], poly[d])
    for a in range(n):
        while True:
            mn = _area4(poly[a], poly[b], poly[c], poly[(d + 1) % n])
            if mn <= m:
                break
            m = mn
            d = (d + 1) % n
            res[0], res[1], res[2], res[3] = a, b, c, d
            while True:
                mn = _area4(poly[a], poly[b], poly[(c + 1) % n], poly[d])
                if mn <= m:
                    break
                m = mn
                c = (c + 1) % n
                res[0], res[1], res[2], res[3] = a, b, c, d
            while True:
                mn = _area4(poly[a], poly[(b + 1) % n], poly[c], poly[d])
                if mn <= m:
                    break
                m = mn
                b = (b + 1) % n
                res[0], res[1], res[2], res[3] = a, b, c, d
        if b == a:
            b = (b + 1) % n
            if c == b:
                c = (c + 1) % n
                if d == c:
                    d = (d + 1) % n
    return res


@njit(cache=True, error_model="numpy")
def _clip(face1, face2, n, sdir, wdir, dists, w1, w2):
    """Clip polygon face2 by the planes through the edges of polygon face1 that contain direction sdir, keep
    the vertices on or below face1's plane (normal n); contacts: their depths below it along n and witness
    points (w1: the vertex pushed along -wdir by its depth, w2: the vertex), at most four (the largest-area
    quadrilateral of more). Returns the count (MuJoCo's polygonClip)."""
    n1, n2 = face1.shape[0], face2.shape[0]
    if n1 < 3:
        return 0
    cap = 2 * (n1 + n2) + 8
    pn = np.empty((n1, 3))
    pd = np.empty(n1)
    for i in range(n1):  # side planes of face1 containing sdir
        a, b = face1[i], face1[(i + 1) % n1]
        pn[i] = _normalize(cross3(b - a, sdir))
        pd[i] = dot3(pn[i], a)
    poly = np.empty((cap, 3))
    clipped = np.empty((cap, 3))
    npoly = n2
    for i in range(n2):
        poly[i] = face2[i]
    for e in range(n1):
        nc = 0
        for i in range(npoly):
            P = poly[i]
            Q = poly[i + 1] if i < npoly - 1 else poly[0]
            PQ = Q - P
            in1 = dot3(P - face1[e], pn[e]) > -_MINVAL
            in2 = dot3(Q - face1[e], pn[e]) > -_MINVAL
            if not in1 and not in2:
                continue
            if in1 and in2:
                if nc < cap:
                    clipped[nc] = Q
                    nc += 1
                continue
            den = dot3(pn[e], PQ)
            if den != 0.0:
                tt = (pd[e] - dot3(pn[e], P)) / den
                if 0.0 <= tt <= 1.0 and nc < cap:
                    clipped[nc] = P + PQ * tt
                    nc += 1
            if in2 and nc < cap:
                clipped[nc] = Q
                nc += 1
        poly, clipped = clipped, poly
        npoly = nc
    m = 0
    for i in range(npoly):
        if dot3(poly[i] - face1[0], n) <= 0:
            poly[m] = poly[i]
            m += 1
    if m < 1:
        return 0
    if m > 4:
        q = _quad(poly, m)
        for i in range(4):
            dists[i] = _witness(poly[q[i]], face1[0], n, wdir, w1, w2, i)
        return 4
    if n2 == 2 and m > 2:  # an edge: its two farthest points
        b1, b2, dd = 0, 1, 0.0
        for i in range(m):
            for j in range(i + 1, m):
                x = poly[j] - poly[i]
                if dot3(x, x) > dd:
                    dd, b1, b2 = dot3(x, x), i, j
        dists[0] = _witness(poly[b1], face1[0], n, wdir, w1, w2, 0)
        dists[1] = _witness(poly[b2], face1[0], n, wdir, w1, w2, 1)
        return 2
    for i in range(m):
        dists[i] = _witness(poly[i], face1[0], n, wdir, w1, w2, i)
    return m


@njit(cache=True, error_model="numpy")
def _witness(x, a, n, wdir, w1, w2, i):
    d = dot3(x - a, n)
    w1[i] = x - wdir * abs(d)
    w2[i] = x
    return d


@njit(cache=True, error_model="numpy")
def multi_contact(out, k, t1, s1, p1, R1, v1, f1, t2, s2, p2, R2, v2, f2, normal):
    """Contacts (written from row k) of a penetrating box/mesh pair (not box-box) whose penetration normal
    (geom 1 -> geom 2) is ``normal``, as MuJoCo's multicontact; 0 when its features do not touch face to face
    or edge to face (the caller keeps the single penetration contact). Meshes need their packed faces."""
    if (t1 == MESH and f1.shape[0] < 2) or (t2 == MESH and f2.shape[0] < 2):
        return 0
    i1 = np.empty(64, np.int64)
    i2 = np.empty(64, np.int64)
    m1 = _support_set(t1, s1, R1, v1, normal, i1)
    m2 = _support_set(t2, s2, R2, v2, -normal, i2)
    c1 = np.empty(64, np.int64)
    c2 = np.empty(64, np.int64)
    k1 = _faces_through(t1, f1, i1, m1, c1)
    k2 = _faces_through(t2, f2, i2, m2, c2)
    dim1, dim2 = min(m1, 3), min(m2, 3)
    dists = np.empty(4)
    w1 = np.empty((4, 3))
    w2 = np.empty((4, 3))
    nc = -1
    flip = False
    for a in range(k1):  # face against face
        na = _face_normal(t1, f1, R1, c1[a])
        for b in range(k2):
            nb = _face_normal(t2, f2, R2, c2[b])
            if dot3(na, nb) < -FACE_TOL:
                face1 = _face_vertices(t1, s1, p1, R1, v1, f1, c1[a])
                face2 = _face_vertices(t2, s2, p2, R2, v2, f2, c2[b])
                nc = _clip(face2, face1, nb, -na, -nb, dists, w1, w2)
                flip = True
                break
        if nc >= 0:
            break
    if nc < 0:
        ends = np.empty((64, 3))
        if dim1 < 3 and dim1 <= dim2:  # an edge of geom 1 along a face of geom 2
            ne, x0 = _edges(t1, s1, p1, R1, v1, f1, i1, m1, ends)
            for b in range(k2):
                nb = _face_normal(t2, f2, R2, c2[b])
                for e in range(ne):
                    if abs(dot3(_normalize(ends[e] - x0), nb)) < EDGE_TOL:
                        edge = np.empty((2, 3))
                        edge[0], edge[1] = x0, ends[e]
                        nc = _clip(_face_vertices(t2, s2, p2, R2, v2, f2, c2[b]), edge, nb, nb, -nb, dists, w1, w2)
                        flip = True
                        break
                if nc >= 0:
                    break
        elif dim2 < 3:  # an edge of geom 2 along a face of geom 1
            ne, x0 = _edges(t2, s2, p2, R2, v2, f2, i2, m2, ends)
            for a in range(k1):
                na = _face_normal(t1, f1, R1, c1[a])
                for e in range(ne):
                    if abs(dot3(_normalize(ends[e] - x0), na)) < EDGE_TOL:
                        edge = np.empty((2, 3))
                        edge[0], edge[1] = x0, ends[e]
                        nc = _clip(_face_vertices(t1, s1, p1, R1, v1, f1, c1[a]), edge, na, na, -na, dists, w1, w2)
                        break
                if nc >= 0:
                    break
    if nc <= 0:
        return 0
    lowest = 0.0
    for i in range(nc):
        lowest = min(lowest, dists[i])
    if lowest >= 0.0:
        return 0
    for i in range(nc):
        x1, x2 = (w2[i], w1[i]) if flip else (w1[i], w2[i])
        put(out, k + i, dists[i], 0.5 * (x1 + x2), _normalize(x1 - x2))
    return nc
