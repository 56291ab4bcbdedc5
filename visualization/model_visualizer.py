"""`python -m mallard.visualization.model_visualizer MODEL [--simulate S] [--html F] [--plot F]`: load any
URDF / SDFormat / MJCF file, show or record it, optionally simulate it passively and plot its state."""
import sys

from mallard.cli import model_visualizer_main as main
from mallard.visualization._model_visualizer import ModelVisualizer

__all__ = ["ModelVisualizer", "main"]

if __name__ == "__main__":
    sys.exit(main())
