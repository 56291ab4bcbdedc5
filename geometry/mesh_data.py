"""Reading a MeshSource's surface (vertices and triangles in the mesh's own frame, unscaled) for the shapes
that need it: OBJ and VTK with mallard's readers (Drake's vertex order), the other formats trimesh reads
(glTF/GLB turned z-up as Drake does, STL, PLY, OFF, DAE, 3MF)."""
from __future__ import annotations

import io
import os

import numpy as np

from mallard.geometry.identifiers import GeometryValueError
from mallard.geometry.mesh_source import MeshSource
from mallard.geometry.meshes import READABLE_EXTENSIONS, load_mesh
from mallard.geometry.obj_reader import read_obj_source, triangulate

__all__ = ["MeshDataError", "MeshFileNotFoundError", "read_mesh_source"]


class MeshFileNotFoundError(FileNotFoundError, RuntimeError):
    """A mesh file that does not exist (a RuntimeError as in pydrake, a FileNotFoundError for Python code)."""


class MeshDataError(GeometryValueError):
    """Mesh data that cannot be used: an unsupported type or unreadable contents."""


def _trimesh_bytes(data: bytes, ext: str, name: str) -> tuple[np.ndarray, np.ndarray]:
    import trimesh

    try:
        m = trimesh.load(io.BytesIO(data), file_type=ext[1:], force="mesh", process=False)
    except Exception as exc:  # trimesh raises many types for corrupt data
        raise MeshDataError(f"cannot read the in-memory mesh '{name}': {type(exc).__name__}: {exc}") from None
    V = np.asarray(m.vertices, dtype=float)
    if ext in (".gltf", ".glb") and V.ndim == 2 and V.shape[1] == 3:
        V = np.column_stack((V[:, 0], -V[:, 2], V[:, 1]))  # glTF is y-up; Drake is z-up
    return V, np.asarray(m.faces, dtype=np.int64).reshape(-1, 3)


def read_mesh_source(source: MeshSource, who: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3), triangles (m, 3)) of the mesh data of ``source``; FileNotFoundError for a missing
    file, ValueError for an unsupported extension or unreadable data (naming the file). An OBJ with
    vertices but no faces gives no triangles (its convex hull is still defined)."""
    ext = source.extension()
    name = source.description()
    if ext not in READABLE_EXTENSIONS:
        raise MeshDataError(f"{who}: unsupported mesh file type '{ext}' for {name}; supported: "
                         f"{', '.join(READABLE_EXTENSIONS)}")
    if source.is_path() and not os.path.isfile(source.path()):
        raise MeshFileNotFoundError(f"{who}: cannot read the file '{source.path()}': mesh file not found "
                                    f"({os.path.abspath(source.path())})")
    if ext == ".obj":
        try:
            V, polys = read_obj_source(source, who)
        except ValueError as exc:
            raise MeshDataError(str(exc)) from None
        F = triangulate(polys)
    elif ext == ".vtk":
        from mallard.geometry.vtk_io import ReadVtkToVolumeMesh
        from mallard.geometry.volume_mesh_tools import ConvertVolumeToSurfaceMesh

        surface = ConvertVolumeToSurfaceMesh(ReadVtkToVolumeMesh(source))
        V, F = surface.vertex_array().copy(), surface.element_array().copy()
    elif source.is_path():
        V, F = load_mesh(str(source.path()))
    else:
        f = source.in_memory().mesh_file
        V, F = _trimesh_bytes(f.contents(), ext, name)
    if len(V) == 0 or not np.all(np.isfinite(V)):
        raise MeshDataError(f"{who}: the mesh '{name}' has no usable vertices: found {len(V)} vertices")
    return V, F
