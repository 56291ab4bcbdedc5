"""Batched stepping benchmark: 256 cart-poles (Drake's cart_pole.sdf, time step 0.01 s) advanced for a number of
steps by one BatchedStepper (one compiled prange call per step) vs a Python loop over 256 contexts, each with its own
Simulator (the way a pydrake user steps many contexts). Both runs start from the same random states under the same
random forces; the final states are checked to be equal bit for bit before the times are compared.

Prints the time per member-step of each and the ratio (loop time / batched time: the speed-up of batching), with
the load average (on a shared machine other processes take CPU from the batch's threads). A batched run of 50 steps
lasts ~40 ms on an idle machine, so one descheduled thread changes its time severalfold: the two runs alternate
`--repeat` times and the medians are shown, with each run's ratio and the CPU time per member-step (the batch's
summed over its threads, which load changes less than wall time).

    python benchmarks/batched_stepping.py [--batch 256] [--steps 50] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from mallard.multibody.pipeline.batch import BatchedStepper
from mallard.multibody.plant import MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator

REPO = Path(__file__).resolve().parents[1]
# shared/models beside the checkout or beside a folder holding it (a git worktree), as the tests find it
MODEL = next((folder / "shared" / "models" for folder in REPO.parents if (folder / "shared" / "models").is_dir()),
             REPO.parent / "shared" / "models") / "drake_examples" / "cart_pole.sdf"


def CartPole(time_step: float = 0.01) -> MultibodyPlant:
    """The discrete cart-pole plant (two joints, one actuator)."""
    plant = MultibodyPlant(time_step)
    Parser(plant).AddModels(str(MODEL))
    plant.Finalize()
    return plant


def LoopOverContexts(plant: MultibodyPlant, x0: np.ndarray, u: np.ndarray,
                     steps: int) -> tuple[float, float, np.ndarray]:
    """(seconds, CPU seconds, final states) of stepping each member's own context with its own Simulator, one step
    at a time for all members (as a vector environment does); the Simulators are built outside the clock."""
    sims = []
    for b in range(x0.shape[0]):
        context = plant.CreateDefaultContext()
        plant.SetPositionsAndVelocities(context, x0[b])
        plant.get_actuation_input_port().FixValue(context, u[b])
        sim = Simulator(plant, context)
        sim.Initialize()
        sims.append(sim)
    h = plant.time_step()
    start, cpu = time.perf_counter(), time.process_time()
    for n in range(1, steps + 1):
        for sim in sims:
            sim.AdvanceTo(n * h)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return elapsed, cpu, np.array([plant.GetPositionsAndVelocities(sim.get_context()) for sim in sims])


def Batched(plant: MultibodyPlant, x0: np.ndarray, u: np.ndarray, steps: int) -> tuple[float, float, np.ndarray]:
    """(seconds, CPU seconds, final states) of one BatchedStepper taking the same steps, one call per step."""
    stepper = BatchedStepper(plant, x0.shape[0])
    stepper.Step(x0, u)  # loads the compiled kernel outside the clock
    stepper.ResetWarmStarts()
    x = x0
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        x = stepper.Step(x, u)
    return time.perf_counter() - start, time.process_time() - cpu, x


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5, help="alternating runs of each; medians are shown")
    args = ap.parse_args(argv)
    plant = CartPole()
    rng = np.random.default_rng(0)
    x0 = np.zeros((args.batch, 4))
    x0[:, :2] = rng.uniform(-0.3, 0.3, (args.batch, 2))
    u = rng.uniform(-5.0, 5.0, (args.batch, 1))
    loops, batches = [], []
    for _ in range(max(1, args.repeat)):
        *loop, x_loop = LoopOverContexts(plant, x0, u, args.steps)
        *batch, x_batch = Batched(plant, x0, u, args.steps)
        if not np.array_equal(x_loop, x_batch):
            raise SystemExit(f"batched states differ from the per-context ones: max |dx| = "
                             f"{np.max(np.abs(x_loop - x_batch)):.3g}")
        loops.append(loop)
        batches.append(batch)
    us = 1e6 / (args.batch * args.steps)
    (t_loop, c_loop), (t_batch, c_batch) = np.median(loops, axis=0), np.median(batches, axis=0)
    print(f"{args.batch} cart-poles x {args.steps} steps (final states equal bit for bit), medians of "
          f"{len(loops)} alternating runs; load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    print(f"  loop over contexts (Simulator each): {t_loop:8.3f} s  {us * t_loop:8.2f} us/member-step"
          f"  (CPU {us * c_loop:6.2f})")
    print(f"  BatchedStepper (one call per step):  {t_batch:8.3f} s  {us * t_batch:8.2f} us/member-step"
          f"  (CPU {us * c_batch:6.2f}, all threads)")
    ratios = sorted(a[0] / b[0] for a, b in zip(loops, batches))
    print(f"  ratio (loop / batched): {t_loop / t_batch:.1f}x  (each run: {', '.join(f'{r:.1f}' for r in ratios)}; "
          f"CPU {c_loop / c_batch:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
