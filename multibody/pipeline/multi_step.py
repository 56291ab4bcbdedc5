"""Many discrete steps in one compiled call: the Simulator's lean loop (systems/analysis/lean_loop.py) hands a plant
whose periodic step is the diagram's only event a chunk of sample times, and the plant runs `forward.step` at each
of them without returning to Python (MultibodyPlant._LeanSteps). States and results are those of one call per step:
the same kernel, inputs and time arithmetic.

The lean loop lists the sample times (lean_loop.lean_times); `multi_step` runs them, alternating the two rows of
the plant's StepResults buffer, and stops before a step that does not return STEP_OK (or STEP_NOT_CONVERGED, when
the plant only counts those) or leaves a non-finite state, so that the plant's ordinary path redoes it and reports it.

The plant calls `multi_step_packed`, the same loop with the arguments that stay the same from chunk to chunk packed
once into a `LeanArgs` struct (kept per context, rebuilt when an array it holds is replaced): a Python call unboxes
each array argument (~0.04 µs each, ~0.8 µs for multi_step's 19 arguments) but a struct in one read, which
Simulator.AdvanceTo(t + h) of a small arm pays per step.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from .data import DATA
from .forward import STEP_NOT_CONVERGED, STEP_OK, step
from .model import MODEL
from .structs import BOOL, F1, F2, declare


@structref.register
class LeanArgsType(types.StructRef):
    """numba type of LeanArgs."""


class LeanArgs(structref.StructRefProxy):
    """multi_step's arguments but a chunk's times, row, keep_unconverged and n (the same arrays, not copies)."""


LEAN_ARGS = declare(LeanArgsType, LeanArgs, [
    ("m", MODEL), ("d", DATA), ("x", F1), ("scratch", F1), ("bp", F1), ("u", F1), ("ctrl", F1), ("act", F1),
    ("act_next", F1), ("tau_in", F1), ("F_in", F2), ("g_W", F1), ("mocap", F1), ("collide", BOOL), ("buffer", F2),
])


@njit(cache=True)
def new_lean_args(m, d, x, scratch, bp, u, ctrl, act, act_next, tau_in, F_in, g_W, mocap, collide, buffer):
    """A LeanArgs holding these arrays (multi_step's arguments of the same names)."""
    a = structref.new(LEAN_ARGS)
    a.m, a.d, a.x, a.scratch, a.bp, a.u, a.ctrl, a.act = m, d, x, scratch, bp, u, ctrl, act
    a.act_next, a.tau_in, a.F_in, a.g_W, a.mocap, a.collide, a.buffer = act_next, tau_in, F_in, g_W, mocap, collide, buffer
    return a


@njit(cache=True)
def multi_step_packed(a, times, row, keep_unconverged, n):
    """multi_step over the arrays of the LeanArgs `a`."""
    return _multi_step(a.m, a.d, a.x, a.scratch, a.bp, a.u, a.ctrl, a.act, a.act_next, a.tau_in, a.F_in, a.g_W,
                       a.mocap, a.collide, a.buffer, row, keep_unconverged, times, n)


@njit(cache=True)
def multi_step(m, d, x, scratch, bp, u, ctrl, act, act_next, tau_in, F_in, g_W, mocap, collide, buffer, row,
               keep_unconverged, times, n):
    """_multi_step: the steps at times[:n] (see there)."""
    return _multi_step(m, d, x, scratch, bp, u, ctrl, act, act_next, tau_in, F_in, g_W, mocap, collide, buffer, row,
                       keep_unconverged, times, n)


@njit(cache=True, inline="always")
def _multi_step(m, d, x, scratch, bp, u, ctrl, act, act_next, tau_in, F_in, g_W, mocap, collide, buffer, row,
                keep_unconverged, times, n):
    """(steps done k, status of step k or STEP_OK, results row of the last done step, steps done whose solver did
    not converge): steps at times[:n] from the state x and the MJCF activations act (both updated in place; scratch
    has x's size, act_next act's), reading the warm start from buffer[row] and writing the step's results into the
    other row. `keep_unconverged`: a step whose constraint solver hit its iteration limit is kept (and counted), as
    the plant's ordinary path does unless asked to raise. Step k (when k < n) is undone but for `d`: x, act and
    buffer[row] are as before it."""
    nx = x.shape[0]
    unconverged = 0
    for k in range(n):
        status = step(m, d, x, bp, u, ctrl, act, act_next, tau_in, F_in, g_W, mocap, collide, buffer[row], scratch,
                      buffer[1 - row], times[k])
        if status != STEP_OK and not (keep_unconverged and status == STEP_NOT_CONVERGED):
            return k, status, row, unconverged
        for i in range(nx):
            if not np.isfinite(scratch[i]):
                return k, status, row, unconverged
        for i in range(act.shape[0]):
            if not np.isfinite(act_next[i]):
                return k, status, row, unconverged
        if status == STEP_NOT_CONVERGED:
            unconverged += 1
        for i in range(nx):
            x[i] = scratch[i]
        for i in range(act.shape[0]):
            act[i] = act_next[i]
        row = 1 - row
    return n, STEP_OK, row, unconverged
