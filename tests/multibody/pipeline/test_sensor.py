"""MJCF sensors on the compiled step (pipeline/sensor.py, sensor_acc.py): sensordata against MuJoCo's (at a state,
as mj_forward; along a trajectory, as mj_step leaves it: computed at the state each step starts from) and against
the plant's Python path at the same state."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import SetMujocoState
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

# every sensor type of the position, velocity and acceleration stages on joints, tendons, actuators and frames
XML = """
<mujoco model="s">
  <option magnetic="0.2 -0.4 0.3"/>
  <worldbody>
    <site name="w" pos="0 0.3 2" euler="0 20 0"/>
    <body name="base" pos="0 0 1">
      <freejoint name="root"/>
      <geom name="g0" type="box" size="0.1 0.2 0.3" pos="0.05 0 0" euler="10 20 30"/>
      <site name="s0" pos="0.1 0.2 0.3" euler="30 0 10"/>
      <body name="arm" pos="0.2 0 0" euler="0 30 0">
        <joint name="h" type="hinge" axis="0 1 0" pos="0 0 0.1" ref="0.3" damping="0.2"/>
        <joint name="sl" type="slide" axis="1 0 0"/>
        <geom type="capsule" size="0.05" fromto="0 0 0 0.4 0 0"/>
        <site name="s1" pos="0.4 0 0" euler="0 0 45"/>
        <body name="hand" pos="0.4 0 0" quat="0 1 0 0">
          <joint name="b" type="ball"/>
          <geom type="sphere" size="0.1" pos="0.1 0 0"/>
          <site name="s2" pos="0.1 0.05 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t"><joint joint="h" coef="2"/><joint joint="sl" coef="-0.5"/></fixed>
    <spatial name="sp" stiffness="3" springlength="0.2" damping="0.4">
      <site site="w"/><site site="s0"/><pulley divisor="3"/><site site="s1"/><site site="s2"/>
    </spatial>
  </tendon>
  <actuator>
    <position name="p" joint="h" kp="20" kv="2"/>
    <motor name="m" tendon="t" gear="3"/>
    <motor name="ms" tendon="sp" gear="2"/>
  </actuator>
  <sensor>
    <jointpos joint="h"/><jointvel joint="sl"/><ballquat joint="b"/><ballangvel joint="b"/>
    <actuatorpos actuator="p"/><actuatorvel actuator="m"/><actuatorfrc actuator="p"/><jointactuatorfrc joint="h"/>
    <tendonpos tendon="t"/><tendonvel tendon="t"/><tendonpos tendon="sp"/><tendonvel tendon="sp"/>
    <tendonactuatorfrc tendon="sp"/><tendonactuatorfrc tendon="t"/><actuatorpos actuator="ms"/>
    <framepos objtype="site" objname="s2"/><framepos objtype="body" objname="arm" reftype="site" refname="s0"/>
    <framequat objtype="xbody" objname="hand"/><framequat objtype="geom" objname="g0" reftype="body" refname="hand"/>
    <framequat objtype="site" objname="s2"/><framequat objtype="site" objname="w" reftype="xbody" refname="arm"/>
    <framexaxis objtype="site" objname="s1"/><framezaxis objtype="site" objname="s1" reftype="xbody" refname="base"/>
    <framelinvel objtype="site" objname="s2"/><framelinvel objtype="site" objname="s2" reftype="site" refname="s0"/>
    <frameangvel objtype="body" objname="hand"/><frameangvel objtype="body" objname="hand" reftype="site" refname="s1"/>
    <subtreecom body="arm"/><subtreelinvel body="base"/><subtreeangmom body="base"/><subtreeangmom body="hand"/>
    <gyro site="s1"/><velocimeter site="s2"/><clock/>
    <magnetometer site="s2"/><magnetometer site="w" cutoff="0.25"/>
    <accelerometer site="s2"/><accelerometer site="s0" cutoff="3"/><accelerometer site="w"/>
    <jointpos joint="h" cutoff="0.01"/>
    <force site="s1"/><torque site="s1"/><force site="s2"/><torque site="s2"/><torque site="s0"/>
    <framelinacc objtype="site" objname="s2"/><frameangacc objtype="body" objname="arm"/>
    <framelinacc objtype="geom" objname="g0"/><frameangacc objtype="xbody" objname="hand"/>
    <framelinacc objtype="site" objname="w"/>
  </sensor>
</mujoco>
"""


def _state(mm, rng):
    qpos = mm.qpos0 + 0.8 * rng.normal(size=mm.nq)
    for j in range(mm.njnt):
        a = mm.jnt_qposadr[j]
        if mm.jnt_type[j] == 0:
            qpos[a + 3:a + 7] /= np.linalg.norm(qpos[a + 3:a + 7])
        elif mm.jnt_type[j] == 1:
            qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
    return qpos, rng.normal(size=mm.nv), rng.uniform(-1.0, 1.0, size=mm.nu)


def _check(got, mm, want, tol, what):
    for i in range(mm.nsensor):
        a, d = mm.sensor_adr[i], mm.sensor_dim[i]
        np.testing.assert_allclose(got[a:a + d], want[a:a + d], rtol=tol, atol=tol,
                                   err_msg=f"{what}: sensor {i} (type {int(mm.sensor_type[i])})")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sensors_at_a_state_match_mujoco_and_the_python_path(seed):
    """Every supported type at random states (quaternions with w < 0 included: framequat follows MuJoCo's sign):
    the compiled step's sensordata equals mj_forward's and the Python path's (1e-9)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(XML)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # no SceneGraph: no contact
    md = mujoco.MjData(mm)
    qpos, qvel, ctrl = _state(mm, np.random.default_rng(seed))
    md.qpos[:], md.qvel[:], md.ctrl[:], md.time = qpos, qvel, ctrl, 0.7
    mujoco.mj_forward(mm, md)
    plant = MultibodyPlant(float(mm.opt.timestep))
    Parser(plant).AddModelsFromString(XML, "xml")
    plant.Finalize()
    assert UncompiledFeatures(plant) == []
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, qpos, qvel)
    context.SetTime(0.7)
    GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    port = GetMujocoSensorOutputPort(plant)
    got = port.Eval(context).copy()
    assert got.shape == (mm.nsensordata,)
    _check(got, mm, md.sensordata, 1e-9, "MuJoCo")
    # the Python path: the same values but where it departs from MuJoCo (framequat canonical with w >= 0, objects
    # on the world not accelerating by −g)
    plant._pipeline.features = ["the Python path"]
    py = port.Eval(context.Clone())
    mj = mujoco.mjtSensor
    world = int(mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_SITE, "w"))
    for i in range(mm.nsensor):
        a, d, tp = mm.sensor_adr[i], mm.sensor_dim[i], int(mm.sensor_type[i])
        want = py[a:a + d]
        if tp == mj.mjSENS_FRAMEQUAT:
            want = want * np.sign(want @ got[a:a + d])
        if tp in (mj.mjSENS_ACCELEROMETER, mj.mjSENS_FRAMELINACC) and mm.sensor_objid[i] == world \
                and mm.sensor_objtype[i] == mujoco.mjtObj.mjOBJ_SITE:
            continue
        np.testing.assert_allclose(got[a:a + d], want, rtol=1e-9, atol=1e-9, err_msg=f"Python path: sensor {i}")
    assert np.abs(md.sensordata).max() > 1.0


CONTACT_XML = """
<mujoco model="ft">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="box" pos="0 0 0.12" euler="0 0 20">
      <freejoint/>
      <geom type="box" size="0.2 0.15 0.1" mass="2"/>
      <site name="sb" pos="0.05 0 0.1" euler="10 0 30"/>
      <site name="bottom" type="box" size="0.21 0.16 0.02" pos="0 0 -0.1"/>
      <site name="half" type="box" size="0.12 0.16 0.02" pos="0.1 0 -0.1"/>
      <site name="ell" type="ellipsoid" size="0.3 0.22 0.03" pos="0 0 -0.1"/>
      <site name="cap" type="capsule" size="0.03 0.2" pos="0 0.15 -0.12" euler="0 90 0"/>
      <body name="arm" pos="0.1 0 0.15">
        <joint name="h" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0.1" mass="0.5"/>
        <site name="sa" pos="0 0 0" euler="0 20 0"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="mh" joint="h" gear="2"/></actuator>
  <sensor>
    <force site="sb"/><torque site="sb"/><force site="sa"/><torque site="sa"/><accelerometer site="sb"/>
    <gyro site="sa"/><framequat objtype="site" objname="sb"/><actuatorfrc actuator="mh"/><clock/>
    <touch site="bottom"/><touch site="half"/><touch site="ell"/><touch site="cap"/>
  </sensor>
</mujoco>"""


def _contact_scene(tmp_path, sampled=True):
    mujoco = require_mujoco()
    path = Path(tmp_path) / "ft.xml"
    path.write_text(CONTACT_XML)
    mm = mujoco.MjModel.from_xml_path(str(path))
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, float(mm.opt.timestep))
    plant.SetUseSampledOutputPorts(sampled)
    Parser(plant).AddModels(str(path))
    plant.Finalize()
    diagram = builder.Build()
    return mujoco, mm, plant, diagram


def test_sensors_along_a_trajectory_follow_mj_step(tmp_path):
    """A box with a hinged arm dropped on a floor, stepped by the Simulator: after each step the port holds the
    sensors of the state the step started from, as mj_step's sensordata (force / torque with contact forces,
    touch, accelerometer, clock; 1e-6), and a clone taken mid-trajectory carries them."""
    mujoco, mm, plant, diagram = _contact_scene(tmp_path)
    assert UncompiledFeatures(plant) == []
    md = mujoco.MjData(mm)
    md.ctrl[:] = 0.4
    simulator = Simulator(diagram)
    root = simulator.get_mutable_context()
    context = plant.GetMyMutableContextFromRoot(root)
    GetMujocoCtrlInputPort(plant).FixValue(context, md.ctrl)
    port = GetMujocoSensorOutputPort(plant)
    mujoco.mj_forward(mm, md)  # before any step: the sensors at the current state
    np.testing.assert_allclose(port.Eval(context), md.sensordata, rtol=1e-9, atol=1e-9)
    h = float(mm.opt.timestep)
    touch, contacts = np.zeros(4), 0
    for k in range(1, 201):
        mujoco.mj_step(mm, md)
        simulator.AdvanceTo(k * h)
        got = port.Eval(context)
        np.testing.assert_allclose(got, md.sensordata, rtol=1e-6, atol=1e-6, err_msg=f"step {k}")
        touch, contacts = np.maximum(touch, md.sensordata[-4:]), max(contacts, md.ncon)
        if k == 100:
            clone = root.Clone()
            np.testing.assert_array_equal(port.Eval(plant.GetMyContextFromRoot(clone)), got)
    assert contacts >= 4 and np.isclose(md.sensordata[-5], 200 * h - h)  # the clock of the last step's start
    assert 0 < touch[1] < touch[0] and touch[3] > 0
    np.testing.assert_allclose(touch[2], touch[0])


def test_unsampled_ports_read_the_current_state(tmp_path):
    """Without sampled output ports the sensors are those of the step that starts at the context's state (as
    mj_forward there)."""
    mujoco, mm, plant, diagram = _contact_scene(tmp_path, sampled=False)
    md = mujoco.MjData(mm)
    simulator = Simulator(diagram)
    context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    GetMujocoCtrlInputPort(plant).FixValue(context, np.zeros(mm.nu))
    port = GetMujocoSensorOutputPort(plant)
    h = float(mm.opt.timestep)
    for k in range(1, 31):
        mujoco.mj_step(mm, md)
        simulator.AdvanceTo(k * h)
    mujoco.mj_forward(mm, md)
    np.testing.assert_allclose(port.Eval(context), md.sensordata, rtol=1e-6, atol=1e-6)


def _menagerie() -> Path | None:
    """The Menagerie checkout extracted by benchmarks/corpus/fetch.py (this checkout's or a sibling main's)."""
    repo = Path(__file__).resolve().parents[3]
    for folder in (repo, *(p / "main" for p in repo.parents)):
        path = folder / "benchmarks" / "corpus" / "data" / "menagerie"
        if path.is_dir():
            return path
    return None


# g1's accelerometer reads qacc, whose dof-friction rows the two solvers (warm-started from their own last step)
# solve to their tolerances: 1e-3 there
@pytest.mark.parametrize("name, acc_tol", [("google_barkour_vb/barkour_vb_mjx.xml", 1e-6),
                                           ("unitree_g1/g1_mjx.xml", 1e-3)])
def test_menagerie_imu_sensors_follow_mj_step(name, acc_tol):
    """Menagerie robots' IMU and joint sensors (accelerometer, gyro, velocimeter, framequat, framepos, frame
    velocities, jointpos / jointvel) along 100 steps of a fall from the home keyframe, the servos driven off it;
    each plant step starts from MuJoCo's state (the sensors, not the trajectories, are compared here)."""
    mujoco = require_mujoco()
    root = _menagerie()
    if root is None or not (root / name).is_file():
        pytest.skip("the Menagerie corpus is not extracted (python benchmarks/corpus/fetch.py)")
    path = str(root / name)
    mm = mujoco.MjModel.from_xml_path(path)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # no SceneGraph: no (self-)contact
    md = mujoco.MjData(mm)
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(path)
    plant.Finalize()
    assert UncompiledFeatures(plant) == []
    context = plant.CreateDefaultContext()
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    home = md.qpos[7:7 + mm.nu] if mm.nu <= mm.nq - 7 else 0.0
    md.ctrl[:] = home + 0.5 * np.random.default_rng(0).uniform(-1.0, 1.0, mm.nu)  # the limbs swing while falling
    SetMujocoState(plant, context, md.qpos, md.qvel)
    GetMujocoCtrlInputPort(plant).FixValue(context, md.ctrl)
    port = GetMujocoSensorOutputPort(plant)
    state = context.get_mutable_state()
    for k in range(100):
        SetMujocoState(plant, context, md.qpos, md.qvel)
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        context.SetTime(md.time)
        got = port.Eval(context)
        for i in range(mm.nsensor):
            a, d = mm.sensor_adr[i], mm.sensor_dim[i]
            tol = acc_tol if mm.sensor_type[i] == mujoco.mjtSensor.mjSENS_ACCELEROMETER else 1e-6
            np.testing.assert_allclose(got[a:a + d], md.sensordata[a:a + d], rtol=tol, atol=tol,
                                       err_msg=f"{name} step {k}: sensor {i} (type {int(mm.sensor_type[i])})")
    gyro = [i for i in range(mm.nsensor) if mm.sensor_type[i] == mujoco.mjtSensor.mjSENS_GYRO]
    assert max(np.abs(md.sensordata[mm.sensor_adr[i]:mm.sensor_adr[i] + 3]).max() for i in gyro) > 0.1


# MuJoCo 4's insidesite: a small sphere slid through five sites of every shape (test/engine/testdata/sensor's
# model, with body and xbody objects and a tilted slide)
INSIDE_XML = """
<mujoco>
  <option timestep="0.01"><flag gravity="disable"/></option>
  <worldbody>
    <body name="q" pos="0 0 1">
      <joint type="slide" axis="1 0 0.05"/>
      <geom name="query" type="sphere" size=".02" pos=".01 0 0" contype="0" conaffinity="0"/>
      <site name="qs" pos="-.02 .01 0"/>
    </body>
    <site name="sphere"    type="sphere"    size=".11"                           pos="-.5 0 1"/>
    <site name="capsule"   type="capsule"   size=".08 .15"     euler="20 -40 60" pos="-.25 0 1"/>
    <site name="ellipsoid" type="ellipsoid" size=".11 .15 .09" euler="20 40 -60" pos="0 0 1"/>
    <site name="cylinder"  type="cylinder"  size=".09 .12"     euler="-20 40 60" pos=".25 0 1"/>
    <site name="box"       type="box"       size=".08 .1 .14"  euler="20 -40 60" pos=".5 0 1"/>
  </worldbody>
  <sensor>
    <insidesite site="sphere" objtype="geom" objname="query"/>
    <insidesite site="capsule" objtype="site" objname="qs"/>
    <insidesite site="ellipsoid" objtype="body" objname="q"/>
    <insidesite site="cylinder" objtype="xbody" objname="q"/>
    <insidesite site="box" objtype="geom" objname="query"/>
  </sensor>
  <keyframe><key qpos="-.7" qvel="1.4"/></keyframe>
</mujoco>
"""


def test_insidesite_follows_mj_step():
    """insidesite (1 while the object's origin is inside the site's volume) on the compiled step along mj_step, and
    on the Python path (a continuous plant) at the same states: each site is entered and left."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(INSIDE_XML)
    md = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    plant = MultibodyPlant(float(mm.opt.timestep))
    Parser(plant).AddModelsFromString(INSIDE_XML, "xml")
    plant.Finalize()
    assert UncompiledFeatures(plant) == []
    continuous = MultibodyPlant(0.0)
    Parser(continuous).AddModelsFromString(INSIDE_XML, "xml")
    continuous.Finalize()
    context, ccontext = plant.CreateDefaultContext(), continuous.CreateDefaultContext()
    port, cport = GetMujocoSensorOutputPort(plant), GetMujocoSensorOutputPort(continuous)
    seen = np.zeros(mm.nsensordata)
    for k in range(100):
        mujoco.mj_forward(mm, md)
        for p, c, what in ((plant, context, "compiled"), (continuous, ccontext, "python")):
            SetMujocoState(p, c, md.qpos, md.qvel)
            got = (port if p is plant else cport).Eval(c)
            np.testing.assert_array_equal(got, md.sensordata, err_msg=f"{what} at step {k}")
        seen += md.sensordata
        mujoco.mj_step(mm, md)
    assert np.all(seen > 0) and np.all(seen < 100)
