"""Mass properties of shapes for parsers: volume, center of mass, and inertia per unit mass.

Primitives follow MuJoCo's formulas (identical to Drake's for solids); meshes use the exact
divergence-theorem integrals over the closed triangle surface (MuJoCo's ``inertia="exact"``), or
over the convex hull for Convex shapes and for MuJoCo's ``inertia="convex"``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mallard.geometry import shapes as S


@dataclass(frozen=True)
class ShapeMassProperties:
    """Volume (m^3), center of mass p_GoGcm_G (m) and unit inertia G_GGcm_G (m^2, inertia per unit
    mass about Gcm, expressed in G) of a uniform-density solid shape."""

    volume: float
    p_GoGcm_G: np.ndarray
    G_GGcm_G: np.ndarray

    def inertia(self, density: float) -> tuple[float, np.ndarray]:
        """(mass kg, rotational inertia I_GGcm_G kg m^2) for a density in kg/m^3."""
        if not (math.isfinite(density) and density > 0):
            raise ValueError(f"density must be finite and > 0; given {density!r}")
        m = density * self.volume
        return m, m * self.G_GGcm_G


def CalcVolume(shape: S.Shape) -> float:
    """The volume of ``shape`` in m^3 (raises ValueError for unbounded shapes)."""
    return CalcShapeMassProperties(shape).volume


def CalcShapeMassProperties(shape: S.Shape) -> ShapeMassProperties:
    """Mass properties of a solid ``shape`` of uniform density."""
    z = np.zeros(3)
    if isinstance(shape, S.Sphere):
        r = shape.radius()
        return ShapeMassProperties(4.0 / 3.0 * math.pi * r ** 3, z, np.eye(3) * (0.4 * r * r))
    if isinstance(shape, S.Box):
        a, b, c = 0.5 * shape.size()
        return ShapeMassProperties(8.0 * a * b * c, z, np.diag([(b * b + c * c) / 3.0, (a * a + c * c) / 3.0,
                                                               (a * a + b * b) / 3.0]))
    if isinstance(shape, S.Ellipsoid):
        a, b, c = shape.a(), shape.b(), shape.c()
        return ShapeMassProperties(4.0 / 3.0 * math.pi * a * b * c, z,
                                   np.diag([(b * b + c * c) / 5.0, (a * a + c * c) / 5.0, (a * a + b * b) / 5.0]))
    if isinstance(shape, S.Cylinder):
        r, h = shape.radius(), shape.length()
        ixx = (3.0 * r * r + h * h) / 12.0
        return ShapeMassProperties(math.pi * r * r * h, z, np.diag([ixx, ixx, 0.5 * r * r]))
    if isinstance(shape, S.Capsule):
        r, h = shape.radius(), shape.length()
        vol = math.pi * (r * r * h + 4.0 / 3.0 * r ** 3)
        ms = 4.0 * r / (4.0 * r + 3.0 * h)  # hemispheres' mass fraction
        mc = 1.0 - ms
        ixx = mc * (3 * r * r + h * h) / 12.0 + 0.4 * ms * r * r + ms * h * (3 * r + 2 * h) / 8.0
        izz = mc * r * r / 2.0 + 0.4 * ms * r * r
        return ShapeMassProperties(vol, z, np.diag([ixx, ixx, izz]))
    if isinstance(shape, S.Convex):
        return MeshMassProperties(*shape._hull_arrays(), name=shape.filename())
    if isinstance(shape, S.Mesh):
        return MeshMassProperties(*shape._mesh_arrays(), name=shape.filename())
    if isinstance(shape, S.HeightField):
        x, y, zt, zb = shape.size()
        return ShapeMassProperties(8.0 * x * y * 0.5 * (zt + zb), np.array([0.0, 0.0, 0.5 * (zt - zb)]),
                                   np.diag([(y * y + (0.5 * (zt + zb)) ** 2) / 3.0,
                                            (x * x + (0.5 * (zt + zb)) ** 2) / 3.0, (x * x + y * y) / 3.0]))
    raise ValueError(f"{shape!r} is unbounded: it has no volume or inertia")


def MeshMassProperties(vertices, triangles, name: str = "mesh") -> ShapeMassProperties:
    """Exact mass properties of the solid bounded by a closed, outward-wound triangle mesh.

    Sums signed tetrahedra (origin, a, b, c); a mesh wound inward gives a negative volume and is
    flipped; a non-closed or degenerate mesh with ~zero volume raises ValueError.
    """
    v = np.asarray(vertices, dtype=float)
    t = np.asarray(triangles, dtype=np.int64)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    det = np.einsum("ij,ij->i", a, np.cross(b, c))  # 6 x signed tetra volume
    vol = det.sum() / 6.0
    scale = max(float(np.ptp(v, axis=0).max()), 1e-300)
    if not abs(vol) > 1e-12 * scale ** 3:
        raise ValueError(f"{name}: the mesh encloses no volume (is it open or flat?); cannot compute its inertia")
    com = (det[:, None] * (a + b + c)).sum(axis=0) / (24.0 * vol)
    # second moments  integral x_i x_j dV over each tetra = det/120 * (sum_k p_k p_k^T + (sum p)(sum p)^T)
    s = a + b + c
    C = (np.einsum("n,ni,nj->ij", det, a, a) + np.einsum("n,ni,nj->ij", det, b, b)
         + np.einsum("n,ni,nj->ij", det, c, c) + np.einsum("n,ni,nj->ij", det, s, s)) / 120.0
    C = C / vol - np.outer(com, com)  # covariance per unit mass about the COM
    G = np.trace(C) * np.eye(3) - C
    return ShapeMassProperties(abs(vol), com, 0.5 * (G + G.T))


def MujocoEquivalentInertiaBox(props: ShapeMassProperties) -> np.ndarray:
    """Half sizes of MuJoCo's equivalent inertia box (the box with the same principal unit inertias),
    used by MJCF mesh fitting and by MuJoCo's mesh-geom bounding. Returns 3 half sizes in the
    principal frame, sorted as the eigenvalues of G_GGcm_G (ascending)."""
    w = np.linalg.eigvalsh(props.G_GGcm_G)
    # box: Ixx = (b^2 + c^2)/3 ... -> a^2 = 3/2 (Iyy + Izz - Ixx)
    sq = 1.5 * np.array([w[1] + w[2] - w[0], w[0] + w[2] - w[1], w[0] + w[1] - w[2]])
    return np.sqrt(np.maximum(sq, 0.0))
