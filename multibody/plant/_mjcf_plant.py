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
