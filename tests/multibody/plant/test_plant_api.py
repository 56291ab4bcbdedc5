"""MultibodyPlant system API: ports, per-instance state, parameters, free bodies, selectors, hooks."""
from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

import mb_twin_models as tw
from mallard.multibody.math import RigidTransform, RollPitchYaw, SpatialForce, SpatialVelocity
from mallard.multibody.plant import ExternallyAppliedSpatialForce, MultibodyPlant
from mallard.multibody.tree import (BodyIndex, JointActuatorIndex, JointIndex, MultibodyForces, RevoluteJoint,
                                    SpatialInertia, default_model_instance)
from oracles import require_pydrake


def _two_instance_plant(time_step=0.0):
    plant = MultibodyPlant(time_step)
    robots = []
    for name in ("left", "right"):
        mi = plant.AddModelInstance(name)
        link = plant.AddRigidBody("link", mi, SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.5))
        j = plant.AddJoint(RevoluteJoint("hinge", plant.world_frame(), link.body_frame(), [0, 1, 0]))
        plant.AddJointActuator("motor", j)
        robots.append((mi, link, j))
    free = plant.AddRigidBody("box", SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    plant.Finalize()
    return plant, robots, free


def _fix_applied_forces(plant, robots, context) -> ExternallyAppliedSpatialForce:
    """Fixes both applied-force inputs of _two_instance_plant's context: a spatial force on the left link at
    p_BoBq_B = (0, 0, -0.25) and 0.5 on every generalized force; returns the spatial force."""
    f = ExternallyAppliedSpatialForce()
    f.body_index = robots[0][1].index()
    f.p_BoBq_B = np.array([0.0, 0.0, -0.25])
    f.F_Bq_W = SpatialForce(np.array([0.1, 0.0, 0.0]), np.array([3.0, 0.0, 1.0]))
    plant.get_applied_spatial_force_input_port().FixValue(context, [f])
    plant.get_applied_generalized_force_input_port().FixValue(context, np.full(8, 0.5))
    return f


def test_ports_names_sizes_and_instances():
    plant, robots, free = _two_instance_plant()
    names = [plant.get_input_port(i).get_name() for i in range(plant.num_input_ports())]
    assert names[:2] == ["geometry_query", "actuation"]
    assert {"left_actuation", "right_actuation", "applied_generalized_force", "applied_spatial_force"} <= set(names)
    out = [plant.get_output_port(i).get_name() for i in range(plant.num_output_ports())]
    for n in ("geometry_pose", "state", "left_state", "generalized_acceleration", "body_poses",
              "body_spatial_velocities", "body_spatial_accelerations", "reaction_forces", "net_actuation",
              "left_generalized_contact_forces"):
        assert n in out
    assert plant.get_state_output_port().size() == 9 + 8
    assert plant.get_state_output_port(robots[0][0]).size() == 2
    assert plant.get_actuation_input_port(robots[1][0]).size() == 1
    context = plant.CreateDefaultContext()
    q = np.arange(9.0) / 10
    q[2:6] = [1, 0, 0, 0]
    plant.SetPositions(context, q)
    plant.SetPositions(context, robots[1][0], [0.7])
    np.testing.assert_allclose(plant.GetPositions(context, robots[1][0]), [0.7])
    np.testing.assert_allclose(plant.get_state_output_port(robots[1][0]).Eval(context), [0.7, 0.0])
    assert plant.GetStateNames(robots[0][0]) == ["left_hinge_q", "left_hinge_w"]
    assert plant.GetPositionNames(add_model_instance_prefix=False)[2:6] == ["box_qw", "box_qx", "box_qy", "box_qz"]
    # the whole-plant getter returns a writable copy, as pydrake does: writing it leaves the context alone
    q = plant.GetPositions(context)
    before = q[0]
    q[0] = before + 1.0
    assert plant.GetPositions(context)[0] == before
    u = np.zeros(2)
    plant.SetActuationInArray(robots[1][0], [3.0], u)
    assert u.tolist() == [0.0, 3.0]
    assert plant.GetActuationFromArray(robots[1][0], u).tolist() == [3.0]
    assert plant.GetFloatingBaseBodies() == {free.index()}
    assert plant.HasUniqueFloatingBaseBody(default_model_instance())
    assert not plant.HasUniqueFloatingBaseBody(robots[0][0])


def test_actuation_by_instance_ports_and_net_actuation():
    plant, robots, free = _two_instance_plant()
    context = plant.CreateDefaultContext()
    plant.get_actuation_input_port(robots[0][0]).FixValue(context, [1.5])
    plant.get_actuation_input_port(robots[1][0]).FixValue(context, [-2.0])
    np.testing.assert_allclose(plant.get_net_actuation_output_port().Eval(context), [1.5, -2.0])
    vdot = plant.get_generalized_acceleration_output_port().Eval(context)
    forces = MultibodyForces(plant)
    plant.CalcForceElementsContribution(context, forces)
    # M v̇ + C v − τ_elements = B u
    np.testing.assert_allclose(plant.CalcInverseDynamics(context, vdot, forces),
                               plant.MakeActuationMatrix() @ [1.5, -2.0], atol=1e-12)


def test_applied_spatial_force_port_matches_multibody_forces():
    plant, robots, free = _two_instance_plant()
    context = plant.CreateDefaultContext()
    plant.get_actuation_input_port().FixValue(context, np.zeros(2))
    f = _fix_applied_forces(plant, robots, context)
    vdot = plant.get_generalized_acceleration_output_port().Eval(context)
    forces = MultibodyForces(plant)
    plant.CalcForceElementsContribution(context, forces)
    robots[0][1].AddInForce(context, np.array([0.0, 0.0, -0.25]), f.F_Bq_W, robots[0][1].body_frame(), forces)
    forces.mutable_generalized_forces()[:] += 0.5
    np.testing.assert_allclose(plant.CalcInverseDynamics(context, vdot, forces), 0.0, atol=1e-12)


def test_parameters_live_in_the_context():
    plant, robots, free = _two_instance_plant()
    c1, c2 = plant.CreateDefaultContext(), plant.CreateDefaultContext()
    M0 = plant.CalcMassMatrix(c1)
    free.SetMass(c1, 4.0)
    assert free.get_mass(c1) == 4.0 and free.get_mass(c2) == 2.0 and free.default_mass() == 2.0
    M1 = plant.CalcMassMatrix(c1)
    np.testing.assert_allclose(M1[5:, 5:], 2 * M0[5:, 5:])
    np.testing.assert_allclose(plant.CalcMassMatrix(c2), M0)
    assert plant.CalcTotalMass(c1) == pytest.approx(6.0)
    free.SetSpatialInertiaInBodyFrame(c2, SpatialInertia.SolidSphereWithMass(3.0, 0.1))
    assert free.CalcSpatialInertiaInBodyFrame(c2).get_mass() == pytest.approx(3.0)


def test_free_body_pose_velocity_and_defaults():
    plant = MultibodyPlant(0.0)
    body = plant.AddRigidBody("ball", SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    X0 = RigidTransform(RollPitchYaw(0.1, 0.2, 0.3), [1.0, 2.0, 3.0])
    plant.SetDefaultFloatingBaseBodyPose(body, X0)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    np.testing.assert_allclose(plant.GetFreeBodyPose(context, body).GetAsMatrix4(), X0.GetAsMatrix4(), atol=1e-14)
    X1 = RigidTransform(RollPitchYaw(-0.4, 0.5, 0.1), [0.0, 0.0, 1.0])
    plant.SetFreeBodyPose(context, body, X1)
    np.testing.assert_allclose(plant.EvalBodyPoseInWorld(context, body).GetAsMatrix4(), X1.GetAsMatrix4(), atol=1e-14)
    V = SpatialVelocity(np.array([0.1, 0.2, 0.3]), np.array([1.0, -1.0, 0.5]))
    plant.SetFreeBodySpatialVelocity(context, body, V)
    np.testing.assert_allclose(plant.EvalBodySpatialVelocityInWorld(context, body).get_coeffs(), V.get_coeffs())
    # free fall: v̇ = [0; g]
    vdot = plant.get_generalized_acceleration_output_port().Eval(context)
    np.testing.assert_allclose(vdot[3:], [0, 0, -9.81], atol=1e-12)
    A = plant.EvalBodySpatialAccelerationInWorld(context, body)
    np.testing.assert_allclose(A.translational(), [0, 0, -9.81], atol=1e-12)


def test_selector_matrices_and_array_helpers():
    plant, robots, free = _two_instance_plant()
    Sx = plant.MakeStateSelectorMatrix([JointIndex(1)])
    x = np.arange(17.0)
    assert (Sx @ x).tolist() == [robots[1][2].position_start(), 9 + robots[1][2].velocity_start()]
    Su = plant.MakeActuatorSelectorMatrix([JointActuatorIndex(1)])
    assert (Su @ [5.0]).tolist() == [0.0, 5.0]
    Sj = plant.MakeActuatorSelectorMatrix([JointIndex(0)])
    assert (Sj @ [5.0]).tolist() == [5.0, 0.0]
    with pytest.raises(ValueError, match="repeated"):
        plant.MakeStateSelectorMatrix([JointIndex(0), JointIndex(0)])
    q = np.zeros(9)
    plant.SetPositionsInArray(robots[0][0], [0.25], q)
    assert plant.GetPositionsFromArray(robots[0][0], q).tolist() == [0.25]


def test_force_contributor_hook_adds_forces_to_both_modalities():
    for time_step in (0.0, 1e-3):
        plant, robots, free = _two_instance_plant(time_step)
        context = plant.CreateDefaultContext()
        plant.get_actuation_input_port().FixValue(context, np.zeros(2))
        b = int(free.index())

        def lift(plant_, context_, kin, F_Bo_W, tau):
            F_Bo_W[b, 5] += 2.0 * 9.81  # holds the 2 kg box up

        plant._RegisterForceContributor(lift)
        if time_step == 0:
            vdot = plant.EvalTimeDerivatives(context).CopyToVector()[9:]
        else:
            from mallard.systems.analysis import Simulator
            Simulator(plant, context).AdvanceTo(0.01)
            vdot = plant.get_generalized_acceleration_output_port().Eval(context)
        np.testing.assert_allclose(vdot[2:8], 0.0, atol=1e-12)
        contact = plant.get_generalized_contact_forces_output_port(plant.GetModelInstanceByName("DefaultModelInstance"))
        np.testing.assert_allclose(contact.Eval(context)[-1], 2.0 * 9.81)


def test_topology_introspection():
    spec = tw.branched_tree()
    plant, bodies, joints = tw.build(tw.engine_mallard(), spec)
    dot = plant.GetTopologyGraphvizString()
    assert dot.startswith("digraph MultibodyPlant {") and '[label="uniA [universal]"]' in dot
    welded = {b.name() for b in plant.GetBodiesWeldedTo(bodies["tool"])}
    assert welded == {"tool", "armB2"}
    assert not plant.IsAnchored(bodies["tool"])
    assert plant.IsAnchored(plant.world_body())
    assert plant.GetBodyByName("armA1").index() == BodyIndex(2)


def test_reaction_forces_match_drake():
    require_pydrake()
    spec = tw.serial_arm()
    pm = tw.build(tw.engine_mallard(), spec)[0]
    pd = tw.build(tw.engine_drake(), spec)[0]
    cm, cd = pm.CreateDefaultContext(), pd.CreateDefaultContext()
    x = np.random.default_rng(5).uniform(-1, 1, 14)
    for p, c in ((pm, cm), (pd, cd)):
        p.SetPositionsAndVelocities(c, x)
        p.get_actuation_input_port().FixValue(c, np.linspace(-1, 1, 7))
    Fm = pm.get_reaction_forces_output_port().Eval(cm)
    Fd = pd.get_reaction_forces_output_port().Eval(cd)
    for a, b in zip(Fm, Fd):
        np.testing.assert_allclose(a.get_coeffs(), b.get_coeffs(), atol=1e-9)


def test_random_state_uses_distributions_and_defaults():
    plant = MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    j = plant.AddJoint(RevoluteJoint("j", plant.world_frame(), a.body_frame(), [0, 0, 1]))
    ball = plant.AddRigidBody("ball", SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    j.set_random_angle_distribution(lambda g: g.uniform(2.0, 3.0))
    plant.Finalize()
    plant.SetFreeBodyRandomRotationDistributionToUniform(ball)
    plant.SetFreeBodyRandomPositionDistribution(ball, lambda g: g.normal(size=3) + [0, 0, 10.0])
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(20):
        plant.SetRandomContext(context, rng)
        samples.append(np.array(plant.GetPositions(context)))
    S = np.array(samples)
    assert np.all((S[:, 0] >= 2.0) & (S[:, 0] <= 3.0)) and np.ptp(S[:, 0]) > 0.1
    np.testing.assert_allclose(np.linalg.norm(S[:, 1:5], axis=1), 1.0)
    assert abs(S[:, 7].mean() - 10.0) < 1.0
    np.testing.assert_array_equal(plant.GetVelocities(context), 0.0)


def test_continuous_plant_warns_about_joint_limits_and_implicit_residual_is_zero():
    plant = MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    plant.AddJoint(RevoluteJoint("limited", plant.world_frame(), a.body_frame(), [0, 1, 0], -1.0, 1.0, 0.1))
    with pytest.warns(UserWarning, match="limited.*ignored"):
        plant.Finalize()
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, [0.3, -0.2])
    xdot = plant.EvalTimeDerivatives(context).CopyToVector()
    np.testing.assert_allclose(plant.CalcImplicitTimeDerivativesResidual(context, xdot), 0.0, atol=1e-12)


def test_discrete_constraint_solver_hook_sees_free_motion_and_sets_acceleration():
    plant, robots, free = _two_instance_plant(time_step=1e-2)
    context = plant.CreateDefaultContext()
    plant.get_actuation_input_port().FixValue(context, np.zeros(2))
    seen = {}

    def solver(plant_, context_, kin, M_hat, a_free, h):
        seen["a_free"], seen["M_hat"], seen["h"] = a_free, M_hat, h
        a = a_free.copy()
        a[-1] = 0.0  # a "contact" holding the box up
        return a

    free_step = plant._CalcDiscreteStep(context)
    plant._SetDiscreteConstraintSolver(solver)
    x_next = plant._CalcDiscreteStep(context)[0]
    np.testing.assert_allclose(seen["a_free"], free_step[1], atol=1e-12)
    np.testing.assert_allclose(seen["M_hat"], plant.CalcMassMatrix(context) + 1e-2 * np.diag(
        plant._model.damping), atol=1e-12)
    assert seen["h"] == 1e-2 and x_next[-1] == 0.0 and free_step[0][-1] == pytest.approx(-9.81e-2)
    with pytest.raises(RuntimeError, match="time_step > 0"):
        _two_instance_plant(0.0)[0]._SetDiscreteConstraintSolver(solver)


def test_sampled_discrete_outputs_have_no_direct_feedthrough():
    from mallard.systems.framework import DiagramBuilder, LeafSystem

    class Feedback(LeafSystem):
        def __init__(self, n):
            super().__init__()
            self.DeclareVectorInputPort("vdot", n)
            self.DeclareVectorOutputPort("u", n, lambda c, out: out.SetFromVector(-0.1 * self.get_input_port(0).Eval(c)))

    for time_step, loops in ((1e-3, False), (0.0, True)):
        builder = DiagramBuilder()
        plant = builder.AddSystem(tw.build(tw.engine_mallard(), tw.double_pendulum(), time_step)[0])
        fb = builder.AddSystem(Feedback(2))
        builder.Connect(plant.get_generalized_acceleration_output_port(), fb.get_input_port(0))
        builder.Connect(fb.get_output_port(0), plant.get_actuation_input_port())
        if loops:
            with pytest.raises(RuntimeError, match="algebraic loop"):
                builder.Build()
        else:
            diagram = builder.Build()
            from mallard.systems.analysis import Simulator
            sim = Simulator(diagram)
            sim.AdvanceTo(0.01)
            assert sim.get_num_unrestricted_updates() == 10


def test_name_getters_accept_the_bool_overload():
    from mallard.multibody.plant import MultibodyPlant
    from mallard.parsers import Parser
    from conftest import MODELS
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(str(MODELS / "drake_examples" / "Acrobot.urdf"))
    plant.Finalize()
    assert plant.GetPositionNames(False) == ["shoulder_q", "elbow_q"]
    assert plant.GetVelocityNames(False) == ["shoulder_w", "elbow_w"]
    assert plant.GetActuatorNames(False) == ["elbow"]
    assert plant.GetStateNames(False) == ["shoulder_q", "elbow_q", "shoulder_w", "elbow_w"]
    assert plant.GetPositionNames() == ["Acrobot_shoulder_q", "Acrobot_elbow_q"]


def test_continuous_plant_keeps_constraints_and_refuses_their_dynamics():
    """As pydrake: a continuous plant accepts constraints, then its dynamics raise naming the fix."""
    from mallard.multibody.tree import SpatialInertia
    plant = MultibodyPlant(0.0)
    M = SpatialInertia.SolidSphereWithMass(1.0, 0.1)
    a, b = plant.AddRigidBody("a", M), plant.AddRigidBody("b", M)
    plant.AddBallConstraint(a, np.zeros(3), b, np.zeros(3))
    plant.Finalize()
    assert plant.num_constraints() == 1
    with pytest.raises(RuntimeError, match=r"continuous time.*1 constraint\(s\) \(e.g. Ball\).*time_step > 0"):
        plant.EvalTimeDerivatives(plant.CreateDefaultContext())


@pytest.mark.parametrize("time_step", [0.0, 0.001])
def test_set_positions_invalidates_what_depends_on_the_state(time_step):
    """SetPositions(context, q) writes q in place and moves the state's version once: the kinematics, the mass matrix,
    the bias term and the state output computed before it are recomputed at the new q (equal to a fresh context's),
    whatever the array form of q (float64 vector, list, int array, column); a wrong size or a foreign context
    raises."""
    plant, robots, free = _two_instance_plant(time_step)
    context = plant.CreateDefaultContext()
    plant.SetVelocities(context, np.linspace(-1.0, 1.0, 8))
    q1 = np.array([0.3, -0.2, 1.0, 0.0, 0.0, 0.0, 0.1, 0.2, 0.3])
    q2 = np.array([-0.7, 0.4, np.cos(0.2), np.sin(0.2), 0.0, 0.0, 0.0, -0.1, 0.5])
    state_port = plant.get_state_output_port()
    for q_form in (q2, list(q2), q2.reshape(-1, 1)):
        plant.SetPositions(context, q1)
        before = (plant.CalcMassMatrix(context), plant.CalcBiasTerm(context), state_port.Eval(context).copy(),
                  plant.EvalBodyPoseInWorld(context, robots[0][1]).rotation().matrix())
        plant.SetPositions(context, q_form)
        fresh = plant.CreateDefaultContext()
        plant.SetPositions(fresh, q2)
        plant.SetVelocities(fresh, np.linspace(-1.0, 1.0, 8))
        np.testing.assert_array_equal(plant.GetPositions(context), q2)
        np.testing.assert_array_equal(plant.CalcMassMatrix(context), plant.CalcMassMatrix(fresh))
        np.testing.assert_array_equal(plant.CalcBiasTerm(context), plant.CalcBiasTerm(fresh))
        np.testing.assert_array_equal(state_port.Eval(context), state_port.Eval(fresh))
        np.testing.assert_array_equal(plant.EvalBodyPoseInWorld(context, robots[0][1]).rotation().matrix(),
                                      plant.EvalBodyPoseInWorld(fresh, robots[0][1]).rotation().matrix())
        assert not np.array_equal(before[0], plant.CalcMassMatrix(context))
        assert not np.array_equal(before[1], plant.CalcBiasTerm(context))
        assert not np.array_equal(before[2], state_port.Eval(context))
        assert not np.array_equal(before[3], plant.EvalBodyPoseInWorld(context, robots[0][1]).rotation().matrix())
    plant.SetPositions(context, np.array([0, 1, 1, 0, 0, 0, 0, 0, 0]))  # an int array
    np.testing.assert_array_equal(plant.GetPositions(context), [0, 1, 1, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="9 entries"):
        plant.SetPositions(context, np.zeros(8))
    other, _, _ = _two_instance_plant(time_step)
    with pytest.raises(RuntimeError, match="belongs to"):
        plant.SetPositions(other.CreateDefaultContext(), q2)


def test_actuators_sharing_a_joint_add_up_in_actuator_order():
    """Two actuators on one joint both drive it: the continuous derivatives equal those of their sum applied as a
    generalized force, and the model adds them with np.add.at's bits (one after the other, in actuator order)
    whether or not actuators share a dof."""
    plant = MultibodyPlant(0.0)
    joints = []
    for k in range(2):
        link = plant.AddRigidBody(f"link{k}", SpatialInertia.SolidBoxWithMass(1.0 + k, 0.1, 0.1, 0.5))
        joints.append(plant.AddJoint(RevoluteJoint(f"hinge{k}", plant.world_frame(), link.body_frame(), [0, 1, 0])))
    for name, j in (("a", joints[0]), ("b", joints[1]), ("c", joints[0])):
        plant.AddJointActuator(name, j)
    plant.Finalize()
    m = plant._model
    assert not m.actuator_dofs_distinct and m.actuator_dofs.tolist() == [0, 1, 0]
    u = np.array([0.3, -1.7, 2.9])
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, [0.4, -0.2, 0.5, 1.0])
    plant.get_actuation_input_port().FixValue(context, u)
    xdot = plant.EvalTimeDerivatives(context).CopyToVector()
    reference = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(reference, [0.4, -0.2, 0.5, 1.0])
    plant.get_actuation_input_port().FixValue(reference, np.zeros(3))
    plant.get_applied_generalized_force_input_port().FixValue(reference, [u[0] + u[2], u[1]])
    np.testing.assert_allclose(xdot, plant.EvalTimeDerivatives(reference).CopyToVector(), rtol=1e-14, atol=1e-14)
    rng = np.random.default_rng(3)
    for dofs in ([0, 1, 0], [1, 0]):
        model = dataclasses.replace(m, actuator_dofs=np.array(dofs), nu=len(dofs))
        tau, u = rng.normal(size=2), rng.normal(size=len(dofs))
        expected = tau.copy()
        np.add.at(expected, model.actuator_dofs, u)
        model.AddActuation(tau, u)
        assert tau.tobytes() == expected.tobytes() and model.actuator_dofs_distinct == (len(dofs) == 2)


def test_continuous_derivatives_call_no_ufunc_at():
    """The continuous plant's derivatives (actuation and both applied-force ports included) call no ufunc.at:
    numpy releases the GIL in it, and in a Dask worker every release hands the GIL to the worker's waiting event
    loop (thousands of context switches a second during an iiwa Monte Carlo, a tenth of the other worker's core)."""
    plant, robots, free = _two_instance_plant()
    context = plant.CreateDefaultContext()
    f = _fix_applied_forces(plant, robots, context)
    plant.get_actuation_input_port().FixValue(context, [1.0, -2.0])
    ufunc_methods = []

    def profile(frame, event, arg):
        if event == "c_call" and isinstance(getattr(arg, "__self__", None), np.ufunc):
            ufunc_methods.append(f"np.{arg.__self__.__name__}.{arg.__name__}")

    sys.setprofile(profile)
    try:
        xdot = plant.EvalTimeDerivatives(context).CopyToVector()
    finally:
        sys.setprofile(None)
    assert np.all(np.isfinite(xdot)) and np.any(xdot != 0.0)
    assert not [name for name in ufunc_methods if name.endswith(".at")], ufunc_methods
