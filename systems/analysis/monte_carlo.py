"""Monte Carlo simulation as pydrake's: RandomSimulation, MonteCarloSimulation, RandomSimulationResult.

As in Drake, every random draw happens in the calling process, in sample order: for sample i the generator is
snapshotted, `make_simulator(generator)` builds the simulator and `SetRandomContext` randomizes its context.
Only then is the simulator shipped to a worker, which advances it to `final_time` and evaluates `output`. So
sample i gets the same draws, and (simulation being deterministic) the same output, bit for bit, whatever the
parallelism or the backend: serial, local processes, a Dask cluster or any Executor (see parallel_map).
"""
from __future__ import annotations

import copy
import traceback
from typing import Any, Callable

from mallard.common.parallelism import Parallelism
from mallard.common.random_generator import RandomGenerator
from .parallel_map import ParallelMapAsCompleted, SampleErrors, SampleFailure, _num_workers

__all__ = ["MonteCarloSimulation", "RandomSimulation", "RandomSimulationResult", "kNoConcurrency",
           "kUseHardwareConcurrency"]

kNoConcurrency = 1             # num_parallel_executions: run the samples one after the other, in this process
kUseHardwareConcurrency = -1   # num_parallel_executions: one worker per core


class RandomSimulationResult:
    """One Monte Carlo sample: `generator_snapshot` (the generator before the sample; replays it) and `output`."""

    __slots__ = ("_snapshot", "output")

    def __init__(self, generator_snapshot: RandomGenerator, output: Any = 0.0) -> None:
        self.generator_snapshot = generator_snapshot
        self.output = output

    @classmethod
    def _Deferred(cls, snapshot: tuple, output: Any) -> "RandomSimulationResult":
        """A result whose snapshot is a generator's reduction (`_snapshot_of`), made into a RandomGenerator when
        first read: a new generator costs ~0.2-0.3 ms (numpy seeds its engine before the state is set), per sample
        in the loop that draws them, where most snapshots are never read."""
        result = cls.__new__(cls)
        result._snapshot, result.output = snapshot, output
        return result

    @property
    def generator_snapshot(self) -> RandomGenerator:
        if type(self._snapshot) is tuple:
            restore, args = self._snapshot
            self._snapshot = restore(*args)
        return self._snapshot

    @generator_snapshot.setter
    def generator_snapshot(self, generator: RandomGenerator) -> None:
        self._snapshot = generator

    def __getstate__(self) -> tuple:
        return (self.generator_snapshot, self.output)

    def __setstate__(self, state: tuple) -> None:
        self.generator_snapshot, self.output = state

    def __repr__(self) -> str:
        return f"RandomSimulationResult(output={self.output!r})"


def _snapshot_of(generator: RandomGenerator) -> tuple | Any:
    """The generator's snapshot for a RandomSimulationResult: a RandomGenerator's pickle reduction (its restore
    function and a copy of its engine state: ~0.05 ms against ~0.3 ms for a copy), else a copy."""
    if type(generator) is RandomGenerator:
        return generator.__reduce__()
    return copy.copy(generator)


def _as_output(value: Any) -> Any:
    """pydrake's outputs are doubles: a Python or numpy scalar becomes a float, anything else is kept."""
    try:
        return float(value) if getattr(value, "ndim", 0) == 0 and not isinstance(value, (str, bytes)) else value
    except (TypeError, ValueError):
        return value


def _randomized_simulator(make_simulator: Callable, generator: RandomGenerator):
    simulator = make_simulator(generator)
    if not hasattr(simulator, "AdvanceTo") or not hasattr(simulator, "get_system"):
        raise TypeError(f"make_simulator must return a Simulator, got {type(simulator).__name__}")
    simulator.get_system().SetRandomContext(simulator.get_mutable_context(), generator)
    return simulator


class _AdvanceAndOutput:
    """The worker's part of a sample: advance the shipped simulator to final_time, return output(system, context)."""

    def __init__(self, output: Callable, final_time: float) -> None:
        self.output, self.final_time = output, final_time

    def __call__(self, simulator) -> Any:
        simulator.AdvanceTo(self.final_time)
        return _as_output(self.output(simulator.get_system(), simulator.get_context()))


def RandomSimulation(make_simulator: Callable, output: Callable, final_time: float,
                     generator: RandomGenerator) -> Any:
    """simulator = make_simulator(generator); SetRandomContext(generator); AdvanceTo(final_time); return
    output(system, context)."""
    simulator = _randomized_simulator(make_simulator, generator)
    return _AdvanceAndOutput(output, float(final_time))(simulator)


def MonteCarloSimulation(make_simulator: Callable, output: Callable, final_time: float, num_samples: int,
                         generator: RandomGenerator | None = None,
                         num_parallel_executions: int | bool | Parallelism = kNoConcurrency, *,
                         parallelism: int | bool | Parallelism | None = None, executor: Any = None,
                         progress: bool | None = None, chunk_size: int | None = None) -> list[RandomSimulationResult]:
    """`num_samples` RandomSimulations drawn one after the other from `generator` (a new default one when None).

    `num_parallel_executions` (or pydrake's `parallelism`): 1 runs them here; more (or -1 / True for every core)
    runs them on that many local processes. `executor=` a `dask.distributed.Client` or any
    `concurrent.futures.Executor` runs them there instead. Either way sample i's draws and output do not depend on
    the parallelism. A tqdm bar shows progress on long parallel runs (`progress=False` hides it, True forces it).
    A sample that raises does not stop the others: SampleErrors (its index and traceback) is raised at the end,
    with the finished results in its `results`.
    """
    num_samples = int(num_samples)
    if num_samples < 0:
        raise ValueError(f"MonteCarloSimulation: num_samples must be >= 0, got {num_samples}")
    if generator is None:
        generator = RandomGenerator()
    final_time = float(final_time)
    workers = _num_workers(parallelism if parallelism is not None else num_parallel_executions)
    if executor is None and workers == 1:
        return _serial(make_simulator, output, final_time, num_samples, generator)

    snapshots: list[tuple] = []

    def samples():
        for index in range(num_samples):
            snapshots.append(_snapshot_of(generator))
            try:
                yield _randomized_simulator(make_simulator, generator)
            except Exception:
                yield SampleFailure(index, traceback.format_exc())

    outputs: list = [None] * num_samples
    try:
        for index, value in ParallelMapAsCompleted(_AdvanceAndOutput(output, final_time), samples(),
                                                   num_items=num_samples, executor=executor,
                                                   num_parallel_executions=workers, chunk_size=chunk_size,
                                                   progress=progress, description="MonteCarloSimulation"):
            outputs[index] = value
    except SampleErrors as errors:
        errors.results = [None if value is None else RandomSimulationResult._Deferred(snapshot, value)
                          for snapshot, value in zip(snapshots, errors.results)]
        raise
    return [RandomSimulationResult._Deferred(snapshot, value) for snapshot, value in zip(snapshots, outputs)]


def _serial(make_simulator: Callable, output: Callable, final_time: float, num_samples: int,
            generator: RandomGenerator) -> list[RandomSimulationResult]:
    """Drake's serial loop, here; a sample that raises is reported as in the parallel runs, after the others."""
    results: list = []
    failures: list[SampleFailure] = []
    first_error = None
    for index in range(num_samples):
        snapshot = _snapshot_of(generator)
        try:
            value = RandomSimulation(make_simulator, output, final_time, generator)
        except Exception as error:
            first_error = first_error or error
            failures.append(SampleFailure(index, traceback.format_exc()))
            results.append(None)
            continue
        results.append(RandomSimulationResult._Deferred(snapshot, value))
    if failures:
        raise SampleErrors(failures, results) from first_error
    return results
