"""The Simulator's lean step loop for a diagram whose only events are one periodic group of updates.

A discrete MultibodyPlant with its SceneGraph (and constant sources) is the common case: no continuous state, no
publish, per-step or witness events, one periodic update every time_step. For such a diagram each step of Drake's
loop reduces to "handle the updates due now, move time to the next sample time", and `AdvanceLean` does exactly that
with the same calls, counts and time arithmetic as `Simulator._AdvanceTo` (bit-identical states and statistics),
without its per-step event collection. A lone unrestricted update of a leaf that declares
`_unrestricted_updates_replace_abstract` (its handler only *replaces* abstract values, after reading them) writes the
context's abstract state directly instead of through copy-on-write views. When that leaf can also run many of its
updates in one call (`_LeanSteps(leaf_context, times, n)`: MultibodyPlant's compiled steps, pipeline/multi_step.py),
the loop hands it chunks of sample times and does the same bookkeeping per update.

A diagram with continuous state and no events at all, integrated by the default error-controlled RK3, whose one
continuous leaf can integrate itself (`_LeanIntegrate(leaf_context, integrator, boundary)`: a continuous
MultibodyPlant's compiled RK3, multibody/pipeline/lean_continuous.py) is handed to that leaf (`AdvanceLeanContinuous`).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.systems.framework.dependency import K_TIME, K_XA, K_XC, K_XD
from mallard.systems.framework.event_handling import handle_unrestricted
from mallard.systems.framework.events import EventStatus
from mallard.systems.framework.state import State
from mallard.systems.framework.state_check import all_finite

__all__ = ["LeanGroup", "AdvanceLean", "AdvanceLeanContinuous", "next_sample_time"]

_CHUNK = 256  # sample times handed to a leaf's _LeanSteps per call


def next_sample_time(period: float, offset: float, t: float, allow_equal: bool) -> float:
    """The first time offset + k·period after `t` (at `t` too when `allow_equal`), as Drake's periodic events."""
    if t < offset or (allow_equal and t == offset):
        return offset
    k = math.ceil((t - offset) / period)
    nt = offset + k * period
    if nt < t or (nt == t and not allow_equal):
        nt = offset + (k + 1) * period
    return nt


@njit(cache=True)
def _next_sample_time(period, offset, t):
    """lean_loop.next_sample_time(period, offset, t, allow_equal=False)."""
    if t < offset:
        return offset
    k = math.ceil((t - offset) / period)
    nt = offset + k * period
    if nt <= t:
        nt = offset + (k + 1) * period
    return nt


@njit(cache=True)
def lean_times(period, offset, t0, boundary, times):
    """(n, t_end, hit): times[:n] are the lean loop's next n update times from t0 (an update is due at t0), t_end the
    context time after the n-th and `hit` whether an update is due at t_end (the loop's trigger)."""
    t, hit, n = t0, True, 0
    while n < times.shape[0]:
        times[n] = t
        n += 1
        t_next = _next_sample_time(period, offset, t)
        hit = not boundary < t_next
        t = t_next if hit else boundary
        if t >= boundary:
            break
    return n, t, hit


def LeanGroup(sim) -> tuple | None:
    """(period, offset, (unrestricted, discrete, publish) events) of the one periodic event group of `sim`'s
    diagram when the lean loop computes what the general loop would, else None. Call after Initialize."""
    ctx = sim._context
    if (ctx._xc.shape[0] or sim._witness_leaves or sim._per_step[0] or sim._per_step[1] or sim._per_step[2]
            or len(sim._periodic) != 1 or sim._publish_every_step or sim._monitor is not None
            or sim._realtime_rate > 0 or sim._trigger_witness):
        return None
    group = sim._periodic[0]
    if group[2][2]:  # a periodic publish
        return None
    return group


def _failed(status) -> bool:
    return status is not None and status._severity == EventStatus.Severity.kFailed


def _replacing_update(events) -> tuple | None:
    """(leaf_context, event) when `events` is one unrestricted update whose leaf only replaces abstract values."""
    if len(events) != 1:
        return None
    leaf, leaf_context, event = events[0]
    return (leaf_context, event) if getattr(leaf, "_unrestricted_updates_replace_abstract", False) else None


def _update_in_place(ctx, events, leaf_context, event):
    """The unrestricted update of one replacing leaf: discrete state through the root's scratch (applied only when
    finite, as handle_unrestricted does), abstract values written in place and put back if the update fails."""
    root = ctx._root
    root._xd_scratch[...] = root._xd  # ([...]: a copy without building a slice or dispatching np.copyto)
    values = leaf_context._abstract
    before = [v.get_value() for v in values]
    scratch = leaf_context._scratch_state
    status = event._handle(leaf_context, State(scratch._continuous, scratch._discrete, leaf_context._abstract_values))
    if _failed(status) or not all_finite(root._xd_scratch):
        for v, old in zip(values, before):
            v.set_value(old)
        if _failed(status):
            return status
        return handle_unrestricted(ctx, events)  # raises with the general path's message
    root._xd[...] = root._xd_scratch
    versions = root._versions
    versions[K_XC] += 1
    versions[K_XD] += 1
    versions[K_XA] += 1
    root._vsum += 3
    return status


def AdvanceLean(sim, group, boundary_time: float):
    """`Simulator._AdvanceTo(boundary_time)` for a diagram `LeanGroup` accepted; returns a termination
    SimulatorStatus, or None at the boundary time."""
    ctx = sim._context
    period, offset, split = group
    unres, disc, _pub = split
    setup = sim._lean_setup  # what follows from the group alone, found once per group (Initialize makes new groups)
    if setup is None or setup[0] is not group:
        in_place = _replacing_update(unres) if not disc else None
        many = getattr(unres[0][0], "_LeanSteps", None) if in_place is not None else None
        setup = sim._lean_setup = (group, in_place, many, np.empty(_CHUNK) if many is not None else None)
    _group, in_place, many, times = setup
    versions = ctx._versions
    retry = False  # the last chunk stopped before a failing update: take it on the ordinary path
    while True:
        if many is not None and sim._trigger_time and not retry:
            t0 = ctx._time
            t_next = next_sample_time(period, offset, t0, False)
            if boundary_time <= t_next:  # one update before the boundary (AdvanceTo(t + h)): lean_times' arithmetic
                times[0], n = t0, 1
                hit = not boundary_time < t_next
                t_end = t_next if hit else boundary_time
            else:
                n, t_end, hit = lean_times(period, offset, t0, boundary_time, times)
            k = many(in_place[0], times, n)
            if k < 0:
                many = None
                continue
            if k:
                sim._num_unrestricted += k
                sim._num_steps += k
                versions[K_XC] += k
                versions[K_XD] += k
                versions[K_XA] += k
                versions[K_TIME] += k
                ctx._vsum += 4 * k
                ctx._time, sim._trigger_time = (t_end, hit) if k == n else (float(times[k]), True)
                sim._timed = split
                if ctx._time >= boundary_time:
                    return None
            retry = k < n
            continue
        retry = False
        if sim._trigger_time:
            if unres:
                sim._num_unrestricted += 1
                status = (_update_in_place(ctx, unres, *in_place) if in_place is not None
                          else handle_unrestricted(ctx, unres))
                done = sim._check(status, boundary_time)
                if done is not None:
                    return done
            if disc:
                done = sim._check(sim._discrete(disc), boundary_time)
                if done is not None:
                    return done
        t_next = next_sample_time(period, offset, ctx._time, False)
        hit = not boundary_time < t_next
        ctx._time = t_next if hit else boundary_time
        versions[K_TIME] += 1
        ctx._vsum += 1
        sim._trigger_time = hit
        sim._timed = split
        sim._num_steps += 1
        if ctx._time >= boundary_time:
            return None


def AdvanceLeanContinuous(sim, boundary_time: float) -> bool:
    """Let the diagram's one continuous leaf integrate towards `boundary_time` when nothing else happens meanwhile:
    no events of any kind, no monitor or real-time pacing, Drake's default integrator (RungeKutta3Integrator with
    error control, no dense output). The leaf takes the Simulator's steps as the general loop would (counting them);
    it may stop early, leaving the rest to the general loop. Returns whether it took any step."""
    ctx = sim._context
    integrator = sim._integrator
    if (not ctx._xc.shape[0] or ctx._time >= boundary_time or sim._witness_leaves or any(sim._per_step)
            or sim._periodic or sim._publish_every_step or sim._monitor is not None or sim._realtime_rate > 0
            or sim._trigger_witness or sim._trigger_time or any(sim._timed)
            or type(integrator).__name__ != "RungeKutta3Integrator" or integrator.get_fixed_step_mode()
            or integrator.get_dense_output() is not None or integrator._watch_nonfinite):
        return False
    system = sim._system
    pairs = system._leaf_pairs(ctx) if hasattr(system, "_leaf_pairs") else [(system, ctx)]
    leaves = [(leaf, lc) for leaf, lc in pairs if leaf._count_continuous()[0]]
    if len(leaves) != 1:
        return False
    leaf, leaf_context = leaves[0]
    lean = getattr(leaf, "_LeanIntegrate", None)
    cs = ctx._continuous
    nq = cs.num_q()
    if lean is None or leaf._count_continuous()[0] != ctx._xc.shape[0] or (
            cs._q_index is not None and not np.array_equal(cs._q_index, np.arange(nq))):
        return False
    steps = lean(leaf_context, integrator, boundary_time)
    sim._num_steps += steps
    return steps > 0
