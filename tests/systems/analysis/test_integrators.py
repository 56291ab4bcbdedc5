"""Integrators: exact solutions, convergence orders, error control meeting its accuracy, stiff problems."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mallard.systems.analysis import (ApplySimulatorConfig, ExtractSimulatorConfig, GetIntegrationSchemes,
                                      ResetIntegratorFromFlags, RungeKutta3Integrator, Simulator, SimulatorConfig)
from mallard.systems.framework import LeafSystem


class Ode(LeafSystem):
    """ẋ = f(t, x) for a plain Python function; q/v split optional."""

    def __init__(self, f, n, nq=0, nv=0):
        super().__init__()
        self.f = f
        if nq:
            self.DeclareContinuousState(nq, nv, n - nq - nv)
        else:
            self.DeclareContinuousState(n)

    def DoCalcTimeDerivatives(self, context, derivatives):
        x = context.get_continuous_state_vector().CopyToVector()
        derivatives.get_mutable_vector().SetFromVector(self.f(context.get_time(), x))


oscillator = (lambda t, x: np.array([x[1], -x[0]]))
decay = (lambda t, x: -2.0 * x)


def simulate(system, x0, t_final, scheme, h, accuracy=None, fixed=None):
    sim = Simulator(system)
    ResetIntegratorFromFlags(sim, scheme, h)
    integrator = sim.get_mutable_integrator()
    if fixed is not None and integrator.supports_error_estimation():
        integrator.set_fixed_step_mode(fixed)
    if accuracy is not None:
        integrator.set_target_accuracy(accuracy)
    sim.get_mutable_context().SetContinuousState(x0)
    sim.AdvanceTo(t_final)
    return sim.get_context().get_continuous_state_vector().CopyToVector(), sim


def test_default_integrator_is_rk3_with_drake_defaults():
    sim = Simulator(Ode(decay, 1))
    integrator = sim.get_integrator()
    assert isinstance(integrator, RungeKutta3Integrator)
    assert integrator.get_target_accuracy() == 1e-4 and integrator.get_maximum_step_size() == 0.1
    assert SimulatorConfig().model_dump() == dict(
        integration_scheme="runge_kutta3", max_step_size=0.1, accuracy=1e-4, use_error_control=True,
        start_time=0.0, target_realtime_rate=0.0, publish_every_time_step=False)


@pytest.mark.parametrize("scheme,order", [("explicit_euler", 1), ("runge_kutta2", 2), ("runge_kutta3", 3),
                                          ("runge_kutta4", 4), ("runge_kutta5", 5), ("bogacki_shampine3", 3),
                                          ("semi_explicit_euler", 1), ("implicit_euler", 1), ("radau3", 3)])
def test_fixed_step_convergence_order(scheme, order):
    exact = np.array([np.cos(1.0), -np.sin(1.0)])
    errors = []
    for h in (0.02, 0.01):
        x, _ = simulate(Ode(oscillator, 2, 1, 1), [1.0, 0.0], 1.0, scheme, h, fixed=True)
        errors.append(np.max(np.abs(x - exact)))
    observed = np.log2(errors[0] / errors[1])
    assert abs(observed - order) < 0.35, f"{scheme}: observed order {observed:.2f}, expected {order}"


@pytest.mark.parametrize("scheme,accuracy", [(s, a) for s in ("runge_kutta3", "runge_kutta5", "bogacki_shampine3",
                                                                 "radau3") for a in (1e-4, 1e-7)]
                         + [("implicit_euler", 1e-4)])
def test_error_control_meets_requested_accuracy(scheme, accuracy):
    x, sim = simulate(Ode(oscillator, 2), [1.0, 0.0], 2.0, scheme, 0.1, accuracy=accuracy)
    err = np.max(np.abs(x - [np.cos(2.0), -np.sin(2.0)]))
    steps = sim.get_integrator().get_num_steps_taken()
    # Error control bounds the error made per step; a first-order method accumulates it over its steps.
    bound = 2 * steps * accuracy if scheme == "implicit_euler" else 20 * accuracy
    assert err < bound, f"{scheme} at accuracy {accuracy}: global error {err:.2e} over {steps} steps"
    assert steps < 20000


def test_exponential_decay_exact():
    x, _ = simulate(Ode(decay, 1), [3.0], 1.5, "runge_kutta5", 0.1, accuracy=1e-12)
    np.testing.assert_allclose(x, [3.0 * np.exp(-3.0)], rtol=1e-10)


def test_van_der_pol_against_tight_reference():
    mu = 1.0
    vdp = lambda t, x: np.array([x[1], mu * (1 - x[0] ** 2) * x[1] - x[0]])  # noqa: E731
    ref = solve_ivp(vdp, (0.0, 5.0), [2.0, 0.0], method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    x, _ = simulate(Ode(vdp, 2), [2.0, 0.0], 5.0, "runge_kutta5", 0.1, accuracy=1e-11)
    np.testing.assert_allclose(x, ref, atol=1e-8)


def test_stiff_problem_with_implicit_integrators():
    stiff = lambda t, x: np.array([-1000.0 * (x[0] - np.cos(t))])  # noqa: E731
    ref = solve_ivp(stiff, (0.0, 1.0), [0.0], method="Radau", rtol=1e-12, atol=1e-12).y[:, -1]
    for scheme in ("implicit_euler", "radau3"):
        x, sim = simulate(Ode(stiff, 1), [0.0], 1.0, scheme, 0.1, accuracy=1e-5)
        np.testing.assert_allclose(x, ref, atol=2e-4)
        assert sim.get_integrator().get_num_steps_taken() < 2000, scheme


def test_simulator_config_round_trip_and_errors():
    sim = Simulator(Ode(decay, 1))
    config = SimulatorConfig(integration_scheme="runge_kutta2", max_step_size=0.01, use_error_control=False,
                             start_time=1.0, publish_every_time_step=True)
    ApplySimulatorConfig(config, sim)
    assert sim.get_context().get_time() == 1.0
    back = ExtractSimulatorConfig(sim)
    assert back.integration_scheme == "runge_kutta2" and back.max_step_size == 0.01
    assert back.publish_every_time_step and not back.use_error_control
    with pytest.raises(ValueError, match="Unknown integration scheme 'rk45'"):
        ResetIntegratorFromFlags(sim, "rk45", 0.1)
    with pytest.raises(ValueError):
        SimulatorConfig(max_step_size=-1.0)
    assert "runge_kutta3" in GetIntegrationSchemes() and "radau3" in GetIntegrationSchemes()


def test_blow_up_is_reported_with_time_and_system():
    system = Ode(lambda t, x: x * x if np.all(np.abs(x) < 1e150) else np.full_like(x, np.inf), 1)
    system.set_name("explodes")
    with pytest.raises(RuntimeError, match="non-finite at t = .* explodes|::explodes"):
        simulate(system, [1.0], 2.0, "explicit_euler", 0.01)
