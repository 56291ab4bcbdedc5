"""What an integrator says when a step goes wrong: non-finite states and derivatives, and crawls.

A NaN input, a NaN or inf initial state or a derivative that turns NaN mid-run makes every trial step of an
error-controlled integrator fail, which used to end as "the step size fell below the minimum ... the system may
be stiff". These functions name what happened instead (the system, the state entry, the time, the system's
non-finite inputs). They run only after a step failed, except the crawl monitor's per-step count.
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework.state_check import all_finite, describe_state_entry, nonfinite_inputs

__all__ = ["NonFiniteDerivative", "CrawlMonitor", "raise_if_nonfinite_at", "traced_step_message",
           "nonfinite_state_message", "CRAWL_STEPS", "CRAWL_FRACTION"]

# A crawl: this many consecutive accepted steps, each cut by error control below this fraction of the maximum
# step size, means the integration makes no useful progress (e.g. a plant started deep in the ground steps 1e-9 s
# at a time); it stops with an error naming the cause instead of running for hours.
CRAWL_STEPS, CRAWL_FRACTION = 1000, 1e-6


class NonFiniteDerivative(Exception):
    """A derivative evaluation returned NaN or inf (raised only while a failed step is being traced)."""

    def __init__(self, t: float, x: np.ndarray, xdot: np.ndarray) -> None:
        super().__init__(t)
        self.t, self.x, self.xdot = t, x, xdot


def _entry(integrator, index: int) -> tuple[str, str, tuple]:
    """("LeafType 'path'", state name, (leaf, leaf context)) of entry `index` of the continuous state."""
    offset = 0
    for leaf, lc in integrator._system._leaf_pairs(integrator._context):
        n = leaf._count_continuous()[0]
        if index < offset + n:
            return (f"{type(leaf).__name__} '{leaf.GetSystemPathname()}'",
                    describe_state_entry(leaf, "continuous", 0, index - offset, n), (leaf, lc))
        offset += n
    return f"'{integrator._system.GetSystemPathname()}'", f"index {index}", (None, None)


def nonfinite_state_message(integrator, t: float, x: np.ndarray, became: bool) -> str:
    """The message for a continuous state that became (or already was, before a step) non-finite."""
    bad = int(np.flatnonzero(~np.isfinite(x))[0])
    system, entry, _ = _entry(integrator, bad)
    who = type(integrator).__name__
    if became:
        return (f"{who}: the continuous state of {system} became non-finite at t = {t:.9g} s: {entry} = {x[bad]}; "
                "the system's derivatives blew up (reduce the step size, or check the model)")
    return (f"{who}: the continuous state of {system} is non-finite at t = {t:.9g} s, before the step from there: "
            f"{entry} = {x[bad]} (give the context a finite state: check the initial conditions, or the update that "
            "set it)")


def _derivative_message(integrator, t: float, x: np.ndarray, xdot: np.ndarray, t0: float) -> str:
    bad = int(np.flatnonzero(~np.isfinite(xdot))[0])
    system, entry, (leaf, lc) = _entry(integrator, bad)
    integrator._set(t, x)
    inputs = nonfinite_inputs(leaf, lc) if leaf is not None else ""
    where = "at the current state" if t == t0 else f"at a trial state {t - t0:.3g} s into a step from t = {t0:.9g} s"
    state = "with a finite state" if all_finite(x) else "at a trial state that overflowed"
    return (f"{type(integrator).__name__}: non-finite time derivative of {system} at t = {t:.9g} s ({where}): "
            f"d/dt {entry} = {xdot[bad]} {state}{inputs}; no step size avoids it (check the system's inputs, "
            "parameters and DoCalcTimeDerivatives)")


def raise_if_nonfinite_at(integrator, t0: float, x0: np.ndarray) -> None:
    """After a step from (t0, x0) gave non-finite values: raise RuntimeError when the state or its derivative is
    already non-finite there (no smaller step can help); leaves the context at (t0, x0)."""
    try:
        if not all_finite(x0):
            raise RuntimeError(nonfinite_state_message(integrator, t0, x0, became=False))
        xdot = integrator._f(t0, x0)
        if not all_finite(xdot):
            raise RuntimeError(_derivative_message(integrator, t0, x0, xdot, t0))
    finally:
        integrator._set(t0, x0)


def traced_step_message(integrator, t0: float, x0: np.ndarray, h: float) -> str | None:
    """Re-runs the step of size h from (t0, x0) watching every derivative; the message for the first non-finite
    one (None if none was); leaves the context at (t0, x0)."""
    integrator._watch_nonfinite = True
    try:
        integrator._do_step(h)
    except NonFiniteDerivative as found:
        return _derivative_message(integrator, found.t, found.x, found.xdot, t0)
    except Exception:  # noqa: BLE001 - a failed substep (e.g. Newton): nothing to name
        return None
    finally:
        integrator._watch_nonfinite = False
        integrator._set(t0, x0)
    return None


def _stiffness_causes(integrator) -> str:
    """What the systems say may make the dynamics stiff here (e.g. deep contact penetrations)."""
    causes = []
    for leaf, lc in integrator._system._leaf_pairs(integrator._context):
        if leaf._count_continuous()[0]:
            try:
                cause = leaf._DescribeStiffness(lc)
            except Exception:  # noqa: BLE001 - a diagnosis must not hide the error it explains
                cause = None
            if cause:
                causes.append(f"{type(leaf).__name__} '{leaf.GetSystemPathname()}': {cause}")
    return ("; " + "; ".join(causes)) if causes else ""


class CrawlMonitor:
    """Counts accepted steps that error control cut below CRAWL_FRACTION of the maximum step size; after
    CRAWL_STEPS in a row it raises RuntimeError naming the stretch of time covered and what the systems say
    makes them stiff (unless the integrator was told not to throw at its minimum step size)."""

    __slots__ = ("steps", "t0")

    def __init__(self) -> None:
        self.steps, self.t0 = 0, 0.0

    def reset(self) -> None:
        self.steps = 0

    def accepted(self, integrator, t0: float, h: float, h_max: float) -> None:
        if h >= h_max or h >= CRAWL_FRACTION * integrator._max_step:
            self.steps = 0
            return
        if self.steps == 0:
            self.t0 = t0
        self.steps += 1
        if self.steps < CRAWL_STEPS or not integrator.get_throw_on_minimum_step_size_violation():
            return
        t = integrator._context._time
        raise RuntimeError(
            f"{type(integrator).__name__}: the integration of {integrator._system.GetSystemPathname()} is crawling: "
            f"{self.steps} steps in a row below {CRAWL_FRACTION * integrator._max_step:g} s (1e-6 of the maximum step "
            f"size) advanced only from t = {self.t0:.9g} s to {t:.9g} s (last step {h:g} s) to keep the error below "
            f"{integrator.get_accuracy_in_use():g}; the dynamics are far too stiff here for an explicit integrator"
            f"{_stiffness_causes(integrator)}. Fix the state that causes it, use an implicit integrator or a "
            "discrete-time model, or call set_throw_on_minimum_step_size_violation(False) to let it crawl")
