"""mallard.visualization: Meshcat visualization helpers and headless matplotlib animation
(mirrors pydrake.visualization; Meshcat itself lives in mallard.geometry as in pydrake.geometry)."""
from mallard.geometry.contact_visualizer import ContactVisualizer, ContactVisualizerParams
from mallard.geometry.meshcat import Meshcat, MeshcatParams, StartMeshcat
from mallard.geometry.meshcat_animation import MeshcatAnimation
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams
from mallard.visualization.default_visualization import AddDefaultVisualization
from mallard.visualization._model_visualizer import ModelVisualizer
from mallard.visualization.planar_scenegraph_visualizer import (ConnectPlanarSceneGraphVisualizer,
                                                                PlanarSceneGraphVisualizer)

__all__ = [
    "AddDefaultVisualization", "ConnectPlanarSceneGraphVisualizer", "ContactVisualizer", "ContactVisualizerParams",
    "Meshcat", "MeshcatAnimation", "MeshcatParams",
    "MeshcatVisualizer", "MeshcatVisualizerParams", "ModelVisualizer", "PlanarSceneGraphVisualizer", "StartMeshcat",
]
