"""mallard.examples (pydrake.examples): the acrobot with Spong's controller, the pendulum and the Van der Pol
oscillator give pydrake's numbers."""
import importlib

import numpy as np
import pytest

import mallard.examples as ours
from oracles import require_pydrake


def _theirs():
    require_pydrake()
    return importlib.import_module("pydrake.examples")


def _spong_run(module: str, x0, t_final: float, period: float = 0.1) -> np.ndarray:
    E = importlib.import_module(f"{module}.examples")
    F = importlib.import_module(f"{module}.systems.framework")
    P = importlib.import_module(f"{module}.systems.primitives")
    A = importlib.import_module(f"{module}.systems.analysis")
    builder = F.DiagramBuilder()
    plant = builder.AddSystem(E.AcrobotPlant())
    controller = builder.AddSystem(E.AcrobotSpongController())
    builder.Connect(plant.get_output_port(0), controller.get_input_port(0))
    builder.Connect(controller.get_output_port(0), plant.get_input_port(0))
    logger = P.LogVectorOutput(plant.get_output_port(0), builder, period)
    diagram = builder.Build()
    simulator = A.Simulator(diagram)
    context = simulator.get_mutable_context()
    diagram.GetMutableSubsystemContext(plant, context).SetContinuousState(x0)
    diagram.GetMutableSubsystemContext(controller, context).get_mutable_numeric_parameter(0).SetFromVector(
        [5.0, 50.0, 5.0, 1e3])
    simulator.AdvanceTo(t_final)
    return logger.FindLog(context).data()


def test_acrobot_dynamics_match_pydrake():
    theirs = _theirs()
    x = [0.7, -0.4, 1.3, -2.1]
    values = []
    for E in (ours, theirs):
        plant = E.AcrobotPlant()
        context = plant.CreateDefaultContext()
        context.SetContinuousState(x)
        plant.get_input_port(0).FixValue(context, 0.3)
        values.append([plant.MassMatrix(context), plant.DynamicsBiasTerm(context),
                       plant.EvalTimeDerivatives(context).CopyToVector(),
                       [plant.EvalPotentialEnergy(context), plant.EvalKineticEnergy(context)],
                       plant.get_parameters(context).CopyToVector()])
        mit = E.AcrobotParams()
        plant.SetMitAcrobotParameters(mit)
        values[-1].append(mit.CopyToVector())
        assert type(plant.get_state(context)).__name__ == "AcrobotState"
        assert plant.get_state(context).theta2dot() == -2.1
    for a, b in zip(*values):
        np.testing.assert_allclose(a, b, rtol=1e-14)


@pytest.mark.parametrize("x", [[0.1, 0.0, 0.0, 0.0], [3.0, 0.1, 0.2, -0.1], [1.0, -2.0, 3.0, 1.0],
                               [3.2, 0.05, 0.0, 0.0]])
def test_spong_controller_torque_matches_pydrake(x):
    theirs = _theirs()
    torques = []
    for E in (ours, theirs):
        controller = E.AcrobotSpongController()
        context = controller.CreateDefaultContext()
        controller.get_input_port(0).FixValue(context, x)
        torques.append(controller.get_output_port(0).Eval(context)[0])
    # The balancing branch's LQR gain comes from a numerical linearization (pydrake: autodiff).
    assert torques[0] == pytest.approx(torques[1], rel=1e-9)


def test_spong_swing_up_trajectory_matches_pydrake():
    _theirs()
    mine, drake = (_spong_run(m, [0.1, 0.2, 0.0, 0.0], 4.0) for m in ("mallard", "pydrake"))
    assert mine.shape == drake.shape
    np.testing.assert_allclose(mine, drake, rtol=0, atol=1e-6)


def test_spong_swing_up_from_rest_follows_pydrake():
    """Drake's example scenario (spong_sim.py) starts with the elbow straight and at rest, where the elbow's
    acceleration cancels to rounding: the 2×2 inverse must round as Drake's (closed form) for the swing-up to
    break symmetry at the same time and the same way."""
    _theirs()
    mine, drake = (_spong_run(m, [1.2, 0.0, 0.0, 0.0], 3.0, 0.05) for m in ("mallard", "pydrake"))
    np.testing.assert_allclose(mine, drake, rtol=0, atol=1e-6)


def test_pendulum_matches_pydrake():
    theirs = _theirs()
    rows = []
    for E in (ours, theirs):
        plant = E.PendulumPlant()
        context = plant.CreateDefaultContext()
        context.SetContinuousState([0.3, 0.1])
        plant.get_input_port(0).FixValue(context, 0.2)
        rows.append([*plant.EvalTimeDerivatives(context).CopyToVector(), plant.EvalPotentialEnergy(context),
                     plant.EvalKineticEnergy(context), E.PendulumParams().with_length(2.0).length(),
                     *E.PendulumParams().CopyToVector()])
        assert plant.get_state_output_port().get_name() == "state"
    np.testing.assert_allclose(rows[0], rows[1], rtol=1e-15)


def test_van_der_pol_limit_cycle_matches_pydrake():
    theirs = _theirs()
    mine, drake = ours.VanDerPolOscillator.CalcLimitCycle(), theirs.VanDerPolOscillator.CalcLimitCycle()
    assert mine.shape == drake.shape
    np.testing.assert_allclose(mine, drake, rtol=0, atol=1e-9)
