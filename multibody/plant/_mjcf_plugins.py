"""MJCF engine plugins inside a MultibodyPlant: plugin state, actuator / sensor / passive hooks, SDF shapes.

Each MJCF model with plugin instances gets a `PluginRuntime` (mallard.multibody.plugins). Its plugin
state (the instances' `nstate` floats, all models concatenated) is one discrete state group of the
plant, so it is cloned, pickled and updated with the rest of the Context state. Per step, as MuJoCo's
mj_step does:

* dynamics (every evaluation): plugin actuators compute their scalar force (it replaces gain·input +
  bias; forcerange and gear apply as usual) and the rates of their own activation slots; passive
  plugins add generalized forces (MuJoCo coordinates, mapped to the plant's);
* sensordata port: plugin sensors at their `needstage` (pos, vel, acc);
* after the plant's step (a periodic unrestricted update declared after the plant's own, so it sees
  the pre-step context and the post-step state): plugin activation slots advance by Euler (clamped to
  actrange when limited), then `Advance(t + h, h, ...)` updates the plugin state and may overwrite
  those slots.

Plugins need a discrete plant (time_step > 0): their advance hook runs once per step.
"""
from __future__ import annotations

import numpy as np

from ._mjcf_plant import GetMjcfPlantMaps

__all__ = ["MjcfPlugins", "FinalizeMjcfPlugins", "GetMujocoPluginState", "SetMujocoPluginState", "MjcfSdfShape"]


class _ModelPlugins:
    """One MJCF model's runtime and where its slices sit in the plant-wide vectors."""

    def __init__(self, k: int, pm, u_slice: slice, act_slice: slice, state_start: int):
        from mallard.multibody.plugins import PluginRuntime
        self.k = k
        self.pm = pm
        self.rt = PluginRuntime.FromMjcf(pm.model)
        self.u = u_slice
        self.act = act_slice
        self.state = slice(state_start, state_start + self.rt.nstate)
        self.actuators = np.array([i for i, a in enumerate(pm.model.actuators) if a.plugin >= 0], np.int64)
        # plugin activation slots (model-local) with the actuator that owns them
        self.slots = [(i, a.actadr + s) for i, a in enumerate(pm.model.actuators) if a.plugin >= 0
                      for s in range(a.plugin_actdim)]
        self.has_passive = any(_capability(inst, "PASSIVE") for inst in self.rt.instances)
        self.has_sensors = any(inst.sensors for inst in self.rt.instances)


def _capability(inst, name: str) -> bool:
    from mallard.multibody.plugins import Capability, GetPlugin
    return bool(GetPlugin(inst.plugin).capabilities & getattr(Capability, name))


class MjcfPlugins:
    """The plugin runtimes of every MJCF model of a plant and the plant-wide plugin state group."""

    def __init__(self, plant, actuation):
        self.models: list[_ModelPlugins] = []
        n = 0
        for k, pm in enumerate(GetMjcfPlantMaps(plant)):
            if not pm.model.plugins:
                continue
            mp = _ModelPlugins(k, pm, actuation.u_slices[k], actuation.act_slices[k], n)
            n += mp.rt.nstate
            self.models.append(mp)
        self.nstate = n
        self.group = None  #: discrete state group of the plugin state (None when nstate == 0)
        self.h = plant.time_step()

    def __bool__(self) -> bool:
        return bool(self.models)

    def DefaultState(self) -> np.ndarray:
        """Every instance's initial state (the plugins' reset)."""
        x = np.zeros(self.nstate)
        for mp in self.models:
            s = x[mp.state]
            mp.rt.Reset(s)
            x[mp.state] = s
        return x

    def GetState(self, plant, context) -> np.ndarray:
        """The plant-wide plugin state in `context` (read-only view semantics: do not write)."""
        if self.group is None:
            return np.zeros(0)
        return context.get_discrete_state(self.group).get_value()

    # ---- dynamics hooks -------------------------------------------------------------------------------
    def ActuatorForces(self, plant, context, ctrl, act, length, velocity, force) -> np.ndarray:
        """Overwrite `force` (plant-wide actuator forces) at plugin actuators; returns the plugin act_dot
        (plant-wide activation vector, zero outside plugin slots)."""
        x = np.array(self.GetState(plant, context), float)
        act_dot = np.zeros(len(act))
        t = context.get_time()
        for mp in self.models:
            if not len(mp.actuators):
                continue
            f = np.zeros(mp.u.stop - mp.u.start)
            ad = np.zeros(mp.act.stop - mp.act.start)
            s = x[mp.state]
            mp.rt.ComputeActuators(t, s, ctrl[mp.u], act[mp.act], length[mp.u], velocity[mp.u], f, ad)
            force[mp.u.start + mp.actuators] = f[mp.actuators]
            act_dot[mp.act] = ad
        return act_dot

    def PassiveForces(self, plant, context) -> np.ndarray:
        """Generalized forces of passive (body) plugins in plant velocity coordinates."""
        from ._mjcf_state import CalcMujocoVelocityMap, GetMujocoState
        tau = np.zeros(plant.num_velocities())
        x = np.array(self.GetState(plant, context), float)
        for mp in self.models:
            if not mp.has_passive:
                continue
            qpos, qvel = GetMujocoState(plant, context, mp.pm.instance)
            qfrc = np.zeros(mp.pm.model.nv)
            mp.rt.ComputePassive(context.get_time(), x[mp.state], qpos, qvel, qfrc)
            tau += CalcMujocoVelocityMap(plant, context, mp.pm.instance) @ qfrc  # T orthogonal per joint
        return tau

    def Sensors(self, plant, k: int, context, ctrl, act, length, velocity, data: np.ndarray) -> None:
        """Plugin sensor outputs of MJCF model `k` into its sensordata `data` (all stages)."""
        x = np.array(self.GetState(plant, context), float)
        for mp in self.models:
            if mp.k != k or not mp.has_sensors:
                continue
            for stage in ("pos", "vel", "acc"):
                mp.rt.ComputeSensors(context.get_time(), x[mp.state], ctrl[mp.u], act[mp.act], length[mp.u],
                                     velocity[mp.u], data, stage)

    # ---- after the step -------------------------------------------------------------------------------
    def Advance(self, plant, context, state) -> None:
        """The plugins' part of the step: Euler on plugin activation slots, then each plugin's advance."""
        actuation = plant._mjcf_actuation
        q, v = plant.GetPositions(context), plant.GetVelocities(context)
        ctrl = actuation.EvalCtrl(plant, context)
        act0 = np.array(actuation.GetActivations(plant, context), float)
        length = actuation.CalcLengths(plant, context, q)
        velocity = actuation.CalcMomentArms(plant, context) @ v
        act_dot = self.ActuatorForces(plant, context, ctrl, act0, length, velocity, np.zeros(len(ctrl)))
        act = act0.copy()
        if plant._mjcf_act_group is not None:
            act = np.array(state.get_discrete_state(plant._mjcf_act_group).get_value(), float)
        x = np.array(self.GetState(plant, context), float)
        t = context.get_time() + self.h
        for mp in self.models:
            for i, slot in mp.slots:
                g = mp.act.start + slot
                a = act0[g] + self.h * act_dot[g]
                gi = mp.u.start + i
                act[g] = min(max(a, actuation.act_lo[gi]), actuation.act_hi[gi])
            s = x[mp.state]
            a = act[mp.act]
            mp.rt.Advance(t, self.h, s, ctrl[mp.u], a, length[mp.u], velocity[mp.u])
            x[mp.state] = s
            act[mp.act] = a
        if self.group is not None:
            state.get_mutable_discrete_state(self.group).SetFromVector(x)
        if plant._mjcf_act_group is not None:
            state.get_mutable_discrete_state(plant._mjcf_act_group).SetFromVector(act)


def FinalizeMjcfPlugins(plant, actuation) -> "MjcfPlugins":
    """Build the plugin runtimes, declare the plugin state group and the post-step advance (at Finalize).

    Raises RuntimeError for a continuous plant with plugin instances (their advance hook is per step).
    """
    plugins = MjcfPlugins(plant, actuation)
    if not plugins:
        return plugins
    if plant.time_step() <= 0:
        names = sorted({inst.plugin for mp in plugins.models for inst in mp.rt.instances})
        raise RuntimeError(f"MultibodyPlant '{plant.get_name()}': MJCF engine plugins ({', '.join(names)}) need a "
                           f"discrete plant (their state advances once per step, as in mj_step); construct the "
                           f"plant with time_step=<option timestep> "
                           f"(e.g. {plugins.models[0].pm.model.option.timestep})")
    if plugins.nstate:
        plugins.group = plant.DeclareDiscreteState(plugins.DefaultState())
    if plugins.nstate or any(mp.slots for mp in plugins.models):
        plant.DeclarePeriodicUnrestrictedUpdateEvent(plant.time_step(), 0.0,
                                                     lambda context, state: plugins.Advance(plant, context, state))
    return plugins


def _plugins(plant) -> MjcfPlugins:
    plant._ThrowIfNotFinalized("GetMujocoPluginState")
    act = getattr(plant, "_mjcf_actuation", None)
    if act is None or not act.plugins or act.plugins.group is None:
        raise RuntimeError(f"MultibodyPlant '{plant.get_name()}' has no MJCF plugin state (no plugin instance with "
                           f"nstate > 0)")
    return act.plugins


def _model_of(plant, plugins: MjcfPlugins, model_instance):
    from ._mjcf_state import GetMjcfPlantMap
    pm = GetMjcfPlantMap(plant, model_instance)
    for mp in plugins.models:
        if int(mp.pm.instance) == int(pm.instance):
            return mp
    raise RuntimeError(f"MJCF model '{pm.model.name}' has no plugin instances")


def GetMujocoPluginState(plant, context, model_instance=None) -> np.ndarray:
    """An MJCF model's plugin state (MuJoCo's plugin_state: instances concatenated in model order)."""
    plugins = _plugins(plant)
    mp = _model_of(plant, plugins, model_instance)
    return np.array(plugins.GetState(plant, context)[mp.state], float)


def SetMujocoPluginState(plant, context, plugin_state, model_instance=None) -> None:
    """Set an MJCF model's plugin state in `context` (size: the model's total plugin nstate)."""
    plugins = _plugins(plant)
    mp = _model_of(plant, plugins, model_instance)
    x = np.asarray(plugin_state, float).reshape(-1)
    if x.size != mp.state.stop - mp.state.start or not np.all(np.isfinite(x)):
        raise ValueError(f"plugin_state needs {mp.state.stop - mp.state.start} finite values for MJCF model "
                         f"'{mp.pm.model.name}', got {x.tolist()}")
    context.get_mutable_discrete_state(plugins.group).get_mutable_value()[mp.state] = x


def MjcfSdfShape(model, geom):
    """The SignedDistanceField of a type="sdf" geom: its plugin's SDF, MJCF sdf options, the plugin mesh."""
    from mallard.geometry.sdf_shape import SignedDistanceField
    from mallard.multibody.plugins import PluginRuntime
    sdf = PluginRuntime.FromMjcf(model).SdfShape(geom.plugin)
    mesh = model.meshes[geom.mesh] if getattr(geom, "mesh", -1) >= 0 else None
    return SignedDistanceField(sdf, model.option.sdf_initpoints, model.option.sdf_iterations,
                               None if mesh is None else mesh.vertices, None if mesh is None else mesh.faces,
                               name=geom.name)
