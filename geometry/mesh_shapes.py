"""Mesh and Convex (pydrake.geometry): shapes whose surface comes from mesh data, a file path or an
InMemoryMesh (a MeshSource), scaled per axis.

As in Drake the data are read when first needed, not at construction: a missing or unreadable file is an
error (naming the file) when the shape is drawn, collided or weighed. Proximity queries use the convex hull.
"""
from __future__ import annotations

import os

import numpy as np

from mallard.common.memory_file import MemoryFile
from mallard.common.overloads import Overload, declares, resolve
from mallard.geometry.mesh_source import InMemoryMesh, MeshSource
from mallard.geometry.shapes import MESH, Shape, fmt_double

__all__ = ["Convex", "InMemoryMesh", "MemoryFile", "Mesh", "MeshSource"]

_PATH = (str, os.PathLike)
_VEC = (list, tuple, np.ndarray)


def _scale3(scale, scale3, cls: str) -> np.ndarray:
    if scale3 is not None:
        s = np.asarray(scale3, dtype=float).reshape(-1)
        if s.size != 3:
            raise ValueError(f"{cls} scale3 needs 3 values; given {s.size}")
    else:
        s = np.full(3, float(scale))
    if not np.all(np.isfinite(s)) or np.any(np.abs(s) < 1e-8):
        raise ValueError(f"{cls} |scale| cannot be < 1e-8 on any axis, given {s.tolist()}.")
    return s


def _points_obj(points, label: str) -> MemoryFile:
    """The OBJ text (one 'v x y z' line per column of ``points``) Drake makes for Convex(points, label)."""
    P = np.asarray(points, dtype=float)
    if P.ndim != 2 or P.shape[0] != 3:
        raise ValueError(f"Convex '{label}': points must be a (3, n) array; given shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise ValueError(f"Convex '{label}': points must be finite")
    text = "".join(f"v {fmt_double(x)} {fmt_double(y)} {fmt_double(z)}\n" for x, y, z in P.T)
    return MemoryFile(text, ".obj", label)


class _MeshShape(Shape):
    """Shared by Mesh and Convex: a MeshSource and a per-axis scale."""

    _OVERLOADS = (Overload(("filename", _PATH), ("scale", None, 1.0)),
                  Overload(("filename", _PATH), ("scale3", _VEC)),
                  Overload(("mesh_data", InMemoryMesh), ("scale", None, 1.0)),
                  Overload(("mesh_data", InMemoryMesh), ("scale3", _VEC)),
                  Overload(("source", MeshSource), ("scale", None, 1.0)),
                  Overload(("source", MeshSource), ("scale3", _VEC)))

    def __init__(self, *args, **kwargs):
        name = type(self).__name__
        k, a = resolve(name, self._OVERLOADS, args, kwargs)
        if k < 2:  # as Drake, a file name is made absolute (against the current directory) right away
            source = MeshSource(os.path.abspath(os.fspath(a["filename"])))
        elif k < 4:
            source = MeshSource(mesh=a["mesh_data"])
        else:
            source = MeshSource(other=a["source"])
        self._Init(source, _scale3(a.get("scale", 1.0), a.get("scale3"), name))

    def _Init(self, source: MeshSource, scale: np.ndarray) -> None:
        self._source = source
        self._scale = scale
        self._cache = None  # (vertices, triangles) of the unscaled mesh, once read

    # ----- pydrake API -------------------------------------------------------------------------------
    def source(self) -> MeshSource:
        return self._source

    def extension(self) -> str:
        """The lower-case extension of the mesh data, with the dot (e.g. '.obj')."""
        return self._source.extension()

    def scale(self) -> float:
        """The uniform scale; raises if the scale is not uniform (use scale3())."""
        if not np.all(self._scale == self._scale[0]):
            raise RuntimeError(f"{type(self).__name__}.scale() can only be called if the scale is uniform; "
                               f"it is {self._scale.tolist()}. Call scale3() instead.")
        return float(self._scale[0])

    def scale3(self) -> np.ndarray:
        return self._scale.copy()

    def GetConvexHull(self):
        """The convex hull of the scaled mesh, a PolygonSurfaceMesh in the shape frame G."""
        from mallard.geometry.convex_hull import MakeConvexHull

        return MakeConvexHull(self._source, self._scale)

    # ----- mallard ------------------------------------------------------------------------------------
    def filename(self) -> str:
        """The mesh file path, or the in-memory mesh's filename hint."""
        return self._source.description()

    def is_in_memory(self) -> bool:
        return self._source.is_in_memory()

    def _raw_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._cache is None:
            from mallard.geometry.mesh_data import read_mesh_source

            self._cache = read_mesh_source(self._source, type(self).__name__)
        return self._cache

    def _mesh_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(vertices (n, 3), triangles (m, 3)) of the scaled mesh in frame G."""
        V, F = self._raw_arrays()
        V = V * self._scale
        if np.prod(np.sign(self._scale)) < 0:  # mirrored: keep the triangles wound outward
            F = F[:, [0, 2, 1]]
        return V, F.copy()

    def _hull_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(vertices, triangles) of the convex hull of the scaled mesh in frame G."""
        from mallard.geometry.meshes import convex_hull

        return convex_hull(self._mesh_arrays()[0], self.filename())

    def _kernel_type(self) -> int:
        return MESH

    def _key(self):
        return (self._source, tuple(self._scale))

    def __repr__(self) -> str:
        scale = f"scale3={self._scale.tolist()}"
        if self._source.is_path():
            return f"{type(self).__name__}(filename={str(self._source.path())!r}, {scale})"
        return f"{type(self).__name__}(mesh_data={self._source.in_memory()!r}, {scale})"

    def __getstate__(self):
        return (self._source, self._scale.copy())

    def __setstate__(self, state) -> None:
        source, scale = state
        if not isinstance(source, MeshSource):  # pickled by Drake <= 1.33: (filename, scale)
            source = MeshSource(source)
        self._Init(source, np.broadcast_to(np.asarray(scale, dtype=float), (3,)).copy())

    def __deepcopy__(self, memo):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)  # the source and the read arrays are never modified
        new._scale = self._scale.copy()
        return new


class Mesh(_MeshShape):
    """A surface mesh from a file (OBJ, glTF, VTK, and what trimesh reads: STL, PLY, GLB ...) or memory:
    ``Mesh(filename, scale=1.0)``, ``Mesh(mesh_data=InMemoryMesh(...), scale3=[...])``, ``Mesh(source=...)``.
    As in Drake, proximity queries use its convex hull."""


class Convex(_MeshShape):
    """The convex hull of mesh data: Mesh's constructors, plus ``Convex(points, label, scale=1.0)`` for
    points (3, n) [m] in the shape frame G (held as an in-memory OBJ named ``label``)."""

    _OVERLOADS = _MeshShape._OVERLOADS + (Overload(("points", _VEC), ("label", str), ("scale", None, 1.0)),
                                          Overload(("points", _VEC), ("label", str), ("scale3", _VEC)))

    def __init__(self, *args, **kwargs):
        k, a = resolve("Convex", self._OVERLOADS, args, kwargs)
        if k < 6:
            super().__init__(*args, **kwargs)
            return
        label = a["label"]
        if "\n" in label:
            raise ValueError(f"Convex: the label must be a single line; given {label!r}")
        source = MeshSource(mesh=InMemoryMesh(_points_obj(a["points"], label)))
        self._Init(source, _scale3(a.get("scale", 1.0), a.get("scale3"), "Convex"))


declares(_MeshShape._OVERLOADS)(_MeshShape.__init__)
declares(Convex._OVERLOADS)(Convex.__init__)
