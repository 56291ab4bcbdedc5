"""Shapes (pydrake.geometry): Sphere, Box, Cylinder, Capsule, Ellipsoid, HalfSpace, MeshcatCone (Mesh and
Convex are in mesh_shapes.py), plus MuJoCo's plane (MujocoPlane) and height field (HeightField).

A shape is pure geometry in its own frame G; SceneGraph places it with a pose X_FG. Each shape
also knows its collision-kernel type code and MuJoCo-style size vector (half extents), so the
collision engine can work over flat arrays.
"""
from __future__ import annotations

import copy
import math
from typing import Sequence

import numpy as np

from mallard.common.overloads import Overload, declares

# Collision-kernel type codes; the order follows MuJoCo's mjtGeom so pair tables read the same.
PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = range(8)
TYPE_NAMES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh")


def fmt_double(x: float) -> str:
    """A float as Drake's fmt prints it: the shortest round-trip form, without a trailing '.0'."""
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


def _measures(cls: str, args: tuple, kwargs: dict, names: tuple[str, ...], defaults: tuple = ()) -> list[float]:
    """The dimensions of a primitive given by name (``names``, trailing ones may have ``defaults``) or as one
    ``measures`` vector, as pydrake's two constructor overloads."""
    if "measures" in kwargs or (len(args) == 1 and not kwargs and np.ndim(args[0]) == 1):
        if len(args) + len(kwargs) != 1:
            raise TypeError(f"{cls}(measures): pass the {len(names)} dimensions as one vector only")
        m = np.asarray(kwargs.get("measures", args[0] if args else None), dtype=float).reshape(-1)
        if m.size != len(names):
            raise ValueError(f"{cls}(measures) needs {len(names)} values ({', '.join(names)}); given {m.size}")
        return [float(v) for v in m]
    if len(args) > len(names) or any(k not in names for k in kwargs):
        raise TypeError(f"{cls}() takes ({', '.join(names)}) or (measures); given {len(args)} positional and "
                        f"{sorted(kwargs)} keyword arguments")
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in values:
            raise TypeError(f"{cls}() got multiple values for '{k}'")
        values[k] = v
    full = dict(zip(names[len(names) - len(defaults):], defaults))
    full.update(values)
    missing = [n for n in names if n not in full]
    if missing:
        raise TypeError(f"{cls}() missing {', '.join(missing)}")
    return [full[n] for n in names]


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
    """A sphere of the given radius (m) centered at Go; radius 0 is a point, as Drake allows."""

    def __init__(self, radius: float):
        if not (isinstance(radius, (int, float, np.floating, np.integer)) and math.isfinite(radius) and radius >= 0):
            raise ValueError(f"Sphere radius must be finite and >= 0; given radius={radius!r}")
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
        return f"Sphere(radius={fmt_double(self._r)})"

    def __getstate__(self):
        return self._r

    def __setstate__(self, state) -> None:
        self._r = float(state)


class Box(Shape):
    """An axis-aligned box centered at Go with full edge lengths width (x), depth (y), height (z), m."""

    def __init__(self, *args, **kwargs):
        """Box(width, depth, height) or Box(measures) with measures = [width, depth, height]."""
        width, depth, height = _measures("Box", args, kwargs, ("width", "depth", "height"))
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
        w, d, h = (fmt_double(x) for x in self._size)
        return f"Box(width={w}, depth={d}, height={h})"

    def __getstate__(self):
        return tuple(float(x) for x in self._size)

    def __setstate__(self, state) -> None:
        self._size = np.array(state, dtype=float)


class _RadiusLengthShape(Shape):
    """A shape of revolution about Gz, centered at Go, given by a radius and a length (m)."""
    _code = -1

    def __init__(self, *args, **kwargs):
        """(radius, length) or (measures) with measures = [radius, length]."""
        radius, length = _measures(type(self).__name__, args, kwargs, ("radius", "length"))
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
        return f"{type(self).__name__}(radius={fmt_double(self._r)}, length={fmt_double(self._l)})"

    def __getstate__(self):
        return (self._r, self._l)

    def __setstate__(self, state) -> None:
        self._r, self._l = (float(x) for x in state)


class Cylinder(_RadiusLengthShape):
    """A cylinder along Gz, centered at Go: radius and full length (m)."""
    _code = CYLINDER


class Capsule(_RadiusLengthShape):
    """A capsule along Gz centered at Go: radius and length of the cylindrical part (m)."""
    _code = CAPSULE


class Ellipsoid(Shape):
    """An ellipsoid centered at Go with semi-axes a, b, c (m) along Gx, Gy, Gz."""

    def __init__(self, *args, **kwargs):
        """Ellipsoid(a, b, c) or Ellipsoid(measures) with measures = [a, b, c]."""
        a, b, c = _measures("Ellipsoid", args, kwargs, ("a", "b", "c"))
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
        a, b, c = (fmt_double(x) for x in self._abc)
        return f"Ellipsoid(a={a}, b={b}, c={c})"

    def __getstate__(self):
        return tuple(float(x) for x in self._abc)

    def __setstate__(self, state) -> None:
        self._abc = np.array(state, dtype=float)


class MeshcatCone(Shape):
    """A cone for drawing in Meshcat (pydrake.geometry.MeshcatCone): apex at Go, opening along +Gz to an
    elliptical base of semi-axes a (x) and b (y) at z = height [m]. It has no collision representation."""

    def __init__(self, *args, **kwargs):
        """MeshcatCone(height, a=1.0, b=1.0) or MeshcatCone(measures) with measures = [height, a, b]."""
        height, a, b = _measures("MeshcatCone", args, kwargs, ("height", "a", "b"), (1.0, 1.0))
        _positive("MeshcatCone", height=height, a=a, b=b)
        self._hab = np.array([height, a, b], dtype=float)

    def height(self) -> float:
        return float(self._hab[0])

    def a(self) -> float:
        return float(self._hab[1])

    def b(self) -> float:
        return float(self._hab[2])

    def _key(self):
        return tuple(self._hab)

    def __repr__(self) -> str:
        h, a, b = (fmt_double(x) for x in self._hab)
        return f"MeshcatCone(height={h}, a={a}, b={b})"

    def __getstate__(self):
        return tuple(float(x) for x in self._hab)

    def __setstate__(self, state) -> None:
        self._hab = np.array(state, dtype=float)


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


# The primitives' two constructor forms, as pydrake lists them (read by tools through __overloads__).
def _forms(*names: str, defaults: tuple = ()) -> tuple:
    optional = dict(zip(names[len(names) - len(defaults):], defaults))
    return (Overload(*[(n, None, optional[n]) if n in optional else (n, None) for n in names]),
            Overload(("measures", None)))


for _shape, _names, _defaults in ((Box, ("width", "depth", "height"), ()), (Cylinder, ("radius", "length"), ()),
                                  (Capsule, ("radius", "length"), ()), (Ellipsoid, ("a", "b", "c"), ()),
                                  (MeshcatCone, ("height", "a", "b"), (1.0, 1.0))):
    declares(_forms(*_names, defaults=_defaults))(_shape.__init__)


# Mesh and Convex live in mesh_shapes.py (they need the mesh readers); importable from here as before.
from mallard.geometry.mesh_shapes import Convex, InMemoryMesh, MemoryFile, Mesh  # noqa: E402,F401
