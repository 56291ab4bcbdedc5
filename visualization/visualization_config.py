"""VisualizationConfig (pydrake.visualization): what a plant and its SceneGraph send to Meshcat, for
ApplyVisualizationConfig (Drake's field names and defaults)."""
from __future__ import annotations

import dataclasses

from mallard.geometry import Rgba

__all__ = ["VisualizationConfig"]


@dataclasses.dataclass
class VisualizationConfig:
    """Settings for ApplyVisualizationConfig: the publish period (s), which geometry layers to show
    (illustration, proximity, contact forces, inertia ellipsoids), their default colors, the initial opacity
    of proximity geometry, whether to create a Meshcat when none is given, whether initialization clears the
    scene, and opacity sliders. ``lcm_bus`` names the LCM bus pydrake publishes to (mallard has no LCM)."""

    lcm_bus: str = "default"
    publish_period: float = 1.0 / 64.0
    publish_illustration: bool = True
    default_illustration_color: Rgba = dataclasses.field(default_factory=lambda: Rgba(0.9, 0.9, 0.9, 1.0))
    publish_proximity: bool = True
    default_proximity_color: Rgba = dataclasses.field(default_factory=lambda: Rgba(0.8, 0.0, 0.0, 1.0))
    initial_proximity_alpha: float = 0.5
    publish_contacts: bool = True
    publish_inertia: bool = True
    enable_meshcat_creation: bool = True
    delete_on_initialization_event: bool = True
    enable_alpha_sliders: bool = False
