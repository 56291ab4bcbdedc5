"""mallard.multibody.math: rotations, rigid transforms and spatial algebra.

Mirrors `pydrake.math` (RigidTransform, RotationMatrix, RollPitchYaw), `pydrake.common.eigen_geometry`
(Quaternion, AngleAxis) and `pydrake.multibody.math` (SpatialVelocity, SpatialAcceleration, SpatialForce,
SpatialMomentum). The plain-array kernels in `functions` are numba-compiled for use in other kernels.
"""
from mallard.multibody.math._validation import MathValueError
from mallard.multibody.math.eigen_geometry import AngleAxis, Isometry3, Quaternion
from mallard.multibody.math.functions import (
    angle_axis_from_quaternion,
    determinant3,
    orthonormality_error,
    point_mass_unit_inertia,
    quaternion_conjugate,
    quaternion_from_rotation_matrix,
    quaternion_from_rpy,
    quaternion_multiply,
    quaternion_rotate,
    rotation_matrix_from_angle_axis,
    rotation_matrix_from_quaternion,
    rotation_matrix_from_rpy,
    rpy_from_quaternion_and_rotation_matrix,
    rpy_from_rotation_matrix,
    shift_spatial_force,
    shift_spatial_velocity,
    skew,
    wrap_to,
    VectorToSkewSymmetric,
)
from mallard.multibody.math.rigid_transform import RigidTransform
from mallard.multibody.math.roll_pitch_yaw import RollPitchYaw
from mallard.multibody.math.rotation_matrix import RotationMatrix
from mallard.multibody.math.spatial_acceleration import SpatialAcceleration
from mallard.multibody.math.spatial_force import SpatialForce
from mallard.multibody.math.spatial_momentum import SpatialMomentum
from mallard.multibody.math.spatial_vector import SpatialVector
from mallard.multibody.math.spatial_velocity import SpatialVelocity
from mallard.multibody.math.symmetric_eigen import symmetric_eigen3
from mallard.common.scalar_template import ScalarTemplate

SpatialAcceleration_ = ScalarTemplate("SpatialAcceleration_", SpatialAcceleration)
SpatialForce_ = ScalarTemplate("SpatialForce_", SpatialForce)
SpatialMomentum_ = ScalarTemplate("SpatialMomentum_", SpatialMomentum)
SpatialVelocity_ = ScalarTemplate("SpatialVelocity_", SpatialVelocity)
RigidTransform_ = ScalarTemplate("RigidTransform_", RigidTransform)
RotationMatrix_ = ScalarTemplate("RotationMatrix_", RotationMatrix)
RollPitchYaw_ = ScalarTemplate("RollPitchYaw_", RollPitchYaw)
# Pickles written by Drake <= v1.12 name the float classes "Foo_[float]": keep them loadable.
for _cls in (SpatialAcceleration, SpatialForce, SpatialMomentum, SpatialVelocity):
    globals()[f"{_cls.__name__}_[float]"] = _cls

__all__ = [
    "AngleAxis",
    "Isometry3",
    "RigidTransform_",
    "RollPitchYaw_",
    "RotationMatrix_",
    "SpatialAcceleration_",
    "SpatialForce_",
    "SpatialMomentum_",
    "SpatialVelocity_",
    "MathValueError",
    "Quaternion",
    "RigidTransform",
    "RollPitchYaw",
    "RotationMatrix",
    "SpatialAcceleration",
    "SpatialForce",
    "SpatialMomentum",
    "SpatialVector",
    "SpatialVelocity",
    "angle_axis_from_quaternion",
    "determinant3",
    "orthonormality_error",
    "point_mass_unit_inertia",
    "quaternion_conjugate",
    "quaternion_from_rotation_matrix",
    "quaternion_from_rpy",
    "quaternion_multiply",
    "quaternion_rotate",
    "rotation_matrix_from_angle_axis",
    "rotation_matrix_from_quaternion",
    "rotation_matrix_from_rpy",
    "rpy_from_quaternion_and_rotation_matrix",
    "rpy_from_rotation_matrix",
    "shift_spatial_force",
    "shift_spatial_velocity",
    "skew",
    "symmetric_eigen3",
    "wrap_to",
    "VectorToSkewSymmetric",
]
