"""Actuation of the discrete step: the plant's joint actuators (τ[dof] += u) and MuJoCo's actuators with constant
moment arms (joint and fixed-tendon transmissions) or a spatial tendon's (gear·∂L/∂v of the tendon stage, tendon.py;
mj_fwdActuation without activation dynamics):

    L = qmoment·q (gear·L_tendon),  V = moment·v,  f = clamp(gain(L, V)·ctrl + bias(L, V), forcerange),  τ += momentᵀ·f,

gain fixed (g₀) or affine (g₀ + g₁L + g₂V), bias none or affine (b₀ + b₁L + b₂V), ctrl clamped to ctrlrange, the
rotational position servos' setpoints wrapped to the representative nearest the length; a tendon's actuatorfrcrange
scales the forces of its actuators when their sum leaves the range (before forcerange), then each joint's
actuatorfrcrange clamps its total actuator torque.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from .structs import B1, F1, F2, I1, INT, bools, declare, floats, ints

#: Status codes of `actuation`.
ACTUATION_OK, ACTUATION_NAN_U, ACTUATION_NAN_CTRL = 0, 1, 2
GAIN_FIXED, GAIN_AFFINE = 0, 1
BIAS_NONE, BIAS_AFFINE = 0, 1


@structref.register
class ActuationModelType(types.StructRef):
    """numba type of ActuationModel."""


class ActuationModel(structref.StructRefProxy):
    """Joint actuators (one dof each) and MuJoCo actuator outputs (rows) with their transmission, gain and bias."""


ACTUATION_MODEL = declare(ActuationModelType, ActuationModel, [
    ("dofs", I1),          # (nu,) velocity index of each joint actuator
    ("nctrl", INT),        # MuJoCo's nu: the ctrl vector's size
    ("ctrl_lo", F1), ("ctrl_hi", F1),   # (nctrl,) ctrlrange (±inf when not limited)
    ("row_ctrl", I1),      # (nout,) ctrl entry of each actuator output
    ("moment", F2),        # (nout, nv) d length / d v
    ("qmoment", F2),       # (nout, nq) d length / d q
    ("enabled", B1),       # (nout,) actuator produces force (supported, actuation flag on, group enabled)
    ("gaintype", I1), ("gain", F2),     # GAIN_*, (nout, 3) gainprm[:3]
    ("biastype", I1), ("bias", F2),     # BIAS_*, (nout, 3) biasprm[:3]
    ("force_lo", F1), ("force_hi", F1),  # (nout,) forcerange (±inf when not limited)
    ("period", F1),        # (nout,) setpoint wrap period of rotational position servos (0: none)
    ("jlim_dof", I1), ("jlim_lo", F1), ("jlim_hi", F1),   # joints' actuatorfrcrange
    # spatial-tendon transmissions: output, tendon (row of m.ten / d.ten_*), gear (the output's moment row is 0)
    ("ten_out", I1), ("ten_id", I1), ("ten_gear", F1),
    # actuators on tendons with actuatorfrcrange: output, tendon, the tendon's range
    ("tlim_out", I1), ("tlim_ten", I1), ("tlim_lo", F1), ("tlim_hi", F1),
])


@njit(cache=True)
def new_actuation_model(dofs, nctrl, ctrl_lo, ctrl_hi, row_ctrl, moment, qmoment, enabled, gaintype, gain, biastype,
                        bias, force_lo, force_hi, period, jlim_dof, jlim_lo, jlim_hi, ten_out, ten_id, ten_gear,
                        tlim_out, tlim_ten, tlim_lo, tlim_hi):
    a = structref.new(ACTUATION_MODEL)
    a.dofs, a.nctrl, a.ctrl_lo, a.ctrl_hi, a.row_ctrl = dofs, nctrl, ctrl_lo, ctrl_hi, row_ctrl
    a.moment, a.qmoment, a.enabled = moment, qmoment, enabled
    a.gaintype, a.gain, a.biastype, a.bias = gaintype, gain, biastype, bias
    a.force_lo, a.force_hi, a.period = force_lo, force_hi, period
    a.jlim_dof, a.jlim_lo, a.jlim_hi = jlim_dof, jlim_lo, jlim_hi
    a.ten_out, a.ten_id, a.ten_gear = ten_out, ten_id, ten_gear
    a.tlim_out, a.tlim_ten, a.tlim_lo, a.tlim_hi = tlim_out, tlim_ten, tlim_lo, tlim_hi
    return a


def CompileActuation(plant, mjcf, maps: list = (), ten_offsets: list = ()) -> ActuationModel:
    """The plant's joint actuators and, given `mjcf` (plant/_mjcf_actuation.py MjcfActuation, or None), its MuJoCo
    actuators: constant moment arms, spatial-tendon transmissions and tendon actuatorfrcrange. `maps` are the
    plant's MjcfPlantMaps, `ten_offsets` the row of each one's first tendon in the tendon stage (tendon.py)."""
    m = plant._model
    z1 = np.zeros(0)
    if mjcf is None:
        z2 = np.zeros((0, m.nv))
        return new_actuation_model(ints(m.actuator_dofs), 0, z1, z1, ints(z1), z2, np.zeros((0, m.nq)), bools(z1),
                                   ints(z1), np.zeros((0, 3)), ints(z1), np.zeros((0, 3)), z1, z1, z1, ints(z1), z1, z1,
                                   ints(z1), ints(z1), z1, ints(z1), ints(z1), z1, z1)
    jlim = np.array(mjcf.jlim, dtype=float).reshape(-1, 3)
    model_of = {id(pm): k for k, pm in enumerate(maps)}
    spatial = [(i, ten_offsets[model_of[id(kin.pm)]] + kin.tendon_id, gear) for i, kin, gear in mjcf.spatial]
    tlim = [(i, ten_offsets[k] + t, lo, hi) for i, (k, t), lo, hi in mjcf.tlim]
    return new_actuation_model(
        ints(m.actuator_dofs), int(mjcf.nu), floats(mjcf.ctrl_lo), floats(mjcf.ctrl_hi), ints(mjcf.row_ctrl),
        floats(mjcf.moment, (len(mjcf.moment), m.nv)), floats(mjcf.qmoment, (len(mjcf.qmoment), m.nq)), bools(mjcf.enabled),
        ints(mjcf.gaintype), floats(mjcf.gain, (-1, 3)), ints(mjcf.biastype), floats(mjcf.bias, (-1, 3)),
        floats(mjcf.force_lo), floats(mjcf.force_hi), floats(mjcf.period), ints(jlim[:, 0]), floats(jlim[:, 1]),
        floats(jlim[:, 2]), ints([r[0] for r in spatial]), ints([r[1] for r in spatial]),
        floats([r[2] for r in spatial]), ints([r[0] for r in tlim]), ints([r[1] for r in tlim]),
        floats([r[2] for r in tlim]), floats([r[3] for r in tlim]))


@njit(cache=True)
def actuation(m, d, u, ctrl):
    """Add τ[dof] += u of the joint actuators and the MuJoCo actuators' momentᵀ·f to d.tau (f in
    d.actuator_force). Returns ACTUATION_OK, or ACTUATION_NAN_U / ACTUATION_NAN_CTRL (nothing added)."""
    a = m.act
    for i in range(u.shape[0]):
        if np.isnan(u[i]):
            return ACTUATION_NAN_U
    for i in range(ctrl.shape[0]):
        if np.isnan(ctrl[i]):
            return ACTUATION_NAN_CTRL
    tau = d.tau
    for i in range(u.shape[0]):
        tau[a.dofs[i]] += u[i]
    nout = a.row_ctrl.shape[0]
    force = np.zeros(nout)
    d.actuator_force = force
    if nout == 0:
        return ACTUATION_OK
    nv, nq = a.moment.shape[1], a.qmoment.shape[1]
    q, v = d.q, d.v
    raw = np.zeros(nout)  # gain·input + bias before the tendons' actuatorfrcrange and forcerange
    for i in range(nout):
        L = 0.0
        for k in range(nq):
            L += a.qmoment[i, k] * q[k]
        V = 0.0
        for k in range(nv):
            V += a.moment[i, k] * v[k]
        for r in range(a.ten_out.shape[0]):  # spatial tendon: gear·length, moment gear·∂L/∂v
            if a.ten_out[r] == i:
                t, g = a.ten_id[r], a.ten_gear[r]
                L = g * d.ten_length[t]
                V = 0.0
                for k in range(nv):
                    V += g * d.ten_J[t, k] * v[k]
        c = ctrl[a.row_ctrl[i]]
        inp = min(max(c, a.ctrl_lo[a.row_ctrl[i]]), a.ctrl_hi[a.row_ctrl[i]])
        P = a.period[i]
        if P > 0:
            inp -= P * math.floor((inp - L) / P + 0.5)
        gain = a.gain[i, 0] + a.gain[i, 1] * L + a.gain[i, 2] * V if a.gaintype[i] == GAIN_AFFINE else a.gain[i, 0]
        bias = a.bias[i, 0] + a.bias[i, 1] * L + a.bias[i, 2] * V if a.biastype[i] == BIAS_AFFINE else 0.0
        raw[i] = gain * inp + bias if a.enabled[i] else 0.0
    for r in range(a.tlim_out.shape[0]):  # a tendon's total actuator force outside its actuatorfrcrange scales them
        total = 0.0
        for s in range(a.tlim_out.shape[0]):
            if a.tlim_ten[s] == a.tlim_ten[r]:
                total += raw[a.tlim_out[s]]
        lo, hi, i = a.tlim_lo[r], a.tlim_hi[r], a.tlim_out[r]
        force[i] = raw[i] * ((lo if total < lo else hi) / total) if total != 0.0 and (total < lo or total > hi) else raw[i]
    for r in range(a.tlim_out.shape[0]):
        raw[a.tlim_out[r]] = force[a.tlim_out[r]]
    for i in range(nout):
        f = min(max(raw[i], a.force_lo[i]), a.force_hi[i])
        force[i] = f if a.enabled[i] else 0.0
    tau_act = np.zeros(nv)
    for i in range(nout):
        if force[i] != 0.0:
            for k in range(nv):
                tau_act[k] += a.moment[i, k] * force[i]
    for r in range(a.ten_out.shape[0]):
        f, t, g = force[a.ten_out[r]], a.ten_id[r], a.ten_gear[r]
        if f != 0.0:
            for k in range(nv):
                tau_act[k] += g * d.ten_J[t, k] * f
    for j in range(a.jlim_dof.shape[0]):
        k = a.jlim_dof[j]
        tau_act[k] = min(max(tau_act[k], a.jlim_lo[j]), a.jlim_hi[j])
    for k in range(nv):
        tau[k] += tau_act[k]
    return ACTUATION_OK
