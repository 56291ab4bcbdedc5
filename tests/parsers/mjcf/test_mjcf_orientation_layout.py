"""MuJoCo 4's per-output actuator layout with orientation servos (3-4 controls, 3 outputs each): keyframe ctrl
sized by nu (controls), actuator sensors with one value per output, and a plugin actuator placed after the
servos reading its own control and output, all against `mujoco` on testdata/actuation/orientation.xml."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, GetMujocoCtrlInputPort
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import GetMujocoActivations, GetMujocoState, SetMujocoActivations, SetMujocoState
from mallard.multibody.mjcf.keyframes import GetMujocoKeyframe, SetMujocoKeyframe
from mallard.parsers import Parser
from mallard.parsers.errors import ParseError
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

H = 0.002
SLIDER = """<body name="slider" pos="0 .5 .2"><joint name="slide" type="slide" axis="0 0 1"/>
      <geom type="sphere" size=".03" mass=".5"/><site name="ss" pos="0 0 .03"/></body>
  </worldbody>
  <tendon><spatial name="rope"><site site="quat"/><site site="ss"/></spatial></tendon>"""
EXTRA_ACTUATORS = """<motor name="late" joint="peraxis" gear="0 0 1"/>
    <plugin name="pid" joint="slide" instance="pid" actdim="2"/>
    <motor name="pull" tendon="rope" gear="2"/>
  </actuator>
  <sensor>
    <actuatorpos actuator="expmap"/><actuatorvel actuator="quat"/><actuatorfrc actuator="quat"/>
    <actuatorfrc actuator="ry_peraxis"/><actuatorfrc actuator="late"/><actuatorpos actuator="pid"/>
    <actuatorvel actuator="pid"/><actuatorfrc actuator="pid"/>
    <actuatorfrc actuator="pull"/><tendonactuatorfrc tendon="rope"/><force site="ss"/>
  </sensor>
  <keyframe>
    <key name="start" qpos="0.9 0.1 0.2 0.3  0.8 0 0.6 0  0.7 0.5 -0.5 0.1  0.05" qvel="0.3 -0.2 0.1 1 0 -1 0 0.5 0 0.2"
         act="0.01 -0.02" ctrl="0.4 -0.3 0.2  0.5 -0.4 0.8  0.6 0 0.8 0  -0.5  0.3  0.7"/>
  </keyframe>
</mujoco>"""
PID = ('<extension><plugin plugin="mujoco.pid"><instance name="pid"><config key="kp" value="40"/>'
       '<config key="ki" value="40"/><config key="kd" value="4"/><config key="slewmax" value="3"/>'
       '<config key="imax" value="1"/></instance></plugin></extension>')


def _xml(models_dir) -> str:
    text = (models_dir / "mujoco" / "testdata" / "actuation" / "orientation.xml").read_text()
    text = text.replace('<option integrator="implicitfast">', f'<option integrator="Euler" timestep="{H}">')
    text = text.replace("<asset>", PID + "\n  <asset>", 1)
    text = text.replace("</worldbody>", SLIDER, 1)
    return text.replace("</actuator>\n</mujoco>", EXTRA_ACTUATORS)


def _load(mujoco, xml: str):
    mm = mujoco.MjModel.from_xml_string(xml)
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, H)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    return mm, plant, diagram


def test_layout_sizes_match_mujoco(models_dir):
    """nu (controls) 13, 12 outputs, keyframe ctrl of nu values, actuator sensors of outnum values."""
    mujoco = require_mujoco()
    mm, plant, _ = _load(mujoco, _xml(models_dir))
    act = plant._mjcf_actuation
    assert (act.nu, act.nout, act.na) == (mm.nu, mm.nout, mm.na) == (13, 12, 2)
    key = GetMujocoKeyframe(plant, "start")
    np.testing.assert_array_equal(key.ctrl, mm.key_ctrl[0])
    port = GetMujocoSensorOutputPort(plant)
    assert port.size() == mm.nsensordata == 3 + 3 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 3


def test_keyframe_ctrl_longer_than_nu_is_rejected(models_dir):
    """A keyframe ctrl longer than nu (13 controls, 8 actuators) is an error, as in MuJoCo."""
    mujoco = require_mujoco()
    xml = re.sub(r'ctrl="[^"]*"', f'ctrl="{" ".join(["1"] * 14)}"', _xml(models_dir))
    with pytest.raises(ValueError, match="invalid ctrl size, expected length 13"):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(ParseError, match="ctrl has 14 values, the model needs 13"):
        Parser(AddMultibodyPlantSceneGraph(DiagramBuilder(), H)[0]).AddModelsFromString(xml, "xml")


def test_actuator_sensors_match_mujoco_at_random_states(models_dir):
    """actuatorpos / actuatorvel / actuatorfrc of orientation servos (3 values), scalar actuators before and after
    them, the pid plugin actuator (its force from its own control and output) and a spatial-tendon motor after
    them (tendonactuatorfrc, and its pull in a force sensor) equal MuJoCo's sensordata."""
    mujoco = require_mujoco()
    mm, plant, diagram = _load(mujoco, _xml(models_dir))
    md = mujoco.MjData(mm)
    context = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    port = GetMujocoSensorOutputPort(plant)
    rng = np.random.default_rng(5)
    for _ in range(4):
        qpos = mm.qpos0 + rng.normal(size=mm.nq)
        for a in (0, 4, 8):
            qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
        md.qpos[:], md.qvel[:] = qpos, rng.normal(size=mm.nv)
        md.ctrl[:], md.act[:] = rng.uniform(-1, 1, mm.nu), rng.uniform(-0.1, 0.1, mm.na)
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
        SetMujocoActivations(plant, context, md.act.copy())
        GetMujocoCtrlInputPort(plant).FixValue(context, md.ctrl.copy())
        data = port.Eval(context)
        np.testing.assert_allclose(data, md.sensordata, rtol=0, atol=1e-9 * max(1.0, np.abs(md.sensordata).max()))
        assert abs(md.sensordata[-6]) > 1e-6 and abs(md.sensordata[-5]) > 1e-6  # plugin and tendon motor push


def test_keyframe_with_ctrl_trajectory_matches_mj_step(models_dir):
    """SetMujocoKeyframe(set_ctrl=True) as mj_resetDataKeyframe (state, act and the 13 controls), then 150
    steps of servos and the pid plugin as mj_step: state, activations and sensordata (the compiled step's sampled
    sensordata: mj_step's, at the state the last step started from)."""
    mujoco = require_mujoco()
    mm, plant, diagram = _load(mujoco, _xml(models_dir))
    md = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(context)
    SetMujocoKeyframe(plant, pc, "start", set_ctrl=True)
    np.testing.assert_array_equal(plant._mjcf_actuation.EvalCtrl(plant, pc), md.ctrl)
    sim = Simulator(diagram, context)
    steps = 150
    for _ in range(steps):
        mujoco.mj_step(mm, md)
    sim.AdvanceTo(steps * H)
    sensordata = md.sensordata.copy()  # mj_step's: at the state its last step started from (the sampled port's)
    mujoco.mj_forward(mm, md)
    qpos, qvel = GetMujocoState(plant, pc)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)
    np.testing.assert_allclose(GetMujocoActivations(plant, pc), md.act, rtol=0, atol=1e-6)
    np.testing.assert_allclose(GetMujocoSensorOutputPort(plant).Eval(pc), sensordata, rtol=0, atol=1e-6)
    assert abs(md.qpos[-1] - 0.05) > 1e-3  # the plugin moved the slider


def test_keyframe_without_set_ctrl_leaves_the_ctrl_port(models_dir):
    """Without set_ctrl the keyframe's ctrl (nu values) is only returned; the ctrl port stays unconnected."""
    mujoco = require_mujoco()
    _, plant, diagram = _load(mujoco, _xml(models_dir))
    context = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    key = SetMujocoKeyframe(plant, context, 0)
    assert not plant._mjcf_actuation.EvalCtrl(plant, context).any()
    assert key.name == "start" and key.ctrl.shape == (13,)
