"""Compiled force-element kernels shared by the plant's force elements (multibody/tree/force_element.py) and the
compiled step's passive stage (multibody/pipeline/passive.py): Drake's LinearSpringDamper and
LinearBushingRollPitchYaw, MuJoCo's ball / free joint springs (mj_springdamper).

Each kernel adds body spatial forces F_Bo_W (nb × 6, at body origins, in W) or generalized forces τ for rows of
elements, from the world poses R_WB, p_WB and Plücker velocities V (at Wo, in W) of the kinematics.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..math.functions import (quaternion_from_rotation_matrix, rotation_matrix_from_quaternion,
                              rpy_from_rotation_matrix)


@njit(cache=True)
def _point(R_WB, p_WB, b, p_B):
    out = np.empty(3)
    for i in range(3):
        out[i] = p_WB[b, i] + R_WB[b, i, 0] * p_B[0] + R_WB[b, i, 1] * p_B[1] + R_WB[b, i, 2] * p_B[2]
    return out


@njit(cache=True)
def _point_velocity(V, b, p):
    """v_WP of the point at p_WP of body b (V Plücker at Wo)."""
    w = V[b, 0:3]
    return V[b, 3:6] + np.cross(w, p)


@njit(cache=True)
def SpringDamperForces(body, points, params, R_WB, p_WB, V, F):
    """Add the forces of LinearSpringDamper rows to F: f = (k·(ℓ − ℓ₀) + c·ℓ̇)·u along u from P to Q, on A at P and
    −f on B at Q. body (n, 2) bodies A, B; points (n, 6) p_AP, p_BQ [m]; params (n, 3) ℓ₀ [m], k [N/m], c [N s/m].
    Returns the first row whose points coincide (direction undefined; nothing added from it on), else −1."""
    for i in range(body.shape[0]):
        a, b = body[i, 0], body[i, 1]
        p_WP = _point(R_WB, p_WB, a, points[i, 0:3])
        p_WQ = _point(R_WB, p_WB, b, points[i, 3:6])
        d = p_WQ - p_WP
        length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        if length < 1e-12:
            return i
        u = d / length
        dv = _point_velocity(V, b, p_WQ) - _point_velocity(V, a, p_WP)
        ldot = u[0] * dv[0] + u[1] * dv[1] + u[2] * dv[2]
        f = (params[i, 1] * (length - params[i, 0]) + params[i, 2] * ldot) * u
        tA = np.cross(p_WP - p_WB[a], f)
        tB = np.cross(p_WQ - p_WB[b], f)
        for j in range(3):
            F[a, j] += tA[j]
            F[a, 3 + j] += f[j]
            F[b, j] -= tB[j]
            F[b, 3 + j] -= f[j]
    return -1


@njit(cache=True)
def _mat3(row, off):
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = row[off + 3 * i + j]
    return R


@njit(cache=True)
def BushingForces(body, frames, gains, R_WB, p_WB, V, F):
    """Add the forces of LinearBushingRollPitchYaw rows to F (Drake's quasi-symmetric bushing): gimbal torques
    τ = −k₀₁₂⊙q − d₀₁₂⊙q̇ of the roll-pitch-yaw angles q of R_AC applied as t = Nᵀτ (in A) on C and −t on A, and
    f = −kxyz⊙xyz − dxyz⊙ẋyz in the half-angle frame B applied at Bo (halfway between Ao and Co) on C, −f on A.
    body (n, 2) the bodies of frames A and C; frames (n, 24) R_BA (9, row-major), p_BA, R_BC, p_BC of the frames on
    their bodies; gains (n, 12) k₀₁₂, d₀₁₂, kxyz, dxyz. Returns the first row at gimbal lock (pitch ±π/2), else −1."""
    for i in range(body.shape[0]):
        a, c = body[i, 0], body[i, 1]
        R_WA = R_WB[a] @ _mat3(frames[i], 0)
        p_WAo = _point(R_WB, p_WB, a, frames[i, 9:12])
        R_WC = R_WB[c] @ _mat3(frames[i], 12)
        p_WCo = _point(R_WB, p_WB, c, frames[i, 21:24])
        R_AC = np.ascontiguousarray(R_WA.T) @ R_WC
        q = rpy_from_rotation_matrix(R_AC)
        quat = quaternion_from_rotation_matrix(R_AC)
        if quat[0] < 0:
            quat = -quat
        half = np.array([1.0 + quat[0], quat[1], quat[2], quat[3]])
        R_AB = rotation_matrix_from_quaternion(half / math.sqrt(half @ half))
        R_AW = np.ascontiguousarray(R_WA.T)
        Vr = np.empty(6)
        Vr[:3] = V[c, 0:3] - V[a, 0:3]
        Vr[3:] = _point_velocity(V, c, p_WCo) - _point_velocity(V, a, p_WCo)
        w_AC_A = R_AW @ Vr[:3]
        v_ACo_A = R_AW @ Vr[3:]
        p_AoCo_A = R_AW @ (p_WCo - p_WAo)
        R_BA = np.ascontiguousarray(R_AB.T)
        xyz = R_BA @ p_AoCo_A
        xyz_dot = R_BA @ (v_ACo_A - np.cross(0.5 * w_AC_A, p_AoCo_A))
        cp, sp = math.cos(q[1]), math.sin(q[1])
        if abs(cp) < 1e-12:
            return i
        cy, sy = math.cos(q[2]), math.sin(q[2])
        N = np.array([[cy / cp, sy / cp, 0.0], [-sy, cy, 0.0], [cy * sp / cp, sy * sp / cp, 1.0]])
        g = gains[i]
        tau = -g[0:3] * q - g[3:6] * (N @ w_AC_A)
        t_W = R_WA @ (np.ascontiguousarray(N.T) @ tau)
        f_W = R_WA @ (R_AB @ (-g[6:9] * xyz - g[9:12] * xyz_dot))
        p_WBo = 0.5 * (p_WAo + p_WCo)
        tC = t_W + np.cross(p_WBo - p_WB[c], f_W)
        tA = t_W + np.cross(p_WBo - p_WB[a], f_W)
        for j in range(3):
            F[c, j] += tC[j]
            F[c, 3 + j] += f_W[j]
            F[a, j] -= tA[j]
            F[a, 3 + j] -= f_W[j]
    return -1


# ---- MuJoCo's ball and free joint springs ---------------------------------------------------------------------
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
    """Add MuJoCo's ball / free joint spring forces (mj_springdamper) to tau (plant coordinates): a free joint pulls
    its translation toward qpos_spring with −k·(p − p_spring) (world); ball and free rotations get the torque −k·r,
    r = RotationDifference(q, q_spring) in the child frame, rotated to the frame of the plant's angular velocity.
    kind 0 ball (q = quaternion, v = w in the parent), 1 free (q = [quaternion; p], v = [w_W; v_W]);
    q_spring[i] = MuJoCo's qpos_spring of the joint (ball: quaternion; free: [p; quaternion])."""
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
    """½·k·(|p − p_spring|² + |r|²) summed over the ball / free joint springs [J]."""
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
