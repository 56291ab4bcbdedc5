"""MJCF keyframes (`<keyframe><key>`) of a plant's MJCF models: their names, their records, and a context set from
one (state, activations, mocap poses, plugin state, optionally ctrl), as mj_resetDataKeyframe does."""
from __future__ import annotations

import numpy as np

from .mocap import MocapStart
from .plant_maps import GetMjcfPlantMap, GetMjcfPlantMaps
from .plugins import ResetMujocoPluginState
from .state import SetMujocoActivations, SetMujocoState, _check_size

__all__ = ["GetMujocoKeyframeNames", "GetMujocoKeyframe", "SetMujocoKeyframe"]


def GetMujocoKeyframeNames(plant, model_instance=None) -> list[str]:
    """Names of the MJCF model's keyframes, in file order (unnamed ones as 'key<i>')."""
    pm = GetMjcfPlantMap(plant, model_instance)
    return [k.name or f"key{i}" for i, k in enumerate(pm.model.keys)]


def GetMujocoKeyframe(plant, name, model_instance=None):
    """The MjcfKey called `name` (or index `name`): full-size time, qpos, qvel, act, ctrl, mpos, mquat."""
    pm = GetMjcfPlantMap(plant, model_instance)
    names = GetMujocoKeyframeNames(plant, pm.instance)
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
        if not 0 <= int(name) < len(names):
            raise KeyError(f"keyframe index {int(name)} out of range; the model has {len(names)} keyframes")
        return pm.model.keys[int(name)]
    if name not in names:
        raise KeyError(f"no keyframe named '{name}' in MJCF model '{pm.model.name}'; keyframes: {names}")
    return pm.model.keys[names.index(name)]


def SetMujocoKeyframe(plant, context, name, model_instance=None, set_ctrl: bool = False):
    """Set the state (qpos, qvel), MJCF activations and mocap poses (mpos, mquat: the mocap_pose parameter the
    unconnected port falls back to) of `context` from keyframe `name` (or its index), reset
    the model's engine-plugin state (the plugins' reset, as mj_resetDataKeyframe), and set the time when
    `context` is a root context (a plant's subcontext in a diagram cannot change the time: set the root's from
    key.time); returns the MjcfKey.

    The keyframe's ctrl is an input, not state: with `set_ctrl` it is fixed on the model's `<instance>_ctrl`
    port (MuJoCo's nu values: an orientation servo takes 3 or 4 controls), as mj_resetDataKeyframe sets ctrl.
    """
    key = GetMujocoKeyframe(plant, name, model_instance)
    pm = GetMjcfPlantMap(plant, model_instance)
    ctrl = None
    if set_ctrl:
        k = [int(p.instance) for p in GetMjcfPlantMaps(plant)].index(int(pm.instance))
        actuation = plant._mjcf_actuation
        sl = actuation.ctrl_slices[k]
        ctrl = _check_size(key.ctrl, sl.stop - sl.start, f"keyframe '{key.name or name}' ctrl")
    SetMujocoState(plant, context, key.qpos, key.qvel, pm.instance)
    if pm.model.na:
        SetMujocoActivations(plant, context, key.act, pm.instance)
    if getattr(pm, "mocap", None):  # mpos / mquat: the context's mocap poses (mocap.py)
        plant._mjcf_mocap.SetDefaultPoses(context, MocapStart(plant, pm), key.mpos, key.mquat)
    if pm.model.plugins:  # mj_resetDataKeyframe resets plugin state with the plugins' reset (plugins.py)
        ResetMujocoPluginState(plant, context, pm.instance)
    if ctrl is not None:
        actuation.ports[k].FixValue(context, ctrl)
    if context.is_root_context():
        context.SetTime(float(key.time))
    return key
