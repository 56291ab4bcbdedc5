"""Scale-out benchmark: a Monte Carlo of a few seconds of work (the iiwa14 PD example's samples), serial vs 2 local
processes vs a 2-worker Dask LocalCluster. Every parallel run is checked to give the serial outputs bit for bit.

The serial run and the workers are warmed up first (compiled kernels loaded): the LocalCluster is started and
warmed outside the clock, the local process pool is started inside it (it is part of every call). Prints the wall
times, the speed-ups over serial, the CPU seconds each run used (this process plus its workers: the overhead of
going parallel, whatever the machine's load) and the load average (on a shared machine other processes take CPU
from the workers and lower the speed-ups).

    python benchmarks/monte_carlo.py [--samples 64] [--duration 2.0] [--workers 2]
"""
from __future__ import annotations

import argparse
import logging
import os
import resource
import runpy
import sys
import time
from pathlib import Path

from mallard.common import RandomGenerator
from mallard.systems.analysis import MonteCarloSimulation

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "iiwa_monte_carlo.py"


def _cpu_seconds(client=None) -> float:
    """CPU time of this process and its finished child processes, plus the Dask workers' when given a client."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    if client is not None:
        total += sum(client.run(time.process_time).values())
    return total


def _timed(label: str, run, reference=None, client=None) -> tuple[float, float, list]:
    """(wall seconds, CPU seconds, outputs) of run(); the outputs must equal `reference` when given."""
    cpu, start = _cpu_seconds(client), time.perf_counter()
    results = run()
    seconds, cpu = time.perf_counter() - start, _cpu_seconds(client) - cpu
    outputs = [r.output for r in results]
    if reference is not None and outputs != reference:
        raise AssertionError(f"{label}: the outputs differ from the serial run's")
    return seconds, cpu, outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds per sample")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str(EXAMPLE.parent))  # the example imports its gallery helpers
    example = runpy.run_path(str(EXAMPLE), run_name="iiwa_monte_carlo")
    make_simulator, output = example["MakeSimulator"](), example["final_tracking_error"]

    def monte_carlo(**options):
        return MonteCarloSimulation(make_simulator, output, args.duration, args.samples, RandomGenerator(1),
                                    progress=False, **options)

    MonteCarloSimulation(make_simulator, output, args.duration, 1, RandomGenerator(0))  # warm-up
    serial, serial_cpu, reference = _timed("serial", monte_carlo)
    local, local_cpu, _ = _timed("local processes", lambda: monte_carlo(num_parallel_executions=args.workers),
                                 reference)

    import dask
    from dask.distributed import Client, LocalCluster
    # the workers' statistical profiler samples every 10 ms: off, as for any throughput run
    with dask.config.set({"distributed.worker.profile.enabled": False}), \
            LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None,
                         silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        # warm every worker (compiled kernels loaded, example imported), whichever tasks the scheduler sends it
        client.run(MonteCarloSimulation, make_simulator, output, args.duration, 1, RandomGenerator(0))
        MonteCarloSimulation(make_simulator, output, args.duration, 2 * args.workers, RandomGenerator(0),
                             executor=client, chunk_size=1, progress=False)
        dask, dask_cpu, _ = _timed("dask", lambda: monte_carlo(executor=client), reference, client)

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Monte Carlo of {args.samples} iiwa14 PD samples ({args.duration:g} s each), {os.cpu_count()} cores, "
          f"load average {load}")
    print(f"  serial                      {serial:7.2f} s                    CPU {serial_cpu:6.2f} s")
    print(f"  {args.workers} local processes           {local:7.2f} s   {serial / local:5.2f}x serial   "
          f"CPU {local_cpu:6.2f} s")
    print(f"  {args.workers}-worker Dask LocalCluster  {dask:7.2f} s   {serial / dask:5.2f}x serial   "
          f"CPU {dask_cpu:6.2f} s (scheduler and nanny threads included)")
    print("  (every parallel output equals the serial one bit for bit)")


if __name__ == "__main__":
    main()
