"""Batch evaluation of a system's dynamics at many (time, state, input) points (pydrake's BatchEval* functions).

Each column of `states` / `inputs` is one evaluation point. Points are evaluated one after the other in a clone of
the given context, so results do not depend on `parallelize` (accepted as pydrake's; Python threads would not run
the evaluations faster, and for heavy evaluations ParallelMap runs them on processes).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mallard.common.parallelism import Parallelism
from mallard.systems.framework import InputPortSelection, PortDataType

__all__ = ["BatchEvalTimeDerivatives", "BatchEvalUniquePeriodicDiscreteUpdate"]


def _input_port(system, input_port_index: Any):
    """The input port selected by an index or InputPortSelection (None for kNoInput / no input port)."""
    value = int(input_port_index)
    if value == int(InputPortSelection.kNoInput):
        return None
    if value == int(InputPortSelection.kUseFirstInputIfItExists):
        return system.get_input_port(0) if system.num_input_ports() > 0 else None
    return system.get_input_port(value)


def _points(what: str, system, times, states, inputs, input_port_index, num_states: int) -> tuple:
    """(times (N,), states (n, N), inputs (m, N) or None, port), checked as Drake does."""
    times = np.asarray(times, dtype=float).reshape(-1)
    states = np.atleast_2d(np.asarray(states, dtype=float))
    if states.shape != (num_states, times.size):
        raise ValueError(f"{what}: states must be {num_states} x {times.size} (one column per time), got "
                         f"{states.shape[0]} x {states.shape[1]}")
    port = _input_port(system, input_port_index)
    if port is None:
        return times, states, None, None
    if port.get_data_type() != PortDataType.kVectorValued:
        raise ValueError(f"{what}: {port.GetFullDescription()} is abstract-valued; pass a vector input port")
    inputs = np.atleast_2d(np.asarray(inputs, dtype=float))
    if inputs.shape != (port.size(), times.size):
        raise ValueError(f"{what}: inputs must be {port.size()} x {times.size} for {port.GetFullDescription()}, "
                         f"got {inputs.shape[0]} x {inputs.shape[1]}")
    return times, states, inputs, port


def _check_parallelism(parallelize: Any) -> None:
    if not isinstance(parallelize, (Parallelism, bool, int)):
        raise TypeError(f"parallelize must be a Parallelism, bool or number of threads, got {parallelize!r}")


def BatchEvalUniquePeriodicDiscreteUpdate(system, context, times, states, inputs, num_time_steps: int = 1,
                                          input_port_index: Any = InputPortSelection.kUseFirstInputIfItExists,
                                          parallelize: Any = True) -> np.ndarray:
    """x[n + num_time_steps] for each column: from time times[i], state states[:, i], with the input held at
    inputs[:, i], through the system's unique periodic discrete update (a difference-equation system)."""
    system.ValidateContext(context)
    _check_parallelism(parallelize)
    is_difference, time_step = system.IsDifferenceEquationSystem()
    if not is_difference:
        raise RuntimeError(f"BatchEvalUniquePeriodicDiscreteUpdate: {system.GetSystemPathname()} is not a "
                           "difference-equation system (one discrete state group updated by one periodic update)")
    if int(num_time_steps) < 1:
        raise ValueError(f"BatchEvalUniquePeriodicDiscreteUpdate: num_time_steps must be >= 1, got {num_time_steps}")
    times, states, inputs, port = _points("BatchEvalUniquePeriodicDiscreteUpdate", system, times, states, inputs,
                                          input_port_index, context.get_discrete_state_vector().size())
    scratch = context.Clone()
    next_states = states.copy()
    for i in range(times.size):
        if port is not None:
            port.FixValue(scratch, inputs[:, i])
        for step in range(int(num_time_steps)):
            scratch.SetTime(times[i] + step * time_step)
            scratch.SetDiscreteState(next_states[:, i])
            next_states[:, i] = system.EvalUniquePeriodicDiscreteUpdate(scratch).get_vector(0).CopyToVector()
    return next_states


def BatchEvalTimeDerivatives(system, context, times, states, inputs,
                             input_port_index: Any = InputPortSelection.kUseFirstInputIfItExists,
                             parallelize: Any = True) -> np.ndarray:
    """ẋ for each column: at time times[i], continuous state states[:, i] and input inputs[:, i]."""
    system.ValidateContext(context)
    _check_parallelism(parallelize)
    times, states, inputs, port = _points("BatchEvalTimeDerivatives", system, times, states, inputs,
                                          input_port_index, system.num_continuous_states())
    scratch = context.Clone()
    derivatives = np.zeros_like(states)
    for i in range(times.size):
        scratch.SetTime(times[i])
        scratch.SetContinuousState(states[:, i])
        if port is not None:
            port.FixValue(scratch, inputs[:, i])
        derivatives[:, i] = system.EvalTimeDerivatives(scratch).CopyToVector()
    return derivatives
