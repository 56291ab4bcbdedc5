"""Fitting bounding boxes to meshes and shapes (pydrake.geometry.ComputeAabbFor*, ComputeObbFor*, CalcObb).

The oriented box follows Drake's ObbMaker: principal axes of the vertices (largest spread along Bx), the tight
box in that orientation, then one gradient step in roll-pitch-yaw with a line search that only keeps a box of
smaller volume.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from mallard.geometry.bounding_box import Aabb, Obb
from mallard.geometry.polygon_mesh import PolygonSurfaceMesh
from mallard.geometry.shapes import Box, Capsule, Cylinder, Ellipsoid, HalfSpace, MeshcatCone, Shape, Sphere
from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.volume_mesh import VolumeMesh
from mallard.multibody.math import RigidTransform, RollPitchYaw, RotationMatrix

__all__ = ["CalcObb", "ComputeAabbForTriangleMesh", "ComputeAabbForVolumeMesh", "ComputeObbForTriangleMesh",
           "ComputeObbForVolumeMesh", "ObbFromPoints"]

_H = 5.0 * np.pi / 180.0  # Drake's 5-degree finite-difference step of the volume gradient


def _points(mesh_M, vertices: Iterable[int], who: str) -> np.ndarray:
    idx = sorted(int(v) for v in vertices)
    if not idx:
        raise ValueError(f"{who}: the vertex set is empty")
    V = mesh_M.vertex_array()
    if idx[0] < 0 or idx[-1] >= len(V):
        raise ValueError(f"{who}: vertex indices must lie in [0, {len(V)}); given [{idx[0]}, {idx[-1]}]")
    return V[idx]


def _rpy(r: float, p: float, y: float) -> np.ndarray:
    return RotationMatrix(RollPitchYaw(r, p, y)).matrix()


def _oriented_box(P: np.ndarray, R_MB: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(center p_MBo, half widths, unpadded volume) of the tightest box of orientation R_MB holding P."""
    p_F = P @ R_MB  # rows: R_MBᵀ p_MV
    lo, hi = p_F.min(axis=0), p_F.max(axis=0)
    half = (hi - lo) / 2.0
    return R_MB @ ((hi + lo) / 2.0), half, float(np.prod(2.0 * half))


def _orientation_by_pca(P: np.ndarray) -> np.ndarray:
    """R_MB whose Bx, By are the two principal directions of P of largest spread and Bz = Bx × By."""
    C = P - P.mean(axis=0)
    w, vecs = np.linalg.eigh(C.T @ C / len(P))  # ascending eigenvalues
    Bx, By = vecs[:, 2], vecs[:, 1]
    return np.column_stack((Bx, By, np.cross(Bx, By)))


def _volume(P: np.ndarray, R: np.ndarray) -> float:
    return _oriented_box(P, R)[2]


def ObbFromPoints(P: np.ndarray) -> Obb:
    """The oriented box of points P (n, 3) in frame M, fitted as Drake's ObbMaker does."""
    R0 = _orientation_by_pca(P)
    v0 = _volume(P, R0)
    best_R, best_v = R0, v0
    dV = np.array([(_volume(P, R0 @ _rpy(*(_H * e))) - v0) / _H for e in np.eye(3)])
    norm = float(np.linalg.norm(dV))
    if norm > 1e-9:
        increment = 0.1 * v0 / norm
        min_increment = increment / 1e6
        step = 0.0
        for _ in range(20):
            step -= increment
            R_try = R0 @ _rpy(*(step * dV))
            v_try = _volume(P, R_try)
            if v_try < best_v:
                improvement = (best_v - v_try) / best_v
                best_R, best_v = R_try, v_try
                if improvement < 0.001:
                    break
                increment *= 1.5
                continue
            step += increment  # back to the best step so far
            if increment <= min_increment:
                break
            increment /= 10.0
    center, half, _ = _oriented_box(P, best_R)  # best_R is R0 unless a box of smaller volume was found
    return Obb(RigidTransform(RotationMatrix(best_R), center), half)


def ComputeAabbForTriangleMesh(mesh_M: TriangleSurfaceMesh, vertices: set[int]) -> Aabb:
    """The axis-aligned box (in M) of the given vertices of a triangle mesh."""
    return _aabb(_points(mesh_M, vertices, "ComputeAabbForTriangleMesh"))


def ComputeAabbForVolumeMesh(mesh_M: VolumeMesh, vertices: set[int]) -> Aabb:
    """The axis-aligned box (in M) of the given vertices of a volume mesh."""
    return _aabb(_points(mesh_M, vertices, "ComputeAabbForVolumeMesh"))


def ComputeObbForTriangleMesh(mesh_M: TriangleSurfaceMesh, vertices: set[int]) -> Obb:
    """The oriented box (in M) of the given vertices of a triangle mesh."""
    return ObbFromPoints(_points(mesh_M, vertices, "ComputeObbForTriangleMesh"))


def ComputeObbForVolumeMesh(mesh_M: VolumeMesh, vertices: set[int]) -> Obb:
    """The oriented box (in M) of the given vertices of a volume mesh."""
    return ObbFromPoints(_points(mesh_M, vertices, "ComputeObbForVolumeMesh"))


def _aabb(P: np.ndarray) -> Aabb:
    lo, hi = P.min(axis=0), P.max(axis=0)
    center = (lo + hi) / 2
    return Aabb(center, hi - center)


def CalcObb(shape: Shape) -> Obb | None:
    """The oriented box of ``shape`` in its frame G: exact for primitives, fitted to the convex hull for Mesh
    and Convex, None for a HalfSpace (unbounded)."""
    I = RigidTransform()
    if isinstance(shape, HalfSpace):
        return None
    if isinstance(shape, Box):
        return Obb(I, shape.size() / 2)
    if isinstance(shape, Capsule):
        r, h = shape.radius(), shape.length() / 2.0
        return Obb(I, [r, r, h + r])
    if isinstance(shape, Cylinder):
        r = shape.radius()
        return Obb(I, [r, r, shape.length() / 2.0])
    if isinstance(shape, Ellipsoid):
        return Obb(I, [shape.a(), shape.b(), shape.c()])
    if isinstance(shape, MeshcatCone):
        h = shape.height() / 2.0
        return Obb(RigidTransform([0.0, 0.0, h]), [shape.a(), shape.b(), h])
    if isinstance(shape, Sphere):
        r = shape.radius()
        return Obb(I, [r, r, r])
    hull = getattr(shape, "GetConvexHull", None)
    if hull is None:
        raise TypeError(f"CalcObb: no bounding box for a {type(shape).__name__}")
    mesh: PolygonSurfaceMesh = hull()
    return ObbFromPoints(mesh.vertex_array())
