"""FittedValueIteration against pydrake's: the minimum-time-like problem of a double integrator (a LinearSystem)
on a 2-D state mesh with three inputs, with and without a periodic state and a discount; both sides integrate
with the same fixed-step scheme, so the tables agree to rounding and the policies exactly."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from oracles import require_pydrake


def _solve(ns: str, periodic: bool, discount: float):
    primitives = importlib.import_module(f"{ns}.systems.primitives")
    analysis = importlib.import_module(f"{ns}.systems.analysis")
    controllers = importlib.import_module(f"{ns}.systems.controllers")
    system = primitives.LinearSystem(np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([[0.0], [1.0]]),
                                     np.eye(2), np.zeros((2, 1)))
    simulator = analysis.Simulator(system)
    analysis.ResetIntegratorFromFlags(simulator, "runge_kutta2", 0.05)

    def cost(context):
        x = context.get_continuous_state_vector().CopyToVector()
        u = system.get_input_port(0).Eval(context)
        return float(x @ x + 0.1 * u @ u)

    options = controllers.DynamicProgrammingOptions()
    options.discount_factor = discount
    options.convergence_tol = 1e-6
    if periodic:
        options.periodic_boundary_conditions = [
            controllers.DynamicProgrammingOptions.PeriodicBoundaryCondition(0, -1.0, 1.0)]
    calls = []
    options.visualization_callback = lambda iteration, mesh, J, Pi: calls.append((iteration, np.array(J).copy()))
    state_grid = [set(np.linspace(-1.0, 1.0, 9)), set(np.linspace(-1.5, 1.5, 11))]
    input_grid = [{-1.0, 0.0, 1.0}]
    policy, J = controllers.FittedValueIteration(simulator, cost, state_grid, input_grid, 0.1, options)
    context = policy.CreateDefaultContext()
    actions = []
    for x in ([0.3, -0.2], [-0.9, 1.2], [0.05, 0.0]):
        policy.get_input_port(0).FixValue(context, np.array(x))
        actions.append(np.array(policy.get_output_port(0).Eval(context)))
    return np.asarray(J).ravel(), np.array(actions), calls


@pytest.mark.parametrize("periodic, discount", [(False, 0.95), (True, 1.0)])
def test_fitted_value_iteration_matches_pydrake(periodic, discount):
    require_pydrake()
    J, actions, calls = _solve("mallard", periodic, discount)
    J_d, actions_d, calls_d = _solve("pydrake", periodic, discount)
    assert J.shape == J_d.shape == (99,)
    np.testing.assert_allclose(J, J_d, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(actions, actions_d, rtol=0, atol=1e-12)
    assert [c[0] for c in calls] == [c[0] for c in calls_d] and len(calls) > 3
    np.testing.assert_allclose(calls[0][1], calls_d[0][1], rtol=1e-12, atol=1e-12)


def test_fitted_value_iteration_refuses_a_mismatched_grid():
    from mallard.systems.analysis import Simulator
    from mallard.systems.controllers import DynamicProgrammingOptions, FittedValueIteration
    from mallard.systems.primitives import Integrator
    with pytest.raises(ValueError, match="1 continuous states but state_grid has 2 dimensions"):
        FittedValueIteration(Simulator(Integrator(1)), lambda c: 0.0, [{0.0, 1.0}, {0.0, 1.0}], [{0.0}], 0.1,
                             DynamicProgrammingOptions())
