"""MultibodyPlant / tree API added for the pydrake word swap, checked value for value against pydrake: writable
copies from getters, frame kinematics in moving frames, mass properties, element removal, force elements,
propellers and wings."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_pydrake

import mallard.math as mm
import mallard.multibody.plant as mp
import mallard.multibody.tree as mt
from mallard.multibody.parsing import Parser
from mallard.multibody.math import SpatialVelocity
from mallard.systems.framework import DiagramBuilder

URDF = """<robot name='arm'>
  <link name='base'><inertial><mass value='2'/><origin xyz='0 0 0.1'/>
    <inertia ixx='0.1' iyy='0.2' izz='0.3' ixy='0' ixz='0' iyz='0'/></inertial></link>
  <link name='upper'><inertial><mass value='1'/><origin xyz='0.1 0.05 0.2' rpy='0.1 0.2 0.3'/>
    <inertia ixx='0.02' iyy='0.03' izz='0.04' ixy='0.001' ixz='0' iyz='0'/></inertial></link>
  <link name='lower'><inertial><mass value='0.5'/><origin xyz='0 0.1 0.3'/>
    <inertia ixx='0.01' iyy='0.01' izz='0.02' ixy='0' ixz='0' iyz='0'/></inertial></link>
  <joint name='shoulder' type='revolute'><parent link='base'/><child link='upper'/>
    <origin xyz='0 0 0.2' rpy='0 0.3 0'/><axis xyz='0 1 0'/><limit lower='-2' upper='2' effort='5' velocity='3'/>
  </joint>
  <joint name='elbow' type='revolute'><parent link='upper'/><child link='lower'/>
    <origin xyz='0.05 0 0.4'/><axis xyz='1 0 0'/><limit lower='-2' upper='2' effort='3' velocity='3'/></joint>
  <transmission type='SimpleTransmission' name='t'><actuator name='elbow_motor'/><joint name='elbow'/>
    <mechanicalReduction>1</mechanicalReduction></transmission>
</robot>"""

Q = np.array([0.9, 0.1, -0.2, 0.3, 0.4, 0.5, -0.3, 0.2, 0.7])
V = np.array([0.3, -0.2, 0.5, 0.1, 0.2, -0.4, 0.6, -0.5])


@pytest.fixture(scope="module")
def pd():
    require_pydrake()
    import pydrake.math as dm
    import pydrake.multibody.parsing as dpar
    import pydrake.multibody.plant as dp
    import pydrake.multibody.tree as dt
    return dm, dpar, dp, dt


def _plants(pd, time_step=0.0):
    dm, dpar, dp, dt = pd
    out = []
    for parser, plant_module in ((Parser, mp), (dpar.Parser, dp)):
        plant = plant_module.MultibodyPlant(time_step)
        parser(plant).AddModelsFromString(URDF, "urdf")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*joint limits.*ignored by a continuous plant")
            plant.Finalize()
        context = plant.CreateDefaultContext()
        q = Q / np.linalg.norm(Q[:4]) * 1.0
        q[:4] = Q[:4] / np.linalg.norm(Q[:4])
        q[4:] = Q[4:]
        plant.SetPositions(context, q)
        plant.SetVelocities(context, V)
        plant.get_actuation_input_port().FixValue(context, [0.4])
        out.append((plant, context))
    return out


def test_getters_return_what_pydrake_returns_and_copies_are_writable(pd):
    (plant, ctx), (dplant, dctx) = _plants(pd)
    for name in ("GetPositions", "GetVelocities", "GetPositionsAndVelocities"):
        ours, theirs = getattr(plant, name)(ctx), getattr(dplant, name)(dctx)
        np.testing.assert_allclose(ours, theirs, atol=1e-15)
        assert ours.flags.writeable and theirs.flags.writeable  # pydrake returns copies: so does mallard
        before = ours.copy()
        ours[0] += 1.0  # writing the copy leaves the context alone, as in pydrake
        np.testing.assert_array_equal(getattr(plant, name)(ctx), before)
    for name in ("GetDefaultPositions", "GetPositionLowerLimits", "GetPositionUpperLimits", "GetVelocityLowerLimits",
                 "GetEffortLowerLimits", "GetEffortUpperLimits", "MakeActuationMatrix"):
        ours, theirs = getattr(plant, name)(), getattr(dplant, name)()
        np.testing.assert_array_equal(ours, theirs)
        assert ours.flags.writeable or not theirs.flags.writeable, name  # a pydrake copy is a writable copy here
    for name in ("CalcMassMatrix", "CalcBiasTerm", "CalcGravityGeneralizedForces"):
        ours, theirs = getattr(plant, name)(ctx), getattr(dplant, name)(dctx)
        np.testing.assert_allclose(ours, theirs, atol=1e-12)
        assert ours.flags.writeable or not theirs.flags.writeable, name
    joint, djoint = plant.GetJointByName("shoulder"), dplant.GetJointByName("shoulder")
    for name in ("position_lower_limits", "velocity_upper_limits", "default_damping_vector", "default_positions"):
        assert getattr(joint, name)().flags.writeable or not getattr(djoint, name)().flags.writeable, name
    assert plant.GetPositionNames(add_model_instance_prefix=False, always_add_suffix=False) == \
        dplant.GetPositionNames(add_model_instance_prefix=False, always_add_suffix=False)
    assert plant.GetStateNames(add_model_instance_prefix=False) == dplant.GetStateNames(add_model_instance_prefix=False)


def test_frame_kinematics_in_moving_frames_match_pydrake(pd):
    dm, _, _, dt = pd
    (plant, ctx), (dplant, dctx) = _plants(pd)
    frames = [plant.GetFrameByName(n) for n in ("base", "upper", "lower")]
    dframes = [dplant.GetFrameByName(n) for n in ("base", "upper", "lower")]
    for (A, dA) in zip(frames, dframes):
        for (M, dM) in zip(frames, dframes):
            for (E, dE) in zip(frames[::-1], dframes[::-1]):
                np.testing.assert_allclose(A.CalcSpatialAcceleration(ctx, M, E).get_coeffs(),
                                           dA.CalcSpatialAcceleration(dctx, dM, dE).get_coeffs(), atol=1e-10)
                np.testing.assert_allclose(A.CalcRelativeSpatialVelocity(ctx, M, E, M).get_coeffs(),
                                           dA.CalcRelativeSpatialVelocity(dctx, dM, dE, dM).get_coeffs(), atol=1e-12)
                np.testing.assert_allclose(A.CalcAngularVelocity(ctx, M, E), dA.CalcAngularVelocity(dctx, dM, dE),
                                           atol=1e-12)
                P = np.array([[0.1, 0.2, 0.3], [-0.4, 0.0, 0.5]]).T
                np.testing.assert_allclose(plant.CalcPointsVelocities(ctx, A, P, M, E),
                                           dplant.CalcPointsVelocities(dctx, dA, P, dM, dE), atol=1e-12)
        np.testing.assert_allclose(A.CalcRelativeSpatialAccelerationInWorld(ctx, frames[2]).get_coeffs(),
                                   dA.CalcRelativeSpatialAccelerationInWorld(dctx, dframes[2]).get_coeffs(), atol=1e-10)
    lower, dlower = plant.GetBodyByName("lower"), dplant.GetBodyByName("lower")
    np.testing.assert_allclose(lower.CalcCenterOfMassTranslationalVelocityInWorld(ctx),
                               dlower.CalcCenterOfMassTranslationalVelocityInWorld(dctx), atol=1e-12)
    np.testing.assert_allclose(lower.CalcCenterOfMassTranslationalAccelerationInWorld(ctx),
                               dlower.CalcCenterOfMassTranslationalAccelerationInWorld(dctx), atol=1e-10)
    np.testing.assert_allclose(plant.CalcCenterOfMassTranslationalAccelerationInWorld(ctx),
                               dplant.CalcCenterOfMassTranslationalAccelerationInWorld(dctx), atol=1e-10)
    bodies = [plant.GetBodyByName(n).index() for n in ("upper", "lower")]
    dbodies = [dplant.GetBodyByName(n).index() for n in ("upper", "lower")]
    np.testing.assert_allclose(plant.CalcSpatialInertia(ctx, frames[1], bodies).CopyToFullMatrix6(),
                               dplant.CalcSpatialInertia(dctx, dframes[1], dbodies).CopyToFullMatrix6(), atol=1e-12)
    shoulder = [plant.GetJointByName("shoulder").index()]
    assert [int(b) for b in plant.GetBodiesKinematicallyAffectedBy(shoulder)] == \
        [int(b) for b in dplant.GetBodiesKinematicallyAffectedBy([dplant.GetJointByName("shoulder").index()])]


def test_fixed_offset_frame_pose_is_a_context_parameter_as_in_pydrake(pd):
    dm, _, dp, dt = pd
    results = []
    for plant_module, tree, math in ((mp, mt, mm), (dp, dt, dm)):
        plant = plant_module.MultibodyPlant(0.0)
        body = plant.AddRigidBody("b", tree.SpatialInertia.SolidBoxWithMass(1, 1, 1, 1))
        F = plant.AddFrame(tree.FixedOffsetFrame("F", body.body_frame(), math.RigidTransform([0, 0, 1])))
        G = plant.AddFrame(tree.FixedOffsetFrame("G", F, math.RigidTransform([1, 0, 0])))
        plant.Finalize()
        ctx, other = plant.CreateDefaultContext(), plant.CreateDefaultContext()
        F.SetPoseInParentFrame(ctx, math.RigidTransform(math.RollPitchYaw(0.3, 0, 0), [0, 2, 0]))
        results.append([G.CalcPoseInWorld(ctx).GetAsMatrix4(), G.CalcPoseInWorld(other).GetAsMatrix4(),
                        F.GetPoseInParentFrame(ctx).GetAsMatrix4(), G.CalcPoseInBodyFrame(ctx).GetAsMatrix4()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, atol=1e-14)


def test_removed_joints_and_actuators_keep_pydrake_indices(pd):
    dm, _, dp, dt = pd
    out = []
    for plant_module, tree in ((mp, mt), (dp, dt)):
        plant = plant_module.MultibodyPlant(0.0)
        a = plant.AddRigidBody("a", tree.SpatialInertia.SolidBoxWithMass(1, 1, 1, 1))
        b = plant.AddRigidBody("b", tree.SpatialInertia.SolidBoxWithMass(1, 1, 1, 1))
        j0 = plant.AddJoint(tree.RevoluteJoint("j0", plant.world_frame(), a.body_frame(), [0, 0, 1]))
        j1 = plant.AddJoint(tree.PrismaticJoint("j1", a.body_frame(), b.body_frame(), [1, 0, 0]))
        u0 = plant.AddJointActuator("u0", j0)
        u1 = plant.AddJointActuator("u1", j1)
        plant.RemoveJointActuator(u0)
        plant.RemoveJoint(j0)
        plant.Finalize()
        out.append(([int(i) for i in plant.GetJointIndices()], [int(i) for i in plant.GetJointActuatorIndices()],
                    plant.has_joint(j1.index()), plant.has_joint_actuator(tree.JointActuatorIndex(0)), u1.input_start(),
                    plant.num_positions(), plant.GetPositionNames()))
    assert out[0] == out[1]


def test_door_hinge_and_springs_match_pydrake(pd):
    dm, _, dp, dt = pd
    out = []
    for plant_module, tree in ((mp, mt), (dp, dt)):
        plant = plant_module.MultibodyPlant(0.0)
        a = plant.AddRigidBody("a", tree.SpatialInertia.SolidBoxWithMass(1, 1, 1, 1))
        j = plant.AddJoint(tree.RevoluteJoint("j", plant.world_frame(), a.body_frame(), [0, 0, 1]))
        config = tree.DoorHingeConfig()
        config.catch_width, config.motion_threshold = 0.05, 0.002
        hinge = plant.AddForceElement(tree.DoorHinge(j, config))
        spring = plant.AddForceElement(tree.RevoluteSpring(j, 0.2, 3.0))
        plant.Finalize()
        ctx = plant.CreateDefaultContext()
        spring.SetStiffness(ctx, 5.0)
        j.set_angle(ctx, 0.04)
        j.set_angular_rate(ctx, 0.3)
        forces = tree.MultibodyForces(plant)
        plant.CalcForceElementsContribution(ctx, forces)
        out.append([hinge.CalcHingeTorque(0.01, 0.001), hinge.CalcHingeFrictionalTorque(0.003),
                    hinge.CalcHingeSpringTorque(0.02), plant.CalcPotentialEnergy(ctx),
                    plant.CalcConservativePower(ctx), plant.CalcNonConservativePower(ctx),
                    *forces.generalized_forces(), spring.GetStiffness(ctx), spring.default_stiffness()])
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12, atol=1e-14)


def _propeller_and_wing(pd, drake: bool):
    dm, dpar, dp, _ = pd
    framework = __import__("pydrake.systems.framework" if drake else "mallard.systems.framework", fromlist=["x"])
    plant_module, parser, math = (dp, dpar.Parser, dm) if drake else (mp, Parser, mm)
    builder = framework.DiagramBuilder()
    plant = builder.AddSystem(plant_module.MultibodyPlant(0.0))
    parser(plant).AddModelsFromString(URDF, "urdf")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*joint limits.*ignored by a continuous plant")
        plant.Finalize()
    body = plant.GetBodyByName("lower").index()
    X = math.RigidTransform(math.RollPitchYaw(0.2, -0.1, 0.4), [0.1, 0.0, 0.2])
    prop = builder.AddSystem(plant_module.Propeller([plant_module.PropellerInfo(body, X, 2.0, 0.3),
                                                     plant_module.PropellerInfo(body, math.RigidTransform(), 1.0, 0.1)]))
    wing = plant_module.Wing.AddToBuilder(builder, plant, body, 0.7, X, 1.3)
    mux = builder.AddSystem(plant_module.ExternallyAppliedSpatialForceMultiplexer(2))
    builder.Connect(plant.get_body_poses_output_port(), prop.get_body_poses_input_port())
    builder.ExportInput(prop.get_command_input_port(), "command")
    builder.ExportInput(mux.get_input_port(0), "u0")
    builder.ExportInput(mux.get_input_port(1), "u1")
    diagram = builder.Build()
    ctx = diagram.CreateDefaultContext()
    pctx = plant.GetMyContextFromRoot(ctx) if hasattr(plant, "GetMyContextFromRoot") else \
        diagram.GetSubsystemContext(plant, ctx)
    q = Q.copy()
    q[:4] /= np.linalg.norm(q[:4])
    plant.SetPositions(pctx, q)
    plant.SetVelocities(pctx, V)
    diagram.get_input_port(0).FixValue(ctx, [1.5, -0.5])
    sctx, wctx = diagram.GetSubsystemContext(prop, ctx), diagram.GetSubsystemContext(wing, ctx)
    forces = prop.get_spatial_forces_output_port().Eval(sctx) + wing.get_spatial_force_output_port().Eval(wctx)
    return [np.concatenate([[int(f.body_index)], f.p_BoBq_B, f.F_Bq_W.get_coeffs()]) for f in forces] + \
        [wing.get_aerodynamic_center_output_port().Eval(wctx)]


def test_propeller_and_wing_forces_match_pydrake(pd):
    ours, theirs = _propeller_and_wing(pd, False), _propeller_and_wing(pd, True)
    assert len(ours) == len(theirs) == 4
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_distance_constraint_parameters_per_context(pd):
    plant = mp.MultibodyPlant(0.01)
    a = plant.AddRigidBody("a", mt.SpatialInertia.SolidBoxWithMass(1, 1, 1, 1))
    b = plant.AddRigidBody("b", mt.SpatialInertia.SolidBoxWithMass(1, 1, 1, 1))
    cid = plant.AddDistanceConstraint(a, [0, 0, 0], b, [0, 0, 0], 0.5)
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    params = mp.DistanceConstraintParams(a.index(), [0, 0, 0], b.index(), [0, 0, 0], 0.7, 1e5, 2.0)
    plant.SetDistanceConstraintParams(ctx, cid, params)
    assert plant.GetDistanceConstraintParams(ctx, cid).distance() == 0.7
    assert plant.GetDefaultDistanceConstraintParams()[cid].distance() == 0.5
    assert plant.GetDistanceConstraintParams(plant.CreateDefaultContext(), cid).distance() == 0.5
    assert plant.GetConstraintIds() == [cid]
    # mallard's solver cannot honor per-context constraint parameters yet: simulating says so instead of ignoring them.
    with pytest.raises(RuntimeError, match="cannot honor per-Context"):
        plant.CalcMassMatrix(ctx)


def test_strict_hydroelastic_contact_is_refused_not_replaced():
    """A continuous plant with ContactModel.kHydroelastic whose penetrating pair has no hydroelastic representation
    fails when its dynamics are evaluated (as Drake's ComputeContactSurfaces) instead of silently using point
    contact."""
    from mallard.geometry import HalfSpace, Sphere
    builder = DiagramBuilder()
    plant, _ = mp.AddMultibodyPlantSceneGraph(builder, 0.0)
    body = plant.AddRigidBody("ball", mt.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.RegisterCollisionGeometry(body, mm.RigidTransform(), Sphere(0.1), "ball", mp.CoulombFriction(1.0, 1.0))
    plant.RegisterCollisionGeometry(plant.world_body(), mm.RigidTransform(), HalfSpace(), "ground",
                                    mp.CoulombFriction(1.0, 1.0))
    plant.set_contact_model(mp.ContactModel.kHydroelastic)
    assert plant.get_contact_model() == mp.ContactModel.kHydroelastic
    plant.Finalize()
    diagram = builder.Build()
    ctx = diagram.CreateDefaultContext()
    plant.SetFreeBodyPose(plant.GetMyContextFromRoot(ctx), body, mm.RigidTransform([0, 0, 0.09]))
    with pytest.raises(RuntimeError, match="requested a contact surface between 'ball'"):
        diagram.EvalTimeDerivatives(ctx)
    results = mp.ContactResults()
    assert results.SelectHydroelastic(lambda info: True).num_point_pair_contacts() == 0
    with pytest.raises(IndexError, match="0 hydroelastic contacts"):
        results.hydroelastic_contact_info(0)


def test_add_multibody_plant_takes_pydrakes_three_argument_form(pd):
    config = mp.MultibodyPlantConfig(time_step=0.01)
    for call in (lambda b: mp.AddMultibodyPlant(config, b), lambda b: mp.AddMultibodyPlant(config=config, builder=b),
                 lambda b: mp.AddMultibodyPlant(plant_config=config, scene_graph_config=None, builder=b)):
        plant, scene_graph = call(DiagramBuilder())
        assert plant.time_step() == 0.01 and scene_graph is not None
    plant = mp.MultibodyPlant(0.0)
    result = mp.AddMultibodyPlantSceneGraph(DiagramBuilder(), plant=plant)
    assert result.plant is plant


def test_ports_have_pydrakes_names_and_indices(pd):
    """Port i of a finalized plant is pydrake's port i (inputs and outputs, per-instance ports included)."""
    dm, dpar, dp, dt = pd
    names = []
    for parser, plant_module, tree in ((Parser, mp, mt), (dpar.Parser, dp, dt)):
        plant = plant_module.MultibodyPlant(0.01)
        parser(plant).AddModelsFromString(URDF, "urdf")
        plant.Finalize()
        instances = [tree.ModelInstanceIndex(i) for i in range(plant.num_model_instances())]
        names.append(([plant.get_input_port(i).get_name() for i in range(plant.num_input_ports())],
                      [plant.get_output_port(i).get_name() for i in range(plant.num_output_ports())],
                      [plant.get_desired_state_input_port(i).size() for i in instances]))
        context = plant.CreateDefaultContext()
        assert plant.get_deformable_body_configuration_output_port().Eval(context).size() == 0
    assert names[0] == names[1]
