"""mallard.parsers: model file readers (URDF, SDFormat, MJCF) and PackageMap.

The URDF and SDFormat readers produce format-neutral `ModelRecord`s (see `model_records`),
which the plant front end turns into MultibodyPlant builder calls.
"""
from .errors import ParseError, ParseWarning
from .model_reader import ReadModels, ReadModelsFromString, ReadModelsFromUrl
from .model_records import (ActuatorRecord, BallConstraintRecord, BushingRecord, CalcCollisionFilterGroups,
                            CalcLinkPosesInWorld, CollisionFilterGroupRecord, FrameRecord, GeometryRecord,
                            InertialRecord, JointRecord, LinkRecord, MimicRecord, ModelRecord,
                            ShapeRecord)
from .package_map import PackageMap, UnknownPackageError
from .resources import (OpenResource, ReadResource, RegisterResourceProvider, Resource, ResourceProvider,
                        UnregisterResourceProvider)
from .parser import Parser
from .parser_geometry import CollisionFilterGroups
from .sdformat import ReadSdf
from .urdf import ReadUrdf

__all__ = [
    "Parser", "CollisionFilterGroups",
    "ParseError", "ParseWarning", "PackageMap", "UnknownPackageError",
    "ReadModels", "ReadModelsFromString", "ReadModelsFromUrl", "ReadUrdf", "ReadSdf",
    "ModelRecord", "LinkRecord", "InertialRecord", "JointRecord", "MimicRecord",
    "ActuatorRecord", "FrameRecord", "GeometryRecord", "ShapeRecord", "BushingRecord", "BallConstraintRecord",
    "CollisionFilterGroupRecord", "CalcLinkPosesInWorld", "CalcCollisionFilterGroups",
    "RegisterResourceProvider", "UnregisterResourceProvider", "OpenResource", "ReadResource", "Resource",
    "ResourceProvider",
]
