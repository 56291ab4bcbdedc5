"""Convex hulls of mesh data as PolygonSurfaceMesh (what Mesh.GetConvexHull() and Convex.GetConvexHull()
return, as in Drake): the hull's triangles merged into planar convex polygons wound outward."""
from __future__ import annotations

import numpy as np

from mallard.geometry.mesh_data import MeshDataError, read_mesh_source
from mallard.geometry.mesh_source import MeshSource
from mallard.geometry.meshes import READABLE_EXTENSIONS, convex_hull
from mallard.geometry.polygon_mesh import PolygonSurfaceMesh

__all__ = ["MakeConvexHull", "_MakeConvexHull", "hull_polygons"]

_COPLANAR = 1e-10  # relative tolerance on normals and plane offsets for merging hull triangles


def hull_polygons(V: np.ndarray, tris: np.ndarray) -> list[list[int]]:
    """Merge the outward-wound triangles of a convex hull into its planar faces; each face's vertices are
    listed counter-clockwise about its outward normal."""
    a, b, c = V[tris[:, 0]], V[tris[:, 1]], V[tris[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    d = np.einsum("ij,ij->i", n, a)
    scale = max(float(np.abs(V).max()), 1e-12)
    parent = list(range(len(tris)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    edge_owner: dict[tuple[int, int], int] = {}
    for t, tri in enumerate(tris):
        for k in range(3):
            e = (int(min(tri[k], tri[(k + 1) % 3])), int(max(tri[k], tri[(k + 1) % 3])))
            other = edge_owner.pop(e, None)
            if other is None:
                edge_owner[e] = t
            elif n[t] @ n[other] > 1.0 - _COPLANAR and abs(d[t] - d[other]) <= _COPLANAR * scale:
                parent[find(t)] = find(other)
    groups: dict[int, list[int]] = {}
    for t in range(len(tris)):
        groups.setdefault(find(t), []).append(t)
    polygons = []
    for root in sorted(groups):
        members = groups[root]
        idx = np.unique(tris[members].reshape(-1))
        normal = n[members].sum(axis=0)
        normal /= np.linalg.norm(normal)
        P = V[idx]
        center = P.mean(axis=0)
        u = P[0] - center if np.linalg.norm(P[0] - center) > 0 else np.cross(normal, [1.0, 0.0, 0.0])
        u /= np.linalg.norm(u)
        w = np.cross(normal, u)
        angle = np.arctan2((P - center) @ w, (P - center) @ u)
        polygons.append([int(i) for i in idx[np.argsort(angle)]])
    return polygons


def MakeConvexHull(source: MeshSource, scale3=(1.0, 1.0, 1.0)) -> PolygonSurfaceMesh:
    """The convex hull of the mesh data of ``source`` scaled by ``scale3``; ValueError for data with no
    volume (all points coplanar), a file of an unsupported type, or a file that cannot be read."""
    ext = source.extension()
    if ext not in READABLE_EXTENSIONS:
        raise RuntimeError(f"MakeConvexHull only applies to .obj, .vtk, and .gltf meshes (and, in mallard, "
                           f"{', '.join(e for e in READABLE_EXTENSIONS if e not in ('.obj', '.vtk', '.gltf'))}); "
                           f"unsupported extension '{ext}' for geometry data: {source.description()}.")
    V, _ = read_mesh_source(source, "MakeConvexHull")
    if len(V) < 3:
        raise MeshDataError(f"MakeConvexHull() cannot be used on a mesh with fewer than three vertices; found "
                            f"{len(V)} vertices in geometry data: {source.description()}.")
    V = V * np.asarray(scale3, dtype=float)
    try:
        hv, tris = convex_hull(V, source.description())
    except ValueError:
        return _planar_hull(V, source.description())
    polys = hull_polygons(hv, tris)
    face_data = [x for p in polys for x in [len(p), *p]]
    return PolygonSurfaceMesh(face_data=face_data, vertices=hv)


def _planar_hull(V: np.ndarray, name: str) -> PolygonSurfaceMesh:
    """The hull of coplanar points, as Drake builds it: the 2D hull polygon, once with each winding."""
    from scipy.spatial import ConvexHull, QhullError

    center = V.mean(axis=0)
    _, s, vt = np.linalg.svd(V - center)
    if s[0] <= 1e-12:
        raise MeshDataError(f"MakeConvexHull failed because all vertices in the mesh were within a sphere with "
                            f"radius 1e-12 for geometry: {name}.")
    if s[1] <= 1e-12 * s[0]:
        raise MeshDataError(f"MakeConvexHull failed because all vertices in the mesh appear to be co-linear for "
                            f"file: {name}.")
    uv = (V - center) @ vt[:2].T
    try:
        ring = ConvexHull(uv).vertices  # counter-clockwise about vt[2]
    except QhullError as exc:
        raise MeshDataError(f"MakeConvexHull failed for {name}: {str(exc).splitlines()[0]}") from None
    hv = V[ring]
    k = len(ring)
    face_data = [k, *range(k), k, *reversed(range(k))]
    return PolygonSurfaceMesh(face_data=face_data, vertices=hv)


def _MakeConvexHull(shape) -> PolygonSurfaceMesh:
    """pydrake.geometry._MakeConvexHull: the convex hull of a Mesh or Convex shape, in its frame G."""
    if not (hasattr(shape, "source") and hasattr(shape, "scale3")):
        raise TypeError(f"_MakeConvexHull needs a Mesh or Convex; given {type(shape).__name__}")
    return MakeConvexHull(shape.source(), shape.scale3())
