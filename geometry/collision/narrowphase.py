"""Narrow phase: the contact kernel for each pair of shape types, and signed distances.

``collide`` picks MuJoCo's routine for the pair (analytic where MuJoCo is analytic, MuJoCo 4's
GJK/EPA otherwise: collision/ccd.py) and writes up to ``MAXCON`` contacts. ``signed_distance``
returns the exact signed distance and witness points of a pair (GJK when separated, the analytic or EPA depth when
overlapping). Type codes are those of ``mallard.geometry.shapes`` (MuJoCo's order).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision import box as B
from mallard.geometry.collision.box_box import box_box
from mallard.geometry.collision import primitives as P
from mallard.geometry.collision._vec import dot3, matTvec, matvec, normalize3, put
from mallard.geometry.collision.ccd import penetration
from mallard.geometry.collision.gjk import epa, gjk, support, witness
from mallard.geometry.collision.mesh_graph import hull_extreme
from mallard.geometry.collision.hfield import MAXCONPAIR, hfield_collide
from mallard.geometry.collision.multiccd import multi_contact

PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = range(8)
MAXCON = 12  # most contacts one pair can produce (box-box clipping capacity), height fields aside
MAXCON_HFIELD = MAXCONPAIR  # most contacts of a height-field pair (MuJoCo's mjMAXCONPAIR)


@njit(cache=True, error_model="numpy")
def has_collider(t1, t2):
    """Whether a pair of types (in either order) has a contact routine."""
    a = min(t1, t2)
    b = max(t1, t2)
    if b == 8:  # SDF pairs (type 8) run sdf_collide in engine.py
        return False
    if a == HFIELD or b == HFIELD:  # height fields collide with the convex primitives and meshes
        return a == HFIELD and b > HFIELD
    if a == PLANE and b == PLANE:
        return False
    return True


@njit(cache=True, error_model="numpy")
def rbound(t, s, verts):
    """Radius of the bounding sphere about the geometry origin (0 for planes: unbounded)."""
    if t == SPHERE:
        return s[0]
    if t == CAPSULE:
        return s[0] + s[1]
    if t == CYLINDER:
        return math.sqrt(s[0] * s[0] + s[1] * s[1])
    if t == BOX:
        return math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2])
    if t == ELLIPSOID:
        return max(s[0], max(s[1], s[2]))
    if t == MESH:
        r = 0.0
        for i in range(verts.shape[0]):
            r = max(r, math.sqrt(dot3(verts[i], verts[i])))
        return r
    return 0.0


@njit(cache=True, error_model="numpy")
def _area4(v, a, b, c, d):
    """Area of the planar quadrilateral a b c d (half the norm of its diagonals' cross product)."""
    x = np.cross(v[a] - v[c], v[b] - v[d])
    return 0.5 * math.sqrt(dot3(x, x))


@njit(cache=True, error_model="numpy")
def _hull4(v, poly, a):
    """Indices into ``poly`` (a convex polygon's vertex rows of ``v``) of at most four of its vertices, the
    first being ``a``: the others advanced around the polygon while the quadrilateral's area grows."""
    n = poly.shape[0]
    res = np.array([a, (a + 1) % n, (a + 2) % n, (a + 3) % n])
    if n <= 4:
        return res[:n]
    b, c, d = res[1], res[2], res[3]
    m = _area4(v, poly[a], poly[b], poly[c], poly[d])
    while True:
        nxt = (d + 1) % n
        mn = _area4(v, poly[a], poly[b], poly[c], poly[nxt])
        if mn <= m:
            break
        d, m = nxt, mn
        while True:
            nxt = (c + 1) % n
            mn = _area4(v, poly[a], poly[b], poly[nxt], poly[d])
            if mn <= m:
                break
            c, m = nxt, mn
        while True:
            nxt = (b + 1) % n
            mn = _area4(v, poly[a], poly[nxt], poly[c], poly[d])
            if mn <= m:
                break
            b, m = nxt, mn
        res[1], res[2], res[3] = b, c, d
    return res


@njit(cache=True, error_model="numpy")
def plane_convex(out, k, margin, p1, R1, s1, p2, R2, s2, t2, v2, f2):
    """plane_convex_g without a hull graph."""
    return plane_convex_g(out, k, margin, p1, R1, s1, p2, R2, s2, t2, v2, f2, np.zeros(0, np.int64), 0.0)


@njit(cache=True, error_model="numpy")
def plane_convex_g(out, k, margin, p1, R1, s1, p2, R2, s2, t2, v2, f2, g2, r2):
    """Plane against an ellipsoid or convex mesh: the support point along -normal and, for a mesh with hull
    faces ``f2`` (collision/hull_polygons.py), up to three more vertices of the hull face through it that
    faces the plane most squarely, pruned to a largest-area quadrilateral (MuJoCo 4's mjc_PlaneConvex);
    face vertices above the mesh origin along the normal or beyond the margin are dropped."""
    normal = R1[:, 2].copy()
    if t2 != MESH:
        sp = support(t2, s2, p2, R2, v2, -normal)
        dist = dot3(normal, sp - p1)
        if dist > margin:
            return 0
        put(out, k, dist, sp - normal * (0.5 * dist), normal)
        return 1
    ln = matTvec(R2, normal)
    best = -1
    bd = -1e300
    if g2.shape[0] > 0 and ln[0] == ln[0] and ln[1] == ln[1] and ln[2] == ln[2]:
        best = hull_extreme(v2, g2, r2, -ln[0], -ln[1], -ln[2], 0.0)[0]  # as the scan: -(ln·v) exactly
    else:
        for i in range(v2.shape[0]):  # the deepest vertex (first of equals)
            vd = -dot3(ln, v2[i])
            if vd > bd:
                bd = vd
                best = i
    sp = matvec(R2, v2[best]) + p2
    dist = dot3(normal, sp - p1)
    if dist > margin:
        return 0
    put(out, k, dist, sp - normal * (0.5 * dist), normal)
    if f2.shape[0] < 2 or f2[0] < 1:
        return 1
    npoly, nv = int(f2[0]), int(f2[1])
    vadr = 2
    vpoly = vadr + nv + 1
    padr = vpoly + int(f2[vadr + nv])
    nrm = padr + npoly + 1
    pvert = nrm + 3 * npoly
    face = -1
    fd = 1.0
    for q in range(int(f2[vadr + best]), int(f2[vadr + best + 1])):
        f = int(f2[vpoly + q])
        d = f2[nrm + 3 * f] * ln[0] + f2[nrm + 3 * f + 1] * ln[1] + f2[nrm + 3 * f + 2] * ln[2]
        if d < fd:
            fd = d
            face = f
    if face < 0:
        return 1
    lo, hi = int(f2[padr + face]), int(f2[padr + face + 1])
    poly = np.empty(hi - lo, np.int64)
    a = 0
    for i in range(hi - lo):
        poly[i] = int(f2[pvert + lo + i])
        if poly[i] == best:
            a = i
    idx = _hull4(v2, poly, a)
    count = 1
    for i in range(1, idx.shape[0]):
        pnt = matvec(R2, v2[poly[idx[i]]]) + p2
        if dot3(normal, pnt - p2) > 0.0:
            continue
        d = dot3(normal, pnt - p1)
        if d > margin:
            continue
        put(out, k + count, d, pnt - normal * (0.5 * d), normal)
        count += 1
    return count


@njit(cache=True, error_model="numpy")
def convex_convex(out, k, margin, t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, f1, f2):
    """convex_convex_g without hull graphs."""
    z = np.zeros(0, np.int64)
    return convex_convex_g(out, k, margin, t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, f1, f2, z, 0.0, z, 0.0)


@njit(cache=True, error_model="numpy")
def convex_convex_g(out, k, margin, t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, f1, f2, g1, r1, g2, r2):
    """One contact for a general convex pair as MuJoCo 4's native GJK/EPA finds it (collision/ccd.py: the shapes
    inflated by half the margin each, a contact when they overlap); a penetrating box/mesh pair without margin gets
    MuJoCo's multi-contact (collision/multiccd.py) where its faces touch."""
    FI = np.empty((3, 2), np.int64)
    FW = np.empty((3, 6))
    dist, x1, x2 = penetration((t1, s1, p1, R1, v1, g1, r1, margin), (t2, s2, p2, R2, v2, g2, r2, margin), FI, FW)
    if not dist < 0:
        return 0
    n = x1 - x2
    normalize3(n)
    if margin <= 0.0 and (t1 == BOX or t1 == MESH) and (t2 == BOX or t2 == MESH) and not (t1 == BOX and t2 == BOX):
        nm = multi_contact(out, k, t1, s1, p1, R1, v1, f1, t2, s2, p2, R2, v2, f2, FI, FW, x1, x2)
        if nm > 0:
            return nm
    put(out, k, margin + dist, (x1 + x2) * 0.5, n)
    return 1


@njit(cache=True, error_model="numpy")
def collide(out, k, margin, t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, f1, f2):
    """Contacts between geom1 and geom2 (t1 <= t2 required), written from row k; returns the count.
    Contacts with dist > margin are not reported. ``f1``/``f2`` hold geom1's/geom2's hull faces if it is a
    mesh (collision/hull_polygons.py; empty otherwise)."""
    z = np.zeros(0, np.int64)
    return collide_g(out, k, margin, t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, f1, f2, z, 0.0, z, 0.0)


@njit(cache=True, error_model="numpy")
def collide_g(out, k, margin, t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, f1, f2, g1, r1, g2, r2):
    """``collide`` with the meshes' hull graphs g1, g2 and bounding radii r1, r2 (collision/mesh_graph.py; an
    empty graph: scans): the same contacts."""
    if t1 == PLANE:
        if t2 == SPHERE:
            return P.plane_sphere(out, k, margin, p1, R1, s1, p2, R2, s2)
        if t2 == CAPSULE:
            return P.plane_capsule(out, k, margin, p1, R1, s1, p2, R2, s2)
        if t2 == CYLINDER:
            return P.plane_cylinder(out, k, margin, p1, R1, s1, p2, R2, s2)
        if t2 == BOX:
            return P.plane_box(out, k, margin, p1, R1, s1, p2, R2, s2)
        if t2 == ELLIPSOID or t2 == MESH:
            return plane_convex_g(out, k, margin, p1, R1, s1, p2, R2, s2, t2, v2, f2, g2, r2)
        return 0
    if t1 == HFIELD:  # the height field's packed grid rides in v1 (collision/hfield.py)
        if t2 <= HFIELD:
            return 0
        return hfield_collide(out, k, margin, p1, R1, v1, t2, s2, p2, R2, v2, rbound(t2, s2, v2))
    if t1 == SPHERE:
        if t2 == SPHERE:
            return P.sphere_sphere(out, k, margin, p1, R1, s1[0], p2, R2, s2[0])
        if t2 == CAPSULE:
            return P.sphere_capsule(out, k, margin, p1, R1, s1, p2, R2, s2)
        if t2 == CYLINDER:
            return P.sphere_cylinder(out, k, margin, p1, R1, s1, p2, R2, s2)
        if t2 == BOX:
            return B.sphere_box(out, k, margin, p1, R1, s1, p2, R2, s2)
    elif t1 == CAPSULE:
        if t2 == CAPSULE:
            return P.capsule_capsule(out, k, margin, p1, R1, s1, p2, R2, s2)
        if t2 == BOX:
            return B.capsule_box(out, k, margin, p1, R1, s1, p2, R2, s2)
    elif t1 == BOX and t2 == BOX:
        return box_box(out, k, margin, p1, R1, s1, p2, R2, s2)
    return convex_convex_g(out, k, margin, t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, f1, f2, g1, r1, g2, r2)


@njit(cache=True, error_model="numpy")
def signed_distance(t1, s1, p1, R1, v1, t2, s2, p2, R2, v2):
    """Exact signed distance between two geometries (any order, at most one half space).

    Returns (distance, p_WCa on geometry 1, p_WCb on geometry 2, unit normal from 1 to 2); the
    normal is the direction in which geometry 2 would have to move to increase the distance. When
    overlapping, the distance is minus the penetration depth (the shortest separating translation,
    EPA) and the witness points are the deepest points of each geometry inside the other.
    """
    if t1 == PLANE or t2 == PLANE:
        flip = t2 == PLANE
        if flip:
            pp, Rp, to, so, po, Ro, vo = p2, R2, t1, s1, p1, R1, v1
        else:
            pp, Rp, to, so, po, Ro, vo = p1, R1, t2, s2, p2, R2, v2
        n = Rp[:, 2].copy()
        q = support(to, so, po, Ro, vo, -n)
        d = dot3(n, q - pp)
        on_plane = q - n * d
        if flip:
            return d, q, on_plane, -n
        return d, on_plane, q, n
    W = np.zeros((4, 3))
    WA = np.zeros((4, 3))
    WB = np.zeros((4, 3))
    # spheres and capsules: GJK on their core point / segment, then remove the radii, which
    # gives witness points as exact as the distance (GJK on round surfaces converges slowly)
    r1 = s1[0] if (t1 == SPHERE or t1 == CAPSULE) else 0.0
    r2 = s2[0] if (t2 == SPHERE or t2 == CAPSULE) else 0.0
    if r1 > 0 or r2 > 0:
        c1 = s1.copy()
        c2 = s2.copy()
        if r1 > 0:
            c1[0] = 0.0
        if r2 > 0:
            c2[0] = 0.0
        dist, m, status = gjk(t1, c1, p1, R1, v1, t2, c2, p2, R2, v2, W, WA, WB)
        # A - B = (core A - core B) + ball(r1 + r2): exact whenever the cores are apart, even when
        # the shapes themselves overlap
        if status == 0 and dist > 1e-12:
            pa, pb = witness(W, WA, WB, m)
            n = pb - pa
            ln = math.sqrt(dot3(n, n))
            if ln > 0:
                n = n / ln
                return ln - r1 - r2, pa + n * r1, pb - n * r2, n
    dist, m, status = gjk(t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, W, WA, WB)
    if status == 0 and dist > 0:
        pa, pb = witness(W, WA, WB, m)
        n = pb - pa
        ln = math.sqrt(dot3(n, n))
        if ln > 0:
            return ln, pa, pb, n / ln
    # overlapping: the exact penetration depth (minimum translation) by EPA
    depth, n, pa, pb = epa(t1, s1, p1, R1, v1, t2, s2, p2, R2, v2, W, WA, WB, m)
    if depth <= 0.0 or dot3(n, n) == 0.0:
        n = p2 - p1
        ln = math.sqrt(dot3(n, n))
        n = n / ln if ln > 0 else np.array([1.0, 0.0, 0.0])
        pa, pb = witness(W, WA, WB, m)
        return 0.0, pa, pb, n
    return -depth, pa, pb, n


@njit(cache=True, error_model="numpy")
def point_distance(t, s, p, R, verts, planes, q):
    """Signed distance from world point ``q`` to a geometry, the nearest surface point N, and the
    unit gradient of the distance (outward normal at N). Exact for every primitive; for meshes it
    is exact outside and uses the hull facet ``planes`` (n, h) inside; ellipsoids use a
    converged Newton iteration."""
    x = matTvec(R, q - p)
    nl = np.zeros(3)
    nearest = np.zeros(3)
    if t == SPHERE:
        r = math.sqrt(dot3(x, x))
        if r > 0:
            nl = x / r
        else:
            nl[0] = 1.0
        nearest = nl * s[0]
        d = r - s[0]
    elif t == PLANE:
        d = x[2]
        nl[2] = 1.0
        nearest = x.copy()
        nearest[2] = 0.0
    elif t == CAPSULE:
        z = min(max(x[2], -s[1]), s[1])
        c = np.zeros(3)
        c[2] = z
        v = x - c
        r = math.sqrt(dot3(v, v))
        if r > 0:
            nl = v / r
        else:
            nl[0] = 1.0
        nearest = c + nl * s[0]
        d = r - s[0]
    elif t == BOX:
        inside = abs(x[0]) <= s[0] and abs(x[1]) <= s[1] and abs(x[2]) <= s[2]
        if inside:
            best = 1e300
            ax = 0
            for i in range(3):
                g = s[i] - abs(x[i])
                if g < best:
                    best = g
                    ax = i
            sg = 1.0 if x[ax] >= 0 else -1.0
            nl[ax] = sg
            nearest = x.copy()
            nearest[ax] = sg * s[ax]
            d = -best
        else:
            for i in range(3):
                nearest[i] = min(max(x[i], -s[i]), s[i])
            v = x - nearest
            d = math.sqrt(dot3(v, v))
            nl = v / d
    elif t == CYLINDER:
        rr = math.sqrt(x[0] * x[0] + x[1] * x[1])
        radial = np.zeros(3)
        if rr > 0:
            radial[0] = x[0] / rr
            radial[1] = x[1] / rr
        else:
            radial[0] = 1.0
        if rr <= s[0] and abs(x[2]) <= s[1]:
            gs = s[0] - rr
            gc = s[1] - abs(x[2])
            if gc < gs:
                nl[2] = 1.0 if x[2] >= 0 else -1.0
                nearest = x.copy()
                nearest[2] = nl[2] * s[1]
                d = -gc
            else:
                nl = radial
                nearest = radial * s[0]
                nearest[2] = x[2]
                d = -gs
        else:
            nearest[2] = min(max(x[2], -s[1]), s[1])
            rc = min(rr, s[0])
            nearest[0] = radial[0] * rc
            nearest[1] = radial[1] * rc
            v = x - nearest
            d = math.sqrt(dot3(v, v))
            nl = v / d
    elif t == ELLIPSOID:
        nearest, d, nl = _ellipsoid_point(s, x)
    else:
        # convex mesh: the support-based GJK distance outside; the nearest hull plane inside
        pt = np.zeros(3)
        W = np.zeros((4, 3))
        WA = np.zeros((4, 3))
        WB = np.zeros((4, 3))
        dist, m, status = gjk(MESH, s, np.zeros(3), np.eye(3), verts, SPHERE, pt, x, np.eye(3), verts, W, WA, WB)
        if status == 0 and dist > 0:
            pa, pb = witness(W, WA, WB, m)
            v = x - pa
            d = math.sqrt(dot3(v, v))
            nl = v / d
            nearest = pa
        else:
            d, nearest, nl = _hull_inside(planes, x)
    return d, matvec(R, nearest) + p, matvec(R, nl)


@njit(cache=True, error_model="numpy")
def _hull_inside(planes, x):
    """Signed distance (<= 0), nearest boundary point and normal of a point inside a convex
    hull given by its facet planes (unit normal n, offset h: n.x <= h inside)."""
    best = -1e300
    nb = np.zeros(3)
    for f in range(planes.shape[0]):
        g = planes[f, 0] * x[0] + planes[f, 1] * x[1] + planes[f, 2] * x[2] - planes[f, 3]
        if g > best:
            best = g
            nb = planes[f, :3].copy()
    return best, x - nb * best, nb


@njit(cache=True, error_model="numpy")
def _ellipsoid_point(s, x):
    """Nearest point of an ellipsoid with semi-axes s to local point x, the signed distance and
    the outward normal: the root t of sum (a_i x_i / (a_i^2 + t))^2 = 1 by safeguarded Newton."""
    a2 = s * s
    f = x[0] * x[0] / a2[0] + x[1] * x[1] / a2[1] + x[2] * x[2] / a2[2]
    tmin = -min(a2[0], min(a2[1], a2[2]))
    if f >= 1.0:
        lo = 0.0
        hi = math.sqrt(a2[0] * x[0] * x[0] + a2[1] * x[1] * x[1] + a2[2] * x[2] * x[2]) * 2.0 + 1e-300
    else:
        lo = tmin
        hi = 0.0
    t = 0.5 * (lo + hi) if f < 1.0 else 0.0
    for _ in range(200):
        g = -1.0
        dg = 0.0
        for i in range(3):
            den = a2[i] + t
            q = s[i] * x[i] / den
            g += q * q
            dg -= 2.0 * q * q / den
        if g > 0:
            lo = t
        else:
            hi = t
        tn = t - g / dg if dg != 0.0 else 0.5 * (lo + hi)
        if not (lo < tn < hi):
            tn = 0.5 * (lo + hi)
        if abs(tn - t) <= 1e-16 * (abs(t) + abs(tmin)):
            t = tn
            break
        t = tn
    y = np.empty(3)
    n = np.empty(3)
    for i in range(3):
        y[i] = a2[i] * x[i] / (a2[i] + t)
        n[i] = y[i] / a2[i]
    v = x - y
    d = math.sqrt(dot3(v, v))
    ln = math.sqrt(dot3(n, n))
    if ln > 0:
        n = n / ln
    else:
        n[0] = 1.0
    if f < 1.0:
        d = -d
    return y, d, n
