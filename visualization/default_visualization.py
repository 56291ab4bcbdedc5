"""ApplyVisualizationConfig and AddDefaultVisualization (pydrake.visualization): the usual Meshcat layers for a
diagram with a MultibodyPlant and its SceneGraph, as Drake's visualization_config_functions add them.

Each layer is a MeshcatVisualizer with Drake's prefix: "illustration" (shown), "inertia" (the bodies' inertia
ellipsoids, hidden) and "proximity" (hidden, at ``initial_proximity_alpha`` opacity when the alpha sliders are
on), plus a ContactVisualizer under "contact_forces". pydrake also publishes to LCM (Meldis); mallard has no
LCM, so an ``lcm_buses`` / ``lcm`` argument is reported with a warning and otherwise ignored.
"""
from __future__ import annotations

import warnings

from mallard.geometry import Role, SceneGraph
from mallard.geometry.contact_visualizer import ContactVisualizer, ContactVisualizerParams
from mallard.geometry.meshcat import Meshcat
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams
from mallard.visualization.inertia_visualizer import InertiaVisualizer
from mallard.visualization.visualization_config import VisualizationConfig

__all__ = ["AddDefaultVisualization", "ApplyVisualizationConfig", "ConvertVisualizationConfigToMeshcatParams"]


def ConvertVisualizationConfigToMeshcatParams(config: VisualizationConfig) -> list[MeshcatVisualizerParams]:
    """The MeshcatVisualizerParams of each layer ``config`` asks for (illustration, inertia, proximity)."""
    common = dict(publish_period=config.publish_period, enable_alpha_slider=config.enable_alpha_sliders,
                  delete_on_initialization_event=config.delete_on_initialization_event)
    out = []
    if config.publish_illustration:
        out.append(MeshcatVisualizerParams(role=Role.kIllustration, default_color=config.default_illustration_color,
                                           prefix="illustration", visible_by_default=True, **common))
    if config.publish_inertia:
        out.append(MeshcatVisualizerParams(role=Role.kIllustration, prefix="inertia", visible_by_default=False,
                                           include_unspecified_accepting=False, **common))
    if config.publish_proximity:
        out.append(MeshcatVisualizerParams(role=Role.kProximity, default_color=config.default_proximity_color,
                                           prefix="proximity", initial_alpha_slider_value=config.initial_proximity_alpha,
                                           visible_by_default=False, **common))
    return out


def _find(builder, name: str, kind: type, who: str):
    if builder.HasSubsystemNamed(name) and isinstance(builder.GetSubsystemByName(name), kind):
        return builder.GetSubsystemByName(name)
    found = [s for s in builder.GetSystems() if isinstance(s, kind)]
    if len(found) != 1:
        raise RuntimeError(f"{who}: the builder must hold one {kind.__name__} (named '{name}' when there are several); "
                           f"it holds {len(found)} {[s.get_name() for s in found]}. Add them with "
                           "AddMultibodyPlantSceneGraph, or pass plant= and scene_graph=.")
    return found[0]


def ApplyVisualizationConfig(config: VisualizationConfig, builder, lcm_buses=None, plant=None,
                             scene_graph: SceneGraph | None = None, meshcat: Meshcat | None = None, lcm=None) -> None:
    """Add the Meshcat visualizers ``config`` asks for to ``builder`` (the plant, named "plant", must be
    finalized); a Meshcat is created when none is given and ``config.enable_meshcat_creation``."""
    from mallard.multibody.plant import MultibodyPlant

    if not isinstance(config, VisualizationConfig):
        raise TypeError(f"ApplyVisualizationConfig needs a VisualizationConfig; given {type(config).__name__}")
    if lcm_buses is not None or lcm is not None:
        warnings.warn("ApplyVisualizationConfig: mallard has no LCM, so nothing is published to Meldis / "
                      "drake_visualizer; the Meshcat visualizers are added as usual", RuntimeWarning, stacklevel=2)
    plant = plant if plant is not None else _find(builder, "plant", MultibodyPlant, "ApplyVisualizationConfig")
    scene_graph = scene_graph if scene_graph is not None else _find(builder, "scene_graph", SceneGraph,
                                                                    "ApplyVisualizationConfig")
    if not plant.is_finalized():
        raise RuntimeError("ApplyVisualizationConfig: call plant.Finalize() first (the contact and inertia layers "
                           "read the finalized plant)")
    if meshcat is None and config.enable_meshcat_creation:
        meshcat = Meshcat()
    if meshcat is not None:
        for params in ConvertVisualizationConfigToMeshcatParams(config):
            MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat, params)
        if config.publish_contacts:
            ContactVisualizer.AddToBuilder(builder, plant, meshcat, ContactVisualizerParams(
                publish_period=config.publish_period,
                delete_on_initialization_event=config.delete_on_initialization_event))
        if config.publish_inertia and config.enable_alpha_sliders:
            meshcat.SetSliderValue("inertia α", 0.5)
    if config.publish_inertia:
        InertiaVisualizer.AddToBuilder(builder, plant, scene_graph)


def AddDefaultVisualization(builder, meshcat: Meshcat | None = None) -> None:
    """ApplyVisualizationConfig with the default VisualizationConfig (creating a Meshcat when none is given)."""
    ApplyVisualizationConfig(VisualizationConfig(), builder, meshcat=meshcat)
