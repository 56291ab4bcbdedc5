"""PD-controlled joint actuators (JointActuator.set_controller_gains, the desired-state input ports) and actuator
effort limits, against pydrake: a PD-controlled iiwa14 tracking a set point in a discrete plant (Drake's implicit
SAP PD, saturating at the URDF effort limits) and in a continuous plant (explicit PD), disarmed controllers, and
effort-limited plain actuation."""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_pydrake

IIWA = "drake_models/iiwa_description/urdf/iiwa14_no_collision.urdf"
Q0 = np.array([0.3, -0.5, 0.2, -1.2, 0.4, 0.6, -0.3])
QD = np.array([-0.4, 0.6, -0.3, -0.4, -0.5, -0.2, 0.8])


def _libs():
    pydrake = require_pydrake()
    import pydrake.multibody.parsing  # noqa: F401
    import pydrake.multibody.plant  # noqa: F401
    import pydrake.multibody.tree  # noqa: F401
    import pydrake.systems.analysis  # noqa: F401
    import mallard
    import mallard.multibody.parsing  # noqa: F401
    import mallard.multibody.plant  # noqa: F401
    import mallard.multibody.tree  # noqa: F401
    import mallard.systems.analysis  # noqa: F401
    return pydrake, mallard


def _iiwa(lib, models_dir, time_step, kp, kd, approximation=None):
    plant = lib.multibody.plant.MultibodyPlant(time_step=time_step)
    parser = lib.multibody.parsing.Parser(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):  # a remote package for both: use the local copy
        package_map.Remove("drake_models")
    package_map.Add("drake_models", str(models_dir / "drake_models"))
    parser.AddModels(str(models_dir / IIWA))
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base"))
    if approximation is not None:
        plant.set_discrete_contact_approximation(approximation(lib))
    for k, a in enumerate(plant.GetJointActuatorIndices()):
        plant.get_joint_actuator(a).set_controller_gains(lib.multibody.tree.PdControllerGains(p=kp[k], d=kd[k]))
    plant.Finalize()
    return plant


def _run(lib, models_dir, time_step, kp, kd, *, armed=True, u_ff=None, t_final=0.5, approximation=None):
    plant = _iiwa(lib, models_dir, time_step, kp, kd, approximation)
    context = plant.CreateDefaultContext()
    plant.SetPositions(context, Q0)
    instance = plant.GetModelInstanceByName("iiwa14")
    if armed:
        plant.get_desired_state_input_port(instance).FixValue(context, np.concatenate([QD, np.zeros(7)]))
    if u_ff is not None:
        plant.get_actuation_input_port().FixValue(context, u_ff)
    simulator = lib.systems.analysis.Simulator(plant, context)
    if time_step == 0:
        simulator.get_mutable_integrator().set_target_accuracy(1e-8)
    samples = []
    for t in np.linspace(0.1, t_final, 5):
        simulator.AdvanceTo(t)
        samples.append(np.concatenate([plant.GetPositionsAndVelocities(context),
                                       plant.get_net_actuation_output_port().Eval(context)]))
    return np.array(samples)


@pytest.mark.parametrize("gains", ["moderate", "saturating", "stiff"])
def test_discrete_pd_iiwa_matches_drake(models_dir, gains):
    """Drake's SAP PD: moderate gains stay linear, large errors saturate at the URDF effort limits (320, 320, 176,
    176, 110, 40, 40 N·m), and very stiff gains are limited by the near-rigid regime."""
    pydrake, mallard = _libs()
    kp, kd = {"moderate": (np.full(7, 100.0), np.full(7, 20.0)),
              "saturating": (np.full(7, 3000.0), np.full(7, 50.0)),
              "stiff": (np.full(7, 1e8), np.full(7, 1e5))}[gains]
    got = [_run(lib, models_dir, 1e-3, kp, kd) for lib in (pydrake, mallard)]
    np.testing.assert_allclose(got[1], got[0], rtol=1e-6, atol=1e-6)
    if gains == "saturating":
        assert np.any(np.isclose(np.abs(got[0][0, 14:]), [320, 320, 176, 176, 110, 40, 40]))


def test_continuous_pd_iiwa_matches_drake(models_dir):
    pydrake, mallard = _libs()
    kp, kd = np.full(7, 100.0), np.full(7, 20.0)
    got = [_run(lib, models_dir, 0.0, kp, kd, t_final=0.3) for lib in (pydrake, mallard)]
    np.testing.assert_allclose(got[1], got[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("time_step", [0.0, 1e-3])
def test_disarmed_controllers_and_feedforward_match_drake(models_dir, time_step):
    """Without a desired state the controllers are disarmed: the feed-forward input acts on a continuous plant
    (clamped to the effort limits) and, in Drake's SAP, not at all for a PD-controlled actuator (the net actuation
    still reports it); armed, it enters the controllers' clamp."""
    pydrake, mallard = _libs()
    kp, kd = np.array([100.0, 0, 100, 0, 100, 0, 100]), np.array([20.0, 0, 20, 0, 20, 0, 20])
    u_ff = np.array([5.0, 400.0, -3.0, -200.0, 1.0, 60.0, 0.5])
    got = [_run(lib, models_dir, time_step, kp, kd, armed=False, u_ff=u_ff, t_final=0.2)
           for lib in (pydrake, mallard)]
    np.testing.assert_allclose(got[1], got[0], rtol=1e-5, atol=1e-5)
    got = [_run(lib, models_dir, time_step, kp, kd, armed=True, u_ff=u_ff, t_final=0.2)
           for lib in (pydrake, mallard)]
    np.testing.assert_allclose(got[1], got[0], rtol=1e-5, atol=1e-5)


def test_nan_desired_state_is_an_error(models_dir):
    _, mallard = _libs()
    plant = _iiwa(mallard, models_dir, 1e-3, np.full(7, 100.0), np.full(7, 20.0))
    context = plant.CreateDefaultContext()
    xd = np.zeros(14)
    xd[3] = np.nan
    plant.get_desired_state_input_port(plant.GetModelInstanceByName("iiwa14")).FixValue(context, xd)
    with pytest.raises(RuntimeError, match="Desired state input port for model instance iiwa14 contains NaN"):
        mallard.systems.analysis.Simulator(plant, context).AdvanceTo(0.01)


@pytest.mark.parametrize("time_step", [0.0, 1e-3])
def test_effort_limits_clamp_plain_actuation_as_drake(time_step):
    """An actuator's effort limit clamps the actuation input (whole-plant and per-instance ports add up first); a
    limit changed after Finalize (set_effort_limit, RemoveAllJointActuatorEffortLimits) applies from then on, as
    Drake reads the limits (before, mallard kept the Finalize-time limits silently). Drake's discrete plant caches
    the clamped actuation on the input ports only, so the input is fixed again after each change (a connected
    controller's input changes every step anyway)."""
    pydrake, mallard = _libs()
    got, later = [], []
    for lib in (pydrake, mallard):
        tree = lib.multibody.tree
        plant = lib.multibody.plant.MultibodyPlant(time_step)
        body = plant.AddRigidBody("b", tree.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
        joint = plant.AddJoint(tree.RevoluteJoint("j", plant.world_frame(), body.body_frame(), [0, 0, 1]))
        plant.AddJointActuator("a", joint, effort_limit=1.0)
        plant.Finalize()
        context = plant.CreateDefaultContext()
        plant.get_actuation_input_port().FixValue(context, [3.0])
        plant.get_actuation_input_port(plant.GetModelInstanceByName("DefaultModelInstance")).FixValue(context, [2.0])
        simulator = lib.systems.analysis.Simulator(plant, context)
        simulator.AdvanceTo(0.01)
        got.append(np.concatenate([plant.GetPositionsAndVelocities(context),
                                   plant.get_net_actuation_output_port().Eval(context)]))
        actuator, stages = plant.get_joint_actuator(lib.multibody.tree.JointActuatorIndex(0)), []
        for t, change in ((0.02, lambda: actuator.set_effort_limit(2.0)),
                          (0.03, plant.RemoveAllJointActuatorEffortLimits),
                          (0.04, lambda: actuator.set_effort_limit(0.5))):
            change()
            plant.get_actuation_input_port().FixValue(context, [3.0])
            simulator.AdvanceTo(t)
            stages.append(np.concatenate([plant.GetPositionsAndVelocities(context),
                                          plant.get_net_actuation_output_port().Eval(context),
                                          plant.GetEffortUpperLimits()]))
        later.append(np.array(stages))
    np.testing.assert_allclose(got[1], got[0], rtol=1e-9, atol=1e-12)
    assert got[0][2] == 1.0
    np.testing.assert_allclose(later[1], later[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(later[0][:, 2], [2.0, 5.0, 0.5])
