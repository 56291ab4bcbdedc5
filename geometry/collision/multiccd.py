"""Several contacts for a penetrating box/mesh pair from one convex penetration (MuJoCo 4's multicontact after EPA,
engine_collision_gjk.c): up to four points where two faces touch, instead of one.

EPA's final polytope face (collision/ccd_epa.py) names each geom's touching feature: the distinct support vertices
among its three corners are a vertex, an edge or a face, whose candidate faces are a box's sides through it or the
mesh polygons through it (collision/hull_polygons.py; a face: the first polygon through its three vertices). The
most opposed pair of candidate faces (MuJoCo 4: not the first pair found), if their normals are opposed within
MuJoCo's face tolerance (cos > 0.996), touch face to face: as MuJoCo 4 (its contacts, in its order, to 1e-12), geom
2's face (a box side in MuJoCo's corner order, a mesh polygon walked backwards) is clipped by the side planes of
geom 1's face (planes through its edges containing geom 1's normal n1); each clipped point below geom 1's face is
moved along n1 onto that face's plane (through its first corner), the contact's depth is from there to the point
along geom 2's normal n2 (so a non-flat merged face, or a triangle whose single-precision corners are off the plane
of its normal, gives each point its own depth), its position midway between the moved point and that point pushed
along n2 by the depth, normal -n2 (more than four points: the quadrilateral MuJoCo's polygonQuad walk finds largest,
MuJoCo 4 taking a quadrilateral's true area, half its diagonals' cross product). Else an edge of the
lower-dimensional feature (then of the other) parallel to a candidate face of the other geom (|cos| < 0.0888) is clipped
by that face (two contacts). Otherwise (vertex or edge against a face at an angle) the single EPA contact stands."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision._vec import dot3, matTvec, matvec, normalize3, normalize3s, put

BOX, MESH = 6, 7
FACE_TOL = 0.996  # MuJoCo's mjFACE_TOL: opposed face normals
EDGE_TOL = 0.0888  # MuJoCo's mjEDGE_TOL: an edge parallel to a face
_MINVAL = 1e-15

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
    for j in range(hi - lo):  # matvec(R, v) + p in scalars
        r = int(f[pvert + hi - 1 - j])
        for i in range(3):
            out[j, i] = (R[i, 0] * v[r, 0] + R[i, 1] * v[r, 1] + R[i, 2] * v[r, 2]) + p[i]
    return out


@njit(cache=True, error_model="numpy")
def _normalize(x):
    """x over its length, as a new array ((1, 0, 0) for a zero x: normalize3)."""
    out = x.copy()
    normalize3(out)
    return out


@njit(cache=True, error_model="numpy")
def _area4(a, b, c, d):
    """Area of the quadrilateral a b c d (vertices in order): half the norm of its diagonals' cross product (in
    scalars: cross3(c - a, d - b))."""
    ux, uy, uz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    wx, wy, wz = d[0] - b[0], d[1] - b[1], d[2] - b[2]
    gx, gy, gz = uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx
    return 0.5 * math.sqrt(gx * gx + gy * gy + gz * gz)


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
def _clip(face1, face2, n, sdir, wdir, dists, w1, w2, nf2):
    """Clip polygon face2 by the planes through the edges of polygon face1 that contain direction sdir, keep
    the vertices on or below face1's plane (normal n); contacts: their depths below it along n and witness
    points (w1: the vertex pushed along -wdir by its depth, w2: the vertex), or, when nf2 (face2's outward
    normal) is not zero, _witness_any's face-to-face depths and witnesses; at most four (the largest-area
    quadrilateral of more). Returns the count (MuJoCo's polygonClip)."""
    n1, n2 = face1.shape[0], face2.shape[0]
    if n1 < 3:
        return 0
    cap = 2 * (n1 + n2) + 8
    pn = np.empty((n1, 3))
    pd = np.empty(n1)
    for i in range(n1):  # side planes of face1 containing sdir (as (a + sdir) - a: MuJoCo's rounding, which decides
        a, b = face1[i], face1[(i + 1) % n1]  # whether a point on a side plane is in): _normalize(cross3(b - a,
        ux, uy, uz = b[0] - a[0], b[1] - a[1], b[2] - a[2]  # (a + sdir) - a)) in scalars
        wx, wy, wz = (a[0] + sdir[0]) - a[0], (a[1] + sdir[1]) - a[1], (a[2] + sdir[2]) - a[2]
        gx, gy, gz, _ = normalize3s(uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx)
        pn[i, 0], pn[i, 1], pn[i, 2] = gx, gy, gz
        pd[i] = gx * a[0] + gy * a[1] + gz * a[2]
    poly = np.empty((cap, 3))
    clipped = np.empty((cap, 3))
    npoly = n2
    for i in range(n2):
        poly[i] = face2[i]
    for e in range(n1):  # in scalars (3-vector temporaries cost an allocation each, per vertex per edge)
        nc = 0
        fx, fy, fz = face1[e, 0], face1[e, 1], face1[e, 2]
        ex, ey, ez = pn[e, 0], pn[e, 1], pn[e, 2]
        for i in range(npoly):
            j = i + 1 if i < npoly - 1 else 0
            px, py, pz = poly[i, 0], poly[i, 1], poly[i, 2]
            qx, qy, qz = poly[j, 0], poly[j, 1], poly[j, 2]
            in1 = (px - fx) * ex + (py - fy) * ey + (pz - fz) * ez > -_MINVAL
            in2 = (qx - fx) * ex + (qy - fy) * ey + (qz - fz) * ez > -_MINVAL
            if not in1 and not in2:
                continue
            if in1 and in2:
                if nc < cap:
                    clipped[nc, 0], clipped[nc, 1], clipped[nc, 2] = qx, qy, qz
                    nc += 1
                continue
            dx, dy, dz = qx - px, qy - py, qz - pz
            den = ex * dx + ey * dy + ez * dz
            if den != 0.0:
                tt = (pd[e] - (ex * px + ey * py + ez * pz)) / den
                if 0.0 <= tt <= 1.0 and nc < cap:
                    clipped[nc, 0], clipped[nc, 1], clipped[nc, 2] = px + dx * tt, py + dy * tt, pz + dz * tt
                    nc += 1
            if in2 and nc < cap:
                clipped[nc, 0], clipped[nc, 1], clipped[nc, 2] = qx, qy, qz
                nc += 1
        poly, clipped = clipped, poly
        npoly = nc
    m = 0
    for i in range(npoly):
        if ((poly[i, 0] - face1[0, 0]) * n[0] + (poly[i, 1] - face1[0, 1]) * n[1]
                + (poly[i, 2] - face1[0, 2]) * n[2]) <= 0:
            poly[m, 0], poly[m, 1], poly[m, 2] = poly[i, 0], poly[i, 1], poly[i, 2]
            m += 1
    if m < 1:
        return 0
    if m > 4:
        q = _quad(poly, m)
        for i in range(4):
            dists[i] = _witness_any(poly[q[i]], face1[0], n, wdir, w1, w2, i, nf2)
        return 4
    if n2 == 2 and m > 2:  # an edge: its two farthest points
        b1, b2, dd = 0, 1, 0.0
        for i in range(m):
            for j in range(i + 1, m):
                x = poly[j] - poly[i]
                if dot3(x, x) > dd:
                    dd, b1, b2 = dot3(x, x), i, j
        dists[0] = _witness_any(poly[b1], face1[0], n, wdir, w1, w2, 0, nf2)
        dists[1] = _witness_any(poly[b2], face1[0], n, wdir, w1, w2, 1, nf2)
        return 2
    for i in range(m):
        dists[i] = _witness_any(poly[i], face1[0], n, wdir, w1, w2, i, nf2)
    return m


@njit(cache=True, error_model="numpy")
def _witness_any(x, a, n, wdir, w1, w2, i, nf2):
    """_witness, or (nf2 not zero: x lies on the clipped face, whose outward normal is nf2) MuJoCo 4's face-to-face
    witnesses: x moved along n onto the clipping face's plane through a (w1), its depth: from there to x along
    nf2 (w2: w1 pushed along nf2 by the depth). The clipped face need not be flat (a merged mesh face, or a
    triangle whose single-precision corners are off the plane of its normal): each point keeps its own depth."""
    if nf2[0] == 0.0 and nf2[1] == 0.0 and nf2[2] == 0.0:
        return _witness(x, a, n, wdir, w1, w2, i)
    y = x + n * dot3(a - x, n)
    d = dot3(y - x, nf2)
    w1[i] = y
    w2[i] = y + nf2 * abs(d)
    return d


@njit(cache=True, error_model="numpy")
def _witness(x, a, n, wdir, w1, w2, i):
    d = dot3(x - a, n)
    w1[i] = x - wdir * abs(d)
    w2[i] = x
    return d


@njit(cache=True, error_model="numpy")
def _feature(FI, FW, g, pts):
    """The distinct support indices of EPA's final face on shape g (0 or 1) and their points (pts rows): MuJoCo's
    simplexDim, 1 (vertex), 2 (edge) or 3 (face); returns (dimension, indices)."""
    a, b, c = FI[0, g], FI[1, g], FI[2, g]
    o = 3 * g
    pts[0], pts[1], pts[2] = FW[0, o:o + 3], FW[1, o:o + 3], FW[2, o:o + 3]
    idx = np.array([a, b, c])
    if a == b:
        if a == c:
            return 1, idx
        idx[1] = c
        pts[1] = pts[2]
        return 2, idx
    return (2 if c == a or c == b else 3), idx


@njit(cache=True, error_model="numpy")
def _box_side(R, d, nrm, ind):
    """The box side whose outward normal is within MuJoCo's face tolerance of world direction d (boxNormals2)."""
    dl = matTvec(R, d)
    dl = dl / math.sqrt(dot3(dl, dl))
    for i in range(6):
        sgn = 1.0 if i % 2 == 0 else -1.0
        if dl[i // 2] * sgn > FACE_TOL:
            x = np.zeros(3)
            x[i // 2] = sgn
            nrm[0] = matvec(R, x)
            ind[0] = i
            return 1
    return 0


@njit(cache=True, error_model="numpy")
def _normals(t, R, f, dim, idx, d, nrm, ind):
    """Candidate faces of a feature (MuJoCo's boxNormals / meshNormals): their world outward normals (nrm rows)
    and indices; returns their count. A box vertex: its three sides; an edge: its two sides; a face: its side (a
    box feature that names no side falls back to the side facing d). A mesh face: the first polygon through its
    three vertices; an edge: the polygons through both ends; a vertex: the polygons through it."""
    if t == BOX:
        if dim == 1:
            for a in range(3):
                pos = (idx[0] >> a) & 1
                x = np.zeros(3)
                x[a] = 1.0 if pos else -1.0
                nrm[a] = matvec(R, x)
                ind[a] = 2 * a + (0 if pos else 1)
            return 3
        c = 0
        for a in range(3):
            allset, noneset = True, True
            for q in range(dim):
                if (idx[q] >> a) & 1:
                    noneset = False
                else:
                    allset = False
            if allset or noneset:
                if c < 2:
                    x = np.zeros(3)
                    x[a] = 1.0 if allset else -1.0
                    nrm[c] = matvec(R, x)
                    ind[c] = 2 * a + (0 if allset else 1)
                c += 1
        if (dim == 3 and c == 1) or (dim == 2 and c == 2):
            return c
        return _box_side(R, d, nrm, ind)
    nv = int(f[1])
    vpoly, padr = 3 + nv, 3 + nv + int(f[2 + nv])
    nrmadr = padr + int(f[0]) + 1
    pvert = nrmadr + 3 * int(f[0])
    c = 0
    for q in range(int(f[2 + idx[0]]), int(f[3 + idx[0]])):
        face = int(f[vpoly + q])
        ok = True
        for a in range(1, dim):
            found = False
            for r in range(int(f[padr + face]), int(f[padr + face + 1])):
                if int(f[pvert + r]) == idx[a]:
                    found = True
                    break
            if not found:
                ok = False
                break
        if ok and c < nrm.shape[0]:
            nrm[c] = matvec(R, f[nrmadr + 3 * face:nrmadr + 3 * face + 3].copy())
            ind[c] = face
            c += 1
            if (dim == 3 and c == 1) or (dim == 2 and c == 2):
                break
    return c


@njit(cache=True, error_model="numpy")
def _edge_dirs(t, s, p, R, v, f, dim, idx, pts, ends, dirs):
    """Unit directions of the edges of a vertex or edge feature from its first point pts[0] (an edge: itself; a
    box corner: its three edges; a mesh vertex: to the previous vertex of each polygon through it), their far
    ends in ``ends`` (MuJoCo's boxEdgeNormals / meshEdgeNormals); returns their count."""
    if dim == 2:
        ends[0] = pts[1]
        dirs[0] = _normalize(pts[1] - pts[0])
        return 1
    if t == BOX:
        for b in range(3):
            ends[b] = matvec(R, _corner(s, idx[0] ^ (1 << b))) + p
            dirs[b] = _normalize(ends[b] - pts[0])
        return 3
    nv = int(f[1])
    vpoly, padr = 3 + nv, 3 + nv + int(f[2 + nv])
    pvert = padr + int(f[0]) + 1 + 3 * int(f[0])
    c = 0
    for q in range(int(f[2 + idx[0]]), int(f[3 + idx[0]])):
        face = int(f[vpoly + q])
        lo, hi = int(f[padr + face]), int(f[padr + face + 1])
        for r in range(lo, hi):
            if int(f[pvert + r]) == idx[0]:
                prev = hi - 1 if r == lo else r - 1
                if c < ends.shape[0]:
                    ends[c] = matvec(R, v[int(f[pvert + prev])]) + p
                    dirs[c] = _normalize(ends[c] - pts[0])
                    c += 1
                break
    return c


@njit(cache=True, error_model="numpy")
def multi_contact(out, k, t1, s1, p1, R1, v1, f1, t2, s2, p2, R2, v2, f2, FI, FW, x1, x2):
    """Contacts (written from row k) of a penetrating box/mesh pair (not box-box) from EPA's final face (FI, FW:
    collision/ccd_epa.py) and witness points x1, x2, as MuJoCo 4's multicontact: each geom's feature on that face
    (vertex, edge or face) names its candidate faces; two opposed within the face tolerance are clipped, else an
    edge of the lower-dimensional feature parallel to a candidate face of the other is clipped by it; 0 when
    neither (the caller keeps the single EPA contact). Meshes need their packed faces."""
    if (t1 == MESH and f1.shape[0] < 2) or (t2 == MESH and f2.shape[0] < 2) or FI[0, 0] < -1:
        return 0
    q1 = np.empty((3, 3))
    q2 = np.empty((3, 3))
    dim1, i1 = _feature(FI, FW, 0, q1)
    dim2, i2 = _feature(FI, FW, 1, q2)
    if i1[0] < 0 or i2[0] < 0:
        return 0
    cap = 64
    n1 = np.empty((cap, 3))
    n2 = np.empty((cap, 3))
    c1 = np.empty(cap, np.int64)
    c2 = np.empty(cap, np.int64)
    k1 = _normals(t1, R1, f1, dim1, i1, x1 - x2, n1, c1)
    k2 = _normals(t2, R2, f2, dim2, i2, x2 - x1, n2, c2)
    dists = np.empty(4)
    w1 = np.empty((4, 3))
    w2 = np.empty((4, 3))
    nc = -1
    flip = False
    fa, fb, best = -1, -1, -FACE_TOL
    for a in range(k1):  # face against face: the most opposed pair of candidate faces
        for b in range(k2):
            c = dot3(n1[a], n2[b])
            if c < best:
                fa, fb, best = a, b, c
    if fa >= 0:
        face1 = _face_vertices(t1, s1, p1, R1, v1, f1, c1[fa])
        face2 = _face_vertices(t2, s2, p2, R2, v2, f2, c2[fb])
        nc = _clip(face1, face2, n1[fa], n1[fa], n1[fa], dists, w1, w2, n2[fb])
    if nc < 0:
        ends = np.empty((cap, 3))
        dirs = np.empty((cap, 3))
        edge = np.empty((2, 3))
        if dim1 < 3 and dim1 <= dim2:  # an edge of geom 1 along a face of geom 2
            ne = _edge_dirs(t1, s1, p1, R1, v1, f1, dim1, i1, q1, ends, dirs)
            for b in range(k2):
                for e in range(ne):
                    if abs(dot3(dirs[e], n2[b])) < EDGE_TOL:
                        edge[0], edge[1] = q1[0], ends[e]
                        nc = _clip(_face_vertices(t2, s2, p2, R2, v2, f2, c2[b]), edge, n2[b], n2[b], -n2[b],
                                   dists, w1, w2, np.zeros(3))
                        flip = True
                        break
                if nc >= 0:
                    break
        if nc < 0 and dim2 < 3:  # an edge of geom 2 along a face of geom 1
            ne = _edge_dirs(t2, s2, p2, R2, v2, f2, dim2, i2, q2, ends, dirs)
            for a in range(k1):
                for e in range(ne):
                    if abs(dot3(dirs[e], n1[a])) < EDGE_TOL:
                        edge[0], edge[1] = q2[0], ends[e]
                        nc = _clip(_face_vertices(t1, s1, p1, R1, v1, f1, c1[a]), edge, n1[a], n1[a], -n1[a],
                                   dists, w1, w2, np.zeros(3))
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
        y1, y2 = (w2[i], w1[i]) if flip else (w1[i], w2[i])
        put(out, k + i, dists[i], 0.5 * (y1 + y2), _normalize(y1 - y2))
    return nc
