"""Tetrahedral volume meshes and triangle surface meshes of primitive shapes for hydroelastic contact, as Drake 1.51
builds them (geometry/proximity/make_{sphere,ellipsoid,box}_mesh):

* sphere / ellipsoid: Drake's refined octahedron with a single interior vertex (TessellationStrategy
  kSingleInteriorVertex): level 0 is an octahedron of 8 tetrahedra around the center; each level splits every
  boundary triangle into 4 (edge midpoints pushed onto the unit sphere). The level is the smallest whose equator
  chords are no longer than the resolution hint (at most 8); an ellipsoid scales the unit sphere of resolution
  hint / max(a, b, c).
* box: tetrahedra that respect the box's medial axis (a point, segment or rectangle), so each tetrahedron lies in
  the region nearest one face and a linear pressure field is exact in it; every face is split into 4 triangles
  around its center (Drake's "symmetric triangles"), which is also the rigid box's surface mesh.

Vertices are in the shape's frame [m]; tetrahedra are positively oriented (VolumeMesh's convention).
"""
from __future__ import annotations

import math

import numpy as np

from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.volume_mesh import VolumeMesh
from mallard.geometry.volume_mesh_tools import ConvertVolumeToSurfaceMesh

__all__ = ["MakeSphereVolumeMesh", "MakeEllipsoidVolumeMesh", "MakeBoxVolumeMesh", "MakeBoxSurfaceMesh",
           "MakeSphereSurfaceMesh", "MakeEllipsoidSurfaceMesh", "SphereRefinementLevel"]

_MAX_SPHERE_LEVEL = 8
# Drake's level-0 octahedron: center, then +x, +y, -x, -y, +z, -z; the center is every tetrahedron's 4th vertex.
_OCTAHEDRON_VERTICES = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0],
                                 [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]])
_OCTAHEDRON_TETS = ((1, 5, 2, 0), (2, 5, 3, 0), (3, 5, 4, 0), (4, 5, 1, 0),
                    (2, 6, 1, 0), (3, 6, 2, 0), (4, 6, 3, 0), (1, 6, 4, 0))


def SphereRefinementLevel(radius: float, resolution_hint: float) -> int:
    """The refinement level whose equator chords are at most resolution_hint [m]: ⌈log₂(π / asin(e/2r))⌉ − 2 with
    e = min(resolution_hint, 2r), clamped to [0, 8]."""
    if not resolution_hint > 0:
        raise ValueError(f"resolution_hint must be positive; given {resolution_hint}")
    e = min(resolution_hint, 2.0 * radius)
    level = int(math.ceil(math.log2(math.pi / math.asin(e / (2.0 * radius))))) - 2
    return min(max(0, level), _MAX_SPHERE_LEVEL)


def _unit_sphere(level: int) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3), tetrahedra (m, 4)) of the unit sphere at a refinement level (kSingleInteriorVertex)."""
    V = [p for p in _OCTAHEDRON_VERTICES]
    T = [tuple(t) for t in _OCTAHEDRON_TETS]
    for _ in range(level):
        split: dict[tuple[int, int], int] = {}

        def mid(a: int, b: int) -> int:
            key = (a, b) if a < b else (b, a)
            k = split.get(key)
            if k is None:
                p = 0.5 * (V[key[0]] + V[key[1]])
                V.append(p / np.linalg.norm(p))
                k = split[key] = len(V) - 1
            return k

        for a, b, c, _o in T:  # new vertices in Drake's order: per tetrahedron, edges (0,1), (0,2), (1,2)
            mid(a, b), mid(a, c), mid(b, c)
        refined = []
        for a, b, c, o in T:
            d, e, f = mid(b, c), mid(a, b), mid(a, c)
            refined += [(a, e, f, o), (b, d, e, o), (c, f, d, o), (e, d, f, o)]
        T = refined
    return np.array(V), np.array(T, dtype=np.int64)


def MakeSphereVolumeMesh(radius: float, resolution_hint: float) -> VolumeMesh:
    """Drake's tetrahedral mesh of a sphere of `radius` [m] for a resolution hint [m]."""
    V, T = _unit_sphere(SphereRefinementLevel(radius, resolution_hint))
    return VolumeMesh(elements=T, vertices=V * radius)


def MakeEllipsoidVolumeMesh(a: float, b: float, c: float, resolution_hint: float) -> VolumeMesh:
    """Drake's tetrahedral mesh of an ellipsoid of semi-axes (a, b, c) [m]: the unit sphere's mesh for
    resolution_hint / max(a, b, c), scaled."""
    r = max(a, b, c)
    V, T = _unit_sphere(SphereRefinementLevel(1.0, resolution_hint / r))
    return VolumeMesh(elements=T, vertices=V * np.array([a, b, c]))


def MakeSphereSurfaceMesh(radius: float, resolution_hint: float) -> TriangleSurfaceMesh:
    """The boundary of MakeSphereVolumeMesh (Drake's rigid sphere)."""
    return ConvertVolumeToSurfaceMesh(MakeSphereVolumeMesh(radius, resolution_hint))


def MakeEllipsoidSurfaceMesh(a: float, b: float, c: float, resolution_hint: float) -> TriangleSurfaceMesh:
    """The boundary of MakeEllipsoidVolumeMesh (Drake's rigid ellipsoid)."""
    return ConvertVolumeToSurfaceMesh(MakeEllipsoidVolumeMesh(a, b, c, resolution_hint))


def _medial_half_size(half: np.ndarray) -> np.ndarray:
    """Half sizes of the box's central medial axis h − min(h), with sizes below Drake's relative distance
    tolerance set to 0 (a cube's medial axis is its center)."""
    m = float(half.min())
    hm = half - m
    hm[hm <= 1e-14 * max(1.0, m)] = 0.0
    return hm


def _face_quads(half: np.ndarray):
    """For each face (axis a, sign s): its 4 corners counter-clockwise seen from outside, its center, and the
    matching points of the medial axis (corners shrunk to the medial axis) with their center."""
    hm = _medial_half_size(half)
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        for s in (1.0, -1.0):
            signs = ((-1, -1), (1, -1), (1, 1), (-1, 1)) if s > 0 else ((-1, -1), (-1, 1), (1, 1), (1, -1))
            q, p = [], []
            for sb, sc in signs:
                x = np.zeros(3)
                x[a], x[b], x[c] = s * half[a], sb * half[b], sc * half[c]
                y = np.zeros(3)
                y[a], y[b], y[c] = s * hm[a], sb * hm[b], sc * hm[c]
                q.append(x)
                p.append(y)
            cf = np.zeros(3)
            cf[a] = s * half[a]
            pc = np.zeros(3)
            pc[a] = s * hm[a]
            yield q, cf, p, pc


class _VertexPool:
    """Vertices deduplicated by position (the corners and centers shared by several face regions)."""

    def __init__(self, scale: float):
        self.V: list[np.ndarray] = []
        self.index: dict[tuple, int] = {}
        self.tol = 1e-12 * max(1.0, scale)

    def add(self, p: np.ndarray) -> int:
        key = tuple(np.round(p / self.tol).astype(np.int64).tolist())
        k = self.index.get(key)
        if k is None:
            self.V.append(np.array(p, dtype=float))
            k = self.index[key] = len(self.V) - 1
        return k


def MakeBoxVolumeMesh(size) -> VolumeMesh:
    """Tetrahedral mesh of a box of full `size` (3,) [m] centered at its frame's origin: each face's nearest
    region (between the face and the medial axis) is split into 4 prisms over the face's symmetric triangles,
    3 tetrahedra each (degenerate ones dropped)."""
    half = 0.5 * np.asarray(size, dtype=float).reshape(3)
    pool = _VertexPool(float(half.max()))
    tets = []
    min_vol = 1e-12 * float(np.prod(half))
    for q, cf, p, pc in _face_quads(half):
        for i in range(4):
            j = (i + 1) % 4
            A, B, C = cf, q[i], q[j]
            A2, B2, C2 = pc, p[i], p[j]
            for tet in ((A, B, C, A2), (B, C, A2, B2), (C, A2, B2, C2)):
                vol = float(np.dot(tet[3] - tet[0], np.cross(tet[1] - tet[0], tet[2] - tet[0]))) / 6.0
                if abs(vol) <= min_vol:
                    continue
                ids = [pool.add(x) for x in tet]
                if len(set(ids)) < 4:
                    continue
                if vol < 0:
                    ids[1], ids[2] = ids[2], ids[1]
                tets.append(ids)
    return VolumeMesh(elements=np.array(tets, dtype=np.int64), vertices=np.array(pool.V))


def MakeBoxSurfaceMesh(size) -> TriangleSurfaceMesh:
    """Drake's rigid box (MakeBoxSurfaceMeshWithSymmetricTriangles): each face is 4 triangles around its center,
    wound counter-clockwise seen from outside; 14 vertices, 24 triangles."""
    half = 0.5 * np.asarray(size, dtype=float).reshape(3)
    pool = _VertexPool(float(half.max()))
    tris = []
    for q, cf, _p, _pc in _face_quads(half):
        c = pool.add(cf)
        ids = [pool.add(x) for x in q]
        for i in range(4):
            tris.append((ids[i], ids[(i + 1) % 4], c))
    return TriangleSurfaceMesh(triangles=np.array(tris, dtype=np.int64), vertices=np.array(pool.V))
