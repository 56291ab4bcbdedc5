"""Hydroelastic pressure fields on tetrahedral meshes (Drake's VolumeMeshFieldLinear and make_*_field).

A compliant geometry's pressure is p = E·e(x), E the hydroelastic modulus [Pa] and e the extent: 0 on the surface,
1 deepest inside. Values are given at the mesh vertices and interpolated linearly in each tetrahedron, so each
tetrahedron has a constant gradient ∇p [Pa/m] and p(x) = p(Mo) + ∇p·x in the mesh frame M.

* sphere of radius R: e = 1 − |x|/R (vertices on the surface get exactly 0);
* ellipsoid of semi-axes (a, b, c): e = 1 − |diag(1/a, 1/b, 1/c)·x|;
* box of half sizes h: e = (distance to the nearest face) / min(h);
* cylinder of radius r, half length h: e = min(r − ρ, h − |z|) / min(r, h), 0 on the mesh boundary;
* capsule: 1 on the medial segment (vertices 0 and 1 of its mesh), 0 on the surface;
* a general volume mesh (Convex, Mesh): e = (distance to the boundary surface) / (its largest value).
"""
from __future__ import annotations

import numpy as np

from mallard.geometry.volume_mesh_tools import IdentifyBoundaryFaces

__all__ = ["SpherePressure", "EllipsoidPressure", "BoxPressure", "CylinderPressure", "CapsulePressure",
           "VolumeMeshPressure", "LinearFieldGradients"]

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


def CylinderPressure(V: np.ndarray, T: np.ndarray, radius: float, length: float,
                     hydroelastic_modulus: float) -> np.ndarray:
    """Vertex pressures [Pa] of a cylinder's field on its mesh (V, T) (Drake's MakeCylinderPressureField without
    margin): E times the depth below the nearest of the side and the caps over min(r, length/2), capped at E, and
    exactly 0 on the mesh's boundary vertices."""
    half = 0.5 * float(length)
    depth = np.minimum(float(radius) - np.hypot(V[:, 0], V[:, 1]), half - np.abs(V[:, 2]))
    p = np.minimum(hydroelastic_modulus * depth / min(float(radius), half), hydroelastic_modulus)
    p[_boundary_vertices(T)] = 0.0
    return p


def CapsulePressure(V: np.ndarray, hydroelastic_modulus: float) -> np.ndarray:
    """Vertex pressures [Pa] of a capsule's field on its mesh (Drake's MakeCapsulePressureField without margin):
    E at the medial segment's ends (vertices 0 and 1), 0 on every other (surface) vertex."""
    p = np.zeros(len(V))
    p[:2] = hydroelastic_modulus
    return p


def VolumeMeshPressure(V: np.ndarray, T: np.ndarray, hydroelastic_modulus: float, name: str) -> np.ndarray:
    """Vertex pressures [Pa] of a general tetrahedral mesh (Drake's MakeVolumeMeshPressureField without margin):
    0 on the boundary vertices, E·d/max(d) inside, d the distance to the nearest boundary triangle."""
    faces = _boundary_faces(T)
    boundary = np.unique(faces)
    inside = np.setdiff1d(np.arange(len(V)), boundary)
    d = np.array([_distance_to_triangles(V[v], V[faces]) for v in inside])
    if len(d) == 0 or not d.max() > 0:
        raise RuntimeError(f"MakeVolumeMeshPressureField(): the computed max distance to boundary among all mesh "
                           f"vertices is non-positive. Perhaps the mesh lacks interior vertices. (geometry '{name}')")
    p = np.zeros(len(V))
    p[inside] = hydroelastic_modulus * d / d.max()
    return p


def _boundary_faces(T: np.ndarray) -> np.ndarray:
    return np.asarray(IdentifyBoundaryFaces(np.asarray(T)), dtype=np.int64).reshape(-1, 3)


def _boundary_vertices(T: np.ndarray) -> np.ndarray:
    return np.unique(_boundary_faces(T))


def _distance_to_triangles(p: np.ndarray, P: np.ndarray) -> float:
    """Distance [m] from point p to the nearest of the triangles P (m, 3, 3) (closest point by Voronoi regions)."""
    a, b, c = P[:, 0], P[:, 1], P[:, 2]
    ab, ac, ap = b - a, c - a, p - a
    n = np.cross(ab, ac)
    nn = np.einsum("ij,ij->i", n, n)
    # barycentric coordinates of p's projection on each triangle's plane
    w1 = np.einsum("ij,ij->i", np.cross(ap, ac), n) / nn
    w2 = np.einsum("ij,ij->i", np.cross(ab, ap), n) / nn
    inside = (w1 >= 0) & (w2 >= 0) & (w1 + w2 <= 1)
    dplane = np.abs(np.einsum("ij,ij->i", ap, n)) / np.sqrt(nn)
    best = np.min(dplane[inside]) if inside.any() else np.inf
    for u, v in ((a, b), (b, c), (c, a)):  # the closest point on an edge
        e = v - u
        t = np.clip(np.einsum("ij,ij->i", p - u, e) / np.einsum("ij,ij->i", e, e), 0.0, 1.0)
        q = u + t[:, None] * e
        best = min(best, float(np.min(np.linalg.norm(p - q, axis=1))))
    return float(best)


def LinearFieldGradients(V: np.ndarray, T: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(∇p (m, 3), p at the frame origin (m,), degenerate) of the piecewise-linear field with vertex `values` on
    tetrahedra T over vertices V, with Drake's arithmetic (VolumeMesh::MaybeCalcGradientVectorOfLinearField):
    ∇p = Σᵢ pᵢ·∇bᵢ, ∇bᵢ = (AB×AC)/((AB×AC)·AV) for V = vᵢ, A, B, C = vᵢ₊₁, vᵢ₊₂, vᵢ₊₃. Its round-off (a gradient
    of a box's side region tilted by 1e-17 out of the contact plane) decides, as in Drake, which faces of a flat
    contact become discrete contact pairs. `degenerate` is true when some tetrahedron is flat (|(AB×AC)·AV| <=
    machine ε, Drake's test; its gradient is then set to 0)."""
    P = V[T]
    grad = np.zeros((T.shape[0], 3))
    flat = np.zeros(T.shape[0], bool)
    for i in range(4):
        pv, pa, pb, pc = P[:, i], P[:, (i + 1) % 4], P[:, (i + 2) % 4], P[:, (i + 3) % 4]
        av, ab, ac = pv - pa, pb - pa, pc - pa
        area = np.stack([ab[:, 1] * ac[:, 2] - ab[:, 2] * ac[:, 1], ab[:, 2] * ac[:, 0] - ab[:, 0] * ac[:, 2],
                         ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0]], axis=1)
        vol = (area[:, 0] * av[:, 0] + area[:, 1] * av[:, 1]) + area[:, 2] * av[:, 2]
        bad = np.abs(vol) <= np.finfo(float).eps
        flat |= bad
        grad += values[T[:, i]][:, None] * (area / np.where(bad, 1.0, vol)[:, None])
    grad[flat] = 0.0
    p0 = P[:, 0]
    e_Mo = values[T[:, 0]] - ((grad[:, 0] * p0[:, 0] + grad[:, 1] * p0[:, 1]) + grad[:, 2] * p0[:, 2])
    return grad, e_Mo, bool(flat.any())
