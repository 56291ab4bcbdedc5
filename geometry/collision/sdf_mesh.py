"""Triangle surface of a signed distance field for drawing: marching cubes over a uniform grid.

The 256-case table is built here from one rule rather than typed in: on every cube face the zero
crossings are joined by segments that keep the face's inside corners (negative values) apart, the
segments of the six faces close into loops, and each loop is fanned into triangles. The rule depends
only on the signs of the face's four corners, so two cubes sharing a face cut it the same way and
the surface of a closed level set is watertight. Vertices sit on grid edges, linearly interpolated
to the zero crossing, and are shared by every cube around that edge.
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np
from numba import njit

__all__ = ["marching_cubes", "sdf_surface_mesh", "mujoco_sdf_grid", "mujoco_sdf_mesh"]

# cube corner c sits at offset ((c >> 0) & 1, (c >> 1) & 1, (c >> 2) & 1); edge e joins two corners along one axis
_EDGES = [(a, a | (1 << ax), ax) for ax in range(3) for a in range(8) if not (a >> ax) & 1]


def _face_cycles():
    """Per face: (outward axis, side, its four corners in cyclic order)."""
    faces = []
    for ax in range(3):
        u, v = [a for a in range(3) if a != ax]
        for side in (0, 1):
            base = side << ax
            faces.append((ax, side, [base, base | (1 << u), base | (1 << u) | (1 << v), base | (1 << v)]))
    return faces


def _edge_id(a, b):
    lo, hi = min(a, b), max(a, b)
    return next(e for e, (p, q, _) in enumerate(_EDGES) if p == lo and q == hi)


def _corner(c):
    return np.array([(c >> 0) & 1, (c >> 1) & 1, (c >> 2) & 1], float)


def _case_triangles(case):
    """Triangles (edge-id triples, outward-oriented) of one sign configuration (bit c set: corner c inside)."""
    inside = [(case >> c) & 1 == 1 for c in range(8)]
    nxt = {}
    for ax, side, cyc in _face_cycles():
        nf = np.zeros(3)
        nf[ax] = 1.0 if side else -1.0
        cut = [i for i in range(4) if inside[cyc[i]] != inside[cyc[(i + 1) % 4]]]
        if not cut:
            continue
        if len(cut) == 2:
            i, j = cut
            group = [cyc[(i + 1 + s) % 4] for s in range((j - i) % 4)]  # corners between the two crossings
            segs = [(i, j, group)]
        else:  # alternating signs: cut off each inside corner on its own
            segs = [((c - 1) % 4, c, [cyc[c]]) for c in range(4) if inside[cyc[c]]]
        for i, j, group in segs:
            a = _edge_id(cyc[i], cyc[(i + 1) % 4])
            b = _edge_id(cyc[j], cyc[(j + 1) % 4])
            rest = [c for c in cyc if c not in group]
            gin = group if inside[group[0]] else rest
            gout = rest if inside[group[0]] else group
            u = np.mean([_corner(c) for c in gout], axis=0) - np.mean([_corner(c) for c in gin], axis=0)
            pa = sum(_corner(c) for c in _EDGES[a][:2]) / 2
            pb = sum(_corner(c) for c in _EDGES[b][:2]) / 2
            # along u x nf the loop turns counter-clockwise about the outward surface normal
            if (pb - pa) @ np.cross(u, nf) < 0:
                a, b = b, a
            nxt[a] = b
    tris = []
    while nxt:
        start = next(iter(nxt))
        loop = [start]
        while nxt[loop[-1]] != start:
            loop.append(nxt[loop[-1]])
        for e in loop:
            del nxt[e]
        tris += [(loop[0], loop[k], loop[k + 1]) for k in range(1, len(loop) - 1)]
    return tris


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(triangles per case (256, width, 3) as edge ids, triangle count per case, edges (12, 3)): built on first use,
    so importing mallard does not pay for them (about 0.2 s)."""
    cases = [_case_triangles(c) for c in range(256)]
    width = max(len(t) for t in cases)
    table = np.full((256, width, 3), -1, np.int64)
    count = np.zeros(256, np.int64)
    for c, tris in enumerate(cases):
        count[c] = len(tris)
        if tris:
            table[c, :len(tris)] = tris
    return table, count, np.array([[a, b, ax] for a, b, ax in _EDGES], np.int64)


@njit(cache=True, error_model="numpy")
def _march(values, origin, step, tri_table, tri_count, edges):
    """(vertices (n, 3), faces (m, 3)) of the zero level set of grid `values` (node (i, j, k) at
    origin + step * (i, j, k)); negative values are inside."""
    nx, ny, nz = values.shape
    vid = np.full((nx, ny, nz, 3), -1, np.int64)  # vertex on the grid edge from node (i, j, k) along an axis
    cap = 1024
    verts = np.zeros((cap, 3))
    faces = np.zeros((cap, 3), np.int64)
    nv = 0
    nf = 0
    for i in range(nx - 1):
        for j in range(ny - 1):
            for k in range(nz - 1):
                case = 0
                for c in range(8):
                    if values[i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1)] < 0:
                        case |= 1 << c
                ntri = tri_count[case]
                if ntri == 0:
                    continue
                if nf + ntri > faces.shape[0]:
                    faces = np.concatenate((faces, np.zeros_like(faces)))
                for t in range(ntri):
                    for s in range(3):
                        e = tri_table[case, t, s]
                        a = edges[e, 0]
                        b = edges[e, 1]
                        ax = edges[e, 2]
                        ia, ja, ka = i + (a & 1), j + ((a >> 1) & 1), k + ((a >> 2) & 1)
                        v = vid[ia, ja, ka, ax]
                        if v < 0:
                            ib, jb, kb = i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1)
                            fa = values[ia, ja, ka]
                            fb = values[ib, jb, kb]
                            w = fa / (fa - fb)
                            if nv >= verts.shape[0]:
                                verts = np.concatenate((verts, np.zeros_like(verts)))
                            verts[nv, 0] = origin[0] + step[0] * (ia + w * (ib - ia))
                            verts[nv, 1] = origin[1] + step[1] * (ja + w * (jb - ja))
                            verts[nv, 2] = origin[2] + step[2] * (ka + w * (kb - ka))
                            v = nv
                            vid[ia, ja, ka, ax] = v
                            nv += 1
                        faces[nf, s] = v
                    nf += 1
    return verts[:nv].copy(), faces[:nf].copy()


def marching_cubes(values: np.ndarray, origin, step) -> tuple[np.ndarray, np.ndarray]:
    """Triangle mesh (vertices (n, 3), faces (m, 3), outward = toward positive values) of the zero level
    set of a grid of samples `values` (nx, ny, nz) taken at origin + step * (i, j, k) [m]."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.ndim != 3 or min(values.shape) < 2:
        raise ValueError(f"marching_cubes: values must be a 3D grid of at least 2 samples per axis, got shape "
                         f"{values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("marching_cubes: the sampled values contain NaN or inf")
    origin = np.ascontiguousarray(origin, dtype=np.float64).reshape(3)
    step = np.ascontiguousarray(np.broadcast_to(np.asarray(step, float), (3,)), dtype=np.float64)
    return _march(values, origin, step, *_tables())


def sdf_surface_mesh(distance, aabb=None, resolution: int = 40,
                     padding: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Triangle mesh (vertices (n,3), faces (m,3), outward-oriented) of the zero level set of an SDF.

    The bounding box (center, half-size), enlarged by `padding` of its size, is sampled on a uniform
    grid with `resolution` cells along its longest side and triangulated by marching cubes. `distance`
    may be an `SdfShape` (its `aabb` is the default box) or a vectorized callable f(points (k,3)) -> (k,).
    """
    from mallard.geometry.collision.sdf_collide import SdfShape

    if isinstance(distance, SdfShape):
        shape = distance
        aabb = shape.aabb if aabb is None else aabb
        distance: Callable = lambda pts: np.array([shape.Distance(p) for p in pts])  # noqa: E731
    if aabb is None:
        raise ValueError("sdf_surface_mesh: aabb (center xyz, half-size xyz) is required for a callable")
    if resolution < 2:
        raise ValueError(f"sdf_surface_mesh: resolution must be >= 2, got {resolution}")
    aabb = np.asarray(aabb, float)
    half = aabb[3:] * (1.0 + padding) + 1e-9
    lo = aabb[:3] - half
    h = 2.0 * half.max() / resolution
    counts = np.maximum(np.ceil(2.0 * half / h).astype(int), 1) + 1
    axes = [lo[a] + h * np.arange(counts[a]) for a in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    values = np.asarray(distance(grid), float).reshape(tuple(counts))
    if not np.all(np.isfinite(values)):
        raise ValueError("sdf_surface_mesh: the distance function returned non-finite values")
    return marching_cubes(values, lo, h)


def mujoco_sdf_grid(aabb) -> list[np.ndarray]:
    """The sample coordinates [m] along x, y, z of MuJoCo's mesh of an SDF plugin (user_mesh's LoadSDF): the
    plugin's box (center, half-size) without padding, 300 samples shared among the axes in proportion to the
    half-sizes (floor(300 h_a / sum h) + 1 on axis a), ends included."""
    aabb = np.asarray(aabb, float)
    total = float(aabb[3:].sum())
    axes = []
    for a in range(3):
        c, h = aabb[a], aabb[3 + a]
        n = int(np.floor(300.0 / total * h)) + 1
        if n < 2:
            raise ValueError(f"the SDF's bounding box is too thin along axis {'xyz'[a]} (half-size {h:g} of "
                             f"{total:g}) for a surface mesh")
        axes.append(c - h + 2.0 * h * np.arange(n) / (n - 1))
    return axes


def mujoco_sdf_mesh(aabb, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's surface mesh of an SDF plugin from the distances `values` sampled on mujoco_sdf_grid(aabb):
    marching cubes over single-precision samples, vertices rounded to single precision as MuJoCo stores them.
    (MuJoCo's marching-cubes tables split some cells' polygons along other diagonals: the volume of a torus
    differs by ~1e-5 relative.)"""
    aabb = np.asarray(aabb, float)
    n = np.array(values.shape)
    step = 2.0 * aabb[3:] / (n - 1)
    v, f = marching_cubes(values.astype(np.float32).astype(np.float64), aabb[:3] - aabb[3:], step)
    return v.astype(np.float32).astype(np.float64), f
