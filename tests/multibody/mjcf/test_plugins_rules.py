"""MJCF engine-plugin rules in MultibodyPlant (multibody/mjcf/plugins.py): actearly plugin actuators
(the force uses the next-step activations, mj_nextActivation), cutoff on plugin sensors (apply_cutoff for
real data), plugin state reset by keyframes / default contexts (mj_resetDataKeyframe), and pickling a
Context whose geometry holds a Python SDF plugin. MuJoCo's own plugins are C++ libraries the mujoco oracle
cannot run on our plugin names, so these rules are checked against hand computations."""
import math
import pickle

import numpy as np
import pytest

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, GetMujocoCtrlInputPort, MultibodyPlant
from mallard.multibody.mjcf.plugins import GetMujocoPluginState, SetMujocoPluginState
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import GetMujocoActivations, SetMujocoActivations
from mallard.multibody.mjcf.keyframes import SetMujocoKeyframe
from mallard.multibody.plugins import (Capability, ConfigAttribute, Plugin, PluginInstance, PluginRuntime,
                                       RegisterPlugin, UnregisterPlugin)
from mallard.multibody.plugins.dcmotor import dcmotor_derivatives
from mallard.multibody.plugins.runtime import ResolvePlugin
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

H = 0.002
V = 6.0
CONFIG = dict(resistance=2.0, motorconst=0.5, ambient=25.0, thermalresistance=2.0, thermalcapacitance=10.0,
              tempcoef=0.0)


def _xml(inductance=0.0, actuator="", sensor="", keyframe="", ambient=25.0) -> str:
    cfg = dict(CONFIG, inductance=inductance, ambient=ambient)
    conf = "".join(f'<config key="{k}" value="{v}"/>' for k, v in cfg.items())
    return f"""
<mujoco model="motor">
  <extension><plugin plugin="mallard.actuator.dcmotor"><instance name="m1">{conf}</instance></plugin></extension>
  <option timestep="{H}" gravity="0 0 0"/>
  <worldbody>
    <body name="arm"><joint name="hinge" type="hinge" axis="0 0 1" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body>
  </worldbody>
  <actuator><plugin name="motor" joint="hinge" instance="m1" gear="2" {actuator}/></actuator>
  <sensor><plugin name="temperature" instance="m1" {sensor}/><actuatorfrc actuator="motor"/></sensor>
  {keyframe}
</mujoco>"""


def _build(xml: str, time_step: float = H):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
    Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(context)
    GetMujocoCtrlInputPort(plant).FixValue(pc, [V])
    return plant, diagram, context, pc


def _force(plant, pc) -> float:
    return float(GetMujocoSensorOutputPort(plant).Eval(pc)[1])


# ---- actearly -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("time_step", [H, 0.0])
def test_actearly_plugin_slot_force_uses_next_current(time_step):
    L = 0.01
    cfg = dict(CONFIG, inductance=L)
    late, _, _, lpc = _build(_xml(L), time_step)
    early, _, _, epc = _build(_xml(L, 'actearly="true"'), time_step)
    for plant, pc in ((late, lpc), (early, epc)):
        SetMujocoActivations(plant, pc, [1.5])
        plant.SetVelocities(pc, [1.0])
    didt, _ = dcmotor_derivatives(cfg, V, 2.0 * 1.0, 25.0, 1.5)
    assert _force(late, lpc) == pytest.approx(0.5 * 1.5, rel=1e-14)
    # next current i + h di/dt, h = the plant's step or <option timestep> (continuous look-ahead)
    assert _force(early, epc) == pytest.approx(0.5 * (1.5 + H * didt), rel=1e-12)
    assert didt != 0.0


def test_actearly_plugin_slot_is_clamped_to_actrange():
    plant, _, _, pc = _build(_xml(0.01, 'actearly="true" actlimited="true" actrange="-1 1.6"'))
    SetMujocoActivations(plant, pc, [1.5])
    assert _force(plant, pc) == pytest.approx(0.5 * 1.6, rel=1e-14)  # 1.5 + h di/dt > 1.6


def test_actearly_dyntype_input_is_the_next_activation():
    """A quasi-static motor behind a filter: the voltage it sees is the filter's next activation."""
    tau, a, w = 0.1, 2.0, 1.0
    for early in (False, True):
        plant, _, _, pc = _build(_xml(0.0, f'dyntype="filter" dynprm="{tau}" actearly="{str(early).lower()}"'))
        SetMujocoActivations(plant, pc, [a])
        plant.SetVelocities(pc, [w])
        u = a + H * (V - a) / tau if early else a
        assert _force(plant, pc) == pytest.approx(0.5 * (u - 0.5 * 2.0 * w) / 2.0, rel=1e-13)


def test_actearly_filterexact_plugin_slot_uses_exact_step_and_discrete_step():
    """With dyntype filterexact every slot of the actuator steps exactly (mj_nextActivation), the plugin's
    current included: di/dt from the filter's current output, the force from the next current; one
    discrete step applies that force and lands on the next activations."""
    L, tau = 0.01, 0.05
    cfg = dict(CONFIG, inductance=L)
    plant, diagram, context, pc = _build(_xml(L, f'dyntype="filterexact" dynprm="{tau}" actearly="true"'))
    SetMujocoActivations(plant, pc, [1.5, 4.0])  # [plugin current, filter activation]
    a_next = 4.0 + (V - 4.0) * (1 - math.exp(-H / tau))
    didt, _ = dcmotor_derivatives(cfg, 4.0, 0.0, 25.0, 1.5)
    i_next = 1.5 + didt * tau * (1 - math.exp(-H / tau))
    assert _force(plant, pc) == pytest.approx(0.5 * i_next, rel=1e-12)
    inertia = plant.CalcMassMatrix(pc)[0, 0]
    Simulator(diagram, context).AdvanceTo(H)
    assert plant.GetVelocities(pc)[0] == pytest.approx(H * 2.0 * 0.5 * i_next / (inertia + H * 0.05), rel=1e-10)
    np.testing.assert_allclose(GetMujocoActivations(plant, pc), [i_next, a_next], rtol=1e-12)


# ---- sensor cutoff ------------------------------------------------------------------------------------
def test_plugin_sensor_cutoff_clamps_both_sides():
    plant, _, _, pc = _build(_xml(sensor='cutoff="30"'))
    for T, expected in ((25.0, 25.0), (40.0, 30.0), (-50.0, -30.0)):
        SetMujocoPluginState(plant, pc, [T])
        assert GetMujocoSensorOutputPort(plant).Eval(pc)[0] == expected
    plant, _, _, pc = _build(_xml(sensor='cutoff="0"'))  # 0: no cutoff
    SetMujocoPluginState(plant, pc, [1e4])
    assert GetMujocoSensorOutputPort(plant).Eval(pc)[0] == 1e4


# ---- reset: keyframes and default contexts -------------------------------------------------------------
def test_keyframe_and_default_context_reset_plugin_state():
    key = '<keyframe><key name="spun" time="0.5" qpos="0.3" qvel="2" act="0.7"/></keyframe>'
    plant, diagram, context, pc = _build(_xml(0.01, keyframe=key, ambient=30.0))
    np.testing.assert_array_equal(GetMujocoPluginState(plant, pc), [30.0])  # reset: the ambient config
    Simulator(diagram, context).AdvanceTo(0.05)
    assert GetMujocoPluginState(plant, pc)[0] > 30.0
    SetMujocoKeyframe(plant, pc, "spun")
    np.testing.assert_array_equal(GetMujocoPluginState(plant, pc), [30.0])
    np.testing.assert_array_equal(GetMujocoActivations(plant, pc), [0.7])
    assert plant.GetPositions(pc)[0] == 0.3 and plant.GetVelocities(pc)[0] == 2.0
    # a plant-only (root) context: the keyframe sets the time too
    alone = MultibodyPlant(H)
    Parser(alone).AddModelsFromString(_xml(0.01, keyframe=key, ambient=30.0), "xml")
    alone.Finalize()
    root = alone.CreateDefaultContext()
    np.testing.assert_array_equal(GetMujocoPluginState(alone, root), [30.0])
    SetMujocoPluginState(alone, root, [45.0])
    SetMujocoKeyframe(alone, root, 0)
    assert root.get_time() == 0.5 and GetMujocoPluginState(alone, root)[0] == 30.0
    # SetDefaultContext restores the reset plugin state, as does a new default context
    SetMujocoPluginState(plant, pc, [50.0])
    diagram.SetDefaultContext(context)
    np.testing.assert_array_equal(GetMujocoPluginState(plant, pc), [30.0])
    SetMujocoPluginState(alone, root, [50.0])
    alone.SetDefaultContext(root)
    np.testing.assert_array_equal(GetMujocoPluginState(alone, root), [30.0])


# ---- pickling a Context with a Python SDF plugin --------------------------------------------------------
def _lambda_sphere():
    """A user SDF plugin whose distance is a lambda closed over a local (nothing here pickles by itself)."""
    offset = 0.0
    dist = lambda p, r: float(np.linalg.norm(p)) - r + offset  # noqa: E731

    class LambdaSphere(Plugin):
        name = "test.sdf.lambda_sphere"
        capabilities = Capability.SDF
        attributes = (ConfigAttribute("radius", "real", default=0.5, low=0.0, open_low=True),)

        def init(self, instance, state):
            return instance.config["radius"]

        def sdf_distance(self, p, data):
            return dist(p, data)

        def sdf_gradient(self, p, data):
            return np.asarray(p, float) / np.linalg.norm(p)

        def sdf_staticdistance(self, p, config):
            return dist(p, float(config.get("radius", 0.5)))

        def sdf_aabb(self, config):
            r = float(config.get("radius", 0.5))
            return np.array([0.0, 0.0, 0.0, r, r, r])
    return LambdaSphere


SDF_XML = """<mujoco><extension><plugin plugin="test.sdf.lambda_sphere"/></extension>
  <option timestep="0.002" sdf_initpoints="8" sdf_iterations="4"/>
  <asset><mesh name="ball"><plugin plugin="test.sdf.lambda_sphere"><config key="radius" value="0.3"/></plugin>
  </mesh></asset>
  <worldbody><geom type="sdf" mesh="ball"><plugin plugin="test.sdf.lambda_sphere">
    <config key="radius" value="0.3"/></plugin></geom>
    <body pos="0 0 2"><freejoint/><geom size="0.1" mass="1"/></body></worldbody></mujoco>"""


@pytest.fixture
def lambda_sphere():
    RegisterPlugin(_lambda_sphere())
    yield
    UnregisterPlugin("test.sdf.lambda_sphere")


def test_context_with_lambda_sdf_plugin_pickles(lambda_sphere):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    Parser(plant).AddModelsFromString(SDF_XML, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    restored = pickle.loads(pickle.dumps(context))
    Simulator(diagram, context).AdvanceTo(0.02)
    Simulator(diagram, restored).AdvanceTo(0.02)
    np.testing.assert_array_equal(plant.GetPositions(plant.GetMyContextFromRoot(restored)),
                                  plant.GetPositions(plant.GetMyContextFromRoot(context)))
    # the SDF callables themselves: pickled by plugin name + instance, data rebuilt by init
    from mallard.parsers.mjcf import load_mjcf
    model = load_mjcf(SDF_XML)
    shape = pickle.loads(pickle.dumps(PluginRuntime.FromMjcf(model).SdfShape(model.geoms[0].plugin)))
    assert shape.Distance(np.array([0.5, 0.0, 0.0])) == pytest.approx(0.2, rel=1e-14)
    np.testing.assert_allclose(shape.gradient(np.array([0.0, 0.0, 2.0])), [0.0, 0.0, 1.0])
    # unpickling where the plugin is not registered (and its local class cannot be imported): a clear error
    data = pickle.dumps(context)
    UnregisterPlugin("test.sdf.lambda_sphere")
    try:
        with pytest.raises(RuntimeError, match="test.sdf.lambda_sphere.*module level"):
            pickle.loads(data)
    finally:
        RegisterPlugin(_lambda_sphere())


def test_unpicklable_plugin_config_is_reported_by_name(lambda_sphere):
    from mallard.multibody.plugins.runtime import PluginSdfFunction
    inst = PluginInstance("ball", "test.sdf.lambda_sphere", {"radius": 0.3, "hook": lambda p: p})
    with pytest.raises(TypeError, match="plugin instance 'ball' of plugin 'test.sdf.lambda_sphere'.*module level"):
        pickle.dumps(PluginSdfFunction(inst, np.zeros(0), False))


def test_module_level_plugin_is_reimported_on_unpickle():
    inst = PluginInstance("t", "mujoco.sdf.torus", {"radius1": 0.35, "radius2": 0.15})
    UnregisterPlugin("mujoco.sdf.torus")
    try:
        plugin = ResolvePlugin(inst, ("mallard.multibody.plugins.sdf_shapes", "TorusSdf"))
        assert plugin.name == "mujoco.sdf.torus"
        from mallard.multibody.plugins import RegisteredPlugins
        assert "mujoco.sdf.torus" in RegisteredPlugins()
    finally:
        from mallard.multibody.plugins import TorusSdf
        RegisterPlugin(TorusSdf)
