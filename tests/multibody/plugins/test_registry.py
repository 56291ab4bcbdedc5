"""The plugin registry and base class: declaration checks, config validation, plugin data memo."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from mallard.multibody.plugins import (BowlSdf, Capability, ConfigAttribute, DcMotor, GetPlugin, Plugin,
                                       PluginDataCache, PluginInstance, RegisteredPlugins, RegisterPlugin,
                                       TorusSdf, UnregisterPlugin)


class Spring(Plugin):
    """A passive-force test plugin: one state float counting advances, data built from config."""

    name = "test.passive.spring"
    capabilities = Capability.PASSIVE
    attributes = (ConfigAttribute("stiffness", "real", default=10.0, low=0.0),
                  ConfigAttribute("mode", "string", default="linear", choices=("linear", "cubic")),
                  ConfigAttribute("count", "int", default=2, low=1, high=5),
                  ConfigAttribute("axis", "reals", default="0 0 1", size=3),
                  ConfigAttribute("enabled", "bool", default="true"))
    inits = 0

    def nstate(self, config):
        return config["count"]

    def init(self, instance, state):
        Spring.inits += 1
        return {"k": instance.config["stiffness"], "state_at_init": state.copy()}

    def compute(self, capability, instance, data, frame):
        frame.qfrc_passive[:] = -data["k"] * frame.qpos


@pytest.fixture
def spring():
    RegisterPlugin(Spring)
    yield GetPlugin(Spring.name)
    UnregisterPlugin(Spring.name)


def test_first_party_plugins_are_registered():
    names = RegisteredPlugins()
    for cls in (DcMotor, BowlSdf, TorusSdf):
        assert cls.name in names
        assert isinstance(GetPlugin(cls.name), cls)
    assert GetPlugin("mallard.actuator.dcmotor").capabilities == Capability.ACTUATOR | Capability.SENSOR
    assert GetPlugin("mujoco.sdf.bowl").capabilities == Capability.SDF


def test_register_is_idempotent_and_names_are_unique(spring):
    slot = RegisteredPlugins().index(Spring.name)
    assert RegisterPlugin(Spring) == slot
    assert RegisterPlugin(Spring()) == slot

    class Other(Spring):
        pass

    with pytest.raises(ValueError, match="a different plugin is already registered as 'test.passive.spring'"):
        RegisterPlugin(Other)
    with pytest.raises(KeyError, match="no plugin registered as 'nope'.*mujoco.sdf.bowl"):
        GetPlugin("nope")
    with pytest.raises(KeyError, match="no plugin registered as 'nope'"):
        UnregisterPlugin("nope")


def _plugin(**attrs):
    return type("P", (Plugin,), {"compute": lambda self, *a: None, **attrs})


@pytest.mark.parametrize("attrs,message", [
    (dict(name="", capabilities=Capability.PASSIVE), "name '' must be a non-empty dotted identifier"),
    (dict(name="a b", capabilities=Capability.PASSIVE), "name 'a b' must be"),
    (dict(name="t.none"), "capabilities must be a non-empty Capability"),
    (dict(name="t.int", capabilities=1), "capabilities must be a non-empty Capability"),
    (dict(name="t.attrs", capabilities=Capability.PASSIVE, attributes=("k",)), "tuple of ConfigAttribute"),
    (dict(name="t.dup", capabilities=Capability.PASSIVE,
          attributes=(ConfigAttribute("k"), ConfigAttribute("k"))), "config attribute 'k' is declared twice"),
    (dict(name="t.def", capabilities=Capability.PASSIVE,
          attributes=(ConfigAttribute("k", default="x"),)), "config attribute 'k': 'x' is not a number"),
    (dict(name="t.stage", capabilities=Capability.SENSOR, needstage="later",
          nsensordata=lambda self, c, i: 1), "needstage must be"),
    (dict(name="t.sensor", capabilities=Capability.SENSOR), "sensor plugins must implement nsensordata"),
    (dict(name="t.sdf", capabilities=Capability.SDF), "SDF plugins must implement sdf_distance, sdf_gradient"),
    (dict(name="t.cb", capabilities=Capability.PASSIVE, advance=None), "callback 'advance' must be callable"),
])
def test_registration_rejects_bad_declarations(attrs, message):
    with pytest.raises(ValueError, match=message):
        RegisterPlugin(_plugin(**attrs))
    assert attrs.get("name") not in RegisteredPlugins()


def test_actuator_plugin_needs_compute_and_type_checks():
    class NoCompute(Plugin):
        name = "t.nocompute"
        capabilities = Capability.ACTUATOR

    with pytest.raises(ValueError, match="must implement compute"):
        RegisterPlugin(NoCompute)
    with pytest.raises(TypeError, match="Plugin subclass or instance"):
        RegisterPlugin(int)
    with pytest.raises(TypeError, match="Plugin subclass or instance"):
        RegisterPlugin("mujoco.sdf.bowl")
    with pytest.raises(ValueError, match="kind must be one of"):
        ConfigAttribute("k", "float")
    with pytest.raises(ValueError, match="identifier-like"):
        ConfigAttribute("bad key")


def test_config_validation_names_the_attribute(spring):
    cfg = spring.ValidateConfig({"stiffness": "2.5", "axis": "1 0 0", "enabled": "false", "count": "3"})
    assert cfg["stiffness"] == 2.5 and cfg["mode"] == "linear" and cfg["count"] == 3 and cfg["enabled"] is False
    np.testing.assert_array_equal(cfg["axis"], [1, 0, 0])
    assert spring.nstate(cfg) == 3
    bad = [({"stifness": "1"}, "unknown config attribute 'stifness' \\(valid: stiffness, mode, count, axis, enabled\\)"),
           ({"stiffness": "soft"}, "config attribute 'stiffness': 'soft' is not a number"),
           ({"stiffness": "-1"}, "config attribute 'stiffness': value -1 must be >= 0"),
           ({"stiffness": "nan"}, "config attribute 'stiffness': 'nan' is not finite"),
           ({"count": "2.5"}, "config attribute 'count': '2.5' is not an integer"),
           ({"count": "9"}, "config attribute 'count': value 9 must be <= 5"),
           ({"mode": "quartic"}, "config attribute 'mode': 'quartic' is not one of linear, cubic"),
           ({"axis": "1 0"}, "config attribute 'axis': expected 3 values, got 2"),
           ({"enabled": "maybe"}, "config attribute 'enabled': 'maybe' is not a boolean")]
    for config, message in bad:
        with pytest.raises(ValueError, match=f"plugin 'test.passive.spring': {message}"):
            spring.ValidateConfig(config)
    required = type("R", (Spring,), {"name": "t.req", "attributes": (ConfigAttribute("k", required=True),)})()
    with pytest.raises(ValueError, match="required config attribute 'k' is missing"):
        required.ValidateConfig({})


def test_plugin_data_is_memoized_and_never_copied(spring):
    inst = PluginInstance("s", Spring.name, spring.ValidateConfig({"stiffness": "3"}), stateadr=1, nstate=2)
    other = PluginInstance("", "mujoco.sdf.torus", GetPlugin("mujoco.sdf.torus").ValidateConfig({}), stateadr=3)
    cache = PluginDataCache([inst, other])
    plugin_state = np.arange(4.0)
    Spring.inits = 0
    cache.Reset(plugin_state)  # the plugins' reset fill their slices (Spring: zeros)
    np.testing.assert_array_equal(plugin_state, [0.0, 0.0, 0.0, 3.0])
    data = cache.Get(0, plugin_state)
    assert data["k"] == 3.0 and cache.Get(0, plugin_state) is data and Spring.inits == 1
    np.testing.assert_array_equal(cache.Get(1, plugin_state), [0.35, 0.15])
    for clone in (pickle.loads(pickle.dumps(cache)), copy.deepcopy(cache)):
        assert clone._data == {}  # data is rebuilt from config + state, not copied
        assert clone.Get(0, plugin_state)["k"] == 3.0
    assert Spring.inits == 3
    cache.Clear()
    assert cache._data == {}


def test_sdf_plugins_expose_distance_gradient_and_aabb():
    bowl = GetPlugin("mujoco.sdf.bowl")
    cfg = bowl.ValidateConfig({"radius": "0.5", "height": "0.1", "thickness": "0.01"})
    data = bowl.init(PluginInstance("", bowl.name, cfg), np.zeros(0))
    assert bowl.sdf_distance(np.array([0, 0, -0.5]), data) == pytest.approx(-0.01)
    np.testing.assert_allclose(bowl.sdf_gradient(np.array([0, 0, -0.6]), data), [0, 0, -1], atol=1e-6)
    assert bowl.sdf_staticdistance(np.array([0, 0, -0.5]), {"radius": "0.5", "height": "0.1"}) == \
        pytest.approx(-0.02)
    np.testing.assert_array_equal(bowl.sdf_aabb(cfg), [0, 0, 0, 0.51, 0.51, 0.51])
    with pytest.raises(ValueError, match="'height' \\(0.6\\) must be smaller in magnitude than 'radius'"):
        bowl.ValidateConfig({"height": "0.6", "radius": "0.5"})
    torus = GetPlugin("mujoco.sdf.torus")
    np.testing.assert_array_equal(torus.sdf_aabb({}), [0, 0, 0, 0.5, 0.5, 0.15])
    with pytest.raises(TypeError, match="has no SDF capability"):
        GetPlugin("mallard.actuator.dcmotor").sdf_distance(np.zeros(3), None)
