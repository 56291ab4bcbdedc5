"""Joint base class: connects frame F on the parent body to frame M on the child body."""
from __future__ import annotations

import numpy as np

from .element import MultibodyElement, hands_out
from .frame import Frame


class Joint(MultibodyElement):
    """A joint with nq positions and nv velocities, with limits, damping and default positions.

    Subclasses fix the joint-type code used by the compiled kernels, the sizes and the state-name
    suffixes (pydrake's: `_q`/`_w` for revolute, `_x`/`_v` for prismatic, ...).
    """

    _kind = "joint"
    _type_code = -1
    _type_name = "joint"
    _nq = 0
    _nv = 0
    _position_suffixes: tuple = ()
    _velocity_suffixes: tuple = ()

    def __init__(self, name: str, frame_on_parent: Frame, frame_on_child: Frame, damping=None,
                 pos_lower=None, pos_upper=None, vel_lower=None, vel_upper=None):
        for what, f in (("frame_on_parent", frame_on_parent), ("frame_on_child", frame_on_child)):
            if not isinstance(f, Frame):
                raise ValueError(f"joint '{name}': {what} must be a Frame, got {type(f).__name__}")
        if frame_on_parent.body() == frame_on_child.body():
            raise ValueError(f"joint '{name}': parent and child frames are on the same body "
                             f"'{frame_on_child.body().name()}'")
        super().__init__(name, frame_on_child.model_instance())
        self._frame_on_parent = frame_on_parent
        self._frame_on_child = frame_on_child
        nq, nv = self._nq, self._nv
        self._damping = self._vec(damping, nv, 0.0, "damping")
        if np.any(self._damping < 0):
            raise ValueError(f"joint '{name}': damping must be non-negative, got {self._damping}")
        self._pos_lower = self._vec(pos_lower, nq, -np.inf, "position lower limits")
        self._pos_upper = self._vec(pos_upper, nq, np.inf, "position upper limits")
        self._vel_lower = self._vec(vel_lower, nv, -np.inf, "velocity lower limits")
        self._vel_upper = self._vec(vel_upper, nv, np.inf, "velocity upper limits")
        self._armature = np.zeros(nv)
        self._acc_lower = np.full(nv, -np.inf)
        self._acc_upper = np.full(nv, np.inf)
        self._check_limits()
        self._default_positions = self._zero_positions()
        self._random_positions = None  # callable(generator) -> positions, used by SetRandomState
        self._position_start = None
        self._velocity_start = None
        self._mobilized_body = None  # set at Finalize: the body this joint moves in the tree (its child, unless
        self._reversed = False       # the tree reversed it to re-root at a link welded to World)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.kTypeName = cls._type_name  # pydrake's class constant, equal to type_name()

    def _vec(self, x, n, fill, what):
        if x is None:
            return np.full(n, fill, dtype=float)
        a = np.array(x, dtype=float).reshape(-1)
        if a.size == 1 and n > 1:
            a = np.full(n, float(a[0]))
        if a.size != n:
            raise ValueError(f"joint '{self._name}': {what} must have {n} entries, got {a.size}")
        return a

    def _check_limits(self):
        if np.any(self._pos_lower > self._pos_upper) or np.any(self._vel_lower > self._vel_upper):
            raise ValueError(f"joint '{self._name}': a lower limit exceeds its upper limit")

    def _zero_positions(self) -> np.ndarray:
        return np.zeros(self._nq)

    # ---- structure ----------------------------------------------------------------------
    def type_name(self) -> str:
        """Drake's type name, e.g. 'revolute'."""
        return self._type_name

    def num_positions(self) -> int:
        """nq of this joint."""
        return self._nq

    def num_velocities(self) -> int:
        """nv of this joint."""
        return self._nv

    def position_suffix(self, position_index_in_joint: int) -> str:
        """The name suffix of the joint's position ``position_index_in_joint`` (e.g. 'q', 'x', 'qw')."""
        return self._position_suffixes[position_index_in_joint]

    def velocity_suffix(self, velocity_index_in_joint: int) -> str:
        """The name suffix of the joint's velocity ``velocity_index_in_joint`` (e.g. 'w', 'v', 'wx')."""
        return self._velocity_suffixes[velocity_index_in_joint]

    def frame_on_parent(self) -> Frame:
        """Frame F, fixed on the parent body."""
        return self._frame_on_parent

    def frame_on_child(self) -> Frame:
        """Frame M, fixed on the child body."""
        return self._frame_on_child

    def parent_body(self):
        """The parent body P."""
        return self._frame_on_parent._body

    def child_body(self):
        """The child body B."""
        return self._frame_on_child._body

    def position_start(self) -> int:
        """Start of this joint's positions in q (after Finalize)."""
        if self._position_start is None:
            raise RuntimeError(f"joint '{self._name}': position_start() is only available after Finalize()")
        return self._position_start

    def velocity_start(self) -> int:
        """Start of this joint's velocities in v (after Finalize)."""
        if self._velocity_start is None:
            raise RuntimeError(f"joint '{self._name}': velocity_start() is only available after Finalize()")
        return self._velocity_start

    def can_rotate(self) -> bool:
        """True if the joint permits rotation."""
        return self._type_name not in ("prismatic", "weld")

    def can_translate(self) -> bool:
        """True if the joint permits translation."""
        return self._type_name in ("prismatic", "planar", "screw", "rpy_floating", "quaternion_floating")

    # ---- limits, damping, defaults ------------------------------------------------------
    def position_lower_limits(self) -> np.ndarray:
        return self._pos_lower.copy()

    def position_upper_limits(self) -> np.ndarray:
        return self._pos_upper.copy()

    def velocity_lower_limits(self) -> np.ndarray:
        return self._vel_lower.copy()

    def velocity_upper_limits(self) -> np.ndarray:
        return self._vel_upper.copy()

    def acceleration_lower_limits(self) -> np.ndarray:
        return self._acc_lower.copy()

    def acceleration_upper_limits(self) -> np.ndarray:
        return self._acc_upper.copy()

    def _set_limits(self, what: str, attrs: tuple[str, str], lower, upper, n: int) -> None:
        """Set a pair of limits; after Finalize only to the values already compiled into the model."""
        lo = self._vec(lower, n, -np.inf, f"{what} lower limits")
        up = self._vec(upper, n, np.inf, f"{what} upper limits")
        if np.any(lo > up):
            raise ValueError(f"joint '{self._name}': a {what} lower limit exceeds its upper limit")
        plant = self._plant
        if plant is not None and plant.is_finalized() and not (
                np.array_equal(lo, getattr(self, attrs[0])) and np.array_equal(up, getattr(self, attrs[1]))):
            raise RuntimeError(f"joint '{self._name}': its {what} limits are compiled into the model at Finalize; "
                               f"set them before MultibodyPlant.Finalize()")
        setattr(self, attrs[0], lo)
        setattr(self, attrs[1], up)

    def _pre_finalize(self, what: str):
        if self._plant is not None and self._plant.is_finalized():
            raise RuntimeError(f"joint '{self._name}': {what} must be called before Finalize()")

    def set_position_limits(self, lower_limits, upper_limits) -> None:
        """Set the position limits (before Finalize; afterwards only to the compiled values)."""
        self._set_limits("position", ("_pos_lower", "_pos_upper"), lower_limits, upper_limits, self._nq)

    def set_velocity_limits(self, lower_limits, upper_limits) -> None:
        """Set the velocity limits (before Finalize; afterwards only to the compiled values)."""
        self._set_limits("velocity", ("_vel_lower", "_vel_upper"), lower_limits, upper_limits, self._nv)

    def set_acceleration_limits(self, lower_limits, upper_limits) -> None:
        """Set the acceleration limits (before Finalize; afterwards only to the compiled values)."""
        self._set_limits("acceleration", ("_acc_lower", "_acc_upper"), lower_limits, upper_limits, self._nv)

    def default_damping_vector(self) -> np.ndarray:
        """Viscous damping per velocity (N·m·s or N·s)."""
        return self._damping.copy()

    def GetDampingVector(self, context) -> np.ndarray:
        """The damping per velocity in `context` (the default unless SetDampingVector changed it there)."""
        return self.GetParentPlant()._joint_parameter(context, self, "damping", self._damping).copy()

    def SetDampingVector(self, context, damping) -> None:
        """Set the damping per velocity in `context` only."""
        d = self._vec(damping, self._nv, 0.0, "damping")
        if np.any(d < 0):
            raise ValueError(f"joint '{self._name}': damping must be non-negative, got {d}")
        self.GetParentPlant()._set_joint_parameter(context, self, "damping", d, self._damping)

    def AddInDamping(self, context, forces) -> None:
        """Add this joint's damping forces −d⊙v (with the damping in `context`) to forces' generalized forces."""
        vs = self.velocity_start()
        tau = forces.mutable_generalized_forces()
        tau[vs:vs + self._nv] -= self.GetDampingVector(context) * self._v(context)

    # ---- default pose (Drake implements it for floating joints only) ----------------------------------
    def _pose_not_implemented(self, what: str):
        raise RuntimeError(f"{what}(): not implemented for joint type {self._type_name}.")

    def GetDefaultPosePair(self):
        """(q_FM as a Quaternion, p_FM): the default pose of M in F."""
        self._pose_not_implemented("GetDefaultPosePair")

    def SetDefaultPosePair(self, q_FM, p_FM) -> None:
        """Set the default positions to represent the pose (q_FM, p_FM) of M in F."""
        self._pose_not_implemented("SetDefaultPosePair")

    def GetDefaultPose(self):
        """X_FM at the default positions."""
        from mallard.multibody.math import RigidTransform
        if type(self).GetDefaultPosePair is Joint.GetDefaultPosePair:
            self._pose_not_implemented("GetDefaultPose")
        q, p = self.GetDefaultPosePair()
        return RigidTransform(q, p)

    def SetDefaultPose(self, X_FM) -> None:
        """Set the default positions to represent X_FM."""
        if type(self).SetDefaultPosePair is Joint.SetDefaultPosePair:
            self._pose_not_implemented("SetDefaultPose")
        self.SetDefaultPosePair(X_FM.rotation().ToQuaternion(), X_FM.translation())

    # ---- locking (discrete plants) -------------------------------------------------------------------
    def Lock(self, context) -> None:
        """Lock this joint in `context`: its velocities become zero and stay zero (discrete plants only)."""
        plant = self.GetParentPlant()
        plant._set_joint_locked(context, self, True)
        if self._nv:
            self._set_v(context, np.zeros(self._nv))

    def Unlock(self, context) -> None:
        """Unlock this joint in `context`."""
        self.GetParentPlant()._set_joint_locked(context, self, False)

    def is_locked(self, context) -> bool:
        """Whether this joint is locked in `context`."""
        return self.GetParentPlant()._is_joint_locked(context, self)

    # ---- names --------------------------------------------------------------------------------------
    def position_suffix(self, position_index_in_joint: int) -> str:
        """The suffix of position i in state names (e.g. "q" for a revolute joint: "<joint>_q")."""
        return self._position_suffixes[int(position_index_in_joint)]

    def velocity_suffix(self, velocity_index_in_joint: int) -> str:
        """The suffix of velocity i in state names (e.g. "w" for a revolute joint)."""
        return self._velocity_suffixes[int(velocity_index_in_joint)]

    def set_default_damping_vector(self, damping) -> None:
        """Set the damping per velocity (pre-Finalize)."""
        self._pre_finalize("set_default_damping_vector")
        d = self._vec(damping, self._nv, 0.0, "damping")
        if np.any(d < 0):
            raise ValueError(f"joint '{self._name}': damping must be non-negative, got {d}")
        self._damping = d

    def default_armature(self) -> np.ndarray:
        """Armature per velocity [kg·m² or kg] added to the mass-matrix diagonal (mallard extension, MJCF's armature)."""
        return self._armature.copy()

    def set_default_armature(self, armature) -> None:
        """Set the armature per velocity (pre-Finalize); it adds to any actuator's reflected inertia."""
        self._pre_finalize("set_default_armature")
        a = self._vec(armature, self._nv, 0.0, "armature")
        if np.any(a < 0) or not np.all(np.isfinite(a)):
            raise ValueError(f"joint '{self._name}': armature must be finite and non-negative, got {a}")
        self._armature = a

    def default_positions(self) -> np.ndarray:
        """Default positions used by SetDefaultState."""
        return self._default_positions.copy()

    def set_default_positions(self, default_positions) -> None:
        """Set the default positions used by SetDefaultState."""
        self._default_positions = self._vec(default_positions, self._nq, 0.0, "default positions")
        if self._plant is not None and self._plant.is_finalized():
            self._plant._default_positions_changed()

    def set_random_positions_distribution(self, distribution) -> None:
        """Use `distribution(generator) -> positions` for this joint in MultibodyPlant.SetRandomState
        (the Python form of Drake's symbolic random-variable expressions); None restores the default."""
        if distribution is not None and not callable(distribution):
            raise ValueError(f"joint '{self._name}': the distribution must be callable(generator) -> positions")
        self._random_positions = distribution

    def _sample_positions(self, generator) -> np.ndarray:
        if self._random_positions is None:
            return self._default_positions.copy()
        return self._vec(self._random_positions(generator), self._nq, 0.0, "random positions")

    # ---- context access ------------------------------------------------------------------
    def _q(self, context):
        return self.GetParentPlant().GetPositions(context)[self.position_start():self.position_start() + self._nq]

    def _v(self, context):
        return self.GetParentPlant().GetVelocities(context)[self.velocity_start():self.velocity_start() + self._nv]

    def _set_q(self, context, values):
        plant = self.GetParentPlant()
        q = np.array(plant.GetPositions(context))
        q[self.position_start():self.position_start() + self._nq] = values
        plant.SetPositions(context, q)

    def _set_v(self, context, values):
        plant = self.GetParentPlant()
        v = np.array(plant.GetVelocities(context))
        v[self.velocity_start():self.velocity_start() + self._nv] = values
        plant.SetVelocities(context, v)

    def GetOnePosition(self, context) -> float:
        """The single position of a 1-dof joint."""
        if self._nq != 1:
            raise RuntimeError(f"joint '{self._name}' has {self._nq} positions; GetOnePosition needs exactly 1")
        return float(self._q(context)[0])

    def GetOneVelocity(self, context) -> float:
        """The single velocity of a 1-dof joint."""
        if self._nv != 1:
            raise RuntimeError(f"joint '{self._name}' has {self._nv} velocities; GetOneVelocity needs exactly 1")
        return float(self._v(context)[0])

    def GetPositions(self, context) -> np.ndarray:
        """This joint's positions in `context` (copy)."""
        return np.array(self._q(context))

    def GetVelocities(self, context) -> np.ndarray:
        """This joint's velocities in `context` (copy)."""
        return np.array(self._v(context))

    def SetPositions(self, context, positions) -> None:
        """Write this joint's positions into `context`."""
        self._set_q(context, self._vec(positions, self._nq, 0.0, "positions"))

    def SetVelocities(self, context, velocities) -> None:
        """Write this joint's velocities into `context`."""
        self._set_v(context, self._vec(velocities, self._nv, 0.0, "velocities"))

    def AddInOneForce(self, context, joint_dof: int, joint_tau: float, forces) -> None:
        """Add a generalized force on one of this joint's velocities into `forces`."""
        if not 0 <= joint_dof < self._nv:
            raise ValueError(f"joint '{self._name}': joint_dof {joint_dof} out of range [0, {self._nv})")
        forces.mutable_generalized_forces()[self.velocity_start() + joint_dof] += joint_tau

    # ---- compiled data ---------------------------------------------------------------------
    def _axis_and_pitch(self) -> tuple[np.ndarray, float]:
        return np.zeros(3), 0.0

    def _fixed_X_FM(self):
        return np.eye(3), np.zeros(3)


# Element accessors give users handles that keep the plant alive (see MultibodyElement).
hands_out(Joint, ("frame_on_parent", "frame_on_child", "parent_body", "child_body"))
