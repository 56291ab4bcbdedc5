"""MJCF models attached to a MultibodyPlant: the element maps kept for actuators, sensors, keyframes and
MuJoCo ↔ plant state conversion (see _mjcf_state, _mjcf_actuation)."""
from __future__ import annotations


def AttachMjcfModel(plant, plant_map) -> None:
    """Remember `plant_map` (parsers.mjcf.to_plant.MjcfPlantMap) on `plant`; called by the Parser before Finalize."""
    plant._ThrowIfFinalized("AttachMjcfModel")
    if not hasattr(plant, "_mjcf_maps"):
        plant._mjcf_maps = []
    plant._mjcf_maps.append(plant_map)


def GetMjcfPlantMaps(plant) -> list:
    """The MjcfPlantMap of every MJCF model loaded into `plant`, in load order."""
    return list(getattr(plant, "_mjcf_maps", []))


def ApplySliderBodyInvWeights(plant_maps, body_invweight0: np.ndarray, dof_invweight0: np.ndarray) -> None:
    """MuJoCo's setConst rule for slider-only bodies (body_simple == 2) on a plant's inverse weights, in place.

    For such a body MuJoCo takes body_invweight0 = (1/mass, 0) and dof_invweight0 = 1/mass per slide dof, not the
    mean diagonal of J M⁻¹ Jᵀ (which is 1/(3·mass) for a single slide); `plant_maps` are the plant's
    MjcfPlantMaps, body_invweight0 (nb, 2) and dof_invweight0 (nv,) are indexed by plant body and dof.
    """
    for pm in plant_maps:
        model = pm.model
        for i, kind in enumerate(model.body_simple):
            if kind != 2:
                continue
            body_invweight0[int(pm.bodies[i].index())] = model.body_invweight0[i]
            b = model.bodies[i]
            for k in range(b.jntadr, b.jntadr + b.jntnum):
                dof_invweight0[pm.joints[k].velocity_start()] = model.dof_invweight0[model.joints[k].dofadr]
