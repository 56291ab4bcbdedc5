"""Velocity derivatives of the smooth forces for the implicit integrators (MuJoCo's mjd_smooth_vel):

    qDeriv = ∂(qfrc_actuator + qfrc_passive − [qfrc_bias])/∂v   (nv × nv),

without the joint damping −D (M̂ = M + h·D holds it already, smooth.py). Actuators: Σ momentᵢᵀ·bᵢ·momentᵢ with
bᵢ = biasprm[2] (affine bias) + ∂gain/∂V·input (affine gainprm[2] or the muscle's; input ctrl clamped to ctrlrange
or the activation), none where the force is saturated at its forcerange (mjd_actuator_vel); the moment arms are the
actuation stage's (spatial tendons and sites included). Passive: tendon dampers −b·JᵀJ and the fluid forces' local
Jacobians (fluid.py, mjd_passive_vel). Bias (implicit only): −∂(C(q,v)·v)/∂v by central differences of the recursive Newton–Euler
bias, exact up to rounding since C(q,v)·v is quadratic in v (mjd_rne_vel). qDeriv is kept on M's tree pattern,
as MuJoCo's sparse qDeriv (a force coupling two trees enters only explicitly).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..kernels.dynamics import bias_term_into
from ..kernels.kinematics import _add_hinge_rate_term, calc_velocity_kinematics
from .actuation import BIAS_AFFINE, GAIN_AFFINE, GAIN_MUSCLE, next_activation
from .fluid import fluid_vel
from .muscle import MuscleGainVelocity


@njit(cache=True)
def actuator_vel(m, d, ctrl, D):
    """D += ∂qfrc_actuator/∂v of the MuJoCo actuators (mjd_actuator_vel): Σ momentᵢᵀ·bᵢ·momentᵢ with bᵢ = the affine
    bias's kv + ∂gain/∂V·input (affine: gainprm[2]; muscle: muscle.MuscleGainVelocity), input = ctrl clamped to
    ctrlrange or the activation (actearly: the next one); none where the force is saturated at its forcerange or,
    for a hinge / slide joint transmission, where that joint's actuator torque is clamped (MuJoCo 4.0). Moment
    arms, lengths, velocities and forces from the actuation stage (d.actuator_*)."""
    a = m.act
    nv = D.shape[0]
    cols = np.empty(nv, np.int64)
    moment = d.actuator_moment
    for i in range(a.row_ctrl.shape[0]):
        if not a.enabled[i]:
            continue
        f = d.actuator_force[i]
        if f <= a.force_lo[i] or f >= a.force_hi[i]:  # saturated: no derivative
            continue
        j = a.out_jlim[i]
        if j >= 0:  # the transmission joint's actuator torque clamped by its actuatorfrcrange: none either
            t = d.qfrc_actuator[a.jlim_dof[j]]
            if t <= a.jlim_lo[j] or t >= a.jlim_hi[j]:
                continue
        s = a.trn.so3_of[i]
        b = a.bias[i, 2] if a.biastype[i] == BIAS_AFFINE else 0.0
        g = 0.0
        if s >= 0:  # orientation servo: kv, none when its torque norm is at the limit
            o, fo = a.trn.so3_out[s], d.actuator_force
            if math.sqrt(fo[o] ** 2 + fo[o + 1] ** 2 + fo[o + 2] ** 2) >= a.trn.so3_prm[s, 3]:
                continue
            b = a.bias[i, 2]
        elif a.gaintype[i] == GAIN_AFFINE:
            g = a.gain[i, 2]
        elif a.gaintype[i] == GAIN_MUSCLE:
            g = MuscleGainVelocity(d.actuator_length[i], d.actuator_velocity[i], a.lengthrange[i], a.acc0[i],
                                   a.gainprm[i])
        if g != 0.0:
            k = a.actadr[i]
            if k < 0:
                r = a.row_ctrl[i]
                b += g * min(max(ctrl[r], a.ctrl_lo[r]), a.ctrl_hi[r])
            elif a.actearly[i]:
                b += g * next_activation(a, i, d.act[k], d.act_dot[k], m.tree.h)
            else:
                b += g * d.act[k]
        if b == 0.0:
            continue
        k = 0
        for c in range(nv):
            if moment[i, c] != 0.0:
                cols[k] = c
                k += 1
        for p in range(k):
            mp = moment[i, cols[p]]
            for n in range(k):
                D[cols[p], cols[n]] += mp * (b * moment[i, cols[n]])


@njit(cache=True)
def passive_vel(m, d, D, symmetrize, body_free):
    """D += ∂qfrc_passive/∂v other than joint damping: the tendon dampers −b·JᵀJ (J the tendon's moment arms
    d.ten_J) and the fluid forces (local Jacobians symmetrized when `symmetrize`, except on standalone free bodies
    `body_free`)."""
    ten = m.ten
    nv = D.shape[0]
    cols = np.empty(nv, np.int64)
    for t in range(ten.damping.shape[0]):
        b = ten.damping[t]
        if b == 0.0:
            continue
        k = 0
        for c in range(nv):
            if d.ten_J[t, c] != 0.0:
                cols[k] = c
                k += 1
        for p in range(k):
            bj = b * d.ten_J[t, cols[p]]
            for n in range(k):
                D[cols[p], cols[n]] -= bj * d.ten_J[t, cols[n]]
    fluid_vel(m, d, D, symmetrize, body_free)


@njit(cache=True)
def bias_vel_columns(m, d, order, dofs, out):
    """out[:, k] = ∂(C(q,v)·v)/∂v[dofs[k]] (nv × len(dofs)) over the bodies of `order` (all bodies, or one
    standalone tree), by central differences with step max(1, |v|∞)."""
    t = m.tree
    nv = t.nv
    v = d.v
    scale = 1.0
    for i in range(nv):
        scale = max(scale, abs(v[i]))
    vs = v.copy()
    tp = np.zeros(nv)
    tm = np.zeros(nv)
    for k in range(dofs.shape[0]):
        j = dofs[k]
        vs[j] = v[j] + scale
        V, c = calc_velocity_kinematics(order, t.ji, d.q, vs, d.S, d.R_WF, d.p_WF, d.p_WM)
        bias_term_into(order, t.ji, d.S, d.Iw, V, c, tp)
        vs[j] = v[j] - scale
        V, c = calc_velocity_kinematics(order, t.ji, d.q, vs, d.S, d.R_WF, d.p_WF, d.p_WM)
        bias_term_into(order, t.ji, d.S, d.Iw, V, c, tm)
        vs[j] = v[j]
        for r in range(nv):
            out[r, k] = (tp[r] - tm[r]) / (2.0 * scale)


@njit(cache=True)
def _root_body_bias(m, d, b, v, tau):
    """tau[:6] = C(q, v)·v at the dofs of body b, a tree of its own whose parent is the world: the arithmetic of
    calc_velocity_kinematics and bias_term_into over order = [b] (the world's velocity and acceleration zero),
    without their (nb, 6) arrays."""
    ji, S, I = m.tree.ji, d.S, d.Iw[b]
    n, vs = ji[b, 5], ji[b, 4]
    VP = np.zeros(6)
    j0 = j1 = j2 = j3 = j4 = j5 = 0.0
    for j in range(n):
        vj = v[vs + j]
        Sj = S[vs + j]
        j0 += Sj[0] * vj
        j1 += Sj[1] * vj
        j2 += Sj[2] * vj
        j3 += Sj[3] * vj
        j4 += Sj[4] * vj
        j5 += Sj[5] * vj
    w0, w1, w2, v0, v1, v2 = VP[0] + j0, VP[1] + j1, VP[2] + j2, VP[3] + j3, VP[4] + j4, VP[5] + j5
    cb = np.empty(6)
    cb[0] = VP[1] * j2 - VP[2] * j1
    cb[1] = VP[2] * j0 - VP[0] * j2
    cb[2] = VP[0] * j1 - VP[1] * j0
    cb[3] = VP[1] * j5 - VP[2] * j4 + VP[4] * j2 - VP[5] * j1
    cb[4] = VP[2] * j3 - VP[0] * j5 + VP[5] * j0 - VP[3] * j2
    cb[5] = VP[0] * j4 - VP[1] * j3 + VP[3] * j1 - VP[4] * j0
    if n > 0 and ji[b, 1] != 2 and ji[b, 1] != 1:
        _add_hinge_rate_term(ji[b, 1], d.q, ji[b, 2], v, vs, d.R_WF[b], d.p_WF[b], d.p_WM[b], j0, j1, j2, j3, j4, j5,
                             cb)
    a0, a1, a2 = VP[0] + cb[0], VP[1] + cb[1], VP[2] + cb[2]
    a3, a4, a5 = VP[3] + cb[3], VP[4] + cb[4], VP[5] + cb[5]
    h0 = I[0, 0] * w0 + I[0, 1] * w1 + I[0, 2] * w2 + I[0, 3] * v0 + I[0, 4] * v1 + I[0, 5] * v2
    h1 = I[1, 0] * w0 + I[1, 1] * w1 + I[1, 2] * w2 + I[1, 3] * v0 + I[1, 4] * v1 + I[1, 5] * v2
    h2 = I[2, 0] * w0 + I[2, 1] * w1 + I[2, 2] * w2 + I[2, 3] * v0 + I[2, 4] * v1 + I[2, 5] * v2
    h3 = I[3, 0] * w0 + I[3, 1] * w1 + I[3, 2] * w2 + I[3, 3] * v0 + I[3, 4] * v1 + I[3, 5] * v2
    h4 = I[4, 0] * w0 + I[4, 1] * w1 + I[4, 2] * w2 + I[4, 3] * v0 + I[4, 4] * v1 + I[4, 5] * v2
    h5 = I[5, 0] * w0 + I[5, 1] * w1 + I[5, 2] * w2 + I[5, 3] * v0 + I[5, 4] * v1 + I[5, 5] * v2
    f = np.empty(6)
    for r in range(6):
        f[r] = I[r, 0] * a0 + I[r, 1] * a1 + I[r, 2] * a2 + I[r, 3] * a3 + I[r, 4] * a4 + I[r, 5] * a5
    f[0] += w1 * h2 - w2 * h1 + v1 * h5 - v2 * h4
    f[1] += w2 * h0 - w0 * h2 + v2 * h3 - v0 * h5
    f[2] += w0 * h1 - w1 * h0 + v0 * h4 - v1 * h3
    f[3] += w1 * h5 - w2 * h4
    f[4] += w2 * h3 - w0 * h5
    f[5] += w0 * h4 - w1 * h3
    for j in range(n):
        i = vs + j
        tau[j] = S[i, 0] * f[0] + S[i, 1] * f[1] + S[i, 2] * f[2] + S[i, 3] * f[3] + S[i, 4] * f[4] + S[i, 5] * f[5]


@njit(cache=True)
def free_body_bias_vel(m, d, b, scale, vs, out):
    """out[i, k] = ∂(C(q,v)·v)[s + i]/∂v[s + k] (6 × 6, s body b's first dof) of a standalone free body b:
    bias_vel_columns(m, d, [b], its dofs, ·)'s central differences with step `scale` (max(1, |v|∞)) restricted to
    the body's own rows, the only ones its tree has. vs: a copy of d.v (restored on return)."""
    s = m.tree.ji[b, 4]
    v = d.v
    tp = np.empty(6)
    tm = np.empty(6)
    for k in range(6):
        j = s + k
        vs[j] = v[j] + scale
        _root_body_bias(m, d, b, vs, tp)
        vs[j] = v[j] - scale
        _root_body_bias(m, d, b, vs, tm)
        vs[j] = v[j]
        for r in range(6):
            out[r, k] = (tp[r] - tm[r]) / (2.0 * scale)


@njit(cache=True)
def smooth_vel(m, d, ctrl, flg_bias, symmetrize):
    """d.qDeriv: the actuator and passive velocity derivatives (fluid local Jacobians symmetrized when
    `symmetrize`, the implicitfast scheme), minus the bias derivative when `flg_bias`, on M's tree pattern."""
    g = m.integ
    nv = m.tree.nv
    D = d.qDeriv
    if D.shape[0] != nv or D.shape[1] != nv:
        D = np.zeros((nv, nv))
    else:  # the last step's D: zero off M's tree pattern (this function leaves nothing there), so zero its trees
        blocks = m.tree.mass_blocks
        for blk in range(blocks.shape[0] - 1):
            s, e = blocks[blk], blocks[blk + 1]
            for i in range(s, e):
                for k in range(s, e):
                    D[i, k] = 0.0
    actuator_vel(m, d, ctrl, D)
    passive_vel(m, d, D, symmetrize, g.body_free)
    if flg_bias:
        dC = np.empty((nv, nv))
        bias_vel_columns(m, d, m.tree.order, np.arange(nv), dC)
        for i in range(nv):
            for k in range(nv):
                D[i, k] -= dC[i, k]
    # only the bias, actuator and tendon terms reach off the pattern (a fluid item's Jacobian spans one body's chain)
    if flg_bias or m.act.row_ctrl.shape[0] or m.ten.damping.shape[0]:
        for i in range(nv):
            for k in range(nv):
                if not g.pattern[i, k]:
                    D[i, k] = 0.0
    d.qDeriv = D
