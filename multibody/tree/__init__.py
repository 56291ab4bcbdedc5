"""mallard.multibody.tree: bodies, frames, joints, actuators, force elements and inertias (pydrake.multibody.tree)."""
from .force_element import (ForceElement, LinearBushingRollPitchYaw, LinearSpringDamper, PrismaticSpring,
                            RevoluteSpring, UniformGravityFieldElement)
from .frame import BodyFrame, FixedOffsetFrame, Frame, RigidBodyFrame
from .indices import (BodyIndex, ConstraintIndex, ForceElementIndex, FrameIndex, JacobianWrtVariable,
                      JointActuatorIndex, JointIndex, ModelInstanceIndex, default_model_instance,
                      world_frame_index, world_index, world_model_instance)
from .joint import Joint
from .joint_actuator import JointActuator
from .joints import (BallQuaternionJoint, BallRpyJoint, PlanarJoint, PrismaticJoint, QuaternionFloatingJoint,
                     RevoluteJoint, RpyFloatingJoint, ScrewJoint, UniversalJoint, WeldJoint)
from .multibody_forces import MultibodyForces
from .rigid_body import Body, RigidBody
from .rotational_inertia import RotationalInertia
from .spatial_inertia import SpatialInertia
from .unit_inertia import UnitInertia

__all__ = [
    "BallQuaternionJoint", "BallRpyJoint", "Body", "BodyFrame", "BodyIndex", "ConstraintIndex", "FixedOffsetFrame", "ForceElement",
    "ForceElementIndex", "Frame", "FrameIndex", "JacobianWrtVariable", "Joint", "JointActuator",
    "JointActuatorIndex", "JointIndex", "LinearBushingRollPitchYaw", "LinearSpringDamper", "ModelInstanceIndex", "MultibodyForces",
    "PlanarJoint", "PrismaticJoint", "PrismaticSpring", "QuaternionFloatingJoint", "RevoluteJoint", "RevoluteSpring", "RigidBody",
    "RigidBodyFrame", "RotationalInertia", "RpyFloatingJoint", "ScrewJoint", "SpatialInertia",
    "UniformGravityFieldElement", "UnitInertia", "UniversalJoint", "WeldJoint", "default_model_instance",
    "world_frame_index", "world_index", "world_model_instance",
]
