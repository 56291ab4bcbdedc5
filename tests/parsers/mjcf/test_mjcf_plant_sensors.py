"""MJCF sensors on the plant's `<instance>_sensordata` port against MuJoCo's sensordata at the same state."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.plant._mjcf_sensors import GetMujocoSensorOutputPort
from mallard.multibody.plant._mjcf_state import SetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfUnsupportedWarning

XML = """
<mujoco model="s">
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
    <tendonpos tendon="sp"/><tendonvel tendon="sp"/><tendonactuatorfrc tendon="sp"/><tendonactuatorfrc tendon="t"/>
    <actuatorpos actuator="ms"/><actuatorvel actuator="st"/><actuatorfrc actuator="st"/>
    <accelerometer site="s2"/><accelerometer site="s0" cutoff="3"/>
    <jointpos joint="h" cutoff="0.01"/>
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
        np.testing.assert_allclose(got[a:a + d], md.sensordata[a:a + d], rtol=0, atol=1e-12,
                                   err_msg=f"sensor {i} (type {int(mm.sensor_type[i])})")
    # no stale data: the port follows the context
    SetMujocoState(plant, context, mm.qpos0)
    assert port.Eval(context)[0] == pytest.approx(0.0)


def test_unsupported_sensor_warns_and_reads_zero():
    xml = XML.replace("<clock/>", "<force site=\"s1\"/><clock/>")
    plant = MultibodyPlant(0.002)
    with pytest.warns(MjcfUnsupportedWarning, match="'force'"):
        Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    data = GetMujocoSensorOutputPort(plant).Eval(context)
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(xml)
    k = [int(t) for t in mm.sensor_type].index(int(mujoco.mjtSensor.mjSENS_FORCE))
    np.testing.assert_array_equal(data[mm.sensor_adr[k]:mm.sensor_adr[k] + 3], 0.0)


def test_model_without_sensors_has_no_port():
    plant = MultibodyPlant(0.002)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString("<mujoco model='e'><worldbody><body><freejoint/><geom size='1'/>"
                                          "</body></worldbody></mujoco>", "xml")
    plant.Finalize()
    with pytest.raises(RuntimeError, match="no sensors"):
        GetMujocoSensorOutputPort(plant)
