"""mallard.cli: the `mallard` command (`mallard view | simulate | info MODEL`, also `python -m mallard`) and
`python -m mallard.visualization.model_visualizer`."""
from .main import main
from .model_visualizer_command import main as model_visualizer_main

__all__ = ["main", "model_visualizer_main"]
