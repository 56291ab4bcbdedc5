"""MuJoCo's joint springs on ball and free joints (MJCF joint `stiffness`) as a plant force element.

As mj_springdamper: a free joint pulls its translation toward qpos_spring with −k·(p − p_spring) (world);
ball and free rotations get the torque −k·dif with dif the rotation vector of conj(q_spring)·q (the rotation
from the spring orientation to the current one, in the child frame, angle wrapped to [−π, π]). The plant's
ball velocity is in the parent frame and its free angular velocity in the world, so the torque is rotated
there. Hinge / slide springs are RevoluteSpring / PrismaticSpring.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..tree.explicit_damping import ExplicitJointDamping
from ..tree.force_element import ForceElement

__all__ = ["MjcfBallFreeSprings", "AddMjcfPassiveForces", "RotationDifference"]


@njit(cache=True)
def _qmul(a, b):
    return np.array([a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                     a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                     a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                     a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]])


@njit(cache=True)
def _R(q):
    w, x, y, z = q[0], q[1], q[2], q[3]
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


@njit(cache=True)
def RotationDifference(q, q_spring):
    """Rotation vector r (child frame) with q_spring·exp(r) = q/|q|; angle in [−π, π] [rad]."""
    qn = q / math.sqrt(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2)
    d = _qmul(np.array([q_spring[0], -q_spring[1], -q_spring[2], -q_spring[3]]), qn)
    s = math.sqrt(d[1] ** 2 + d[2] ** 2 + d[3] ** 2)
    if s < 1e-15:  # MuJoCo's mjMINVAL: no rotation
        return np.zeros(3)
    angle = 2.0 * math.atan2(s, d[0])
    if angle > math.pi:
        angle -= 2.0 * math.pi
    return d[1:] * (angle / s)


@njit(cache=True)
def BallFreeSpringForces(kind, qstart, vstart, stiffness, q_spring, q, tau):
    """Add the springs' generalized forces to tau (plant coordinates). kind 0 ball (q = quaternion, v = w in
    the parent), 1 free (q = [quaternion; p], v = [w_W; v_W]); q_spring[i] = MuJoCo's qpos_spring of the
    joint (ball: quaternion; free: [p; quaternion])."""
    for i in range(kind.shape[0]):
        k, qs, vs = stiffness[i], qstart[i], vstart[i]
        quat = q[qs:qs + 4]
        if kind[i] == 0:
            ref = q_spring[i, :4]
        else:
            ref = q_spring[i, 3:7]
            for j in range(3):
                tau[vs + 3 + j] -= k * (q[qs + 4 + j] - q_spring[i, j])
        t = _R(quat / math.sqrt(quat @ quat)) @ (-k * RotationDifference(quat, ref))
        for j in range(3):
            tau[vs + j] += t[j]


@njit(cache=True)
def BallFreeSpringEnergy(kind, qstart, stiffness, q_spring, q):
    """½·k·(|p − p_spring|² + |dif|²) summed over the springs [J]."""
    e = 0.0
    for i in range(kind.shape[0]):
        qs = qstart[i]
        quat = q[qs:qs + 4]
        ref = q_spring[i, :4] if kind[i] == 0 else q_spring[i, 3:7]
        r = RotationDifference(quat, ref)
        e += 0.5 * stiffness[i] * (r @ r)
        if kind[i] == 1:
            for j in range(3):
                e += 0.5 * stiffness[i] * (q[qs + 4 + j] - q_spring[i, j]) ** 2
    return e


class MjcfBallFreeSprings(ForceElement):
    """The stiffness of the ball and free joints of an MJCF model: [(Joint, 'ball' | 'free', k, qpos_spring)]."""

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
        self._qstart = None

    def _starts(self):
        if self._qstart is None:
            self._qstart = np.array([j.position_start() for j in self._joints], np.int64)
            self._vstart = np.array([j.velocity_start() for j in self._joints], np.int64)
        return self._qstart, self._vstart

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        qs, vs = self._starts()
        BallFreeSpringForces(self._kind, qs, vs, self._k, self._q_spring, np.ascontiguousarray(q, float), tau)

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        qs, _ = self._starts()
        return float(BallFreeSpringEnergy(self._kind, qs, self._k, self._q_spring, np.ascontiguousarray(q, float)))

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        qs, vs = self._starts()
        tau = np.zeros(len(v))
        BallFreeSpringForces(self._kind, qs, vs, self._k, self._q_spring, np.ascontiguousarray(q, float), tau)
        return float(tau @ v)


def AddMjcfPassiveForces(plant, model, pm) -> None:
    """Add the ball / free joint springs MJCF joints have and the plant's joints lack (unless the spring flag is
    off), and under Euler with `eulerdamp` disabled the joints' damping as an explicit force (ExplicitJointDamping).
    Called by the MJCF parser before Finalize (fluid forces: parsers/mjcf/fluid.py)."""
    flags = model.option.flags
    springs = []
    if flags.get("spring", True):
        for jr, joint in zip(model.joints, pm.joints):
            if jr.stiffness and jr.type in ("ball", "free") and joint is not None:
                springs.append((joint, jr.type, float(jr.stiffness), np.asarray(jr.qpos_spring, float)))
    if springs:
        plant.AddForceElement(MjcfBallFreeSprings(springs, pm.instance))
    opt = model.option
    if not flags.get("eulerdamp", True) and opt.integrator.lower() == "euler" and plant.time_step() > 0:
        # MuJoCo's Euler without implicit damping: the joints' damping becomes an explicit force
        dampers = []
        for joint in pm.joints:
            if joint is not None and np.any(joint.default_damping_vector()):
                dampers.append((joint, joint.default_damping_vector()))
                joint.set_default_damping_vector(np.zeros(joint.num_velocities()))
        if dampers:
            plant.AddForceElement(ExplicitJointDamping(dampers, pm.instance))
