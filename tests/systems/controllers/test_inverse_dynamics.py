"""InverseDynamics, InverseDynamicsController, JointStiffnessController and LQR on a MultibodyPlant, each on
the same plant built in mallard and in pydrake (tests/mb_twin_models.py)."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from mallard.systems import analysis as m_analysis
from mallard.systems import framework as m_framework
from mallard.systems import primitives as m_primitives
from mallard.systems import controllers as m_controllers
from mallard.systems.controllers import (InverseDynamics, InverseDynamicsController, InverseDynamicsMode,
                                         JointStiffnessController, LinearQuadraticRegulator)
from oracles import require_pydrake


@pytest.fixture(scope="module")
def arms():
    """The 7-dof serial arm (revolute + prismatic joints, damping, rotor inertia) in both engines."""
    require_pydrake()
    plant_m, _, _ = tw.build(tw.engine_mallard(), tw.serial_arm())
    plant_d, _, _ = tw.build(tw.engine_drake(), tw.serial_arm())
    return plant_m, plant_d


def _states(plant_d, seed, count=3):
    rng = np.random.default_rng(seed)
    ctx = plant_d.CreateDefaultContext()
    out = []
    for _ in range(count):
        q, v = tw.random_state(plant_d, ctx, rng)
        out.append((np.concatenate([q, v]), rng.standard_normal(plant_d.num_velocities()),
                    np.concatenate(tw.random_state(plant_d, ctx, rng))))
    return out


def _names(system):
    return ([system.get_input_port(i).get_name() for i in range(system.num_input_ports())],
            [system.get_output_port(i).get_name() for i in range(system.num_output_ports())])


def test_inverse_dynamics_matches_pydrake(arms):
    import pydrake.systems.controllers as dc
    plant_m, plant_d = arms
    id_m, id_d = InverseDynamics(plant_m), dc.InverseDynamics(plant_d)
    g_m = InverseDynamics(plant_m, InverseDynamicsMode.kGravityCompensation)
    g_d = dc.InverseDynamics(plant_d, dc.InverseDynamics.InverseDynamicsMode.kGravityCompensation)
    assert _names(id_m) == _names(id_d) == (["estimated_state", "desired_acceleration"], ["generalized_force"])
    assert _names(g_m) == _names(g_d) == (["estimated_state"], ["generalized_force"])
    assert g_m.is_pure_gravity_compensation() and not id_m.is_pure_gravity_compensation()
    assert InverseDynamics.kGravityCompensation == InverseDynamicsMode.kGravityCompensation
    with pytest.raises(RuntimeError, match="kGravityCompensation"):
        g_m.get_input_port_desired_acceleration()
    c_m, c_d, cg_m, cg_d = (s.CreateDefaultContext() for s in (id_m, id_d, g_m, g_d))
    for x, vdot, _ in _states(plant_d, 5):
        for system, ctx in ((id_m, c_m), (id_d, c_d)):
            system.get_input_port_estimated_state().FixValue(ctx, x)
            system.get_input_port_desired_acceleration().FixValue(ctx, vdot)
        for system, ctx in ((g_m, cg_m), (g_d, cg_d)):
            system.get_input_port_estimated_state().FixValue(ctx, x)
        tau_d = id_d.get_output_port_generalized_force().Eval(c_d)
        np.testing.assert_allclose(id_m.get_output_port_generalized_force().Eval(c_m), tau_d, rtol=1e-10,
                                   atol=1e-10 * np.max(np.abs(tau_d)))
        np.testing.assert_allclose(g_m.get_output_port_generalized_force().Eval(cg_m),
                                   g_d.get_output_port_generalized_force().Eval(cg_d), rtol=1e-10, atol=1e-10)


def test_inverse_dynamics_uses_the_given_plant_context(arms):
    plant_m, _ = arms
    plant_context = plant_m.CreateDefaultContext()
    body = plant_m.GetBodyByName("link3")
    body.SetMass(plant_context, 2.0 * body.default_mass())
    heavy = InverseDynamics(plant_m, InverseDynamicsMode.kGravityCompensation, plant_context)
    default = InverseDynamics(plant_m, InverseDynamicsMode.kGravityCompensation)
    x = np.concatenate([np.full(7, 0.3), np.zeros(7)])
    plant_m.SetPositionsAndVelocities(plant_context, x)
    expected = -plant_m.CalcGravityGeneralizedForces(plant_context)
    outs = []
    for system in (heavy, default):
        ctx = system.CreateDefaultContext()
        system.get_input_port_estimated_state().FixValue(ctx, x)
        outs.append(system.get_output_port_generalized_force().Eval(ctx))
    np.testing.assert_allclose(outs[0], expected, rtol=1e-12, atol=1e-12)
    assert np.max(np.abs(outs[0] - outs[1])) > 1e-3


@pytest.mark.parametrize("has_reference_acceleration", [True, False])
def test_inverse_dynamics_controller_matches_pydrake(arms, has_reference_acceleration):
    import pydrake.systems.controllers as dc
    plant_m, plant_d = arms
    kp, ki, kd = np.arange(1.0, 8.0), np.full(7, 0.5), np.arange(2.0, 9.0)
    idc_m = InverseDynamicsController(plant_m, kp, ki, kd, has_reference_acceleration)
    idc_d = dc.InverseDynamicsController(plant_d, kp, ki, kd, has_reference_acceleration)
    assert _names(idc_m) == _names(idc_d)
    assert idc_m.get_multibody_plant_for_control() is plant_m
    assert idc_m.get_output_port_control().get_name() == "actuation"
    assert idc_m.get_output_port_generalized_force().get_name() == "generalized_force"
    assert sorted(s.get_name() for s in idc_m.GetSystems()) == sorted(s.get_name() for s in idc_d.GetSystems())
    if not has_reference_acceleration:
        with pytest.raises(RuntimeError, match="has_reference_acceleration=False"):
            idc_m.get_input_port_desired_acceleration()
    c_m, c_d = idc_m.CreateDefaultContext(), idc_d.CreateDefaultContext()
    for k, (x, vdot, x_des) in enumerate(_states(plant_d, 9)):
        z = np.full(7, 0.1 * (k + 1))
        for idc, ctx in ((idc_m, c_m), (idc_d, c_d)):
            idc.get_input_port_estimated_state().FixValue(ctx, x)
            idc.get_input_port_desired_state().FixValue(ctx, x_des)
            if has_reference_acceleration:
                idc.get_input_port_desired_acceleration().FixValue(ctx, vdot)
            idc.set_integral_value(ctx, z)
        for port in ("get_output_port_control", "get_output_port_generalized_force"):
            y_d = getattr(idc_d, port)().Eval(c_d)
            np.testing.assert_allclose(getattr(idc_m, port)().Eval(c_m), y_d, rtol=1e-10,
                                       atol=1e-10 * np.max(np.abs(y_d)))
        np.testing.assert_allclose(idc_m.EvalTimeDerivatives(c_m).CopyToVector(),
                                   idc_d.EvalTimeDerivatives(c_d).CopyToVector(), rtol=1e-12, atol=1e-12)


def test_joint_stiffness_controller_matches_pydrake(arms):
    import pydrake.systems.controllers as dc
    plant_m, plant_d = arms
    kp, kd = np.arange(1.0, 8.0), np.arange(2.0, 9.0)
    jsc_m, jsc_d = JointStiffnessController(plant_m, kp, kd), dc.JointStiffnessController(plant_d, kp, kd)
    assert _names(jsc_m) == _names(jsc_d) == (["estimated_state", "desired_state"], ["actuation"])
    assert jsc_m.get_multibody_plant() is plant_m
    assert jsc_m.get_output_port_actuation() is jsc_m.get_output_port(0)
    c_m, c_d = jsc_m.CreateDefaultContext(), jsc_d.CreateDefaultContext()
    for x, _, x_des in _states(plant_d, 13):
        for jsc, ctx in ((jsc_m, c_m), (jsc_d, c_d)):
            jsc.get_input_port_estimated_state().FixValue(ctx, x)
            jsc.get_input_port_desired_state().FixValue(ctx, x_des)
        y_d = jsc_d.get_output_port_actuation().Eval(c_d)
        np.testing.assert_allclose(jsc_m.get_output_port_actuation().Eval(c_m), y_d, rtol=1e-10,
                                   atol=1e-10 * np.max(np.abs(y_d)))


def test_multibody_controller_errors(arms):
    plant_m, _ = arms
    E = tw.engine_mallard()
    unactuated, _, _ = tw.build(E, tw.triple_pendulum())
    for make in (lambda p: InverseDynamicsController(p, np.ones(3), np.zeros(3), np.ones(3), False),
                 lambda p: JointStiffnessController(p, np.ones(3), np.ones(3))):
        with pytest.raises(ValueError, match="only 0 actuated dofs; only fully-actuated"):
            make(unactuated)
    context = unactuated.CreateDefaultContext()
    unactuated.get_actuation_input_port().FixValue(context, np.zeros(0))
    with pytest.raises(ValueError, match="nothing to actuate"):
        LinearQuadraticRegulator(unactuated, context, np.eye(6), np.eye(0),
                                 input_port_index=unactuated.get_actuation_input_port().get_index())
    free, _, _ = tw.build(E, tw.free_body())
    with pytest.raises(ValueError, match="7 positions but 6 velocities"):
        InverseDynamicsController(free, np.ones(7), np.zeros(7), np.ones(7), False)
    not_final, _, _ = tw.build(E, tw.double_pendulum(), finalize=False)
    with pytest.raises(RuntimeError, match="not finalized"):
        InverseDynamics(not_final)
    with pytest.raises(ValueError, match=r"\|Kp\| = 7, \|Ki\| = 6"):
        InverseDynamicsController(plant_m, np.ones(7), np.zeros(6), np.ones(7), False)
    with pytest.raises(ValueError, match="gains have size 6 but the plant"):
        InverseDynamicsController(plant_m, np.ones(6), np.zeros(6), np.ones(6), False)
    with pytest.raises(ValueError, match="kd has size 3"):
        JointStiffnessController(plant_m, np.ones(7), np.ones(3))
    with pytest.raises(ValueError, match="mode must be"):
        InverseDynamics(plant_m, 5)
    with pytest.raises(TypeError, match="expected a MultibodyPlant"):
        InverseDynamics(m_primitives.Gain(1.0, 2))


def test_lqr_on_multibody_acrobot_matches_pydrake():
    require_pydrake()
    import pydrake.systems.controllers as dc
    spec = tw.double_pendulum()
    spec["actuators"] = [("elbow_act", "elbow", 0, 0)]  # an acrobot: only the elbow is driven
    out = []
    for E, lqr in ((tw.engine_mallard(), LinearQuadraticRegulator), (tw.engine_drake(), dc.LinearQuadraticRegulator)):
        plant, _, _ = tw.build(E, spec)
        ctx = plant.CreateDefaultContext()
        plant.SetPositions(ctx, [np.pi, 0.0])
        plant.get_actuation_input_port().FixValue(ctx, [0.0])
        ctrl = lqr(plant, ctx, np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1),
                   input_port_index=plant.get_actuation_input_port().get_index())
        out.append((ctrl.D(), ctrl.y0()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-7)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-7)


def _idc_loop(E, fw, prim, analysis, IdcCls):
    """A double pendulum tracking a constant reference with an InverseDynamicsController (no reference accel)."""
    builder = fw.DiagramBuilder()
    plant, _, _ = tw.build(E, tw.double_pendulum())
    builder.AddSystem(plant)
    control_plant, _, _ = tw.build(E, tw.double_pendulum())
    idc = builder.AddSystem(IdcCls(control_plant, [30.0, 30.0], [2.0, 2.0], [10.0, 10.0], False))
    ref = builder.AddSystem(prim.ConstantVectorSource([0.6, -0.4, 0.0, 0.0]))
    builder.Connect(plant.get_state_output_port(), idc.get_input_port_estimated_state())
    builder.Connect(ref.get_output_port(0), idc.get_input_port_desired_state())
    builder.Connect(idc.get_output_port_control(), plant.get_actuation_input_port())
    log = prim.LogVectorOutput(plant.get_state_output_port(), builder, 0.05)
    diagram = builder.Build()
    simulator = analysis.Simulator(diagram)
    analysis.ApplySimulatorConfig(analysis.SimulatorConfig(integration_scheme="runge_kutta2", max_step_size=2e-3,
                                                           use_error_control=False), simulator)
    context = simulator.get_mutable_context()
    plant.SetPositions(plant.GetMyMutableContextFromRoot(context), [0.1, 0.2])
    simulator.AdvanceTo(1.0)
    return log.FindLog(context).data()


def test_inverse_dynamics_controller_closed_loop_matches_pydrake():
    require_pydrake()
    import pydrake.systems.analysis as da
    import pydrake.systems.controllers as dc
    import pydrake.systems.framework as df
    import pydrake.systems.primitives as dp
    x_m = _idc_loop(tw.engine_mallard(), m_framework, m_primitives, m_analysis, m_controllers.InverseDynamicsController)
    x_d = _idc_loop(tw.engine_drake(), df, dp, da, dc.InverseDynamicsController)
    np.testing.assert_allclose(x_m, x_d, atol=1e-9)
    # Exact model cancellation: the error decays like a linear PID loop and is small after 1 s.
    assert np.max(np.abs(x_m[:2, -1] - [0.6, -0.4])) < 0.05


@pytest.mark.parametrize("model", ["free_body", "branched_tree"])
def test_inverse_dynamics_on_floating_and_branched_trees_matches_pydrake(model):
    """InverseDynamics itself needs no actuators and allows nq != nv (quaternion floating base)."""
    require_pydrake()
    import pydrake.systems.controllers as dc
    plant_m, _, _ = tw.build(tw.engine_mallard(), tw.MODELS[model]())
    plant_d, _, _ = tw.build(tw.engine_drake(), tw.MODELS[model]())
    id_m, id_d = InverseDynamics(plant_m), dc.InverseDynamics(plant_d)
    c_m, c_d = id_m.CreateDefaultContext(), id_d.CreateDefaultContext()
    for x, vdot, _ in _states(plant_d, 21, count=2):
        for system, ctx in ((id_m, c_m), (id_d, c_d)):
            system.get_input_port_estimated_state().FixValue(ctx, x)
            system.get_input_port_desired_acceleration().FixValue(ctx, vdot)
        tau_d = id_d.get_output_port_generalized_force().Eval(c_d)
        np.testing.assert_allclose(id_m.get_output_port_generalized_force().Eval(c_m), tau_d, rtol=1e-10,
                                   atol=1e-10 * np.max(np.abs(tau_d)))
