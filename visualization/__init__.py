"""mallard.visualization (pydrake.visualization): ModelVisualizer, the default Meshcat layers
(VisualizationConfig, ApplyVisualizationConfig, AddDefaultVisualization), frame triads, joint and pose sliders,
plotting helpers, matplotlib planar visualization, and VideoWriter with the image systems (for images from
any source: mallard has no camera renderer). Meshcat itself lives in mallard.geometry, as in
pydrake.geometry."""
from mallard.geometry.contact_visualizer import ContactVisualizer, ContactVisualizerParams
from mallard.geometry.meshcat import Meshcat, MeshcatParams, StartMeshcat
from mallard.geometry.meshcat_animation import MeshcatAnimation
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams
from mallard.visualization.image_systems import ColorizeDepthImage, ColorizeLabelImage, ConcatenateImages
from mallard.visualization.default_visualization import AddDefaultVisualization, ApplyVisualizationConfig
from mallard.visualization.inertia_visualizer import InertiaVisualizer
from mallard.visualization.joint_sliders import JointSliders
from mallard.visualization._model_visualizer import ModelVisualizer
from mallard.visualization.planar_scenegraph_visualizer import (ConnectPlanarSceneGraphVisualizer,
                                                                PlanarSceneGraphVisualizer)
from mallard.visualization.plotting import plot_sublevelset_expression, plot_sublevelset_quadratic
from mallard.visualization.pose_sliders import MeshcatPoseSliders, MeshcatPoseSliders_
from mallard.visualization.pyplot_visualizer import PyPlotVisualizer
from mallard.visualization.triad import AddFrameTriadIllustration
from mallard.visualization.video import VideoWriter
from mallard.visualization.visualization_config import VisualizationConfig

__all__ = [
    "AddDefaultVisualization", "AddFrameTriadIllustration", "ApplyVisualizationConfig", "ColorizeDepthImage",
    "ColorizeLabelImage", "ConcatenateImages", "ConnectPlanarSceneGraphVisualizer", "ContactVisualizer",
    "ContactVisualizerParams", "InertiaVisualizer",
    "JointSliders", "Meshcat", "MeshcatAnimation", "MeshcatParams", "MeshcatPoseSliders", "MeshcatPoseSliders_",
    "MeshcatVisualizer", "MeshcatVisualizerParams", "ModelVisualizer", "PlanarSceneGraphVisualizer",
    "PyPlotVisualizer", "StartMeshcat", "VideoWriter", "VisualizationConfig", "plot_sublevelset_expression",
    "plot_sublevelset_quadratic",
]
