"""SignedDistanceField: a shape given by an engine plugin's signed distance (MuJoCo's geom type="sdf").

The shape holds the collision description (`mallard.geometry.collision.sdf.SdfShape`: a compiled
kernel or the plugin's distance/gradient callbacks, with its bounding box in the shape frame G),
MuJoCo's SDF collision options (`sdf_initpoints`, `sdf_iterations`) and a triangle surface mesh
(the plugin mesh, marching-cubes extracted) that visualizers draw; planes collide with the convex
hull of that mesh, as in MuJoCo. Collisions against it run with the SDF as the second shape
(MuJoCo's pair order), see collision/sdf_pairs.py.
"""
from __future__ import annotations

import numpy as np

from mallard.geometry.collision.sdf_collide import SdfShape
from mallard.geometry.collision.sdf_mesh import sdf_surface_mesh
from mallard.geometry.collision.sdf_pairs import hull_rbound
from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.shapes import Shape

__all__ = ["SDF", "SignedDistanceField"]

SDF = 8  #: collision-kernel type code (MuJoCo's mjGEOM_SDF, after mesh)


class SignedDistanceField(Shape, TriangleSurfaceMesh):
    """An implicit shape in frame G: `sdf` (SdfShape) for collision, a triangle mesh for drawing.

    `initpoints` / `iterations` are the gradient-descent settings of its collisions (MJCF option
    sdf_initpoints / sdf_iterations); `vertices` (n, 3) / `triangles` (m, 3) its surface in G [m]
    (extracted from the distance over the bounding box when not given).
    """

    def __init__(self, sdf: SdfShape, initpoints: int = 40, iterations: int = 10, vertices=None, triangles=None,
                 name: str = ""):
        if not isinstance(sdf, SdfShape):
            raise ValueError(f"SignedDistanceField needs an SdfShape, got {type(sdf).__name__}")
        aabb = np.asarray(sdf.aabb, float)
        if aabb.shape != (6,) or not np.all(np.isfinite(aabb)) or np.any(aabb[3:] <= 0):
            raise ValueError(f"SignedDistanceField '{name}': bounding box must be (center xyz, half-size xyz) with "
                             f"finite positive half-sizes, got {aabb.tolist()}")
        if int(initpoints) < 1 or int(iterations) < 0:
            raise ValueError(f"SignedDistanceField '{name}': initpoints ({initpoints}) must be >= 1 and iterations "
                             f"({iterations}) >= 0")
        if vertices is None or triangles is None:
            vertices, triangles = sdf_surface_mesh(sdf, resolution=40)
        TriangleSurfaceMesh.__init__(self, triangles=triangles, vertices=vertices)
        self._sdf = sdf
        self._initpoints = int(initpoints)
        self._iterations = int(iterations)
        self._name = name
        self._hull = None
        self._rbound = None

    def sdf(self) -> SdfShape:
        """The collision description (distance, gradient, bounding box in G)."""
        return self._sdf

    def initpoints(self) -> int:
        """Number of Halton starting points of the contact search (MJCF sdf_initpoints)."""
        return self._initpoints

    def iterations(self) -> int:
        """Gradient-descent iterations per starting point (MJCF sdf_iterations)."""
        return self._iterations

    def _hull_vertices(self) -> np.ndarray:
        """Vertices (n, 3) in G of the convex hull of the surface mesh (planes collide with it, as in MuJoCo)."""
        if self._hull is None:
            from mallard.geometry.meshes import convex_hull

            self._hull = np.ascontiguousarray(convex_hull(self.vertex_array(), f"SDF '{self._name}'")[0])
        return self._hull

    def _hull_rbound(self) -> float:
        """The largest norm of the hull vertices [m] (the plane routine's rbound)."""
        if self._rbound is None:
            self._rbound = float(hull_rbound(self._hull_vertices()))
        return self._rbound

    def _kernel_type(self) -> int:
        return SDF

    def _kernel_size(self) -> np.ndarray:
        """Half-sizes of a box about Go that contains the SDF's bounding box (for the broad phase)."""
        aabb = np.asarray(self._sdf.aabb, float)
        return np.abs(aabb[:3]) + aabb[3:]

    def _key(self):
        return (id(self._sdf), self._initpoints, self._iterations)

    def __repr__(self) -> str:
        return f"SignedDistanceField('{self._name}', aabb={np.asarray(self._sdf.aabb).tolist()})"
