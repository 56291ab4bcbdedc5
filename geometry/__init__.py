"""mallard.geometry: shapes, geometry properties and roles, SceneGraph with its QueryObject and
inspector, collision filtering, and the compiled collision engine (``mallard.geometry.collision``).

Mirrors ``pydrake.geometry``; ``CoulombFriction`` (pydrake.multibody.plant) is defined here and
re-exported by the plant.
"""
from mallard.geometry.collision_filter import CollisionFilterDeclaration, CollisionFilterManager, GeometrySet
from mallard.geometry.frame_pose_vector import FramePoseVector
from mallard.geometry.geometry_instance import GeometryFrame, GeometryInstance
from mallard.geometry.identifiers import FilterId, FrameId, GeometryId, GeometryLookupError, SourceId
from mallard.geometry.mass_properties import (CalcShapeMassProperties, CalcVolume, MeshMassProperties,
                                              MujocoEquivalentInertiaBox, ShapeMassProperties)
from mallard.geometry.meshes import TriangleSurfaceMesh
from mallard.geometry.properties import (AddContactMaterial, AddMujocoContactParameters,
                                         CalcContactFrictionFromSurfaceProperties, CoulombFriction,
                                         GeometryProperties, GetMujocoContactParameters, IllustrationProperties,
                                         MakePhongIllustrationProperties, MujocoContactParameters,
                                         PerceptionProperties, ProximityProperties, Role, RoleAssign)
from mallard.geometry.query_object import QueryObject
from mallard.geometry.query_results import (ContactPointSet, PenetrationAsPointPair, SignedDistancePair,
                                            SignedDistanceToPoint, SortedPair)
from mallard.geometry.rgba import Rgba
from mallard.geometry.scene_graph import SceneGraph
from mallard.geometry.scene_graph_inspector import SceneGraphInspector
from mallard.geometry.shapes import (Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, HeightField, Mesh,
                                     MujocoPlane, Shape, Sphere)
from mallard.geometry.sdf_shape import SignedDistanceField
from mallard.geometry.meshcat import Meshcat, MeshcatParams, StartMeshcat
from mallard.geometry.meshcat_animation import MeshcatAnimation
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams

__all__ = [
    "SignedDistanceField", "Meshcat", "MeshcatAnimation", "MeshcatParams", "MeshcatVisualizer", "MeshcatVisualizerParams", "StartMeshcat",
    "AddContactMaterial", "AddMujocoContactParameters", "Box", "CalcContactFrictionFromSurfaceProperties",
    "CalcShapeMassProperties", "CalcVolume", "Capsule", "CollisionFilterDeclaration", "CollisionFilterManager",
    "ContactPointSet", "Convex", "CoulombFriction", "Cylinder", "Ellipsoid", "FilterId", "FrameId",
    "FramePoseVector", "GeometryFrame", "GeometryId", "GeometryInstance", "GeometryLookupError",
    "GeometryProperties", "GeometrySet", "GetMujocoContactParameters", "HalfSpace", "HeightField",
    "IllustrationProperties", "MakePhongIllustrationProperties", "Mesh", "MeshMassProperties",
    "MujocoContactParameters", "MujocoEquivalentInertiaBox", "MujocoPlane", "PenetrationAsPointPair",
    "PerceptionProperties", "ProximityProperties", "QueryObject", "Rgba", "Role", "RoleAssign", "SceneGraph",
    "SceneGraphInspector", "Shape", "ShapeMassProperties", "SignedDistancePair", "SignedDistanceToPoint",
    "SortedPair", "SourceId", "Sphere", "TriangleSurfaceMesh",
]
