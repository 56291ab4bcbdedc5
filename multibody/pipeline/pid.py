"""MuJoCo's PID actuator plugin (`mujoco.pid`, multibody/plugins/pid.py) in the compiled step: the force
f = kp·e + kd·(u̇ − V) + ki·I⁺ of a plugin actuator replaces gain·input + bias, with the error e = u − L (u the
clamped ctrl, or the dyntype activation — the next one when actearly —, L the actuator length, V its velocity, u̇
the dyntype activation rate, 0 without a dyntype). Its activation slots (the integral I, advanced to
I⁺ = clamp(I + e·h, ±imax/ki), and the previous input of a slew-limited one, which clips the input to
previous ± slewmax·h once time > 0) get the rates (I⁺ − I)/h and (u − previous)/h, and advance with the other
activations (mj_nextActivation of their actuator). The plugin's Python `compute` does the same arithmetic in the
same order (the plant's Python path); plants with other engine plugins step there.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from .structs import F2, I1, I2, declare, floats, ints


@structref.register
class PidModelType(types.StructRef):
    """numba type of PidModel."""


class PidModel(structref.StructRefProxy):
    """The PID actuator outputs of the plant's MJCF models (zero rows without them)."""


PID_MODEL = declare(PidModelType, PidModel, [
    ("out", I1),     # (n,) actuator output of each PID actuator
    ("prm", F2),     # (n, 5) kp, ki, kd, bound of the integral |imax / ki| (inf: none), slewmax
    ("slot", I2),    # (n, 2) activation slots of the integral and of the previous input (-1: none)
    ("dyn", I1),     # (n,) the dyntype activation slot (-1: no dyntype, the input is ctrl)
])


@njit(cache=True)
def new_pid_model(out, prm, slot, dyn):
    p = structref.new(PID_MODEL)
    p.out, p.prm, p.slot, p.dyn = out, prm, slot, dyn
    return p


def CompilePid(mjcf) -> PidModel:
    """The PID actuators of `mjcf` (mjcf/actuation.py MjcfActuation, or None) whose plugins step in the plant
    (MjcfPlugins.in_step; otherwise the plant steps on the Python path and the rows are unused)."""
    plugins = getattr(mjcf, "plugins", None) if mjcf is not None else None
    if not plugins or not plugins.in_step:
        return new_pid_model(ints([]), np.zeros((0, 5)), ints([], (0, 2)), ints([]))
    out, prm, slot, dyn = plugins.PidRows(mjcf)
    return new_pid_model(ints(out), floats(prm, (-1, 5)), ints(slot, (-1, 2)), ints(dyn))


@njit(cache=True, inline="always")
def _slew(p, r, act, u, time, h):
    """The input after the slew limit: previous ± slewmax·h once a previous input exists (time > 0)."""
    s = p.slot[r, 1]
    if s >= 0 and time > 0:
        prev = act[s]
        step = p.prm[r, 4] * h
        u = min(max(u, prev - step), prev + step)
    return u


@njit(cache=True, inline="always")
def _integral(p, r, act, error, h):
    """I⁺ = I + e·h, clamped to ±|imax / ki|."""
    integral = act[p.slot[r, 0]] + error * h
    bound = p.prm[r, 3]
    return min(max(integral, -bound), bound)


@njit(cache=True)
def pid_forces(p, now, inputs, rates, length, velocity, act, act_dot, raw, time, h):
    """raw[out] = the PID force of each row r from its input at the current activation now[r], the input the
    actuator uses inputs[r] (actearly: the next activation), the dyntype rate rates[r], length and velocity (by
    output); act_dot of its slots."""
    for r in range(p.out.shape[0]):
        i = p.out[r]
        L, V = length[i], velocity[i]
        u_now = _slew(p, r, act, now[r], time, h)
        ki = p.prm[r, 1]
        s = p.slot[r, 0]
        if s >= 0:
            act_dot[s] = (_integral(p, r, act, u_now - L, h) - act[s]) / h
        if p.slot[r, 1] >= 0:
            act_dot[p.slot[r, 1]] = (u_now - act[p.slot[r, 1]]) / h
        error = _slew(p, r, act, inputs[r], time, h) - L
        force = p.prm[r, 0] * error + p.prm[r, 2] * (rates[r] - V)
        if s >= 0:
            force += ki * _integral(p, r, act, error, h)
        raw[i] = force
