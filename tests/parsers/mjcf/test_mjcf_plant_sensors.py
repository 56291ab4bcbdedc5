"""MJCF sensors on the plant's `<instance>_sensordata` port against MuJoCo's sensordata at the same state."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import SetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfUnsupportedWarning

XML = """
<mujoco model="s">
  <option magnetic="0.2 -0.4 0.3"/>
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint name="root"/>
      <geom name="g0" type="box" size="0.1 0.2 0.3" pos="0.05 0 0" euler="10 20 30"/>
      <site name="s0" pos="0.1 0.2 0.3" euler="30 0 10"/>
      <body name="arm" pos="0.2 0 0" euler="0 30 0">
        <joint name="h" type="hinge" axis="0 1 0" pos="0 0 0.1"/>
        <joint name="sl" type="slide" axis="1 0 0"/>
        <geom type="capsule" size="0.05" fromto="0 0 0 0.4 0 0"/>
        <site name="s1" pos="0.4 0 0" euler="0 0 45"/>
        <body name="hand" pos="0.4 0 0">
          <joint name="b" type="ball"/>
          <geom type="sphere" size="0.1" pos="0.1 0 0"/>
          <site name="s2" pos="0.1 0.05 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t"><joint joint="h" coef="2"/><joint joint="sl" coef="-0.5"/></fixed>
    <spatial name="sp">
      <site site="s0"/><site site="s1"/><pulley divisor="3"/><site site="s1"/><site site="s2"/>
    </spatial>
  </tendon>
  <actuator>
    <position name="p" joint="h" kp="20" kv="2"/>
    <motor name="m" tendon="t" gear="3"/>
    <motor name="ms" tendon="sp" gear="2"/>
    <general name="st" site="s2" gear="0 1 0 0.3 0 0"/>
  </actuator>
  <sensor>
    <jointpos joint="h"/><jointvel joint="sl"/><ballquat joint="b"/><ballangvel joint="b"/>
    <actuatorpos actuator="p"/><actuatorvel actuator="m"/><actuatorfrc actuator="p"/><jointactuatorfrc joint="h"/>
    <tendonpos tendon="t"/><tendonvel tendon="t"/>
    <framepos objtype="site" objname="s2"/><framepos objtype="body" objname="arm" reftype="site" refname="s0"/>
    <framequat objtype="xbody" objname="hand"/><framequat objtype="geom" objname="g0" reftype="body" refname="hand"/>
    <framexaxis objtype="site" objname="s1"/><framezaxis objtype="site" objname="s1" reftype="xbody" refname="base"/>
    <framelinvel objtype="site" objname="s2"/><framelinvel objtype="site" objname="s2" reftype="site" refname="s0"/>
    <frameangvel objtype="body" objname="hand"/><frameangvel objtype="body" objname="hand" reftype="site" refname="s1"/>
    <subtreecom body="arm"/><subtreelinvel body="base"/>
    <gyro site="s1"/><velocimeter site="s2"/><clock/>
    <magnetometer site="s2"/><magnetometer site="s0" cutoff="0.25"/>
    <tendonpos tendon="sp"/><tendonvel tendon="sp"/><tendonactuatorfrc tendon="sp"/><tendonactuatorfrc tendon="t"/>
    <actuatorpos actuator="ms"/><actuatorvel actuator="st"/><actuatorfrc actuator="st"/>
    <accelerometer site="s2"/><accelerometer site="s0" cutoff="3"/>
    <jointpos joint="h" cutoff="0.01"/>
    <force site="s1"/><torque site="s1"/><force site="s2"/><torque site="s2"/><torque site="s0"/>
    <subtreeangmom body="base"/><subtreeangmom body="hand"/>
    <framelinacc objtype="site" objname="s2"/><frameangacc objtype="body" objname="arm"/>
    <framelinacc objtype="geom" objname="g0"/><frameangacc objtype="xbody" objname="hand"/>
  </sensor>
</mujoco>
"""


def _state(mm, rng):
    qpos = mm.qpos0 + 0.3 * rng.normal(size=mm.nq)
    for j in range(mm.njnt):
        a = mm.jnt_qposadr[j]
        if mm.jnt_type[j] == 0:
            qpos[a + 3:a + 7] /= np.linalg.norm(qpos[a + 3:a + 7])
        elif mm.jnt_type[j] == 1:
            qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
    return qpos, rng.normal(size=mm.nv), rng.uniform(-1.0, 1.0, size=mm.nu)


@pytest.mark.parametrize("seed", [0, 1])
def test_sensordata_matches_mujoco(seed):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(XML)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # the plant has no SceneGraph here
    md = mujoco.MjData(mm)
    qpos, qvel, ctrl = _state(mm, np.random.default_rng(seed))
    md.qpos[:], md.qvel[:], md.ctrl[:], md.time = qpos, qvel, ctrl, 0.7
    mujoco.mj_forward(mm, md)
    plant = MultibodyPlant(0.002)
    Parser(plant).AddModelsFromString(XML, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, qpos, qvel)
    context.SetTime(0.7)
    plant.GetInputPort("s_ctrl").FixValue(context, ctrl)
    port = GetMujocoSensorOutputPort(plant)
    assert port.get_name() == "s_sensordata"
    got = port.Eval(context)
    assert got.shape == (mm.nsensordata,)
    for i in range(mm.nsensor):
        a, d = mm.sensor_adr[i], mm.sensor_dim[i]
        np.testing.assert_allclose(got[a:a + d], md.sensordata[a:a + d], rtol=1e-11, atol=1e-12,
                                   err_msg=f"sensor {i} (type {int(mm.sensor_type[i])})")
    # no stale data: the port follows the context
    SetMujocoState(plant, context, mm.qpos0)
    assert port.Eval(context)[0] == pytest.approx(0.0)


@pytest.mark.parametrize("time_step", [0.0, 0.002])
def test_dynamics_sensors_with_joint_damping(time_step):
    """force / torque / framelinacc / frameangacc / accelerometer on continuous and discrete plants with joint
    damping: both use MuJoCo's qacc (damping explicit) at the context's state (1e-10)."""
    mujoco = require_mujoco()
    xml = XML.replace('<joint name="h" type="hinge" axis="0 1 0" pos="0 0 0.1"/>',
                      '<joint name="h" type="hinge" axis="0 1 0" pos="0 0 0.1" damping="0.3"/>')
    xml = xml.replace('<joint name="b" type="ball"/>', '<joint name="b" type="ball" damping="0.05"/>')
    mm = mujoco.MjModel.from_xml_string(xml)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    qpos, qvel, ctrl = _state(mm, np.random.default_rng(4))
    md.qpos[:], md.qvel[:], md.ctrl[:] = qpos, qvel, ctrl
    mujoco.mj_forward(mm, md)
    plant = MultibodyPlant(time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, qpos, qvel)
    plant.GetInputPort("s_ctrl").FixValue(context, ctrl)
    got = GetMujocoSensorOutputPort(plant).Eval(context)
    kinds = {int(getattr(mujoco.mjtSensor, f"mjSENS_{n}")) for n in
             ("FORCE", "TORQUE", "FRAMELINACC", "FRAMEANGACC", "ACCELEROMETER")}
    checked = 0
    for i in range(mm.nsensor):
        if int(mm.sensor_type[i]) in kinds:
            a, d = mm.sensor_adr[i], mm.sensor_dim[i]
            np.testing.assert_allclose(got[a:a + d], md.sensordata[a:a + d], rtol=1e-10, atol=1e-10,
                                       err_msg=f"sensor {i} (type {int(mm.sensor_type[i])})")
            checked += 1
    assert checked == 11


def test_unsupported_sensor_warns_and_reads_zero():
    xml = XML.replace("<clock/>", "<rangefinder site=\"s1\"/><clock/>")
    plant = MultibodyPlant(0.002)
    with pytest.warns(MjcfUnsupportedWarning, match="'rangefinder'"):
        Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    data = GetMujocoSensorOutputPort(plant).Eval(context)
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(xml)
    k = [int(t) for t in mm.sensor_type].index(int(mujoco.mjtSensor.mjSENS_RANGEFINDER))
    assert data[mm.sensor_adr[k]] == 0.0


def test_model_without_sensors_has_no_port():
    plant = MultibodyPlant(0.002)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString("<mujoco model='e'><worldbody><body><freejoint/><geom size='1'/>"
                                          "</body></worldbody></mujoco>", "xml")
    plant.Finalize()
    with pytest.raises(RuntimeError, match="no sensors"):
        GetMujocoSensorOutputPort(plant)


# ---- force / torque (cfrc_int) and subtreeangmom -----------------------------------------------------------

RNE_POST = ["connect/force_free.xml", "connect/force_slide.xml", "connect/force_slide_rotated.xml",
            "connect/multiple_constraints.xml", "connect/torque_free.xml",
            "weld/force_free.xml", "weld/force_free_rotated.xml", "weld/force_torque_free.xml",
            "weld/force_torque_free_rotated.xml", "weld/force_torque_free_rotated_tendon.xml",
            "weld/tfratio0_force_free.xml", "weld/tfratio0_force_slide.xml", "weld/tfratio0_force_slide_rotated.xml",
            "weld/tfratio0_multiple_constraints.xml", "weld/tfratio0_torque_free.xml"]


def _load_file(path, tolerance=None, scene_graph=False):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_path(str(path))
    if scene_graph:
        from mallard.multibody.plant import AddMultibodyPlantSceneGraph
        from mallard.systems.framework import DiagramBuilder
        builder = DiagramBuilder()
        plant, _ = AddMultibodyPlantSceneGraph(builder, float(mm.opt.timestep))
    else:
        plant = MultibodyPlant(float(mm.opt.timestep))
        mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # no SceneGraph: no contact
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    if tolerance is not None:  # the plant's Newton may stop at its warm start; MuJoCo always iterates once
        plant.set_constraint_solver_options(tolerance=tolerance)
        mm.opt.tolerance = tolerance
    plant.Finalize()
    if scene_graph:
        diagram = builder.Build()
        root = diagram.CreateDefaultContext()
        return mujoco, mm, plant, root, plant.GetMyMutableContextFromRoot(root)
    return mujoco, mm, plant, None, plant.CreateDefaultContext()


@pytest.mark.parametrize("name", RNE_POST)
def test_force_torque_sensors_along_mujoco_trajectory(models_dir, name):
    """force / torque sensors held by connect / weld constraints: sensordata at each of 200 states of MuJoCo's
    trajectory (1e-6; the documented values are the constraint-held weights)."""
    path = models_dir / "mujoco" / "testdata" / "core_smooth" / "rne_post" / name
    mujoco, mm, plant, _root, context = _load_file(path)
    md = mujoco.MjData(mm)
    port = GetMujocoSensorOutputPort(plant)
    for step in range(200):
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, md.qpos, md.qvel)
        np.testing.assert_allclose(port.Eval(context), md.sensordata, rtol=1e-6, atol=1e-6, err_msg=f"step {step}")
        mujoco.mj_step(mm, md)
    assert np.abs(md.sensordata).max() > 0.5


def test_force_torque_sensors_with_contact():
    """A box resting on a floor holding a hinged arm: force / torque at the box and the arm include the contact
    forces (cfrc_ext), touch sensors of each site shape; 200 plant steps against mj_step (1e-6): after a step the
    port holds the sensors of the state the step started from, as mj_step's sensordata."""
    xml = """
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
      <site name="cyl" type="cylinder" size="0.2 0.02" pos="-0.1 0 -0.1"/>
      <site name="cap" type="capsule" size="0.03 0.2" pos="0 0.15 -0.12" euler="0 90 0"/>
      <site name="below" type="sphere" size="0.05" pos="0.2 -0.15 -0.2"/>
      <body name="arm" pos="0.1 0 0.15">
        <joint name="h" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0.1" mass="0.5"/>
        <site name="sa" pos="0 0 0" euler="0 20 0"/>
      </body>
    </body>
  </worldbody>
  <sensor>
    <force site="sb"/><torque site="sb"/><force site="sa"/><torque site="sa"/>
    <subtreeangmom body="box"/><subtreeangmom body="arm"/>
    <touch site="bottom"/><touch site="half"/><touch site="ell"/><touch site="cyl"/><touch site="cap"/>
    <touch site="below"/><touch site="sb"/>
  </sensor>
</mujoco>"""
    import pathlib
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "ft.xml"
        path.write_text(xml)
        mujoco, mm, plant, root, context = _load_file(path, scene_graph=True)
    md = mujoco.MjData(mm)
    port = GetMujocoSensorOutputPort(plant)
    state = context.get_mutable_state()
    contacts = 0
    touch = np.zeros(7)
    mujoco.mj_forward(mm, md)  # before the first step: the sensors at the current state
    np.testing.assert_allclose(port.Eval(context), md.sensordata, rtol=1e-6, atol=1e-6)
    for step in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        root.SetTime(md.time)
        contacts = max(contacts, md.ncon)
        touch = np.maximum(touch, md.sensordata[-7:])
        np.testing.assert_allclose(port.Eval(context), md.sensordata, rtol=1e-6, atol=1e-6, err_msg=f"step {step}")
    assert contacts >= 4
    # a free body's interaction with its parent (world) is zero: contact forces balance its dynamics exactly
    np.testing.assert_allclose(md.sensordata[:6], 0.0, atol=1e-9)
    assert np.abs(md.sensordata[6:12]).max() > 0.1
    # the whole bottom reads every contact; parts of it less, a sphere above nothing
    assert 0 < touch[1] < touch[0] and 0 < touch[3] < touch[0] and touch[6] == 0.0
    np.testing.assert_allclose(touch[2], touch[0])


# ten_armature_4.xml: the MJCF compiler's principal axes of one body's inertia differ from MuJoCo's by 6e-7
@pytest.mark.parametrize("name, atol", [("actuation/refsite_free.xml", 1e-9), ("core_smooth/ten_armature_4.xml", 2e-6)])
def test_subtree_sensors_at_random_states(models_dir, name, atol):
    """subtreeangmom / subtreelinvel at random states."""
    path = models_dir / "mujoco" / "testdata" / name
    mujoco, mm, plant, _root, context = _load_file(path)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(3)
    types = [int(t) for t in mm.sensor_type]
    assert int(mujoco.mjtSensor.mjSENS_SUBTREEANGMOM) in types
    port = GetMujocoSensorOutputPort(plant)
    for _ in range(3):
        qpos, qvel, ctrl = _state(mm, rng)
        md.qpos[:], md.qvel[:], md.ctrl[:] = qpos, qvel, ctrl
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, qpos, qvel)
        if mm.nu:
            from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
            GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        got = port.Eval(context)
        for i in range(mm.nsensor):
            a, d = mm.sensor_adr[i], mm.sensor_dim[i]
            if types[i] in (int(mujoco.mjtSensor.mjSENS_SUBTREEANGMOM), int(mujoco.mjtSensor.mjSENS_SUBTREELINVEL)):
                np.testing.assert_allclose(got[a:a + d], md.sensordata[a:a + d], rtol=0, atol=atol)


TENDON_XML = """
<mujoco model="tf">
  <worldbody>
    <site name="w" pos="0 0 2"/>
    <body name="a" pos="0 0 1">
      <joint type="hinge" axis="0 1 0"/><geom size=".1" mass="1"/><site name="s0" pos=".2 0 0"/>
      <body name="b" pos="0.5 0 0">
        <joint type="hinge" axis="0 1 0"/><joint type="hinge" axis="1 0 0"/>
        <geom type="capsule" size=".05" fromto="0 0 0 .3 0 0" mass="1"/>
        <site name="s1" pos=".2 0 .1"/><site name="s2" pos=".3 0 -.05" euler="0 30 0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="t" stiffness="3" springlength="0.3" damping="0.5" frictionloss="0.4" range="0 1.29">
      <site site="w"/><site site="s0"/><pulley divisor="2"/><site site="s0"/><site site="s1"/>
    </spatial>
  </tendon>
  <actuator><motor tendon="t" gear="1.5"/></actuator>
  <sensor>
    <force site="s0"/><torque site="s0"/><force site="s2"/><torque site="s2"/>
  </sensor>
</mujoco>"""


# the same with a tendon wrapping a sphere (side site) and a cylinder: forces at the tangent points
WRAP_XML = TENDON_XML.replace(
    '<geom size=".1" mass="1"/><site name="s0" pos=".2 0 0"/>',
    '<geom name="ball" size=".2" mass="1"/><site name="s0" pos=".2 0 -.3"/><site name="side" pos="0 0 .3"/>'
    '<geom name="cyl" type="cylinder" size=".08 .05" pos=".45 0 -.1" euler="90 0 0" mass=".2"/>').replace(
    '<site site="w"/><site site="s0"/><pulley divisor="2"/><site site="s0"/><site site="s1"/>',
    '<site site="w"/><geom geom="ball" sidesite="side"/><site site="s0"/><pulley divisor="2"/>'
    '<site site="s0"/><geom geom="cyl"/><site site="s1"/>').replace('range="0 1.29"', 'range="0 1.658"')


@pytest.mark.parametrize("xml", [TENDON_XML, WRAP_XML], ids=["sites", "wrap"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_force_sensors_with_spatial_tendon_forces(seed, xml):
    """Spatial tendons pull at their path points (MuJoCo 4's cfrc_ext): actuator, spring / damper, limit and
    friction forces of a tendon with a pulley, sites and wrapping geoms (1e-9)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    qpos, qvel, ctrl = _state(mm, rng)
    md.qpos[:], md.qvel[:], md.ctrl[:] = qpos, qvel, ctrl
    mujoco.mj_forward(mm, md)
    plant = MultibodyPlant(float(mm.opt.timestep))
    Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, qpos, qvel)
    plant.GetInputPort("tf_ctrl").FixValue(context, ctrl)
    np.testing.assert_allclose(GetMujocoSensorOutputPort(plant).Eval(context), md.sensordata, rtol=1e-9,
                               atol=1e-9)
    assert np.abs(md.sensordata).max() > 0.5
