"""Acceleration-stage MJCF sensors of the discrete step (MuJoCo's mj_sensorAcc after mj_rnePostConstraint):
accelerometer, framelinacc / frameangacc, force / torque (cfrc_int) and touch, from MuJoCo's forward qacc of the
step (joint damping explicit) and its contact forces.

As MuJoCo's mj_rnePostConstraint, each body's wrench is Iw·(A − A_g) + V ×* Iw·V − F_ext at Wo in W (A from qacc,
A_g = [0; g]), summed over its subtree: the wrench its parent exerts on it. F_ext holds the contact forces (on the
second geometry's body, opposite on the first's), the applied spatial forces and, as MuJoCo 4, the pull of spatial
tendons at their path points (the tendon force — actuators, spring, damper, limit and friction rows — along each
straight segment, divided by its pulley's divisor). An object on the world accelerates by −g (MuJoCo 4.0).
Touch sums the normal forces of the contacts on the site's body whose normal ray (away from that body) meets the
site's volume (sphere, capsule, ellipsoid, cylinder or box; a contact point inside it always counts).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...geometry.collision.blas_rounding import rotate_row, rotate_t_row
from ..contact.parameters import FRICTION_TENDON, LIMIT_TENDON
from ..kernels.pipeline import spatial_accelerations_stage
from ..kernels.small_products import matmul33_into
from ..kernels.tendon_kernels import W_PULLEY
from .integrate import forward_qacc

# the sensor codes of sensor.py this stage computes
ACCELEROMETER, FORCE, TORQUE, TOUCH, FRAMELINACC, FRAMEANGACC = 26, 27, 28, 29, 30, 31  # as sensor.py
_TINY = 1e-15


@njit(cache=True)
def _interval(lo, hi, a, b, c):
    """[lo, hi] ∩ {t : a t² + 2 b t + c ≤ 0} for a ≥ 0 (empty: lo > hi)."""
    if a < _TINY:
        if abs(b) < _TINY:
            return (lo, hi) if c <= 0 else (1.0, 0.0)
        t = -c / (2.0 * b)
        return (lo, min(hi, t)) if b > 0 else (max(lo, t), hi)
    det = b * b - a * c
    if det < 0:
        return 1.0, 0.0
    r = math.sqrt(det)
    return max(lo, (-b - r) / a), min(hi, (-b + r) / a)


@njit(cache=True)
def _slab(lo, hi, p, d, half):
    """[lo, hi] ∩ {t : |p + t d| ≤ half}."""
    if abs(d) < _TINY:
        return (lo, hi) if abs(p) <= half else (1.0, 0.0)
    t1, t2 = (-half - p) / d, (half - p) / d
    return max(lo, min(t1, t2)), min(hi, max(t1, t2))


@njit(cache=True)
def _sphere(p, d, r):
    lo, hi = _interval(0.0, np.inf, d @ d, p @ d, p @ p - r * r)
    return lo <= hi


@njit(cache=True)
def _cylinder(p, d, r, h):
    lo, hi = _interval(0.0, np.inf, d[0] ** 2 + d[1] ** 2, p[0] * d[0] + p[1] * d[1], p[0] ** 2 + p[1] ** 2 - r * r)
    if lo > hi:
        return False
    lo, hi = _slab(lo, hi, p[2], d[2], h)
    return lo <= hi


@njit(cache=True)
def ray_hits_site(shape, size, R_WS, p_WS, p_W, d_W):
    """Whether the ray p_W + t·d_W (t ≥ 0) meets the solid site volume (shape 0 sphere, 1 capsule, 2 ellipsoid,
    3 cylinder, 4 box; MuJoCo sizes) posed at (R_WS, p_WS)."""
    p = R_WS.T @ (p_W - p_WS)
    d = R_WS.T @ d_W
    if shape == 0:
        return _sphere(p, d, size[0])
    if shape == 2:
        return _sphere(p / size, d / size, 1.0)
    if shape == 3:
        return _cylinder(p, d, size[0], size[1])
    if shape == 1:
        e = np.array([0.0, 0.0, size[1]])
        return _cylinder(p, d, size[0], size[1]) or _sphere(p - e, d, size[0]) or _sphere(p + e, d, size[0])
    lo, hi = 0.0, np.inf
    for k in range(3):
        lo, hi = _slab(lo, hi, p[k], d[k], size[k])
    return lo <= hi


@njit(cache=True)
def _add_at_Wo(F, b, p, tau, f, sign):
    """F[b] += sign·[τ + p × f; f] (a wrench with torque τ about p moved to the world origin)."""
    c = np.cross(p, f)
    for k in range(3):
        F[b, k] += sign * (tau[k] + c[k])
        F[b, 3 + k] += sign * f[k]


@njit(cache=True)
def _tendon_force(m, d, t):
    """The force along tendon t [N]: its actuators, spring, damper, and its limit and friction rows."""
    a, ten = m.act, m.ten
    T = 0.0
    for r in range(a.ten_out.shape[0]):
        if a.ten_id[r] == t:
            T += a.ten_gear[r] * d.actuator_force[a.ten_out[r]]
    L = d.ten_length[t]
    k = ten.stiffness[t]
    if k != 0.0:
        lo, hi = ten.lengthspring[t, 0], ten.lengthspring[t, 1]
        T += k * (lo - L) if L < lo else (k * (hi - L) if L > hi else 0.0)
    T -= ten.damping[t] * d.ten_velocity[t]
    if m.opt.use_solver:
        J = d.ten_J[t]
        JJ = J @ J
        for r in range(d.ne, min(d.ne + d.nf + d.nl, d.efc_type.shape[0])):
            if (d.efc_type[r] == FRICTION_TENDON or d.efc_type[r] == LIMIT_TENDON) and JJ > 0:
                sign = (d.efc_J[r] @ J) / JJ
                if abs(abs(sign) - 1.0) < 1e-9:
                    T += sign * d.efc_force[r]
    return T


@njit(cache=True)
def _add_tendon_pulls(m, d, F):
    """The pull of every spatial tendon at its path points into F (nb × 6, at Wo)."""
    ten = m.ten
    for t in range(ten.ten_adr.shape[0]):
        num = d.ten_wrapnum[t]
        if num < 2:
            continue
        T = _tendon_force(m, d, t)
        if T == 0.0:
            continue
        e, e_end = ten.ten_adr[t], ten.ten_adr[t] + ten.ten_num[t]
        divisor = 1.0
        adr = d.ten_wrapadr[t]
        for j in range(adr, adr + num - 1):
            if d.wrap_obj[j] == -2:  # a pulley: the next branch's divisor
                while e < e_end and ten.wtype[e] != W_PULLEY:
                    e += 1
                if e < e_end:
                    divisor = ten.wprm[e]
                    e += 1
                continue
            if d.wrap_obj[j + 1] == -2:
                continue
            ia, ib = d.wrap_body[j], d.wrap_body[j + 1]
            seg = d.wrap_xpos[j + 1] - d.wrap_xpos[j]
            n = math.sqrt(seg @ seg)
            if ia == ib or n < 1e-15:
                continue
            f = (T / divisor / n) * seg
            z = np.zeros(3)
            _add_at_Wo(F, ib, d.wrap_xpos[j + 1], z, f, 1.0)
            _add_at_Wo(F, ia, d.wrap_xpos[j], z, f, -1.0)


@njit(cache=True)
def interaction_wrenches(m, d, A, g_W, F_in):
    """cfrc_int of every plant body (nb × 6, [torque; force] at Wo in W): the wrench its parent exerts on its
    subtree."""
    t = m.tree
    nb = t.nb
    F = np.zeros((nb, 6))
    for b in range(F_in.shape[0]):
        _add_at_Wo(F, b, d.p_WB[b], F_in[b, :3], F_in[b, 3:], 1.0)
    for c in range(d.ncon):
        R = d.con_frame[c]
        f = R.T @ d.con_force[c, :3]
        tau = R.T @ d.con_force[c, 3:6]
        _add_at_Wo(F, d.con_body[c, 1], d.con_pos[c], tau, f, 1.0)
        _add_at_Wo(F, d.con_body[c, 0], d.con_pos[c], tau, f, -1.0)
    _add_tendon_pulls(m, d, F)
    out = np.zeros((nb, 6))
    for b in range(1, nb):
        Ab = A[b].copy()
        Ab[3:] -= g_W
        I, V = d.Iw[b], d.V[b]
        h = I @ V
        f = I @ Ab
        f[:3] += np.cross(V[:3], h[:3]) + np.cross(V[3:], h[3:])
        f[3:] += np.cross(V[:3], h[3:])
        out[b] = f - F[b]
    for k in range(t.order.shape[0] - 1, -1, -1):
        b = t.order[k]
        p = t.ji[b, 0]
        if p > 0:
            out[p] += out[b]
    return out


@njit(cache=True)
def acceleration_sensors(m, d, g_W, F_in, data):
    """The acceleration-stage sensors of m.sens into data (sensordata)."""
    s = m.sens
    A = np.zeros((0, 6))
    cfrc = np.zeros((0, 6))
    if s.need_acc:
        qacc = forward_qacc(m, d)
        A = spatial_accelerations_stage(m.tree.order, m.tree.ji, d.S, d.c, qacc)
        if s.need_acc == 2:
            cfrc = interaction_wrenches(m, d, A, g_W, F_in)
    R_WO, p_WO, v_p, acc = np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    for i in range(s.s_type.shape[0]):
        tp, adr, obj = s.s_type[i], s.s_adr[i], s.s_obj[i]
        if tp < ACCELEROMETER:
            continue
        b = s.fo_body[obj]
        R_WB, p_BO = d.R_WB[b], s.fo_p[obj]
        matmul33_into(R_WB, s.fo_R[obj], R_WO)  # R_WB @ R_BO, p_WB + R_WB @ p_BO (rounded as those calls)
        for k in range(3):
            p_WO[k] = d.p_WB[b, k] + rotate_row(R_WB, k, p_BO)
        if tp == TOUCH:
            total = 0.0
            for c in range(d.ncon):
                fn = d.con_force[c, 0]
                if fn <= 0 or (d.con_body[c, 0] != b and d.con_body[c, 1] != b):
                    continue
                ray = d.con_frame[c, 0].copy() if d.con_body[c, 0] == b else -d.con_frame[c, 0]
                if ray_hits_site(s.s_aux[i], s.s_size[i], R_WO, p_WO, d.con_pos[c], ray):
                    total += fn
            data[adr] = total
        elif tp == FORCE or tp == TORQUE:
            Fb = cfrc[b]
            data[adr:adr + 3] = R_WO.T @ (Fb[3:] if tp == FORCE else Fb[:3] - np.cross(p_WO, Fb[3:]))
        elif tp == FRAMEANGACC:
            data[adr:adr + 3] = A[b, :3]
        else:  # accelerometer (site frame) / framelinacc (world): the point's acceleration minus g
            V, Ab = d.V[b], A[b]  # v_p = V[3:] + V[:3] × p_WO; acc = A[3:] + A[:3] × p_WO + V[:3] × v_p − g
            v_p[0] = V[3] + (V[1] * p_WO[2] - V[2] * p_WO[1])
            v_p[1] = V[4] + (V[2] * p_WO[0] - V[0] * p_WO[2])
            v_p[2] = V[5] + (V[0] * p_WO[1] - V[1] * p_WO[0])
            acc[0] = ((Ab[3] + (Ab[1] * p_WO[2] - Ab[2] * p_WO[1])) + (V[1] * v_p[2] - V[2] * v_p[1])) - g_W[0]
            acc[1] = ((Ab[4] + (Ab[2] * p_WO[0] - Ab[0] * p_WO[2])) + (V[2] * v_p[0] - V[0] * v_p[2])) - g_W[1]
            acc[2] = ((Ab[5] + (Ab[0] * p_WO[1] - Ab[1] * p_WO[0])) + (V[0] * v_p[1] - V[1] * v_p[0])) - g_W[2]
            for k in range(3):
                data[adr + k] = rotate_t_row(R_WO, k, acc) if tp == ACCELEROMETER else acc[k]
