"""Tetrahedral volume meshes (pydrake.geometry.VolumeElement, VolumeMesh).

A VolumeMesh holds vertex positions p_MV (n, 3) [m] in its frame M and tetrahedra (m, 4) of vertex indices,
numpy arrays throughout. As in Drake, a tetrahedron (a, b, c, d) is positively oriented when (b-a)×(c-a)
points towards d; face i is the one opposite vertex i and its inward normal points towards that vertex.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.surface_mesh import _bounding_box, as_element_array, as_vertex_array

__all__ = ["VolumeElement", "VolumeMesh", "VolumeMesh_"]

# Edge vectors of a tetrahedron in Drake's lexicographic order: (0,1), (0,2), (0,3), (1,2), (1,3), (2,3).
_EDGES = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


class VolumeElement:
    """One tetrahedron: four vertex indices (v0, v1, v2) wound so that their normal points towards v3."""

    __slots__ = ("_v",)

    def __init__(self, v0: int, v1: int, v2: int, v3: int):
        self._v = (int(v0), int(v1), int(v2), int(v3))
        if min(self._v) < 0:
            raise ValueError(f"VolumeElement: vertex indices must be >= 0; given {self._v}")

    def num_vertices(self) -> int:
        return 4

    def vertex(self, i: int) -> int:
        """The mesh index of the element's i-th vertex (i in 0..3)."""
        return self._v[i]

    def Equal(self, e: "VolumeElement") -> bool:
        return self == e

    def __eq__(self, other) -> bool:
        return isinstance(other, VolumeElement) and self._v == other._v

    def __hash__(self):
        return hash(self._v)

    def __repr__(self) -> str:
        return f"VolumeElement(v0={self._v[0]}, v1={self._v[1]}, v2={self._v[2]}, v3={self._v[3]})"


class VolumeMesh:
    """A mesh of tetrahedra in frame M: ``VolumeMesh(elements, vertices)``."""

    def __init__(self, elements: Sequence, vertices: Sequence):
        self._V = as_vertex_array(vertices, "VolumeMesh")
        self._E = as_element_array(elements, 4, VolumeElement, "VolumeMesh", len(self._V))
        self._V.setflags(write=False)
        self._E.setflags(write=False)
        self._ComputePositionDependentQuantities()

    def _ComputePositionDependentQuantities(self) -> None:
        P = self._V[self._E]  # (m, 4, 3)
        a, b, c, d = P[:, 0], P[:, 1], P[:, 2], P[:, 3]
        ab, ac, ad, bc, bd = b - a, c - a, d - a, c - b, d - b
        normals = np.stack((np.cross(bd, bc), np.cross(ac, ad), np.cross(ad, ab), np.cross(ab, ac)), axis=1)
        norm = np.linalg.norm(normals, axis=2, keepdims=True)
        self._inward = np.divide(normals, norm, out=np.zeros_like(normals), where=norm != 0)

    # ----- mallard's array view ----------------------------------------------------------------------
    def vertex_array(self) -> np.ndarray:
        """The vertex positions p_MV (n, 3) [m] (read-only)."""
        return self._V

    def element_array(self) -> np.ndarray:
        """The tetrahedra's vertex indices (m, 4) (read-only)."""
        return self._E

    # ----- pydrake API -------------------------------------------------------------------------------
    def num_elements(self) -> int:
        return int(self._E.shape[0])

    def num_vertices(self) -> int:
        return int(self._V.shape[0])

    def vertex(self, v: int) -> np.ndarray:
        return self._V[v].copy()

    def vertices(self) -> list[np.ndarray]:
        return [p.copy() for p in self._V]

    def element(self, e: int) -> VolumeElement:
        return VolumeElement(*self._E[e])

    def tetrahedra(self) -> list[VolumeElement]:
        return [VolumeElement(*t) for t in self._E]

    def inward_normal(self, e: int, f: int) -> np.ndarray:
        """Unit normal of face ``f`` (opposite vertex f) of tetrahedron ``e``, pointing into it, in M."""
        return self._inward[e, f].copy()

    def edge_vector(self, e: int, a: int, b: int) -> np.ndarray:
        """p_AB_M: from local vertex ``a`` to local vertex ``b`` of tetrahedron ``e`` (a < b)."""
        if not (0 <= a < b < 4):
            raise ValueError(f"VolumeMesh.edge_vector: need 0 <= a < b < 4; given a={a}, b={b}")
        return self._V[self._E[e, b]] - self._V[self._E[e, a]]

    def CalcTetrahedronVolume(self, e: int) -> float:
        """Signed volume of tetrahedron ``e`` [m³] (positive when positively oriented)."""
        a, b, c, d = self._V[self._E[e]]
        return float(np.dot(d - a, np.cross(b - a, c - a)) / 6.0)

    def CalcVolume(self) -> float:
        """Total signed volume of the mesh [m³]."""
        P = self._V[self._E]
        a = P[:, 0]
        return float(np.einsum("ij,ij->i", P[:, 3] - a, np.cross(P[:, 1] - a, P[:, 2] - a)).sum() / 6.0)

    def CalcBarycentric(self, p_MQ, e: int) -> np.ndarray:
        """Barycentric coordinates (4) of p_MQ in tetrahedron ``e`` (outside it some are negative)."""
        A = np.vstack((np.ones(4), self._V[self._E[e]].T))
        return np.linalg.solve(A, np.concatenate(([1.0], np.asarray(p_MQ, dtype=float).reshape(3))))

    def CalcGradBarycentric(self, e: int, i: int) -> np.ndarray:
        """∇bᵢ (in M) of the barycentric coordinate of local vertex ``i`` of tetrahedron ``e``; raises on a
        degenerate tetrahedron."""
        idx = self._E[e]
        V = self._V[idx[i]]
        A, B, C = self._V[idx[(i + 1) % 4]], self._V[idx[(i + 2) % 4]], self._V[idx[(i + 3) % 4]]
        area = np.cross(B - A, C - A)
        signed_volume = float(area @ (V - A))
        if abs(signed_volume) <= np.finfo(float).eps:
            raise RuntimeError(f"VolumeMesh.CalcGradBarycentric: tetrahedron {e} is degenerate")
        return area / signed_volume

    def CalcBoundingBox(self) -> tuple[np.ndarray, np.ndarray]:
        """(center, size) of the axis-aligned box of the vertices, in M."""
        return _bounding_box(self._V)

    def Equal(self, mesh: "VolumeMesh", vertex_tolerance: float = 0) -> bool:
        """The same tetrahedra, and vertices no farther apart than ``vertex_tolerance`` [m]."""
        if self is mesh:
            return True
        if not isinstance(mesh, VolumeMesh) or self._E.shape != mesh._E.shape or self._V.shape != mesh._V.shape:
            return False
        if not np.array_equal(self._E, mesh._E):
            return False
        return bool(np.all(np.linalg.norm(self._V - mesh._V, axis=1) <= vertex_tolerance))

    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __repr__(self) -> str:
        return f"VolumeMesh({self.num_elements()} tetrahedra, {self.num_vertices()} vertices)"


VolumeMesh_ = ScalarTemplate("VolumeMesh_", VolumeMesh)  # pydrake's VolumeMesh_[float]
