"""Running a model's plugin instances: the calls a plant makes (mj_makeData / mj_step's plugin hooks).

`PluginRuntime` is built once from the compiled instances and the actuator/sensor layout; it slices
the plant's flat arrays for each instance, builds its `PluginFrame`, calls the plugin and scatters
the outputs back. Plugin state lives in the caller's array (part of the Context state); plugin data
is memoized in a `PluginDataCache` that is dropped on copy/pickle and rebuilt on first use.
"""
from __future__ import annotations

import importlib
import pickle
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mallard.geometry.collision.sdf import USER, SdfShape

from .plugin import Capability, Plugin, PluginFrame, PluginInstance
from .registry import GetPlugin, PluginDataCache, RegisteredPlugins, RegisterPlugin

__all__ = ["ActuatorLayout", "PluginRuntime", "PluginSdfFunction", "ResolvePlugin"]


@dataclass(frozen=True)
class ActuatorLayout:
    """Where a plugin actuator's activations sit in `act`: the plugin's `plugin_actdim` slots start at
    `actadr`; `has_dyntype` says one more slot (the dyntype activation) follows them. `actearly`,
    `act_range` (actrange, ±inf when not limited) and `exact_tau` (the filter time constant of a
    filterexact dyntype, else 0) are what mj_nextActivation needs for the actuator's slots."""

    actadr: int
    plugin_actdim: int
    has_dyntype: bool
    actearly: bool = False
    act_range: tuple[float, float] = (-np.inf, np.inf)
    exact_tau: float = 0.0

    @classmethod
    def FromMjcf(cls, a) -> "ActuatorLayout":
        """The layout of a compiled MJCF plugin actuator."""
        lo, hi = (float(a.actrange[0]), float(a.actrange[1])) if a.actlimited else (-np.inf, np.inf)
        tau = max(float(a.dynprm[0]), 1e-15) if a.dyntype == "filterexact" else 0.0
        return cls(a.actadr, a.plugin_actdim, a.dyntype != "none", bool(a.actearly), (lo, hi), tau)


class PluginRuntime:
    """Per-model plugin driver. `actuators[i]` / `sensors[i]`: layout of actuator/sensor i of the model
    (None for non-plugin ones); `sensor_adr[i]` the start of sensor i in sensordata."""

    def __init__(self, instances: Sequence[PluginInstance], actuators: Sequence[ActuatorLayout | None],
                 sensor_adr: Sequence[int], sensor_dim: Sequence[int]):
        self.instances = list(instances)
        self.actuators = list(actuators)
        self.sensor_adr = np.asarray(sensor_adr, int)
        self.sensor_dim = np.asarray(sensor_dim, int)
        self.cache = PluginDataCache(self.instances)
        self.nstate = sum(i.nstate for i in self.instances)
        for inst in self.instances:
            plugin = GetPlugin(inst.plugin)  # fails early, naming the plugin, if it is not registered
            for a in inst.actuators:
                if self.actuators[a] is None:
                    raise ValueError(f"plugin instance '{inst.name or inst.plugin}': actuator {a} has no layout")
            if inst.sensors and not plugin.capabilities & Capability.SENSOR:
                raise ValueError(f"plugin '{inst.plugin}' backs sensors but has no SENSOR capability")

    @classmethod
    def FromMjcf(cls, model) -> "PluginRuntime":
        """The runtime of a compiled `MjcfModel` (sensordata laid out in sensor order)."""
        acts = [ActuatorLayout.FromMjcf(a) if a.plugin >= 0 else None for a in model.actuators]
        dims = [s.dim for s in model.sensors]
        adr = np.concatenate([[0], np.cumsum(dims)[:-1]]).astype(int) if dims else []
        return cls(model.plugins, acts, adr, dims)

    # ---- lifecycle ----------------------------------------------------------------------------
    def Reset(self, plugin_state: np.ndarray) -> None:
        """Initial plugin state of every instance (call when creating/resetting the Context state)."""
        self._check(plugin_state)
        self.cache.Reset(plugin_state)

    def _check(self, plugin_state: np.ndarray) -> None:
        if plugin_state.shape != (self.nstate,):
            raise ValueError(f"plugin state must have shape ({self.nstate},), got {plugin_state.shape}")

    def _frame(self, inst: PluginInstance, time: float, plugin_state, ctrl, act, velocity, length,
               timestep: float = 0.0, act_next=None, act_dot=None) -> PluginFrame:
        lays = [self.actuators[a] for a in inst.actuators]
        slots = [np.arange(L.actadr, L.actadr + L.plugin_actdim) for L in lays]
        slots = np.concatenate(slots).astype(int) if slots else np.zeros(0, int)
        owner = np.repeat(np.arange(len(lays)), [L.plugin_actdim for L in lays]).astype(int)
        dyn = [L.actadr + L.plugin_actdim if L.has_dyntype else -1 for L in lays]
        now = np.array([act[d] if d >= 0 else ctrl[a] for d, a in zip(dyn, inst.actuators)], float)
        early = np.array([L.actearly for L in lays], bool)
        inputs = now.copy()
        if act_next is not None:  # actearly with a dyntype: the input is the next-step activation
            for k, d in enumerate(dyn):
                if d >= 0 and early[k]:
                    inputs[k] = act_next[d]
        rates = np.array([act_dot[d] if d >= 0 and act_dot is not None else 0.0 for d in dyn], float)
        idx = np.asarray(inst.actuators, int)
        nsd = int(sum(self.sensor_dim[s] for s in inst.sensors))
        return PluginFrame(
            time=time, timestep=timestep, state=plugin_state[inst.stateadr:inst.stateadr + inst.nstate], ctrl=inputs,
            ctrl_now=now, ctrl_dot=rates, actearly=early, act=np.asarray(act, float)[slots],
            act_range=np.array([lays[k].act_range for k in owner], float).reshape(-1, 2),
            act_exact_tau=np.array([lays[k].exact_tau for k in owner], float),
            actuator_length=np.asarray(length, float)[idx], actuator_velocity=np.asarray(velocity, float)[idx],
            actuator_force=np.zeros(len(idx)), act_dot=np.zeros(len(slots)), sensordata=np.zeros(nsd),
            extra={"act_slots": slots})

    # ---- per-step hooks -----------------------------------------------------------------------
    def ComputeActuators(self, time: float, plugin_state: np.ndarray, ctrl: np.ndarray, act: np.ndarray,
                         actuator_length: np.ndarray, actuator_velocity: np.ndarray, actuator_force: np.ndarray,
                         act_dot: np.ndarray, timestep: float = 0.0, act_next: np.ndarray | None = None,
                         dyn_act_dot: np.ndarray | None = None) -> None:
        """Scalar forces of plugin actuators into `actuator_force`, their activation rates into `act_dot`.

        The input a plugin actuator sees (`frame.ctrl`) is ctrl, or its dyntype activation when it has a
        dyntype: from `act_next` (the next-step activations, mj_nextActivation) when it is actearly, else
        from `act`. `dyn_act_dot` (the dyntype slots' rates) gives `frame.ctrl_dot`; `timestep` is the
        step h that actearly looks ahead by (`PluginFrame.NextActivation`).
        """
        self._check(plugin_state)
        for k, inst in enumerate(self.instances):
            if not inst.actuators:
                continue
            f = self._frame(inst, time, plugin_state, ctrl, act, actuator_velocity, actuator_length, timestep,
                            act_next, dyn_act_dot)
            GetPlugin(inst.plugin).compute(Capability.ACTUATOR, inst, self.cache.Get(k, plugin_state), f)
            actuator_force[np.asarray(inst.actuators, int)] = f.actuator_force
            act_dot[f.extra["act_slots"]] = f.act_dot

    def ComputeSensors(self, time: float, plugin_state: np.ndarray, ctrl: np.ndarray, act: np.ndarray,
                       actuator_length: np.ndarray, actuator_velocity: np.ndarray, sensordata: np.ndarray,
                       stage: str = "acc") -> None:
        """Outputs of plugin sensors whose plugin `needstage` is `stage` (pos, vel or acc) into `sensordata`."""
        self._check(plugin_state)
        for k, inst in enumerate(self.instances):
            plugin = GetPlugin(inst.plugin)
            if not inst.sensors or plugin.needstage != stage:
                continue
            f = self._frame(inst, time, plugin_state, ctrl, act, actuator_velocity, actuator_length)
            plugin.compute(Capability.SENSOR, inst, self.cache.Get(k, plugin_state), f)
            start = 0
            for s in inst.sensors:
                n = int(self.sensor_dim[s])
                sensordata[self.sensor_adr[s]:self.sensor_adr[s] + n] = f.sensordata[start:start + n]
                start += n

    def ComputePassive(self, time: float, plugin_state: np.ndarray, qpos: np.ndarray, qvel: np.ndarray,
                       qfrc_passive: np.ndarray) -> None:
        """Add the generalized forces of passive (body) plugins to `qfrc_passive`."""
        self._check(plugin_state)
        for k, inst in enumerate(self.instances):
            plugin = GetPlugin(inst.plugin)
            if not plugin.capabilities & Capability.PASSIVE:
                continue
            out = np.zeros_like(qfrc_passive)
            f = PluginFrame(time=time, state=plugin_state[inst.stateadr:inst.stateadr + inst.nstate], qpos=qpos,
                            qvel=qvel, qfrc_passive=out)
            plugin.compute(Capability.PASSIVE, inst, self.cache.Get(k, plugin_state), f)
            qfrc_passive += out

    def Advance(self, time: float, timestep: float, plugin_state: np.ndarray, ctrl: np.ndarray, act: np.ndarray,
                actuator_length: np.ndarray, actuator_velocity: np.ndarray) -> None:
        """After the integrator moved time to `time` (act already integrated): update plugin state in
        place and let actuator plugins overwrite their `act` slots."""
        self._check(plugin_state)
        for k, inst in enumerate(self.instances):
            f = self._frame(inst, time, plugin_state, ctrl, act, actuator_velocity, actuator_length, timestep)
            GetPlugin(inst.plugin).advance(inst, self.cache.Get(k, plugin_state), f)
            act[f.extra["act_slots"]] = f.act

    def SdfShape(self, index: int, plugin_state: np.ndarray | None = None) -> SdfShape:
        """The collision shape of SDF instance `index`: a compiled kernel when the plugin has one, else its
        distance/gradient callbacks bound to the instance's plugin data."""
        inst = self.instances[index]
        plugin = GetPlugin(inst.plugin)
        if not plugin.capabilities & Capability.SDF:
            raise ValueError(f"plugin instance {index} ('{inst.plugin}') is not an SDF")
        aabb = np.asarray(plugin.sdf_aabb(inst.config), float)
        kernel = plugin.sdf_kernel(inst.config)
        if kernel is not None:
            return SdfShape(int(kernel[0]), np.asarray(kernel[1], float), aabb)
        state = np.zeros(self.nstate) if plugin_state is None else plugin_state
        data = self.cache.Get(index, state)
        s = np.array(state[inst.stateadr:inst.stateadr + inst.nstate], float)
        return SdfShape(USER, np.zeros(0), aabb, PluginSdfFunction(inst, s, False, plugin, data),
                        PluginSdfFunction(inst, s, True, plugin, data))


class PluginSdfFunction:
    """The distance (or gradient) of a user SDF plugin instance as a picklable callable.

    It holds the instance record (name, plugin registry name, config) and its plugin state; the plugin
    object and its plugin data are never pickled: on unpickle the plugin is looked up by registry name
    (or its module-level class is imported and registered) and its data rebuilt by `init`. So a Context
    whose geometry holds a Python SDF pickles even when the plugin's callables (lambdas, closures) do not.
    """

    def __init__(self, instance: PluginInstance, state: np.ndarray, gradient: bool, plugin=None, data=None):
        self.instance, self.state, self.gradient = instance, np.asarray(state, float), bool(gradient)
        self._plugin, self._data, self._built = plugin, data, plugin is not None
        cls = type(plugin) if plugin is not None else None
        self._cls = (cls.__module__, cls.__qualname__) if cls is not None else None

    def _resolve(self):
        if not self._built:
            if self._plugin is None:
                self._plugin = ResolvePlugin(self.instance, self._cls)
            self._data = self._plugin.init(self.instance, self.state.copy())
            self._built = True
        return self._plugin, self._data

    def __call__(self, p: np.ndarray):
        plugin, data = self._resolve()
        return plugin.sdf_gradient(p, data) if self.gradient else plugin.sdf_distance(p, data)

    def __getstate__(self) -> dict:
        name = self.instance.name or self.instance.plugin
        try:
            pickle.dumps((self.instance, self.state))
        except Exception as exc:  # a plugin that put a callable (or other live object) into its config
            raise TypeError(f"plugin instance '{name}' of plugin '{self.instance.plugin}' cannot be pickled: its "
                            f"config holds {exc}; keep plugin configs to plain values (numbers, strings, arrays) "
                            f"and put callables in the plugin class, defined at module level") from None
        return {"instance": self.instance, "state": self.state, "gradient": self.gradient, "cls": self._cls}

    def __setstate__(self, st: dict) -> None:
        self.instance, self.state, self.gradient, self._cls = st["instance"], st["state"], st["gradient"], st["cls"]
        self._data, self._built = None, False
        self._plugin = ResolvePlugin(self.instance, self._cls)  # fail at unpickle, naming the plugin


def ResolvePlugin(instance: PluginInstance, cls: tuple[str, str] | None):
    """The registered plugin of `instance`; if it is not registered, import its class (module, qualname)
    and register it. RuntimeError naming the plugin and what to do when neither works."""
    name = instance.plugin
    if name in RegisteredPlugins():
        return GetPlugin(name)
    if cls is not None and "<locals>" not in cls[1]:
        try:
            obj = importlib.import_module(cls[0])
            for part in cls[1].split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            obj = None
        if isinstance(obj, type) and issubclass(obj, Plugin) and obj.name == name:
            RegisterPlugin(obj)
            return GetPlugin(name)
    where = f"{cls[0]}.{cls[1]}" if cls is not None else "its plugin class"
    raise RuntimeError(f"plugin '{name}' (instance '{instance.name or name}') is not registered in this process "
                       f"and {where} cannot be imported: define the plugin class at module level and register it "
                       f"with RegisterPlugin before unpickling a Context (or Diagram) that uses it")
