"""Analytic contact kernels for planes, spheres, capsules and cylinders (MuJoCo's routines).

Every kernel writes contacts into rows of ``out`` (see ``_vec.put``) starting at row ``k`` and
returns how many it wrote. Conventions (MuJoCo's): geom1 has the lower type code, the normal
points from geom1 to geom2, dist < 0 when penetrating, the position is midway between the
surfaces. A plane is the half space z <= 0 of its frame. Poses are (p 3, R 3x3).
"""
from __future__ import annotations

import math

from numba import njit

from mallard.geometry.collision._vec import MINVAL, clip, cross3, dot3, matvec, normalize3, normalize3s, put

_PARALLEL = 1e-8  # sin^2 of the angle below which two capsule axes count as parallel


@njit(cache=True, error_model="numpy")
def _plane_sphere_at(out, k, margin, p1, R1, cx, cy, cz, r):
    """Plane (geom1) against a sphere of radius r centred at (cx, cy, cz): at most one contact, written
    without temporaries (the plane normal is R1's z column)."""
    nx, ny, nz = R1[0, 2], R1[1, 2], R1[2, 2]
    cdist = (cx - p1[0]) * nx + (cy - p1[1]) * ny + (cz - p1[2]) * nz
    if cdist > margin + r:
        return 0
    dist = cdist - r
    t = -dist / 2.0 - r
    out[k, 0] = dist
    out[k, 1], out[k, 2], out[k, 3] = cx + nx * t, cy + ny * t, cz + nz * t
    out[k, 4], out[k, 5], out[k, 6] = nx, ny, nz
    out[k, 7], out[k, 8], out[k, 9] = 0.0, 0.0, 0.0
    return 1


@njit(cache=True, error_model="numpy")
def plane_sphere(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Plane (geom1) against a sphere of radius s2[0]: one contact."""
    return _plane_sphere_at(out, k, margin, p1, R1, p2[0], p2[1], p2[2], s2[0])


@njit(cache=True, error_model="numpy")
def plane_capsule(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Plane against a capsule: one sphere test per segment end (up to 2 contacts); tangent = axis."""
    ax, ay, az = R2[0, 2], R2[1, 2], R2[2, 2]
    h = s2[1]
    n1 = _plane_sphere_at(out, k, margin, p1, R1, p2[0] + h * ax, p2[1] + h * ay, p2[2] + h * az, s2[0])
    n2 = _plane_sphere_at(out, k + n1, margin, p1, R1, p2[0] - h * ax, p2[1] - h * ay, p2[2] - h * az, s2[0])
    for j in range(n1 + n2):
        out[k + j, 7], out[k + j, 8], out[k + j, 9] = ax, ay, az
    return n1 + n2


@njit(cache=True, error_model="numpy")
def plane_cylinder(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Plane against a cylinder: the rim point nearest the plane at both ends, plus two more points
    on the near rim (up to 4 contacts), as MuJoCo."""
    normal = R1[:, 2].copy()
    axis = R2[:, 2].copy()
    prjaxis = dot3(normal, axis)
    if prjaxis > 0:
        axis = -axis
        prjaxis = -prjaxis
    vec = p2 - p1
    dist0 = dot3(vec, normal)
    vec = axis * prjaxis - normal
    len_sqr = dot3(vec, vec)
    if len_sqr >= MINVAL * MINVAL:
        vec = vec * (s2[0] / math.sqrt(len_sqr))
    else:
        vec = R2[:, 0] * s2[0]
    prjvec = dot3(vec, normal)
    axis = axis * s2[1]
    prjaxis *= s2[1]
    cnt = 0
    d = dist0 + prjaxis + prjvec
    if d <= margin:
        pos = p2 + vec + axis - normal * (d * 0.5)
        put(out, k + cnt, d, pos, normal)
        cnt += 1
    else:
        return 0
    d = dist0 - prjaxis + prjvec
    if d <= margin:
        pos = p2 + vec - axis - normal * (d * 0.5)
        put(out, k + cnt, d, pos, normal)
        cnt += 1
    prjvec1 = -prjvec * 0.5
    d = dist0 + prjaxis + prjvec1
    if d <= margin:
        vec1 = cross3(vec, axis)
        normalize3(vec1)
        vec1 = vec1 * (s2[0] * math.sqrt(3.0) / 2.0)
        pos = p2 + vec1 + axis - vec * 0.5 - normal * (d * 0.5)
        put(out, k + cnt, d, pos, normal)
        cnt += 1
        pos = p2 - vec1 + axis - vec * 0.5 - normal * (d * 0.5)
        put(out, k + cnt, d, pos, normal)
        cnt += 1
    return cnt


@njit(cache=True, error_model="numpy", _nrt=False)
def plane_box(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Plane against a box: the (up to 4) lowest corners within the margin, in corner order. (Scalars for the
    normal, corners and positions: the same products and sums as the 3-vector helpers, without their arrays.)"""
    nx, ny, nz = R1[0, 2], R1[1, 2], R1[2, 2]
    dist = (p2[0] - p1[0]) * nx + (p2[1] - p1[1]) * ny + (p2[2] - p1[2]) * nz
    cnt = 0
    for i in range(8):
        v0 = s2[0] if i & 1 else -s2[0]
        v1 = s2[1] if i & 2 else -s2[1]
        v2 = s2[2] if i & 4 else -s2[2]
        c0 = R2[0, 0] * v0 + R2[0, 1] * v1 + R2[0, 2] * v2
        c1 = R2[1, 0] * v0 + R2[1, 1] * v1 + R2[1, 2] * v2
        c2 = R2[2, 0] * v0 + R2[2, 1] * v1 + R2[2, 2] * v2
        ldist = nx * c0 + ny * c1 + nz * c2
        if dist + ldist > margin or ldist > 0:
            continue
        d = dist + ldist
        h = d / 2.0
        row = k + cnt
        out[row, 0] = d
        out[row, 1], out[row, 2], out[row, 3] = c0 + p2[0] - nx * h, c1 + p2[1] - ny * h, c2 + p2[2] - nz * h
        out[row, 4], out[row, 5], out[row, 6] = nx, ny, nz
        out[row, 7], out[row, 8], out[row, 9] = 0.0, 0.0, 0.0
        cnt += 1
        if cnt >= 4:
            return 4
    return cnt


@njit(cache=True, error_model="numpy", _nrt=False)
def sphere_sphere(out, k, margin, p1, R1, r1, p2, R2, r2):
    """Sphere (radius r1) against sphere (radius r2) given as scalars: one contact (in scalars, as plane_box)."""
    d0, d1, d2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    cdist_sqr = d0 * d0 + d1 * d1 + d2 * d2
    min_dist = margin + r1 + r2
    if cdist_sqr > min_dist * min_dist:
        return 0
    dist = math.sqrt(cdist_sqr) - r1 - r2
    n0, n1, n2 = p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]
    if math.sqrt(n0 * n0 + n1 * n1 + n2 * n2) < MINVAL:  # concentric: the normal is across the two z axes
        a0, a1, a2, b0, b1, b2 = R1[0, 2], R1[1, 2], R1[2, 2], R2[0, 2], R2[1, 2], R2[2, 2]
        n0, n1, n2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
    n0, n1, n2, _ = normalize3s(n0, n1, n2)
    f = r1 + dist / 2.0
    out[k, 0] = dist
    out[k, 1], out[k, 2], out[k, 3] = p1[0] + n0 * f, p1[1] + n1 * f, p1[2] + n2 * f
    out[k, 4], out[k, 5], out[k, 6] = n0, n1, n2
    out[k, 7], out[k, 8], out[k, 9] = 0.0, 0.0, 0.0
    return 1


@njit(cache=True, error_model="numpy")
def sphere_capsule(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Sphere against capsule: sphere test against the nearest point of the capsule's segment."""
    axis = R2[:, 2].copy()
    x = clip(dot3(axis, p1 - p2), -s2[1], s2[1])
    return sphere_sphere(out, k, margin, p1, R1, s1[0], p2 + axis * x, R2, s2[0])


@njit(cache=True, error_model="numpy")
def sphere_cylinder(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Sphere against cylinder: side (sphere test), cap (plane test) or rim (point test)."""
    radius = s2[0]
    height = s2[1]
    axis = R2[:, 2].copy()
    vec = p1 - p2
    x = dot3(axis, vec)
    a_proj = axis * x
    p_proj = vec - a_proj
    p_proj_sqr = dot3(p_proj, p_proj)
    collide_side = abs(x) < height
    collide_cap = p_proj_sqr < radius * radius
    if collide_side and collide_cap:
        dist_cap = height - abs(x)
        dist_radius = radius - math.sqrt(p_proj_sqr)
        if dist_cap < dist_radius:
            collide_side = False
        else:
            collide_cap = False
    if collide_side:
        return sphere_sphere(out, k, margin, p1, R1, s1[0], a_proj + p2, R2, s2[0])
    if collide_cap:
        Rc = R2.copy()
        if x > 0:
            pos_cap = p2 + axis * height
        else:
            pos_cap = p2 - axis * height
            Rc[:, 0] = -R2[:, 0]
            Rc[:, 2] = -R2[:, 2]
        n = plane_sphere(out, k, margin, pos_cap, Rc, s2, p1, R1, s1)
        if n:
            out[k, 4:7] = -out[k, 4:7]
        return n
    p_proj = p_proj * (s2[0] / math.sqrt(p_proj_sqr))
    corner = axis * (height if x > 0 else -height) + p_proj + p2
    return sphere_sphere(out, k, margin, p1, R1, s1[0], corner, R2, 0.0)


@njit(cache=True, error_model="numpy")
def capsule_capsule(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Capsule against capsule: closest points of the segments (1 contact); for (nearly) parallel
    axes, sin^2(angle) < 1e-8, one contact at each end of the overlap of the segments (2 contacts),
    ordered along capsule 1's axis, as MuJoCo 4 does."""
    axis1 = R1[:, 2] * s1[1]
    axis2 = R2[:, 2] * s2[1]
    dif = p1 - p2
    ma = dot3(axis1, axis1)
    mb = -dot3(axis1, axis2)
    mc = dot3(axis2, axis2)
    u = -dot3(axis1, dif)
    v = dot3(axis2, dif)
    det = ma * mc - mb * mb
    if det >= _PARALLEL * ma * mc:
        x1 = (mc * u - mb * v) / det
        x2 = (ma * v - mb * u) / det
        if x1 > 1:
            x1 = 1.0
            x2 = (v - mb) / mc
        elif x1 < -1:
            x1 = -1.0
            x2 = (v + mb) / mc
        if x2 > 1:
            x2 = 1.0
            x1 = clip((u - mb) / ma, -1.0, 1.0)
        elif x2 < -1:
            x2 = -1.0
            x1 = clip((u + mb) / ma, -1.0, 1.0)
        return sphere_sphere(out, k, margin, axis1 * x1 + p1, R1, s1[0], axis2 * x2 + p2, R2, s2[0])
    # (nearly) parallel axes: project each end of segment 2 onto segment 1; where that clamps,
    # re-project the clamped point onto segment 2
    first = -1.0 if mb < 0 else 1.0  # the end of segment 2 lower along axis 1 comes first
    n = 0
    for e in range(2):
        x2 = first if e == 0 else -first
        x1 = (u - mb * x2) / ma
        if x1 > 1 or x1 < -1:
            x1 = clip(x1, -1.0, 1.0)
            x2 = clip((v - mb * x1) / mc, -1.0, 1.0)
        n += sphere_sphere(out, k + n, margin, axis1 * x1 + p1, R1, s1[0], axis2 * x2 + p2, R2, s2[0])
    return n
