"""Engine-plugin lifecycle in a plant (issue 9 rules): config-dependent nstate, init (memoized, once per plant),
reset, compute per capability and stage, advance once per step with the step's time and timestep, destroy on
release; bad sizes from a plugin's callbacks are located MJCF errors (multibody/plugins, parsers/mjcf/plugins.py)."""
import gc

import numpy as np
import pytest

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.mjcf.plugins import GetMujocoPluginState
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.plugins import (Capability, ConfigAttribute, Plugin, PluginDataCache, PluginInstance,
                                       RegisterPlugin, UnregisterPlugin)
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfError, load_mjcf
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

H = 0.01
LOG: list = []


class Counter(Plugin):
    """A sensor plugin with `n` state floats (config-dependent nstate): reset fills 1..n, advance adds the
    step's timestep to state[0]; the sensor reads the whole state."""

    name = "test.lifecycle.counter"
    capabilities = Capability.SENSOR
    needstage = "pos"
    attributes = (ConfigAttribute("n", "int", default=2, low=1),)

    def nstate(self, config):
        return config["n"]

    def nsensordata(self, config, sensor_index):
        return config["n"]

    def init(self, instance, state):
        LOG.append(("init", instance.name))
        return {"name": instance.name}

    def reset(self, instance, state, data):
        LOG.append(("reset", data["name"]))
        state[:] = np.arange(1.0, len(state) + 1)

    def compute(self, capability, instance, data, frame):
        assert capability == Capability.SENSOR
        frame.sensordata[:] = frame.state

    def advance(self, instance, data, frame):
        LOG.append(("advance", round(frame.time / H), frame.timestep))
        frame.state[0] += frame.timestep

    def destroy(self, data):
        LOG.append(("destroy", data["name"]))


XML = f"""<mujoco><extension><plugin plugin="test.lifecycle.counter"><instance name="c3">
    <config key="n" value="3"/></instance></plugin></extension>
  <option timestep="{H}"/>
  <worldbody><body><joint name="j"/><geom size="0.1" mass="1"/></body></worldbody>
  <sensor><plugin name="s" instance="c3"/><plugin name="t" plugin="test.lifecycle.counter"/></sensor>
</mujoco>"""


@pytest.fixture
def counter():
    RegisterPlugin(Counter)
    gc.collect()  # release plugin data of earlier tests' plants (their destroy calls)
    LOG.clear()
    yield
    UnregisterPlugin(Counter.name)


def _plant(time_step: float):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
    Parser(plant).AddModelsFromString(XML, "xml")
    plant.Finalize()
    diagram = builder.Build()
    return plant, diagram


@pytest.mark.parametrize("time_step", [H, 0.0])
def test_state_sizes_reset_advance_and_sensors(counter, time_step):
    plant, diagram = _plant(time_step)
    # init once per instance (memoized), reset once per instance at Finalize (the default state)
    assert LOG == [("init", "c3"), ("reset", "c3"), ("init", ""), ("reset", "")]
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(context)
    np.testing.assert_array_equal(GetMujocoPluginState(plant, pc), [1, 2, 3, 1, 2])  # nstate 3 + 2
    LOG.clear()
    Simulator(diagram, context).AdvanceTo(4 * H)
    # advance once per step (discrete) / period (continuous), with the end time of the step and h
    assert LOG == [("advance", k, H) for k in (1, 1, 2, 2, 3, 3, 4, 4)]
    x = GetMujocoPluginState(plant, pc)
    np.testing.assert_allclose(x, [1 + 4 * H, 2, 3, 1 + 4 * H, 2], rtol=1e-14)
    np.testing.assert_array_equal(GetMujocoSensorOutputPort(plant).Eval(pc), x)
    del plant, diagram, context, pc  # releasing the plant releases its plugin data (mj_deleteData)
    gc.collect()
    assert ("destroy", "c3") in LOG and ("destroy", "") in LOG


def test_destroy_runs_when_plugin_data_is_released(counter):
    inst = PluginInstance("d", Counter.name, {"n": 1}, nstate=1)
    cache = PluginDataCache([inst])
    cache.Get(0, np.zeros(1))
    cache.Clear()
    assert LOG == [("init", "d"), ("destroy", "d")]
    cache.Get(0, np.zeros(1))  # rebuilt on demand
    del cache
    gc.collect()
    assert LOG[-2:] == [("init", "d"), ("destroy", "d")]


class BadSizes(Plugin):
    name = "test.lifecycle.badsizes"
    capabilities = Capability.ACTUATOR | Capability.SENSOR
    attributes = (ConfigAttribute("which", "string", default="none"),)

    def nstate(self, config):
        return -1 if config["which"] == "nstate" else 0

    def actdim(self, config):
        return -2 if config["which"] == "actdim" else 0

    def nsensordata(self, config, sensor_index):
        return 0 if config["which"] == "nsensordata" else 1

    def compute(self, capability, instance, data, frame):
        frame.actuator_force[:] = 0.0


@pytest.mark.parametrize("which,element,message", [
    ("nstate", "sensor", "nstate() returned -1 (must be >= 0)"),
    ("nsensordata", "sensor", "nsensordata() returned 0 for this sensor (must be >= 1)"),
    ("actdim", "actuator", "actdim() returned -2 (must be >= 0)"),
])
def test_bad_plugin_sizes_are_located_errors(which, element, message):
    RegisterPlugin(BadSizes)
    try:
        use = ('<sensor><plugin name="s" plugin="test.lifecycle.badsizes">'
               f'<config key="which" value="{which}"/></plugin></sensor>' if element == "sensor" else
               '<actuator><plugin name="a" joint="j" plugin="test.lifecycle.badsizes">'
               f'<config key="which" value="{which}"/></plugin></actuator>')
        xml = ('<mujoco><extension><plugin plugin="test.lifecycle.badsizes"/></extension>'
               '<worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>' + use + '</mujoco>')
        with pytest.raises(MjcfError, match=message.replace("(", r"\(").replace(")", r"\)")):
            load_mjcf(xml)
    finally:
        UnregisterPlugin(BadSizes.name)
