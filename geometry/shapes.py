"""Shapes (pydrake.geometry): Sphere, Box, Cylinder, Capsule, Ellipsoid, HalfSpace, Mesh, Convex,
plus MuJoCo's plane (MujocoPlane) and height field (HeightField).

A shape is pure geometry in its own frame G; SceneGraph places it with a pose X_FG. Each shape
also knows its collision-kernel type code and MuJoCo-style size vector (half extents), so the
collision engine can work over flat arrays.
"""
from __future__ import annotations

import copy
import math
import os
from typing import Sequence

import numpy as np

# Collision-kernel type codes; the order follows MuJoCo's mjtGeom so pair tables read the same.
PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = range(8)
TYPE_NAMES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh")


def _positive(shape_name: str, **values: float) -> None:
    bad = {k: v for k, v in values.items() if not (isinstance(v, (int, float, np.floating, np.integer))
                                                      and math.isfinite(v) and v > 0)}
    if bad:
        given = ", ".join(f"{k}={v!r}" for k, v in values.items())
        raise ValueError(f"{shape_name} dimensions must all be finite and > 0; given {given}")


class Shape:
    """Base class of all shapes; shapes are immutable values."""

    def Clone(self) -> "Shape":
        """A copy of this shape."""
        return copy.copy(self)

    def type_name(self) -> str:
        return type(self).__name__

    # Collision-kernel view (internal): type code and MuJoCo-convention size (half extents).
    def _kernel_type(self) -> int:
        raise TypeError(f"{self.type_name()} has no collision representation")

    def _kernel_size(self) -> np.ndarray:
        return np.zeros(3)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _key(self):
        return ()


class Sphere(Shape):
    """A sphere of the given radius (m) centered at Go."""

    def __init__(self, radius: float):
        _positive("Sphere", radius=radius)
        self._r = float(radius)

    def radius(self) -> float:
        return self._r

    def _kernel_type(self) -> int:
        return SPHERE

    def _kernel_size(self) -> np.ndarray:
        return np.array([self._r, 0.0, 0.0])

    def _key(self):
        return (self._r,)

    def __repr__(self) -> str:
        return f"Sphere(radius={self._r!r})"


class Box(Shape):
    """An axis-aligned box centered at Go with full edge lengths width (x), depth (y), height (z), m."""

    def __init__(self, width=None, depth: float | None = None, height: float | None = None):
        if depth is None and height is None:
            measures = np.asarray(width, dtype=float).reshape(-1)
            if measures.size != 3:
                raise ValueError(f"Box(measures) needs 3 values; given {measures.size}")
            width, depth, height = measures
        _positive("Box", width=width, depth=depth, height=height)
        self._size = np.array([width, depth, height], dtype=float)

    @staticmethod
    def MakeCube(edge_size: float) -> "Box":
        """A cube with all edges of length ``edge_size``."""
        return Box(edge_size, edge_size, edge_size)

    def width(self) -> float:
        return float(self._size[0])

    def depth(self) -> float:
        return float(self._size[1])

    def height(self) -> float:
        return float(self._size[2])

    def size(self) -> np.ndarray:
        """Full edge lengths [width, depth, height]."""
        return self._size.copy()

    def _kernel_type(self) -> int:
        return BOX

    def _kernel_size(self) -> np.ndarray:
        return 0.5 * self._size

    def _key(self):
        return tuple(self._size)

    def __repr__(self) -> str:
        w, d, h = self._size
        return f"Box(width={w!r}, depth={d!r}, height={h!r})"


class _RadiusLengthShape(Shape):
    """A shape of revolution about Gz, centered at Go, given by a radius and a length (m)."""
    _code = -1

    def __init__(self, radius: float, length: float):
        _positive(type(self).__name__, radius=radius, length=length)
        self._r, self._l = float(radius), float(length)

    def radius(self) -> float:
        return self._r

    def length(self) -> float:
        return self._l

    def _kernel_type(self) -> int:
        return self._code

    def _kernel_size(self) -> np.ndarray:
        return np.array([self._r, 0.5 * self._l, 0.0])

    def _key(self):
        return (self._r, self._l)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(radius={self._r!r}, length={self._l!r})"


class Cylinder(_RadiusLengthShape):
    """A cylinder along Gz, centered at Go: radius and full length (m)."""
    _code = CYLINDER


class Capsule(_RadiusLengthShape):
    """A capsule along Gz centered at Go: radius and length of the cylindrical part (m)."""
    _code = CAPSULE


class Ellipsoid(Shape):
    """An ellipsoid centered at Go with semi-axes a, b, c (m) along Gx, Gy, Gz."""

    def __init__(self, a: float, b: float, c: float):
        _positive("Ellipsoid", a=a, b=b, c=c)
        self._abc = np.array([a, b, c], dtype=float)

    def a(self) -> float:
        return float(self._abc[0])

    def b(self) -> float:
        return float(self._abc[1])

    def c(self) -> float:
        return float(self._abc[2])

    def _kernel_type(self) -> int:
        return ELLIPSOID

    def _kernel_size(self) -> np.ndarray:
        return self._abc.copy()

    def _key(self):
        return tuple(self._abc)

    def __repr__(self) -> str:
        a, b, c = self._abc
        return f"Ellipsoid(a={a!r}, b={b!r}, c={c!r})"


class HalfSpace(Shape):
    """The half space z <= 0 of frame G: its boundary is the plane z = 0, outward normal +Gz."""

    @staticmethod
    def MakePose(Hz_dir_F, p_FB):
        """The pose X_FC of a half space whose outward normal is ``Hz_dir_F`` and whose boundary
        passes through ``p_FB`` (both in frame F), exactly as Drake picks it: Cz is the unit
        normal, the rotation is `CalcHalfSpaceRotation`'s and Co is the boundary point nearest Fo."""
        from mallard.multibody.math import RigidTransform, RotationMatrix

        n = np.asarray(Hz_dir_F, dtype=float).reshape(3)
        norm = float(np.linalg.norm(n))
        if not math.isfinite(norm) or norm < 1e-10:
            raise ValueError(f"HalfSpace.MakePose needs a non-zero normal; given {n.tolist()}")
        R_FC = CalcHalfSpaceRotation(n)
        Hz_F = R_FC[:, 2]
        p = np.asarray(p_FB, dtype=float).reshape(3)
        # As Drake: the origin is the point of the boundary plane nearest Fo.
        return RigidTransform(RotationMatrix(R_FC), float(p @ Hz_F) * Hz_F)

    def _kernel_type(self) -> int:
        return PLANE

    def _key(self):
        return ()

    def __repr__(self) -> str:
        return "HalfSpace()"


class MujocoPlane(HalfSpace):
    """MuJoCo's ``plane`` geom: collides as a half space (z <= 0 of G); ``size`` (x half-size,
    y half-size, grid spacing) only shapes its rendering (0 half-size = infinite)."""

    def __init__(self, size: Sequence[float] = (0.0, 0.0, 0.0)):
        s = np.asarray(size, dtype=float).reshape(-1)
        if s.size != 3 or not np.all(np.isfinite(s)) or np.any(s < 0):
            raise ValueError(f"MujocoPlane size must be 3 non-negative values; given {s.tolist()}")
        self._size = s

    def size(self) -> np.ndarray:
        return self._size.copy()

    def _kernel_size(self) -> np.ndarray:
        return self._size.copy()

    def _key(self):
        return tuple(self._size)

    def __repr__(self) -> str:
        return f"MujocoPlane(size={self._size.tolist()})"


class HeightField(Shape):
    """MuJoCo's ``hfield`` (a mallard extension: pydrake has no height field): an elevation grid over
    [-x, x] x [-y, y] of frame G.

    ``heights`` (nrow x ncol, row 0 at y = -y_size, column 0 at x = -x_size; normalized to [0, 1] as
    MuJoCo's compiler does) and ``size`` = (x half-size, y half-size, z top, z bottom) in meters, MuJoCo's
    (radius_x, radius_y, elevation_z, base_z): the surface height is heights * z_top and the solid extends
    down to -z_bottom. Each grid cell is split along its (c, r)-(c+1, r+1) diagonal into two triangles;
    contacts are MuJoCo's (one per touching triangular prism, geometry/collision/hfield.py), and point
    queries (surface height and normal at (x, y)) are ``hfield_elevation`` there.
    """

    def __init__(self, heights, size: Sequence[float]):
        h = np.asarray(heights, dtype=float)
        if h.ndim != 2 or h.shape[0] < 2 or h.shape[1] < 2:
            raise ValueError(f"HeightField heights must be a 2D grid of at least 2x2; given shape {h.shape}")
        if not np.all(np.isfinite(h)):
            raise ValueError("HeightField heights contain NaN or inf")
        s = np.asarray(size, dtype=float).reshape(-1)
        if s.size != 4:
            raise ValueError(f"HeightField size needs 4 values (x, y, z_top, z_bottom); given {s.size}")
        _positive("HeightField", x=s[0], y=s[1], z_top=s[2], z_bottom=s[3])
        lo, hi = float(h.min()), float(h.max())
        self._h = (h - lo) / (hi - lo) if hi > lo else np.zeros_like(h)
        self._size = s

    def heights(self) -> np.ndarray:
        """The normalized elevation grid (nrow x ncol), values in [0, 1]."""
        return self._h.copy()

    def size(self) -> np.ndarray:
        """(x half-size, y half-size, z top, z bottom), m."""
        return self._size.copy()

    def nrow(self) -> int:
        return int(self._h.shape[0])

    def ncol(self) -> int:
        return int(self._h.shape[1])

    def _kernel_type(self) -> int:
        return HFIELD

    def _kernel_size(self) -> np.ndarray:
        return self._size[:3].copy()

    def _key(self):
        return (self._h.tobytes(), tuple(self._size))

    def __repr__(self) -> str:
        return f"HeightField({self.nrow()}x{self.ncol()}, size={self._size.tolist()})"


def _scale3(scale, scale3, cls: str) -> np.ndarray:
    if scale3 is not None:
        s = np.asarray(scale3, dtype=float).reshape(-1)
        if s.size != 3:
            raise ValueError(f"{cls} scale3 needs 3 values; given {s.size}")
    else:
        s = np.full(3, float(scale))
    if not np.all(np.isfinite(s)) or np.any(np.abs(s) < 1e-8):
        raise ValueError(f"{cls} scale must be finite and non-zero (|scale| >= 1e-8); given {s.tolist()}")
    return s


class MemoryFile:
    """A file's contents held in memory (pydrake.common.MemoryFile): ``contents`` (text or bytes), its
    ``extension`` with the dot (e.g. '.obj') and a ``filename_hint`` used in messages."""

    def __init__(self, contents, extension: str, filename_hint: str):
        ext = str(extension).lower()
        if not ext.startswith(".") or len(ext) < 2:
            raise ValueError(f"MemoryFile: the extension must start with a dot (e.g. '.obj'); given {extension!r}")
        self._contents = contents.encode() if isinstance(contents, str) else bytes(contents)
        self._ext = ext
        self._hint = str(filename_hint)

    def contents(self) -> bytes:
        return self._contents

    def extension(self) -> str:
        return self._ext

    def filename_hint(self) -> str:
        return self._hint

    def __repr__(self) -> str:
        return f"MemoryFile(filename_hint={self._hint!r}, extension={self._ext!r}, {len(self._contents)} bytes)"


class InMemoryMesh:
    """A mesh file held in memory (pydrake.geometry.InMemoryMesh): its ``mesh_file`` (a MemoryFile)."""

    def __init__(self, mesh_file: MemoryFile):
        if not isinstance(mesh_file, MemoryFile):
            raise ValueError(f"InMemoryMesh needs a MemoryFile; given {type(mesh_file).__name__}")
        self._file = mesh_file

    def mesh_file(self) -> MemoryFile:
        return self._file


def _parse_memory_mesh(f: MemoryFile) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3), triangles (m, 3)) of an in-memory mesh: OBJ 'v' / 'f' records (polygons as fans),
    other formats through trimesh."""
    if f.extension() == ".obj":
        V, F = [], []
        for line in f.contents().decode(errors="replace").splitlines():
            tok = line.split()
            if not tok:
                continue
            if tok[0] == "v":
                V.append([float(x) for x in tok[1:4]])
            elif tok[0] == "f":
                idx = [int(t.split("/")[0]) for t in tok[1:]]
                idx = [i - 1 if i > 0 else len(V) + i for i in idx]
                F += [[idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1)]
        v, t = np.asarray(V, float).reshape(-1, 3), np.asarray(F, np.int64).reshape(-1, 3)
    else:
        import io
        import trimesh

        try:
            m = trimesh.load(io.BytesIO(f.contents()), file_type=f.extension()[1:], force="mesh", process=False)
        except Exception as exc:  # trimesh raises many types for corrupt data
            raise ValueError(f"Mesh: cannot read in-memory mesh '{f.filename_hint()}': {exc}") from None
        v, t = np.asarray(m.vertices, float), np.asarray(m.faces, np.int64)
    if len(v) == 0 or len(t) == 0 or t.min() < 0 or t.max() >= len(v) or not np.all(np.isfinite(v)):
        raise ValueError(f"Mesh: in-memory mesh '{f.filename_hint()}' has no valid triangles")
    return v, t


class _MeshShape(Shape):
    _memory = None  # (vertices, triangles) of an in-memory mesh (Mesh(InMemoryMesh)), else None

    def __init__(self, filename, scale: float = 1.0, scale3=None):
        if isinstance(filename, InMemoryMesh):
            f = filename.mesh_file()
            self._memory = _parse_memory_mesh(f)
            self._filename = f.filename_hint()
            self._scale = _scale3(scale, scale3, type(self).__name__)
            self._ext = f.extension()
            return
        from mallard.geometry.meshes import check_mesh_file

        self._filename = check_mesh_file(os.fspath(filename), type(self).__name__)
        self._scale = _scale3(scale, scale3, type(self).__name__)

    def filename(self) -> str:
        """The absolute path of the mesh file."""
        return self._filename

    def source(self) -> str:
        """The mesh source (its file path)."""
        return self._filename

    def extension(self) -> str:
        """The lower-case file extension, with the dot (e.g. '.obj')."""
        if self._memory is not None:
            return self._ext
        return os.path.splitext(self._filename)[1].lower()

    def is_in_memory(self) -> bool:
        """Whether the mesh data are held in memory rather than read from a file."""
        return self._memory is not None

    def scale(self) -> float:
        """The uniform scale; raises if the scale is not uniform (use scale3())."""
        if not np.all(self._scale == self._scale[0]):
            raise ValueError(f"{type(self).__name__}.scale(): the scale {self._scale.tolist()} is not "
                             "uniform; call scale3()")
        return float(self._scale[0])

    def scale3(self) -> np.ndarray:
        return self._scale.copy()

    def GetConvexHull(self):
        """The convex hull of the (scaled) mesh as a TriangleSurfaceMesh."""
        from mallard.geometry.meshes import convex_hull, TriangleSurfaceMesh

        v, _ = self._mesh_arrays()
        hv, hf = convex_hull(v, self._filename)
        return TriangleSurfaceMesh(hv, hf)

    def _mesh_arrays(self):
        """(vertices (n, 3), triangles (m, 3)) of the scaled mesh in frame G."""
        from mallard.geometry.meshes import load_mesh

        if self._memory is not None:
            return self._memory[0] * self._scale, self._memory[1].copy()
        return load_mesh(self._filename, tuple(self._scale))

    def _hull_arrays(self):
        """(vertices, triangles) of the convex hull of the scaled mesh in frame G."""
        from mallard.geometry.meshes import convex_hull

        v, _ = self._mesh_arrays()
        return convex_hull(v, self._filename)

    def _kernel_type(self) -> int:
        return MESH

    def _key(self):
        if self._memory is not None:
            return (self._filename, self._memory[0].tobytes(), self._memory[1].tobytes(), tuple(self._scale))
        return (self._filename, tuple(self._scale))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(filename={self._filename!r}, scale3={self._scale.tolist()})"


class Mesh(_MeshShape):
    """A triangle mesh read from a file (OBJ, STL, glTF/GLB, PLY ... whatever trimesh reads), or held in
    memory: ``Mesh(InMemoryMesh(MemoryFile(obj_text, ".obj", "name")), scale=1.0)`` (pydrake's form).

    As in Drake, proximity queries use its convex hull; ``scale`` (uniform) or ``scale3`` scale it.
    """


class Convex(_MeshShape):
    """The convex hull of the vertices of a mesh file (OBJ, STL, glTF/GLB, PLY ...), or of points in memory.

    ``Convex(filename, scale=1.0)`` / ``Convex(filename, scale3=...)`` read a file;
    ``Convex(points, label, scale=1.0)`` / ``Convex(points, label, scale3=...)`` (pydrake's in-memory form)
    take the points (3, n) [m] in the shape frame G directly, with ``label`` naming the shape in messages
    (``filename()`` and ``source()`` return the label for such a shape; it has no file).
    """

    def __init__(self, *args, **kwargs):
        if "points" in kwargs or (args and not isinstance(args[0], (str, bytes, os.PathLike, InMemoryMesh))):
            self._InitFromPoints(*args, **kwargs)
        else:
            super().__init__(*args, **kwargs)
            self._points = None

    def _InitFromPoints(self, points, label: str, scale: float = 1.0, scale3=None) -> None:
        label = str(label)
        if "\n" in label:
            raise ValueError(f"Convex: the label must be a single line; given {label!r}")
        P = np.asarray(points, dtype=float)
        if P.ndim != 2 or P.shape[0] != 3 or P.shape[1] < 4:
            raise ValueError(f"Convex '{label}': points must be a (3, n) array with n >= 4; given shape "
                             f"{P.shape}")
        if not np.all(np.isfinite(P)):
            raise ValueError(f"Convex '{label}': points must be finite")
        self._points = np.ascontiguousarray(P.T)
        self._points.setflags(write=False)
        self._filename = label
        self._scale = _scale3(scale, scale3, "Convex")

    def is_in_memory(self) -> bool:
        """Whether the shape was made from points or a mesh in memory rather than a mesh file."""
        return self._points is not None or self._memory is not None

    def extension(self) -> str:
        return ".obj" if self._points is not None else super().extension()

    def GetConvexHull(self):
        if self._points is None:
            return super().GetConvexHull()
        from mallard.geometry.meshes import TriangleSurfaceMesh
        return TriangleSurfaceMesh(*self._hull_arrays())

    def _mesh_arrays(self):
        if self._points is None:
            return super()._mesh_arrays()
        from mallard.geometry.meshes import convex_hull
        return convex_hull(self._points * self._scale, self._filename)

    def _key(self):
        if self._points is None:
            return super()._key()
        return (self._filename, self._points.tobytes(), tuple(self._scale))

    def __repr__(self) -> str:
        if self._points is None:
            return super().__repr__()
        return f"Convex(points=<{self._points.shape[0]} points>, label={self._filename!r}, " \
               f"scale3={self._scale.tolist()})"


def CalcHalfSpaceRotation(Hz_dir_F) -> np.ndarray:
    """R_FC (3x3) of a half space whose outward normal is ``Hz_dir_F`` (in F), as Drake's
    HalfSpace::MakePose and SDFormat plane reader choose it: Cz is the unit normal, Cx = Cz × e
    (normalized) where e is the coordinate axis most perpendicular to Cz (the first on ties),
    and Cy = Cz × Cx. Shared by `HalfSpace.MakePose` and the SDFormat reader."""
    z = np.asarray(Hz_dir_F, dtype=float).reshape(3)
    norm = float(np.linalg.norm(z))
    if not math.isfinite(norm) or norm < 1e-10:
        raise ValueError(f"a half space needs a finite non-zero normal; given {z.tolist()}")
    z = z / norm
    e = np.zeros(3)
    e[int(np.argmin(np.abs(z)))] = 1.0
    x = np.cross(z, e)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])
