"""IntegratorBase: advances a root context's continuous state in time (Drake's integrator API).

Every integrator works on the root context's flat continuous-state array; the system's derivative
function is evaluated with the framework's no-copy path.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.common.cpp_enum import CppEnum
from mallard.systems.framework.dependency import K_TIME, K_XC
from mallard.systems.framework.state_check import all_finite

from .integrator_diagnostics import (CrawlMonitor, NonFiniteDerivative, nonfinite_state_message, raise_if_nonfinite_at,
                                     traced_step_message)
from mallard.systems.trajectories import PiecewisePolynomial

__all__ = ["IntegratorBase", "StepResult"]


class StepResult(CppEnum):
    kReachedPublishTime = 1
    kReachedZeroCrossing = 2
    kReachedUpdateTime = 3
    kTimeHasAdvanced = 4
    kReachedBoundaryTime = 5
    kReachedStepLimit = 6


# Drake's step-size controller constants (from Simbody): see _adjusted_step_size.
_SAFETY, _MIN_SHRINK, _MAX_GROW, _HYSTERESIS_LOW, _HYSTERESIS_HIGH = 0.9, 0.1, 5.0, 0.9, 1.2
_MAX_STRETCH = 1.01          # a step may stretch 1% past the maximum to land on an event
_NEAR_SMALLER, _NEAR_LARGER = 0.95, 1.001
_SUBDIVISION = 0.5           # step shrink factor after a failed substep (e.g. a Newton failure)


class IntegratorBase:
    """Base of all integrators: step-size policy, error control, statistics."""

    supports_error_control = False
    error_order = 0
    # Error-controlled integrators: accuracy used when none is set, the loosest accepted, and the first step
    # as a fraction of the maximum step (each integrator's DoInitialize defaults in Drake).
    _default_accuracy = 1e-3
    _loosest_accuracy = 1e-1
    _initial_step_fraction = 0.1

    def __init__(self, system, max_step_size: float | None = None, context=None) -> None:
        self._system = system
        self._context = context
        self._max_step = 0.1 if max_step_size is None else float(max_step_size)
        self._accuracy: float | None = None
        self._fixed = not self.supports_error_control
        self._requested_min_step = 0.0
        self._throw_on_min = True
        self._initial_step_target = math.nan
        self._ideal_h = math.nan
        self._accuracy_in_use = math.nan
        self._initialized = False
        self._watch_nonfinite = False  # set while a failed step is traced (integrator_diagnostics)
        self._crawl = CrawlMonitor()
        self.ResetStatistics()

    # ----- configuration -------------------------------------------------------------------------
    def supports_error_estimation(self) -> bool:
        return self.supports_error_control

    def get_error_estimate_order(self) -> int:
        return self.error_order

    def set_target_accuracy(self, accuracy: float) -> None:
        if not accuracy > 0:
            raise ValueError(f"set_target_accuracy: accuracy must be positive, got {accuracy}")
        self._accuracy = float(accuracy)

    def get_target_accuracy(self) -> float | None:
        return self._accuracy

    def get_accuracy_in_use(self) -> float:
        """The accuracy error control works to: the target accuracy, clamped to this integrator's loosest, or
        its default when none was set (fixed at Initialize, as in Drake)."""
        if not math.isnan(self._accuracy_in_use):
            return self._accuracy_in_use
        if self._accuracy is None:
            return self._default_accuracy
        return min(self._accuracy, self._loosest_accuracy)

    def set_maximum_step_size(self, max_step_size: float) -> None:
        if not max_step_size > 0:
            raise ValueError(f"set_maximum_step_size: the maximum step size must be positive, got {max_step_size}")
        self._max_step = float(max_step_size)

    def get_maximum_step_size(self) -> float:
        return self._max_step

    def set_fixed_step_mode(self, flag: bool) -> None:
        if not flag and not self.supports_error_control:
            raise RuntimeError(f"{type(self).__name__} does not support error control; it always takes fixed steps")
        self._fixed = bool(flag)

    def get_fixed_step_mode(self) -> bool:
        return self._fixed

    def set_requested_minimum_step_size(self, min_step_size: float) -> None:
        self._requested_min_step = float(min_step_size)

    def get_requested_minimum_step_size(self) -> float:
        return self._requested_min_step

    def set_throw_on_minimum_step_size_violation(self, throws: bool) -> None:
        self._throw_on_min = bool(throws)

    def get_throw_on_minimum_step_size_violation(self) -> bool:
        return self._throw_on_min

    def get_working_minimum_step_size(self) -> float:
        t = abs(self._context.get_time()) if self._context is not None else 0.0
        return max(self._requested_min_step, max(1e-14, 1e-14 * t))

    def request_initial_step_size_target(self, step_size: float) -> None:
        self._initial_step_target = float(step_size)

    def get_initial_step_size_target(self) -> float:
        return self._initial_step_target

    # ----- context ---------------------------------------------------------------------------------
    def get_context(self):
        return self._context

    def get_mutable_context(self):
        return self._context

    def reset_context(self, context) -> None:
        self._context = context
        self._initialized = False

    def get_system(self):
        return self._system

    def Initialize(self) -> None:
        """Checks the settings and fixes the accuracy in use and the first step size target (Drake's rules)."""
        if self._context is None:
            raise RuntimeError(f"{type(self).__name__}.Initialize: no context; pass one or call reset_context")
        if self._max_step < self._requested_min_step:
            raise RuntimeError(f"{type(self).__name__}.Initialize: the maximum step size {self._max_step} is less "
                               f"than the requested minimum step size {self._requested_min_step}")
        if not math.isnan(self._initial_step_target) and self._initial_step_target > self._max_step:
            raise RuntimeError(f"{type(self).__name__}.Initialize: the requested initial step size "
                               f"{self._initial_step_target} is larger than the maximum step size {self._max_step}")
        if self.supports_error_control:
            if math.isnan(self._initial_step_target):
                self._initial_step_target = self._max_step * self._initial_step_fraction
            self._accuracy_in_use = math.nan
            self._accuracy_in_use = self.get_accuracy_in_use()
        self.ResetStatistics()
        self._crawl.reset()
        self._initialized = True

    def is_initialized(self) -> bool:
        return self._initialized

    def Reset(self) -> None:
        self._initialized = False
        self._ideal_h = math.nan
        self.ResetStatistics()

    # ----- statistics ------------------------------------------------------------------------------
    def ResetStatistics(self) -> None:
        self._num_steps = 0
        self._num_fev = 0
        self._num_failures = 0
        self._num_shrinkages = 0
        self._num_failure_shrinkages = 0
        self._largest_step = math.nan  # NaN until a step is taken, as Drake reports
        self._smallest_adapted = math.nan
        self._actual_initial_step = math.nan

    def get_num_steps_taken(self) -> int:
        return self._num_steps

    def get_num_derivative_evaluations(self) -> int:
        return self._num_fev

    def get_num_substep_failures(self) -> int:
        return self._num_failures

    def get_num_step_shrinkages_from_error_control(self) -> int:
        return self._num_shrinkages

    def get_num_step_shrinkages_from_substep_failures(self) -> int:
        return self._num_failure_shrinkages

    def get_largest_step_size_taken(self) -> float:
        return self._largest_step

    def get_smallest_adapted_step_size_taken(self) -> float:
        return self._smallest_adapted

    def get_actual_initial_step_size_taken(self) -> float:
        return self._actual_initial_step

    def get_ideal_next_step_size(self) -> float:
        return self._ideal_h

    def GetStatisticsSummary(self) -> list[tuple[str, int | float]]:
        """(name, value) of the step statistics, in Drake's order: steps taken, the error-control statistics
        (when not in fixed-step mode), derivative evaluations."""
        summary: list[tuple[str, int | float]] = [("integrator_num_steps_taken", self.get_num_steps_taken())]
        if not self.get_fixed_step_mode():
            summary += [("integrator_actual_initial_step_size_taken", self.get_actual_initial_step_size_taken()),
                        ("integrator_largest_step_size_taken", self.get_largest_step_size_taken()),
                        ("integrator_smallest_adapted_step_size_taken", self.get_smallest_adapted_step_size_taken()),
                        ("integrator_num_step_shrinkages_from_error_control",
                         self.get_num_step_shrinkages_from_error_control())]
        summary.append(("integrator_num_derivative_evaluations", self.get_num_derivative_evaluations()))
        return summary

    # ----- evaluation helpers -------------------------------------------------------------------------
    def _set(self, t: float, x: np.ndarray) -> None:
        root = self._context
        root._time = t
        root._xc[:] = x
        versions = root._versions
        versions[K_TIME] += 1
        versions[K_XC] += 1
        root._vsum += 2

    def _f(self, t: float, x: np.ndarray) -> np.ndarray:
        """d/dt x at (t, x); leaves the context at (t, x)."""
        self._set(t, x)
        out = np.empty_like(x)
        self._system._calc_derivatives_into(self._context, out)
        self._num_fev += 1
        if self._watch_nonfinite and not all_finite(out):
            raise NonFiniteDerivative(t, x.copy(), out)
        return out

    def _check_finite(self, x: np.ndarray, t: float) -> None:
        if not all_finite(x):
            raise RuntimeError(nonfinite_state_message(self, t, x, became=True))

    # ----- stepping --------------------------------------------------------------------------------
    def _do_step(self, h: float) -> np.ndarray | None:
        """Takes one step of size h from the context's (t0, x0); returns the error estimate (or None).

        Must leave the context at (t0 + h, x1). Raises _StepFailed for a failed substep (implicit solves).
        """
        raise TypeError(f"{type(self).__name__} does not implement _do_step")

    def _error_norm(self, err: np.ndarray) -> float:
        """Drake's CalcStateChangeNorm with unit weights: the infinity norm of the v and z parts and of N N⁺ of
        the q part (q enters through the velocity map, so quaternion changes are measured as rotations)."""
        if err.size == 0:
            return 0.0
        cs = self._context._continuous
        nq, nv = cs.num_q(), cs.num_v()
        if cs._q_index is None:
            dq, dv, dz = err[:nq], err[nq:nq + nv], err[nq + nv:]
        else:
            dq, dv, dz = err[cs._q_index], err[cs._v_index], err[cs._z_index]
        if nq:
            system = self._system
            dq = system._map_v_to_qdot(self._context, system._map_qdot_to_v(self._context, dq))
        norms = [float(np.max(np.abs(part))) for part in (dq, dv, dz) if part.size]
        return math.nan if any(math.isnan(n) for n in norms) else max(norms)

    def _step_fixed(self, h: float) -> None:
        t0 = self._context._time
        x0 = self._step_start = self._context._xc.copy()
        while True:
            try:
                self._do_step(h)
                break
            except _StepFailed as failure:
                self._num_failures += 1
                self._set(t0, x0)
                if self.supports_error_control is False or h < 1e-10:
                    raise RuntimeError(f"{type(self).__name__}: a fixed step of {h:g} s failed at t = {t0:.9g} s: "
                                       f"{failure}") from None
                raise RuntimeError(f"{type(self).__name__}: the fixed step of {h:g} s failed at t = {t0:.9g} s "
                                   f"({failure}); use error control or a smaller maximum step size") from None
        if not all_finite(self._context._xc):  # say whether the start or a stage was non-finite
            t1, x1 = self._context._time, self._context._xc.copy()
            raise_if_nonfinite_at(self, t0, x0)
            message = traced_step_message(self, t0, x0, h)
            if message is not None:
                raise RuntimeError(message)
            self._set(t1, x1)
        self._after_step(h)

    def _adjusted_step_size(self, err: float, h: float) -> tuple[bool, float]:
        """(step accepted?, next step size) from the error norm of a step of size h (Drake's
        CalcAdjustedStepSize, Simbody's constants)."""
        if not math.isfinite(err):
            return False, _MIN_SHRINK * h
        accuracy = self.get_accuracy_in_use()
        new_h = _MAX_GROW * h if err == 0 else _SAFETY * h * (accuracy / err) ** (1.0 / self.error_order)
        if new_h > h:
            self._at_minimum_step = False
            if new_h < _HYSTERESIS_HIGH * h:
                new_h = h
        if new_h < h and self._at_minimum_step:
            return True, h
        if new_h < h:
            new_h = h if err <= accuracy else min(new_h, _HYSTERESIS_LOW * h)
        new_h = max(min(new_h, _MAX_GROW * h), _MIN_SHRINK * h)
        new_h = min(new_h, self._max_step)
        self._check_smaller_step(h, new_h)
        working_min = self.get_working_minimum_step_size()
        new_h = max(new_h, working_min)
        if new_h == working_min:
            self._at_minimum_step = True
            if new_h < h:
                return False, new_h
        return new_h >= h, new_h

    def _check_smaller_step(self, h: float, new_h: float) -> None:
        if new_h < self.get_working_minimum_step_size() and new_h < h and self._throw_on_min:
            raise RuntimeError(
                f"{type(self).__name__}: error control wants to select a step smaller than the minimum allowed "
                f"({self.get_working_minimum_step_size():g} s) at t = {self._context._time:.9g} s in "
                f"{self._system.GetSystemPathname()}. This is typically an indication that some part of the system "
                "with continuous state is going unstable and/or is producing excessively large derivatives (a "
                "stiff system may need an implicit integrator).")

    def _step_error_controlled(self, h_max: float) -> bool:
        """Takes one accepted step of at most h_max (Drake's StepOnceErrorControlledAtMost); returns True when
        the step was exactly h_max."""
        ctx = self._context
        t0 = ctx._time
        x0 = self._step_start = ctx._xc.copy()
        h = self._ideal_h if not math.isnan(self._ideal_h) else self._initial_step_target
        self._at_minimum_step = False
        checked_start = False
        while True:
            limited = False
            if h_max < _NEAR_SMALLER * h:
                limited, h = True, h_max  # cut short to land on h_max: keep the step size error control chose
            elif h_max < _NEAR_LARGER * h:
                h = h_max  # close enough: take h_max rather than leave a sliver
            h = min(h, self._max_step)
            while True:
                try:
                    err = self._do_step(h)
                    break
                except _StepFailed:
                    self._set(t0, x0)
                    h *= _SUBDIVISION
                    if h < np.finfo(float).eps:
                        raise RuntimeError(f"{type(self).__name__}: the integrator was directed to a near zero-length "
                                           f"step to converge at t = {t0:.9g} s") from None
                    self._num_failure_shrinkages += 1
                    self._num_failures += 1
            err_norm = self._error_norm(err) if err is not None else 0.0
            accepted, next_h = self._adjusted_step_size(err_norm, h)
            if accepted:
                if not limited:
                    self._ideal_h = next_h
                if math.isnan(self._smallest_adapted) or (h < self._smallest_adapted and h < h_max):
                    self._smallest_adapted = h
                self._after_step(h)
                self._crawl.accepted(self, t0, h, h_max)
                return h == h_max
            self._num_shrinkages += 1
            self._set(t0, x0)
            if not math.isfinite(err_norm):
                if self._after_nonfinite_error(t0, x0, h, next_h, checked_start):
                    return False
                checked_start = True
            h = next_h

    def _after_nonfinite_error(self, t0: float, x0: np.ndarray, h: float, next_h: float, checked_start: bool) -> bool:
        """After a step from (t0, x0) of size h gave a non-finite error estimate: raise at once when the start is
        already non-finite (no smaller step helps); when the next step would fall below the minimum, raise naming
        the first non-finite derivative (or the minimum step size) instead of shrinking forever, or (minimum step
        violations allowed) take the minimum step and return True."""
        if not checked_start:
            raise_if_nonfinite_at(self, t0, x0)
        if next_h >= self.get_working_minimum_step_size():
            return False
        if self._throw_on_min:
            message = traced_step_message(self, t0, x0, h)
            if message is not None:
                raise RuntimeError(message)
            self._check_smaller_step(h, next_h)
        self._do_step(self.get_working_minimum_step_size())  # a non-finite result is named by _after_step
        self._after_step(self.get_working_minimum_step_size())
        return True

    # ----- dense output ----------------------------------------------------------------------------
    def StartDenseIntegration(self) -> None:
        """Starts recording every step as a cubic Hermite segment of a PiecewisePolynomial x(t)."""
        self._dense = PiecewisePolynomial()

    def get_dense_output(self) -> PiecewisePolynomial | None:
        """The dense output recorded so far (None when not recording)."""
        return getattr(self, "_dense", None)

    def StopDenseIntegration(self) -> PiecewisePolynomial | None:
        """Stops recording; returns the dense output."""
        dense, self._dense = self.get_dense_output(), None
        return dense

    def _record_dense(self, t0: float, x0: np.ndarray) -> None:
        """Appends the step just taken from (t0, x0) to the dense output."""
        ctx = self._context
        t1, x1 = ctx._time, ctx._xc.copy()
        xdot1 = self._f(t1, x1)
        xdot0 = self._f(t0, x0)
        self._set(t1, x1)
        segment = PiecewisePolynomial.CubicHermite([t0, t1], np.stack([x0, x1], axis=1),
                                                   np.stack([xdot0, xdot1], axis=1))
        self._dense.ConcatenateInTime(segment)

    def _after_step(self, h: float) -> None:
        if getattr(self, "_dense", None) is not None:
            self._record_dense(self._context._time - h, self._step_start)
        self._num_steps += 1
        self._largest_step = h if not self._largest_step >= h else self._largest_step
        if math.isnan(self._actual_initial_step):
            self._actual_initial_step = h
        self._check_finite(self._context._xc, self._context._time)

    def IntegrateNoFurtherThanTime(self, publish_time: float, update_time: float, boundary_time: float) -> StepResult:
        """Advances at most to the earliest of the three times (Drake's policy and tie-breaking)."""
        if not self._initialized:
            raise RuntimeError(f"{type(self).__name__}: call Initialize() before integrating")
        ctx = self._context
        t0 = ctx._time
        if min(publish_time, update_time, boundary_time) < t0:
            raise RuntimeError(f"IntegrateNoFurtherThanTime: a target time lies in the past (t = {t0})")
        result, target = StepResult.kReachedUpdateTime, update_time
        if publish_time < update_time:
            result, target = StepResult.kReachedPublishTime, publish_time
        if boundary_time < target:
            result, target = StepResult.kReachedBoundaryTime, boundary_time
        if ctx._xc.shape[0] == 0:
            ctx._time = target
            ctx._versions[K_TIME] += 1
            ctx._vsum += 1
            return result
        # Steps stretch up to 1% past the maximum to land on an event (never on the boundary time).
        at_boundary = result == StepResult.kReachedBoundaryTime
        if (at_boundary and t0 + self._max_step < target) or \
                (not at_boundary and t0 + self._max_step * _MAX_STRETCH < target):
            result, target = StepResult.kTimeHasAdvanced, t0 + self._max_step
        h = target - t0
        if self._fixed:
            self._step_fixed(h)
            full = True
        else:
            full = self._step_error_controlled(h)
        if full or ctx._time >= target:
            ctx._time = target  # land exactly on the target time
            return result
        return StepResult.kTimeHasAdvanced

    def IntegrateWithMultipleStepsToTime(self, t_final: float) -> None:
        inf = math.inf
        while True:
            self.IntegrateNoFurtherThanTime(inf, inf, min(t_final, self._context._time + self._max_step))
            if self._context._time >= t_final:
                break

    def IntegrateWithSingleFixedStepToTime(self, t_target: float) -> bool:
        h = t_target - self._context._time
        if h < 0:
            raise RuntimeError(f"IntegrateWithSingleFixedStepToTime: t_target {t_target} is in the past")
        self._step_fixed(h)
        self._context._time = t_target
        return True


class _StepFailed(Exception):
    """A substep that could not be completed (e.g. an implicit solve that did not converge)."""
