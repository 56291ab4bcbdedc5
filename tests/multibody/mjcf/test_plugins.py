"""MJCF engine plugins in MultibodyPlant: plugin state in the Context, the DC-motor actuator and its shared
thermometer sensor, plugin activation state, and errors (multibody/mjcf/plugins.py)."""
import pickle

import numpy as np
import pytest

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, GetMujocoCtrlInputPort
from mallard.multibody.mjcf.plugins import GetMujocoPluginState, SetMujocoPluginState
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import GetMujocoActivations
from mallard.multibody.plugins.dcmotor import dcmotor_derivatives, dcmotor_temperature_step
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

H = 0.002
CONFIG = dict(resistance=2.0, inductance=0.0, motorconst=0.5, ambient=25.0, thermalresistance=2.0,
              thermalcapacitance=10.0, tempcoef=0.004)


def _motor_xml(inductance: float = 0.0, extra_actuator: str = "") -> str:
    cfg = dict(CONFIG, inductance=inductance)
    conf = "".join(f'<config key="{k}" value="{v}"/>' for k, v in cfg.items())
    return f"""
<mujoco model="motor">
  <extension><plugin plugin="mallard.actuator.dcmotor"><instance name="m1">{conf}</instance></plugin></extension>
  <option timestep="{H}" gravity="0 0 0"/>
  <worldbody>
    <body name="arm"><joint name="hinge" type="hinge" axis="0 0 1" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body>
  </worldbody>
  <actuator><plugin name="motor" joint="hinge" instance="m1" gear="2" {extra_actuator}/></actuator>
  <sensor><plugin name="temperature" instance="m1"/><actuatorfrc actuator="motor"/><jointvel joint="hinge"/></sensor>
</mujoco>"""


def _build(xml: str, time_step: float = H, voltage: float = 6.0):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
    Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(context)
    GetMujocoCtrlInputPort(plant).FixValue(pc, [voltage])
    return plant, diagram, context, pc


def test_plugin_state_defaults_and_sensor_port_shared_instance():
    plant, _, _, pc = _build(_motor_xml())
    np.testing.assert_array_equal(GetMujocoPluginState(plant, pc), [25.0])  # reset: ambient temperature
    data = GetMujocoSensorOutputPort(plant).Eval(pc)
    assert data.shape == (3,)
    assert data[0] == 25.0  # the thermometer of the motor instance
    # at rest the quasi-static current is V / R, so the actuator force is K V / R
    assert data[1] == pytest.approx(0.5 * 6.0 / 2.0, rel=1e-14)
    SetMujocoPluginState(plant, pc, [40.0])
    data = GetMujocoSensorOutputPort(plant).Eval(pc)
    assert data[0] == 40.0
    r = 2.0 * (1 + 0.004 * (40.0 - 25.0))
    assert data[1] == pytest.approx(0.5 * 6.0 / r, rel=1e-14)  # hot winding: larger resistance, less force


def test_plugin_actuator_matches_motor_recurrence():
    """The plant's steps equal the motor ODE stepped as mj_step does (semi-implicit Euler, implicit damping,
    temperature advanced after the step with the pre-step current)."""
    plant, diagram, context, pc = _build(_motor_xml())
    inertia = plant.CalcMassMatrix(pc)[0, 0]
    d, gear, K = 0.05, 2.0, 0.5
    v, T = 0.0, 25.0
    sim = Simulator(diagram, context)
    for n in range(1, 151):
        R = CONFIG["resistance"] * (1 + CONFIG["tempcoef"] * (T - 25.0))
        i = (6.0 - K * gear * v) / R
        tau = gear * K * i
        v_next = v + H * (tau - d * v) / (inertia + H * d)
        T = dcmotor_temperature_step(dict(CONFIG), T, i, H)
        v = v_next
        if n % 50 == 0:
            sim.AdvanceTo(n * H)
            assert plant.GetVelocities(pc)[0] == pytest.approx(v, rel=1e-10, abs=1e-12)
            assert GetMujocoPluginState(plant, pc)[0] == pytest.approx(T, rel=1e-12)
    assert T > 25.0 and v > 0.5  # the motor spun up and heated


def test_plugin_state_clone_and_pickle_round_trip():
    plant, diagram, context, pc = _build(_motor_xml())
    sim = Simulator(diagram, context)
    sim.AdvanceTo(0.1)
    T = GetMujocoPluginState(plant, pc)[0]
    assert T > 25.0
    clone = context.Clone()
    restored = pickle.loads(pickle.dumps(context))
    for other in (clone, restored):
        opc = plant.GetMyContextFromRoot(other)
        assert GetMujocoPluginState(plant, opc)[0] == T
        np.testing.assert_array_equal(GetMujocoSensorOutputPort(plant).Eval(opc),
                                      GetMujocoSensorOutputPort(plant).Eval(pc))
    sim.AdvanceTo(0.2)
    sim2 = Simulator(diagram, restored)
    sim2.AdvanceTo(0.2)
    rpc = plant.GetMyContextFromRoot(restored)
    assert GetMujocoPluginState(plant, rpc)[0] == GetMujocoPluginState(plant, pc)[0]
    np.testing.assert_array_equal(plant.GetPositions(rpc), plant.GetPositions(pc))
    assert GetMujocoPluginState(plant, plant.GetMyContextFromRoot(clone))[0] == T  # the clone is independent


def test_plugin_activation_slot_is_the_motor_current():
    """With inductance the current is a plugin activation slot, advanced by Euler from the plugin's di/dt."""
    L = 0.01
    plant, diagram, context, pc = _build(_motor_xml(inductance=L))
    cfg = dict(CONFIG, inductance=L)
    np.testing.assert_array_equal(GetMujocoActivations(plant, pc), [0.0])
    assert GetMujocoSensorOutputPort(plant).Eval(pc)[1] == 0.0  # no current yet: no force
    sim = Simulator(diagram, context)
    i, T, v = 0.0, 25.0, 0.0
    inertia = plant.CalcMassMatrix(pc)[0, 0]
    for _ in range(20):
        didt, _ = dcmotor_derivatives(cfg, 6.0, 2.0 * v, T, i)
        v = v + H * (2.0 * 0.5 * i - 0.05 * v) / (inertia + H * 0.05)
        i_next = i + H * didt
        T = dcmotor_temperature_step(cfg, T, i_next, H)  # advance sees the integrated current
        i = i_next
    sim.AdvanceTo(20 * H)
    assert GetMujocoActivations(plant, pc)[0] == pytest.approx(i, rel=1e-12)
    assert GetMujocoPluginState(plant, pc)[0] == pytest.approx(T, rel=1e-12)
    assert plant.GetVelocities(pc)[0] == pytest.approx(v, rel=1e-10)


def test_plugin_actuator_forcerange_and_plugin_with_dyntype():
    plant, _, _, pc = _build(_motor_xml(extra_actuator='forcelimited="true" forcerange="-0.5 0.5"'))
    assert GetMujocoSensorOutputPort(plant).Eval(pc)[1] == 0.5  # K V / R = 1.5 clamped to forcerange
    # a filter dyntype: the plugin sees the filtered input (act), which starts at 0
    plant, diagram, context, pc = _build(_motor_xml(extra_actuator='dyntype="filter" dynprm="0.1"'))
    assert GetMujocoSensorOutputPort(plant).Eval(pc)[1] == 0.0
    Simulator(diagram, context).AdvanceTo(10 * H)
    a = GetMujocoActivations(plant, pc)[0]
    assert a == pytest.approx(6.0 * (1 - (1 - H / 0.1) ** 10), rel=1e-12)
    v, T = plant.GetVelocities(pc)[0], GetMujocoPluginState(plant, pc)[0]
    R = 2.0 * (1 + 0.004 * (T - 25.0))
    assert GetMujocoSensorOutputPort(plant).Eval(pc)[1] == pytest.approx(0.5 * (a - 0.5 * 2.0 * v) / R, rel=1e-12)


def test_plugin_state_accessor_errors():
    plant, _, _, pc = _build(_motor_xml())
    with pytest.raises(ValueError, match="1 finite values"):
        SetMujocoPluginState(plant, pc, [1.0, 2.0])
    builder = DiagramBuilder()
    other, _ = AddMultibodyPlantSceneGraph(builder, H)
    Parser(other).AddModelsFromString('<mujoco><worldbody><body><joint/><geom size="0.1"/></body></worldbody>'
                                      '</mujoco>', "xml")
    other.Finalize()
    with pytest.raises(RuntimeError, match="no MJCF plugin state"):
        GetMujocoPluginState(other, other.CreateDefaultContext())


def _drag_plugin():
    """A user passive plugin: generalized drag qfrc = -b qvel on every dof (MuJoCo coordinates)."""
    from mallard.multibody.plugins import Capability, ConfigAttribute, Plugin

    class LinearDrag(Plugin):
        name = "test.passive.lineardrag"
        capabilities = Capability.PASSIVE
        attributes = (ConfigAttribute("b", "real", default=1.0, low=0.0),)

        def compute(self, capability, instance, data, frame):
            frame.qfrc_passive[:] = -instance.config["b"] * frame.qvel

    return LinearDrag


def test_passive_body_plugin_force_enters_the_step():
    from mallard.multibody.plugins import RegisterPlugin, UnregisterPlugin
    RegisterPlugin(_drag_plugin())
    try:
        xml = """
<mujoco model="drag">
  <extension><plugin plugin="test.passive.lineardrag"/></extension>
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="ball" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1" mass="2"/>
      <plugin plugin="test.passive.lineardrag"><config key="b" value="3"/></plugin></body>
  </worldbody>
</mujoco>"""
        builder = DiagramBuilder()
        plant, _ = AddMultibodyPlantSceneGraph(builder, H)
        Parser(plant).AddModelsFromString(xml, "xml")
        plant.Finalize()
        diagram = builder.Build()
        context = diagram.CreateDefaultContext()
        pc = plant.GetMyContextFromRoot(context)
        sim = Simulator(diagram, context)
        vz = 0.0
        for _ in range(100):  # explicit drag on the translational dof: m dv/dt = -m g - b v
            vz = vz + H * (-2.0 * 9.81 - 3.0 * vz) / 2.0
        sim.AdvanceTo(100 * H)
        assert plant.GetVelocities(pc)[5] == pytest.approx(vz, rel=1e-12)
    finally:
        UnregisterPlugin("test.passive.lineardrag")
