"""Approximate dynamic programming (pydrake.systems.controllers): DynamicProgrammingOptions,
FittedValueIteration and LinearProgrammingApproximateDynamicProgramming.

Fitted value iteration tabulates, for every point x_i of a barycentric state mesh and every point u_j of an input
mesh, the cost h·cost(x_i, u_j) and the barycentric interpolation (indices and weights) of the state reached by
simulating one time step h from x_i with u_j held; then it iterates J(x_i) ← min_j h·cost + γ·Σ w·J(x_next) until
the largest change is below the tolerance, as Drake's FittedValueIteration does.

The linear-programming method finds parameters a of a cost-to-go J(x, a), linear in a, that maximize
Σ_i J(x_i, a) subject to J(x_i, a) <= h·cost(x_i, u) + γ·J(x_i⁺, a) for every state sample x_i and input
sample u, x_i⁺ being the state after simulating one time step h from x_i with u held.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.multibody.math import wrap_to
from mallard.multibody.math.barycentric_mesh import BarycentricMesh
from mallard.systems.analysis.batch_eval import _input_port
from mallard.systems.framework import InputPortSelection, PortDataType
from mallard.systems.primitives import BarycentricMeshSystem

scipy_optimize = LazyModule("scipy.optimize")  # loaded on first use (import time)

__all__ = ["DynamicProgrammingOptions", "FittedValueIteration", "LinearProgrammingApproximateDynamicProgramming",
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


def _step(simulator, context, x: np.ndarray, time_step: float, cost_function: Callable,
          options: DynamicProgrammingOptions) -> tuple[float, np.ndarray]:
    """(h·cost(x, u), the state one time step h later, periodic coordinates wrapped), u already fixed on the port."""
    context.SetTime(0.0)
    context.SetContinuousState(x)
    simulator.Initialize()
    cost = time_step * float(cost_function(context))
    simulator.AdvanceTo(time_step)
    x_next = context.get_continuous_state_vector().CopyToVector()
    for b in options.periodic_boundary_conditions:
        x_next[b.state_index] = wrap_to(x_next[b.state_index], b.low, b.high)
    return cost, x_next


def FittedValueIteration(simulator, cost_function: Callable, state_grid, input_grid, time_step: float,
                         options: DynamicProgrammingOptions) -> tuple[BarycentricMeshSystem, np.ndarray]:
    """(policy, cost_to_go) by value iteration on barycentric meshes of the state and input grids (see the module
    text): the policy is a BarycentricMeshSystem from state to the best input at each state mesh point, the
    cost-to-go one value per state mesh point."""
    what = "FittedValueIteration"
    gamma = float(options.discount_factor)
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"{what}: options.discount_factor must be in (0, 1], got {gamma}")
    if not len(state_grid) or not len(input_grid) or not time_step > 0.0:
        raise ValueError(f"{what}: state_grid and input_grid must be non-empty and time_step positive")
    system, context = simulator.get_system(), simulator.get_mutable_context()
    state_mesh, input_mesh = BarycentricMesh(state_grid), BarycentricMesh(input_grid)
    if not (context.has_only_continuous_state() or options.assume_non_continuous_states_are_fixed):
        raise ValueError(f"{what}: the system has discrete or abstract state; set "
                         "options.assume_non_continuous_states_are_fixed = True to hold it fixed")
    if context.num_continuous_states() != len(state_grid):
        raise ValueError(f"{what}: the system has {context.num_continuous_states()} continuous states but "
                         f"state_grid has {len(state_grid)} dimensions")
    port = _input_port(system, options.input_port_index)
    if port is None or port.size() != len(input_grid):
        raise ValueError(f"{what}: the selected input port must exist and have size {len(input_grid)} (the "
                         "dimensions of input_grid)")
    if port.get_data_type() == PortDataType.kAbstractValued:
        raise ValueError(f"The specified input port is abstract-valued, but {what} only supports vector-valued "
                         "input ports.  Did you perhaps forget to pass a non-default `options.input_port_index`?")
    for b in options.periodic_boundary_conditions:
        values = sorted(state_grid[b.state_index]) if 0 <= b.state_index < len(state_grid) else []
        if not values or b.low < values[0] or b.high > values[-1]:
            raise ValueError(f"{what}: {b!r} must name a state of the grid and lie within its grid values")
    num_states, num_inputs = state_mesh.get_num_mesh_points(), input_mesh.get_num_mesh_points()
    k = state_mesh.get_num_interpolants()
    Tind = np.zeros((num_inputs, k, num_states), dtype=np.int64)
    T = np.zeros((num_inputs, k, num_states))
    cost = np.zeros((num_inputs, num_states))
    states = [state_mesh.get_mesh_point(i) for i in range(num_states)]
    inputs = [input_mesh.get_mesh_point(j) for j in range(num_inputs)]
    for j, u in enumerate(inputs):
        port.FixValue(context, u)
        for i, x in enumerate(states):
            cost[j, i], x_next = _step(simulator, context, x, time_step, cost_function, options)
            Tind[j, :, i], T[j, :, i] = state_mesh.EvalBarycentricWeights(x_next)
    gammaT = gamma * T
    J = np.zeros(num_states)
    Pi = np.zeros((input_mesh.get_input_size(), num_states))
    max_diff, iteration = np.inf, 0
    while max_diff > options.convergence_tol:
        Q = cost.copy()
        for index in range(k):  # summed in Drake's order, so that ties break as Drake's do
            Q += gammaT[:, index, :] * J[Tind[:, index, :]]
        best = np.argmin(Q, axis=0)  # the first minimum, as Drake's strict comparison keeps it
        J_next = Q[best, np.arange(num_states)]
        Pi = np.stack([inputs[b] for b in best], axis=1)
        max_diff = float(np.max(np.abs(J - J_next)))
        J = J_next
        iteration += 1
        if options.visualization_callback is not None:
            options.visualization_callback(iteration, state_mesh, J, Pi)
    return BarycentricMeshSystem(state_mesh, Pi), J


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
            cost, x_next = _step(simulator, context, X[:, i], time_step, cost_function, options)
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
