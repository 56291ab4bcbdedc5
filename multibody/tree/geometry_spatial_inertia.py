"""CalcSpatialInertia: the spatial inertia of a uniform-density shape or closed triangle mesh about its frame's
origin (pydrake.multibody.tree.CalcSpatialInertia).

The mass properties come from mallard.geometry.mass_properties (closed-form solids, divergence-theorem meshes).
"""
from __future__ import annotations

import math

import numpy as np

from mallard.geometry.mass_properties import CalcShapeMassProperties, MeshMassProperties
from mallard.multibody.math._validation import MathValueError

from .rotational_inertia import RotationalInertia
from .spatial_inertia import SpatialInertia

__all__ = ["CalcSpatialInertia"]


def _mesh_arrays(mesh) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3), triangles (m, 3)) of a TriangleSurfaceMesh (pydrake's API or mallard's)."""
    vertices = np.asarray([np.asarray(v, dtype=float).reshape(3) for v in mesh.vertices()], dtype=float)
    triangles = []
    for t in mesh.triangles():
        if hasattr(t, "vertex"):
            triangles.append([t.vertex(0), t.vertex(1), t.vertex(2)])
        else:
            triangles.append(list(np.asarray(t, dtype=int).reshape(3)))
    return vertices.reshape(-1, 3), np.asarray(triangles, dtype=np.int64).reshape(-1, 3)


def CalcSpatialInertia(shape=None, density: float | None = None, mesh=None) -> SpatialInertia:
    """M_GGo_G of a solid of `density` (kg/m³): a Shape, or the volume a closed, outward-wound triangle `mesh`
    (expressed in G) bounds. Called as CalcSpatialInertia(shape=..., density=...) or (mesh=..., density=...)."""
    if (shape is None) == (mesh is None):
        raise TypeError("CalcSpatialInertia: pass exactly one of shape=... or mesh=... (and density=...)")
    if density is None or not (math.isfinite(float(density)) and float(density) > 0):
        raise MathValueError(f"CalcSpatialInertia: density must be positive and finite, got {density!r}")
    if mesh is not None:
        compute = getattr(MeshMassProperties, "__wrapped__", MeshMassProperties)  # not through a cache: arrays
        props = compute(*_mesh_arrays(mesh), name="mesh")
    else:
        try:
            props = CalcShapeMassProperties(shape)
        except ValueError as exc:
            raise MathValueError(f"CalcSpatialInertia: {exc}") from None
    mass, I_GGcm_G = props.inertia(float(density))
    I = RotationalInertia(I_GGcm_G[0, 0], I_GGcm_G[1, 1], I_GGcm_G[2, 2], I_GGcm_G[0, 1], I_GGcm_G[0, 2],
                          I_GGcm_G[1, 2])
    return SpatialInertia.MakeFromCentralInertia(mass, props.p_GoGcm_G, I)
