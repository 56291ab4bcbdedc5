"""Mesh files read with trimesh (the formats mallard has no reader of its own for), and convex hulls."""
from __future__ import annotations

import functools
import os

import numpy as np

#: Extensions Mesh and Convex read: OBJ and VTK with mallard's readers, the others with trimesh.
READABLE_EXTENSIONS = (".obj", ".vtk", ".stl", ".gltf", ".glb", ".ply", ".off", ".dae", ".3mf")


def check_mesh_file(filename: str, who: str) -> str:
    """Return the absolute path of ``filename``; raise if it is missing or of an unreadable type."""
    path = os.path.abspath(os.path.expanduser(filename))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{who}: mesh file not found: {path}")
    ext = os.path.splitext(path)[1].lower()
    if ext not in READABLE_EXTENSIONS:
        raise ValueError(f"{who}: unsupported mesh file type '{ext}' for {path}; "
                         f"supported: {', '.join(READABLE_EXTENSIONS)}")
    return path


def trimesh_load(path: str, **kwargs):
    """trimesh.load of the file at ``path``, with the files it names (glTF buffers, textures) read relative to its
    folder as Drake reads them: wherever they lead, symlinks and ``../`` included (trimesh 5's default resolver
    rejects a sibling that is a symlink to elsewhere, as in Bazel runfiles or a package cache of links)."""
    import trimesh

    return trimesh.load(path, resolver=trimesh.resolvers.FilePathResolver(path, allow_anywhere=True), **kwargs)


@functools.lru_cache(maxsize=256)
def _read(path: str, mtime: float):
    try:
        loaded = trimesh_load(path, force="mesh", process=False)
    except Exception as exc:  # trimesh raises many types for corrupt files
        raise ValueError(f"could not read mesh file {path}: {type(exc).__name__}: {exc}") from exc
    v = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))), dtype=float)
    if path.lower().endswith((".gltf", ".glb")) and v.ndim == 2 and v.shape[1] == 3:
        # glTF is y-up; mallard (like Drake) is z-up: rotate +90° about x, (x, y, z) -> (x, -z, y).
        v = np.column_stack((v[:, 0], -v[:, 2], v[:, 1]))
    f = np.asarray(getattr(loaded, "faces", np.zeros((0, 3))), dtype=np.int64)
    if v.ndim != 2 or v.shape[0] < 4 or v.shape[1] != 3 or not np.all(np.isfinite(v)):
        raise ValueError(f"could not read mesh file {path}: it holds no usable 3D triangle mesh "
                         f"({v.shape[0] if v.ndim == 2 else 0} vertices; at least 4 are needed)")
    v.setflags(write=False)
    f.setflags(write=False)
    return v, f


def load_mesh(path: str, scale3=(1.0, 1.0, 1.0)):
    """(vertices (n, 3), triangles (m, 3)) of the mesh file at ``path``, scaled by ``scale3``."""
    path = check_mesh_file(path, "load_mesh")
    v, f = _read(path, os.path.getmtime(path))
    return v * np.asarray(scale3, dtype=float), f.copy()


def convex_hull(vertices: np.ndarray, name: str = "mesh"):
    """(vertices, triangles) of the convex hull of a point set (outward-wound triangles)."""
    from scipy.spatial import ConvexHull, QhullError

    pts = np.asarray(vertices, dtype=float)
    try:
        hull = ConvexHull(pts)
    except (QhullError, ValueError) as exc:
        raise ValueError(f"the convex hull of {name} is degenerate (its vertices are coplanar or too few): "
                         f"{str(exc).splitlines()[0]}") from exc
    used = np.unique(hull.simplices)
    remap = -np.ones(pts.shape[0], dtype=np.int64)
    remap[used] = np.arange(used.size)
    hv = pts[used]
    tris = remap[hull.simplices]
    # orient every triangle outward: its normal must point away from the hull's centroid
    c = hv.mean(axis=0)
    a, b, d = hv[tris[:, 0]], hv[tris[:, 1]], hv[tris[:, 2]]
    n = np.cross(b - a, d - a)
    flip = np.einsum("ij,ij->i", n, a - c) < 0
    tris[flip] = tris[flip][:, [0, 2, 1]]
    return hv, tris
