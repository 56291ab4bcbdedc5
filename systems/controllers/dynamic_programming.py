"""Approximate dynamic programming (pydrake.systems.controllers): DynamicProgrammingOptions and
LinearProgrammingApproximateDynamicProgramming.

The linear-programming method finds parameters a of a cost-to-go J(x, a), linear in a, that maximize
Σ_i J(x_i, a) subject to J(x_i, a) <= h·cost(x_i, u) + γ·J(x_i⁺, a) for every state sample x_i and input
sample u, x_i⁺ being the state after simulating one time step h from x_i with u held.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.multibody.math import wrap_to
from mallard.systems.framework import InputPortSelection

scipy_optimize = LazyModule("scipy.optimize")  # loaded on first use (import time)

__all__ = ["DynamicProgrammingOptions", "LinearProgrammingApproximateDynamicProgramming",
           "PeriodicBoundaryCondition"]


class PeriodicBoundaryCondition:
    """State `state_index` lives on the circle [low, high) (e.g. an angle): sampled states wrap into it."""

    def __init__(self, state_index: int, low: float, high: float) -> None:
        if not low < high:
            raise ValueError(f"PeriodicBoundaryCondition: low ({low}) must be less than high ({high})")
        self.state_index, self.low, self.high = int(state_index), float(low), float(high)

    def __repr__(self) -> str:
        return f"PeriodicBoundaryCondition(state_index={self.state_index}, low={self.low}, high={self.high})"


class DynamicProgrammingOptions:
    """Options of the dynamic-programming solvers (pydrake's fields and defaults)."""

    PeriodicBoundaryCondition = PeriodicBoundaryCondition

    def __init__(self) -> None:
        self.discount_factor = 1.0
        self.periodic_boundary_conditions: list[PeriodicBoundaryCondition] = []
        self.convergence_tol = 1e-4
        self.visualization_callback: Callable | None = None
        self.input_port_index = InputPortSelection.kUseFirstInputIfItExists
        self.assume_non_continuous_states_are_fixed = False


def _features(cost_to_go: Callable, x: np.ndarray, num_parameters: int) -> tuple[np.ndarray, float]:
    """(phi, c) with cost_to_go(x, a) = phi · a + c for every a (the function is linear in a)."""
    c = float(cost_to_go(x, np.zeros(num_parameters)))
    phi = np.array([float(cost_to_go(x, np.eye(num_parameters)[k])) - c for k in range(num_parameters)])
    return phi, c


def LinearProgrammingApproximateDynamicProgramming(simulator, cost_function: Callable,
                                                   linearly_parameterized_cost_to_go_function: Callable,
                                                   num_parameters: int, state_samples, input_samples,
                                                   time_step: float, options: DynamicProgrammingOptions):
    """The parameters a (a vector of num_parameters) of the cost-to-go, by linear programming (see the
    module text). `linearly_parameterized_cost_to_go_function(state, parameters)` must be linear in the
    parameters; it is called with numeric parameter vectors."""
    what = "LinearProgrammingApproximateDynamicProgramming"
    gamma = float(options.discount_factor)
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"{what}: options.discount_factor must be in (0, 1], got {gamma}")
    if num_parameters <= 0 or time_step <= 0:
        raise ValueError(f"{what}: num_parameters and time_step must be positive")
    X = np.asarray(state_samples, dtype=float)
    U = np.asarray(input_samples, dtype=float)
    system = simulator.get_system()
    context = simulator.get_mutable_context()
    if not context.has_only_continuous_state() or context.num_continuous_states() != X.shape[0]:
        raise ValueError(f"{what}: the system must have only continuous state, of size {X.shape[0]} (the rows "
                         "of state_samples)")
    if system.num_input_ports() != 1 or system.get_input_port(0).size() != U.shape[0]:
        raise ValueError(f"{what}: the system must have one input port of size {U.shape[0]} (the rows of "
                         "input_samples)")
    J = linearly_parameterized_cost_to_go_function
    objective = np.zeros(num_parameters)
    for i in range(X.shape[1]):
        objective -= _features(J, X[:, i], num_parameters)[0]
    rows, rhs = [], []
    for j in range(U.shape[1]):
        system.get_input_port(0).FixValue(context, U[:, j])
        for i in range(X.shape[1]):
            context.SetTime(0.0)
            context.SetContinuousState(X[:, i])
            simulator.Initialize()
            cost = time_step * float(cost_function(context))
            simulator.AdvanceTo(time_step)
            x_next = context.get_continuous_state_vector().CopyToVector()
            for b in options.periodic_boundary_conditions:
                x_next[b.state_index] = wrap_to(x_next[b.state_index], b.low, b.high)
            phi, c = _features(J, X[:, i], num_parameters)
            phi_next, c_next = _features(J, x_next, num_parameters)
            row, bound = phi - gamma * phi_next, cost - (c - gamma * c_next)
            if np.any(row != 0.0) or bound < 0.0:
                rows.append(row)
                rhs.append(bound)
    result = scipy_optimize.linprog(objective, A_ub=np.array(rows) if rows else None,
                                    b_ub=np.array(rhs) if rows else None,
                                    bounds=[(None, None)] * num_parameters, method="highs")
    if result.status != 0:
        raise RuntimeError(f"{what}: the linear program failed: {result.message}")
    return result.x
