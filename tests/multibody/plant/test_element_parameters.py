"""MultibodyPlant Context parameters as Drake declares them (element_parameters.py), against pydrake on the KUKA
iiwa14: the same parameter groups with the same values, and per-Context damping, rotor inertia, gear ratio and mass
properties that change the dynamics (mass matrix, continuous and discrete simulation) as in Drake."""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_pydrake

IIWA = "drake_models/iiwa_description/urdf/iiwa14_no_collision.urdf"
Q0 = np.array([0.3, -0.5, 0.2, -1.2, 0.4, 0.6, -0.3])


def _iiwa(lib, models_dir, time_step, model=IIWA, base="base"):
    plant = lib.multibody.plant.MultibodyPlant(time_step=time_step)
    parser = lib.multibody.parsing.Parser(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):  # a remote package for both: use the local copy
        package_map.Remove("drake_models")
    package_map.Add("drake_models", str(models_dir / "drake_models"))
    parser.AddModels(str(models_dir / model))
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(base))
    plant.Finalize()
    return plant


def _libs():
    pydrake = require_pydrake()
    import pydrake.multibody.parsing  # noqa: F401
    import pydrake.multibody.plant  # noqa: F401
    import pydrake.systems.analysis  # noqa: F401
    import mallard
    import mallard.multibody.parsing  # noqa: F401
    import mallard.multibody.plant  # noqa: F401
    import mallard.systems.analysis  # noqa: F401
    return pydrake, mallard


def _change(lib, plant, context):
    """The same per-Context changes on either library's plant."""
    plant.GetJointByName("iiwa_joint_2").SetDampingVector(context, [3.0])
    plant.GetJointByName("iiwa_joint_5").SetDamping(context, 0.7)
    act = plant.GetJointActuatorByName("iiwa_motor_3")
    act.SetRotorInertia(context, 0.05)
    act.SetGearRatio(context, 3.0)
    plant.GetBodyByName("iiwa_link_4").SetMass(context, 4.0)
    link6 = plant.GetBodyByName("iiwa_link_6")
    M = lib.multibody.tree.SpatialInertia.SolidBoxWithMass(2.0, 0.1, 0.12, 0.2)
    link6.SetSpatialInertiaInBodyFrame(context, M.Shift([-0.01, 0.02, -0.05]))
    plant.GetBodyByName("iiwa_link_2").SetCenterOfMassInBodyFrame(context, [0.01, -0.02, 0.05])


def test_parameter_layout_matches_drake(models_dir):
    pydrake, mallard = _libs()
    for h in (0.0, 1e-3):
        contexts = [_iiwa(lib, models_dir, h).CreateDefaultContext() for lib in (pydrake, mallard)]
        d, m = contexts
        assert m.num_numeric_parameter_groups() == d.num_numeric_parameter_groups() == 48
        assert m.num_abstract_parameters() == d.num_abstract_parameters() == 14
        # joints' damping, actuators' rotor inertia and gear ratio, bodies' spatial inertias, FixedOffsetFrames' X_PF
        for i in range(48):
            np.testing.assert_allclose(m.get_numeric_parameter(i).get_value(),
                                       d.get_numeric_parameter(i).get_value(), rtol=1e-15, atol=0, err_msg=str(i))
        for i in range(12):  # a mobilizer's lock
            assert m.get_abstract_parameter(i).get_value() is False
    # the SDFormat model: its __model__ frame comes before the joints' frames, as in Drake's parser
    sdf = "drake_models/iiwa_description/sdf/iiwa14_no_collision.sdf"
    d, m = (_iiwa(lib, models_dir, 1e-3, sdf, "iiwa_link_0").CreateDefaultContext() for lib in (pydrake, mallard))
    assert m.num_numeric_parameter_groups() == d.num_numeric_parameter_groups() == 46
    for i in range(46):
        np.testing.assert_allclose(m.get_numeric_parameter(i).get_value(), d.get_numeric_parameter(i).get_value(),
                                   rtol=1e-15, atol=1e-15, err_msg=str(i))


@pytest.mark.parametrize("time_step", [0.0, 1e-3])
def test_context_parameters_change_the_dynamics_as_in_drake(models_dir, time_step):
    pydrake, mallard = _libs()
    finals, masses = [], []
    for lib in (pydrake, mallard):
        plant = _iiwa(lib, models_dir, time_step)
        context = plant.CreateDefaultContext()
        _change(lib, plant, context)
        plant.SetPositions(context, Q0)
        plant.get_actuation_input_port().FixValue(context, np.zeros(7))
        masses.append(plant.CalcMassMatrix(context))
        assert plant.GetJointByName("iiwa_joint_2").GetDampingVector(context)[0] == 3.0
        fresh = plant.CreateDefaultContext()  # other contexts keep the defaults
        assert plant.GetBodyByName("iiwa_link_4").get_mass(fresh) == pytest.approx(3.5)
        simulator = lib.systems.analysis.Simulator(plant, context)
        if time_step == 0:
            simulator.get_mutable_integrator().set_target_accuracy(1e-9)
        simulator.AdvanceTo(0.3)
        finals.append(plant.GetPositionsAndVelocities(context))
    np.testing.assert_allclose(masses[1], masses[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(finals[1], finals[0], rtol=1e-6 if time_step else 1e-5, atol=1e-7 if time_step else 1e-6)
    # the changes matter: the default model ends elsewhere
    plant = _iiwa(mallard, models_dir, time_step)
    context = plant.CreateDefaultContext()
    plant.SetPositions(context, Q0)
    plant.get_actuation_input_port().FixValue(context, np.zeros(7))
    mallard.systems.analysis.Simulator(plant, context).AdvanceTo(0.3)
    assert np.abs(plant.GetPositionsAndVelocities(context) - finals[1]).max() > 1e-2


def test_locked_joint_is_refused_not_ignored(models_dir):
    _, mallard = _libs()
    plant = _iiwa(mallard, models_dir, 1e-3)
    context = plant.CreateDefaultContext()
    joint = plant.GetJointByName("iiwa_joint_4")
    joint.Lock(context)
    assert joint.is_locked(context) and context.get_abstract_parameter(6).get_value() is True  # iiwa_link_4's mobilizer, as pydrake
    with pytest.raises(RuntimeError, match="locked"):
        plant.CalcMassMatrix(context)
    joint.Unlock(context)
    plant.CalcMassMatrix(context)


def _box_and_spring(lib, approx: str) -> np.ndarray:
    """A box resting on a half space and a pendulum on a RevoluteSpring whose stiffness and nominal angle are set in
    the Context (1 ms, `approx`): [q, the box's total contact force] after 0.5 s."""
    pd = lib.all
    builder = pd.DiagramBuilder()
    plant, _ = pd.AddMultibodyPlantSceneGraph(builder, 0.001)
    plant.set_discrete_contact_approximation(getattr(pd.DiscreteContactApproximation, approx))
    box = plant.AddRigidBody("box", pd.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    for body, shape in ((box, pd.Box(0.2, 0.2, 0.2)), (plant.world_body(), pd.HalfSpace())):
        plant.RegisterCollisionGeometry(body, pd.RigidTransform(), shape, "g", pd.CoulombFriction(0.5, 0.5))
    link = plant.AddRigidBody("link", pd.SpatialInertia.SolidSphereWithMass(1.0, 0.05))
    joint = plant.AddJoint(pd.RevoluteJoint("j", plant.world_frame(), link.body_frame(), [0, 1, 0]))
    spring = plant.AddForceElement(pd.RevoluteSpring(joint, 0.0, 10.0))
    plant.Finalize()
    simulator = pd.Simulator(builder.Build())
    ctx = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    plant.SetFreeBodyPose(ctx, box, pd.RigidTransform([0.3, 0.0, 0.12]))
    spring.SetStiffness(ctx, 25.0)
    spring.SetNominalAngle(ctx, 0.4)
    simulator.AdvanceTo(0.5)
    results = plant.get_contact_results_output_port().Eval(ctx)
    F = sum(np.asarray(results.point_pair_contact_info(i).contact_force())
            for i in range(results.num_point_pair_contacts()))
    return np.concatenate([plant.GetPositions(ctx), F])


@pytest.mark.parametrize("approx", ["kLagged", "kTamsi"])
def test_context_spring_parameters_step_with_drakes_contact(approx):
    """A Context's spring stiffness and nominal angle make a variant of the compiled step (before, such a Context
    stepped on a Python path that solved Drake-material contact with other rows: the box's contact force had the
    wrong sign and its pose drifted by 0.1 m in 0.6 s)."""
    require_pydrake()
    import mallard.all  # noqa: F401
    import pydrake.all  # noqa: F401
    import mallard
    import pydrake
    mine, theirs = _box_and_spring(mallard, approx), _box_and_spring(pydrake, approx)
    np.testing.assert_allclose(mine[:8], theirs[:8], atol=1e-7)
    np.testing.assert_allclose(mine[8:], theirs[8:], rtol=1e-5, atol=1e-6)
    assert mine[10] == pytest.approx(-2.0 * 9.81, rel=1e-3)  # the box's weight, reported as the force on the ground
