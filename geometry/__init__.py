"""mallard.geometry: shapes, geometry properties and roles, SceneGraph with its QueryObject and
inspector, collision filtering, meshes and bounding boxes, Meshcat, and the compiled collision engine
(``mallard.geometry.collision``).

Mirrors ``pydrake.geometry``; ``CoulombFriction`` (pydrake.multibody.plant) is defined here and
re-exported by the plant.
"""
from mallard.common.numba_loading import install as _install_numba_loading
from mallard.geometry.bounding_box import Aabb, Obb
from mallard.geometry.collision_filter import (CollisionFilterDeclaration, CollisionFilterManager,
                                               CollisionFilterScope, GeometrySet)
from mallard.geometry.convex_hull import MakeConvexHull, _MakeConvexHull
from mallard.geometry.frame_pose_vector import (FramePoseVector, FramePoseVector_, GeometryConfigurationVector,
                                                GeometryConfigurationVector_)
from mallard.geometry.geometry_instance import GeometryFrame, GeometryInstance
from mallard.geometry.geometry_state import GeometryVersion
from mallard.geometry.hydroelastic.contact_surface import (ContactSurface, ContactSurface_,
                                                           PolygonSurfaceMeshFieldLinear,
                                                           PolygonSurfaceMeshFieldLinear_,
                                                           TriangleSurfaceMeshFieldLinear,
                                                           TriangleSurfaceMeshFieldLinear_)
from mallard.geometry.identifiers import FilterId, FrameId, GeometryId, GeometryLookupError, SourceId
from mallard.geometry.mass_properties import (CalcShapeMassProperties, CalcVolume, MeshMassProperties,
                                              MujocoEquivalentInertiaBox, ShapeMassProperties)
from mallard.geometry.mesh_shapes import Convex, InMemoryMesh, Mesh, MeshSource
from mallard.geometry.obb_maker import (CalcObb, ComputeAabbForTriangleMesh, ComputeAabbForVolumeMesh,
                                        ComputeObbForTriangleMesh, ComputeObbForVolumeMesh)
from mallard.geometry.obj_reader import ReadObjToTriangleSurfaceMesh
from mallard.geometry.plane import Plane, Plane_
from mallard.geometry.polygon_mesh import PolygonSurfaceMesh, PolygonSurfaceMesh_, SurfacePolygon
from mallard.geometry.properties import (AddCompliantHydroelasticProperties,
                                         AddCompliantHydroelasticPropertiesForHalfSpace, AddContactMaterial,
                                         AddMujocoContactParameters, AddRigidHydroelasticProperties,
                                         CalcContactFrictionFromSurfaceProperties, CoulombFriction,
                                         GeometryProperties, GetMujocoContactParameters, IllustrationProperties,
                                         MakePhongIllustrationProperties, MujocoContactParameters,
                                         PerceptionProperties, ProximityProperties, Role, RoleAssign)
from mallard.geometry.query_object import QueryObject, QueryObject_
from mallard.geometry.query_results import (ContactPointSet, HydroelasticContactRepresentation,
                                            PenetrationAsPointPair, PenetrationAsPointPair_, SignedDistancePair,
                                            SignedDistancePair_, SignedDistanceToPoint, SignedDistanceToPoint_,
                                            SortedPair)
from mallard.geometry.rgba import Rgba
from mallard.geometry.scene_graph import SceneGraph, SceneGraph_
from mallard.geometry.scene_graph_config import DefaultProximityProperties, SceneGraphConfig
from mallard.geometry.scene_graph_inspector import SceneGraphInspector, SceneGraphInspector_
from mallard.geometry.shapes import (Box, Capsule, Cylinder, Ellipsoid, HalfSpace, HeightField, MeshcatCone,
                                     MujocoPlane, Shape, Sphere)
from mallard.geometry.sdf_shape import SignedDistanceField
from mallard.geometry.surface_mesh import SurfaceTriangle, TriangleSurfaceMesh, TriangleSurfaceMesh_
from mallard.geometry.volume_mesh import VolumeElement, VolumeMesh, VolumeMesh_
from mallard.geometry.volume_mesh_tools import (ConvertVolumeToSurfaceMesh, RefineVolumeMesh,
                                                RefineVolumeMeshIntoVtkFileContents)
from mallard.geometry.meshcat import Meshcat, MeshcatParams, StartMeshcat
from mallard.geometry.meshcat_animation import MeshcatAnimation
from mallard.geometry.meshcat_point_cloud_visualizer import MeshcatPointCloudVisualizer, MeshcatPointCloudVisualizer_
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizer_, MeshcatVisualizerParams

__all__ = ["ContactSurface", "ContactSurface_", "PolygonSurfaceMeshFieldLinear_", "TriangleSurfaceMeshFieldLinear_",
    "Plane_", "PolygonSurfaceMesh_", "TriangleSurfaceMesh_", "VolumeMesh_", "PolygonSurfaceMeshFieldLinear", "TriangleSurfaceMeshFieldLinear",
           
    "Aabb", "AddCompliantHydroelasticProperties", "AddCompliantHydroelasticPropertiesForHalfSpace",
    "AddContactMaterial", "AddMujocoContactParameters", "AddRigidHydroelasticProperties", "Box",
    "CalcContactFrictionFromSurfaceProperties", "CalcObb", "CalcShapeMassProperties", "CalcVolume", "Capsule",
    "CollisionFilterDeclaration", "CollisionFilterManager", "CollisionFilterScope", "ComputeAabbForTriangleMesh",
    "ComputeAabbForVolumeMesh", "ComputeObbForTriangleMesh", "ComputeObbForVolumeMesh", "ContactPointSet", "Convex",
    "ConvertVolumeToSurfaceMesh", "CoulombFriction", "Cylinder", "DefaultProximityProperties", "Ellipsoid", "FilterId",
    "FrameId", "FramePoseVector", "FramePoseVector_", "GeometryConfigurationVector", "GeometryConfigurationVector_",
    "GeometryFrame", "GeometryId", "GeometryInstance", "GeometryLookupError", "GeometryProperties", "GeometrySet",
    "GeometryVersion", "GetMujocoContactParameters", "HalfSpace", "HeightField", "HydroelasticContactRepresentation",
    "IllustrationProperties", "InMemoryMesh", "MakeConvexHull", "MakePhongIllustrationProperties", "Mesh",
    "MeshMassProperties", "MeshSource", "Meshcat", "MeshcatAnimation", "MeshcatCone", "MeshcatParams",
    "MeshcatPointCloudVisualizer", "MeshcatPointCloudVisualizer_", "MeshcatVisualizer", "MeshcatVisualizer_",
    "MeshcatVisualizerParams", "MujocoContactParameters", "MujocoEquivalentInertiaBox",
    "MujocoPlane", "Obb", "PenetrationAsPointPair", "PenetrationAsPointPair_", "PerceptionProperties", "Plane",
    "PolygonSurfaceMesh", "ProximityProperties", "QueryObject", "QueryObject_", "ReadObjToTriangleSurfaceMesh",
    "RefineVolumeMesh", "RefineVolumeMeshIntoVtkFileContents", "Rgba", "Role", "RoleAssign", "SceneGraph",
    "SceneGraphConfig", "SceneGraphInspector", "SceneGraphInspector_", "SceneGraph_", "Shape", "ShapeMassProperties",
    "SignedDistanceField", "SignedDistancePair", "SignedDistancePair_", "SignedDistanceToPoint",
    "SignedDistanceToPoint_", "SortedPair", "SourceId", "Sphere", "StartMeshcat", "SurfacePolygon",
    "SurfaceTriangle", "TriangleSurfaceMesh", "VolumeElement", "VolumeMesh",
]

_install_numba_loading()  # numba parses a cached kernel's bitcode on first need (the first simulation loads faster)
