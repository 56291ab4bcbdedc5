"""pydrake.systems.pyplot_visualizer's path: PyPlotVisualizer lives in mallard.visualization.pyplot_visualizer."""
from mallard.visualization.pyplot_visualizer import PyPlotVisualizer

__all__ = ["PyPlotVisualizer"]
