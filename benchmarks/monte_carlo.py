"""Scale-out benchmark: a Monte Carlo of a few seconds of work (the iiwa14 PD example's samples), serial vs 2 local
processes vs a 2-worker Dask LocalCluster. Every parallel run is checked to give the serial outputs bit for bit.

The serial run and the workers are warmed up first (compiled kernels loaded): the LocalCluster is started and
warmed outside the clock, the local process pool is started inside it (it is part of every call). The serial run
is the same work as the parallel ones (the same samples, each made, randomized, advanced and evaluated), minus
the shipping. Prints the wall times, the speed-ups over serial and where the CPU went: this process's main thread
(making and randomizing every sample, which serial does too, plus packing the chunks and reading the results),
its other threads (with Dask: the scheduler, the nannies and the client's event loop, which a LocalCluster runs
in this process), and the workers. "CPU allows" is the speed-up the parallel run's CPU would give on idle cores
(serial CPU over the parallel CPU per core used).

The ceiling row measures what the cores give here to this very work: the same samples, made and randomized
beforehand, advanced in this process vs split over as many forked processes as workers (each inherits them and
advances the next sample left: no shipping, no pool, no diagram to load, only the processes' start and end).
Rounds alternate serial, local processes and the ceiling's two runs; then, with the LocalCluster started and
warmed, rounds alternate a serial run (the cluster idle) and a Dask run. Medians are shown, the speed-ups as
medians of each round's ratio: runs taken seconds apart, as the speed of a VM's cores drifts by 10-25 % over
minutes (serial runs of one process took 2.2 s, then 2.8 s, on a quiet 2-core VM). The idle cluster does not slow
the serial run: 2.40-2.60 s with it and 2.49-2.56 s without, alternated in one process.
Every row shows the CPU the machine's other processes used meanwhile (/proc/stat, per second of the run): on
a Linux with autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled, the default of many kernels) CPU time
is shared between sessions, not processes, so a single busy process of another session takes a core from
the parallel run but none from the serial one, and the speed-ups (the ceiling's too) drop toward 1; the CPU
seconds grow under load as well (contended caches and cores: the same serial run took 3.5 CPU s at load 3 and 6.2
at load 10 on a 2-core VM). Compare speed-ups taken with the other processes near 0.

The Dask workers run with their statistical profiler off, and the event loops' diagnostic tick, the memory monitors
and the system monitor every second instead of every 20 ms, 100 ms and 500 ms (`--dask-defaults` keeps Dask's
intervals): the tick wakes the scheduler, both nannies and every worker 50 times a second, ~5% of a core in this
process and ~2% in each worker even when idle; with the tick at 1 s, the monitors (each nanny and worker reading
its worker's memory 10 times a second) still cost an idle 2-worker cluster ~50 ms of CPU per second (this
process and the workers alike), ~30 ms at 1 s (load 7), which a run pays for as long as it lasts.

    python benchmarks/monte_carlo.py [--samples 64] [--duration 2.0] [--workers 2] [--repeat 5] [--dask-defaults]
                                     [--no-dask]
"""
from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import resource
import runpy
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import dask
from dask.distributed import Client, LocalCluster

from mallard.common import RandomGenerator
from mallard.systems.analysis import MonteCarloSimulation

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "iiwa_monte_carlo.py"
DASK_THROUGHPUT = {"distributed.worker.profile.enabled": False}
DASK_INTERVALS = {"distributed.admin.tick.interval": "1s", "distributed.worker.memory.monitor-interval": "1s",
                  "distributed.admin.system-monitor.interval": "1s"}


@dataclass
class Run:
    """Wall seconds of a run and its CPU seconds: this process's main thread, its other threads, the workers; and
    the CPU seconds the machine's other processes used meanwhile (None where /proc/stat is missing)."""

    wall: float
    main: float
    other: float
    workers: float
    worker_loops: float  # the part of `workers` spent in the Dask workers' event loops (not running tasks)
    others: float | None = None

    @property
    def cpu(self) -> float:
        return self.main + self.other + self.workers


def _machine_cpu() -> float | None:
    """CPU seconds all processes of the machine used so far (/proc/stat: all but idle, iowait and steal), None
    where that file is missing."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (sum(ticks) - ticks[3] - ticks[4] - ticks[7]) / os.sysconf("SC_CLK_TCK")


def _process_and_thread_cpu() -> tuple[float, float]:
    """(this process's, this thread's) CPU seconds: on a Dask worker through client.run, this thread is the
    worker's event loop."""
    return time.process_time(), time.thread_time()


def _cpu(client=None) -> tuple[float, float, float, float]:
    """(main thread, other threads of this process, child processes and Dask workers, the workers' event loops)
    CPU seconds so far."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers, loops = children.ru_utime + children.ru_stime, 0.0
    if client is not None:
        for process, loop in client.run(_process_and_thread_cpu).values():
            workers, loops = workers + process, loops + loop
    main = time.thread_time()
    return main, time.process_time() - main, workers, loops


def _timed(label: str, run, reference=None, client=None) -> tuple[Run, list]:
    """The Run of run() and its outputs, which must equal `reference` when given."""
    children = set(multiprocessing.active_children())
    before, machine, start = _cpu(client), _machine_cpu(), time.perf_counter()
    results = run()
    wall = time.perf_counter() - start
    # a local pool's processes exit after the call returns: reap them (outside the clock) to count their CPU
    while client is None and set(multiprocessing.active_children()) - children:
        time.sleep(0.01)
    after, machine_after = _cpu(client), _machine_cpu()
    outputs = [getattr(r, "output", r) for r in results]
    if reference is not None and outputs != reference:
        raise AssertionError(f"{label}: the outputs differ from the serial run's")
    run = Run(wall, *(b - a for a, b in zip(before, after)))
    if machine is not None:
        run.others = max(0.0, machine_after - machine - run.cpu)
    return run, outputs


def _advance(simulators: list, output, final_time: float) -> list:
    """The workers' part of each sample, in this process: advance it to final_time, evaluate the output."""
    out = []
    for simulator in simulators:
        simulator.AdvanceTo(final_time)
        out.append(float(output(simulator.get_system(), simulator.get_context())))
    return out


def _advance_next(simulators: list, output, final_time: float, counter, connection) -> None:
    """A forked process of the ideal split: advances the next sample nobody took yet, until none is left; sends
    [(index, output)]."""
    out = []
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value += 1
        if index >= len(simulators):
            break
        out.append((index, _advance(simulators[index:index + 1], output, final_time)[0]))
    connection.send(out)
    connection.close()


def _split(simulators: list, output, final_time: float, workers: int) -> list:
    """The ideal split: `workers` forked processes, which inherit the samples (made beforehand), each advancing the
    next sample left (a shared counter: the balance of one-sample chunks; the samples' costs differ, 93-140 steps
    of the iiwa's, so a fixed split would leave a core idle). No shipping, no pool, no diagram to load: the
    processes' start and end only. The outputs, in order."""
    context = multiprocessing.get_context("fork")
    counter = context.Value("l", 0)
    jobs = []
    for _ in range(workers):
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_advance_next, args=(simulators, output, final_time, counter, sender))
        process.start()
        sender.close()
        jobs.append((receiver, process))
    outputs = [None] * len(simulators)
    for receiver, process in jobs:
        for index, value in receiver.recv():
            outputs[index] = value
        process.join()
    return outputs


def _made(make_simulator, count: int, seed: int) -> list:
    """The samples of a Monte Carlo run, made and randomized as MonteCarloSimulation makes them."""
    generator, simulators = RandomGenerator(seed), []
    for _ in range(count):
        simulator = make_simulator(generator)
        simulator.get_system().SetRandomContext(simulator.get_mutable_context(), generator)
        simulators.append(simulator)
    return simulators


def _median(runs: list[Run]) -> Run:
    """The run of median wall time (the slower middle one of an even count)."""
    return sorted(runs, key=lambda run: run.wall)[len(runs) // 2]


def _speedup(serials: list[Run], runs: list[Run]) -> float:
    """The median over rounds of serial wall / this run's wall (each pair taken minutes apart at most)."""
    ratios = sorted(serial.wall / run.wall for serial, run in zip(serials, runs))
    return ratios[len(ratios) // 2]


def _row(label: str, run: Run, speedup: float, serial: Run, samples: int, cores: int) -> str:
    text = (f"  {label:31s} {run.wall:6.2f} s  {speedup:5.2f}x   CPU {run.cpu:5.2f} s = main "
            f"{run.main:5.2f} + other {max(run.other, 0.0):4.2f} + workers {run.workers:5.2f}")
    if run.worker_loops:
        text += f" (event loops {run.worker_loops:4.2f})"
    if run is not serial:
        text += (f"   ({100 * (run.cpu / serial.cpu - 1):+4.0f}% of serial CPU, main thread "
                 f"{1e3 * run.main / samples:4.1f} ms/sample; CPU allows {serial.cpu * cores / run.cpu:4.2f}x)")
    if run.others is not None:
        text += f"   [other processes: {run.others / run.wall:4.2f} cores]"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds per sample")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dask-defaults", action="store_true",
                        help="Dask's default tick and monitor intervals on the cluster")
    parser.add_argument("--repeat", type=int, default=5,
                        help="rounds (serial, local processes and the ideal split alternate; then serial and "
                             "Dask); medians are shown")
    parser.add_argument("--no-dask", action="store_true", help="skip the LocalCluster")
    args = parser.parse_args()
    sys.path.insert(0, str(EXAMPLE.parent))  # the example imports its gallery helpers
    example = runpy.run_path(str(EXAMPLE), run_name="iiwa_monte_carlo")
    make_simulator, output = example["MakeSimulator"](), example["final_tracking_error"]

    def monte_carlo(**options):
        return MonteCarloSimulation(make_simulator, output, args.duration, args.samples, RandomGenerator(1),
                                    progress=False, **options)

    MonteCarloSimulation(make_simulator, output, args.duration, 1, RandomGenerator(0))  # warm-up
    kinds = ("serial", "local", "made serial", "made split")
    runs: dict[str, list[Run]] = {kind: [] for kind in kinds}
    reference = None
    for _ in range(args.repeat):
        run, reference = _timed("serial", monte_carlo, reference)
        runs["serial"].append(run)
        runs["local"].append(_timed("local processes", lambda: monte_carlo(num_parallel_executions=args.workers),
                                    reference)[0])
        made = _made(make_simulator, args.samples, 1)
        runs["made serial"].append(_timed("made samples, serial", lambda: _advance(made, output, args.duration),
                                          reference)[0])
        made = _made(make_simulator, args.samples, 1)
        runs["made split"].append(_timed("made samples, split", lambda: _split(made, output, args.duration,
                                                                                args.workers), reference)[0])

    dask_runs: list[Run] = []
    dask_serials: list[Run] = []
    if not args.no_dask:
        settings = dict(DASK_THROUGHPUT) if args.dask_defaults else {**DASK_THROUGHPUT, **DASK_INTERVALS}
        with dask.config.set(settings), \
                LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None,
                             silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            # warm every worker (compiled kernels loaded, example imported), whichever tasks the scheduler sends it
            client.run(MonteCarloSimulation, make_simulator, output, args.duration, 1, RandomGenerator(0))
            MonteCarloSimulation(make_simulator, output, args.duration, 2 * args.workers, RandomGenerator(0),
                                 executor=client, chunk_size=1, progress=False)
            for _ in range(args.repeat):  # rounds of a serial run (the cluster idle) and a Dask run
                dask_serials.append(_timed("serial", monte_carlo, reference)[0])
                dask_runs.append(_timed("dask", lambda: monte_carlo(executor=client), reference, client)[0])

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    cores = min(os.cpu_count() or 1, args.workers)
    serial = _median(runs["serial"])
    print(f"Monte Carlo of {args.samples} iiwa14 PD samples ({args.duration:g} s each), {os.cpu_count()} cores, "
          f"load average {load}" + (f", medians of {args.repeat} rounds" if args.repeat > 1 else ""))
    print(_row("serial", serial, 1.0, serial, args.samples, cores))
    print(_row(f"{args.workers} local processes", _median(runs["local"]), _speedup(runs["serial"], runs["local"]),
               serial, args.samples, cores))
    if dask_runs:
        dask_run, dask_serial = _median(dask_runs), _median(dask_serials)
        print(_row("serial, the LocalCluster idle", dask_serial, 1.0, dask_serial, args.samples, cores))
        print(_row(f"{args.workers}-worker Dask LocalCluster", dask_run, _speedup(dask_serials, dask_runs),
                   dask_serial, args.samples, cores)
              + ("" if args.dask_defaults else "  [tick and monitors 1 s]"))
    made_serial, split = _median(runs["made serial"]), _median(runs["made split"])
    print("  the ceiling: the same samples made beforehand (outside the clock), then")
    print(_row("  advanced here", made_serial, 1.0, made_serial, args.samples, cores))
    ceiling = _speedup(runs["made serial"], runs["made split"])
    print(_row(f"  split over {args.workers} forked processes", split, ceiling, made_serial, args.samples, cores))
    print(f"  {args.workers} local processes reach {_speedup(runs['serial'], runs['local']) / ceiling:.0%} of the "
          f"ceiling's speed-up")
    print("  (every parallel output equals the serial one bit for bit; main = this process's main thread, other = "
          "its other threads: Dask's scheduler, nannies and client; a Dask worker's event loop is its CPU outside "
          "the tasks; other processes: the machine's CPU used by processes not of this run, per second of its wall "
          "time)")


if __name__ == "__main__":
    main()
