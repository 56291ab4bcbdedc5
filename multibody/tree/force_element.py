"""Force elements: uniform gravity, linear spring-damper, revolute/prismatic springs, the bushing and MuJoCo's
ball / free joint springs.

Each element adds body spatial forces F_Bo_W and/or generalized forces τ given the state, and
reports its potential energy and power.  `kin` is the plant's kinematics cache for the context
(world poses R_WB, p_WB and Plücker velocities V at Wo), so elements never recompute kinematics.
The elements the discrete step compiles describe themselves to its passive stage as rows (`_Rows`) of the kernels
of kernels/force_elements.py (the spring-damper and MuJoCo's springs share them here too).
"""
from __future__ import annotations

import numpy as np

from ..kernels.force_elements import BallFreeSpringEnergy, BallFreeSpringForces, SpringDamperForces
from .element import MultibodyElement, hands_out


class ForceElement(MultibodyElement):
    """Base class of force elements; subclasses implement the `_Calc*` hooks."""

    _kind = "force element"

    def __init__(self, model_instance=None, name: str = ""):
        super().__init__(name, model_instance)

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        return None

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        return 0.0

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        return 0.0

    def _CalcNonConservativePower(self, context, kin, q, v) -> float:
        return 0.0


def _point_velocity(kin, body: int, p_WP: np.ndarray) -> np.ndarray:
    V = kin.V[body]
    return V[3:6] + np.cross(V[0:3], p_WP)


class UniformGravityFieldElement(ForceElement):
    """Uniform gravity g_W acting at every body's center of mass (default [0, 0, −9.81] m/s²)."""

    kDefaultStrength = 9.81

    def __init__(self, g_W=(0.0, 0.0, -9.81)):
        super().__init__(None, "gravity")
        self._g = self._check(g_W)
        self._disabled: set = set()

    @staticmethod
    def _check(g_W) -> np.ndarray:
        g = np.asarray(g_W, dtype=float).reshape(-1)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ValueError(f"gravity vector must be a finite 3-vector, got {g_W!r}")
        return g

    def gravity_vector(self) -> np.ndarray:
        """g_W [m/s²]."""
        return self._g.copy()

    def set_gravity_vector(self, g_W) -> None:
        """Set g_W."""
        self._g = self._check(g_W)

    def is_enabled(self, model_instance) -> bool:
        """Whether gravity acts on the bodies of `model_instance`."""
        return int(model_instance) not in self._disabled

    def set_enabled(self, model_instance, is_enabled: bool) -> None:
        """Enable/disable gravity for one model instance (pre-Finalize)."""
        if self._plant is not None and self._plant.is_finalized():
            raise RuntimeError("gravity_field().set_enabled() must be called before Finalize()")
        if self._plant is not None:
            self._plant._CheckModelInstance(model_instance)
        (self._disabled.discard if is_enabled else self._disabled.add)(int(model_instance))

    def _com_positions_and_velocities(self, context, kin):
        plant = self.GetParentPlant()
        bp = plant._body_params(context)
        com_W = kin.p_WB + np.einsum("bij,bj->bi", kin.R_WB, bp[:, 1:4])
        vcom = kin.V[:, 3:6] + np.cross(kin.V[:, 0:3], com_W)
        m = bp[:, 0] * plant._gravity_enabled_mask()
        return m, com_W, vcom

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        m, com_W, _ = self._com_positions_and_velocities(context, kin)
        return float(-np.sum(m * (com_W @ self._g)))

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        m, _, vcom = self._com_positions_and_velocities(context, kin)
        return float(np.sum(m * (vcom @ self._g)))

    def CalcGravityGeneralizedForces(self, context) -> np.ndarray:
        """τ_g(q): the generalized forces of this gravity field on the plant (as MultibodyPlant's)."""
        return self.GetParentPlant().CalcGravityGeneralizedForces(context)


class LinearSpringDamper(ForceElement):
    """A spring-damper between point P on body A and point Q on body B.

    f = k·(ℓ − ℓ₀) + c·ℓ̇ along the unit vector from P to Q, pulling P and Q together when stretched.
    """

    def __init__(self, bodyA, p_AP, bodyB, p_BQ, free_length: float, stiffness: float, damping: float):
        super().__init__(bodyA.model_instance(), "")
        if not free_length > 0:
            raise ValueError(f"LinearSpringDamper: free_length must be positive, got {free_length}")
        if stiffness < 0 or damping < 0:
            raise ValueError(f"LinearSpringDamper: stiffness and damping must be non-negative, got {stiffness}, {damping}")
        self._A, self._B = bodyA, bodyB
        self._p_AP = np.asarray(p_AP, dtype=float).reshape(3)
        self._p_BQ = np.asarray(p_BQ, dtype=float).reshape(3)
        self._l0, self._k, self._c = float(free_length), float(stiffness), float(damping)

    def bodyA(self):
        return self._A

    def bodyB(self):
        return self._B

    def p_AP(self) -> np.ndarray:
        return self._p_AP.copy()

    def p_BQ(self) -> np.ndarray:
        return self._p_BQ.copy()

    def free_length(self) -> float:
        return self._l0

    def stiffness(self) -> float:
        return self._k

    def damping(self) -> float:
        return self._c

    def _geometry(self, kin):
        a, b = int(self._A.index()), int(self._B.index())
        p_WP = kin.p_WB[a] + kin.R_WB[a] @ self._p_AP
        p_WQ = kin.p_WB[b] + kin.R_WB[b] @ self._p_BQ
        d = p_WQ - p_WP
        length = np.linalg.norm(d)
        if length < 1e-12:
            raise RuntimeError("LinearSpringDamper: the two attachment points coincide; the spring direction is undefined")
        u = d / length
        ldot = float(u @ (_point_velocity(kin, b, p_WQ) - _point_velocity(kin, a, p_WP)))
        return a, b, p_WP, p_WQ, u, length, ldot

    def _Rows(self) -> tuple:
        """(bodies (1, 2), points p_AP, p_BQ (1, 6), ℓ₀, k, c (1, 3)): this spring's row of SpringDamperForces."""
        return (np.array([[int(self._A.index()), int(self._B.index())]], np.int64),
                np.concatenate([self._p_AP, self._p_BQ]).reshape(1, 6), np.array([[self._l0, self._k, self._c]]))

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        if SpringDamperForces(*self._Rows(), kin.R_WB, kin.p_WB, kin.V, F_Bo_W) >= 0:
            self._geometry(kin)  # raises: the two attachment points coincide

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        _, _, _, _, _, length, _ = self._geometry(kin)
        return 0.5 * self._k * (length - self._l0) ** 2

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        _, _, _, _, _, length, ldot = self._geometry(kin)
        return -self._k * (length - self._l0) * ldot

    def _CalcNonConservativePower(self, context, kin, q, v) -> float:
        _, _, _, _, _, _, ldot = self._geometry(kin)
        return -self._c * ldot * ldot


class RevoluteSpring(ForceElement):
    """A torsional spring on a revolute joint: τ = −k·(θ − θ₀)."""

    def __init__(self, joint, nominal_angle: float, stiffness: float):
        super().__init__(joint.model_instance(), "")
        if joint.num_positions() != 1 or joint.type_name() != "revolute":
            raise ValueError(f"RevoluteSpring: joint '{joint.name()}' is not a revolute joint")
        if stiffness < 0:
            raise ValueError(f"RevoluteSpring: stiffness must be non-negative, got {stiffness}")
        self._joint, self._q0, self._k = joint, float(nominal_angle), float(stiffness)

    def joint(self):
        return self._joint

    def default_nominal_angle(self) -> float:
        """θ₀ (rad) used by new contexts."""
        return self._q0

    def default_stiffness(self) -> float:
        """k (N·m/rad) used by new contexts."""
        return self._k

    nominal_angle = default_nominal_angle
    stiffness = default_stiffness

    def GetNominalAngle(self, context) -> float:
        """θ₀ (rad) in `context`."""
        return float(self.GetParentPlant()._force_element_parameter(context, self, "nominal_angle", self._q0))

    def SetNominalAngle(self, context, nominal_angle: float) -> None:
        """Set θ₀ (rad) in `context` only."""
        self.GetParentPlant()._set_force_element_parameter(context, self, "nominal_angle", float(nominal_angle))

    def GetStiffness(self, context) -> float:
        """k (N·m/rad) in `context`."""
        return float(self.GetParentPlant()._force_element_parameter(context, self, "stiffness", self._k))

    def SetStiffness(self, context, stiffness: float) -> None:
        """Set k (N·m/rad, ≥ 0) in `context` only."""
        if stiffness < 0:
            raise ValueError(f"RevoluteSpring: stiffness must be non-negative, got {stiffness}")
        self.GetParentPlant()._set_force_element_parameter(context, self, "stiffness", float(stiffness))

    def _values(self, context) -> tuple[float, float]:
        return self.GetNominalAngle(context), self.GetStiffness(context)

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        q0, k = self._values(context)
        tau[self._joint.velocity_start()] -= k * (q[self._joint.position_start()] - q0)

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        q0, k = self._values(context)
        return 0.5 * k * (q[self._joint.position_start()] - q0) ** 2

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        q0, k = self._values(context)
        return -k * (q[self._joint.position_start()] - q0) * v[self._joint.velocity_start()]


class DoorHingeConfig:
    """Parameters of a DoorHinge (Drake's defaults): a torsional spring k·(θ − θ₀) (N·m/rad, rad), dynamic and
    static friction torques (N·m) smoothed over `motion_threshold` (rad/s), viscous friction (N·m·s/rad) and a
    catch of width `catch_width` (rad) with peak torque `catch_torque` (N·m) near the closed position."""

    _FIELDS = ("spring_zero_angle_rad", "spring_constant", "dynamic_friction_torque", "static_friction_torque",
               "viscous_friction", "catch_width", "catch_torque", "motion_threshold")

    def __init__(self, spring_zero_angle_rad: float = -1.5, spring_constant: float = 1.5,
                 dynamic_friction_torque: float = 3.0, static_friction_torque: float = 2.0,
                 viscous_friction: float = 1.0, catch_width: float = 0.02, catch_torque: float = 15.0,
                 motion_threshold: float = 0.001) -> None:
        values = locals()
        for name in self._FIELDS:
            setattr(self, name, float(values[name]))

    def __repr__(self) -> str:
        return "DoorHingeConfig(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._FIELDS) + ")"


def _approximation_curves(t: float, x: float) -> tuple[float, float, float]:
    """s = tanh(x/t), its singlet 1 − s² and doublet 2s(1 − s²) (Drake's door_hinge.cc)."""
    if not t > 0:
        raise ValueError(f"DoorHinge: the smoothing width must be positive, got {t}")
    s = float(np.tanh(x / t))
    singlet = 1.0 - s * s
    return s, singlet, 2.0 * s * singlet


class DoorHinge(ForceElement):
    """A door hinge on a revolute joint: spring, friction and a catch (Drake's DoorHinge, torque about the joint)."""

    def __init__(self, joint, config: DoorHingeConfig):
        super().__init__(joint.model_instance(), "")
        if joint.type_name() != "revolute":
            raise ValueError(f"DoorHinge: joint '{joint.name()}' is not a revolute joint")
        for name in ("spring_constant", "dynamic_friction_torque", "static_friction_torque", "viscous_friction",
                     "catch_width", "motion_threshold"):
            if getattr(config, name) < 0:
                raise ValueError(f"DoorHinge: config.{name} must be non-negative, got {getattr(config, name)}")
        self._joint = joint
        self._config = DoorHingeConfig(**{n: getattr(config, n) for n in DoorHingeConfig._FIELDS})

    def joint(self):
        return self._joint

    def config(self) -> DoorHingeConfig:
        return DoorHingeConfig(**{n: getattr(self._config, n) for n in DoorHingeConfig._FIELDS})

    def CalcHingeFrictionalTorque(self, angular_rate: float) -> float:
        """The friction torque (N·m) at this angular rate (rad/s), as Drake computes it."""
        c = self._config
        if c.motion_threshold == 0:
            return c.viscous_friction * angular_rate
        s, _, doublet = _approximation_curves(c.motion_threshold, angular_rate)
        return -(c.dynamic_friction_torque * s + c.static_friction_torque * doublet
                 + c.viscous_friction * angular_rate)

    def CalcHingeSpringTorque(self, angle: float) -> float:
        """The spring and catch torque (N·m) at this angle (rad)."""
        c = self._config
        spring = -c.spring_constant * (angle - c.spring_zero_angle_rad)
        if c.catch_width == 0:
            return spring
        center = c.catch_width / 2
        _, _, doublet = _approximation_curves(center, angle - center)
        return c.catch_torque * doublet + spring

    def CalcHingeTorque(self, angle: float, angular_rate: float) -> float:
        """Total hinge torque (N·m): friction plus spring and catch."""
        return self.CalcHingeFrictionalTorque(angular_rate) + self.CalcHingeSpringTorque(angle)

    def _stored_energy(self, angle: float) -> float:
        c = self._config
        off, off0 = angle - c.spring_zero_angle_rad, -c.spring_zero_angle_rad
        energy = 0.5 * c.spring_constant * (off * off - off0 * off0)
        if c.catch_width != 0:
            center = c.catch_width / 2
            energy += c.catch_torque * center * (_approximation_curves(center, angle - center)[1]
                                                 - _approximation_curves(center, -center)[1])
        return energy

    def _angle_rate(self, q, v) -> tuple[float, float]:
        return float(q[self._joint.position_start()]), float(v[self._joint.velocity_start()])

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        angle, rate = self._angle_rate(q, v)
        tau[self._joint.velocity_start()] += self.CalcHingeTorque(angle, rate)

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        return self._stored_energy(float(q[self._joint.position_start()]))

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        angle, rate = self._angle_rate(q, v)
        return rate * self.CalcHingeSpringTorque(angle)

    def _CalcNonConservativePower(self, context, kin, q, v) -> float:
        _, rate = self._angle_rate(q, v)
        return rate * self.CalcHingeFrictionalTorque(rate)


class PrismaticSpring(ForceElement):
    """A linear spring on a prismatic joint: f = −k·(x − x₀)."""

    def __init__(self, joint, nominal_position: float, stiffness: float):
        super().__init__(joint.model_instance(), "")
        if joint.type_name() != "prismatic":
            raise ValueError(f"PrismaticSpring: joint '{joint.name()}' is not a prismatic joint")
        if stiffness < 0:
            raise ValueError(f"PrismaticSpring: stiffness must be non-negative, got {stiffness}")
        self._joint, self._x0, self._k = joint, float(nominal_position), float(stiffness)

    def joint(self):
        return self._joint

    def nominal_position(self) -> float:
        return self._x0

    def stiffness(self) -> float:
        return self._k

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        tau[self._joint.velocity_start()] -= self._k * (q[self._joint.position_start()] - self._x0)

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        return 0.5 * self._k * (q[self._joint.position_start()] - self._x0) ** 2

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        return -self._k * (q[self._joint.position_start()] - self._x0) * v[self._joint.velocity_start()]


def GimbalLockError() -> RuntimeError:
    """The error of a LinearBushingRollPitchYaw at pitch ±π/2."""
    return RuntimeError("LinearBushingRollPitchYaw: pitch is ±π/2 (gimbal lock); roll-pitch-yaw rates are undefined")


class LinearBushingRollPitchYaw(ForceElement):
    """A massless bushing between frame A (on link0) and frame C (on link1), Drake's quasi-symmetric model.

    Gimbal torques τ = −k₀₁₂⊙q − d₀₁₂⊙q̇ with q the roll-pitch-yaw angles of R_AC, applied as the torque
    t = Nᵀτ (expressed in A) on C and −t on A; force f = −kxyz⊙[x y z] − dxyz⊙[ẋ ẏ ż] expressed in the
    half-angle frame B (origin halfway between Ao and Co), applied on C at Bo and its negative on A at Bo.
    """

    def __init__(self, frameA, frameC, torque_stiffness_constants, torque_damping_constants,
                 force_stiffness_constants, force_damping_constants):
        super().__init__(frameA.body().model_instance(), "")
        self._frameA, self._frameC = frameA, frameC
        vals = []
        for what, k in (("torque_stiffness_constants", torque_stiffness_constants),
                        ("torque_damping_constants", torque_damping_constants),
                        ("force_stiffness_constants", force_stiffness_constants),
                        ("force_damping_constants", force_damping_constants)):
            a = np.asarray(k, dtype=float).reshape(-1)
            if a.shape != (3,) or np.any(a < 0) or not np.all(np.isfinite(a)):
                raise ValueError(f"LinearBushingRollPitchYaw: {what} must be 3 finite non-negative values, got {k!r}")
            vals.append(a)
        self._k012, self._d012, self._kxyz, self._dxyz = vals

    def frameA(self):
        return self._frameA

    def frameC(self):
        return self._frameC

    def link0(self):
        return self._frameA._body

    def link1(self):
        return self._frameC._body

    def torque_stiffness_constants(self) -> np.ndarray:
        return self._k012.copy()

    def torque_damping_constants(self) -> np.ndarray:
        return self._d012.copy()

    def force_stiffness_constants(self) -> np.ndarray:
        return self._kxyz.copy()

    def force_damping_constants(self) -> np.ndarray:
        return self._dxyz.copy()

    def _state(self, context):
        """(q, q̇, xyz, xyz_dot, R_WA, R_AB, p_WAo, p_WCo, N) of the bushing."""
        from ..math.functions import quaternion_from_rotation_matrix, rotation_matrix_from_quaternion
        from ..math.functions import rpy_from_rotation_matrix
        plant = self.GetParentPlant()
        R_WA, p_WAo = plant._frame_pose_arrays(context, self._frameA)
        R_WC, p_WCo = plant._frame_pose_arrays(context, self._frameC)
        R_AC = R_WA.T @ R_WC
        q = np.asarray(rpy_from_rotation_matrix(R_AC), dtype=float)
        quat = quaternion_from_rotation_matrix(R_AC)
        if quat[0] < 0:
            quat = -quat
        half = np.array([1.0 + quat[0], quat[1], quat[2], quat[3]])
        R_AB = rotation_matrix_from_quaternion(half / np.linalg.norm(half))
        V = plant.CalcSpatialVelocity(context, self._frameC, self._frameA, self._frameA).get_coeffs()
        w_AC_A, v_ACo_A = V[:3], V[3:]
        p_AoCo_A = R_WA.T @ (p_WCo - p_WAo)
        xyz = R_AB.T @ p_AoCo_A
        xyz_dot = R_AB.T @ (v_ACo_A - np.cross(0.5 * w_AC_A, p_AoCo_A))
        cp, sp = np.cos(q[1]), np.sin(q[1])
        if abs(cp) < 1e-12:
            raise RuntimeError("LinearBushingRollPitchYaw: pitch is ±π/2 (gimbal lock); roll-pitch-yaw rates are undefined")
        cy, sy = np.cos(q[2]), np.sin(q[2])
        N = np.array([[cy / cp, sy / cp, 0.0], [-sy, cy, 0.0], [cy * sp / cp, sy * sp / cp, 1.0]])
        return q, N @ w_AC_A, xyz, xyz_dot, R_WA, R_AB, p_WAo, p_WCo, N

    def _Rows(self) -> tuple:
        """(bodies of A and C (1, 2), R_BA, p_BA, R_BC, p_BC of the frames on their bodies (1, 24), gains k₀₁₂,
        d₀₁₂, kxyz, dxyz (1, 12)): this bushing's row of BushingForces."""
        fA, fC = self._frameA, self._frameC
        X = np.concatenate([np.ravel(fA._R_BF), fA._p_BF, np.ravel(fC._R_BF), fC._p_BF]).astype(float)
        return (np.array([[int(fA._body.index()), int(fC._body.index())]], np.int64), X.reshape(1, 24),
                np.concatenate([self._k012, self._d012, self._kxyz, self._dxyz]).reshape(1, 12))

    def _CalcAndAddForceContribution(self, context, kin, q_all, v_all, F_Bo_W, tau_all) -> None:
        q, qdot, xyz, xyz_dot, R_WA, R_AB, p_WAo, p_WCo, N = self._state(context)
        k012, d012, kxyz, dxyz = (self.GetTorqueStiffnessConstants(context), self.GetTorqueDampingConstants(context),
                                  self.GetForceStiffnessConstants(context), self.GetForceDampingConstants(context))
        tau = -k012 * q - d012 * qdot
        t_W = R_WA @ (N.T @ tau)
        f_W = R_WA @ (R_AB @ (-kxyz * xyz - dxyz * xyz_dot))
        p_WBo = 0.5 * (p_WAo + p_WCo)
        a, c = int(self.link0().index()), int(self.link1().index())
        F_Bo_W[c, :3] += t_W + np.cross(p_WBo - kin.p_WB[c], f_W)
        F_Bo_W[c, 3:] += f_W
        F_Bo_W[a, :3] -= t_W + np.cross(p_WBo - kin.p_WB[a], f_W)
        F_Bo_W[a, 3:] -= f_W

    def _gains(self, context, name: str, default: np.ndarray) -> np.ndarray:
        return np.array(self.GetParentPlant()._force_element_parameter(context, self, name, default), dtype=float)

    def _set_gains(self, context, name: str, value) -> None:
        a = np.asarray(value, dtype=float).reshape(-1)
        if a.shape != (3,) or np.any(a < 0) or not np.all(np.isfinite(a)):
            raise ValueError(f"LinearBushingRollPitchYaw: {name} must be 3 finite non-negative values, got {value!r}")
        self.GetParentPlant()._set_force_element_parameter(context, self, name, a.copy())

    def GetTorqueStiffnessConstants(self, context) -> np.ndarray:
        """k₀₁₂ (N·m/rad) in `context`."""
        return self._gains(context, "torque_stiffness", self._k012)

    def GetTorqueDampingConstants(self, context) -> np.ndarray:
        """d₀₁₂ (N·m·s/rad) in `context`."""
        return self._gains(context, "torque_damping", self._d012)

    def GetForceStiffnessConstants(self, context) -> np.ndarray:
        """kxyz (N/m) in `context`."""
        return self._gains(context, "force_stiffness", self._kxyz)

    def GetForceDampingConstants(self, context) -> np.ndarray:
        """dxyz (N·s/m) in `context`."""
        return self._gains(context, "force_damping", self._dxyz)

    def SetTorqueStiffnessConstants(self, context, torque_stiffness) -> None:
        self._set_gains(context, "torque_stiffness", torque_stiffness)

    def SetTorqueDampingConstants(self, context, torque_damping) -> None:
        self._set_gains(context, "torque_damping", torque_damping)

    def SetForceStiffnessConstants(self, context, force_stiffness) -> None:
        self._set_gains(context, "force_stiffness", force_stiffness)

    def SetForceDampingConstants(self, context, force_damping) -> None:
        self._set_gains(context, "force_damping", force_damping)

    def CalcBushingSpatialForceOnFrameA(self, context):
        """F_A_W: the bushing's spatial force on frame A at Ao, expressed in W."""
        F_C, p_WAo, p_WCo = self._forces_on_C(context)
        from ._convert import make_spatial
        f = F_C[3:]
        return make_spatial("SpatialForce", np.concatenate([-(F_C[:3] + np.cross(p_WCo - p_WAo, f)), -f]))

    def CalcBushingSpatialForceOnFrameC(self, context):
        """F_C_W: the bushing's spatial force on frame C at Co, expressed in W."""
        from ._convert import make_spatial
        return make_spatial("SpatialForce", self._forces_on_C(context)[0])

    def _forces_on_C(self, context):
        """([t; f] on C at Co in W, p_WAo, p_WCo)."""
        q, qdot, xyz, xyz_dot, R_WA, R_AB, p_WAo, p_WCo, N = self._state(context)
        tau = -self.GetTorqueStiffnessConstants(context) * q - self.GetTorqueDampingConstants(context) * qdot
        t_W = R_WA @ (N.T @ tau)
        f_W = R_WA @ (R_AB @ (-self.GetForceStiffnessConstants(context) * xyz
                              - self.GetForceDampingConstants(context) * xyz_dot))
        p_WBo = 0.5 * (p_WAo + p_WCo)
        return np.concatenate([t_W + np.cross(p_WBo - p_WCo, f_W), f_W]), p_WAo, p_WCo

    def _energy_undefined(self, what: str):
        raise RuntimeError(f"LinearBushingRollPitchYaw: {what} is not defined for this bushing model (its force acts "
                           "at the moving half-angle frame B, so the work is path dependent); Drake raises as well")

    def _CalcPotentialEnergy(self, context, kin, q_all) -> float:
        self._energy_undefined("potential energy")

    def _CalcConservativePower(self, context, kin, q_all, v_all) -> float:
        self._energy_undefined("conservative power")

    def _CalcNonConservativePower(self, context, kin, q_all, v_all) -> float:
        self._energy_undefined("non-conservative power")


class MjcfBallFreeSprings(ForceElement):
    """MuJoCo's joint springs on ball and free joints (MJCF joint `stiffness`, mj_springdamper), one element per MJCF
    model: [(Joint, 'ball' | 'free', k, qpos_spring)]. A free joint pulls its translation toward qpos_spring with
    −k·(p − p_spring) (world); ball and free rotations get the torque −k·r with r the rotation vector of
    conj(q_spring)·q, in the child frame (angle wrapped to [−π, π]). Hinge / slide springs are RevoluteSpring /
    PrismaticSpring."""

    def __init__(self, springs: list, model_instance=None):
        super().__init__(model_instance, "mjcf_ball_free_springs")
        self._joints = [s[0] for s in springs]
        self._kind = np.array([0 if s[1] == "ball" else 1 for s in springs], np.int64)
        self._k = np.array([float(s[2]) for s in springs], float)
        qsp = np.zeros((len(springs), 7))
        for i, s in enumerate(springs):
            ref = np.asarray(s[3], float)
            qsp[i, :ref.shape[0]] = ref
        self._q_spring = qsp

    def _Rows(self) -> tuple:
        """(kind (0 ball, 1 free), q start, v start, stiffness, qpos_spring (n, 7)): BallFreeSpringForces' rows."""
        return (self._kind, np.array([j.position_start() for j in self._joints], np.int64),
                np.array([j.velocity_start() for j in self._joints], np.int64), self._k, self._q_spring)

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        BallFreeSpringForces(*self._Rows(), np.ascontiguousarray(q, float), tau)

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        kind, qs, _vs, k, q_spring = self._Rows()
        return float(BallFreeSpringEnergy(kind, qs, k, q_spring, np.ascontiguousarray(q, float)))

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        tau = np.zeros(len(v))
        BallFreeSpringForces(*self._Rows(), np.ascontiguousarray(q, float), tau)
        return float(tau @ v)


# Element accessors give users handles that keep the plant alive (see MultibodyElement).
hands_out(LinearSpringDamper, ("bodyA", "bodyB"))
hands_out(RevoluteSpring, ("joint",))
hands_out(DoorHinge, ("joint",))
hands_out(PrismaticSpring, ("joint",))
hands_out(LinearBushingRollPitchYaw, ("frameA", "frameC", "link0", "link1"))
