"""`python -m mallard.visualization.model_visualizer MODEL [--simulate S] [--html F] [--plot F]`: the
model visualizer's command line (pydrake's `model_visualizer`), kept beside the `mallard` command.

Without --html or --plot the model is served at the printed URL until Ctrl-C. Bad input (a missing
file, an unsupported extension, a model the parser rejects) prints one clear line and exits with 2.
"""
from __future__ import annotations

import argparse
import math
import os
import sys

from mallard.geometry.meshcat import Meshcat, MeshcatParams
from mallard.parsers import ParseError
from mallard.visualization._model_visualizer import ModelVisualizer, check_model_file


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (0 ok, 2 bad input)."""
    ap = argparse.ArgumentParser(prog="python -m mallard.visualization.model_visualizer",
                                 description="Show a URDF / SDFormat / MJCF model in Meshcat; optionally simulate "
                                             "it passively, record it to HTML and plot its state.")
    ap.add_argument("model", help="model file (.urdf, .sdf, .xml)")
    ap.add_argument("--simulate", type=float, default=0.0, metavar="SECONDS", help="passive simulation length")
    ap.add_argument("--html", default=None, help="write the (recorded) scene to this self-contained HTML file")
    ap.add_argument("--plot", default=None, help="write a plot of q(t) and v(t) to this image file")
    ap.add_argument("--time_step", type=float, default=1e-3, help="plant time step (0 = continuous), s")
    ap.add_argument("--port", type=int, default=None, help="Meshcat port (default: the first free one from 7000)")
    args = ap.parse_args(argv)
    meshcat = None
    try:
        path = check_model_file(args.model)
        if args.simulate < 0 or not math.isfinite(args.simulate):
            raise ValueError(f"--simulate must be a finite number of seconds >= 0; given {args.simulate}")
        for out in (args.html, args.plot):
            if out and not os.path.isdir(os.path.dirname(os.path.abspath(out))):
                raise FileNotFoundError(f"output folder does not exist: {os.path.dirname(os.path.abspath(out))}")
        meshcat = Meshcat(MeshcatParams(port=args.port))
        if args.html is None and args.plot is None:
            print(f"Meshcat is listening for connections at {meshcat.web_url()}")
        viz = ModelVisualizer(meshcat, time_step=args.time_step)
        viz.AddModels(path)
        viz.Run(simulate=args.simulate, html=args.html, plot=args.plot)
    except (FileNotFoundError, ValueError, ParseError) as exc:
        print(f"model_visualizer: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if meshcat is not None:
            meshcat.Close()
    if args.html:
        print(f"wrote {args.html}")
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
