"""Polygon surface meshes (pydrake.geometry.SurfacePolygon, PolygonSurfaceMesh): planar convex polygons given
as Drake's flat ``face_data`` [n0, i0, i1, ..., n1, j0, ...] over vertices p_MV (n, 3) [m]. Convex hulls and
polygonal contact surfaces are of this type."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.surface_mesh import _bounding_box, as_vertex_array

__all__ = ["PolygonSurfaceMesh", "PolygonSurfaceMesh_", "SurfacePolygon"]


class SurfacePolygon:
    """One polygon of a PolygonSurfaceMesh: its vertex indices, counter-clockwise seen from outside."""

    __slots__ = ("_v",)

    def __init__(self, vertices: Sequence[int]):
        self._v = tuple(int(i) for i in vertices)

    def num_vertices(self) -> int:
        return len(self._v)

    def vertex(self, i: int) -> int:
        return self._v[i]

    def __eq__(self, other) -> bool:
        return isinstance(other, SurfacePolygon) and self._v == other._v

    def __hash__(self):
        return hash(self._v)

    def __repr__(self) -> str:
        return f"SurfacePolygon({list(self._v)})"


class PolygonSurfaceMesh:
    """A surface of planar convex polygons in frame M: ``PolygonSurfaceMesh(face_data, vertices)``."""

    def __init__(self, face_data: Sequence[int] = (), vertices: Sequence = ()):
        self._V = as_vertex_array(vertices, "PolygonSurfaceMesh")
        self._V.setflags(write=False)
        self._face_data = [int(i) for i in face_data]
        self._polys: list[tuple[int, ...]] = []
        k = 0
        n_data = len(self._face_data)
        while k < n_data:
            count = self._face_data[k]
            poly = tuple(self._face_data[k + 1:k + 1 + count])
            if count < 3 or len(poly) != count:
                raise ValueError(f"PolygonSurfaceMesh: face_data entry at {k} declares {count} vertices but "
                                 f"{len(poly)} follow (each polygon needs >= 3)")
            if min(poly) < 0 or max(poly) >= len(self._V):
                raise ValueError(f"PolygonSurfaceMesh: polygon at face_data[{k}] names a vertex outside "
                                 f"[0, {len(self._V)})")
            self._polys.append(poly)
            k += count + 1
        self._ComputePositionDependentQuantities()

    def _ComputePositionDependentQuantities(self) -> None:
        V = self._V
        nf = len(self._polys)
        self._area = np.zeros(nf)
        self._normal = np.zeros((nf, 3))
        self._centroids = np.zeros((nf, 3))
        total, weighted = 0.0, np.zeros(3)
        for f, poly in enumerate(self._polys):
            P = V[list(poly)]
            a = P[0]
            cross = np.cross(P[1:-1] - a, P[2:] - a)  # the fan of triangles about vertex 0
            mags = np.linalg.norm(cross, axis=1)
            area = 0.5 * float(mags.sum())
            n = cross.sum(axis=0)
            norm = np.linalg.norm(n)
            self._normal[f] = n / norm if norm > 0 else n
            self._area[f] = area
            scaled = (mags[:, None] * (a + P[1:-1] + P[2:])).sum(axis=0)
            self._centroids[f] = scaled / (6.0 * area) if area != 0 else P.mean(axis=0)
            total += area
            weighted += scaled / 6.0
        self._total_area = total
        if total != 0:
            self._centroid = weighted / total
        else:
            self._centroid = self._centroids[-1].copy() if nf else np.zeros(3)

    # ----- mallard's array view ----------------------------------------------------------------------
    def vertex_array(self) -> np.ndarray:
        """The vertex positions p_MV (n, 3) [m] (read-only)."""
        return self._V

    def polygons(self) -> list[tuple[int, ...]]:
        """Each polygon's vertex indices."""
        return list(self._polys)

    def vertices(self) -> list[np.ndarray]:
        return [p.copy() for p in self._V]

    # ----- pydrake API -------------------------------------------------------------------------------
    def num_vertices(self) -> int:
        return int(self._V.shape[0])

    def num_faces(self) -> int:
        return len(self._polys)

    def num_elements(self) -> int:
        return len(self._polys)

    def vertex(self, v: int) -> np.ndarray:
        return self._V[v].copy()

    def element(self, e: int) -> SurfacePolygon:
        return SurfacePolygon(self._polys[e])

    def face_data(self) -> list[int]:
        return list(self._face_data)

    def area(self, f: int) -> float:
        return float(self._area[f])

    def total_area(self) -> float:
        return float(self._total_area)

    def face_normal(self, f: int) -> np.ndarray:
        return self._normal[f].copy()

    def element_centroid(self, e: int) -> np.ndarray:
        return self._centroids[e].copy()

    def centroid(self) -> np.ndarray:
        """The area-weighted centroid of the surface in M."""
        return self._centroid.copy()

    def CalcBoundingBox(self) -> tuple[np.ndarray, np.ndarray]:
        """(center, size) of the axis-aligned box of the vertices, in M."""
        return _bounding_box(self._V)

    def CalcBarycentric(self, p_MQ, p: int):
        raise RuntimeError("PolygonSurfaceMesh::CalcBarycentric(): PolygonSurfaceMesh does not have barycentric "
                           "coordinates.")

    def Equal(self, mesh: "PolygonSurfaceMesh") -> bool:
        return (self is mesh) or (isinstance(mesh, PolygonSurfaceMesh) and self._face_data == mesh._face_data
                                  and np.array_equal(self._V, mesh._V))

    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __repr__(self) -> str:
        return f"PolygonSurfaceMesh({self.num_faces()} polygons, {self.num_vertices()} vertices)"


PolygonSurfaceMesh_ = ScalarTemplate("PolygonSurfaceMesh_", PolygonSurfaceMesh)  # pydrake's PolygonSurfaceMesh_[float]
