"""`python -m mallard.visualization.model_visualizer MODEL [--simulate S] [--html F] [--plot F]`: the
model visualizer's command line (pydrake's `model_visualizer`), the same runs as `mallard view` / `simulate`.

Without --simulate, --html or --plot the model is served at the printed URL until Ctrl-C. Bad input (a missing
file, an unsupported extension, a model the parser rejects) prints one clear line and exits with 2.
"""
from __future__ import annotations

import argparse
import sys
import warnings

from .main import BAD_INPUT, RunSimulate, RunView, _located, _show_warning

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (0 ok, 1 the simulation failed, 2 bad input)."""
    ap = argparse.ArgumentParser(prog="python -m mallard.visualization.model_visualizer",
                                 description="Show a URDF / SDFormat / MJCF model in Meshcat; optionally simulate "
                                             "it passively, record it to HTML and plot its state (see also the "
                                             "`mallard` command).")
    ap.add_argument("model", help="model file (.urdf, .sdf, .xml)")
    ap.add_argument("--simulate", type=float, default=0.0, metavar="SECONDS", help="passive simulation length")
    ap.add_argument("--html", default=None, help="write the (recorded) scene to this self-contained HTML file")
    ap.add_argument("--plot", default=None, help="write a plot of the logged signals to this image file")
    ap.add_argument("--time_step", "--time-step", dest="time_step", type=float, default=None,
                    help="plant time step in s (default: an MJCF model's own <option timestep>, 0.001 s for "
                         "URDF/SDFormat; 0 = continuous)")
    ap.add_argument("--port", type=int, default=None, help="Meshcat port (default: the first free one from 7000)")
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            if args.simulate or args.html or args.plot:
                return RunSimulate(args.model, args.simulate, args.html, args.plot, args.time_step, args.port)
            return RunView(args.model, args.time_step, args.port)
        except BAD_INPUT as exc:
            print(f"model_visualizer: error: {_located(exc, args.model)}", file=sys.stderr)
            return 2
