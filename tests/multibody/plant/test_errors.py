"""Bad input raises clear built-in exceptions naming the element and what to do."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree import (JacobianWrtVariable, MultibodyForces, PrismaticJoint, RevoluteJoint,
                                    SpatialInertia, UnitInertia, WeldJoint)


def _box(m=1.0):
    return SpatialInertia.SolidBoxWithMass(m, 0.1, 0.2, 0.3)


def test_negative_time_step():
    with pytest.raises(ValueError, match="time_step"):
        MultibodyPlant(-1e-3)


def test_builder_calls_after_finalize_raise():
    plant = MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", _box())
    plant.Finalize()
    with pytest.raises(RuntimeError, match="AddRigidBody.*after Finalize"):
        plant.AddRigidBody("c", _box())
    with pytest.raises(RuntimeError, match="AddJoint"):
        plant.AddJoint(RevoluteJoint("j", plant.world_frame(), body.body_frame(), [0, 0, 1]))
    with pytest.raises(RuntimeError, match="Finalize"):
        plant.Finalize()
    with pytest.raises(RuntimeError, match="AddModelInstance"):
        plant.AddModelInstance("late")


def test_queries_before_finalize_raise():
    plant = MultibodyPlant(0.0)
    plant.AddRigidBody("b", _box())
    for call in (plant.num_positions, plant.get_state_output_port, plant.get_actuation_input_port,
                 plant.GetPositionLowerLimits, plant.MakeActuationMatrix, plant.GetFloatingBaseBodies):
        with pytest.raises(RuntimeError, match="Finalize"):
            call()
    with pytest.raises(RuntimeError, match="Finalize"):
        plant.CreateDefaultContext()


def test_non_physical_inertia_raises():
    with pytest.raises(ValueError):
        SpatialInertia(-1.0, np.zeros(3), UnitInertia(1, 1, 1))
    bad = SpatialInertia(1.0, np.zeros(3), UnitInertia(1.0, 1.0, 5.0), skip_validity_check=True)
    with pytest.raises(ValueError, match="body 'bad'.*not physically valid"):
        MultibodyPlant(0.0).AddRigidBody("bad", bad)


def test_duplicate_names_raise():
    plant = MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", _box())
    with pytest.raises(ValueError, match="body named 'a' already exists"):
        plant.AddRigidBody("a", _box())
    plant.AddJoint(RevoluteJoint("j", plant.world_frame(), a.body_frame(), [0, 0, 1]))
    b = plant.AddRigidBody("b", _box())
    with pytest.raises(ValueError, match="joint named 'j' already exists"):
        plant.AddJoint(RevoluteJoint("j", a.body_frame(), b.body_frame(), [0, 0, 1]))
    plant.AddJointActuator("m", plant.GetJointByName("j"))
    with pytest.raises(ValueError, match="actuator named 'm'"):
        plant.AddJointActuator("m", plant.GetJointByName("j"))
    with pytest.raises(ValueError, match="model instance 'DefaultModelInstance' already exists"):
        plant.AddModelInstance("DefaultModelInstance")


def test_topology_errors_name_bodies():
    """A second joint whose child already has a parent is accepted at AddJoint, as in Drake (welding World to such a
    link re-roots the tree: test_reroot_oracle); closing a loop, through World too, fails at Finalize naming it."""
    plant = MultibodyPlant(0.0)
    a, b, c = (plant.AddRigidBody(n, _box()) for n in "abc")
    plant.AddJoint(RevoluteJoint("ja", plant.world_frame(), a.body_frame(), [0, 0, 1]))
    plant.AddJoint(RevoluteJoint("jb", a.body_frame(), b.body_frame(), [0, 0, 1]))
    plant.AddJoint(RevoluteJoint("jc", b.body_frame(), c.body_frame(), [0, 0, 1]))
    plant.AddJoint(WeldJoint("w", c.body_frame(), plant.world_frame(), RigidTransform()))
    with pytest.raises(ValueError, match="joint 'w' closes a kinematic loop through bodies .*AddBallConstraint"):
        plant.Finalize()


def test_kinematic_loop_detected_at_finalize():
    from mallard.multibody.tree.topology import check_topology
    plant = MultibodyPlant(0.0)
    a, b = plant.AddRigidBody("a", _box()), plant.AddRigidBody("b", _box())
    j1 = RevoluteJoint("j1", a.body_frame(), b.body_frame(), [0, 0, 1])
    j2 = RevoluteJoint("j2", b.body_frame(), a.body_frame(), [0, 0, 1])
    plant.AddJoint(j1)
    plant.AddJoint(j2)
    with pytest.raises(ValueError, match="closes a kinematic loop through bodies .*a.*b.*loop-closing constraint"):
        plant.Finalize()
    with pytest.raises(ValueError, match="kinematic loop"):
        check_topology(plant._bodies, plant._joints)


def test_wrong_sizes_and_unknown_instances():
    plant = tw.build(tw.engine_mallard(), tw.double_pendulum())[0]
    context = plant.CreateDefaultContext()
    with pytest.raises(ValueError, match="2 entries"):
        plant.SetPositions(context, np.zeros(3))
    with pytest.raises(ValueError, match="4 entries"):
        plant.SetPositionsAndVelocities(context, np.zeros(5))
    with pytest.raises(ValueError, match="known_vdot must have 2 entries"):
        plant.CalcInverseDynamics(context, np.zeros(3), MultibodyForces(plant))
    with pytest.raises(ValueError, match="model instance 7 does not exist.*DefaultModelInstance"):
        plant.GetPositions(context, 7)
    with pytest.raises(ValueError, match="model instance 9 does not exist"):
        plant.get_state_output_port(9)
    with pytest.raises(KeyError, match="no body named 'nope'.*valid names"):
        plant.GetBodyByName("nope")
    with pytest.raises(ValueError, match="3 × n"):
        plant.CalcPointsPositions(context, plant.world_frame(), np.zeros((2, 2)), plant.world_frame())
    with pytest.raises(ValueError, match="JacobianWrtVariable"):
        plant.CalcJacobianSpatialVelocity(context, "kV", plant.world_frame(), np.zeros(3), plant.world_frame(),
                                          plant.world_frame())
    with pytest.raises(RuntimeError, match="frame_A must be the world frame"):
        upper = plant.GetBodyByName("upper").body_frame()
        plant.CalcBiasSpatialAcceleration(context, JacobianWrtVariable.kV, upper, np.zeros(3), upper, upper)


def test_actuation_inputs_as_drake():
    """Drake 1.51: unconnected actuation ports are zero, the whole-plant and per-instance ports add up, NaN raises."""
    plant = tw.build(tw.engine_mallard(), tw.double_pendulum())[0]
    context = plant.CreateDefaultContext()
    free = plant.EvalTimeDerivatives(context).CopyToVector()
    plant.get_actuation_input_port().FixValue(context, np.array([np.nan, 0.0]))
    with pytest.raises(RuntimeError, match="NaN in the actuation input"):
        plant.EvalTimeDerivatives(context)
    plant.get_actuation_input_port().FixValue(context, np.array([0.5, -0.2]))
    plant.get_actuation_input_port(plant.GetModelInstanceByName("DefaultModelInstance")).FixValue(
        context, np.array([0.25, 0.1]))
    both = plant.EvalTimeDerivatives(context).CopyToVector()
    np.testing.assert_array_equal(plant.get_net_actuation_output_port().Eval(context), [0.75, -0.1])
    other = plant.CreateDefaultContext()
    plant.get_actuation_input_port().FixValue(other, np.array([0.75, -0.1]))
    np.testing.assert_allclose(both, plant.EvalTimeDerivatives(other).CopyToVector(), rtol=1e-14, atol=1e-14)
    assert np.abs(both - free).max() > 1e-3


def test_joint_and_actuator_argument_errors():
    plant = MultibodyPlant(0.0)
    a = plant.AddRigidBody("a", _box())
    with pytest.raises(ValueError, match="axis must be non-zero"):
        RevoluteJoint("r", plant.world_frame(), a.body_frame(), [0, 0, 0])
    with pytest.raises(ValueError, match="same body"):
        PrismaticJoint("p", a.body_frame(), a.body_frame(), [1, 0, 0])
    with pytest.raises(ValueError, match="lower limit exceeds"):
        PrismaticJoint("p", plant.world_frame(), a.body_frame(), [1, 0, 0], 1.0, -1.0)
    j = plant.AddJoint(PrismaticJoint("p", plant.world_frame(), a.body_frame(), [1, 0, 0]))
    with pytest.raises(ValueError, match="effort_limit must be strictly positive"):
        plant.AddJointActuator("m", j, effort_limit=0.0)
    with pytest.raises(RuntimeError, match="already has a UniformGravityFieldElement"):
        from mallard.multibody.tree import UniformGravityFieldElement
        plant.AddForceElement(UniformGravityFieldElement())


def test_free_body_errors_and_context_from_other_plant():
    plant = tw.build(tw.engine_mallard(), tw.double_pendulum())[0]
    other = tw.build(tw.engine_mallard(), tw.free_body())[0]
    context = plant.CreateDefaultContext()
    with pytest.raises(RuntimeError, match="not a free"):
        plant.GetFreeBodyPose(context, plant.GetBodyByName("upper"))
    with pytest.raises((RuntimeError, TypeError)):
        other.GetPositions(context)


def test_singular_mass_matrix_and_divergence_are_reported():
    plant = MultibodyPlant(0.0)
    body = plant.AddRigidBody("massless")
    plant.AddJoint(RevoluteJoint("j", plant.world_frame(), body.body_frame(), [0, 0, 1]))
    plant.Finalize()
    with pytest.raises(RuntimeError, match="not positive definite.*'j'"):
        plant.EvalTimeDerivatives(plant.CreateDefaultContext())
    plant = tw.build(tw.engine_mallard(), tw.double_pendulum(), time_step=1e-3)[0]
    context = plant.CreateDefaultContext()
    plant.get_actuation_input_port().FixValue(context, [1e308, 1e308])
    with pytest.raises(RuntimeError, match="non-finite state after the discrete step"):
        plant._CalcDiscreteStep(context)


@pytest.mark.parametrize("time_step", [0.0, 0.01])
def test_nan_spatial_inertia_is_accepted_at_finalize_and_refused_when_simulated(time_step):
    """As pydrake: a body added with SpatialInertia.NaN() finalizes and has kinematics; simulating it raises
    (naming the body) until the context gives it mass properties, then it falls freely."""
    from mallard.systems.analysis import Simulator
    plant = MultibodyPlant(time_step)
    body = plant.AddRigidBody(name="new_body", M_BBo_B=SpatialInertia.NaN())
    plant.Finalize()
    context = plant.CreateDefaultContext()
    np.testing.assert_array_equal(plant.EvalBodyPoseInWorld(context, body).translation(), [0.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match="body 'new_body'.*NaN mass properties"):
        Simulator(plant, context).AdvanceTo(0.02)
    body.SetSpatialInertiaInBodyFrame(context, _box(2.0))
    context.SetTime(0.0)
    Simulator(plant, context).AdvanceTo(0.1)
    z = plant.GetPositions(context)[6]
    expected = -0.5 * 9.81 * 0.1 ** 2 if time_step == 0 else -9.81 * 0.01 ** 2 * sum(range(1, 11))
    assert z == pytest.approx(expected, rel=1e-9)
