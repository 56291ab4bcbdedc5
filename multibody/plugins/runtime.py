"""Running a model's plugin instances: the calls a plant makes (mj_makeData / mj_step's plugin hooks).

`PluginRuntime` is built once from the compiled instances and the actuator/sensor layout; it slices
the plant's flat arrays for each instance, builds its `PluginFrame`, calls the plugin and scatters
the outputs back. Plugin state lives in the caller's array (part of the Context state); plugin data
is memoized in a `PluginDataCache` that is dropped on copy/pickle and rebuilt on first use.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mallard.geometry.collision.sdf import USER, SdfShape

from .plugin import Capability, PluginFrame, PluginInstance
from .registry import GetPlugin, PluginDataCache

__all__ = ["ActuatorLayout", "PluginRuntime"]


@dataclass(frozen=True)
class ActuatorLayout:
    """Where a plugin actuator's activations sit in `act`: the plugin's `plugin_actdim` slots start at
    `actadr`; `has_dyntype` says one more slot (the dyntype activation) follows them."""

    actadr: int
    plugin_actdim: int
    has_dyntype: bool


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
        acts = [ActuatorLayout(a.actadr, a.plugin_actdim, a.dyntype != "none") if a.plugin >= 0 else None
                for a in model.actuators]
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

    def _frame(self, inst: PluginInstance, time: float, plugin_state, ctrl, act, velocity, length) -> PluginFrame:
        slots = [np.arange(self.actuators[a].actadr, self.actuators[a].actadr + self.actuators[a].plugin_actdim)
                 for a in inst.actuators]
        slots = np.concatenate(slots).astype(int) if slots else np.zeros(0, int)
        inputs = np.array([act[self.actuators[a].actadr + self.actuators[a].plugin_actdim]
                           if self.actuators[a].has_dyntype else ctrl[a] for a in inst.actuators], float)
        idx = np.asarray(inst.actuators, int)
        nsd = int(sum(self.sensor_dim[s] for s in inst.sensors))
        return PluginFrame(
            time=time, state=plugin_state[inst.stateadr:inst.stateadr + inst.nstate], ctrl=inputs,
            act=np.asarray(act, float)[slots], actuator_length=np.asarray(length, float)[idx],
            actuator_velocity=np.asarray(velocity, float)[idx], actuator_force=np.zeros(len(idx)),
            act_dot=np.zeros(len(slots)), sensordata=np.zeros(nsd), extra={"act_slots": slots})

    # ---- per-step hooks -----------------------------------------------------------------------
    def ComputeActuators(self, time: float, plugin_state: np.ndarray, ctrl: np.ndarray, act: np.ndarray,
                         actuator_length: np.ndarray, actuator_velocity: np.ndarray, actuator_force: np.ndarray,
                         act_dot: np.ndarray) -> None:
        """Scalar forces of plugin actuators into `actuator_force`, their activation rates into `act_dot`.

        The input a plugin actuator sees is ctrl, or its dyntype activation when it has a dyntype.
        """
        self._check(plugin_state)
        for k, inst in enumerate(self.instances):
            if not inst.actuators:
                continue
            f = self._frame(inst, time, plugin_state, ctrl, act, actuator_velocity, actuator_length)
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
            f = self._frame(inst, time, plugin_state, ctrl, act, actuator_velocity, actuator_length)
            f.timestep = timestep
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
        return SdfShape(USER, np.zeros(0), aabb, lambda p: plugin.sdf_distance(p, data),
                        lambda p: plugin.sdf_gradient(p, data))
