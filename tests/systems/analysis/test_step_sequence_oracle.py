"""Error-controlled integrators take pydrake's step sequence: the same number of steps, step-size shrinkages and
logged samples, and the same state, on a problem whose step size varies a lot (a Van der Pol oscillator)."""
import importlib

import numpy as np
import pytest

from oracles import require_pydrake


def _simulate(package: str, scheme: str | None, accuracy: float | None, publish_period: float | None):
    framework = importlib.import_module(f"{package}.systems.framework")
    analysis = importlib.import_module(f"{package}.systems.analysis")
    primitives = importlib.import_module(f"{package}.systems.primitives")

    class VanDerPol(framework.LeafSystem):
        def __init__(self):
            framework.LeafSystem.__init__(self)
            self.DeclareContinuousState(1, 1, 0)
            self.DeclareVectorOutputPort("y", 2, self.output)

        def output(self, context, y):
            y.SetFromVector(context.get_continuous_state_vector().CopyToVector())

        def DoCalcTimeDerivatives(self, context, derivatives):
            q, v = context.get_continuous_state_vector().CopyToVector()
            derivatives.get_mutable_vector().SetFromVector([v, 3.0 * (1 - q * q) * v - q])

    builder = framework.DiagramBuilder()
    system = builder.AddSystem(VanDerPol())
    if publish_period is None:
        logger = primitives.LogVectorOutput(system.get_output_port(0), builder)
    else:
        logger = primitives.LogVectorOutput(system.get_output_port(0), builder, publish_period)
    simulator = analysis.Simulator(builder.Build())
    context = simulator.get_mutable_context()
    if scheme is not None:
        analysis.ApplySimulatorConfig(analysis.SimulatorConfig(integration_scheme=scheme, accuracy=accuracy),
                                      simulator)
    context.SetContinuousState([2.0, 0.0])
    simulator.AdvanceTo(8.0)
    integrator = simulator.get_integrator()
    return (integrator.get_num_steps_taken(), integrator.get_num_step_shrinkages_from_error_control(),
            logger.FindLog(context).num_samples(), context.get_continuous_state_vector().CopyToVector())


@pytest.mark.parametrize("scheme, accuracy, publish_period", [
    (None, None, None),                      # the Simulator's default RK3, accuracy 1e-4
    ("runge_kutta3", 1e-6, 0.05),            # periodic publishes cut steps short
    ("runge_kutta3", 1e-2, None),
    ("runge_kutta5", 1e-7, None),
    ("bogacki_shampine3", 1e-4, 0.033),
])
def test_error_controlled_step_sequence_matches_pydrake(scheme, accuracy, publish_period):
    require_pydrake()
    steps, shrinks, samples, x = _simulate("mallard", scheme, accuracy, publish_period)
    d_steps, d_shrinks, d_samples, d_x = _simulate("pydrake", scheme, accuracy, publish_period)
    assert (steps, samples) == (d_steps, d_samples)
    assert shrinks == d_shrinks
    np.testing.assert_allclose(x, d_x, rtol=1e-9, atol=1e-12)
