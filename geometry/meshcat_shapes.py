"""Convert mallard shapes to the three.js object descriptions the meshcat viewer loads.

Each function returns the lowered ``object`` of a meshcat ``set_object`` command (a dict ready for
msgpack). Shapes follow Drake's conventions (cylinders and capsules along Gz); three.js primitives
that differ (cylinders along y) get an intrinsic transform. Mesh files keep their own materials
where the viewer can show them (OBJ + MTL with textures; vertex colors of glTF/GLB/PLY read by
trimesh); otherwise they are drawn in the given Rgba.
"""
from __future__ import annotations

import base64
import os
import re

import numpy as np

from mallard.geometry.meshcat_server import import_meshcat
from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.meshes import trimesh_load
from mallard.geometry.rgba import Rgba
from mallard.geometry.shapes import (Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, HeightField, Mesh,
                                     MeshcatCone, MujocoPlane, Shape, Sphere)

SUPPORTED_SHAPES = ("Sphere", "Box", "Cylinder", "Capsule", "Ellipsoid", "HalfSpace", "MeshcatCone", "MujocoPlane",
                    "HeightField", "Mesh", "Convex", "TriangleSurfaceMesh")
_HALF_SPACE_EXTENT = 20.0  # m, the side of the square drawn for an unbounded half space
_IMAGE_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".bmp": "image/bmp",
               ".gif": "image/gif", ".tga": "image/x-tga"}


def rgba_to_hex(rgba: Rgba) -> int:
    """0xRRGGBB of an Rgba (alpha dropped)."""
    r, g, b = (int(round(255 * x)) for x in (rgba.r(), rgba.g(), rgba.b()))
    return (r << 16) | (g << 8) | b


def _material(rgba: Rgba, vertex_colors: bool = False):
    mg = import_meshcat().geometry

    return mg.MeshPhongMaterial(color=0xffffff if vertex_colors else rgba_to_hex(rgba), opacity=rgba.a(),
                                transparent=rgba.a() < 1.0, vertexColors=vertex_colors)


def _col_major(M: np.ndarray) -> list:
    """A 4x4 matrix as three.js wants it (column-major list)."""
    return [float(x) for x in np.asarray(M, dtype=float).T.reshape(-1)]


def _lowered(geometry, rgba: Rgba, intrinsic: np.ndarray | None = None, vertex_colors: bool = False) -> dict:
    mg = import_meshcat().geometry

    data = mg.Mesh(geometry, _material(rgba, vertex_colors)).lower()
    data["object"]["matrix"] = _col_major(np.eye(4) if intrinsic is None else intrinsic)
    for g in data["geometries"]:
        if g.get("type") == "_meshfile":  # the viewer's current name for mesh-file geometry
            g["type"] = "_meshfile_geometry"
    return data


def _triangles(vertices: np.ndarray, faces: np.ndarray, rgba: Rgba, colors: np.ndarray | None = None,
               intrinsic: np.ndarray | None = None, wireframe: bool = False, wireframe_line_width: float = 1.0,
               side: int = 2) -> dict:
    mg = import_meshcat().geometry

    geom = mg.TriangularMeshGeometry(np.asarray(vertices, np.float32), np.asarray(faces, np.uint32),
                                     color=None if colors is None else np.asarray(colors, np.float32))
    data = _lowered(geom, rgba, intrinsic, vertex_colors=colors is not None)
    material = data["materials"][0]
    material["wireframe"] = bool(wireframe)
    material["wireframeLinewidth"] = float(wireframe_line_width)
    material["side"] = int(side)  # three.js FrontSide 0, BackSide 1, DoubleSide 2
    return data


def triangle_mesh_object(vertices, faces, rgba: Rgba, wireframe: bool = False, wireframe_line_width: float = 1.0,
                         side: int = 2, colors=None) -> dict:
    """A triangle mesh from vertices (3xN, m) and faces (3xM vertex indices), as pydrake's SetTriangleMesh (and
    SetTriangleColorMesh when per-vertex ``colors`` (3xN, in [0, 1]) are given)."""
    V = np.asarray(vertices, dtype=float)
    F = np.asarray(faces)
    if V.ndim != 2 or V.shape[0] != 3 or not np.all(np.isfinite(V)):
        raise ValueError(f"Meshcat.SetTriangleMesh: vertices must be a finite 3xN array; given shape {V.shape}")
    if F.ndim != 2 or F.shape[0] != 3 or (F.size and (F.min() < 0 or F.max() >= V.shape[1])):
        raise ValueError(f"Meshcat.SetTriangleMesh: faces must be 3xM indices into the {V.shape[1]} vertices; "
                         f"given shape {F.shape}")
    C = None
    if colors is not None:
        C = np.asarray(colors, dtype=float)
        if C.shape != V.shape:
            raise ValueError(f"Meshcat.SetTriangleColorMesh: colors must be 3xN like the vertices {V.shape}; given "
                             f"{C.shape}")
        C = C.T
    return _triangles(V.T, F.T.astype(np.int64), rgba, C, wireframe=wireframe,
                      wireframe_line_width=wireframe_line_width, side=side)


def point_cloud_object(xyzs: np.ndarray, rgbs: np.ndarray | None, point_size: float, rgba: Rgba) -> dict:
    """Points at the columns of ``xyzs`` (3xN, m), colored per point by ``rgbs`` (3xN, 0..255) or by ``rgba``."""
    mg = import_meshcat().geometry

    P = np.asarray(xyzs, dtype=np.float32)
    if P.ndim != 2 or P.shape[0] != 3:
        raise ValueError(f"Meshcat.SetObject(cloud): the points must be 3xN; given shape {P.shape}")
    keep = np.all(np.isfinite(P), axis=0)  # as Drake, points that are not finite are not drawn
    colors = None if rgbs is None else (np.asarray(rgbs, dtype=np.float32)[:, keep] / 255.0)
    geom = mg.PointsGeometry(P[:, keep], color=colors)
    material = mg.PointsMaterial(size=float(point_size), color=rgba_to_hex(rgba))
    data = mg.Points(geom, material).lower()
    data["materials"][0]["vertexColors"] = colors is not None
    data["materials"][0]["opacity"] = rgba.a()
    data["materials"][0]["transparent"] = rgba.a() < 1.0
    return data


def _cone_arrays(height: float, a: float, b: float, n_around: int = 32):
    """An elliptic cone with its apex at the origin opening along +z to the base z = height."""
    th = np.linspace(0.0, 2 * np.pi, n_around, endpoint=False)
    ring = np.column_stack([a * np.cos(th), b * np.sin(th), np.full(n_around, height)])
    V = np.vstack([[0.0, 0.0, 0.0], ring, [0.0, 0.0, height]])
    F = [[0, 1 + (k + 1) % n_around, 1 + k] for k in range(n_around)]
    F += [[n_around + 1, 1 + k, 1 + (k + 1) % n_around] for k in range(n_around)]
    return V, np.array(F)


def _y_to_z() -> np.ndarray:
    """Rotation taking three.js's y axis (cylinder axis) to Drake's z axis: +90 deg about x."""
    M = np.eye(4)
    M[1:3, 1:3] = [[0.0, -1.0], [1.0, 0.0]]
    return M


def _capsule_arrays(radius: float, length: float, n_around: int = 32, n_cap: int = 8):
    """Vertices and triangles of a capsule along z: a cylinder of ``length`` capped by hemispheres."""
    rings = []  # (z, ring radius)
    for k in range(n_cap, -1, -1):  # bottom cap, pole to equator
        a = 0.5 * np.pi * k / n_cap
        rings.append((-0.5 * length - radius * np.sin(a), radius * np.cos(a)))
    for k in range(0, n_cap + 1):  # top cap, equator to pole
        a = 0.5 * np.pi * k / n_cap
        rings.append((0.5 * length + radius * np.sin(a), radius * np.cos(a)))
    th = np.linspace(0.0, 2 * np.pi, n_around, endpoint=False)
    V = np.array([[r * np.cos(t), r * np.sin(t), z] for z, r in rings for t in th])
    F = []
    for i in range(len(rings) - 1):
        for j in range(n_around):
            a, b = i * n_around + j, i * n_around + (j + 1) % n_around
            c, d = a + n_around, b + n_around
            F += [[a, b, d], [a, d, c]]
    return V, np.array(F)


def _heightfield_arrays(hf: HeightField):
    """Top surface of a height field as a triangulated grid over [-x, x] x [-y, y]."""
    h = hf.heights()
    x, y, z_top, _ = hf.size()
    nr, nc = h.shape
    X, Y = np.meshgrid(np.linspace(-x, x, nc), np.linspace(-y, y, nr))
    V = np.column_stack([X.ravel(), Y.ravel(), (h * z_top).ravel()])
    F = []
    for r in range(nr - 1):
        for c in range(nc - 1):
            a = r * nc + c
            F += [[a, a + 1, a + nc + 1], [a, a + nc + 1, a + nc]]
    return V, np.array(F)


def _obj_with_materials(path: str, scale: np.ndarray) -> dict | None:
    """A ``_meshfile_object`` for an OBJ whose MTL file exists (its textures inlined), else None."""
    import uuid

    with open(path, "r", errors="replace") as f:
        text = f.read()
    m = re.search(r"^\s*mtllib\s+(.+?)\s*$", text, re.MULTILINE)
    if m is None:
        return None
    folder = os.path.dirname(path)
    mtl_path = os.path.join(folder, m.group(1))
    if not os.path.isfile(mtl_path):
        return None
    with open(mtl_path, "r", errors="replace") as f:
        mtl = f.read()
    resources = {}
    for tex in re.findall(r"^\s*map_\w+\s+(?:-\S+\s+\S+\s+)*(\S+)\s*$", mtl, re.MULTILINE):
        tex_path = os.path.join(folder, tex)
        mime = _IMAGE_MIME.get(os.path.splitext(tex)[1].lower())
        if not (mime and os.path.isfile(tex_path)):
            return None  # a texture the browser could not load: draw the plain geometry instead
        with open(tex_path, "rb") as f:
            resources[tex] = f"data:{mime};base64," + base64.b64encode(f.read()).decode("ascii")
    uid = str(uuid.uuid1())
    return {"metadata": {"version": 4.5, "type": "_meshfile_object"}, "geometries": [], "materials": [],
            "object": {"uuid": uid, "type": "_meshfile_object", "format": "obj", "data": text,
                       "mtl_library": mtl, "resources": resources,
                       "matrix": _col_major(np.diag(np.append(scale, 1.0)))}}


def _mesh_file_object(shape: Mesh, rgba: Rgba, use_file_materials: bool) -> dict:
    mg = import_meshcat().geometry

    path = shape.filename()
    if not os.path.isfile(path):
        raise FileNotFoundError(f"Meshcat.SetObject: mesh file not found: {path}")
    ext = shape.extension()
    scale = np.diag(np.append(shape.scale3(), 1.0))
    if ext == ".obj":
        if use_file_materials:
            obj = _obj_with_materials(path, shape.scale3())
            if obj is not None:
                return obj
        with open(path, "r", errors="replace") as f:
            return _lowered(mg.MeshGeometry(f.read(), "obj"), rgba, scale)
    if ext == ".stl":
        return _lowered(mg.StlMeshGeometry.from_file(path), rgba, scale)
    if ext == ".dae":
        with open(path, "r", errors="replace") as f:
            return _lowered(mg.MeshGeometry(f.read(), "dae"), rgba, scale)
    # glTF/GLB, PLY, OFF, 3MF: read with trimesh; each part keeps its material's base color
    V, F, colors = _trimesh_parts(path, use_file_materials)
    if ext in (".gltf", ".glb"):
        scale = scale @ _y_to_z()  # glTF is y-up; Drake (and mallard) frames are z-up
    return _triangles(V, F, rgba, colors, scale)


def _trimesh_parts(path: str, use_file_materials: bool):
    """(vertices, triangles, per-vertex colors or None) of all parts of a mesh file read by trimesh."""
    import trimesh

    try:
        loaded = trimesh_load(path)
        parts = loaded.dump(concatenate=False) if isinstance(loaded, trimesh.Scene) else [loaded]
    except Exception as exc:  # trimesh raises many types for corrupt files
        raise ValueError(f"Meshcat.SetObject: could not read mesh file {path}: {type(exc).__name__}: {exc}") from exc
    parts = [m for m in parts if isinstance(m, trimesh.Trimesh) and len(m.faces)]
    if not parts:
        raise ValueError(f"Meshcat.SetObject: mesh file {path} holds no triangles")
    Vs, Fs, Cs, offset, any_color = [], [], [], 0, False
    for m in parts:
        Vs.append(np.asarray(m.vertices, dtype=float))
        Fs.append(np.asarray(m.faces, dtype=np.int64) + offset)
        offset += len(m.vertices)
        c = _part_color(m) if use_file_materials else None
        any_color |= c is not None
        Cs.append(np.tile(c if c is not None else np.full(3, np.nan), (len(m.vertices), 1)))
    colors = None
    if any_color:
        colors = np.vstack(Cs)
        colors[np.isnan(colors)] = 0.9  # parts without a material: light gray
    return np.vstack(Vs), np.vstack(Fs), colors


def _part_color(mesh) -> np.ndarray | None:
    """The RGB (in [0, 1]) of a trimesh part's material or uniform color, or None if it has none."""
    visual = mesh.visual
    material = getattr(visual, "material", None)
    if material is not None:
        main = getattr(material, "main_color", None)
        if main is not None:
            return np.asarray(main[:3], dtype=float) / 255.0
    if getattr(visual, "kind", None) in ("vertex", "face"):
        vc = np.asarray(visual.vertex_colors, dtype=float)
        if vc.ndim == 2 and len(vc):
            return vc[:, :3].mean(axis=0) / 255.0
    return None


def shape_to_object(shape: Shape, rgba: Rgba, use_file_materials: bool = True) -> dict:
    """The lowered three.js object for ``shape`` drawn in ``rgba`` (in the shape's frame G)."""
    mg = import_meshcat().geometry

    if not isinstance(rgba, Rgba):
        raise ValueError(f"Meshcat.SetObject: rgba must be an Rgba; given {type(rgba).__name__}")
    if isinstance(shape, Sphere):
        return _lowered(mg.Sphere(shape.radius()), rgba)
    if isinstance(shape, Box):
        return _lowered(mg.Box(shape.size().tolist()), rgba)
    if isinstance(shape, Cylinder):
        return _lowered(mg.Cylinder(shape.length(), shape.radius()), rgba, _y_to_z())
    if isinstance(shape, Capsule):
        V, F = _capsule_arrays(shape.radius(), shape.length())
        return _triangles(V, F, rgba)
    if isinstance(shape, Ellipsoid):
        return _lowered(mg.Sphere(1.0), rgba, np.diag([shape.a(), shape.b(), shape.c(), 1.0]))
    if isinstance(shape, HalfSpace):
        sx = sy = _HALF_SPACE_EXTENT
        if isinstance(shape, MujocoPlane):
            s = shape.size()
            sx = 2 * s[0] if s[0] > 0 else sx
            sy = 2 * s[1] if s[1] > 0 else sy
        thickness = 1e-3
        M = np.eye(4)
        M[2, 3] = -0.5 * thickness  # top face on the boundary plane z = 0
        return _lowered(mg.Box([sx, sy, thickness]), rgba, M)
    if isinstance(shape, HeightField):
        V, F = _heightfield_arrays(shape)
        return _triangles(V, F, rgba)
    if isinstance(shape, MeshcatCone):
        V, F = _cone_arrays(shape.height(), shape.a(), shape.b())
        return _triangles(V, F, rgba)
    if isinstance(shape, Convex):
        if not shape.is_in_memory() and not os.path.isfile(shape.filename()):
            raise FileNotFoundError(f"Meshcat.SetObject: mesh file not found: {shape.filename()}")
        V, F = shape._hull_arrays()
        return _triangles(V, F, rgba)
    if isinstance(shape, Mesh):
        if shape.is_in_memory() or shape.extension() == ".vtk":  # e.g. an MJCF mesh asset, a tetrahedral mesh
            V, F = shape._mesh_arrays()
            return _triangles(V, F, rgba)
        return _mesh_file_object(shape, rgba, use_file_materials)
    if isinstance(shape, TriangleSurfaceMesh):
        return _triangles(shape.vertex_array(), shape.element_array(), rgba)
    raise ValueError(f"Meshcat.SetObject: cannot draw a {type(shape).__name__}; supported shapes: "
                     f"{', '.join(SUPPORTED_SHAPES)}")


def line_object(vertices: np.ndarray, rgba: Rgba, line_width: float, segments: bool) -> dict:
    """A three.js Line (a polyline through the columns of ``vertices``, 3xN) or LineSegments (pairs)."""
    mg = import_meshcat().geometry

    V = np.asarray(vertices, dtype=float)
    if V.ndim != 2 or V.shape[0] != 3 or V.shape[1] < 2 or not np.all(np.isfinite(V)):
        raise ValueError(f"Meshcat.SetLine: vertices must be a finite 3xN array with N >= 2; given shape {V.shape}")
    material = mg.LineBasicMaterial(color=rgba_to_hex(rgba), linewidth=float(line_width), opacity=rgba.a(),
                                    transparent=rgba.a() < 1.0)
    geom = mg.PointsGeometry(V.astype(np.float32))
    obj = (mg.LineSegments if segments else mg.Line)(geom, material)
    data = obj.lower()
    data["object"]["matrix"] = _col_major(np.eye(4))
    return data
