"""`python -m mallard.visualization.model_visualizer MODEL [--simulate S] [--html F] [--plot F]`: load any
URDF / SDFormat / MJCF file, show or record it, optionally simulate it passively and plot its state."""
import sys

from mallard.visualization._model_visualizer import ModelVisualizer, main

__all__ = ["ModelVisualizer", "main"]

if __name__ == "__main__":
    sys.exit(main())
