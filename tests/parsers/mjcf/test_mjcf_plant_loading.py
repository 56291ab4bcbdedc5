"""MJCF loading through Parser: instance naming, joint mapping, options, errors, keyframes, ctrl port and
activation dynamics stepped against MuJoCo."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import (GetMjcfPlantMap, GetMujocoActivations, GetMujocoState, SetMujocoActivations,
                                          SetMujocoState)
from mallard.multibody.mjcf.keyframes import GetMujocoKeyframe, GetMujocoKeyframeNames, SetMujocoKeyframe
from mallard.parsers import Parser
from mallard.parsers.errors import ParseError
from mallard.parsers.mjcf import MjcfUnsupportedWarning

PENDULUM = """
<mujoco model="pend">
  <compiler angle="radian"/>
  <option gravity="0 0 -3" timestep="0.01"/>
  <worldbody>
    <body name="link" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" ref="0.3" damping="0.2" armature="0.05" range="-1 1"
             stiffness="4" springref="0.1"/>
      <joint name="slide" type="slide" axis="1 0 0"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0 0 -0.5"/>
      <site name="tip" pos="0 0 -0.5"/>
    </body>
  </worldbody>
  <actuator>
    <position name="servo" joint="hinge" kp="10" ctrlrange="-0.5 0.5"/>
    <general name="filt" joint="slide" dyntype="filter" dynprm="0.1" gainprm="2"/>
  </actuator>
  <keyframe><key name="up" qpos="0.2 0.1" qvel="1 -1" act="0.5"/></keyframe>
</mujoco>
"""


def _plant(text=PENDULUM, time_step=0.01):
    plant = MultibodyPlant(time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (instance,) = Parser(plant).AddModelsFromString(text, "xml")
    plant.Finalize()
    return plant, instance


def test_instance_joints_frames_and_options():
    plant, instance = _plant()
    assert plant.GetModelInstanceName(instance) == "pend"
    hinge = plant.GetJointByName("hinge", instance)
    assert hinge.type_name() == "revolute"
    assert plant.GetJointByName("slide", instance).type_name() == "prismatic"
    # two joints in one body: one massless intermediate body, named as Drake's MJCF parser does
    assert plant.HasBodyNamed("link0", instance)
    assert plant.GetBodyByName("link0", instance).default_mass() == 0.0
    assert plant.GetJointByName("slide", instance).parent_body().name() == "link0"
    assert plant.HasFrameNamed("tip", instance)
    np.testing.assert_allclose(plant.gravity_field().gravity_vector(), [0, 0, -3])
    np.testing.assert_allclose(hinge.position_lower_limits(), [-1.0])
    np.testing.assert_allclose(hinge.default_damping_vector(), [0.2])
    np.testing.assert_allclose(hinge.default_armature(), [0.05])
    context = plant.CreateDefaultContext()
    # q = qpos: the default is the MJCF ref, at which the body sits at its MJCF pose
    np.testing.assert_allclose(plant.GetPositions(context), [0.3, 0.0])
    X = plant.GetBodyByName("link", instance).EvalPoseInWorld(context)
    np.testing.assert_allclose(X.translation(), [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(X.rotation().matrix(), np.eye(3), atol=1e-12)


def test_timestep_mismatch_warns_and_gravity_is_kept():
    plant = MultibodyPlant(0.002)
    with pytest.warns(MjcfUnsupportedWarning, match="time_step"):
        Parser(plant).AddModelsFromString(PENDULUM, "xml")
    np.testing.assert_allclose(plant.gravity_field().gravity_vector(), [0, 0, -3])


def test_bad_input_is_a_located_parse_error():
    bad = PENDULUM.replace('type="hinge"', 'type="hinge" damping="-1"')
    plant = MultibodyPlant(0.01)
    with pytest.raises(ParseError) as info:
        Parser(plant).AddModelsFromString(bad, "xml")
    assert info.value.line is not None and info.value.line > 1
    with pytest.raises(ParseError, match="file not found"):
        Parser(MultibodyPlant(0.01)).AddModels("/nonexistent/model.xml")
    plant, _ = _plant()
    with pytest.raises(RuntimeError, match="finalized"):
        Parser(plant).AddModelsFromString(PENDULUM, "xml")


def test_second_load_needs_auto_renaming():
    plant = MultibodyPlant(0.01)
    parser = Parser(plant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parser.AddModelsFromString(PENDULUM, "xml")
        with pytest.raises(RuntimeError, match="SetAutoRenaming"):
            parser.AddModelsFromString(PENDULUM, "xml")
        parser.SetAutoRenaming(True)
        (second,) = parser.AddModelsFromString(PENDULUM, "xml")
    assert plant.GetModelInstanceName(second) == "pend_1"


def test_keyframe_api():
    plant, instance = _plant()
    assert GetMujocoKeyframeNames(plant) == ["up"]
    context = plant.CreateDefaultContext()
    key = SetMujocoKeyframe(plant, context, "up")
    assert key is GetMujocoKeyframe(plant, 0)
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, [0.2, 0.1])
    np.testing.assert_allclose(qvel, [1, -1])
    np.testing.assert_allclose(GetMujocoActivations(plant, context), [0.5])
    with pytest.raises(KeyError, match="up"):
        GetMujocoKeyframe(plant, "down")
    with pytest.raises(ValueError, match="qpos needs 2"):
        SetMujocoState(plant, context, [0.0])
    assert GetMjcfPlantMap(plant, instance).model.name == "pend"


def test_continuous_plant_integrates_activations():
    """x = [q; v; act]: the time derivatives of a continuous plant match mj_forward's qacc and act_dot."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(PENDULUM)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_LIMIT)  # a continuous plant ignores joint limits
    md = mujoco.MjData(mm)
    qpos, qvel, act, ctrl = [0.2, 0.1], [0.5, -0.3], [0.4], [0.3, -0.7]
    md.qpos[:], md.qvel[:], md.act[:], md.ctrl[:] = qpos, qvel, act, ctrl
    mujoco.mj_forward(mm, md)
    plant = MultibodyPlant(0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(PENDULUM, "xml")
        plant.Finalize()
    context = plant.CreateDefaultContext()
    assert context.get_continuous_state_vector().size() == 2 + 2 + 1
    SetMujocoState(plant, context, qpos, qvel)
    SetMujocoActivations(plant, context, act)
    np.testing.assert_allclose(GetMujocoActivations(plant, context), act)
    GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    xdot = plant.EvalTimeDerivatives(context).CopyToVector()
    np.testing.assert_allclose(xdot[2:4], md.qacc, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(xdot[4:], md.act_dot, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(plant.get_state_output_port().Eval(context), [0.2, 0.1, 0.5, -0.3])


@pytest.mark.parametrize("name", ["actearly.xml"])
def test_discrete_steps_match_mujoco(models_dir, name):
    """Ten steps with ctrl on the `<instance>_ctrl` port: states and activations as mj_step (contact off in the
    oracle, as the plant has no SceneGraph here; the model's implicitfast integrator in both)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "actuation" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # the plant has no SceneGraph here
    md = mujoco.MjData(mm)
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (instance,) = Parser(plant).AddModels(str(path))
    plant.Finalize()
    context = plant.CreateDefaultContext()
    ctrl = np.linspace(-0.8, 0.9, mm.nu)
    md.ctrl[:] = ctrl
    port = plant.GetInputPort(f"{plant.GetModelInstanceName(instance)}_ctrl")
    assert port is GetMujocoCtrlInputPort(plant, instance)
    port.FixValue(context, ctrl)
    state = context.get_mutable_state()
    for _ in range(10):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        qpos, qvel = GetMujocoState(plant, context)
        np.testing.assert_allclose(qvel, md.qvel, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(qpos, md.qpos, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(GetMujocoActivations(plant, context), md.act,
                                   rtol=1e-12, atol=1e-12)


def test_prefix_and_strict_parsing():
    plant = MultibodyPlant(0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (instance,) = Parser(plant, "left").AddModelsFromString(PENDULUM, "xml")
    assert plant.GetModelInstanceName(instance) == "left::pend"
    strict = Parser(MultibodyPlant(0.002))
    strict.SetStrictParsing()
    with pytest.raises(ParseError, match="time_step"):  # the timestep mismatch warning becomes an error
        strict.AddModelsFromString(PENDULUM, "xml")


def test_unsimulated_features_warn_once_each():
    text = PENDULUM.replace("</worldbody>", '<body name="m" mocap="true" pos="1 0 0"><geom size="0.1"/></body>'
                        "</worldbody>")
    text = text.replace('timestep="0.01"/>', 'timestep="0.01" integrator="RK4"/>')
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        Parser(MultibodyPlant(0.01)).AddModelsFromString(text, "xml")
    messages = " | ".join(str(w.message) for w in record if issubclass(w.category, MjcfUnsupportedWarning))
    # the discrete plant steps RK4 as MuJoCo does (mjcf/rk4.py); mocap bodies follow the mocap_pose input port
    assert "RK4" not in messages and "mocap" not in messages


def test_mjcf_next_to_urdf_keeps_the_actuation_port(models_dir):
    """An MJCF model beside a URDF robot: the URDF's JointActuators stay on `actuation`, the MJCF actuators on
    `pend_ctrl`; each acts on its own dofs only."""
    mujoco = require_mujoco()
    plant = MultibodyPlant(0.01)
    parser = Parser(plant)
    (acrobot,) = parser.AddModels(str(models_dir / "drake_examples" / "Acrobot.urdf"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (pend,) = parser.AddModelsFromString(PENDULUM, "xml")
    plant.Finalize()
    assert plant.num_actuators() == 1  # the acrobot's elbow; MJCF actuators are not JointActuators
    context = plant.CreateDefaultContext()
    plant.get_actuation_input_port().FixValue(context, [0.7])
    GetMujocoCtrlInputPort(plant, pend).FixValue(context, [0.45, -0.4])
    SetMujocoActivations(plant, context, [0.5], pend)
    tau = plant._mjcf_actuation.CalcGeneralizedForces(plant, context, plant.GetPositions(context),
                                                       plant.GetVelocities(context))
    pend_v = [plant.GetJointByName(n, pend).velocity_start() for n in ("hinge", "slide")]
    assert np.all(tau[pend_v] != 0)
    acro_v = [plant.GetJointByName(n, acrobot).velocity_start() for n in ("shoulder", "elbow")]
    np.testing.assert_array_equal(tau[acro_v], 0.0)
    # the MJCF part still steps as MuJoCo
    mm = mujoco.MjModel.from_xml_string(PENDULUM)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_LIMIT)
    md = mujoco.MjData(mm)
    md.ctrl[:], md.act[:] = [0.45, -0.4], [0.5]
    state = context.get_mutable_state()
    for _ in range(5):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context, pend)
    np.testing.assert_allclose(qpos, md.qpos, atol=1e-12)
    np.testing.assert_allclose(qvel, md.qvel, atol=1e-12)


def test_implicit_residual_covers_activations():
    plant = MultibodyPlant(0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(PENDULUM, "xml")
        plant.Finalize()
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, [0.2, 0.1], [0.3, -0.2])
    SetMujocoActivations(plant, context, [0.4])
    GetMujocoCtrlInputPort(plant).FixValue(context, [0.1, 0.9])
    xdot = plant.EvalTimeDerivatives(context).CopyToVector()
    assert xdot.size == 5
    np.testing.assert_allclose(plant.CalcImplicitTimeDerivativesResidual(context, xdot), 0.0, atol=1e-10)
    wrong = xdot.copy()
    wrong[4] += 1.0
    assert plant.CalcImplicitTimeDerivativesResidual(context, wrong)[4] == pytest.approx(1.0)
