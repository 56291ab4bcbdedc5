"""Simulator: Drake's step loop — handle due events, then integrate to the next event time.

Ordering per step (pydrake semantics, spec pydrake_surface.md §3 items 1–8): unrestricted updates,
discrete updates, continuous integration to the earliest of the next timed event / boundary (with
witness isolation), then publishes. Events due at the boundary time are left for the next AdvanceTo.
"""
from __future__ import annotations

import functools
import math
import time as _time
import warnings
from dataclasses import dataclass
from typing import Callable

from mallard.common.blas_threads import (begin_single_threaded_blas, blas_already_single_threaded,
                                        end_single_threaded_blas, with_single_threaded_blas)
from mallard.common.deprecation import DrakeDeprecationWarning
from mallard.systems.framework.events import (DiscreteUpdateEvent, EventStatus, PublishEvent, TriggerType,
                                              UnrestrictedUpdateEvent, WitnessTriggeredEventData, more_severe)
from mallard.systems.framework.event_handling import handle_discrete, handle_publish, handle_unrestricted
from mallard.systems.framework.portable import PortableAttributes
from .explicit_integrators import RungeKutta3Integrator
from .integrator_base import StepResult
from .lean_loop import AdvanceLean, AdvanceLeanContinuous, LeanGroup, next_sample_time
from .simulator_progress import SimulatorProgress
from .simulator_status import SimulatorStatus

__all__ = ["Simulator", "InitializeParams"]

_INF = math.inf
_REACHED_BOUNDARY = SimulatorStatus.ReturnReason.kReachedBoundaryTime
_DEPRECATED = ("(Deprecated.) Simulator.{}: this is no longer controlled by the Simulator. It must be defined in "
               "the LeafSystem instead (a {} publish event). See "
               "https://drake.mit.edu/troubleshooting.html#force-publishing. Drake removes it on or after 2026-06-01.")


@dataclass
class InitializeParams:
    """Options of `Simulator.Initialize`."""
    suppress_initialization_events: bool = False


def _split(events) -> tuple[list, list, list]:
    """(unrestricted, discrete, publish) lists of (leaf, leaf_context, event)."""
    unres = [e for e in events if isinstance(e[2], UnrestrictedUpdateEvent)]
    disc = [e for e in events if isinstance(e[2], DiscreteUpdateEvent)]
    pub = [e for e in events if isinstance(e[2], PublishEvent)]
    return unres, disc, pub


_EMPTY = ([], [], [])


def _join(*splits) -> tuple[list, list, list]:
    splits = [sp for sp in splits if sp is not _EMPTY]
    if len(splits) == 1:
        return splits[0]
    if not splits:
        return _EMPTY
    return tuple([e for sp in splits for e in sp[k]] for k in range(3))  # type: ignore[return-value]


class Simulator(PortableAttributes):
    """Advances a system's context in time: `Simulator(system, context=None)`."""

    def __init__(self, system, context=None) -> None:
        if context is None:
            context = system.CreateDefaultContext()
        system._check_context(context, "Simulator")
        if context._root is not context:
            raise RuntimeError(f"Simulator: the context must be a root context of {system.GetSystemPathname()}")
        self._system = system
        self._context = context
        self._integrator = RungeKutta3Integrator(system, context)
        self._integrator.request_initial_step_size_target(1e-4)  # Drake's Simulator defaults
        self._integrator.set_maximum_step_size(0.1)
        self._integrator.set_target_accuracy(1e-4)
        self._publish_every_step = False
        self._publish_at_init = False
        self._realtime_rate = 0.0
        self._monitor: Callable | None = None
        self._show_progress = False
        self._initialized = False
        self._timed = _EMPTY
        self._witnessed = _EMPTY
        self._trigger_time = False
        self._trigger_witness = False
        self._lean_setup = None  # (group, in-place update, _LeanSteps, sample times buffer) of lean_loop.AdvanceLean
        self.ResetStatistics()

    # ----- accessors -------------------------------------------------------------------------------
    def get_system(self):
        return self._system

    def get_context(self):
        return self._context

    def get_mutable_context(self):
        return self._context

    def has_context(self) -> bool:
        return self._context is not None

    def reset_context(self, context) -> None:
        """Simulates `context` from now on (None leaves the simulator without a context, as in pydrake)."""
        if context is not None:
            self._system._check_context(context, "Simulator.reset_context")
        self._context = context
        self._integrator.reset_context(context)
        self._initialized = False

    def get_integrator(self):
        return self._integrator

    def get_mutable_integrator(self):
        return self._integrator

    def reset_integrator(self, integrator):
        integrator.reset_context(self._context)
        self._integrator = integrator
        self._initialized = False
        return integrator

    def set_publish_every_time_step(self, publish: bool) -> None:
        """Deprecated in Drake 1.51 (removal 2026-06-01); declare a per-step publish event in the system."""
        warnings.warn(_DEPRECATED.format("set_publish_every_time_step", "per-step"), DrakeDeprecationWarning,
                      stacklevel=2)
        self._publish_every_step = bool(publish)

    def get_publish_every_time_step(self) -> bool:
        return self._publish_every_step

    def set_publish_at_initialization(self, publish: bool) -> None:
        """Deprecated in Drake 1.51 (removal 2026-06-01); declare an initialization event in the system."""
        warnings.warn(_DEPRECATED.format("set_publish_at_initialization", "initialization"),
                      DrakeDeprecationWarning, stacklevel=2)
        self._publish_at_init = bool(publish)

    def set_target_realtime_rate(self, realtime_rate: float) -> None:
        """Paces simulated time to `realtime_rate` × wall time (0 = as fast as possible); pacing restarts now."""
        if realtime_rate < 0:
            raise ValueError(f"set_target_realtime_rate: the rate must be >= 0, got {realtime_rate}")
        self._realtime_rate = float(realtime_rate)
        self._rt_wall0 = _time.perf_counter()
        self._rt_sim0 = self._context.get_time()

    def get_target_realtime_rate(self) -> float:
        return self._realtime_rate

    def get_actual_realtime_rate(self) -> float:
        wall = _time.perf_counter() - self._stats_wall0
        return (self._context.get_time() - self._stats_sim0) / wall if wall > 0 else 0.0

    def set_show_progress(self, show: bool) -> None:
        """Whether AdvanceTo draws a progress bar (simulated time, real-time rate) on stderr; off by default."""
        self._show_progress = bool(show)

    def get_show_progress(self) -> bool:
        return self._show_progress

    def set_monitor(self, monitor: Callable) -> None:
        self._monitor = monitor

    def clear_monitor(self) -> None:
        self._monitor = None

    def get_monitor(self):
        """The monitor as a function returning an EventStatus (DidNothing when it returns None), or None."""
        monitor = self._monitor
        if monitor is None:
            return None

        @functools.wraps(monitor)
        def status_of(root_context):
            status = monitor(root_context)
            return EventStatus.DidNothing() if status is None else status
        return status_of

    def ResetStatistics(self) -> None:
        self._num_steps = 0
        self._num_publishes = 0
        self._num_discrete = 0
        self._num_unrestricted = 0
        self._stats_wall0 = _time.perf_counter()
        self._stats_sim0 = self._context.get_time()
        self._rt_wall0, self._rt_sim0 = self._stats_wall0, self._stats_sim0
        self._integrator.ResetStatistics()

    def get_num_steps_taken(self) -> int:
        return self._num_steps

    def get_num_publishes(self) -> int:
        return self._num_publishes

    def get_num_discrete_updates(self) -> int:
        return self._num_discrete

    def get_num_unrestricted_updates(self) -> int:
        return self._num_unrestricted

    # ----- event collection --------------------------------------------------------------------------
    def _collect_events(self) -> None:
        pairs = self._system._leaf_pairs(self._context)
        per_step = [(leaf, lc, ev) for leaf, lc in pairs for ev in leaf._per_step_events]
        self._per_step = _split(per_step) if per_step else _EMPTY
        groups: dict = {}
        for leaf, lc in pairs:
            for data, ev in leaf._periodic_events:
                groups.setdefault((data.period_sec(), data.offset_sec()), []).append((leaf, lc, ev))
        self._periodic = [(period, offset, _split(events)) for (period, offset), events in groups.items()]
        self._witness_leaves = [(leaf, lc) for leaf, lc in pairs
                                if type(leaf).DoGetWitnessFunctions is not _default_witnesses()]

    def _next_timed(self, allow_equal: bool) -> tuple[float, tuple]:
        """The next periodic event time and the (unrestricted, discrete, publish) events due then."""
        t = self._context._time
        best, due = _INF, []
        for period, offset, split in self._periodic:
            nt = next_sample_time(period, offset, t, allow_equal)
            if nt < best:
                best, due = nt, [split]
            elif nt == best:
                due.append(split)
        return best, (due[0] if len(due) == 1 else _join(*due))

    def _check_inputs(self) -> None:
        missing = []
        for leaf, lc in self._system._leaf_pairs(self._context):
            for port in leaf._input_ports:
                if port._required and leaf._resolve_input(lc, port._index)[0] == 2:
                    missing.append(f"  {leaf.GetSystemPathname()}/{port.get_name()} "
                                   f"(InputPort[{int(port._index)}] of {type(leaf).__name__})")
        if missing:
            raise RuntimeError("Simulator.Initialize: these input ports are neither connected nor fixed:\n"
                               + "\n".join(missing) + "\nConnect them in the DiagramBuilder, export them and "
                               "FixValue the diagram input, or call port.FixValue(context, value).")

    # ----- status handling ---------------------------------------------------------------------------
    def _fail(self, status) -> None:
        system = status.system()
        who = system.GetSystemPathname() if hasattr(system, "GetSystemPathname") else "a system"
        raise RuntimeError(f"Simulator stopped at time {self._context.get_time()} because {who} failed with "
                           f"message: \"{status.message()}\"")

    def _call_monitor(self):
        if self._monitor is None:
            return None
        status = more_severe(None, self._monitor(self._context))
        if status is not None and status.failed():
            self._fail(status)
        return status

    def _check(self, status, boundary: float):
        """Raises on failure; returns a termination SimulatorStatus, or None to go on."""
        if status is None:
            return None
        if status.failed():
            self._fail(status)
        if status.reached_termination():
            return self._terminated(status, boundary)
        return None

    # ----- initialization ----------------------------------------------------------------------------
    @with_single_threaded_blas
    def Initialize(self, params: InitializeParams | None = None) -> SimulatorStatus:
        """Runs initialization events and the publishes due at the start time (implicit in the first AdvanceTo)."""
        params = params or InitializeParams()
        ctx = self._context
        self._check_inputs()
        self._integrator.reset_context(ctx)
        self._integrator.Initialize()
        self._collect_events()
        init_pub: list = []
        if not params.suppress_initialization_events:
            init = [(leaf, lc, ev) for leaf, lc in self._system._leaf_pairs(ctx) for ev in leaf._init_events]
            unres, disc, init_pub = _split(init)
            for status in (self._unrestricted(unres), self._discrete(disc)):
                if status is not None and status.failed():
                    self._fail(status)
        t_next, due = self._next_timed(allow_equal=True)
        self._trigger_time = t_next == ctx._time
        self._timed = due if self._trigger_time else _EMPTY
        self._trigger_witness = False
        self._witnessed = _EMPTY
        status = self._publish(init_pub + self._per_step[2] + self._timed[2])
        if self._publish_every_step or self._publish_at_init:
            self._system.ForcedPublish(ctx)
            self._num_publishes += 1
        monitor = self._call_monitor()
        self._initialized = True
        self._stats_wall0 = self._rt_wall0 = _time.perf_counter()
        self._stats_sim0 = self._rt_sim0 = ctx._time
        for s in (status, monitor):
            done = self._check(s, ctx._time)
            if done is not None:
                return done
        return SimulatorStatus(ctx._time, ctx._time, SimulatorStatus.ReturnReason.kReachedBoundaryTime)

    def _terminated(self, status: EventStatus, boundary: float) -> SimulatorStatus:
        return SimulatorStatus(boundary, self._context._time, SimulatorStatus.ReturnReason.kReachedTerminationCondition,
                               status.system(), status.message())

    def _publish(self, events):
        if not events:
            return None
        self._num_publishes += 1
        return handle_publish(events)

    def _discrete(self, events):
        if not events:
            return None
        self._num_discrete += 1
        return handle_discrete(self._context, events)

    def _unrestricted(self, events):
        if not events:
            return None
        self._num_unrestricted += 1
        return handle_unrestricted(self._context, events)

    # ----- the step loop -------------------------------------------------------------------------------
    def _merged(self) -> tuple[list, list, list]:
        return _join(self._per_step, self._timed if self._trigger_time else _EMPTY,
                     self._witnessed if self._trigger_witness else _EMPTY)

    def AdvanceTo(self, boundary_time: float, interruptible: bool = True,
                  show_progress: bool | None = None) -> SimulatorStatus:
        """Advances to `boundary_time` (events due exactly then are left pending, as in Drake).

        `show_progress` (default: `set_show_progress`, off) draws a tqdm bar of the simulated time and the
        real-time rate on stderr while it runs (a mallard extension; nothing is paid per step when off)."""
        boundary_time = float(boundary_time)  # the context's time stays a float (AdvanceTo(0) prints 0.0)
        show = self._show_progress if show_progress is None else show_progress
        if not show and blas_already_single_threaded():
            return self._AdvanceTo(boundary_time)  # (the limit would change nothing: common/blas_threads.py)
        # (with_single_threaded_blas written out: a loop of AdvanceTo(t + h) pays each call layer once per step)
        begin_single_threaded_blas()
        try:
            if show and boundary_time > self._context._time:
                with SimulatorProgress(self, boundary_time):
                    return self._AdvanceTo(boundary_time)
            return self._AdvanceTo(boundary_time)
        finally:
            end_single_threaded_blas()

    def _AdvanceTo(self, boundary_time: float) -> SimulatorStatus:
        ctx = self._context
        if not boundary_time >= ctx._time:
            raise ValueError(f"Simulator.AdvanceTo({boundary_time}): the context of {self._system.GetSystemPathname()} "
                             f"is already at time {ctx._time}; simulated time cannot go backwards "
                             "(reset the time with context.SetTime, or use a new Simulator)")
        if not self._initialized:
            status = self.Initialize()
            if status.reason() == SimulatorStatus.ReturnReason.kReachedTerminationCondition:
                return status
        group = LeanGroup(self)
        if group is not None:  # one periodic group of updates and nothing else (lean_loop.py)
            done = AdvanceLean(self, group, boundary_time)
            if done is not None:
                return done
            return SimulatorStatus(boundary_time, ctx._time, _REACHED_BOUNDARY)
        if AdvanceLeanContinuous(self, boundary_time) and ctx._time >= boundary_time:  # (lean_loop.py)
            return SimulatorStatus(boundary_time, ctx._time, SimulatorStatus.ReturnReason.kReachedBoundaryTime)
        unres, disc, _pub = self._merged()
        while True:
            if self._realtime_rate > 0:
                self._pause_if_too_fast()
            if unres:
                done = self._check(self._unrestricted(unres), boundary_time)
                if done is not None:
                    return done
            if disc:
                done = self._check(self._discrete(disc), boundary_time)
                if done is not None:
                    return done
            t_next, due = self._next_timed(allow_equal=False)
            next_update = t_next if (due[0] or due[1]) else _INF
            next_publish = t_next if due[2] else _INF
            self._timed = due
            self._integrate(next_publish, next_update, boundary_time)
            self._num_steps += 1
            unres, disc, pub = self._merged()
            status = self._publish(pub) if pub else None
            if self._publish_every_step:
                self._system.ForcedPublish(ctx)
                self._num_publishes += 1
            monitor = self._call_monitor() if self._monitor is not None else None
            if status is not None or monitor is not None:
                for s in (status, monitor):
                    done = self._check(s, boundary_time)
                    if done is not None:
                        return done
            if ctx._time >= boundary_time:
                break
        return SimulatorStatus(boundary_time, ctx._time, SimulatorStatus.ReturnReason.kReachedBoundaryTime)

    def AdvancePendingEvents(self) -> SimulatorStatus:
        """Handles the events pending at the current time without advancing time."""
        return self.AdvanceTo(self._context.get_time())

    # ----- continuous integration and witnesses --------------------------------------------------------
    def _witness_functions(self) -> list:
        found = []
        for leaf, lc in self._witness_leaves:
            for w in leaf.DoGetWitnessFunctions(lc):
                found.append((w, w.get_system().GetMyContextFromRoot(self._context)))
        return found

    def _witness_isolation(self) -> float | None:
        integrator = self._integrator
        accuracy = self._context.get_accuracy()
        if integrator.get_fixed_step_mode():
            if accuracy is None:
                return None
            return max(integrator.get_working_minimum_step_size(), 0.01 * accuracy * integrator.get_maximum_step_size())
        if accuracy is None:  # unlike Drake, fall back on the integrator's accuracy instead of throwing
            accuracy = integrator.get_accuracy_in_use()
        return max(integrator.get_working_minimum_step_size(), 0.01 * accuracy)

    def _integrate(self, next_publish: float, next_update: float, boundary: float) -> None:
        ctx = self._context
        integrator = self._integrator
        witnesses = self._witness_functions() if self._witness_leaves else []
        if not witnesses:
            result = integrator.IntegrateNoFurtherThanTime(next_publish, next_update, boundary)
            self._trigger_time = result in (StepResult.kReachedPublishTime, StepResult.kReachedUpdateTime)
            self._trigger_witness = False
            return
        t0, x0 = ctx._time, ctx._xc.copy()
        w0 = [w.CalcWitnessValue(wc) for w, wc in witnesses]
        result = integrator.IntegrateNoFurtherThanTime(next_publish, next_update, boundary)
        tf = ctx._time
        wf = [w.CalcWitnessValue(wc) for w, wc in witnesses]
        if any(w.should_trigger(a, b) for (w, _c), a, b in zip(witnesses, w0, wf)):
            triggered = self._isolate(witnesses, w0, t0, x0, tf)
            if triggered:
                witnessed = []
                for w, wc in triggered:
                    event = w.get_event()._with_trigger(TriggerType.kWitness,
                                                        WitnessTriggeredEventData(w, t0, ctx._time))
                    witnessed.append((w.get_system(), wc, event))
                self._witnessed = _split(witnessed)
                self._trigger_time = False
                self._trigger_witness = True
                return
        self._trigger_time = result in (StepResult.kReachedPublishTime, StepResult.kReachedUpdateTime)
        self._trigger_witness = False

    def _isolate(self, witnesses, w0, t0, x0, tf) -> list:
        """Bisects [t0, tf] until the first triggering witness is bracketed to the isolation window."""
        iso = self._witness_isolation()
        ctx, integrator = self._context, self._integrator
        if iso is None:
            wf = [w.CalcWitnessValue(wc) for w, wc in witnesses]
            return [(w, wc) for (w, wc), a, b in zip(witnesses, w0, wf) if w.should_trigger(a, b)]

        def integrate_from(t_start, x_start, t_end):
            integrator._set(t_start, x_start)
            while ctx._time < t_end:
                integrator.IntegrateNoFurtherThanTime(_INF, _INF, t_end)

        a, b = t0, tf
        wa = list(w0)
        xa = x0
        while True:
            c = 0.5 * (a + b)
            integrate_from(a, xa, c)
            wc_vals = [w.CalcWitnessValue(wc) for w, wc in witnesses]
            if any(w.should_trigger(p, q) for (w, _x), p, q in zip(witnesses, wa, wc_vals)):
                b = c
                wb = wc_vals
            else:
                a, wa, xa = c, wc_vals, ctx._xc.copy()
            if b - a < iso:
                integrate_from(a, xa, b)
                wb = [w.CalcWitnessValue(wc) for w, wc in witnesses]
                return [(w, wc) for (w, wc), p, q in zip(witnesses, wa, wb) if w.should_trigger(p, q)]

    def _pause_if_too_fast(self) -> None:
        if self._realtime_rate <= 0:
            return
        desired = (self._context._time - self._rt_sim0) / self._realtime_rate
        actual = _time.perf_counter() - self._rt_wall0
        if desired > actual:
            _time.sleep(desired - actual)


def _default_witnesses():
    from mallard.systems.framework.leaf_system import LeafSystem
    return LeafSystem.DoGetWitnessFunctions
