"""Operations on tetrahedral meshes, as Drake does them: the boundary surface (ConvertVolumeToSurfaceMesh)
and the refinement that removes simplices whose vertices all lie on the boundary (RefineVolumeMesh), which
would give a hydroelastic pressure field zero pressure inside."""
from __future__ import annotations

import numpy as np

from mallard.geometry.mesh_source import MeshSource
from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.volume_mesh import VolumeMesh
from mallard.geometry.vtk_io import ReadVtkToVolumeMesh, WriteVolumeMeshToVtkFileContents

__all__ = ["ConvertVolumeToSurfaceMesh", "IdentifyBoundaryFaces", "RefineVolumeMesh",
           "RefineVolumeMeshIntoVtkFileContents"]

# Each face of a tetrahedron (v0, v1, v2, v3) wound so its right-handed normal points out of it.
_OUTWARD_FACES = ((1, 2, 3), (3, 2, 0), (1, 3, 0), (2, 1, 0))
_EDGES = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def IdentifyBoundaryFaces(tetrahedra: np.ndarray) -> list[tuple[int, int, int]]:
    """The faces that belong to exactly one tetrahedron, outward-wound, ordered by their sorted vertex
    triplets (Drake's deterministic order)."""
    faces: dict[tuple[int, int, int], tuple[int, int, int]] = {}
    for tet in np.asarray(tetrahedra).tolist():
        for a, b, c in _OUTWARD_FACES:
            f = (tet[a], tet[b], tet[c])
            key = tuple(sorted(f))
            if key in faces:
                del faces[key]
            else:
                faces[key] = f
    return [faces[k] for k in sorted(faces)]


def ConvertVolumeToSurfaceMesh(volume: VolumeMesh) -> TriangleSurfaceMesh:
    """The boundary surface of a tetrahedral mesh: its boundary faces wound outward, over the boundary
    vertices in increasing order of their volume-mesh index."""
    faces = np.asarray(IdentifyBoundaryFaces(volume.element_array()), dtype=np.int64).reshape(-1, 3)
    used = np.unique(faces)
    remap = np.full(volume.num_vertices(), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return TriangleSurfaceMesh(triangles=remap[faces], vertices=volume.vertex_array()[used])


def _boundary_vertices(E: list[list[int]]) -> set[int]:
    return {v for f in IdentifyBoundaryFaces(np.asarray(E)) for v in f}


def _interior_simplices(E: list[list[int]], k: int) -> list[tuple[int, ...]]:
    """Sorted vertex tuples of the interior triangles (k=3) or edges (k=2) with all vertices on the
    boundary."""
    boundary_faces = {tuple(sorted(f)) for f in IdentifyBoundaryFaces(np.asarray(E))}
    if k == 3:
        boundary = boundary_faces
        parts = [tuple(sorted((t[a], t[b], t[c]))) for t in E for a, b, c in _OUTWARD_FACES]
    else:
        boundary = {tuple(sorted((f[i], f[j]))) for f in boundary_faces for i, j in ((0, 1), (1, 2), (0, 2))}
        parts = [tuple(sorted((t[a], t[b]))) for t in E for a, b in _EDGES]
    on_boundary = _boundary_vertices(E)
    return sorted({p for p in parts if p not in boundary and all(v in on_boundary for v in p)})


class _Refiner:
    """Drake's VolumeMeshRefiner: splits interior edges, then interior triangles, then tetrahedra whose
    vertices all lie on the boundary, by inserting their centroid; orientation is preserved."""

    def __init__(self, mesh: VolumeMesh):
        self.E = mesh.element_array().tolist()
        self.V = [p for p in mesh.vertex_array()]
        self.incident: list[list[int]] = [[] for _ in self.V]
        for t, tet in enumerate(self.E):
            for v in tet:
                self.incident[v].append(t)

    def _new_vertex(self, simplex) -> int:
        self.V.append(np.mean([self.V[v] for v in simplex], axis=0))
        self.incident.append([])
        return len(self.V) - 1

    def _tets_on(self, simplex) -> list[int]:
        common = set(self.incident[simplex[0]])
        for v in simplex[1:]:
            common &= set(self.incident[v])
        return [t for t in self.incident[simplex[0]] if t in common]

    def _cut(self, tet: int, simplex, u: int) -> None:
        original = list(self.E[tet])
        for i, v in enumerate(simplex):
            local = original.index(v)
            replacement = list(original)
            replacement[local] = u
            if i == 0:
                self.incident[original[local]].remove(tet)
                self.E[tet] = replacement
                self.incident[u].append(tet)
            else:
                self.E.append(replacement)
                for w in replacement:
                    self.incident[w].append(len(self.E) - 1)

    def Refine(self) -> VolumeMesh:
        for edge in _interior_simplices(self.E, 2):
            u = self._new_vertex(edge)
            for t in self._tets_on(edge):
                self._cut(t, edge, u)
        for tri in _interior_simplices(self.E, 3):
            u = self._new_vertex(tri)
            tets = self._tets_on(tri)
            if len(tets) != 2:
                raise RuntimeError(f"RefineVolumeMesh: interior triangle {tri} is shared by {len(tets)} tetrahedra "
                                   "(expected 2); the mesh is not a valid tetrahedral mesh")
            for t in tets:
                self._cut(t, tri, u)
        on_boundary = _boundary_vertices(self.E)
        for t in [t for t, tet in enumerate(self.E) if all(v in on_boundary for v in tet)]:
            tet = list(self.E[t])
            self._cut(t, tet, self._new_vertex(tet))
        return VolumeMesh(elements=np.asarray(self.E, dtype=np.int64), vertices=np.asarray(self.V))


def RefineVolumeMesh(mesh: VolumeMesh) -> VolumeMesh:
    """``mesh`` refined so no tetrahedron, interior triangle or interior edge has all its vertices on the
    boundary (each is split at its centroid); a copy of ``mesh`` when none does."""
    E = mesh.element_array().tolist()
    on_boundary = _boundary_vertices(E)
    bad_tets = any(all(v in on_boundary for v in tet) for tet in E)
    if not bad_tets and not _interior_simplices(E, 3) and not _interior_simplices(E, 2):
        return VolumeMesh(elements=mesh.element_array(), vertices=mesh.vertex_array())
    return _Refiner(mesh).Refine()


def RefineVolumeMeshIntoVtkFileContents(mesh_source: MeshSource) -> str:
    """The refined tetrahedral mesh of a VTK source, as the contents of an ASCII VTK file."""
    refined = RefineVolumeMesh(ReadVtkToVolumeMesh(mesh_source))
    return WriteVolumeMeshToVtkFileContents(refined, "refined by //geometry/proximity:volume_mesh_refiner")
