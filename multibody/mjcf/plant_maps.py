"""MJCF models attached to a MultibodyPlant: the element maps kept for actuators, sensors, keyframes and
MuJoCo ↔ plant state conversion (see state.py, actuation.py)."""
from __future__ import annotations

import numpy as np

from ..tree.element import stored


def AttachMjcfModel(plant, plant_map) -> None:
    """Remember `plant_map` (parsers.mjcf.to_plant.MjcfPlantMap) on `plant`; called by the Parser before Finalize."""
    plant._ThrowIfFinalized("AttachMjcfModel")
    for name in ("bodies", "joints", "sites", "mocap"):  # the stored elements, not users' handles (no cycle)
        setattr(plant_map, name, [stored(e) for e in getattr(plant_map, name)])
    plant._mjcf_maps.append(plant_map)


def GetMjcfPlantMaps(plant) -> list:
    """The MjcfPlantMap of every MJCF model loaded into `plant`, in load order."""
    return list(plant._mjcf_maps)


def GetMjcfPlantMap(plant, model_instance=None):
    """The MjcfPlantMap of `model_instance` (or of the only MJCF model of the plant when None)."""
    maps = GetMjcfPlantMaps(plant)
    if not maps:
        raise ValueError(f"MultibodyPlant '{plant.get_name()}' has no MJCF model; load one with "
                         "Parser(plant).AddModels('model.xml')")
    if model_instance is None:
        if len(maps) != 1:
            raise ValueError(f"MultibodyPlant '{plant.get_name()}' holds {len(maps)} MJCF models; pass the "
                             "model_instance")
        return maps[0]
    for pm in maps:
        if int(pm.instance) == int(model_instance):
            return pm
    names = [plant.GetModelInstanceName(pm.instance) for pm in maps]
    raise KeyError(f"model instance {int(model_instance)} of MultibodyPlant '{plant.get_name()}' was not loaded "
                   f"from MJCF; MJCF instances: {names}")


def ApplyMujocoInvWeights(plant_maps, body_invweight0: np.ndarray, dof_invweight0: np.ndarray) -> None:
    """Overwrite a plant's constraint inverse weights, in place, with MuJoCo's compile-time ones (mj_setConst) for
    every MJCF body and dof.

    The plant computes them from its own M(q0), which lacks MuJoCo's special cases: slider-only bodies
    (body_simple == 2: 1/mass and 0 instead of the mean diagonal of J M⁻¹ Jᵀ) and tendon armature in M.
    `plant_maps` are the plant's MjcfPlantMaps; body_invweight0 (nb, 2) and dof_invweight0 (nv,) are indexed by
    plant body and dof (a free joint's plant velocity is [ω; v], MuJoCo's [v; ω]).
    """
    for pm in plant_maps:
        model = pm.model
        for i in range(1, len(model.bodies)):
            body_invweight0[int(pm.bodies[i].index())] = model.body_invweight0[i]
        for k, joint in enumerate(model.joints):
            start, n = pm.joints[k].velocity_start(), pm.joints[k].num_velocities()
            theirs = model.dof_invweight0[joint.dofadr:joint.dofadr + n]
            dof_invweight0[start:start + n] = np.concatenate([theirs[3:], theirs[:3]]) if n == 6 else theirs
