"""`mujoco.pid` (multibody/plugins/pid.py) in a discrete plant against MuJoCo running its own first-party
pid plugin on the same model: the I term and its clamp, the slew limit, dyntype inputs and actearly
(the input is the next-step dyntype activation)."""
import numpy as np
import pytest
from oracles import require_mujoco

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import GetMujocoActivations, GetMujocoState
from mallard.multibody.plugins import GetPlugin
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

H = 0.002
STEPS = 150


def _xml(actuator: str, config: str) -> str:
    return f"""<mujoco><option timestep="{H}" gravity="0 0 -9.81"/>
  <extension><plugin plugin="mujoco.pid"><instance name="pid">{config}</instance></plugin></extension>
  <worldbody><body><joint name="j" type="slide" axis="0 0 1"/><geom size="0.01" mass="1"/></body></worldbody>
  <actuator><plugin name="a" joint="j" instance="pid" {actuator}/></actuator>
</mujoco>"""


FULL = ('<config key="kp" value="40"/><config key="ki" value="40"/><config key="kd" value="4"/>'
        '<config key="slewmax" value="3"/><config key="imax" value="1"/>')


def _build(xml: str, ctrl: float):
    """The model on a discrete plant (time step H) in a diagram with a SceneGraph, its MJCF ctrl fixed to `ctrl`."""
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, H)
    Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(context)
    GetMujocoCtrlInputPort(plant).FixValue(pc, [ctrl])
    return plant, diagram, context, pc


@pytest.mark.parametrize("actuator,config,ctrl", [
    ('actdim="3" dyntype="filter" dynprm="0.05" actearly="true"', FULL, 0.5),
    ('actdim="3" dyntype="filter" dynprm="0.05" actearly="false"', FULL, 0.5),
    ('actdim="2"', FULL, 0.5),
    ('actdim="2" dyntype="filterexact" dynprm="0.03" actearly="true" actlimited="true" actrange="-0.2 0.3"',
     '<config key="kp" value="60"/><config key="ki" value="20"/><config key="kd" value="2"/>', 0.6),
    ('actdim="1" dyntype="integrator" actearly="true" ctrllimited="true" ctrlrange="-1 1"',
     '<config key="kp" value="30"/><config key="kd" value="3"/>', 2.0),
])
def test_pid_trajectory_matches_mujoco(actuator, config, ctrl):
    mujoco = require_mujoco()
    xml = _xml(actuator, config)
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.ctrl[:] = ctrl
    plant, diagram, context, pc = _build(xml, ctrl)
    assert m.na == len(GetMujocoActivations(plant, pc))
    sim = Simulator(diagram, context)
    for n in (1, 2, 10, 50, STEPS):
        while d.time < n * H - 1e-12:
            mujoco.mj_step(m, d)
        sim.AdvanceTo(n * H)
        qpos, qvel = GetMujocoState(plant, pc)
        np.testing.assert_allclose(qpos, d.qpos, rtol=1e-9, atol=1e-12, err_msg=f"step {n}")
        np.testing.assert_allclose(qvel, d.qvel, rtol=1e-9, atol=1e-12, err_msg=f"step {n}")
        np.testing.assert_allclose(GetMujocoActivations(plant, pc), d.act, rtol=1e-9, atol=1e-12)
    assert abs(d.qpos[0]) > 1e-3  # the controller moved the slider
    assert plant._pipeline.features == []  # the compiled step (pipeline/pid.py), no Python callback


def _pid_trajectory(xml: str, ctrl: float, python_path: bool) -> np.ndarray:
    plant, diagram, context, pc = _build(xml, ctrl)
    if python_path:  # as a plant with a feature the compiled step lacks (UncompiledFeatures) steps
        plant._pipeline.features = ["test: the Python path"]
    sim = Simulator(diagram, context)
    sim.AdvanceTo(60 * H)
    qpos, qvel = GetMujocoState(plant, pc)
    return np.concatenate([qpos, qvel, GetMujocoActivations(plant, pc)])


def test_pid_python_path_equals_compiled_step():
    """A plant on the Python path (plugins.py: the plugin's compute, its slots advanced in the step) and the compiled
    step (pipeline/pid.py) give the same trajectory: slew limit, clamped integral, actearly dyntype input."""
    xml = _xml('actdim="3" dyntype="filter" dynprm="0.05" actearly="true"', FULL)
    compiled, python = _pid_trajectory(xml, 0.5, False), _pid_trajectory(xml, 0.5, True)
    assert abs(compiled[0]) > 1e-3
    np.testing.assert_allclose(python, compiled, rtol=0, atol=1e-12)


def test_pid_sizes_and_config_errors():
    pid = GetPlugin("mujoco.pid")
    assert pid.actdim(pid.ValidateConfig({"ki": "2", "slewmax": "1"})) == 2
    assert pid.actdim(pid.ValidateConfig({"kp": "2"})) == 0
    assert pid.nstate(pid.ValidateConfig({})) == 0
    with pytest.raises(ValueError, match="'imax': value -1 must be >= 0"):
        pid.ValidateConfig({"imax": "-1"})
    with pytest.raises(ValueError, match="'slewmax': value -3 must be >= 0"):
        pid.ValidateConfig({"slewmax": "-3"})
