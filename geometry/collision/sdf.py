"""Signed-distance-field (SDF) collision (MuJoCo's engine_collision_sdf), one import for its parts.

- sdf_fields.py: the compiled fields of primitives and first-party SDF plugins (kind codes);
- sdf_halton.py: Halton starting points over the overlap of two bounding boxes;
- sdf_collide.py: SDF against a primitive or an SDF (gradient descent), `SdfShape`;
- sdf_pairs.py: SDF against planes, meshes and height fields, and a CollisionModel's SDF pairs;
- sdf_mesh.py: the marching-cubes surface mesh drawn for an SDF.
"""
from mallard.geometry.collision.sdf_collide import MAXCONPAIR, SdfShape, sdf_collide
from mallard.geometry.collision.sdf_fields import (BOX, CAPSULE, CYLINDER, ELLIPSOID, PLANE, SDF_BOWL, SDF_TORUS,
                                                   SPHERE, USER, primitive_aabb, shape_distance, shape_gradient)
from mallard.geometry.collision.sdf_halton import halton
from mallard.geometry.collision.sdf_mesh import marching_cubes, sdf_surface_mesh
from mallard.geometry.collision.sdf_pairs import (hfield_triangles, sdf_hfield_collide, sdf_mesh_collide,
                                                  sdf_pair_contacts, sdf_plane_collide, sdf_triangles_collide)

__all__ = [
    "PLANE", "SPHERE", "CAPSULE", "ELLIPSOID", "CYLINDER", "BOX", "SDF_BOWL", "SDF_TORUS", "USER", "MAXCONPAIR",
    "SdfShape", "shape_distance", "shape_gradient", "halton", "primitive_aabb", "sdf_collide", "sdf_surface_mesh",
    "marching_cubes", "sdf_triangles_collide", "sdf_mesh_collide", "sdf_plane_collide", "sdf_hfield_collide",
    "hfield_triangles", "sdf_pair_contacts",
]
