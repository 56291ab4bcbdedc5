"""Batched stepping benchmark: 256 cart-poles (Drake's cart_pole.sdf, time step 0.01 s) advanced for a number of
steps by one BatchedStepper (one compiled prange call per step) vs a Python loop over 256 contexts, each with its own
Simulator (the way a pydrake user steps many contexts). Both runs start from the same random states under the same
random forces; the final states are checked to be equal bit for bit before the times are compared.

Prints the time per member-step of each and the ratio (loop time / batched time: the speed-up of batching), with
the load average (on a shared machine other processes take CPU from the batch's threads).

    python benchmarks/batched_stepping.py [--batch 256] [--steps 50]
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


def LoopOverContexts(plant: MultibodyPlant, x0: np.ndarray, u: np.ndarray, steps: int) -> tuple[float, np.ndarray]:
    """(seconds, final states) of stepping each member's own context with its own Simulator, one step at a time
    for all members (as a vector environment does); the Simulators are built outside the clock."""
    sims = []
    for b in range(x0.shape[0]):
        context = plant.CreateDefaultContext()
        plant.SetPositionsAndVelocities(context, x0[b])
        plant.get_actuation_input_port().FixValue(context, u[b])
        sim = Simulator(plant, context)
        sim.Initialize()
        sims.append(sim)
    h = plant.time_step()
    start = time.perf_counter()
    for n in range(1, steps + 1):
        for sim in sims:
            sim.AdvanceTo(n * h)
    elapsed = time.perf_counter() - start
    return elapsed, np.array([plant.GetPositionsAndVelocities(sim.get_context()) for sim in sims])


def Batched(plant: MultibodyPlant, x0: np.ndarray, u: np.ndarray, steps: int) -> tuple[float, np.ndarray]:
    """(seconds, final states) of one BatchedStepper taking the same steps, one call per step."""
    stepper = BatchedStepper(plant, x0.shape[0])
    stepper.Step(x0, u)  # loads the compiled kernel outside the clock
    stepper.ResetWarmStarts()
    x = x0
    start = time.perf_counter()
    for _ in range(steps):
        x = stepper.Step(x, u)
    return time.perf_counter() - start, x


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=50)
    args = ap.parse_args(argv)
    plant = CartPole()
    rng = np.random.default_rng(0)
    x0 = np.zeros((args.batch, 4))
    x0[:, :2] = rng.uniform(-0.3, 0.3, (args.batch, 2))
    u = rng.uniform(-5.0, 5.0, (args.batch, 1))
    t_loop, x_loop = LoopOverContexts(plant, x0, u, args.steps)
    t_batch, x_batch = Batched(plant, x0, u, args.steps)
    if not np.array_equal(x_loop, x_batch):
        raise SystemExit(f"batched states differ from the per-context ones: max |dx| = "
                         f"{np.max(np.abs(x_loop - x_batch)):.3g}")
    member_steps = args.batch * args.steps
    print(f"{args.batch} cart-poles x {args.steps} steps (final states equal bit for bit); "
          f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    print(f"  loop over contexts (Simulator each): {t_loop:8.3f} s  {1e6 * t_loop / member_steps:8.2f} us/member-step")
    print(f"  BatchedStepper (one call per step):  {t_batch:8.3f} s  {1e6 * t_batch / member_steps:8.2f} us/member-step")
    print(f"  ratio (loop / batched): {t_loop / t_batch:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
