"""MJCF tendons on the compiled step (pipeline/tendon.py): lengths and moment arms of fixed and spatial tendons
(sites, pulleys, sphere / cylinder wrapping), their springs, dampers, limits, dry friction and armature, and the
actuators pulling on them (spatial-tendon transmissions, actuatorfrcrange) step as the plant's Python path and as
MuJoCo's mj_step."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import GetMujocoState, SetMujocoState
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.parsers import Parser
from mjcf_scene import build_mjcf_scene

CORE = ("mujoco", "testdata", "core_smooth")

#: a rope through a pulley wrapping a cylinder on a swinging arm (side site) and a fixed sphere: dead-band spring,
#: damper, limit, frictionloss and a motor on the rope; a fixed tendon with armature, a limit and a position servo
PULLEY = """<mujoco model="pulley_wrap"><option timestep="0.002"/>
<worldbody>
  <site name="top" pos="0 0 1.5"/>
  <geom name="ball" type="sphere" size="0.08" pos="0.3 0 1.1" contype="0" conaffinity="0"/>
  <site name="ballside" pos="0.45 0 1.1"/>
  <body name="arm" pos="0 0 1"><joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"/>
    <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
    <geom name="drum" type="cylinder" size="0.06 0.05" pos="0.25 0 0" zaxis="0 1 0" contype="0" conaffinity="0"/>
    <site name="drumside" pos="0.25 0 -0.1"/><site name="tip" pos="0.5 0 0"/>
    <body name="fore" pos="0.5 0 0"><joint name="elbow" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/></body>
  </body>
  <body name="weight" pos="0.3 0 0.4"><freejoint/><geom type="sphere" size="0.04"/><site name="hook"/></body>
</worldbody>
<tendon>
  <spatial name="rope" stiffness="200" springlength="0 1.3" damping="0.5" limited="true" range="0 1.45"
           frictionloss="0.05">
    <site site="top"/><geom geom="drum" sidesite="drumside"/><site site="tip"/>
    <pulley divisor="2"/><site site="tip"/><geom geom="ball" sidesite="ballside"/><site site="hook"/>
  </spatial>
  <fixed name="couple" armature="0.02" limited="true" range="-0.4 0.4" stiffness="3" damping="0.05">
    <joint joint="shoulder" coef="0.5"/><joint joint="elbow" coef="1"/></fixed>
</tendon>
<actuator><motor tendon="rope" gear="3" ctrlrange="-2 2"/><position tendon="couple" kp="4"/></actuator>
</mujoco>"""


def _plant(text: str, h: float, python: bool = False):
    plant = MultibodyPlant(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(text, "xml")
    plant.Finalize()
    if python:  # the plant's Python path, for comparison
        plant._pipeline.features = ["the Python path, for comparison"]
    return plant, plant.CreateDefaultContext()


def _euler_without_sensors(text: str) -> str:
    """A model file's text with the Euler integrator and without its sensors (features of other stages)."""
    text = re.sub(r'integrator="[A-Za-z0-9]+"', 'integrator="Euler"', text)
    return re.sub(r"<sensor>.*?</sensor>", "", text, flags=re.S)


def _compare(text: str, steps: int, seed: int, python_atol: float, mujoco_atol: float, keyframe: bool = False):
    """Step the compiled plant, the Python path and MuJoCo (contacts off) from one random state with a random
    constant ctrl; assert they agree. Returns MuJoCo's model and data, and what MuJoCo's steps saw: the largest
    tendon lengths, wrap counts and actuator forces (absolute) and the constraint row types."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(text)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    if keyframe:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    else:
        md.qvel[:] = rng.normal(size=mm.nv)
    ctrl = rng.uniform(-2.0, 2.0, mm.nu)
    md.ctrl[:] = ctrl
    q0, v0 = md.qpos.copy(), md.qvel.copy()
    states = []
    for python in (False, True):
        plant, context = _plant(text, mm.opt.timestep, python)
        if not python:
            assert UncompiledFeatures(plant) == []
        if mm.nu:
            GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        SetMujocoState(plant, context, q0, v0)
        state = context.get_mutable_state()
        for _ in range(steps):
            plant._DiscreteStepUpdate(context, state)
        states.append(GetMujocoState(plant, context))
    seen = dict(length=np.full(mm.ntendon, -np.inf), wrapnum=np.zeros(mm.ntendon, int), force=np.zeros(mm.nu),
                types=set())
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        seen["length"] = np.maximum(seen["length"], md.ten_length)
        seen["wrapnum"] = np.maximum(seen["wrapnum"], md.ten_wrapnum)
        seen["force"] = np.maximum(seen["force"], np.abs(md.actuator_force))
        seen["types"] |= set(md.efc_type.tolist())
    (qc, vc), (qp, vp) = states
    np.testing.assert_allclose(qc, qp, rtol=0, atol=python_atol)
    np.testing.assert_allclose(vc, vp, rtol=0, atol=python_atol)
    np.testing.assert_allclose(qc, md.qpos, rtol=0, atol=mujoco_atol)
    np.testing.assert_allclose(vc, md.qvel, rtol=0, atol=mujoco_atol)
    return mm, md, seen


def test_pulley_wrap_spring_limit_friction_armature_and_actuators_step_as_python_path_and_mujoco():
    mujoco = require_mujoco()
    _, _, seen = _compare(PULLEY, 300, 1, 1e-11, 1e-7)
    assert seen["length"][0] > 1.3  # the spring's dead band was left
    assert seen["wrapnum"][0] >= 7  # both geoms wrapped
    C = mujoco.mjtConstraint
    assert {int(C.mjCNSTR_FRICTION_TENDON), int(C.mjCNSTR_LIMIT_TENDON)} <= seen["types"]


@pytest.mark.parametrize("name", ["tendon_wrap_sphere.xml", "tendon_wrap_cylinder.xml"])
def test_wrapping_tendon_limits_step_as_python_path_and_mujoco(models_dir, name):
    text = models_dir.joinpath(*CORE, name).read_text()
    mujoco = require_mujoco()
    _, _, seen = _compare(text, 200, 2, 1e-11, 1e-6)
    assert int(mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON) in seen["types"]
    assert seen["wrapnum"].min() == 4  # every tendon wrapped


@pytest.mark.parametrize("name", ["ten_armature_1.xml", "ten_armature_2.xml"])
def test_tendon_armature_steps_as_python_path_and_mujoco(models_dir, name):
    """Spatial tendons with armature (M + a·JᵀJ and the bias a·J·J̇v), no constraint rows: Euler instead of the
    files' RK4 (another stage's feature)."""
    text = _euler_without_sensors(models_dir.joinpath(*CORE, name).read_text())
    _compare(text, 300, 3, 1e-11, 1e-9, keyframe="<key" in text)


def test_tendon_actuatorfrcrange_scales_the_tendon_actuators_as_mujoco(models_dir):
    """Several motors on spatial and fixed tendons whose actuatorfrcrange scales their summed force."""
    text = _euler_without_sensors(models_dir.joinpath("mujoco", "testdata", "actuation",
                                                      "tendon_force_clamp.xml").read_text())
    _, md, seen = _compare(text, 200, 4, 1e-11, 1e-9)
    f = md.actuator_force
    assert abs(f[3] + f[4]) <= 1 + 1e-12 and 0 <= f[6] + f[7] <= 1 + 1e-12  # the clamps were active
    assert seen["force"][3:5].max() > 0.1


def test_humanoid_hamstring_limits_with_contacts_step_as_mujoco(models_dir):
    """MuJoCo's humanoid started 1 cm up, kicking its hips into flexion until both hamstring tendons hit their
    lower limit while its feet land (random controls), on the compiled step."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "model" / "humanoid.xml"
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    md.qpos[2] += 0.01
    for side in ("right", "left"):  # hamstring = 0.5 hip_y - 0.5 knee starts at -0.25, limit -0.3
        j = mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_JOINT, f"hip_y_{side}")
        md.qpos[mm.jnt_qposadr[j]], md.qvel[mm.jnt_dofadr[j]] = -0.5, -4.0
    md.ctrl[:] = np.random.default_rng(5).uniform(-1, 1, mm.nu)
    plant, _, _, context = build_mjcf_scene(path=path, time_step=mm.opt.timestep)
    assert UncompiledFeatures(plant) == []
    GetMujocoCtrlInputPort(plant).FixValue(context, md.ctrl.copy())
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    limited = 0
    for _ in range(100):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        limited += int(np.sum(md.efc_type == mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON))
    qpos, qvel = GetMujocoState(plant, context)
    assert limited > 0
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-9)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-8)


def test_invalid_tendon_limit_is_named_when_it_activates():
    """An invalid solreflimit on a tendon raises, on both paths, the same error naming the tendon once the limit
    is within its margin (MuJoCo checks at compile time; the plant only when the row exists)."""
    text = PULLEY.replace('limited="true" range="-0.4 0.4"', 'limited="true" range="-0.4 0.4" solreflimit="0.02 -1"')
    messages = []
    for python in (False, True):
        plant, context = _plant(text, 0.002, python)
        state = context.get_mutable_state()
        plant._DiscreteStepUpdate(context, state)  # inside the range: no limit row yet
        q = plant.GetPositions(context).copy()
        q[plant.GetJointByName("elbow").position_start()] = 0.6  # the tendon's length 0.6 > 0.4
        plant.SetPositions(context, q)
        with pytest.raises(ValueError, match="couple") as info:
            plant._DiscreteStepUpdate(context, state)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "dampratio" in messages[0]
