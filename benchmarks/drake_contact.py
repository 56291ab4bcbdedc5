"""Drake contact benchmark: mallard vs pydrake on the same scripts, in one process.

Scenes (1 ms discrete plants with pydrake's defaults unless said): a 2 kg box dropped on a half space for each
discrete approximation (kLagged, the default; kSap; kSimilar; kTamsi), a Hunt–Crossley ball thrown onto a half space;
hydroelastic contact: a compliant box dropped on a rigid half space, a compliant ball (resolution 1 cm) dropped on a
rigid box, two compliant spheres resting on each other ('two spheres'), two rigid fingers squeezing a compliant box
that they hold ('fingers', issue #16's gripper); the quick start's iiwa pushing a box under a Python PD controller
('iiwa push', 3.3 s at 2 ms, kLagged); the hydroelastic box once more on a continuous plant (time_step = 0, the
Simulator's default error-controlled RK3, 0.3 s), and the box drop with point contact on a continuous plant ('box ct').
Each engine simulates the scene from a fresh context (after one warm-up run, so mallard's numba cache loading and
Finalize are not counted); the wall time of Simulator.AdvanceTo is the median over alternating rounds. Prints
per-scene times, the final heights of the scene's moving body (they agree) and the ratio pydrake/mallard (> 1: mallard
faster). The machine may be shared: the numbers are noisy.

With --first, each engine instead runs the kLagged box drop in fresh processes (never this one): the import, then
the first simulation of the process (model building, Finalize, loading compiled code, AdvanceTo) and a second
identical one; first minus second is the one-time loading cost issue #15 bounds (under 0.5 s).

Run: python benchmarks/drake_contact.py [--rounds 3] [--seconds 1.5] [--only NAME] [--first]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
# The scenes (examples/drake_scenes.py, shared with the oracle tests) by name: (builder, its argument); each builder
# returns (diagram, plant, init, moving body).
SCENES = {"box kLagged": ("box_scene", ("kLagged",)), "box kSap": ("box_scene", ("kSap",)),
          "box kSimilar": ("box_scene", ("kSimilar",)), "box kTamsi": ("box_scene", ("kTamsi",)),
          "ball kLagged": ("ball_scene", ()), "hydro box": ("hydro_scene", ("box",)),
          "hydro ball": ("hydro_scene", ("ball",)), "two spheres": ("spheres_scene", ()),
          "fingers": ("fingers_scene", ()), "iiwa push": ("iiwa_push_scene", ()),
          "hydro box ct": ("hydro_scene", ("box", 0.0)), "box ct": ("box_scene", (None, 0.0))}
DURATION = {"hydro box ct": 0.3, "iiwa push": 3.3}  # s, else --seconds


def scenes():
    """examples/drake_scenes.py. Imported on first use, not with this module: it imports mallard (through the quick
    start's constants), which --first's fresh pydrake and mallard processes must not have loaded before they time
    their engine's import."""
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    return __import__("drake_scenes")


def run(lib, name, seconds):
    builder, args = SCENES[name]
    diagram, plant, init, body = getattr(scenes(), builder)(lib, *args)
    root = diagram.CreateDefaultContext()
    init(root)
    sim = lib.Simulator(diagram, root)
    t0 = time.perf_counter()
    sim.AdvanceTo(seconds)
    ctx = plant.GetMyContextFromRoot(root)
    return time.perf_counter() - t0, float(plant.EvalBodyPoseInWorld(ctx, body).translation()[2])


def first_simulation(engine: str, seconds: float) -> dict:
    """In this (fresh) process: seconds to import `engine`.all, to build and run the first box drop, and a second."""
    t0 = time.perf_counter()
    lib = __import__(f"{engine}.all", fromlist=["all"])
    out = {"import": time.perf_counter() - t0}
    scenes()  # untimed: it imports mallard too (the quick start's constants)
    for key in ("first", "second"):
        t0 = time.perf_counter()
        run(lib, "box kLagged", seconds)
        out[key] = time.perf_counter() - t0
    return out


def main_first(rounds: int, seconds: float) -> None:
    """The --first table: medians over `rounds` fresh processes per engine."""
    print(f"box drop (kLagged, {seconds:g} s) in fresh processes, median of {rounds}; load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'engine':<8} {'import [s]':>11} {'first sim [s]':>14} {'second [s]':>11} {'loading [s]':>12}")
    for engine in ("pydrake", "mallard"):
        rows = [json.loads(subprocess.run([sys.executable, __file__, "--_child", engine, "--seconds", str(seconds)],
                                          check=True, capture_output=True, text=True).stdout.splitlines()[-1])
                for _ in range(rounds)]
        med = {k: float(np.median([r[k] for r in rows])) for k in rows[0]}
        print(f"{engine:<8} {med['import']:11.3f} {med['first']:14.3f} {med['second']:11.3f} "
              f"{med['first'] - med['second']:12.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--first", action="store_true", help="the first simulation in fresh processes")
    ap.add_argument("--only", default="", help="run only the scenes whose name contains this text")
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._child:
        print(json.dumps(first_simulation(args._child, args.seconds)))
        return
    if args.first:
        main_first(args.rounds, args.seconds)
        return
    import mallard.all as ma
    import pydrake.all as pd
    print(f"{'scene':<14} {'pydrake [s]':>12} {'mallard [s]':>12} {'z pydrake':>10} {'z mallard':>10} {'ratio':>7}")
    for name in SCENES:
        if args.only not in name:
            continue
        run(ma, name, 0.01)  # warm-up (numba cache loading)
        td, tm = [], []
        seconds = DURATION.get(name, args.seconds)
        for _ in range(args.rounds):
            t, zd = run(pd, name, seconds)
            td.append(t)
            t, zm = run(ma, name, seconds)
            tm.append(t)
        d, m = float(np.median(td)), float(np.median(tm))
        print(f"{name:<14} {d:12.4f} {m:12.4f} {zd:10.6f} {zm:10.6f} {d / m:7.2f}")


if __name__ == "__main__":
    main()
