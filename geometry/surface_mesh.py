"""Triangle surface meshes (pydrake.geometry.SurfaceTriangle, TriangleSurfaceMesh).

A TriangleSurfaceMesh holds its vertices p_MV (n, 3) in its frame M [m] and its triangles (m, 3) of vertex
indices as numpy arrays; per-triangle areas, unit normals (right-handed winding) and the area-weighted
centroid are computed once, as Drake does. `vertex_array()` / `element_array()` give the arrays to numeric
code (hydroelastic contact, drawing); the pydrake accessors return copies.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mallard.common.scalar_template import ScalarTemplate

__all__ = ["SurfaceTriangle", "TriangleSurfaceMesh", "TriangleSurfaceMesh_", "as_vertex_array", "as_element_array"]


class SurfaceTriangle:
    """One triangle of a surface mesh: three vertex indices in counter-clockwise order seen from outside."""

    __slots__ = ("_v",)

    def __init__(self, v0: int, v1: int, v2: int):
        self._v = (int(v0), int(v1), int(v2))
        if min(self._v) < 0:
            raise ValueError(f"SurfaceTriangle: vertex indices must be >= 0; given {self._v}")

    def num_vertices(self) -> int:
        return 3

    def vertex(self, i: int) -> int:
        """The mesh index of the triangle's i-th vertex (i in 0..2)."""
        return self._v[i]

    def ReverseWinding(self) -> None:
        self._v = (self._v[0], self._v[2], self._v[1])

    def __eq__(self, other) -> bool:
        return isinstance(other, SurfaceTriangle) and self._v == other._v

    def __hash__(self):
        return hash(self._v)

    def __repr__(self) -> str:
        return f"SurfaceTriangle(v0={self._v[0]}, v1={self._v[1]}, v2={self._v[2]})"


def as_vertex_array(vertices, who: str) -> np.ndarray:
    """Vertex positions (n, 3) from a sequence of 3-vectors or an (n, 3) array; finite values only."""
    V = np.array([np.asarray(v, dtype=float).reshape(3) for v in vertices]) if not isinstance(vertices, np.ndarray) \
        else np.array(vertices, dtype=float)
    V = V.reshape(-1, 3) if V.size else np.zeros((0, 3))
    if not np.all(np.isfinite(V)):
        raise ValueError(f"{who}: vertex positions must be finite")
    return V


def as_element_array(elements, k: int, element_type: type, who: str, num_vertices: int) -> np.ndarray:
    """Element vertex indices (m, k) from a sequence of elements (``element_type``), index tuples or an
    array; every index must name a vertex."""
    rows = [[e.vertex(i) for i in range(k)] if isinstance(e, element_type) else list(e) for e in elements] \
        if not isinstance(elements, np.ndarray) else elements
    E = np.array(rows, dtype=np.int64).reshape(-1, k) if len(rows) else np.zeros((0, k), dtype=np.int64)
    if E.size and (E.min() < 0 or E.max() >= num_vertices):
        raise ValueError(f"{who}: element vertex indices must lie in [0, {num_vertices}); given "
                         f"[{E.min()}, {E.max()}]")
    return E


class TriangleSurfaceMesh:
    """A surface of triangles in frame M: ``TriangleSurfaceMesh(triangles, vertices)``."""

    def __init__(self, triangles: Sequence, vertices: Sequence):
        self._V = as_vertex_array(vertices, "TriangleSurfaceMesh")
        self._T = as_element_array(triangles, 3, SurfaceTriangle, "TriangleSurfaceMesh", len(self._V))
        self._V.setflags(write=False)
        self._T.setflags(write=False)
        self._ComputePositionDependentQuantities()

    def _ComputePositionDependentQuantities(self) -> None:
        V, T = self._V, self._T
        a, b, c = V[T[:, 0]], V[T[:, 1]], V[T[:, 2]]
        cross = np.cross(b - a, c - a)
        norm = np.linalg.norm(cross, axis=1)
        self._area = 0.5 * norm
        self._normal = np.divide(cross, norm[:, None], out=cross.copy(), where=norm[:, None] != 0)
        self._total_area = float(self._area.sum())
        weighted = (self._area[:, None] * (a + b + c)).sum(axis=0) if len(T) else np.zeros(3)
        self._centroid = weighted / (3.0 * self._total_area) if self._total_area != 0 else np.zeros(3)

    # ----- mallard's array view ----------------------------------------------------------------------
    def vertex_array(self) -> np.ndarray:
        """The vertex positions p_MV (n, 3) [m] (read-only)."""
        return self._V

    def element_array(self) -> np.ndarray:
        """The triangles' vertex indices (m, 3) (read-only)."""
        return self._T

    # ----- pydrake API -------------------------------------------------------------------------------
    def num_vertices(self) -> int:
        return int(self._V.shape[0])

    def num_triangles(self) -> int:
        return int(self._T.shape[0])

    def num_elements(self) -> int:
        return self.num_triangles()

    def vertex(self, v: int) -> np.ndarray:
        """Position p_MV of vertex ``v`` [m]."""
        return self._V[v].copy()

    def vertices(self) -> list[np.ndarray]:
        return [p.copy() for p in self._V]

    def element(self, e: int) -> SurfaceTriangle:
        return SurfaceTriangle(*self._T[e])

    def triangles(self) -> list[SurfaceTriangle]:
        return [SurfaceTriangle(*t) for t in self._T]

    def area(self, t: int) -> float:
        """Area of triangle ``t`` [m²]."""
        return float(self._area[t])

    def total_area(self) -> float:
        return self._total_area

    def face_normal(self, t: int) -> np.ndarray:
        """Unit normal of triangle ``t`` in M (zero for a degenerate triangle)."""
        return self._normal[t].copy()

    def element_centroid(self, t: int) -> np.ndarray:
        return self._V[self._T[t]].mean(axis=0)

    def centroid(self) -> np.ndarray:
        """The area-weighted centroid of the surface in M."""
        return self._centroid.copy()

    def CalcBoundingBox(self) -> tuple[np.ndarray, np.ndarray]:
        """(center, size) of the axis-aligned box of the vertices, in M."""
        return _bounding_box(self._V)

    def CalcCartesianFromBarycentric(self, element_index: int, b_Q) -> np.ndarray:
        """The point p_MQ of triangle ``element_index`` with barycentric coordinates ``b_Q``."""
        b = np.asarray(b_Q, dtype=float).reshape(3)
        return b @ self._V[self._T[element_index]]

    def CalcBarycentric(self, p_MQ, t: int) -> np.ndarray:
        """Barycentric coordinates of the projection of p_MQ onto the plane of triangle ``t`` (least squares,
        as Drake)."""
        v0, v1, v2 = self._V[self._T[t]]
        A = np.column_stack((v1 - v0, v2 - v0))
        b12 = np.linalg.lstsq(A, np.asarray(p_MQ, dtype=float).reshape(3) - v0, rcond=None)[0]
        return np.array([1.0 - b12[0] - b12[1], b12[0], b12[1]])

    def Equal(self, mesh: "TriangleSurfaceMesh") -> bool:
        """Exactly the same triangles and vertex positions."""
        return (self is mesh) or (isinstance(mesh, TriangleSurfaceMesh) and np.array_equal(self._T, mesh._T)
                                  and np.array_equal(self._V, mesh._V))

    def ReverseFaceWinding(self) -> None:
        self._T = np.ascontiguousarray(self._T[:, [0, 2, 1]])
        self._T.setflags(write=False)
        self._normal = -self._normal

    def SetAllPositions(self, p_MVs) -> None:
        """Move every vertex: ``p_MVs`` is the flat (3n) array of new positions."""
        p = np.asarray(p_MVs, dtype=float).reshape(-1)
        if p.size != 3 * self.num_vertices():
            raise RuntimeError(f"SetAllPositions(): Attempting to deform a mesh with {self.num_vertices()} vertices "
                               f"with data for {p.size} DoFs")
        self._V = p.reshape(-1, 3).copy()
        self._V.setflags(write=False)
        self._ComputePositionDependentQuantities()

    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()  # arrays are read-only: sharing them is safe

    def __repr__(self) -> str:
        return f"TriangleSurfaceMesh({self.num_triangles()} triangles, {self.num_vertices()} vertices)"


def _bounding_box(V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(V) == 0:
        return np.zeros(3), np.zeros(3)
    lo, hi = V.min(axis=0), V.max(axis=0)
    return (hi + lo) / 2.0, hi - lo


TriangleSurfaceMesh_ = ScalarTemplate("TriangleSurfaceMesh_", TriangleSurfaceMesh)  # pydrake's TriangleSurfaceMesh_[float]
