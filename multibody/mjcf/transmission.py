"""Configuration-dependent MJCF transmissions on sites (MuJoCo's mj_transmission): a site with or without a
reference site, and the slider-crank. Each gives the actuator length L and moment row m = dL/dv in plant
velocity coordinates, from the plant's body poses and Jacobians.

* site without refsite: L = 0, m = Jᵀ (R_WS gear), the gear 6-vector [force; torque] in the site frame S;
* site with refsite R: L = gear[:3]·(R_WRᵀ (p_WS − p_WR)) + gear[3:]·log(q_WRᴴ q_WS) (the site's translation and
  rotation vector expressed in the refsite frame), m = (J_S − J_R)ᵀ (R_WR gear) with the columns of the dofs both
  sites share (their common ancestor joints) cleared, as MuJoCo does;
* slider-crank (crank site C, slider site Sl with axis a = z of Sl, rod length r): v = p_C − p_Sl,
  L = gear·(a·v − √((a·v)² + r² − v·v)) (a·v when the determinant is not positive),
  m = gear·(∂L/∂a J_a + ∂L/∂v J_v) with J_a = ω-Jacobian of Sl × a and J_v = J_C − J_Sl (translational
  Jacobians at the sites).

Also MuJoCo 4's orientation servo (So3Servo) and the wrap period of rotational position servos (WrapPeriod).
"""
from __future__ import annotations

import math

import numpy as np

from ..math.functions import quaternion_from_rotation_matrix, rotation_matrix_from_quaternion
from ..tree.indices import JacobianWrtVariable

__all__ = ["MjcfSiteTransmission", "RotationVector", "So3Servo", "WrapPeriod"]


def RotationVector(quat: np.ndarray) -> np.ndarray:
    """axis·angle [rad] of a quaternion [w x y z] (normalized here), angle wrapped to (−π, π] (mju_quat2Vel)."""
    quat = np.asarray(quat, float) / np.linalg.norm(quat)
    s = math.sqrt(float(quat[1] ** 2 + quat[2] ** 2 + quat[3] ** 2))
    if s == 0.0:
        return np.zeros(3)
    angle = 2.0 * math.atan2(s, float(quat[0]))
    if angle > math.pi:
        angle -= 2.0 * math.pi
    return quat[1:] / s * angle


def _qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w1, v1, w2, v2 = a[0], a[1:], b[0], b[1:]
    return np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])


def _conj(q: np.ndarray) -> np.ndarray:
    return np.array([q[0], -q[1], -q[2], -q[3]])


def _ancestor_dofs(pm, body: int) -> set:
    """Plant velocity indices of the joints on MJCF body `body` and its ancestors."""
    model = pm.model
    out = set()
    while body > 0:
        for j, jr in enumerate(model.joints):
            if jr.body == body:
                J = pm.joints[j]
                out.update(range(J.velocity_start(), J.velocity_start() + J.num_velocities()))
        body = model.bodies[body].parent
    return out


class _Site:
    """An MJCF site attached to its plant body: X_BS and the plant body."""

    def __init__(self, pm, sid: int):
        site = pm.model.sites[sid]
        self.body = pm.bodies[site.body]
        self.mj_body = site.body
        self.quat_BS = np.asarray(site.quat, float) / np.linalg.norm(site.quat)
        self.R_BS = rotation_matrix_from_quaternion(self.quat_BS)
        self.p_BS = np.asarray(site.pos, float)

    def Pose(self, context):
        """(R_WS, p_WS, q_WS) of the site in world (quaternion as MuJoCo: body quaternion ⊗ site quaternion)."""
        X_WB = self.body.EvalPoseInWorld(context)
        R_WB = X_WB.rotation().matrix()
        q_WS = _qmul(quaternion_from_rotation_matrix(R_WB), self.quat_BS)
        return R_WB @ self.R_BS, X_WB.translation() + R_WB @ self.p_BS, q_WS

    def Jacobian(self, plant, context) -> tuple[np.ndarray, np.ndarray]:
        """(Jw, Jv) of the site origin in world, (3, nv) each, with respect to the plant velocities."""
        world = plant.world_frame()
        J = plant.CalcJacobianSpatialVelocity(context, JacobianWrtVariable.kV, self.body._body_frame, self.p_BS,
                                              world, world)
        return J[:3], J[3:]


class MjcfSiteTransmission:
    """The site / site+refsite / slider-crank transmission of one MJCF actuator (see the module docstring)."""

    def __init__(self, pm, kind: str, sid: int, sid2: int, gear: np.ndarray, cranklength: float = 0.0):
        self.kind = kind  # "site" | "slidercrank"
        self.site = _Site(pm, sid)
        self.ref = _Site(pm, sid2) if sid2 >= 0 else None
        self.gear = np.asarray(gear, float)[:6].copy()
        self.cranklength = float(cranklength)
        self.common = np.zeros(0, dtype=int)
        if kind == "site" and self.ref is not None:
            shared = _ancestor_dofs(pm, self.site.mj_body) & _ancestor_dofs(pm, self.ref.mj_body)
            self.common = np.array(sorted(shared), dtype=int)

    def Calc(self, plant, context) -> tuple[float, np.ndarray]:
        """(actuator length, moment row (nv,)) at the configuration in `context`."""
        if self.kind == "slidercrank":
            return self._SliderCrank(plant, context)
        g = self.gear
        R_WS, p_WS, q_WS = self.site.Pose(context)
        Jw, Jv = self.site.Jacobian(plant, context)
        if self.ref is None:
            return 0.0, Jv.T @ (R_WS @ g[:3]) + Jw.T @ (R_WS @ g[3:])
        R_WR, p_WR, q_WR = self.ref.Pose(context)
        Jw_R, Jv_R = self.ref.Jacobian(plant, context)
        dJv, dJw = Jv - Jv_R, Jw - Jw_R
        dJv[:, self.common] = 0.0
        dJw[:, self.common] = 0.0
        length = 0.0
        moment = np.zeros(dJv.shape[1])
        if np.any(g[:3]):
            length += float((R_WR.T @ (p_WS - p_WR)) @ g[:3])
            moment += dJv.T @ (R_WR @ g[:3])
        if np.any(g[3:]):
            length += float(RotationVector(_qmul(_conj(q_WR), q_WS)) @ g[3:])
            moment += dJw.T @ (R_WR @ g[3:])
        return length, moment

    def CalcRotation(self, plant, context) -> tuple[np.ndarray, np.ndarray]:
        """MuJoCo 4's SO3 transmission on a site with a refsite: the rotation vector of the site in the refsite
        frame (3,) and its rows (3, nv): site axis k in world projected on the relative rotational Jacobian."""
        R_WS, _, q_WS = self.site.Pose(context)
        R_WR, _, q_WR = self.ref.Pose(context)
        Jw = self.site.Jacobian(plant, context)[0] - self.ref.Jacobian(plant, context)[0]
        Jw[:, self.common] = 0.0
        return RotationVector(_qmul(_conj(q_WR), q_WS)), R_WS.T @ Jw

    def _SliderCrank(self, plant, context) -> tuple[float, np.ndarray]:
        R_WC, p_WC, _ = self.site.Pose(context)
        R_WL, p_WL, _ = self.ref.Pose(context)
        axis = R_WL[:, 2]
        vec = p_WC - p_WL
        av = float(axis @ vec)
        det = av * av + self.cranklength ** 2 - float(vec @ vec)
        if det <= 0.0:
            length, dlda, dldv = av, vec, axis
        else:
            sdet = math.sqrt(det)
            length = av - sdet
            dldv = axis * (1.0 - av / sdet) + vec / sdet
            dlda = vec * (1.0 - av / sdet)
        _, Jv_C = self.site.Jacobian(plant, context)
        Jw_L, Jv_L = self.ref.Jacobian(plant, context)
        J_axis = np.cross(Jw_L.T, axis).T  # d axis / dv = ω × axis per column
        g = float(self.gear[0])
        return g * length, g * (dlda @ J_axis + dldv @ (Jv_C - Jv_L))


def WrapPeriod(model, a) -> float:
    """MuJoCo 4's wrap period 2π‖gear‖ of a position servo (fixed gain, affine bias, kp = −biasprm[1], dyntype
    none / integrator) on a ball joint or on a purely rotational site+refsite transmission; 0 otherwise."""
    servo = (a.gaintype == "fixed" and a.biastype == "affine" and a.gainprm[0] == -a.biasprm[1]
             and a.dyntype in ("none", "integrator"))
    gear = np.asarray(a.gear[:6], float)
    if not servo:
        return 0.0
    if a.trntype == "site" and a.trnid[1] >= 0 and not gear[:3].any():
        return 2.0 * math.pi * float(np.linalg.norm(gear[3:]))
    if a.trntype in ("joint", "jointinparent") and model.joints[a.trnid[0]].type == "ball":
        return 2.0 * math.pi * float(np.linalg.norm(gear[:3]))
    return 0.0


def _expmap_quat(v: np.ndarray) -> np.ndarray:
    """Unit quaternion [w x y z] of the rotation vector v [rad] (identity below 1e-15)."""
    angle = float(np.linalg.norm(v))
    if angle < 1e-15:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return np.concatenate([[math.cos(0.5 * angle)], math.sin(0.5 * angle) * np.asarray(v, float) / angle])


class So3Servo:
    """MuJoCo 4's orientation servo (gaintype / biastype so3) on a ball joint or a site with a refsite.

    Lengths: the rotation vector of the joint quaternion (or of the site in the refsite frame); rows: the
    joint's angular velocity axes in the child frame (or the site axes projected on the relative angular-velocity
    Jacobian). Force (3 outputs, child / site frame): kp·log(q_cur⁻¹ q_target) + biasprm[0] + biasprm[2]·V with
    q_cur = exp(length) and q_target the normalized quaternion control (quat chart) or exp(ctrl) (expmap chart;
    exp(act) for the integrator variant, whose 3 activations integrate the controls);
    the norm of the torque is clamped to forcerange[1] when force-limited.
    """

    def __init__(self, pm, a, row0: int, ctrl0: int):
        self.rows = np.arange(row0, row0 + 3)
        self.quat = a.ctrlspec == "quat"
        self.ctrl = slice(ctrl0, ctrl0 + (4 if self.quat else 3))
        self.kp, self.b0, self.kv = float(a.gainprm[0]), float(a.biasprm[0]), float(a.biasprm[2])
        self.fmax = float(a.forcerange[1]) if a.forcelimited else math.inf
        self.joint = pm.joints[a.trnid[0]] if a.trntype == "joint" else None
        self.site = None if self.joint is not None else MjcfSiteTransmission(pm, "site", a.trnid[0], a.trnid[1],
                                                                               np.zeros(6))

    def Calc(self, plant, context) -> tuple[np.ndarray, np.ndarray]:
        """(lengths (3,), moment rows (3, nv)) at the configuration in `context`."""
        if self.site is not None:
            return self.site.CalcRotation(plant, context)
        q = plant.GetPositions(context)
        qs, vs = self.joint.position_start(), self.joint.velocity_start()
        # the plant's ball velocity is ω in the parent frame: ω_child = Rᵀ ω
        R = rotation_matrix_from_quaternion(q[qs:qs + 4] / np.linalg.norm(q[qs:qs + 4]))
        rows = np.zeros((3, plant.num_velocities()))
        rows[:, vs:vs + 3] = R.T
        return RotationVector(q[qs:qs + 4]), rows

    def Force(self, ctrl: np.ndarray, setpoint: np.ndarray, length: np.ndarray, velocity: np.ndarray) -> np.ndarray:
        """The 3 output torques [N·m] from the controls (quat chart) or the expmap setpoint (3,): the control
        block, or the activations of an integrator (next ones with actearly)."""
        if self.quat:
            u = ctrl[self.ctrl]
            n = float(np.linalg.norm(u))
            target = u / n if n > 0 else np.array([1.0, 0.0, 0.0, 0.0])
        else:
            target = _expmap_quat(setpoint)
        cur = _expmap_quat(length)
        w, v = cur[0], cur[1:]  # log(q_cur⁻¹ q_target), in the child / site frame
        err = RotationVector(np.concatenate([[w * target[0] + v @ target[1:]],
                                             w * target[1:] - target[0] * v - np.cross(v, target[1:])]))
        f = self.kp * err + self.b0 + self.kv * velocity
        norm = float(np.linalg.norm(f))
        return f * (self.fmax / norm) if norm > self.fmax else f
