"""Actuation of the discrete step (MuJoCo's mj_transmission and mj_fwdActuation): the plant's joint actuators
(τ[dof] += u) and MuJoCo's actuators,

    L, moment = transmission(q),  V = moment·v,  f = clamp(gain(L, V)·input + bias(L, V), forcerange),  τ += momentᵀ·f,

with constant moment arms (joint and fixed-tendon transmissions, L = qmoment·q) or a spatial tendon's (gear·∂L/∂v of
the tendon stage, tendon.py); input = ctrl clamped to ctrlrange (dyntype none) or the activation (the step's `act`;
actearly: the next activation); gain fixed (g₀), affine (g₀ + g₁L + g₂V) or muscle, bias none, affine
(b₀ + b₁L + b₂V) or muscle (muscle.py); the rotational position servos' setpoints wrapped to the representative
nearest the length; a tendon's actuatorfrcrange scales the forces of its actuators when their sum leaves the range
(before forcerange), then each joint's actuatorfrcrange clamps its total actuator torque. Activation rates
(d.act_dot): integrator ȧ = ctrl, filter / filterexact ȧ = (ctrl − a)/τ, muscle (muscle.py); the integrators
advance them with `advance_activations` (mj_advance).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from .gravcomp import GRAVCOMP_MODEL, CompileGravcomp
from .muscle import MINVAL, MuscleActivationRate, MuscleBias, MuscleGain
from .pid import PID_MODEL, CompilePid, pid_forces
from .structs import B1, F1, F2, I1, INT, bools, declare, floats, ints
from .transmission import (TRANSMISSION_MODEL, CompileTransmissions, joint_transmissions, site_transmissions,
                           so3_forces)

#: Status codes of `actuation`.
ACTUATION_OK, ACTUATION_NAN_U, ACTUATION_NAN_CTRL = 0, 1, 2
GAIN_FIXED, GAIN_AFFINE, GAIN_MUSCLE = 0, 1, 2
BIAS_NONE, BIAS_AFFINE, BIAS_MUSCLE = 0, 1, 2
DYN_NONE, DYN_INTEGRATOR, DYN_FILTER, DYN_FILTEREXACT, DYN_MUSCLE = 0, 1, 2, 3, 4


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
    # the columns each output's moment row can be nonzero in, mom_col[mom_adr[i]:mom_adr[i + 1]] (ascending; MuJoCo's
    # sparse actuator_moment): a constant row's nonzeros, every column for the rows the transmissions compute
    ("mom_adr", I1), ("mom_col", I1),
    ("qmoment", F2),       # (nout, nq) d length / d q
    ("qmom_adr", I1), ("qmom_col", I1),  # the nonzero columns of each qmoment row (as mom_adr / mom_col)
    ("enabled", B1),       # (nout,) actuator produces force (supported, actuation flag on, group enabled)
    ("gaintype", I1), ("gain", F2),     # GAIN_*, (nout, 3) gainprm[:3]
    ("biastype", I1), ("bias", F2),     # BIAS_*, (nout, 3) biasprm[:3]
    ("force_lo", F1), ("force_hi", F1),  # (nout,) forcerange (±inf when not limited)
    ("period", F1),        # (nout,) setpoint wrap period of rotational position servos (0: none)
    ("jlim_dof", I1), ("jlim_lo", F1), ("jlim_hi", F1),   # joints' actuatorfrcrange
    ("out_jlim", I1),      # (nout,) the jlim row of the output's transmission joint (-1: none)
    # spatial-tendon transmissions: output, tendon (row of m.ten / d.ten_*), gear (the output's moment row is 0)
    ("ten_out", I1), ("ten_id", I1), ("ten_gear", F1),
    # actuators on tendons with actuatorfrcrange: output, tendon, the tendon's range
    ("tlim_out", I1), ("tlim_ten", I1), ("tlim_lo", F1), ("tlim_hi", F1),
    # actuator dynamics (activations: the step's `act` input, MuJoCo's act): the output's activation slot (-1:
    # none), DYN_*, dynprm[:3], actrange (±inf when not limited), actearly; na: the number of activations
    ("actadr", I1), ("dyntype", I1), ("dynprm", F2), ("act_lo", F1), ("act_hi", F1), ("actearly", B1), ("na", INT),
    # muscles (GAIN_MUSCLE / BIAS_MUSCLE, muscle.py): gainprm[:9], biasprm[:9], lengthrange, acc0
    ("gainprm", F2), ("biasprm", F2), ("lengthrange", F2), ("acc0", F1),
    # configuration-dependent transmissions (site, slider-crank, ball and free joint; transmission.py), body
    # gravity compensation (gravcomp.py: its actuatorgravcomp part is actuation) and MuJoCo's PID plugin (pid.py)
    ("trn", TRANSMISSION_MODEL), ("gc", GRAVCOMP_MODEL), ("pid", PID_MODEL),
])


@njit(cache=True)
def new_actuation_model(dofs, nctrl, ctrl_lo, ctrl_hi, row_ctrl, moment, mom_adr, mom_col, qmoment, qmom_adr,
                        qmom_col, enabled, gaintype, gain, biastype, bias, force_lo, force_hi, period, jlim_dof,
                        jlim_lo, jlim_hi, out_jlim, ten_out, ten_id, ten_gear, tlim_out, tlim_ten, tlim_lo, tlim_hi,
                        actadr, dyntype, dynprm, act_lo, act_hi, actearly, na, gainprm, biasprm, lengthrange, acc0,
                        trn, gc, pid):
    a = structref.new(ACTUATION_MODEL)
    a.dofs, a.nctrl, a.ctrl_lo, a.ctrl_hi, a.row_ctrl = dofs, nctrl, ctrl_lo, ctrl_hi, row_ctrl
    a.moment, a.mom_adr, a.mom_col, a.qmoment, a.enabled = moment, mom_adr, mom_col, qmoment, enabled
    a.qmom_adr, a.qmom_col = qmom_adr, qmom_col
    a.gaintype, a.gain, a.biastype, a.bias = gaintype, gain, biastype, bias
    a.force_lo, a.force_hi, a.period = force_lo, force_hi, period
    a.jlim_dof, a.jlim_lo, a.jlim_hi, a.out_jlim = jlim_dof, jlim_lo, jlim_hi, out_jlim
    a.ten_out, a.ten_id, a.ten_gear = ten_out, ten_id, ten_gear
    a.tlim_out, a.tlim_ten, a.tlim_lo, a.tlim_hi = tlim_out, tlim_ten, tlim_lo, tlim_hi
    a.actadr, a.dyntype, a.dynprm, a.act_lo, a.act_hi, a.actearly, a.na = actadr, dyntype, dynprm, act_lo, act_hi, actearly, na
    a.gainprm, a.biasprm, a.lengthrange, a.acc0 = gainprm, biasprm, lengthrange, acc0
    a.trn, a.gc, a.pid = trn, gc, pid
    return a


def CompileActuation(plant, mjcf, maps: list = (), ten_offsets: list = ()) -> ActuationModel:
    """The plant's joint actuators and, given `mjcf` (mjcf/actuation.py MjcfActuation, or None), its MuJoCo
    actuators: constant moment arms, spatial-tendon transmissions, tendon actuatorfrcrange, activation dynamics and
    muscles. `maps` are the plant's MjcfPlantMaps, `ten_offsets` the row of each one's first tendon in the tendon
    stage (tendon.py)."""
    m = plant._model
    z1 = np.zeros(0)
    if mjcf is None:
        z2 = np.zeros((0, m.nv))
        return new_actuation_model(ints(m.actuator_dofs), 0, z1, z1, ints(z1), z2, ints([0]), ints(z1),
                                   np.zeros((0, m.nq)), ints([0]), ints(z1), bools(z1),
                                   ints(z1), np.zeros((0, 3)), ints(z1), np.zeros((0, 3)), z1, z1, z1, ints(z1), z1, z1,
                                   ints(z1), ints(z1), ints(z1), z1, ints(z1), ints(z1), z1, z1, ints(z1), ints(z1),
                                   np.zeros((0, 3)), z1, z1, bools(z1), 0, np.zeros((0, 9)), np.zeros((0, 9)),
                                   np.zeros((0, 2)), z1, CompileTransmissions(plant, None), CompileGravcomp(plant, None),
                                   CompilePid(None))
    jlim = np.array(mjcf.jlim, dtype=float).reshape(-1, 3)
    model_of = {id(pm): k for k, pm in enumerate(maps)}
    spatial = [(i, ten_offsets[model_of[id(kin.pm)]] + kin.tendon_id, gear) for i, kin, gear in mjcf.spatial]
    tlim = [(i, ten_offsets[k] + t, lo, hi) for i, (k, t), lo, hi in mjcf.tlim]
    moment = floats(mjcf.moment, (len(mjcf.moment), m.nv))
    trn = CompileTransmissions(plant, mjcf)
    computed = ({r[0] for r in spatial} | {int(i) for i, _trn in mjcf.sites} | {int(b[0]) for b in mjcf.balls}
                | {int(r) for sv in mjcf.so3 for r in sv.rows})
    mom_adr, mom_col = MomentSupports(moment, computed)
    qmoment = floats(mjcf.qmoment, (len(mjcf.qmoment), m.nq))
    qmom_adr, qmom_col = MomentSupports(qmoment, set())
    return new_actuation_model(
        ints(m.actuator_dofs), int(mjcf.nu), floats(mjcf.ctrl_lo), floats(mjcf.ctrl_hi), ints(mjcf.row_ctrl),
        moment, mom_adr, mom_col, qmoment, qmom_adr, qmom_col, bools(mjcf.enabled),
        ints(mjcf.gaintype), floats(mjcf.gain, (-1, 3)), ints(mjcf.biastype), floats(mjcf.bias, (-1, 3)),
        floats(mjcf.force_lo), floats(mjcf.force_hi), floats(mjcf.period), ints(jlim[:, 0]), floats(jlim[:, 1]),
        floats(jlim[:, 2]), ints(mjcf.out_jlim), ints([r[0] for r in spatial]), ints([r[1] for r in spatial]),
        floats([r[2] for r in spatial]), ints([r[0] for r in tlim]), ints([r[1] for r in tlim]),
        floats([r[2] for r in tlim]), floats([r[3] for r in tlim]),
        ints(mjcf.actadr), ints(mjcf.dyn), floats(mjcf.dynprm, (-1, 3)), floats(mjcf.act_lo), floats(mjcf.act_hi),
        bools(mjcf.actearly), int(mjcf.na), floats(mjcf.gainprm, (-1, 9)), floats(mjcf.biasprm, (-1, 9)),
        floats(mjcf.lengthrange, (-1, 2)), floats(mjcf.acc0), trn, CompileGravcomp(plant, mjcf), CompilePid(mjcf))


def MomentSupports(moment: np.ndarray, computed: set) -> tuple[np.ndarray, np.ndarray]:
    """(mom_adr, mom_col): the columns of each output's moment row that can be nonzero (ascending): the nonzeros
    of a constant row of `moment` (nout × nv), every column for the outputs in `computed` (rows the transmissions
    write per step). The actuation stage's products skip the others, which are zero (a humanoid's hinge motor
    moves one of 27 dofs; 22 of them, 462 × 594 dense)."""
    nout, nv = moment.shape
    adr, cols = [0], []
    for i in range(nout):
        c = np.arange(nv) if i in computed else np.flatnonzero(moment[i])
        cols.extend(c.tolist())
        adr.append(len(cols))
    return ints(adr), ints(cols)


@njit(cache=True)
def next_activation(a, i, act, rate, h):
    """MuJoCo's mj_nextActivation for output i: act + h·rate (filterexact: act + rate·τ·(1 − e^(−h/τ))), clamped to
    actrange."""
    if a.dyntype[i] == DYN_FILTEREXACT:
        tau = max(MINVAL, a.dynprm[i, 0])
        x = act + rate * tau * (1.0 - math.exp(-h / tau))
    else:
        x = act + rate * h
    return min(max(x, a.act_lo[i]), a.act_hi[i])


@njit(cache=True)
def activation_rates(m, d, ctrl):
    """d.act_dot: ȧ of every activation from the clamped ctrl and d.act (integrator: ctrl; filter / filterexact:
    (ctrl − a)/τ; muscle: muscle.MuscleActivationRate)."""
    a = m.act
    act = d.act
    rate = d.act_dot if a.na == 0 and d.act_dot.shape[0] == 0 else np.zeros(a.na)  # (no activations: kept empty)
    for i in range(a.actadr.shape[0]):
        k = a.actadr[i]
        if k < 0:
            continue
        r = a.row_ctrl[i]
        c = min(max(ctrl[r], a.ctrl_lo[r]), a.ctrl_hi[r])
        dyn = a.dyntype[i]
        if dyn == DYN_INTEGRATOR:
            rate[k] = c
        elif dyn == DYN_MUSCLE:
            rate[k] = MuscleActivationRate(c, act[k], a.dynprm[i])
        else:
            rate[k] = (c - act[k]) / max(MINVAL, a.dynprm[i, 0])
    d.act_dot = rate


@njit(cache=True)
def advance_activations(m, d, act0, rate, act_next):
    """act_next = MuJoCo's mj_advance of the activations act0 with rates `rate` over one step: mj_nextActivation
    per slot (rate 0 for a disabled actuator), then an integrator position servo's wrapped setpoint re-anchored to
    the representative nearest its length d.actuator_length."""
    a = m.act
    h = m.tree.h
    for i in range(a.actadr.shape[0]):
        k = a.actadr[i]
        if k < 0:
            continue
        act_next[k] = next_activation(a, i, act0[k], rate[k] if a.enabled[i] else 0.0, h)
        P = a.period[i]
        if a.dyntype[i] == DYN_INTEGRATOR and P > 0:
            act_next[k] -= P * math.floor((act_next[k] - d.actuator_length[i]) / P + 0.5)
    for s in range(a.trn.so3_out.shape[0]):  # an so3 integrator's expmap setpoint re-anchored to angle ≤ π
        i = a.trn.so3_out[s]
        if a.actadr[i] < 0:
            continue
        angle = 0.0
        for r in range(3):
            angle += act_next[a.actadr[i + r]] ** 2
        angle = math.sqrt(angle)
        if angle > math.pi:
            scale = (angle - 2.0 * math.pi * math.floor(angle / (2.0 * math.pi) + 0.5)) / angle
            for r in range(3):
                act_next[a.actadr[i + r]] *= scale
    p = a.pid
    for r in range(p.out.shape[0]):  # the PID plugin's own slots (mj_nextActivation of their actuator)
        for c in range(2):
            k = p.slot[r, c]
            if k >= 0:
                act_next[k] = next_activation(a, p.out[r], act0[k], rate[k], h)


@njit(cache=True)
def transmission(m, d):
    """d.actuator_length (nout) and d.actuator_moment (nout × nv, ∂length/∂v) of the MuJoCo actuators: constant
    rows (joint and fixed-tendon transmissions, qmoment·q), spatial tendons' gear·(length, ∂L/∂v) from the tendon
    stage, site, slider-crank, ball and free joint rows (transmission.py; MuJoCo's mj_transmission)."""
    a = m.act
    nout, nv = a.row_ctrl.shape[0], a.moment.shape[1]
    if d.actuator_moment.shape[0] != nout or d.actuator_moment.shape[1] != nv:
        d.actuator_moment = a.moment.copy()  # the Data's first step: every entry; then only the supports (below)
    moment = d.actuator_moment
    adr, col = a.mom_adr, a.mom_col
    for i in range(nout):  # the constant rows' supports (the zeros outside them were copied above and stay), and
        for p in range(adr[i], adr[i + 1]):  # the computed rows whole, as the transmissions overwrite them
            moment[i, col[p]] = a.moment[i, col[p]]
    L = d.actuator_length if nout == 0 and d.actuator_length.shape[0] == 0 else np.zeros(nout)  # (kept empty)
    q = d.q
    qadr, qcol = a.qmom_adr, a.qmom_col
    for i in range(nout):
        s = 0.0
        for p in range(qadr[i], qadr[i + 1]):  # the row's nonzeros (the same sum without its products by zeros)
            s += a.qmoment[i, qcol[p]] * q[qcol[p]]
        L[i] = s
    for r in range(a.ten_out.shape[0]):  # spatial tendon: gear·length, moment gear·∂L/∂v
        i, t, g = a.ten_out[r], a.ten_id[r], a.ten_gear[r]
        L[i] = g * d.ten_length[t]
        for k in range(nv):
            moment[i, k] = g * d.ten_J[t, k]
    site_transmissions(m, d, L, moment)
    joint_transmissions(m, d, L, moment)
    d.actuator_length = L


@njit(cache=True)
def _pid(m, d, ctrl, vel, raw, time):
    """The PID plugin actuators' forces into raw (their output's gain·input + bias) and their slots' rates into
    d.act_dot (pid.py): the input is the clamped ctrl, or the dyntype activation (actearly: the next one)."""
    a, p = m.act, m.act.pid
    n = p.out.shape[0]
    act, h = d.act, m.tree.h
    now, inputs, rates = np.empty(n), np.empty(n), np.zeros(n)
    for r in range(n):
        i, k = p.out[r], p.dyn[r]
        if k >= 0:
            now[r] = inputs[r] = act[k]
            rates[r] = d.act_dot[k]
            if a.actearly[i] and a.actadr[i] >= 0:
                inputs[r] = next_activation(a, i, act[k], d.act_dot[k], h)
        else:
            c = a.row_ctrl[i]
            now[r] = inputs[r] = min(max(ctrl[c], a.ctrl_lo[c]), a.ctrl_hi[c])
    pid_forces(p, now, inputs, rates, d.actuator_length, vel, act, d.act_dot, raw, time, h)
    for r in range(n):
        if not a.enabled[p.out[r]]:
            raw[p.out[r]] = 0.0


@njit(cache=True)
def _no_mujoco_actuator_arrays(d, nv):
    """Whether d's MuJoCo actuator arrays are the empty ones `transmission` and `activation_rates` leave for a model
    without MuJoCo actuators and activations (then both have nothing to do: their calls, and the temporaries the
    transmission stages make, cost a joint-actuated step ~10% of its time)."""
    return (d.actuator_force.shape[0] == 0 and d.actuator_length.shape[0] == 0 and d.act_dot.shape[0] == 0
            and d.actuator_moment.shape[0] == 0 and d.actuator_moment.shape[1] == nv)


@njit(cache=True)
def actuation(m, d, u, ctrl, time):
    """Add τ[dof] += u of the joint actuators and the MuJoCo actuators' momentᵀ·f to d.tau (f in
    d.actuator_force; lengths, velocities and moment arms in d.actuator_*, activation rates in d.act_dot from the
    activations d.act; `time` [s]: the step's, which the PID plugin's slew limit reads). Returns ACTUATION_OK, or
    ACTUATION_NAN_U / ACTUATION_NAN_CTRL (nothing added)."""
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
    if nout == 0 and a.actadr.shape[0] == 0 and _no_mujoco_actuator_arrays(d, a.moment.shape[1]):
        force = d.actuator_force  # joint actuators only, after the Data's first step: nothing to transmit
    else:  # (the force array of the last step when its size fits: every entry is written below before it is read)
        force = d.actuator_force if d.actuator_force.shape[0] == nout else np.zeros(nout)
        d.actuator_force = force
        transmission(m, d)
        activation_rates(m, d, ctrl)
    if nout == 0:  # joint actuators only: no MuJoCo actuator force (its arrays made once per Data)
        d.actuator_velocity = force
        if d.qfrc_actuator.shape[0] != d.tau.shape[0]:
            d.qfrc_actuator = np.empty(d.tau.shape[0])
        d.qfrc_actuator[:] = 0.0
        return ACTUATION_OK
    nv = a.moment.shape[1]
    v, moment, act, h = d.v, d.actuator_moment, d.act, m.tree.h
    vel = d.actuator_velocity  # (the last step's when its size fits: every entry is written below)
    if vel.shape[0] != nout:
        vel = np.zeros(nout)
    d.actuator_velocity = vel
    raw = np.zeros(nout)  # gain·input + bias before the tendons' actuatorfrcrange and forcerange
    inputs = np.empty(nout)
    adr, col = a.mom_adr, a.mom_col
    for i in range(nout):
        L = d.actuator_length[i]
        V = 0.0
        for p in range(adr[i], adr[i + 1]):  # the row's support (its other entries are zero: the same sum)
            k = col[p]
            V += moment[i, k] * v[k]
        vel[i] = V
        r = a.row_ctrl[i]
        inp = min(max(ctrl[r], a.ctrl_lo[r]), a.ctrl_hi[r])
        k = a.actadr[i]
        if k >= 0:  # stateful: the activation (actearly: the next one)
            inp = next_activation(a, i, act[k], d.act_dot[k], h) if a.actearly[i] else act[k]
        P = a.period[i]
        if P > 0:
            inp -= P * math.floor((inp - L) / P + 0.5)
        inputs[i] = inp
        gt, bt = a.gaintype[i], a.biastype[i]
        if gt == GAIN_AFFINE:
            gain = a.gain[i, 0] + a.gain[i, 1] * L + a.gain[i, 2] * V
        elif gt == GAIN_MUSCLE:
            gain = MuscleGain(L, V, a.lengthrange[i], a.acc0[i], a.gainprm[i])
        else:
            gain = a.gain[i, 0]
        if bt == BIAS_AFFINE:
            bias = a.bias[i, 0] + a.bias[i, 1] * L + a.bias[i, 2] * V
        elif bt == BIAS_MUSCLE:
            bias = MuscleBias(L, a.lengthrange[i], a.acc0[i], a.biasprm[i])
        else:
            bias = 0.0
        raw[i] = gain * inp + bias if a.enabled[i] else 0.0
    if a.trn.so3_out.shape[0]:  # orientation servos: their force replaces gain·input + bias
        clamped = np.empty(ctrl.shape[0])
        for r in range(ctrl.shape[0]):
            clamped[r] = min(max(ctrl[r], a.ctrl_lo[r]), a.ctrl_hi[r])
        so3_forces(m, d, clamped, inputs, raw)
    if a.pid.out.shape[0]:  # MuJoCo's PID plugin: its force replaces gain·input + bias
        _pid(m, d, ctrl, vel, raw, time)
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
    tau_act = d.qfrc_actuator  # (the last step's when its size fits)
    if tau_act.shape[0] != nv:
        tau_act = np.zeros(nv)
    else:
        tau_act[:] = 0.0
    for i in range(nout):
        if force[i] != 0.0:
            for p in range(adr[i], adr[i + 1]):
                k = col[p]
                tau_act[k] += moment[i, k] * force[i]
    for k in range(d.qfrc_gravcomp.shape[0]):  # gravity compensation routed through actuatorgravcomp joints
        if a.gc.actuated[k]:
            tau_act[k] += d.qfrc_gravcomp[k]
    for j in range(a.jlim_dof.shape[0]):
        k = a.jlim_dof[j]
        tau_act[k] = min(max(tau_act[k], a.jlim_lo[j]), a.jlim_hi[j])
    for k in range(nv):
        tau[k] += tau_act[k]
    d.qfrc_actuator = tau_act
    return ACTUATION_OK
