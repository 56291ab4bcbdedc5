"""PidController and PidControlledSystem against pydrake: outputs at fixed inputs, closed loops, bad input."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems import analysis as m_analysis
from mallard.systems import framework as m_framework
from mallard.systems import primitives as m_primitives
from mallard.systems.controllers import PidControlledSystem, PidController
from mallard.systems.primitives import LinearSystem
from oracles import require_pydrake

G, L, MASS, DAMP = 9.81, 0.8, 1.2, 0.15


def _pendulum_class(LeafSystem):
    """The same plain-Python torque-driven damped pendulum, for either engine's LeafSystem."""

    class Pendulum(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareVectorInputPort("tau", 1)
            state = self.DeclareContinuousState(1, 1, 0)
            self.DeclareStateOutputPort("state", state)

        def DoCalcTimeDerivatives(self, context, derivatives):
            theta, thetadot = context.get_continuous_state_vector().CopyToVector()
            tau = self.get_input_port(0).Eval(context)[0]
            thetaddot = (tau - DAMP * thetadot - MASS * G * L * np.sin(theta)) / (MASS * L * L)
            derivatives.get_mutable_vector().SetFromVector([thetadot, thetaddot])

    return Pendulum


def _engines():
    pydrake = require_pydrake()
    import pydrake.systems.analysis as d_analysis
    import pydrake.systems.controllers as d_controllers
    import pydrake.systems.framework as d_framework
    import pydrake.systems.primitives as d_primitives
    return pydrake, (d_framework, d_primitives, d_analysis, d_controllers.PidController)


def _eval_pid(PidCls, args, x, x_d, z):
    pid = PidCls(*args)
    ctx = pid.CreateDefaultContext()
    pid.get_input_port_estimated_state().FixValue(ctx, x)
    pid.get_input_port_desired_state().FixValue(ctx, x_d)
    ctx.SetContinuousState(z)
    return pid.get_output_port_control().Eval(ctx), pid.EvalTimeDerivatives(ctx).CopyToVector()


@pytest.mark.parametrize("form", ["gains", "state_projection", "both_projections"])
def test_output_and_derivative_match_pydrake_at_fixed_inputs(form):
    _, (_, _, _, DPid) = _engines()
    rng = np.random.default_rng(3)
    n = 3
    kp, ki, kd = rng.uniform(0.5, 5.0, n), rng.uniform(0.0, 2.0, n), rng.uniform(0.1, 3.0, n)
    if form == "gains":
        args, nx = (kp, ki, kd), 2 * n
    elif form == "state_projection":
        P_x = rng.standard_normal((2 * n, 5))
        args, nx = (P_x, kp, ki, kd), 5
    else:
        P_x, P_y = rng.standard_normal((2 * n, 7)), rng.standard_normal((4, n))
        args, nx = (P_x, P_y, kp, ki, kd), 7
    x, x_d, z = rng.standard_normal(nx), rng.standard_normal(2 * n), rng.standard_normal(n)
    y_m, zdot_m = _eval_pid(PidController, args, x, x_d, z)
    y_d, zdot_d = _eval_pid(DPid, args, x, x_d, z)
    np.testing.assert_allclose(y_m, y_d, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(zdot_m, zdot_d, rtol=1e-13, atol=1e-13)


def test_hand_computed_output_ports_and_accessors():
    pid = PidController([1.0, 2.0], [0.5, 0.25], [3.0, 4.0])
    assert [pid.get_input_port(i).get_name() for i in range(2)] == ["estimated_state", "desired_state"]
    assert pid.get_output_port(0).get_name() == "control"
    assert pid.get_output_port_control() is pid.get_output_port(0)
    assert pid.get_input_port_estimated_state() is pid.get_input_port(0)
    assert pid.get_input_port_desired_state() is pid.get_input_port(1)
    assert pid.HasDirectFeedthrough(0, 0) and pid.HasDirectFeedthrough(1, 0)
    assert pid.num_continuous_states() == 2
    np.testing.assert_array_equal(pid.get_Kp_vector(), [1.0, 2.0])
    np.testing.assert_array_equal(pid.get_Ki_vector(), [0.5, 0.25])
    np.testing.assert_array_equal(pid.get_Kd_vector(), [3.0, 4.0])
    ctx = pid.CreateDefaultContext()
    pid.get_input_port(0).FixValue(ctx, [0.1, 0.2, 0.3, 0.4])
    pid.get_input_port(1).FixValue(ctx, [1.0, 2.0, 3.0, 4.0])
    pid.set_integral_value(ctx, [0.7, -0.3])
    # kp (q_d - q) + ki z + kd (v_d - v) = [0.9 + 0.35 + 8.1, 3.6 - 0.075 + 14.4]
    np.testing.assert_allclose(pid.get_output_port_control().Eval(ctx), [9.35, 17.925], rtol=1e-14)
    np.testing.assert_allclose(pid.EvalTimeDerivatives(ctx).CopyToVector(), [0.9, 1.8], rtol=1e-14)


def test_bad_gains_and_projections_raise_value_errors():
    with pytest.raises(ValueError, match=r"equal length: \|Kp\| = 2, \|Ki\| = 1, \|Kd\| = 2"):
        PidController([1.0, 2.0], [0.5], [3.0, 4.0])
    with pytest.raises(ValueError, match="state projection row dimension mismatch, expecting 2"):
        PidController(np.ones((3, 6)), [2.0], [0.5], [1.0])
    with pytest.raises(ValueError, match="output projection column dimension mismatch, expecting 1"):
        PidController(np.ones((2, 6)), np.ones((3, 2)), [2.0], [0.5], [1.0])
    with pytest.raises(ValueError, match="finite"):
        PidController([np.nan], [0.0], [1.0])
    with pytest.raises(TypeError, match="takes"):
        PidController([1.0], [1.0])
    pid = PidController([1.0], [1.0], [1.0])
    with pytest.raises(ValueError, match="expected 1 values"):
        pid.set_integral_value(pid.CreateDefaultContext(), [1.0, 2.0])


def _pid_loop(fw, prim, analysis, PidCls, theta_d):
    """Pendulum + PID + constant reference, logged every 10 ms; fixed-step RK2 (the same explicit trapezoid
    method in both engines)."""
    builder = fw.DiagramBuilder()
    plant = builder.AddSystem(_pendulum_class(fw.LeafSystem)())
    pid = builder.AddSystem(PidCls([40.0], [60.0], [10.0]))
    ref = builder.AddSystem(prim.ConstantVectorSource([theta_d, 0.0]))
    builder.Connect(plant.get_output_port(0), pid.get_input_port_estimated_state())
    builder.Connect(ref.get_output_port(0), pid.get_input_port_desired_state())
    builder.Connect(pid.get_output_port_control(), plant.get_input_port(0))
    log = prim.LogVectorOutput(plant.get_output_port(0), builder, 0.01)
    diagram = builder.Build()
    simulator = analysis.Simulator(diagram)
    analysis.ApplySimulatorConfig(analysis.SimulatorConfig(integration_scheme="runge_kutta2", max_step_size=1e-3,
                                                           use_error_control=False), simulator)
    context = simulator.get_mutable_context()
    plant.GetMyMutableContextFromRoot(context).SetContinuousState([0.3, -0.5])
    simulator.AdvanceTo(3.0)
    data = log.FindLog(context)
    return data.sample_times(), data.data()


def test_closed_loop_pid_on_python_plant_matches_pydrake():
    _, (d_fw, d_prim, d_an, DPid) = _engines()
    t_m, x_m = _pid_loop(m_framework, m_primitives, m_analysis, PidController, 1.2)
    t_d, x_d = _pid_loop(d_fw, d_prim, d_an, DPid, 1.2)
    np.testing.assert_allclose(t_m, t_d, atol=1e-12)
    np.testing.assert_allclose(x_m, x_d, atol=1e-9)
    # The integral action removes the gravity offset: the pendulum settles at the reference.
    assert abs(x_m[0, -1] - 1.2) < 2e-3


def _pcs_loop(fw, prim, analysis, PcsCls, LinearSystemCls):
    A = np.array([[0.0, 1.0], [0.0, -0.2]])
    B = np.array([[0.0], [1.0]])
    plant = LinearSystemCls(A, B, np.eye(2), np.zeros((2, 1)))
    builder = fw.DiagramBuilder()
    pcs = builder.AddSystem(PcsCls(plant, 4.0, 0.5, 2.0))
    ref = builder.AddSystem(prim.ConstantVectorSource([1.0, 0.0]))
    ff = builder.AddSystem(prim.ConstantVectorSource([0.3]))
    builder.Connect(ref.get_output_port(0), pcs.get_state_input_port())
    builder.Connect(ff.get_output_port(0), pcs.get_control_input_port())
    log = prim.LogVectorOutput(pcs.get_state_output_port(), builder, 0.05)
    diagram = builder.Build()
    simulator = analysis.Simulator(diagram)
    analysis.ApplySimulatorConfig(analysis.SimulatorConfig(integration_scheme="runge_kutta2", max_step_size=1e-3,
                                                           use_error_control=False), simulator)
    simulator.AdvanceTo(4.0)
    data = log.FindLog(simulator.get_context())
    return pcs, data.data()


def test_pid_controlled_system_ports_and_trajectory_match_pydrake():
    _, (d_fw, d_prim, d_an, _) = _engines()
    import pydrake.systems.controllers as dc
    pcs_m, x_m = _pcs_loop(m_framework, m_primitives, m_analysis, PidControlledSystem, LinearSystem)
    pcs_d, x_d = _pcs_loop(d_fw, d_prim, d_an, dc.PidControlledSystem, d_prim.LinearSystem)
    names = lambda s: ([s.get_input_port(i).get_name() for i in range(s.num_input_ports())],
                       [s.get_output_port(i).get_name() for i in range(s.num_output_ports())])
    assert names(pcs_m) == names(pcs_d) == (["feedforward_control", "desired_state"], ["y0"])
    assert pcs_m.get_control_input_port() is pcs_m.get_input_port(0)
    assert pcs_m.get_state_input_port() is pcs_m.get_input_port(1)
    assert pcs_m.get_state_output_port() is pcs_m.get_output_port(0)
    assert not pcs_m.HasDirectFeedthrough(0, 0) and not pcs_m.HasDirectFeedthrough(1, 0)
    np.testing.assert_allclose(x_m, x_d, atol=1e-10)


def test_pid_controlled_system_with_feedback_selector_and_bad_sizes():
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    B = np.zeros((4, 1))
    B[2, 0] = 1.0
    with pytest.raises(ValueError, match="pass a feedback_selector"):
        PidControlledSystem(LinearSystem(A, B, np.eye(4), np.zeros((4, 1))), 1.0, 0.0, 1.0)
    selector = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    pcs = PidControlledSystem(LinearSystem(A, B, np.eye(4), np.zeros((4, 1))), selector, 2.0, 0.0, 1.0)
    assert pcs.get_state_input_port().size() == 2 and pcs.get_state_output_port().size() == 4
    ctx = pcs.CreateDefaultContext()
    pcs.get_state_input_port().FixValue(ctx, [1.0, 0.0])
    pcs.get_control_input_port().FixValue(ctx, [0.0])
    ctx.SetContinuousState([0.0, 0.0, 0.0, 0.0, 0.0])
    # x[2]' = u = kp (1 - 0) = 2
    np.testing.assert_allclose(pcs.EvalTimeDerivatives(ctx).CopyToVector()[2], 2.0)
    with pytest.raises(ValueError, match="gains have size 2 but the plant input"):
        PidControlledSystem(LinearSystem(A, B, np.eye(4), np.zeros((4, 1))), [1.0, 1.0], [0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="output port index 3 is out of range"):
        PidControlledSystem(LinearSystem(A, B, np.eye(4), np.zeros((4, 1))), 1.0, 0.0, 1.0,
                            state_output_port_index=3)
    with pytest.raises(ValueError, match="input port index 0 is out of range"):  # a plant without inputs
        PidControlledSystem(LinearSystem(A, np.zeros((4, 0)), np.eye(4), np.zeros((4, 0))), 1.0, 0.0, 1.0)
