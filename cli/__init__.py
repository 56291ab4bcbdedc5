"""mallard.cli: the command lines (`python -m mallard.visualization.model_visualizer`)."""
from .model_visualizer_command import main as model_visualizer_main

__all__ = ["model_visualizer_main"]
