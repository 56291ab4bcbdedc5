"""MJCF engine plugins inside a MultibodyPlant: plugin state, actuator / sensor / passive hooks, SDF shapes.

Each MJCF model with plugin instances gets a `PluginRuntime` (mallard.multibody.plugins). Its plugin
state (the instances' `nstate` floats, all models concatenated) is one discrete state group of the
plant, so it is cloned, pickled, reset by `SetDefaultContext` and updated with the rest of the Context
state; the plugin objects and their memoized data stay in the plant (the Context holds only floats).
As MuJoCo's mj_step does:

* dynamics (every evaluation): plugin actuators compute their scalar force (it replaces gain·input +
  bias; forcerange and gear apply as usual) and the rates of their own activation slots; passive
  plugins add generalized forces (MuJoCo coordinates, mapped to the plant's). As in MuJoCo, a plugin
  actuator with a dyntype gets its dyntype activation as input, the next-step one (mj_nextActivation,
  h = time_step or <option timestep>) when it is `actearly`; the plugin applies actearly to its own
  slots (`PluginFrame.NextActivation`; the DC motor's force then uses its next-step current);
* sensordata port: plugin sensors at their `needstage` (pos, vel, acc), then clamped to ±cutoff when
  cutoff > 0 (MuJoCo's apply_cutoff for real-valued data);
* advance: a periodic unrestricted update with period h and offset 0, declared after the plant's own
  step. h is the plant's time_step (discrete plant) or the model's `<option timestep>` (continuous
  plant). The event at time t calls each plugin's `advance(t + h, h)`:
  - discrete plant (time_step > 0): activations live in the discrete `act` group; the event sees the
    pre-step context and the post-step state, advances the plugin activation slots like
    mj_nextActivation, then `advance` updates the plugin state and may overwrite those slots;
  - continuous plant (time_step == 0): plugin activation slots are continuous state (the z block after
    [q; v]) whose time derivatives are the plugins' act_dot, integrated by the Simulator's integrator;
    the plugin state is discrete state held constant between samples (zero-order hold, as a
    sampled subsystem in Drake). The event at t reads the context at t (ctrl, act, actuator
    velocity), advances the plugin state over [t, t + h] and may overwrite the activation slots.
    A period (rather than once per integrator step) keeps the plugin update rate the model's own and
    independent of the integrator's step-size choices; it matches the discrete plant's event times.

`SetMujocoKeyframe` resets the plugin state (the plugins' `reset`), as mj_resetDataKeyframe does.
"""
from __future__ import annotations

import math

import numpy as np

from .plant_maps import GetMjcfPlantMap, GetMjcfPlantMaps
from mallard.multibody.plugins import Capability, GetPlugin, Pid, PluginRuntime
from .state import CalcMujocoVelocityMap, GetMujocoState
from mallard.geometry.sdf_shape import SignedDistanceField

__all__ = ["MjcfPlugins", "FinalizeMjcfPlugins", "GetMujocoPluginState", "SetMujocoPluginState",
           "ResetMujocoPluginState", "MjcfSdfShape"]


class _ModelPlugins:
    """One MJCF model's runtime and where its slices sit in the plant-wide vectors."""

    def __init__(self, k: int, pm, u_slice: slice, ctrl_slice: slice, act_slice: slice, state_start: int):
        self.k = k
        self.pm = pm
        self.rt = PluginRuntime.FromMjcf(pm.model)
        self.u = u_slice  # output rows (forces, lengths, velocities) in the plant-wide actuation vectors
        self.ctrl = ctrl_slice  # controls (MuJoCo's ctrl) in the plant-wide ctrl vector
        self.act = act_slice
        # model-local first control / first output of each actuator (MuJoCo 4's actuator_ctrladr / outadr:
        # an orientation servo has 3-4 controls and 3 outputs); the runtime sees one value per actuator
        nc = [getattr(a, "ctrlnum", 1) for a in pm.model.actuators]
        no = [getattr(a, "outnum", 1) for a in pm.model.actuators]
        self.ctrl_adr = np.concatenate([[0], np.cumsum(nc)[:-1]]).astype(np.int64) if nc else np.zeros(0, np.int64)
        self.out_adr = np.concatenate([[0], np.cumsum(no)[:-1]]).astype(np.int64) if no else np.zeros(0, np.int64)
        self.state = slice(state_start, state_start + self.rt.nstate)
        acts = pm.model.actuators
        self.actuators = np.array([i for i, a in enumerate(acts) if a.plugin >= 0], np.int64)
        # plugin activation slots (model-local) with the actuator that owns them
        self.slots = [(i, a.actadr + s) for i, a in enumerate(acts) if a.plugin >= 0 for s in range(a.plugin_actdim)]
        # plugin actuators with a dyntype (their input is an activation) and those of them that are actearly
        self.has_dyn = any(a.plugin >= 0 and a.actdim > a.plugin_actdim for a in acts)
        self.has_early_dyn = any(a.plugin >= 0 and a.actearly and a.actdim > a.plugin_actdim for a in acts)
        self.has_passive = any(_capability(inst, "PASSIVE") for inst in self.rt.instances)
        self.has_sensors = any(inst.sensors for inst in self.rt.instances)
        self.cutoff = [(s, float(pm.model.sensors[s].cutoff)) for inst in self.rt.instances for s in inst.sensors
                       if pm.model.sensors[s].cutoff > 0]

    def Ctrl(self, ctrl: np.ndarray) -> np.ndarray:
        """Each actuator's (first) control from the plant-wide ctrl vector, indexed by actuator."""
        return np.asarray(ctrl, float)[self.ctrl][self.ctrl_adr]

    def Out(self, x: np.ndarray) -> np.ndarray:
        """Each actuator's (first) output from a plant-wide output vector (lengths, velocities), by actuator."""
        return np.asarray(x, float)[self.u][self.out_adr]


def _capability(inst, name: str) -> bool:
    return bool(GetPlugin(inst.plugin).capabilities & getattr(Capability, name))


def _in_step(inst) -> bool:
    """Whether the plant's step computes instance `inst` itself: MuJoCo's PID (pipeline/actuation.py), or a shape
    (SDF only, no state: collision reads it from the geometry)."""
    plugin = GetPlugin(inst.plugin)
    return type(plugin) is Pid or (plugin.capabilities == Capability.SDF and inst.nstate == 0)


def _next_activation(actuation, i: int, a: float, a_dot: float) -> float:
    """MuJoCo's mj_nextActivation for one slot of plant-wide actuator `i`: a + h ȧ (filterexact: the exact
    first-order step of the actuator's time constant), clamped to actrange when limited."""
    h = actuation.h
    if actuation.dyn[i] == 3:
        tau = actuation.tau[i]
        nxt = a + a_dot * tau * (1.0 - math.exp(-h / tau))
    else:
        nxt = a + h * a_dot
    return min(max(nxt, actuation.act_lo[i]), actuation.act_hi[i])


class MjcfPlugins:
    """The plugin runtimes of every MJCF model of a plant and the plant-wide plugin state group."""

    def __init__(self, plant, actuation):
        self.models: list[_ModelPlugins] = []
        n = 0
        for k, pm in enumerate(GetMjcfPlantMaps(plant)):
            if not pm.model.plugins:
                continue
            mp = _ModelPlugins(k, pm, actuation.u_slices[k], actuation.ctrl_slices[k], actuation.act_slices[k], n)
            n += mp.rt.nstate
            self.models.append(mp)
        self.nstate = n
        self.group = None  #: discrete state group of the plugin state (None when nstate == 0)
        self.continuous = plant.time_step() <= 0
        self.h = actuation.h  #: advance period: the plant's time_step, or <option timestep> (continuous)
        self.has_slots = any(mp.slots for mp in self.models)
        #: every instance is MuJoCo's PID or a stateless SDF shape and the plant is discrete: the plant's step
        #: (compiled, pipeline/actuation.py, or the Python path) computes them and advances the PID slots, with no
        #: plugin event of their own
        self.in_step = not self.continuous and all(_in_step(inst) for mp in self.models for inst in mp.rt.instances)

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
        (plant-wide activation vector, zero outside plugin slots).

        A plugin actuator with a dyntype sees its dyntype activation as input, the next-step one when it is
        actearly; the plugin itself applies actearly to its own slots (`PluginFrame.NextActivation`)."""
        x = np.array(self.GetState(plant, context), float)
        act_dot = np.zeros(len(act))
        t = context.get_time()
        actuation = plant._mjcf_actuation
        act = np.asarray(act, float)
        dyn_rates = actuation.CalcActivationRates(ctrl, act) if any(mp.has_dyn for mp in self.models) else None
        act_next = actuation.CalcNextActivations(ctrl, act) if any(mp.has_early_dyn for mp in self.models) \
            else None
        for mp in self.models:
            if not len(mp.actuators):
                continue
            f = np.zeros(len(mp.out_adr))  # one force per actuator (plugin actuators are scalar)
            ad = np.zeros(mp.act.stop - mp.act.start)
            mp.rt.ComputeActuators(t, x[mp.state], mp.Ctrl(ctrl), act[mp.act], mp.Out(length), mp.Out(velocity), f,
                                   ad, actuation.h, None if act_next is None else act_next[mp.act],
                                   None if dyn_rates is None else dyn_rates[mp.act])
            force[mp.u.start + mp.out_adr[mp.actuators]] = f[mp.actuators]
            act_dot[mp.act] = ad
        return act_dot

    def ActivationRates(self, plant, context) -> np.ndarray:
        """Plant-wide act_dot of the plugin activation slots (zero elsewhere): the continuous plant's
        time derivatives of those slots."""
        actuation = plant._mjcf_actuation
        ctrl, act, length, velocity = self._Inputs(plant, context)
        return self.ActuatorForces(plant, context, ctrl, act, length, velocity, np.zeros(actuation.nout))

    def PassiveForces(self, plant, context) -> np.ndarray:
        """Generalized forces of passive (body) plugins in plant velocity coordinates."""
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
        """Plugin sensor outputs of MJCF model `k` into its sensordata `data` (all stages), clamped to
        ±cutoff where the sensor has cutoff > 0 (plugin sensor data is real-valued)."""
        x = np.array(self.GetState(plant, context), float)
        for mp in self.models:
            if mp.k != k or not mp.has_sensors:
                continue
            for stage in ("pos", "vel", "acc"):
                mp.rt.ComputeSensors(context.get_time(), x[mp.state], mp.Ctrl(ctrl), act[mp.act], mp.Out(length),
                                     mp.Out(velocity), data, stage)
            for s, cutoff in mp.cutoff:
                adr, dim = int(mp.rt.sensor_adr[s]), int(mp.rt.sensor_dim[s])
                data[adr:adr + dim] = np.clip(data[adr:adr + dim], -cutoff, cutoff)

    # ---- after the step -------------------------------------------------------------------------------
    @staticmethod
    def _Inputs(plant, context):
        """(ctrl, act, actuator length, actuator velocity) of every MJCF actuator in `context`."""
        actuation = plant._mjcf_actuation
        q, v = plant.GetPositions(context), plant.GetVelocities(context)
        ctrl = actuation.EvalCtrl(plant, context)
        act = np.array(actuation.GetActivations(plant, context), float)
        return ctrl, act, actuation.CalcLengths(plant, context, q), actuation.CalcMomentArms(plant, context) @ v

    def PidRows(self, actuation) -> tuple:
        """The compiled step's PID actuators (pipeline/actuation.py), one row per plugin actuator output of an
        `in_step` plant: (output, [kp, ki, kd, bound of the integral (|imax/ki|, inf without imax), slewmax],
        [integral slot, previous-input slot] (plant-wide activations, -1: none), dyntype activation slot (-1:
        none))."""
        out, prm, slots, dyn = [], [], [], []
        for mp in self.models:
            for inst in mp.rt.instances:
                if type(GetPlugin(inst.plugin)) is not Pid:
                    continue
                c = inst.config
                ki = float(c["ki"])
                bound = abs(float(c["imax"]) / ki) if "imax" in c and ki != 0.0 else math.inf
                slew = "slewmax" in c
                for a in inst.actuators:
                    L = mp.rt.actuators[a]
                    first = mp.act.start + L.actadr
                    out.append(mp.u.start + int(mp.out_adr[a]))
                    prm.append([float(c["kp"]), ki, float(c["kd"]), bound, float(c["slewmax"]) if slew else 0.0])
                    slots.append([first if ki != 0.0 else -1, first + (1 if ki != 0.0 else 0) if slew else -1])
                    dyn.append(first + L.plugin_actdim if L.has_dyntype else -1)
        return (np.array(out, np.int64), np.array(prm, float).reshape(-1, 5), np.array(slots, np.int64).reshape(-1, 2),
                np.array(dyn, np.int64))

    def _AdvanceSlots(self, plant, context, act0, act_dot, act) -> None:
        """act ← the plugin activation slots advanced from act0 with rates act_dot as by mj_nextActivation."""
        actuation = plant._mjcf_actuation
        for mp in self.models:
            for i, slot in mp.slots:
                g = mp.act.start + slot
                act[g] = _next_activation(actuation, mp.u.start + int(mp.out_adr[i]), act0[g], act_dot[g])

    def AdvanceInStep(self, plant, context, act_next: np.ndarray) -> None:
        """The Python path's step of an `in_step` plant: its plugin activation slots in act_next (the step's next
        activations), from the pre-step `context`."""
        ctrl, act0, length, velocity = self._Inputs(plant, context)
        act_dot = self.ActuatorForces(plant, context, ctrl, act0, length, velocity,
                                      np.zeros(plant._mjcf_actuation.nout))
        self._AdvanceSlots(plant, context, act0, act_dot, act_next)

    def Advance(self, plant, context, state) -> None:
        """The plugins' part of the step (discrete plant): plugin activation slots advanced as by
        mj_nextActivation, then each plugin's advance."""
        actuation = plant._mjcf_actuation
        ctrl, act0, length, velocity = self._Inputs(plant, context)
        act_dot = self.ActuatorForces(plant, context, ctrl, act0, length, velocity, np.zeros(actuation.nout))
        act = act0.copy()
        if plant._mjcf_act_group is not None:
            act = np.array(state.get_discrete_state(plant._mjcf_act_group).get_value(), float)
        x = np.array(self.GetState(plant, context), float)
        t = context.get_time() + self.h
        self._AdvanceSlots(plant, context, act0, act_dot, act)
        for mp in self.models:
            s = x[mp.state]
            a = act[mp.act]
            mp.rt.Advance(t, self.h, s, mp.Ctrl(ctrl), a, mp.Out(length), mp.Out(velocity))
            x[mp.state] = s
            act[mp.act] = a
        if self.group is not None:
            state.get_mutable_discrete_state(self.group).SetFromVector(x)
        if plant._mjcf_act_group is not None:
            state.get_mutable_discrete_state(plant._mjcf_act_group).SetFromVector(act)

    def AdvanceContinuous(self, plant, context, state) -> None:
        """The periodic plugin update of a continuous plant: each plugin's advance over [t, t + h] from
        the context at t; activation slots a plugin overwrites are written back to the continuous state."""
        ctrl, act, length, velocity = self._Inputs(plant, context)
        x = np.array(self.GetState(plant, context), float)
        t = context.get_time() + self.h
        slots = []
        for mp in self.models:
            s = x[mp.state]
            a = act[mp.act]
            mp.rt.Advance(t, self.h, s, mp.Ctrl(ctrl), a, mp.Out(length), mp.Out(velocity))
            x[mp.state] = s
            act[mp.act] = a
            slots += [mp.act.start + slot for _, slot in mp.slots]
        if self.group is not None:
            state.get_mutable_discrete_state(self.group).SetFromVector(x)
        if slots:
            xc = state.get_mutable_continuous_state().get_mutable_vector().get_mutable_value()
            z0 = plant._xc_nq + plant._xc_nv
            xc[z0 + np.asarray(slots, int)] = act[slots]


class _Advance:
    """The plugin update event's callback (bound to the plant; a class so the plant's events stay plain)."""

    def __init__(self, plant, plugins: MjcfPlugins):
        self.plant, self.plugins = plant, plugins

    def __call__(self, context, state) -> None:
        if self.plugins.continuous:
            self.plugins.AdvanceContinuous(self.plant, context, state)
        else:
            self.plugins.Advance(self.plant, context, state)


def FinalizeMjcfPlugins(plant, actuation) -> "MjcfPlugins":
    """Build the plugin runtimes, declare the plugin state group and the periodic advance (at Finalize).

    A continuous plant needs `<option timestep>` > 0 (the advance period); its plugin activation slots
    are already continuous state (declared with the other MJCF activations by the caller).
    """
    plugins = MjcfPlugins(plant, actuation)
    if not plugins:
        return plugins
    if plugins.nstate:
        plugins.group = plant.DeclareDiscreteState(plugins.DefaultState())
    if (plugins.nstate or plugins.has_slots) and not plugins.in_step:
        if not plugins.h > 0:
            names = sorted({inst.plugin for mp in plugins.models for inst in mp.rt.instances})
            raise ValueError(f"MultibodyPlant '{plant.get_name()}': MJCF engine plugins ({', '.join(names)}) on a "
                             f"continuous plant advance every <option timestep>, which is {plugins.h}; give the "
                             f"model a positive timestep")
        plant.DeclarePeriodicUnrestrictedUpdateEvent(plugins.h, 0.0, _Advance(plant, plugins))
    return plugins


def _plugins(plant) -> MjcfPlugins:
    plant._ThrowIfNotFinalized("GetMujocoPluginState")
    act = plant._mjcf_actuation
    if not act.plugins or act.plugins.group is None:
        raise RuntimeError(f"MultibodyPlant '{plant.get_name()}' has no MJCF plugin state (no plugin instance with "
                           f"nstate > 0)")
    return act.plugins


def _model_of(plant, plugins: MjcfPlugins, model_instance):
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


def ResetMujocoPluginState(plant, context, model_instance=None) -> None:
    """Reset an MJCF model's plugin state in `context` with its plugins' `reset` (as mj_resetData does);
    a no-op for a model without plugin state."""
    act = plant._mjcf_actuation
    if not act.plugins or act.plugins.group is None:
        return
    pm = GetMjcfPlantMap(plant, model_instance)
    for mp in act.plugins.models:
        if int(mp.pm.instance) == int(pm.instance) and mp.rt.nstate:
            s = np.zeros(mp.rt.nstate)
            mp.rt.Reset(s)
            context.get_mutable_discrete_state(act.plugins.group).get_mutable_value()[mp.state] = s


def MjcfSdfShape(model, geom):
    """The SignedDistanceField of a type="sdf" geom: its plugin's SDF, MJCF sdf options, the plugin mesh."""
    sdf = PluginRuntime.FromMjcf(model).SdfShape(geom.plugin)
    mesh = model.meshes[geom.mesh] if getattr(geom, "mesh", -1) >= 0 else None
    return SignedDistanceField(sdf, model.option.sdf_initpoints, model.option.sdf_iterations,
                               None if mesh is None else mesh.vertices, None if mesh is None else mesh.faces,
                               name=geom.name)
