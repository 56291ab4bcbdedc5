"""Hydroelastic pressure fields on tetrahedral meshes (Drake's VolumeMeshFieldLinear and make_*_field).

A compliant geometry's pressure is p = E·e(x), E the hydroelastic modulus [Pa] and e the extent: 0 on the surface,
1 deepest inside. Values are given at the mesh vertices and interpolated linearly in each tetrahedron, so each
tetrahedron has a constant gradient ∇p [Pa/m] and p(x) = p(Mo) + ∇p·x in the mesh frame M.

* sphere of radius R: e = 1 − |x|/R (vertices on the surface get exactly 0);
* ellipsoid of semi-axes (a, b, c): e = 1 − |diag(1/a, 1/b, 1/c)·x|;
* box of half sizes h: e = (distance to the nearest face) / min(h).
"""
from __future__ import annotations

import numpy as np

__all__ = ["SpherePressure", "EllipsoidPressure", "BoxPressure", "LinearFieldGradients"]

_EXTENT_EPSILON = 1e-14


def SpherePressure(V: np.ndarray, radius: float, hydroelastic_modulus: float) -> np.ndarray:
    """Vertex pressures [Pa] of a sphere's field (Drake's MakeSpherePressureField without margin)."""
    distance = radius - np.linalg.norm(V, axis=1)
    extent = distance / radius
    extent[np.abs(distance / radius) < _EXTENT_EPSILON] = 0.0
    return hydroelastic_modulus * extent


def EllipsoidPressure(V: np.ndarray, abc, hydroelastic_modulus: float) -> np.ndarray:
    """Vertex pressures [Pa] of an ellipsoid's field (Drake's MakeEllipsoidPressureField without margin)."""
    extent = 1.0 - np.linalg.norm(V / np.asarray(abc, dtype=float), axis=1)
    extent[np.abs(extent) < _EXTENT_EPSILON] = 0.0
    return hydroelastic_modulus * extent


def BoxPressure(V: np.ndarray, size, hydroelastic_modulus: float) -> np.ndarray:
    """Vertex pressures [Pa] of a box's field (Drake's MakeBoxPressureField without margin): E times the distance
    to the nearest face over the smallest half size."""
    half = 0.5 * np.asarray(size, dtype=float)
    depth = np.min(half[None, :] - np.abs(V), axis=1)
    return hydroelastic_modulus * np.maximum(depth, 0.0) / float(half.min())


def LinearFieldGradients(V: np.ndarray, T: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(∇p (m, 3), p at the frame origin (m,), degenerate) of the piecewise-linear field with vertex `values` on
    tetrahedra T over vertices V: ∇p solves [v1−v0; v2−v0; v3−v0]·∇p = [p1−p0, p2−p0, p3−p0] per tetrahedron.
    `degenerate` is true when some tetrahedron is flat (its gradient is then set to 0)."""
    P = V[T]
    A = P[:, 1:] - P[:, :1]                       # (m, 3, 3) edge vectors as rows
    b = values[T[:, 1:]] - values[T[:, :1]]       # (m, 3)
    det = np.linalg.det(A)
    scale = np.max(np.abs(A), axis=(1, 2)) ** 3
    flat = np.abs(det) <= 1e-14 * np.maximum(scale, 1e-300)
    grad = np.zeros((T.shape[0], 3))
    ok = ~flat
    if ok.any():
        grad[ok] = np.linalg.solve(A[ok], b[ok][..., None])[..., 0]
    e_Mo = values[T[:, 0]] - np.einsum("ij,ij->i", grad, P[:, 0])
    return grad, e_Mo, bool(flat.any())
