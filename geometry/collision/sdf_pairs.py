"""SDF against planes, meshes and height fields, and the SDF contacts of a CollisionModel's candidate pairs.

- Plane: MuJoCo's plane-convex routine on the convex hull of the SDF's surface mesh: the support
  vertex plus up to three more hull vertices below the margin (MuJoCo takes the first ones it meets,
  mallard the most spread out, so a flat ring rests on a support polygon around its centre).
- Mesh: MuJoCo's mjc_MeshSDF on the mesh's convex hull. Every triangle that passes a circumsphere test
  is searched by Frank-Wolfe steps over the triangle for its deepest point in the SDF (`iterations`
  steps from `initpoints` Halton starting points); distinct penetrating points are the candidates,
  and beyond MAXCONPAIR of them farthest-point sampling from the deepest picks the contacts. Normals
  are -grad SDF (from the mesh into the SDF). MuJoCo stops collecting at MAXCONPAIR candidates in the
  order of its bounding-volume tree, so it reports a subset of these contacts.
- Height field: the same triangle search over the height-field triangles under the SDF's bounding
  box (MuJoCo 4.0 has no height-field/SDF routine: it warns and reports no contact).

Frames: the plane / triangles are frame 1, the SDF frame 2; poses X_W1 = (R1, p1), X_W2 = (R2, p2).
"""
from __future__ import annotations

import math
import weakref

import numpy as np
from numba import njit

from mallard.geometry.collision.blas_rounding import dot3 as _dot3, rotate_row as _rotate_row
from mallard.geometry.collision.narrowphase import HFIELD, MESH, PLANE
from mallard.geometry.collision.sdf_collide import (MAXCONPAIR, SdfShape, _dist, _grad, as_pose, python_variant,
                                                    sdf_collide)
from mallard.geometry.collision.sdf_fields import MAXVAL, MINVAL, USER, _norm3
from mallard.geometry.collision.sdf_halton import halton

__all__ = ["sdf_triangles_collide", "sdf_plane_collide", "sdf_mesh_collide", "sdf_hfield_collide",
           "hfield_triangles", "sdf_pair_contacts"]

_DISTANCE_SCALE = 10.0  # MuJoCo's kDistanceScl of the triangle test
_MAX_PLANE_MESH = 4  # most contacts of a plane and a mesh hull in MuJoCo 4.0 (support vertex + 3)
_TOL_PLANE_MESH = 0.3  # MuJoCo's tolplanemesh: extra vertices keep this fraction of rbound from the first
_MIN_HEIGHT = 0.1  # MuJoCo's kMinHeight [m]: flatter test tetrahedra use the triangle's circumcircle


@njit(cache=True, error_model="numpy")
def _triangle_intersect(tri, k2, prm2):
    """MuJoCo's triangle culling: does the circumsphere of the triangle (SDF frame) plus a fourth point,
    offset from its centroid along the normal by -distance/10, reach into the SDF?"""
    e1 = tri[1] - tri[0]
    e2 = tri[2] - tri[0]
    nrm = np.cross(e1, e2)
    nrm = nrm / max(_norm3(nrm), MINVAL)
    p = (tri[0] + tri[1] + tri[2]) / 3.0
    d0 = _dist(k2, prm2, p)
    h = -d0 / _DISTANCE_SCALE
    if abs(h) < _MIN_HEIGHT:  # a flat tetrahedron: the centroid within the triangle's circumradius
        a, b, c = _norm3(tri[1] - tri[0]), _norm3(tri[2] - tri[1]), _norm3(tri[0] - tri[2])
        s = 0.5 * (a + b + c)
        area = np.sqrt(max(s * (s - a) * (s - b) * (s - c), 0.0))
        return d0 < a * b * c / (4.0 * max(area, MINVAL))
    p = p - h * nrm
    v0, v1, v2 = tri[0] - p, tri[1] - p, tri[2] - p
    c0, c1, c2 = np.cross(v1, v2), np.cross(v2, v0), np.cross(v0, v1)
    den = 2.0 * (v0 @ c0)
    if abs(den) < MINVAL:
        return d0 < _norm3(e1)
    center = (c0 * (v0 @ v0) + c1 * (v1 @ v1) + c2 * (v2 @ v2)) / den
    r = _norm3(center)
    return _dist(k2, prm2, center + p) < r


@njit(cache=True, error_model="numpy")
def _frank_wolfe(x, tri, k2, prm2, iterations):
    """Frank-Wolfe steps from x (in place) minimizing the SDF over the triangle; returns the final distance."""
    for step in range(iterations):
        g = _grad(k2, prm2, x)
        best = 1e10
        s = tri[0]
        for c in range(3):
            f = tri[c] @ g
            if f < best:
                best = f
                s = tri[c]
        x += (s - x) * (2.0 / (step + 2.0))
    return _dist(k2, prm2, x)


@njit(cache=True, error_model="numpy")
def _triangle_intersect_fast(tri, k2, prm2, p, q):
    """_triangle_intersect for compiled SDFs: the same arithmetic in scalars (products rounded as its BLAS calls,
    blas_rounding.py); p, q: 3-vector scratch."""
    e10, e11, e12 = tri[1, 0] - tri[0, 0], tri[1, 1] - tri[0, 1], tri[1, 2] - tri[0, 2]
    e20, e21, e22 = tri[2, 0] - tri[0, 0], tri[2, 1] - tri[0, 1], tri[2, 2] - tri[0, 2]
    n0, n1, n2 = e11 * e22 - e12 * e21, e12 * e20 - e10 * e22, e10 * e21 - e11 * e20
    nn = max(math.sqrt(n0 * n0 + n1 * n1 + n2 * n2), MINVAL)
    n0, n1, n2 = n0 / nn, n1 / nn, n2 / nn
    for i in range(3):
        p[i] = (tri[0, i] + tri[1, i] + tri[2, i]) / 3.0
    d0 = _dist(k2, prm2, p)
    h = -d0 / _DISTANCE_SCALE
    if abs(h) < _MIN_HEIGHT:  # a flat tetrahedron: the centroid within the triangle's circumradius
        a = math.sqrt(e10 * e10 + e11 * e11 + e12 * e12)
        f0, f1, f2 = tri[2, 0] - tri[1, 0], tri[2, 1] - tri[1, 1], tri[2, 2] - tri[1, 2]
        b = math.sqrt(f0 * f0 + f1 * f1 + f2 * f2)
        g0, g1, g2 = tri[0, 0] - tri[2, 0], tri[0, 1] - tri[2, 1], tri[0, 2] - tri[2, 2]
        c = math.sqrt(g0 * g0 + g1 * g1 + g2 * g2)
        s = 0.5 * (a + b + c)
        area = np.sqrt(max(s * (s - a) * (s - b) * (s - c), 0.0))
        return d0 < a * b * c / (4.0 * max(area, MINVAL))
    p[0], p[1], p[2] = p[0] - h * n0, p[1] - h * n1, p[2] - h * n2
    v0 = (tri[0, 0] - p[0], tri[0, 1] - p[1], tri[0, 2] - p[2])
    v1 = (tri[1, 0] - p[0], tri[1, 1] - p[1], tri[1, 2] - p[2])
    v2 = (tri[2, 0] - p[0], tri[2, 1] - p[1], tri[2, 2] - p[2])
    c0 = (v1[1] * v2[2] - v1[2] * v2[1], v1[2] * v2[0] - v1[0] * v2[2], v1[0] * v2[1] - v1[1] * v2[0])
    c1 = (v2[1] * v0[2] - v2[2] * v0[1], v2[2] * v0[0] - v2[0] * v0[2], v2[0] * v0[1] - v2[1] * v0[0])
    c2 = (v0[1] * v1[2] - v0[2] * v1[1], v0[2] * v1[0] - v0[0] * v1[2], v0[0] * v1[1] - v0[1] * v1[0])
    den = 2.0 * _dot3(v0, c0)
    if abs(den) < MINVAL:
        return d0 < math.sqrt(e10 * e10 + e11 * e11 + e12 * e12)
    w0, w1, w2 = _dot3(v0, v0), _dot3(v1, v1), _dot3(v2, v2)
    for i in range(3):
        q[i] = (c0[i] * w0 + c1[i] * w1 + c2[i] * w2) / den
    r = _norm3(q)
    for i in range(3):
        q[i] = q[i] + p[i]
    return _dist(k2, prm2, q) < r


@njit(cache=True, error_model="numpy")
def _frank_wolfe_fast(x, tri, k2, prm2, iterations):
    """_frank_wolfe for compiled SDFs: the same steps, the vertex products rounded as its BLAS calls, in place."""
    for step in range(iterations):
        g = _grad(k2, prm2, x)
        best = 1e10
        sc = 0
        for c in range(3):
            f = _dot3(tri[c], g)
            if f < best:
                best = f
                sc = c
        k = 2.0 / (step + 2.0)
        for i in range(3):
            x[i] += (tri[sc, i] - x[i]) * k
    return _dist(k2, prm2, x)


@njit(cache=True, error_model="numpy")
def _farthest_points(cand, depth, nc, nsel):
    """MuJoCo's farthest-point sampling: indices of `nsel` of the first `nc` candidates, starting from the
    deepest and adding, each time, the candidate farthest from those already chosen."""
    chosen = np.zeros(nsel, np.int64)
    taken = np.zeros(nc, np.bool_)
    gap = np.full(nc, MAXVAL)
    best = int(np.argmin(depth[:nc]))
    for q in range(nsel):
        chosen[q] = best
        taken[best] = True
        nxt = -1
        far = -1.0
        for i in range(nc):
            if taken[i]:
                continue
            d = cand[i] - cand[best]
            gap[i] = min(gap[i], d @ d)
            if gap[i] > far:
                far = gap[i]
                nxt = i
        best = nxt
    return chosen


@njit(cache=True, error_model="numpy")
def _triangles_kernel(tris, R21, p21, k2, prm2, R2, p2, initpoints, iterations, maxcon):
    """Contacts of triangles (m, 3, 3) in frame 1 with the SDF: (n, pos_W, normal_W, dist) arrays.

    Each triangle that passes the circumsphere test is searched from `initpoints` Halton points (in
    barycentric coordinates) by Frank-Wolfe; distinct penetrating end points are candidates; beyond
    `maxcon` of them, farthest-point sampling picks the contacts (as MuJoCo's mjc_MeshSDF)."""
    m = tris.shape[0]
    nstart = max(1, initpoints)
    cap = 64
    cand = np.zeros((cap, 3))
    depth = np.zeros(cap)
    nc = 0
    tri = np.zeros((3, 3))
    p, q = np.empty(3), np.empty(3)
    for f in range(m):
        for c in range(3):
            v = tris[f, c]
            for r in range(3):
                tri[c, r] = _rotate_row(R21, r, v) + p21[r]
        if not _triangle_intersect_fast(tri, k2, prm2, p, q):
            continue
        for sp in range(nstart):
            u = halton(sp + 1, 2)
            v = halton(sp + 1, 3)
            if u + v > 1:
                u, v = 1.0 - u, 1.0 - v
            x = (1.0 - u - v) * tri[0] + u * tri[1] + v * tri[2]
            d = _frank_wolfe_fast(x, tri, k2, prm2, iterations)
            if not d < 0:
                continue
            known = False
            for i in range(nc):
                if _norm3(cand[i] - x) < MINVAL:
                    known = True
                    break
            if known:
                continue
            if nc == cap:
                cap *= 2
                grown = np.zeros((cap, 3))
                grown[:nc] = cand[:nc]
                cand = grown
                grown_d = np.zeros(cap)
                grown_d[:nc] = depth[:nc]
                depth = grown_d
            cand[nc] = x
            depth[nc] = d
            nc += 1
    if nc <= maxcon:
        pick = np.arange(nc)
    else:
        pick = _farthest_points(cand, depth, nc, maxcon)
    pos = np.zeros((maxcon, 3))
    nrm = np.zeros((maxcon, 3))
    dist = np.zeros(maxcon)
    cnt = 0
    for q in range(pick.shape[0]):
        x = cand[pick[q]]
        g = _grad(k2, prm2, x)
        gn = _norm3(g)
        if not gn >= MINVAL:  # a degenerate gradient gives no normal: no contact
            continue
        n = -(R2 @ g) / gn
        d = depth[pick[q]]
        nrm[cnt] = n
        pos[cnt] = R2 @ x + p2 + n * (d / 2.0)  # as MuJoCo 4.0 places it
        dist[cnt] = d
        cnt += 1
    return cnt, pos, nrm, dist


def sdf_triangles_collide(triangles: np.ndarray, X_W1, shape2: SdfShape, X_W2, initpoints: int = 40,
                          iterations: int = 10, max_contacts: int = MAXCONPAIR
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contacts between a triangle set (m, 3, 3) [m] in frame 1 and the SDF shape 2 (MuJoCo's mjc_MeshSDF
    search; `initpoints` / `iterations` are MJCF sdf_initpoints / sdf_iterations).
    Returns (pos_W (n,3), normal_W (n,3) from the triangles into the SDF, dist (n,) < 0)."""
    if not shape2.is_field():
        raise ValueError("sdf_triangles_collide: shape 2 must be an SDF")
    if initpoints < 0 or iterations < 0 or max_contacts < 0:
        raise ValueError(f"sdf_triangles_collide: initpoints ({initpoints}), iterations ({iterations}) and "
                         f"max_contacts ({max_contacts}) must be non-negative")
    tris = np.ascontiguousarray(triangles, dtype=np.float64)
    if tris.ndim != 3 or tris.shape[1:] != (3, 3):
        raise ValueError(f"sdf_triangles_collide: triangles must have shape (m, 3, 3), got {tris.shape}")
    R1, p1 = as_pose(X_W1)
    R2, p2 = as_pose(X_W2)
    R21 = np.ascontiguousarray(R2.T @ R1)
    p21 = R2.T @ (p1 - p2)
    if shape2.kind == USER:
        ns = python_variant(_KERNELS, (shape2,))
        ns["_triangle_intersect_fast"] = lambda tri, k2, prm2, p, q: ns["_triangle_intersect"](tri, k2, prm2)
        ns["_frank_wolfe_fast"] = ns["_frank_wolfe"]  # (their compiled twins: the same steps)
        n, pos, nrm, dist = ns["_triangles_kernel"](tris, R21, p21, USER, np.zeros(1), R2, p2, int(initpoints),
                                                    int(iterations), int(max_contacts))
    else:
        n, pos, nrm, dist = _triangles_kernel(tris, R21, p21, shape2.kind, shape2.params, R2, p2, int(initpoints),
                                              int(iterations), int(max_contacts))
    return pos[:n].copy(), nrm[:n].copy(), dist[:n].copy()


_KERNELS = (_triangle_intersect, _frank_wolfe, _farthest_points, _triangles_kernel)


def sdf_mesh_collide(vertices: np.ndarray, faces: np.ndarray, X_W1, shape2: SdfShape, X_W2, initpoints: int = 40,
                     iterations: int = 10, max_contacts: int = MAXCONPAIR):
    """Contacts between a triangle mesh (vertices (n,3), faces (m,3), frame 1, outward-wound) and the SDF
    shape 2; see `sdf_triangles_collide`."""
    v = np.asarray(vertices, float)
    f = np.asarray(faces, np.int64)
    return sdf_triangles_collide(v[f], X_W1, shape2, X_W2, initpoints, iterations, max_contacts)


@njit(cache=True, error_model="numpy")
def hull_rbound(verts):
    """The largest vertex norm of a hull [m] (the plane routine's rbound; fixed per shape)."""
    rbound = 0.0
    for i in range(verts.shape[0]):
        rbound = max(rbound, _norm3(verts[i]))
    return rbound


@njit(cache=True, error_model="numpy")
def _plane_hull_kernel(n_W, p1, R2, p2, verts, rbound, margin, maxcon):
    """MuJoCo's plane-convex routine on hull vertices (its search over all vertices): the support vertex along
    -n_W, then up to three more vertices within the margin that are not within 0.3 rbound of the first.
    rbound: hull_rbound(verts). A hull whose bounding sphere stays above the plane by more than the margin (with
    room for rounding) has no contact, and no vertex is visited."""
    d_loc = -(R2.T @ n_W)
    pos = np.zeros((maxcon, 3))
    dist = np.zeros(maxcon)
    # the support vertex's distance is n_W·(R2·v + p2 − p1) >= n_W·(p2 − p1) − rbound: above the margin, no contact
    height = n_W @ (p2 - p1)
    if height - rbound - 1e-9 * (1.0 + abs(height) + rbound) > margin:
        return 0, pos, dist
    best = 0
    sbest = _dot3(verts[0], d_loc)
    for i in range(verts.shape[0]):
        si = _dot3(verts[i], d_loc)
        if si > sbest:
            best = i
            sbest = si
    first = R2 @ verts[best] + p2
    d0 = n_W @ (first - p1)
    if d0 > margin:
        return 0, pos, dist
    dist[0] = d0
    pos[0] = first - n_W * (0.5 * d0)
    threshold = n_W @ (p2 - p1) - margin
    # the vertices below the margin, away from the first contact
    cap = 64
    cand = np.zeros((cap, 3))
    nc = 0
    tol = _TOL_PLANE_MESH * rbound
    for e in range(verts.shape[0]):
        v = verts[e]
        if _dot3(v, d_loc) <= threshold:
            continue
        x = _rotate_row(R2, 0, v) + p2[0]
        y = _rotate_row(R2, 1, v) + p2[1]
        z = _rotate_row(R2, 2, v) + p2[2]
        dx, dy, dz = x - pos[0, 0], y - pos[0, 1], z - pos[0, 2]
        if math.sqrt(dx * dx + dy * dy + dz * dz) < tol:
            continue
        if nc == cap:
            cap *= 2
            grown = np.zeros((cap, 3))
            grown[:nc] = cand[:nc]
            cand = grown
        cand[nc, 0], cand[nc, 1], cand[nc, 2] = x, y, z
        nc += 1
    # MuJoCo takes the first ones in its vertex order; here the most spread out, farthest point first
    gap = np.full(nc, MAXVAL)
    last = pos[0].copy()
    cnt = 1
    while cnt < maxcon:
        far = -1.0
        pick = -1
        for i in range(nc):
            dx, dy, dz = cand[i, 0] - last[0], cand[i, 1] - last[1], cand[i, 2] - last[2]
            gap[i] = min(gap[i], math.sqrt(dx * dx + dy * dy + dz * dz))
            if gap[i] > far:
                far = gap[i]
                pick = i
        if pick < 0 or far <= 0.0:
            break
        last = cand[pick].copy()
        d = n_W @ (last - p1)
        dist[cnt] = d
        pos[cnt] = last - n_W * (0.5 * d)
        cnt += 1
    return cnt, pos, dist


def sdf_plane_collide(X_W1, hull_vertices: np.ndarray, X_W2, margin: float = 0.0, rbound: float | None = None):
    """Contacts between the plane z = 0 of frame 1 and an SDF through the convex hull of its surface mesh
    (vertices (n,3) in frame 2), as MuJoCo's plane-convex routine: the support vertex and up to three more
    hull vertices below the margin. `rbound`: hull_rbound(hull_vertices) (computed when not given). Returns
    (pos_W, normal_W = plane normal, dist)."""
    R1, p1 = as_pose(X_W1)
    R2, p2 = as_pose(X_W2)
    v = np.ascontiguousarray(hull_vertices, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 3 or len(v) == 0:
        raise ValueError(f"sdf_plane_collide: hull_vertices must be a non-empty (n, 3) array, got shape {v.shape}")
    n_W = np.ascontiguousarray(R1[:, 2])
    rb = hull_rbound(v) if rbound is None else float(rbound)
    n, pos, dist = _plane_hull_kernel(n_W, p1, R2, p2, v, rb, float(margin), _MAX_PLANE_MESH)
    return pos[:n].copy(), np.tile(n_W, (n, 1)), dist[:n].copy()


def hfield_triangles(heights: np.ndarray, size, lo_xy=None, hi_xy=None) -> np.ndarray:
    """Surface triangles (m, 3, 3) [m] of a height field in its frame H, outward (upward) wound.

    `heights` (nrow x ncol, normalized, row 0 at y = -ry), `size` = (rx, ry, z top, ...): grid point
    (r, c) is at (-rx + c dx, -ry + r dy, h[r, c] z_top); each cell splits along its (c, r) -> (c+1, r+1)
    diagonal. With `lo_xy` / `hi_xy` only the cells overlapping that rectangle of H are returned.
    """
    h = np.asarray(heights, float)
    rx, ry, ez = float(size[0]), float(size[1]), float(size[2])
    nrow, ncol = h.shape
    dx, dy = 2.0 * rx / (ncol - 1), 2.0 * ry / (nrow - 1)
    c0, r0, c1, r1 = 0, 0, ncol - 1, nrow - 1
    if lo_xy is not None:
        c0 = int(np.clip(np.floor((lo_xy[0] + rx) / dx), 0, ncol - 1))
        r0 = int(np.clip(np.floor((lo_xy[1] + ry) / dy), 0, nrow - 1))
    if hi_xy is not None:
        c1 = int(np.clip(np.ceil((hi_xy[0] + rx) / dx), 0, ncol - 1))
        r1 = int(np.clip(np.ceil((hi_xy[1] + ry) / dy), 0, nrow - 1))
    if c1 <= c0 or r1 <= r0:
        return np.zeros((0, 3, 3))
    cc, rr = np.meshgrid(np.arange(c0, c1 + 1), np.arange(r0, r1 + 1))
    pts = np.stack([-rx + cc * dx, -ry + rr * dy, h[r0:r1 + 1, c0:c1 + 1] * ez], axis=-1)
    a, b = pts[:-1, :-1], pts[:-1, 1:]  # (r, c), (r, c+1)
    c, d = pts[1:, 1:], pts[1:, :-1]  # (r+1, c+1), (r+1, c)
    t1 = np.stack([a, b, c], axis=-2).reshape(-1, 3, 3)
    t2 = np.stack([a, c, d], axis=-2).reshape(-1, 3, 3)
    return np.ascontiguousarray(np.concatenate([t1, t2]))


def sdf_hfield_collide(heights: np.ndarray, size, X_W1, shape2: SdfShape, X_W2, initpoints: int = 40,
                       iterations: int = 10, max_contacts: int = MAXCONPAIR):
    """Contacts between a height field (frame 1; see `hfield_triangles`) and the SDF shape 2: the triangle
    search over the cells under the SDF's bounding box. Returns (pos_W, normal_W into the SDF, dist)."""
    R1, p1 = as_pose(X_W1)
    R2, p2 = as_pose(X_W2)
    R12, p12 = R1.T @ R2, R1.T @ (p2 - p1)
    box = shape2.aabb
    corners = np.array([[box[0] + sx * box[3], box[1] + sy * box[4], box[2] + sz * box[5]]
                        for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) @ R12.T + p12
    if corners[:, 2].min() > float(size[2]):  # entirely above the highest possible surface
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)
    tris = hfield_triangles(heights, size, corners.min(axis=0)[:2], corners.max(axis=0)[:2])
    if len(tris) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)
    return sdf_triangles_collide(tris, (R1, p1), shape2, (R2, p2), initpoints, iterations, max_contacts)


# --- the SDF pairs of a CollisionModel -------------------------------------------------------------------

_hull_faces: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # model -> {row: hull triangles (m,3,3)}


def _mesh_triangles(model, row: int) -> np.ndarray:
    """Convex-hull triangles (m, 3, 3) in the geometry frame of mesh row `row` (MuJoCo's mesh faces; hull)."""
    from mallard.geometry.meshes import convex_hull

    per_model = _hull_faces.setdefault(model, {})
    if row not in per_model:
        v = model.verts[model.vadr[row]:model.vadr[row] + model.vnum[row]]
        hv, hf = convex_hull(v, f"mesh geometry {row}")
        per_model[row] = np.ascontiguousarray(hv[hf])
    return per_model[row]


def sdf_pair_contacts(model, R: np.ndarray, p: np.ndarray, i: int, j: int):
    """Contacts (pos_W, normal_W from geometry i to j, dist) of the candidate pair (i, j) of a CollisionModel
    where geometry j is a SignedDistanceField (model.sdf[j]) and type(i) <= type(j) (MuJoCo's order)."""
    field = model.sdf[j]
    t1 = int(model.types[i])
    X1, X2 = (R[i], p[i]), (R[j], p[j])
    if t1 == PLANE:
        margin = float(model.margins[i] + model.margins[j])
        return sdf_plane_collide(X1, field._hull_vertices(), X2, margin, field._hull_rbound())
    if t1 == HFIELD:
        hfield = model.hfield[i]  # the HeightField shape of the row (CollisionModel.set_height_fields)
        return sdf_hfield_collide(hfield.heights(), hfield.size(), X1, field.sdf(), X2, field.initpoints(),
                                  field.iterations())
    if t1 == MESH:
        return sdf_triangles_collide(_mesh_triangles(model, i), X1, field.sdf(), X2, field.initpoints(),
                                     field.iterations())
    other = model.sdf[i].sdf() if i in model.sdf else SdfShape.Primitive(t1, model.sizes[i])
    return sdf_collide(other, X1, field.sdf(), X2, field.initpoints(), field.iterations())
