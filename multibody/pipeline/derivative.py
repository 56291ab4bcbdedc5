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
from ..kernels.kinematics import calc_velocity_kinematics
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
def smooth_vel(m, d, ctrl, flg_bias, symmetrize):
    """d.qDeriv: the actuator and passive velocity derivatives (fluid local Jacobians symmetrized when
    `symmetrize`, the implicitfast scheme), minus the bias derivative when `flg_bias`, on M's tree pattern."""
    g = m.integ
    nv = m.tree.nv
    D = np.zeros((nv, nv))
    actuator_vel(m, d, ctrl, D)
    passive_vel(m, d, D, symmetrize, g.body_free)
    if flg_bias:
        dC = np.empty((nv, nv))
        bias_vel_columns(m, d, m.tree.order, np.arange(nv), dC)
        for i in range(nv):
            for k in range(nv):
                D[i, k] -= dC[i, k]
    for i in range(nv):
        for k in range(nv):
            if not g.pattern[i, k]:
                D[i, k] = 0.0
    d.qDeriv = D
