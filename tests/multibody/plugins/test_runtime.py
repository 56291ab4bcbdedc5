"""PluginRuntime: the plant-side hooks, driven by hand on an MJCF model (a DC motor spinning a flywheel)."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mallard.geometry.collision.sdf import SDF_BOWL, USER
from mallard.multibody.plugins import (Capability, ConfigAttribute, Plugin, PluginRuntime, RegisterPlugin,
                                       UnregisterPlugin)
from mallard.parsers.mjcf import load_mjcf

R_, L_, K_, RTH, CTH = 2.0, 0.05, 0.2, 3.0, 4.0
MODEL = f"""<mujoco>
  <extension>
    <plugin plugin="mallard.actuator.dcmotor"><instance name="motor">
      <config key="resistance" value="{R_}"/><config key="inductance" value="{L_}"/>
      <config key="motorconst" value="{K_}"/><config key="thermalresistance" value="{RTH}"/>
      <config key="thermalcapacitance" value="{CTH}"/>
    </instance></plugin>
    <plugin plugin="mujoco.sdf.bowl"><instance name="bowl"/></plugin>
  </extension>
  <worldbody>
    <geom type="sdf" name="bowl"><plugin instance="bowl"/></geom>
    <body name="wheel"><joint name="spin" damping="0"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.02"/></body>
  </worldbody>
  <actuator><plugin name="motor" joint="spin" instance="motor" gear="2"/></actuator>
  <sensor><jointvel joint="spin"/><plugin name="temperature" instance="motor"/></sensor>
</mujoco>"""
J, GEAR, V = 0.02, 2.0, 6.0


def _simulate(runtime, model, t_end, dt):
    state = np.zeros(runtime.nstate)
    runtime.Reset(state)
    omega, act = 0.0, np.zeros(model.na)
    ctrl = np.array([V])
    force, act_dot = np.zeros(1), np.zeros(model.na)
    for step in range(int(round(t_end / dt))):
        length, velocity = np.zeros(1), np.array([GEAR * omega])  # transmission: length = gear q
        runtime.ComputeActuators(step * dt, state, ctrl, act, length, velocity, force, act_dot)
        omega += dt * GEAR * force[0] / J  # generalized force = gear x scalar actuator force
        act += dt * act_dot
        runtime.Advance((step + 1) * dt, dt, state, ctrl, act, length, np.array([GEAR * omega]))
    sensordata = np.zeros(2)
    runtime.ComputeSensors(t_end, state, ctrl, act, np.zeros(1), np.array([GEAR * omega]), sensordata, "vel")
    return omega, act, state, sensordata


def test_motor_plugin_force_drives_the_dynamics_exactly():
    model = load_mjcf(MODEL)
    runtime = PluginRuntime.FromMjcf(model)
    assert runtime.nstate == 1 and model.na == 1
    omega, act, state, sensordata = _simulate(runtime, model, 1.0, 1e-4)

    def rhs(t, y):
        w, i, temp = y
        return [GEAR * K_ * i / J, (V - R_ * i - K_ * GEAR * w) / L_, (R_ * i * i - (temp - 25.0) / RTH) / CTH]

    ref = solve_ivp(rhs, (0, 1.0), [0.0, 0.0, 25.0], rtol=1e-10, atol=1e-12).y[:, -1]
    assert omega == pytest.approx(ref[0], rel=2e-3)
    assert act[0] == pytest.approx(ref[1], rel=2e-3, abs=1e-3)
    assert state[0] == pytest.approx(ref[2], rel=1e-3)
    assert sensordata[1] == state[0]  # the thermometer reads the shared instance's state
    assert sensordata[0] == 0.0  # non-plugin sensors are left to the plant


def test_plugin_state_round_trips_and_data_is_rebuilt():
    model = load_mjcf(MODEL)
    runtime = PluginRuntime.FromMjcf(model)
    omega, act, state, _ = _simulate(runtime, model, 0.2, 1e-3)
    clone = pickle.loads(pickle.dumps((runtime, state.copy(), act.copy())))
    rt2, state2, act2 = clone
    assert rt2.cache._data == {}
    f1, f2, d1, d2 = np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1)
    runtime.ComputeActuators(0.2, state, np.array([V]), act, np.zeros(1), np.array([GEAR * omega]), f1, d1)
    rt2.ComputeActuators(0.2, state2, np.array([V]), act2, np.zeros(1), np.array([GEAR * omega]), f2, d2)
    assert f1[0] == f2[0] and d1[0] == d2[0]
    with pytest.raises(ValueError, match=r"plugin state must have shape \(1,\)"):
        runtime.Reset(np.zeros(3))


def test_sdf_shapes_for_collision():
    model = load_mjcf(MODEL)
    runtime = PluginRuntime.FromMjcf(model)
    bowl = runtime.SdfShape(model.geoms[0].plugin)
    assert bowl.kind == SDF_BOWL
    np.testing.assert_array_equal(bowl.params, [0.4, 1.0, 0.02])
    with pytest.raises(ValueError, match="is not an SDF"):
        runtime.SdfShape(0)


class Sphere(Plugin):
    """A user SDF (no compiled kernel): a sphere whose radius is the config."""

    name = "test.sdf.sphere"
    capabilities = Capability.SDF
    attributes = (ConfigAttribute("radius", "real", default=0.5, low=0.0, open_low=True),)

    def init(self, instance, state):
        return instance.config["radius"]

    def sdf_distance(self, p, data):
        return float(np.linalg.norm(p)) - data

    def sdf_gradient(self, p, data):
        return np.asarray(p) / np.linalg.norm(p)

    def sdf_staticdistance(self, p, config):
        return float(np.linalg.norm(p)) - float(config.get("radius", 0.5))

    def sdf_aabb(self, config):
        r = float(config.get("radius", 0.5))
        return np.array([0, 0, 0, r, r, r])


class Spring(Plugin):
    """A passive body plugin: q'' forcing -k q on every dof."""

    name = "test.passive.runtime_spring"
    capabilities = Capability.PASSIVE
    attributes = (ConfigAttribute("k", "real", default=3.0),)

    def compute(self, capability, instance, data, frame):
        frame.qfrc_passive[:] = -instance.config["k"] * frame.qpos


@pytest.fixture
def user_plugins():
    RegisterPlugin(Sphere)
    RegisterPlugin(Spring)
    yield
    UnregisterPlugin(Sphere.name)
    UnregisterPlugin(Spring.name)


def test_user_sdf_and_passive_plugins(user_plugins):
    model = load_mjcf("""<mujoco>
      <extension><plugin plugin="test.sdf.sphere"/><plugin plugin="test.passive.runtime_spring"/></extension>
      <asset><mesh name="ball"><plugin plugin="test.sdf.sphere"><config key="radius" value="0.3"/></plugin></mesh>
      </asset>
      <worldbody><geom type="sdf" mesh="ball"><plugin plugin="test.sdf.sphere">
        <config key="radius" value="0.3"/></plugin></geom>
        <body><joint/><geom size="0.1"/><plugin plugin="test.passive.runtime_spring"/></body></worldbody>
    </mujoco>""")
    assert model.meshes[0].volume == pytest.approx(4 / 3 * np.pi * 0.3 ** 3, rel=0.02)
    runtime = PluginRuntime.FromMjcf(model)
    shape = runtime.SdfShape(model.geoms[0].plugin)
    assert shape.kind == USER and shape.Distance(np.array([0.5, 0, 0])) == pytest.approx(0.2)
    qfrc = np.ones(1)
    runtime.ComputePassive(0.0, np.zeros(0), np.array([0.5]), np.zeros(1), qfrc)
    assert qfrc[0] == pytest.approx(1.0 - 1.5)


def test_dyntype_activation_is_the_plugin_input():
    model = load_mjcf("""<mujoco>
      <extension><plugin plugin="mallard.actuator.dcmotor"/></extension>
      <worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>
      <actuator><plugin joint="j" plugin="mallard.actuator.dcmotor" dyntype="integrator">
        <config key="inductance" value="0.01"/></plugin></actuator>
    </mujoco>""")
    act_rec = model.actuators[0]
    assert (act_rec.actdim, act_rec.plugin_actdim, model.na) == (2, 1, 2)
    runtime = PluginRuntime.FromMjcf(model)
    state = np.zeros(1)
    runtime.Reset(state)
    act = np.array([1.5, 7.0])  # [plugin current, integrator activation = the voltage the motor sees]
    force, act_dot = np.zeros(1), np.zeros(2)
    runtime.ComputeActuators(0.0, state, np.array([100.0]), act, np.zeros(1), np.array([3.0]), force, act_dot)
    assert force[0] == pytest.approx(0.1 * 1.5)
    assert act_dot[0] == pytest.approx((7.0 - 1.0 * 1.5 - 0.1 * 3.0) / 0.01)
    assert act_dot[1] == 0.0  # the dyntype's own rate is the plant's (integrator: ctrl)
