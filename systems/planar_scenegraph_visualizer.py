"""pydrake.systems.planar_scenegraph_visualizer's path: the code lives in
mallard.visualization.planar_scenegraph_visualizer."""
from mallard.visualization.planar_scenegraph_visualizer import (ConnectPlanarSceneGraphVisualizer,
                                                                PlanarSceneGraphVisualizer)

__all__ = ["ConnectPlanarSceneGraphVisualizer", "PlanarSceneGraphVisualizer"]
