"""The `mallard` command (also `python -m mallard`):

    mallard view MODEL                  show a URDF / SDFormat / MJCF model in Meshcat until Ctrl-C
    mallard simulate MODEL --duration S --html out.html --plot out.png
                                        simulate it passively, record a self-contained HTML replay, plot its signals
    mallard info MODEL                  list its bodies, joints, actuators, sensors and state names

An MJCF model runs at its own `<option timestep>` and integrator; URDF / SDFormat models at 1 ms (change it with
--time-step; 0 makes a continuous plant). Bad input prints one line naming the problem and exits with 2; a
simulation that fails exits with 1.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

from mallard.geometry.meshcat import Meshcat, MeshcatParams
from mallard.parsers import ParseError
from mallard.parsers.mjcf import MjcfError

from .model_info import ModelInfoText
from .model_scene import DEFAULT_TIME_STEP, ModelScene

__all__ = ["main", "RunView", "RunSimulate"]

BAD_INPUT = (FileNotFoundError, ValueError, ParseError, MjcfError)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"mallard: warning: {message}", file=sys.stderr)


def _located(exc: Exception, model: str) -> str:
    """The error message, naming the model file when the message does not already."""
    message = str(exc) or type(exc).__name__
    return message if os.path.basename(model) in message else f"{model}: {message}"


def _check_output(path: str | None) -> None:
    if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise FileNotFoundError(f"output folder does not exist: {os.path.dirname(os.path.abspath(path))}")


def _wait_for_ctrl_c() -> None:
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass


def RunView(model: str, time_step: float | None = None, port: int | None = None, loop_once: bool = False) -> int:
    """`mallard view`: serve the model at its default state in Meshcat; wait for Ctrl-C unless `loop_once`."""
    meshcat = Meshcat(MeshcatParams(port=port))
    try:
        scene = ModelScene(model, time_step, meshcat)
        scene.Publish()
        print(f"{scene.name()} is shown at {meshcat.web_url()}" + ("" if loop_once else "; press Ctrl-C to exit"))
        if not loop_once:
            _wait_for_ctrl_c()
    finally:
        meshcat.Close()
    return 0


def RunSimulate(model: str, duration: float, html: str | None = None, plot: str | None = None,
                time_step: float | None = None, port: int | None = None, show_progress: bool = True) -> int:
    """`mallard simulate`: a passive run of `duration` s, then the HTML replay and the plot; prints a summary."""
    if not (math.isfinite(float(duration)) and duration >= 0):
        raise ValueError(f"the duration must be a finite number of seconds >= 0; given {duration}")
    for out in (html, plot):
        _check_output(out)
    meshcat = Meshcat(MeshcatParams(port=0 if port is None else port)) if html else None
    try:
        start = time.perf_counter()
        scene = ModelScene(model, time_step, meshcat)
        load = time.perf_counter() - start
        try:
            scene.Simulate(duration, show_progress=show_progress)
        except (RuntimeError, ArithmeticError, ValueError) as exc:  # ValueError: numpy.linalg.LinAlgError
            t = scene.simulator.get_context().get_time()
            print(f"mallard simulate: {scene.name()} failed at t = {t:.6g} s: {exc}", file=sys.stderr)
            return 1
        if html:
            scene.WriteHtml(html)
        if plot:
            scene.WritePlot(plot)
    finally:
        if meshcat is not None:
            meshcat.Close()
    rate = duration / scene.wall_time if scene.wall_time > 0 else float("inf")
    print(f"simulated {scene.name()} for {duration:g} s in {scene.wall_time:.2f} s ({rate:.2g}× real time; "
          f"loading took {load:.2f} s): {scene.num_steps()} steps, {scene.step.describe()}")
    for path, what in ((html, "replay (open it in a browser)"), (plot, "plot")):
        if path:
            print(f"  {what}: {os.path.abspath(path)}")
    return 0


def RunInfo(model: str, time_step: float | None = None) -> int:
    """`mallard info`: print the model's plant contents."""
    print(ModelInfoText(ModelScene(model, time_step)))
    return 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="mallard", description=__doc__.split("\n\n")[0].split(":")[0] + ".",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    sub = ap.add_subparsers(dest="command", required=True, metavar="{view,simulate,info}")

    def model_command(name: str, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("model", help="model file: .urdf, .sdf or .xml (MJCF)")
        p.add_argument("--time-step", "--time_step", dest="time_step", type=float, default=None, metavar="DT",
                       help=f"plant time step in s (default: an MJCF model's own <option timestep>, "
                            f"{DEFAULT_TIME_STEP:g} s for URDF/SDFormat; 0 = continuous)")
        return p

    view = model_command("view", "show the model in Meshcat (a browser) until Ctrl-C")
    view.add_argument("--port", type=int, default=None, help="Meshcat port (default: the first free one from 7000)")
    view.add_argument("--loop-once", "--loop_once", dest="loop_once", action="store_true",
                      help="publish the scene once and exit")
    simulate = model_command("simulate", "simulate the model passively; save an HTML replay and a plot")
    simulate.add_argument("--duration", type=float, default=2.0, metavar="S", help="simulated time in s (default 2)")
    simulate.add_argument("--html", default=None, help="write a self-contained HTML replay to this file")
    simulate.add_argument("--plot", default=None, help="write a plot of the logged signals to this image file")
    simulate.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    simulate.add_argument("--port", type=int, default=None, help="Meshcat port (default: any free one)")
    model_command("info", "list bodies, joints, actuators, sensors and state names")
    return ap


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (0 ok, 1 the simulation failed, 2 bad input)."""
    args = _parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            if args.command == "view":
                return RunView(args.model, args.time_step, args.port, args.loop_once)
            if args.command == "simulate":
                return RunSimulate(args.model, args.duration, args.html, args.plot, args.time_step, args.port,
                                   args.progress)
            return RunInfo(args.model, args.time_step)
        except BAD_INPUT as exc:
            print(f"mallard {args.command}: error: {_located(exc, args.model)}", file=sys.stderr)
            return 2
