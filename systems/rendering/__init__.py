"""mallard.systems.rendering (pydrake.systems.rendering): MultibodyPositionToGeometryPose. Drake's rendering
engines and cameras are out of scope; this module's one system is kinematics, not rendering."""
from .multibody_position_to_geometry_pose import MultibodyPositionToGeometryPose, MultibodyPositionToGeometryPose_

__all__ = ["MultibodyPositionToGeometryPose", "MultibodyPositionToGeometryPose_"]
