"""Concrete joint types with pydrake's constructors, coordinates and state-name suffixes."""
from __future__ import annotations

import numpy as np

from ..kernels import joint_kernels as jk
from .joint import Joint


def _unit_axis(axis, joint_name: str) -> np.ndarray:
    a = np.asarray(axis, dtype=float).reshape(-1)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"joint '{joint_name}': axis must be a finite 3-vector, got {axis!r}")
    n = np.linalg.norm(a)
    if n < 1e-10:
        raise ValueError(f"joint '{joint_name}': axis must be non-zero, got {axis!r}")
    return a / n


class WeldJoint(Joint):
    """Fixes the pose of frame M in frame F to X_FM (no dofs)."""
    _type_code = jk.WELD
    _type_name = "weld"

    def __init__(self, name: str, frame_on_parent_F, frame_on_child_M, X_FM=None):
        from ._convert import pose_to_arrays
        super().__init__(name, frame_on_parent_F, frame_on_child_M)
        self._R_FM, self._p_FM = pose_to_arrays(X_FM, f"weld joint '{name}' X_FM")

    def X_FM(self):
        """The fixed pose of M in F."""
        from ._convert import make_rigid_transform
        return make_rigid_transform(self._R_FM, self._p_FM)

    def _fixed_X_FM(self):
        return self._R_FM, self._p_FM


class _OneDofAxisJoint(Joint):
    _nq = 1
    _nv = 1

    def __init__(self, name, frame_on_parent, frame_on_child, axis, damping=0.0, pos_lower=-np.inf,
                 pos_upper=np.inf):
        self._name = name
        self._axis = _unit_axis(axis, name)
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping, pos_lower=pos_lower,
                         pos_upper=pos_upper)

    def _axis_and_pitch(self):
        return self._axis.copy(), 0.0

    def damping(self) -> float:
        """Viscous damping coefficient."""
        return float(self._damping[0])

    default_damping = damping

    def set_default_damping(self, damping: float) -> None:
        """Set the damping coefficient (pre-Finalize)."""
        self.set_default_damping_vector([damping])

    def GetDamping(self, context) -> float:
        """The damping coefficient in `context`."""
        return float(self.GetDampingVector(context)[0])

    def SetDamping(self, context, damping: float) -> None:
        """Set the damping coefficient in `context` only."""
        self.SetDampingVector(context, [damping])

    def acceleration_lower_limit(self) -> float:
        return float(self._acc_lower[0])

    def acceleration_upper_limit(self) -> float:
        return float(self._acc_upper[0])

    def position_lower_limit(self) -> float:
        return float(self._pos_lower[0])

    def position_upper_limit(self) -> float:
        return float(self._pos_upper[0])

    def velocity_lower_limit(self) -> float:
        return float(self._vel_lower[0])

    def velocity_upper_limit(self) -> float:
        return float(self._vel_upper[0])


class RevoluteJoint(_OneDofAxisJoint):
    """Rotation by angle θ about a unit axis â fixed in both F and M (â_F = â_M)."""
    _type_code = jk.REVOLUTE
    _type_name = "revolute"
    _position_suffixes = ("q",)
    _velocity_suffixes = ("w",)

    def __init__(self, name, frame_on_parent, frame_on_child, axis, *args, **kwargs):
        # pydrake: (name, F, M, axis, damping=0) or (name, F, M, axis, pos_lower_limit, pos_upper_limit, damping=0)
        damping = kwargs.pop("damping", 0.0)
        lower = kwargs.pop("pos_lower_limit", -np.inf)
        upper = kwargs.pop("pos_upper_limit", np.inf)
        if kwargs:
            raise ValueError(f"RevoluteJoint '{name}': unknown arguments {sorted(kwargs)}")
        if len(args) == 1:
            damping = args[0]
        elif len(args) >= 2:
            lower, upper = args[0], args[1]
            if len(args) == 3:
                damping = args[2]
        super().__init__(name, frame_on_parent, frame_on_child, axis, damping, lower, upper)

    def revolute_axis(self) -> np.ndarray:
        """The unit axis â (same in F and M)."""
        return self._axis.copy()

    def get_angle(self, context) -> float:
        return self.GetOnePosition(context)

    def set_angle(self, context, angle: float) -> None:
        self._set_q(context, [angle])

    def get_angular_rate(self, context) -> float:
        return self.GetOneVelocity(context)

    def set_angular_rate(self, context, rate: float | None = None, angle: float | None = None) -> None:
        """Set θ̇ (rad/s); pydrake names this parameter `angle`."""
        self._set_v(context, [rate if angle is None else angle])

    def get_default_angle(self) -> float:
        return float(self._default_positions[0])

    def set_default_angle(self, angle: float) -> None:
        self.set_default_positions([angle])

    def set_random_angle_distribution(self, angle) -> None:
        """angle: callable(generator) -> float, sampled by SetRandomState."""
        self.set_random_positions_distribution(None if angle is None else (lambda g: [angle(g)]))


class PrismaticJoint(_OneDofAxisJoint):
    """Translation by distance x along a unit axis â fixed in both F and M."""
    _type_code = jk.PRISMATIC
    _type_name = "prismatic"
    _position_suffixes = ("x",)
    _velocity_suffixes = ("v",)

    def __init__(self, name, frame_on_parent, frame_on_child, axis, pos_lower_limit=-np.inf,
                 pos_upper_limit=np.inf, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, axis, damping, pos_lower_limit, pos_upper_limit)

    def translation_axis(self) -> np.ndarray:
        return self._axis.copy()

    def get_translation(self, context) -> float:
        return self.GetOnePosition(context)

    def set_translation(self, context, translation: float) -> None:
        self._set_q(context, [translation])

    def get_translation_rate(self, context) -> float:
        return self.GetOneVelocity(context)

    def set_translation_rate(self, context, translation_dot: float) -> None:
        self._set_v(context, [translation_dot])

    def get_default_translation(self) -> float:
        return float(self._default_positions[0])

    def set_default_translation(self, translation: float) -> None:
        self.set_default_positions([translation])

    def set_random_translation_distribution(self, translation) -> None:
        """translation: callable(generator) -> float, sampled by SetRandomState."""
        self.set_random_positions_distribution(None if translation is None else (lambda g: [translation(g)]))


class ScrewJoint(_OneDofAxisJoint):
    """Rotation θ about â coupled to translation (pitch·θ/2π) along â; pitch in m per revolution."""
    _type_code = jk.SCREW
    _type_name = "screw"
    _position_suffixes = ("q",)
    _velocity_suffixes = ("w",)

    def __init__(self, name, frame_on_parent, frame_on_child, *args, **kwargs):
        # pydrake: (name, F, M, screw_pitch, damping) or (name, F, M, axis, screw_pitch, damping)
        if len(args) == 3:
            axis, pitch, damping = args
        elif len(args) == 2:
            axis, (pitch, damping) = np.array([0.0, 0.0, 1.0]), args
        else:
            axis = kwargs.pop("axis", np.array([0.0, 0.0, 1.0]))
            pitch = kwargs.pop("screw_pitch", args[0] if args else 0.0)
            damping = kwargs.pop("damping", 0.0)
        self._pitch = float(pitch)
        super().__init__(name, frame_on_parent, frame_on_child, axis, damping)

    def screw_axis(self) -> np.ndarray:
        return self._axis.copy()

    def screw_pitch(self) -> float:
        return self._pitch

    def _axis_and_pitch(self):
        return self._axis.copy(), self._pitch

    def get_rotation(self, context) -> float:
        return self.GetOnePosition(context)

    def set_rotation(self, context, theta: float) -> None:
        self._set_q(context, [theta])

    def get_translation(self, context) -> float:
        return self.GetOnePosition(context) * self._pitch / (2 * np.pi)

    def set_translation(self, context, translation: float) -> None:
        """Set the translation z (m) along the axis, i.e. θ = 2π z / pitch."""
        self._set_q(context, [self._theta_of(translation)])

    def _theta_of(self, z: float) -> float:
        if self._pitch == 0:
            if z != 0:
                raise ValueError(f"screw joint '{self._name}': with zero pitch the translation is always 0")
            return 0.0
        return 2 * np.pi * float(z) / self._pitch

    def get_angular_velocity(self, context) -> float:
        return self.GetOneVelocity(context)

    def set_angular_velocity(self, context, theta_dot: float) -> None:
        self._set_v(context, [theta_dot])

    def get_translational_velocity(self, context) -> float:
        return self.GetOneVelocity(context) * self._pitch / (2 * np.pi)

    def set_translational_velocity(self, context, translation_dot: float) -> None:
        self._set_v(context, [self._theta_of(translation_dot)])

    def get_default_rotation(self) -> float:
        return float(self._default_positions[0])

    def set_default_rotation(self, theta: float) -> None:
        self.set_default_positions([theta])

    def get_default_translation(self) -> float:
        return float(self._default_positions[0]) * self._pitch / (2 * np.pi)

    def set_default_translation(self, z: float) -> None:
        self.set_default_positions([self._theta_of(z)])

    def set_random_pose_distribution(self, theta) -> None:
        """theta: callable(generator) -> float, sampled by SetRandomState."""
        self.set_random_positions_distribution(None if theta is None else (lambda g: [theta(g)]))


class UniversalJoint(Joint):
    """R_FM = Rx(θ₀)·Ry(θ₁); v = [θ̇₀, θ̇₁]."""
    _type_code = jk.UNIVERSAL
    _type_name = "universal"
    _nq = 2
    _nv = 2
    _position_suffixes = ("qx", "qy")
    _velocity_suffixes = ("wx", "wy")

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_angles(self, context) -> np.ndarray:
        return self.GetPositions(context)

    def set_angles(self, context, angles) -> None:
        self.SetPositions(context, angles)

    def set_default_angles(self, angles) -> None:
        self.set_default_positions(angles)

    def get_default_angles(self) -> np.ndarray:
        return self.default_positions()

    def get_angular_rates(self, context) -> np.ndarray:
        return self.GetVelocities(context)

    def set_angular_rates(self, context, theta_dot) -> None:
        self.SetVelocities(context, theta_dot)

    def default_damping(self) -> float:
        return float(self._damping[0])

    def set_random_angles_distribution(self, angles) -> None:
        """angles: callable(generator) -> 2 angles, sampled by SetRandomState."""
        self.set_random_positions_distribution(angles)


class BallRpyJoint(Joint):
    """R_FM = RollPitchYaw(q); v = w_FM_F (angular velocity of M in F, expressed in F)."""
    _type_code = jk.BALL_RPY
    _type_name = "ball_rpy"
    _nq = 3
    _nv = 3
    _position_suffixes = ("qx", "qy", "qz")
    _velocity_suffixes = ("wx", "wy", "wz")

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_angles(self, context) -> np.ndarray:
        return self.GetPositions(context)

    def set_angles(self, context, angles) -> None:
        self.SetPositions(context, angles)

    def get_angular_velocity(self, context) -> np.ndarray:
        return self.GetVelocities(context)

    def set_angular_velocity(self, context, w_FM) -> None:
        self.SetVelocities(context, w_FM)

    def set_default_angles(self, angles) -> None:
        self.set_default_positions(angles)

    def get_default_angles(self) -> np.ndarray:
        return self.default_positions()

    def default_damping(self) -> float:
        return float(self._damping[0])

    def set_random_angles_distribution(self, angles) -> None:
        """angles: callable(generator) -> roll-pitch-yaw, sampled by SetRandomState."""
        self.set_random_positions_distribution(angles)


class BallQuaternionJoint(Joint):
    """q = [qw, qx, qy, qz] (R_FM as a quaternion); v = w_FM_F (angular velocity of M in F, expressed in F).

    Singularity-free ball joint (Drake's BallQuaternionJoint); MJCF ball joints map onto it.
    """
    _type_code = jk.BALL_QUATERNION
    _type_name = "ball_quaternion"
    _nq = 4
    _nv = 3
    _position_suffixes = ("qw", "qx", "qy", "qz")
    _velocity_suffixes = ("wx", "wy", "wz")

    def __init__(self, name, frame_on_parent, frame_on_child, damping=0.0):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def _zero_positions(self) -> np.ndarray:
        return np.array([1.0, 0.0, 0.0, 0.0])

    def get_quaternion(self, context):
        """R_FM as a Quaternion."""
        from mallard.multibody.math import Quaternion
        return Quaternion(self.GetPositions(context))

    def set_quaternion(self, context, q_FM) -> None:
        self.SetPositions(context, np.asarray(q_FM.wxyz() if hasattr(q_FM, "wxyz") else q_FM, dtype=float))

    def set_default_quaternion(self, q_FM) -> None:
        self.set_default_positions(np.asarray(q_FM.wxyz() if hasattr(q_FM, "wxyz") else q_FM, dtype=float))

    def get_angular_velocity(self, context) -> np.ndarray:
        return self.GetVelocities(context)

    def set_angular_velocity(self, context, w_FM) -> None:
        self.SetVelocities(context, w_FM)


class PlanarJoint(Joint):
    """q = [x, y, θ]: translation in the F x-y plane and rotation θ about Fz; v = [ẋ, ẏ, θ̇]."""
    _type_code = jk.PLANAR
    _type_name = "planar"
    _nq = 3
    _nv = 3
    _position_suffixes = ("x", "y", "qz")
    _velocity_suffixes = ("vx", "vy", "wz")

    def __init__(self, name, frame_on_parent, frame_on_child, damping=(0.0, 0.0, 0.0)):
        super().__init__(name, frame_on_parent, frame_on_child, damping=damping)

    def get_translation(self, context) -> np.ndarray:
        return self.GetPositions(context)[:2]

    def set_translation(self, context, p_FoMo_F) -> None:
        q = self.GetPositions(context)
        q[:2] = p_FoMo_F
        self.SetPositions(context, q)

    def get_rotation(self, context) -> float:
        return float(self.GetPositions(context)[2])

    def set_rotation(self, context, theta: float) -> None:
        q = self.GetPositions(context)
        q[2] = theta
        self.SetPositions(context, q)

    def set_pose(self, context, p_FoMo_F, theta: float) -> None:
        self.SetPositions(context, [p_FoMo_F[0], p_FoMo_F[1], theta])

    def set_default_pose(self, p_FoMo_F, theta: float) -> None:
        self.set_default_positions([p_FoMo_F[0], p_FoMo_F[1], theta])

    def default_damping(self) -> np.ndarray:
        return self._damping.copy()

    def get_translational_velocity(self, context) -> np.ndarray:
        return self.GetVelocities(context)[:2]

    def set_translational_velocity(self, context, v_FoMo_F) -> None:
        v = self.GetVelocities(context)
        v[:2] = v_FoMo_F
        self.SetVelocities(context, v)

    def get_angular_velocity(self, context) -> float:
        return float(self.GetVelocities(context)[2])

    def set_angular_velocity(self, context, theta_dot: float) -> None:
        v = self.GetVelocities(context)
        v[2] = theta_dot
        self.SetVelocities(context, v)

    def get_default_translation(self) -> np.ndarray:
        return self.default_positions()[:2]

    def set_default_translation(self, p_FoMo_F) -> None:
        q = self.default_positions()
        q[:2] = p_FoMo_F
        self.set_default_positions(q)

    def get_default_rotation(self) -> float:
        return float(self._default_positions[2])

    def set_default_rotation(self, theta: float) -> None:
        q = self.default_positions()
        q[2] = theta
        self.set_default_positions(q)

    def set_random_pose_distribution(self, p_FoMo_F, theta) -> None:
        """p_FoMo_F: callable(generator) -> 2-vector, theta: callable(generator) -> float (SetRandomState)."""
        self.set_random_positions_distribution(lambda g: [*np.asarray(p_FoMo_F(g), float).reshape(2), theta(g)])


class _FloatingJoint(Joint):
    _nv = 6

    def __init__(self, name, frame_on_parent, frame_on_child, angular_damping=0.0, translational_damping=0.0):
        d = [angular_damping] * 3 + [translational_damping] * 3
        super().__init__(name, frame_on_parent, frame_on_child, damping=d)

    def default_angular_damping(self) -> float:
        return float(self._damping[0])

    def default_translational_damping(self) -> float:
        return float(self._damping[3])

    angular_damping = default_angular_damping
    translational_damping = default_translational_damping

    def GetPose(self, context):
        """X_FM in `context`."""
        from mallard.multibody.math import RigidTransform
        R, p = self._pose_of(self.GetPositions(context))
        return RigidTransform(R, p)

    def SetPose(self, context, X_FM) -> None:
        """Set X_FM in `context`."""
        self.SetPositions(context, self._positions_of(X_FM.rotation().matrix(), X_FM.translation()))

    def SetOrientation(self, context, R) -> None:
        """Set R_FM in `context`, keeping the translation."""
        q = self.GetPositions(context)
        q[:self._nq - 3] = self._positions_of(R.matrix(), np.zeros(3))[:self._nq - 3]
        self.SetPositions(context, q)

    def SetTranslation(self, context, p_FM) -> None:
        """Set p_FoMo_F in `context`, keeping the orientation."""
        self.set_translation(context, p_FM)

    def get_default_translation(self) -> np.ndarray:
        return self.default_positions()[self._nq - 3:]

    def set_default_translation(self, translation) -> None:
        q = self.default_positions()
        q[self._nq - 3:] = translation
        self.set_default_positions(q)

    def set_random_translation_distribution(self, translation) -> None:
        """translation: callable(generator) -> 3-vector (SetRandomState); the orientation keeps its default."""
        default = self.default_positions()
        rotation = self._random_rotation if hasattr(self, "_random_rotation") else (lambda g: default[:self._nq - 3])
        self._random_translation = translation
        self.set_random_positions_distribution(
            lambda g: [*np.asarray(rotation(g), float).reshape(-1), *np.asarray(translation(g), float).reshape(3)])

    def GetDefaultPosePair(self):
        from mallard.multibody.math import RotationMatrix
        R, p = self._pose_of(self._default_positions)
        return RotationMatrix(R).ToQuaternion(), p

    def SetDefaultPosePair(self, q_FM, p_FM) -> None:
        from mallard.multibody.math import RotationMatrix
        self.set_default_positions(self._positions_of(RotationMatrix(q_FM).matrix(), np.asarray(p_FM, float)))

    def get_angular_velocity(self, context) -> np.ndarray:
        return self.GetVelocities(context)[:3]

    def get_translational_velocity(self, context) -> np.ndarray:
        return self.GetVelocities(context)[3:]

    def set_angular_velocity(self, context, w_FM) -> None:
        v = self.GetVelocities(context)
        v[:3] = w_FM
        self.SetVelocities(context, v)

    def set_translational_velocity(self, context, v_FM) -> None:
        v = self.GetVelocities(context)
        v[3:] = v_FM
        self.SetVelocities(context, v)

    def get_translation(self, context) -> np.ndarray:
        return self.GetPositions(context)[self._nq - 3:]

    def set_translation(self, context, p_FM) -> None:
        q = self.GetPositions(context)
        q[self._nq - 3:] = p_FM
        self.SetPositions(context, q)


class RpyFloatingJoint(_FloatingJoint):
    """q = [roll, pitch, yaw, x, y, z]; v = [w_FM_F; v_FM_F]."""
    _type_code = jk.RPY_FLOATING
    _type_name = "rpy_floating"
    _nq = 6
    _position_suffixes = ("qx", "qy", "qz", "x", "y", "z")
    _velocity_suffixes = ("wx", "wy", "wz", "vx", "vy", "vz")

    def get_angles(self, context) -> np.ndarray:
        return self.GetPositions(context)[:3]

    def set_angles(self, context, angles) -> None:
        q = self.GetPositions(context)
        q[:3] = angles
        self.SetPositions(context, q)

    def get_default_angles(self) -> np.ndarray:
        return self.default_positions()[:3]

    def set_default_angles(self, angles) -> None:
        q = self.default_positions()
        q[:3] = angles
        self.set_default_positions(q)

    def set_random_angles_distribution(self, angles) -> None:
        """angles: callable(generator) -> roll-pitch-yaw (SetRandomState); the translation keeps its setting."""
        self._random_rotation = angles
        translation = getattr(self, "_random_translation", lambda g: self._default_positions[3:])
        self.set_random_positions_distribution(
            lambda g: [*np.asarray(angles(g), float).reshape(3), *np.asarray(translation(g), float).reshape(3)])

    def SetOrientation(self, context, R_FM) -> None:
        """Set R_FM in `context`, keeping the translation."""
        super().SetOrientation(context, R_FM)

    def set_default_translation(self, p_FM) -> None:
        super().set_default_translation(p_FM)

    def set_random_translation_distribution(self, p_FM) -> None:
        """p_FM: callable(generator) -> 3-vector (SetRandomState)."""
        super().set_random_translation_distribution(p_FM)

    def _pose_of(self, q) -> tuple[np.ndarray, np.ndarray]:
        return jk.rpy_to_rotation(q[0], q[1], q[2]), np.array(q[3:6], dtype=float)

    def _positions_of(self, R, p) -> np.ndarray:
        from mallard.multibody.math import RollPitchYaw, RotationMatrix
        return np.concatenate([RollPitchYaw(RotationMatrix(R)).vector(), p])


class QuaternionFloatingJoint(_FloatingJoint):
    """q = [qw, qx, qy, qz, x, y, z] (R_FM quaternion, p_FoMo_F); v = [w_FM_F; v_FM_F]."""
    _type_code = jk.QUATERNION_FLOATING
    _type_name = "quaternion_floating"
    _nq = 7
    _position_suffixes = ("qw", "qx", "qy", "qz", "x", "y", "z")
    _velocity_suffixes = ("wx", "wy", "wz", "vx", "vy", "vz")

    def _zero_positions(self) -> np.ndarray:
        return np.array([1.0, 0, 0, 0, 0, 0, 0])

    def get_quaternion(self, context):
        """R_FM as a Quaternion (wxyz)."""
        from mallard.multibody.math import Quaternion
        return Quaternion(self.GetPositions(context)[:4])

    def set_quaternion(self, context, q_FM) -> None:
        wxyz = np.asarray(q_FM.wxyz() if hasattr(q_FM, "wxyz") else q_FM, dtype=float)
        q = self.GetPositions(context)
        q[:4] = wxyz
        self.SetPositions(context, q)

    def get_position(self, context) -> np.ndarray:
        return self.GetPositions(context)[4:]

    def set_position(self, context, p_FM) -> None:
        self.set_translation(context, p_FM)

    def set_default_quaternion(self, q_FM) -> None:
        wxyz = np.asarray(q_FM.wxyz() if hasattr(q_FM, "wxyz") else q_FM, dtype=float)
        q = self.default_positions()
        q[:4] = wxyz
        self.set_default_positions(q)

    def set_default_position(self, p_FM) -> None:
        q = self.default_positions()
        q[4:] = p_FM
        self.set_default_positions(q)

    def SetQuaternion(self, context, q_FM) -> None:
        """Set R_FM (a Quaternion) in `context`, keeping the translation."""
        self.set_quaternion(context, q_FM)

    def get_default_quaternion(self):
        from mallard.multibody.math import Quaternion
        return Quaternion(self._default_positions[:4])

    def set_random_quaternion_distribution_to_uniform(self) -> None:
        """Draw the orientation uniformly from SO(3) in SetRandomState (the translation keeps its setting)."""
        from mallard.multibody.math.quaternion_functions import UniformlyRandomQuaternion
        self._random_rotation = lambda g: UniformlyRandomQuaternion(g).wxyz()
        translation = getattr(self, "_random_translation", lambda g: self._default_positions[4:])
        self.set_random_positions_distribution(
            lambda g: [*self._random_rotation(g), *np.asarray(translation(g), float).reshape(3)])

    def _pose_of(self, q) -> tuple[np.ndarray, np.ndarray]:
        wxyz = np.asarray(q[:4], dtype=float)
        return jk.quaternion_to_rotation(*(wxyz / np.linalg.norm(wxyz))), np.array(q[4:7], dtype=float)

    def _positions_of(self, R, p) -> np.ndarray:
        from mallard.multibody.math import RotationMatrix
        return np.concatenate([RotationMatrix(R).ToQuaternion().wxyz(), p])
