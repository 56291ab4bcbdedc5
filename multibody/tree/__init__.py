"""mallard.multibody.tree: bodies, frames, joints, actuators, force elements and inertias (pydrake.multibody.tree)."""
from .force_element import (DoorHinge, DoorHingeConfig, ForceElement, LinearBushingRollPitchYaw, LinearSpringDamper,
                            PrismaticSpring, RevoluteSpring, UniformGravityFieldElement)
from .force_density_field import ForceDensityField, ForceDensityType, GravityForceField
from .geometry_spatial_inertia import CalcSpatialInertia
from .frame import BodyFrame, FixedOffsetFrame, Frame, RigidBodyFrame
from .indices import (BodyIndex, ConstraintIndex, ForceElementIndex, FrameIndex, JacobianWrtVariable,
                      JointActuatorIndex, JointIndex, ModelInstanceIndex, MultibodyConstraintId, default_model_instance,
                      world_frame_index, world_index, world_model_instance)
from .joint import Joint
from .joint_actuator import JointActuator, PdControllerGains
from .joints import (BallQuaternionJoint, BallRpyJoint, PlanarJoint, PrismaticJoint, QuaternionFloatingJoint,
                     RevoluteJoint, RpyFloatingJoint, ScrewJoint, UniversalJoint, WeldJoint)
from .multibody_forces import MultibodyForces
from .rigid_body import Body, RigidBody
from .rotational_inertia import RotationalInertia
from .scoped_name import ScopedName
from .spatial_inertia import SpatialInertia
from .unit_inertia import UnitInertia

__all__ = [
    "BallQuaternionJoint", "BallRpyJoint", "Body", "BodyFrame", "BodyIndex", "CalcSpatialInertia", "ConstraintIndex", "DoorHinge", "DoorHingeConfig", "FixedOffsetFrame", "ForceDensityField",
    "ForceDensityType", "ForceElement", "GravityForceField",
    "ForceElementIndex", "Frame", "FrameIndex", "JacobianWrtVariable", "Joint", "JointActuator",
    "JointActuatorIndex", "JointIndex", "PdControllerGains", "LinearBushingRollPitchYaw", "LinearSpringDamper", "ModelInstanceIndex", "MultibodyConstraintId", "MultibodyForces",
    "PlanarJoint", "PrismaticJoint", "PrismaticSpring", "QuaternionFloatingJoint", "RevoluteJoint", "RevoluteSpring", "RigidBody",
    "RigidBodyFrame", "RotationalInertia", "RpyFloatingJoint", "ScopedName", "ScrewJoint", "SpatialInertia",
    "UniformGravityFieldElement", "UnitInertia", "UniversalJoint", "WeldJoint", "default_model_instance",
    "world_frame_index", "world_index", "world_model_instance",
]

from mallard.common.scalar_template import ScalarTemplate as _ScalarTemplate

# pydrake's scalar-template spellings (Foo_[float] is Foo; other scalar types are a clear error).
for _cls in (BallQuaternionJoint, BallRpyJoint, Body, BodyFrame, DoorHinge, FixedOffsetFrame, ForceDensityField,
             ForceElement, Frame, GravityForceField, Joint,
             JointActuator, LinearBushingRollPitchYaw, LinearSpringDamper, MultibodyForces, PlanarJoint,
             PrismaticJoint, PrismaticSpring, QuaternionFloatingJoint, RevoluteJoint, RevoluteSpring, RigidBody,
             RigidBodyFrame, RotationalInertia, RpyFloatingJoint, ScrewJoint, SpatialInertia,
             UniformGravityFieldElement, UnitInertia, UniversalJoint, WeldJoint):
    globals()[f"{_cls.__name__}_"] = _ScalarTemplate(f"{_cls.__name__}_", _cls)
    globals()[f"{_cls.__name__}_[float]"] = _cls  # the names Drake <= v1.12 wrote into pickles
Body_ = _ScalarTemplate("Body_", RigidBody)  # pydrake's dispreferred alias of RigidBody_
del _cls
__all__ += [n for n in list(globals()) if n.endswith("_") and not n.startswith("_")]
