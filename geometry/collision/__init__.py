"""mallard.geometry.collision: the compiled collision engine (numba kernels over arrays).

Narrow phase (``narrowphase.collide``: MuJoCo's analytic routines for plane/sphere/capsule/box/
cylinder pairs, GJK + EPA for the other convex pairs), signed distances, broad phase
(sweep-and-prune) and the batch ``CollisionModel`` used by SceneGraph's QueryObject.
"""
from mallard.geometry.collision.engine import CollisionModel, mujoco_contact_frame
from mallard.geometry.collision.narrowphase import MAXCON, collide, point_distance, signed_distance

__all__ = ["CollisionModel", "MAXCON", "collide", "mujoco_contact_frame", "point_distance", "signed_distance"]
