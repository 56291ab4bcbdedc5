"""Height-field collisions as MuJoCo does them (mjc_ConvexHField), and point queries on a height field.

A height field (geometry type HFIELD, ``mallard.geometry.HeightField``) is an nrow x ncol grid of
normalized elevations h in [0, 1] over [-rx, rx] x [-ry, ry] of its frame H: the surface at grid
point (r, c) is at (-rx + c dx, -ry + r dy, h[r, c] ez) and the solid reaches down to z = -base.
Each grid cell is split along the diagonal from (c, r) to (c+1, r+1) into two triangles; each
triangle extruded down to -base is a convex triangular prism. A convex geometry collides with the
prisms its bounding box (grown by the margin) covers, one contact per prism closer than the margin
(the signed distance of the geometry and the prism: MuJoCo 4 reports the true distance, positive within
the margin), at most ``MAXCONPAIR`` contacts.

For the collision kernels the grid is packed into the geometry's vertex rows (see
``pack_height_field``): row 0 = (nrow, ncol, base), row 1 = (rx, ry, ez), then the elevations
row-major, three per row.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision._vec import dot3, matTvec, matvec, put
from mallard.geometry.collision.gjk import epa, gjk, support, witness

SPHERE, CAPSULE, MESH = 2, 3, 7
MAXCONPAIR = 50  # MuJoCo's mjMAXCONPAIR: most contacts of one height-field pair
_CCD_TOL = 1e-6  # MuJoCo's default ccd_tolerance: below it a sphere/capsule core counts as deep


def pack_height_field(heights: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The (m, 3) vertex rows that carry a height field to the kernels: normalized ``heights``
    (nrow x ncol, row 0 at y = -ry) and ``size`` = (rx, ry, ez, base) in meters."""
    h = np.asarray(heights, dtype=float)
    s = np.asarray(size, dtype=float).reshape(4)
    nrow, ncol = h.shape
    data = np.zeros(3 * ((nrow * ncol + 2) // 3))
    data[:nrow * ncol] = h.reshape(-1)
    head = np.array([[nrow, ncol, s[3]], [s[0], s[1], s[2]]], dtype=float)
    return np.ascontiguousarray(np.concatenate([head, data.reshape(-1, 3)]))


@njit(cache=True, error_model="numpy")
def _unpack(vh):
    """(nrow, ncol, rx, ry, ez, base, flat elevations) of packed height-field rows (the elevations: a view of the
    rows when they are contiguous; a copy of the grid per call was most of a height-field pair's time)."""
    nrow = int(vh[0, 0])
    ncol = int(vh[0, 1])
    flat = vh[2:].ravel()
    return nrow, ncol, vh[1, 0], vh[1, 1], vh[1, 2], vh[0, 2], flat


@njit(cache=True, error_model="numpy")
def _add_prism_vertex(prism, flat, ncol, r, c, i, dx, dy, rx, ry, ez):
    """Slide the prism window by one grid vertex: (c, r + 1) for i = 0, (c, r) for i = 1; the top
    vertex is on the surface, the bottom ones stay at -base."""
    for a in (0, 1):
        for j in range(3):
            prism[a, j] = prism[a + 1, j]
            prism[a + 3, j] = prism[a + 4, j]
    rr = r + 1 - i
    x = dx * c - rx
    y = dy * rr - ry
    prism[2, 0] = x
    prism[2, 1] = y
    prism[5, 0] = x
    prism[5, 1] = y
    prism[5, 2] = flat[rr * ncol + c] * ez


@njit(cache=True, error_model="numpy")
def _prism_contact(out, k, prism, t2, s2, p2, R2, v2, margin, W, WA, WB, zero, eye, core):
    """At most one contact between a prism (vertices in frame H) and geometry 2 (pose in H), written in
    frame H with the normal from the prism to geometry 2, when their signed distance is below the margin.
    Spheres and capsules shrink to their center point / segment (sizes `core`), whose exact distance to the prism
    less the radius is the contact distance, as MuJoCo's native CCD does; cores closer than its tolerance, and
    every other shape, take the separating distance (GJK) or the penetration depth (EPA) of the shapes. W, WA, WB:
    the simplex buffers (zeroed here); zero, eye: the prism's pose in H (and its sizes: zero)."""
    W[:] = 0.0
    WA[:] = 0.0
    WB[:] = 0.0
    noscale = zero
    if t2 == SPHERE or t2 == CAPSULE:
        dist, m, status = gjk(MESH, noscale, zero, eye, prism, t2, core, p2, R2, v2, W, WA, WB)
        if status == 0 and dist > _CCD_TOL:
            d = dist - s2[0]
            if d >= margin:
                return 0
            pa, pb = witness(W, WA, WB, m)
            n = (pb - pa) / dist
            put(out, k, d, 0.5 * (pa + pb - n * s2[0]), n)
            return 1
        W[:] = 0.0
        WA[:] = 0.0
        WB[:] = 0.0
    dist, m, status = gjk(MESH, noscale, zero, eye, prism, t2, s2, p2, R2, v2, W, WA, WB)
    if status == 0:
        if dist >= margin or dist <= 0.0:
            return 0
        pa, pb = witness(W, WA, WB, m)
        put(out, k, dist, 0.5 * (pa + pb), (pb - pa) / dist)
        return 1
    depth, n, pa, pb = epa(MESH, noscale, zero, eye, prism, t2, s2, p2, R2, v2, W, WA, WB, m)
    if not depth > 0.0 or dot3(n, n) == 0.0:
        return 0
    put(out, k, -depth, 0.5 * (pa + pb), n)
    return 1


@njit(cache=True, error_model="numpy")
def hfield_collide(out, k, margin, ph, Rh, vh, t2, s2, p2, R2, v2, rbound2):
    """Contacts between a height field (pose ph, Rh; packed rows vh) and a convex geometry 2 (sphere,
    capsule, ellipsoid, cylinder, box or mesh hull v2; bounding-sphere radius rbound2 about its origin),
    written from row k in world coordinates with normals from the height field to geometry 2; returns
    the count (<= MAXCONPAIR). MuJoCo's mjc_ConvexHField: bounding-sphere and bounding-box early outs,
    the sub-grid under the box, and one distance test per prism that rises to within the margin of the
    geometry's lowest point."""
    nrow, ncol, rx, ry, ez, base, flat = _unpack(vh)
    pl = matTvec(Rh, p2 - ph)
    radius = rbound2 + margin
    if rx < pl[0] - radius or -rx > pl[0] + radius or ry < pl[1] - radius or -ry > pl[1] + radius \
            or ez < pl[2] - radius or -base > pl[2] + radius:
        return 0
    Rl = Rh.T @ R2
    lo = np.zeros(3)
    hi = np.zeros(3)
    for a in range(3):
        d = np.zeros(3)
        d[a] = 1.0
        hi[a] = support(t2, s2, pl, Rl, v2, d)[a]
        d[a] = -1.0
        lo[a] = support(t2, s2, pl, Rl, v2, d)[a]
    if lo[0] - margin > rx or hi[0] + margin < -rx or lo[1] - margin > ry or hi[1] + margin < -ry \
            or lo[2] - margin > ez or hi[2] + margin < -base:
        return 0
    cmin = max(0, int(math.floor((lo[0] - margin + rx) / (2.0 * rx) * (ncol - 1))))
    cmax = min(ncol - 1, int(math.ceil((hi[0] + margin + rx) / (2.0 * rx) * (ncol - 1))))
    rmin = max(0, int(math.floor((lo[1] - margin + ry) / (2.0 * ry) * (nrow - 1))))
    rmax = min(nrow - 1, int(math.ceil((hi[1] + margin + ry) / (2.0 * ry) * (nrow - 1))))
    dx = 2.0 * rx / (ncol - 1)
    dy = 2.0 * ry / (nrow - 1)
    zmin = lo[2]
    W, WA, WB = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3))  # per call, not per prism (_prism_contact)
    zero, eye = np.zeros(3), np.eye(3)
    core = s2.copy()
    core[0] = 0.0
    prism = np.zeros((6, 3))
    for a in range(3):
        prism[a, 2] = -base
    ncon = 0
    for r in range(rmin, rmax):
        _add_prism_vertex(prism, flat, ncol, r, cmin, 0, dx, dy, rx, ry, ez)
        _add_prism_vertex(prism, flat, ncol, r, cmin, 1, dx, dy, rx, ry, ez)
        for c in range(cmin + 1, cmax + 1):
            for i in range(2):
                _add_prism_vertex(prism, flat, ncol, r, c, i, dx, dy, rx, ry, ez)
                if prism[3, 2] + margin < zmin and prism[4, 2] + margin < zmin and prism[5, 2] + margin < zmin:
                    continue
                if _prism_contact(out, k + ncon, prism, t2, s2, pl, Rl, v2, margin, W, WA, WB, zero, eye, core):
                    row = k + ncon
                    pos = matvec(Rh, out[row, 1:4].copy()) + ph
                    nrm = matvec(Rh, out[row, 4:7].copy())
                    put(out, row, out[row, 0], pos, nrm)
                    ncon += 1
                    if ncon >= MAXCONPAIR:
                        return ncon
    return ncon


@njit(cache=True, error_model="numpy")
def hfield_prism(vh, x, y):
    """The prism under point (x, y) of frame H: (r, c, i) with cell (r, c) spanning columns c..c+1
    and rows r..r+1, i = 0 for the triangle holding grid vertex (c, r + 1) and i = 1 for the one
    holding (c + 1, r); (-1, -1, -1) outside the grid."""
    nrow, ncol, rx, ry, ez, base, flat = _unpack(vh)
    if not (-rx <= x <= rx and -ry <= y <= ry):
        return -1, -1, -1
    u = (x + rx) / (2.0 * rx) * (ncol - 1)
    w = (y + ry) / (2.0 * ry) * (nrow - 1)
    c = min(int(math.floor(u)), ncol - 2)
    r = min(int(math.floor(w)), nrow - 2)
    i = 0 if (w - r) >= (u - c) else 1
    return r, c, i


@njit(cache=True, error_model="numpy")
def hfield_elevation(vh, x, y):
    """Surface height z (m, frame H) of the triangulated height field at (x, y) of frame H, with the
    upward unit normal of that triangle (nx, ny, nz) and whether (x, y) lies over the grid (outside,
    the nearest grid point's height and +z are returned)."""
    nrow, ncol, rx, ry, ez, base, flat = _unpack(vh)
    r, c, i = hfield_prism(vh, x, y)
    if r < 0:
        xc = min(max(x, -rx), rx)
        yc = min(max(y, -ry), ry)
        cc = int(round((xc + rx) / (2.0 * rx) * (ncol - 1)))
        rr = int(round((yc + ry) / (2.0 * ry) * (nrow - 1)))
        return flat[rr * ncol + cc] * ez, 0.0, 0.0, 1.0, False
    dx = 2.0 * rx / (ncol - 1)
    dy = 2.0 * ry / (nrow - 1)
    z00 = flat[r * ncol + c] * ez
    z11 = flat[(r + 1) * ncol + c + 1] * ez
    if i == 0:  # vertices (c, r), (c, r + 1), (c + 1, r + 1)
        z01 = flat[(r + 1) * ncol + c] * ez
        gx = (z11 - z01) / dx
        gy = (z01 - z00) / dy
    else:  # vertices (c, r), (c + 1, r), (c + 1, r + 1)
        z10 = flat[r * ncol + c + 1] * ez
        gx = (z10 - z00) / dx
        gy = (z11 - z10) / dy
    z = z00 + gx * (x - (dx * c - rx)) + gy * (y - (dy * r - ry))
    ln = math.sqrt(gx * gx + gy * gy + 1.0)
    return z, -gx / ln, -gy / ln, 1.0 / ln, True
