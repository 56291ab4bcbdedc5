"""Tetrahedral volume meshes and triangle surface meshes of primitive shapes for hydroelastic contact, as Drake 1.51
builds them (geometry/proximity/make_{sphere,ellipsoid,box}_mesh):

* sphere / ellipsoid: Drake's refined octahedron with a single interior vertex (TessellationStrategy
  kSingleInteriorVertex): level 0 is an octahedron of 8 tetrahedra around the center; each level splits every
  boundary triangle into 4 (edge midpoints pushed onto the unit sphere). The level is the smallest whose equator
  chords are no longer than the resolution hint (at most 8); an ellipsoid scales the unit sphere of resolution
  hint / max(a, b, c).
* box: tetrahedra that respect the box's medial axis (a point, segment or rectangle), so each tetrahedron lies in
  the region nearest one face and a linear pressure field is exact in it, each joining the face center to a
  triangle of the region's other sides (Drake's MakeBoxVolumeMeshWithMaAndSymmetricTriangles: the same 24 / 40 /
  44 tetrahedra); the rigid box's surface mesh splits every face into 4 triangles around its center.

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


def _corner(i: int, j: int, k: int) -> int:
    """Index of the box corner with signs (x, y, z) = (i, j, k) (0: −, 1: +) among the first 8 vertices."""
    return 4 * i + 2 * j + k


def _trapezoid(c_lo: int, c_hi: int, m_lo: int, m_hi: int) -> list:
    """The two triangles of the trapezoid between a box edge (c_lo, c_hi) and its parallel medial edge (m_lo,
    m_hi): cut along the diagonal from the edge's lower corner to the medial edge's upper end, which makes
    neighbouring regions conform."""
    return [(c_lo, c_hi, m_hi), (c_lo, m_hi, m_lo)]


def _box_point_ma(h: float) -> tuple[list, list]:
    """A cube (medial axis: its center): 8 corners, the center, 6 face centers (−x, +x, −y, +y, −z, +z); each
    face's region is a pyramid cut into 4 tetrahedra by the face center."""
    V = [(s0 * h, s1 * h, s2 * h) for s0 in (-1, 1) for s1 in (-1, 1) for s2 in (-1, 1)] + [(0.0, 0.0, 0.0)]
    regions = []
    for a in range(3):
        for s in (0, 1):
            c = np.zeros(3)
            c[a] = (2 * s - 1) * h
            V.append(tuple(c))
            ring = _face_ring(a, s)
            regions.append((len(V) - 1, [(ring[n], ring[(n + 1) % 4], 8) for n in range(4)]))
    return V, regions


def _face_ring(a: int, s: int) -> list:
    """The corners of face (axis a, side s) in cyclic order."""
    ring = []
    for u, w in ((0, 0), (0, 1), (1, 1), (1, 0)):
        ijk = [0, 0, 0]
        ijk[a], ijk[(a + 1) % 3], ijk[(a + 2) % 3] = s, u, w
        ring.append(_corner(*ijk))
    return ring


def _box_line_ma(L1: float, L2: float) -> tuple[list, list]:
    """A box with half sizes (L1, L1, L2), L2 > L1 (medial axis: the segment z ∈ [−Lm, Lm], Lm = L2 − L1, with its
    midpoint as a vertex). The 4 side regions are cut by the face center over the 2 end triangles and, on each
    pentagon (box edge, segment ends, midpoint), 3 triangles fanned at the midpoint; each end region is a pyramid
    over the segment's end (40 tetrahedra, 17 vertices)."""
    Lm = L2 - L1
    V = [(s0 * L1, s1 * L1, s2 * L2) for s0 in (-1, 1) for s1 in (-1, 1) for s2 in (-1, 1)]
    V += [(0.0, 0.0, Lm), (0.0, 0.0, -Lm), (0.0, 0.0, 0.0)]
    m = (9, 8)  # the segment's end at z− / z+
    mid = 10
    regions = []
    for a in range(3):
        for s in (0, 1):
            c = np.zeros(3)
            c[a] = (2 * s - 1) * (L1 if a < 2 else L2)
            V.append(tuple(c))
            if a == 2:  # an end: the pyramid over the segment's end
                ring = _face_ring(2, s)
                tris = [(ring[n], ring[(n + 1) % 4], m[s]) for n in range(4)]
            else:
                tris = []
                for k in (0, 1):  # the end triangles
                    ijk0, ijk1 = [0, 0, k], [1, 1, k]
                    ijk0[a] = ijk1[a] = s
                    tris.append((_corner(*ijk0), _corner(*ijk1), m[k]))
                for u in (0, 1):  # the pentagons along the other side axis
                    ijk = [u, u, 0]
                    ijk[a] = s
                    lo = _corner(*ijk)
                    hi = lo + 1  # the same corner at z+
                    tris += [(lo, hi, mid), (hi, m[1], mid), (lo, mid, m[0])]
            regions.append((len(V) - 1, tris))
    return V, regions


def _box_rectangle_ma(L1: float, L2: float, L3: float) -> tuple[list, list]:
    """A box with half sizes (L1, L2, L3), L1 smallest and L2, L3 > L1 (medial axis: the rectangle x = 0,
    |y| ≤ L2 − L1, |z| ≤ L3 − L1). The two x regions (frustums) are cut by their face center over the medial
    rectangle's 2 triangles and 4 trapezoids' 2 each; the four y / z regions (hip roofs) over their 2 trapezoids'
    2 triangles and 2 end triangles (44 tetrahedra, 18 vertices)."""
    Lm2, Lm3 = L2 - L1, L3 - L1
    V = [(s0 * L1, s1 * L2, s2 * L3) for s0 in (-1, 1) for s1 in (-1, 1) for s2 in (-1, 1)]
    V += [(0.0, -Lm2, Lm3), (0.0, Lm2, Lm3), (0.0, -Lm2, -Lm3), (0.0, Lm2, -Lm3)]

    def ma(j: int, k: int) -> int:  # the medial rectangle's corner at y side j, z side k
        return 8 + 2 * (1 - k) + j

    half = (L1, L2, L3)
    regions = []
    for a in range(3):
        for s in (0, 1):
            c = np.zeros(3)
            c[a] = (2 * s - 1) * half[a]
            V.append(tuple(c))
            tris = []
            if a == 0:  # a frustum: the medial rectangle and the 4 trapezoids around it
                tris += [(ma(0, 1), ma(1, 1), ma(1, 0)), (ma(0, 1), ma(1, 0), ma(0, 0))]
                for j in (0, 1):
                    tris += _trapezoid(_corner(s, j, 0), _corner(s, j, 1), ma(j, 0), ma(j, 1))
                for k in (0, 1):
                    tris += _trapezoid(_corner(s, 0, k), _corner(s, 1, k), ma(0, k), ma(1, k))
            elif a == 1:  # a hip roof over the medial edge y = ±Lm2 (along z)
                for i in (0, 1):
                    tris += _trapezoid(_corner(i, s, 0), _corner(i, s, 1), ma(s, 0), ma(s, 1))
                tris += [(_corner(0, s, k), _corner(1, s, k), ma(s, k)) for k in (0, 1)]
            else:  # a hip roof over the medial edge z = ±Lm3 (along y)
                for i in (0, 1):
                    tris += _trapezoid(_corner(i, 0, s), _corner(i, 1, s), ma(0, s), ma(1, s))
                tris += [(_corner(0, j, s), _corner(1, j, s), ma(j, s)) for j in (0, 1)]
            regions.append((len(V) - 1, tris))
    return V, regions


def MakeBoxVolumeMesh(size) -> VolumeMesh:
    """Tetrahedral mesh of a box of full `size` (3,) [m] centered at its frame's origin, as Drake's
    MakeBoxVolumeMeshWithMaAndSymmetricTriangles: the box is split into the regions nearest each face (bounded by
    the medial axis: a point, a segment or a rectangle) and each region into tetrahedra that join its face center
    to the triangles of its other sides (24, 40 or 44 tetrahedra), so the linear pressure field is exact."""
    half = 0.5 * np.asarray(size, dtype=float).reshape(3)
    hm = _medial_half_size(half)
    zeros = int(np.sum(hm == 0.0))
    if zeros == 3:
        V, regions = _box_point_ma(float(half[0]))
        R = np.eye(3)
    elif zeros == 2:  # built with the segment along z, then turned onto the box's longest axis
        z = int(np.argmax(half))
        V, regions = _box_line_ma(float(half[(z + 1) % 3]), float(half[z]))
        R = (np.array([[0, 0, -1], [0, 1, 0], [1, 0, 0]]), np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]]),
             np.eye(3))[z]
    else:  # built with the shortest half size along x, then turned onto the box's shortest axis
        x = int(np.argmin(half))
        L = {0: (half[0], half[1], half[2]), 1: (half[1], half[0], half[2]), 2: (half[2], half[1], half[0])}[x]
        V, regions = _box_rectangle_ma(*(float(v) for v in L))
        R = (np.eye(3), np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]]), np.array([[0, 0, -1], [0, 1, 0], [1, 0, 0]]))[x]
    V = np.asarray(V, dtype=float) @ np.asarray(R, dtype=float).T
    tets = []
    for apex, tris in regions:
        for t in tris:
            ids = [t[0], t[1], t[2], apex]
            P = V[ids]
            if np.dot(P[3] - P[0], np.cross(P[1] - P[0], P[2] - P[0])) < 0:
                ids[1], ids[2] = ids[2], ids[1]
            tets.append(ids)
    return VolumeMesh(elements=np.array(tets, dtype=np.int64), vertices=V)


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
