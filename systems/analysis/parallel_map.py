"""ParallelMap: run a function over many samples on local processes, a Dask cluster or any Executor.

The samples go out in chunks (shipped with `shipping`: each diagram is unpickled once per worker) and results
stream back as chunks finish, with a tqdm progress bar on long sweeps. Every sample comes back exactly once:
results are kept by sample index; a chunk whose worker died (a killed local process, a Dask `KilledWorker`) is
sent again, to a fresh local pool or to another Dask worker; a sample that raises is reported with its index and
traceback (`SampleErrors`) after the others finished, never dropped.

Backends: `executor=None` starts a pool of local processes for the call (forked, see `_local_context`);
`executor=` a `dask.distributed.Client` runs on its cluster; any `concurrent.futures.Executor` is used as is.
"""
from __future__ import annotations

import collections
import concurrent.futures as cf
import gc
import importlib
import multiprocessing
import operator
import os
import sys
import traceback
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import cloudpickle
import numba

from mallard.common.parallelism import Parallelism
from .progress_bar import ProgressBar
from .shipping import Shipment, Shipper, Unpack

__all__ = ["ParallelMap", "ParallelMapAsCompleted", "SampleErrors", "SampleFailure"]

_MAX_ATTEMPTS = 3        # times a chunk is sent again after its worker died
_CHUNKS_PER_WORKER = 4   # chunks per worker when the chunk size is automatic (load balance vs overhead)
_MAX_CHUNK = 32          # samples per automatic chunk
_PROGRESS_DELAY = 2.0    # s: the progress bar appears only on sweeps that last longer


@dataclass(frozen=True)
class SampleFailure:
    """A sample that raised: its index and the traceback text (from the worker that ran it)."""

    index: int
    traceback: str

    def __str__(self) -> str:
        return f"sample {self.index} raised:\n{self.traceback}"


class SampleErrors(RuntimeError):
    """Raised after a parallel run in which samples failed. `failures` lists them (index and traceback);
    `results` holds every sample's result in order, None where the sample failed."""

    def __init__(self, failures: list[SampleFailure], results: list) -> None:
        self.failures = sorted(failures, key=lambda f: f.index)
        self.results = results
        shown = self.failures[0]
        super().__init__(f"{len(self.failures)} of {len(results)} samples failed "
                         f"(indices {[f.index for f in self.failures][:20]}"
                         f"{' ...' if len(self.failures) > 20 else ''}); the first one:\n{shown}")


# ----- the worker side -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Job:
    """What a worker receives: the sample indices of a chunk, the shipped function (packed once per sweep, kept by
    the workers) and the shipped [(index, item)]."""

    indices: tuple
    function: Shipment
    items: Shipment


def _RunChunk(job: _Job) -> list:
    """Runs one chunk in a worker: [(index, True, pickled result) or (index, False, traceback text)]."""
    try:
        function, items = Unpack(job.function), Unpack(job.items)
    except BaseException:  # a payload that cannot load here (a module missing on the worker, ...)
        text = traceback.format_exc()
        return [(index, False, text) for index in job.indices]
    out = []
    for index, item in items:
        try:
            out.append((index, True, cloudpickle.dumps(function(item))))
        except BaseException:
            out.append((index, False, traceback.format_exc()))
    return out


# ----- backends --------------------------------------------------------------------------------------------------
def _local_context() -> Any:
    """The start method of the local pool: fork wherever the platform has it and it is safe (not on macOS, whose
    system libraries do not survive a fork), whatever the default (Python 3.14 makes it forkserver on Linux). A
    forked worker inherits mallard's modules and loaded compiled kernels; a spawned one (or the forkserver's)
    imports mallard again and loads the numba caches: a Monte Carlo of 2 short iiwa samples on 2 processes took
    0.24 s with fork and 10-12 s with forkserver or spawn (3.5-4 CPU s in the workers; 2-core machine, load 12), per
    call. A program that needs another start method passes its own pool (`executor=ProcessPoolExecutor(...)`)."""
    if sys.platform != "darwin" and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _InitLocalWorker() -> None:
    """A local worker runs numba's parallel kernels on its own thread (numba.set_num_threads(1): BatchedStepper then
    steps without a parallel region). The workers already fill the cores, and with numba's OpenMP threading layer
    (GNU libgomp) a parallel region in a process forked from one that already used OpenMP terminates that process
    ("fork() called from a process already using GNU OpenMP, this is unsafe")."""
    numba.set_num_threads(1)


def _is_dask_client(executor: Any) -> bool:
    return hasattr(executor, "get_executor") and hasattr(executor, "scheduler_info")


class _PoolBackend:
    """A concurrent.futures Executor: a pool of local processes started for the call (`executor=None`), or the
    user's. Submits chunks, waits for some to finish, knows whether a lost worker can be replaced."""

    smallest_chunk = 1  # samples: a chunk costs local processes a few ms of CPU (the comparison in _DaskBackend)

    @staticmethod
    def ChunkSizes(num_items: int, num_workers: int, chunk_size: int | None) -> Iterator[int]:
        return _ChunkSizes(num_items, num_workers, chunk_size, _PoolBackend.smallest_chunk)

    def __init__(self, executor: Any, num_workers: int | None) -> None:
        self._owned = executor is None
        self._num_local = num_workers
        self._froze = False
        if executor is None:
            # The heap is frozen (gc.freeze) while the forked workers run, as Python's docs advise before a fork: a
            # full collection in this process would otherwise write to every object's header and copy every page it
            # shares with the workers (one in ~6 sweeps of 64 iiwa samples: 12,000 page faults instead of 3,600,
            # 0.18 s of this process's CPU instead of 0.10 s, on a core the workers need), and the workers' own
            # collections would do the same. A heap the user froze is left as it is.
            self._executor = self._new_pool()  # (its processes are forked at the first submission)
            if gc.isenabled() and gc.get_freeze_count() == 0:
                gc.freeze()
                self._froze = True
            self.num_workers = int(num_workers)
        elif isinstance(executor, cf.Executor):
            self._executor = executor
            self.num_workers = int(getattr(executor, "_max_workers", None) or os.cpu_count() or 1)
        else:
            raise TypeError(f"executor must be a concurrent.futures.Executor or a dask.distributed.Client, "
                            f"got {type(executor).__name__}")

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(max_workers=self._num_local, mp_context=_local_context(),
                                      initializer=_InitLocalWorker)

    def Submit(self, job: _Job) -> cf.Future:
        future = self._executor.submit(_RunChunk, job)
        future.mallard_pool = self._executor  # which pool ran it (a lost worker breaks that pool only)
        return future

    def Wait(self, in_flight: dict) -> list[tuple[Any, list | None, BaseException | None]]:
        """Blocks until chunks of `in_flight` finish: [(future, rows, None) or (future, None, error)]."""
        done, _ = cf.wait(list(in_flight), return_when=cf.FIRST_COMPLETED)
        out = []
        for future in done:
            try:
                out.append((future, future.result(), None))
            except BaseException as error:  # noqa: BLE001 - the worker (not the sample) failed
                out.append((future, None, error))
        return out

    def Recover(self, error: BaseException, future: cf.Future) -> bool:
        """After a chunk's `future` raised `error`: True when its worker was lost and the chunk can be sent again.
        A lost worker breaks its whole pool, so every chunk in flight there fails; the pool is replaced once, for
        the first of them (replacing it again would break the chunks already resent to the new one)."""
        if isinstance(error, BrokenProcessPool) and self._owned:
            if getattr(future, "mallard_pool", None) is self._executor:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._new_pool()
            return True
        return type(error).__name__ == "KilledWorker"  # a dask Client's executor: the scheduler moves on

    def Close(self, cancel: bool, in_flight: dict) -> None:
        """Shuts an owned pool down without waiting for its processes to exit (every result is in: stopping and
        joining them costs the caller ~30-40 ms of wall time for nothing; the pool's thread joins them); when the
        run was interrupted (cancel), its workers are stopped at once."""
        if not self._owned:
            return
        if cancel:
            for process in list(getattr(self._executor, "_processes", {}).values()):
                process.terminate()
        self._executor.shutdown(wait=False, cancel_futures=cancel)
        if self._froze:
            gc.unfreeze()
            self._froze = False


class _DaskBackend:
    """A dask.distributed Client: each chunk is one task, submitted to the client directly (no
    concurrent.futures wrapper) and gathered as it completes by the client's event loop (`as_completed`), so a
    chunk costs the parent one submission and one gather.

    A task costs ~6 ms of CPU on a quiet 2-core machine (2-4 ms in this process's client and scheduler, ~2 ms in
    the worker: 64 one-sample chunks of the iiwa Monte Carlo vs 4 sixteen-sample ones, 0.42 vs 0.09-0.16 s in this
    process; bare tasks with the same ~180 kB of payload: 3.5 ms here and 2.3 ms in the worker), a sixth of an
    iiwa sample, against ~4 ms on local processes. So automatic chunks hold at least `smallest_chunk` samples and
    come in rounds of equal chunks (`_RoundChunkSizes`): the scheduler hands a worker its next task while it
    still runs one, so the split is decided a chunk ahead and the guided sizes of the local pool (whose workers
    take the next chunk when they are free) would leave one worker the larger share. 64 iiwa samples on 2
    workers: 10 tasks instead of 15, 20-30% less CPU outside the tasks (event loops and main thread, loaded).
    Sending each chunk to the worker that just finished one (a loose `workers=` restriction) with the guided
    sizes balanced the ends better but cost more tasks: the same speed-up (medians of 20 paired rounds
    1.66-1.75x for both, and for rounds of half as many chunks)."""

    smallest_chunk = 2

    @staticmethod
    def ChunkSizes(num_items: int, num_workers: int, chunk_size: int | None) -> Iterator[int]:
        return _RoundChunkSizes(num_items, num_workers, chunk_size, _DaskBackend.smallest_chunk)

    def __init__(self, client: Any) -> None:
        self._client = client
        self._completed = importlib.import_module("distributed").as_completed(
            [], with_results=True, raise_errors=False)
        workers = client.scheduler_info().get("workers", {})
        self.num_workers = max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))

    def Submit(self, job: _Job) -> Any:
        future = self._client.submit(_RunChunk, job, pure=False)
        self._completed.add(future)
        return future

    def Wait(self, in_flight: dict) -> list[tuple[Any, list | None, BaseException | None]]:
        """Blocks until chunks finish: [(future, rows, None) or (future, None, error)]."""
        out = []
        for future, result in [next(self._completed), *self._completed.next_batch(block=False)]:
            if future.status == "finished":
                out.append((future, result, None))
            else:  # an error comes as (type, exception, traceback), a cancellation as CancelledError
                out.append((future, None, result[1] if isinstance(result, tuple) else result))
        return out

    def Recover(self, error: BaseException, future: Any) -> bool:
        return type(error).__name__ == "KilledWorker"  # the scheduler moves on to other workers

    def Close(self, cancel: bool, in_flight: dict) -> None:
        """When the run was interrupted (cancel), its tasks still queued or running are cancelled."""
        if cancel and in_flight:
            self._client.cancel(list(in_flight))


def _Backend(executor: Any, num_workers: int | None) -> _PoolBackend | _DaskBackend:
    return _DaskBackend(executor) if _is_dask_client(executor) else _PoolBackend(executor, num_workers)


def _num_workers(num_parallel_executions: Any) -> int:
    if isinstance(num_parallel_executions, Parallelism):
        return num_parallel_executions.num_threads()
    if isinstance(num_parallel_executions, bool):
        return Parallelism(num_parallel_executions).num_threads()
    n = operator.index(num_parallel_executions)
    if n == -1:  # pydrake's kUseHardwareConcurrency
        return Parallelism.Max().num_threads()
    if n < 1:
        raise ValueError(f"num_parallel_executions must be >= 1 (or -1 / True for all cores), got {n}")
    return n


# ----- the engine ------------------------------------------------------------------------------------------------
@dataclass
class _Chunk:
    job: _Job
    attempts: int = 0


def _ChunkSizes(num_items: int, num_workers: int, chunk_size: int | None, smallest: int = 1) -> Iterator[int]:
    """Samples per chunk, in order. A fixed `chunk_size` is used as is. Automatic sizes ramp up, then are guided:
    `smallest` samples to each worker first (every worker starts at once), then twice as many to each, four
    times, ... (a chunk is made in this process while the workers run the previous ones: doubling keeps the next
    chunk ready before a worker runs out, where jumping to the full size left the workers idle while it was made),
    up to 1/(2 workers) of what remains, at most `_MAX_CHUNK` and at most 1/(`_CHUNKS_PER_WORKER` workers) of the
    sweep, so the last chunks are small (not below `smallest`) and the workers finish together."""
    if chunk_size:
        while True:
            yield int(chunk_size)
    largest = max(1, min(_MAX_CHUNK, -(-num_items // (num_workers * _CHUNKS_PER_WORKER))))
    smallest = max(1, min(int(smallest), largest))
    remaining, ramp, count = num_items, smallest, 0
    while True:
        size = max(smallest, min(ramp, largest, -(-remaining // (2 * num_workers))))
        yield size
        remaining -= size
        count += 1
        if count % num_workers == 0:
            ramp *= 2


def _RoundChunkSizes(num_items: int, num_workers: int, chunk_size: int | None, smallest: int = 1) -> Iterator[int]:
    """Samples per chunk, in rounds of `num_workers` equal chunks, for a backend that assigns each chunk to a
    worker when it is submitted (Dask: the scheduler gives a worker its next task while it runs one), so that
    every worker gets the same share of each round. A fixed `chunk_size` is used as is. Automatic rounds: a
    first one of half-size chunks (the workers start sooner), full ones of 1/(`_CHUNKS_PER_WORKER` workers) of
    the sweep (at most `_MAX_CHUNK`, at least `smallest`), and a tail that halves what remains per round once
    a full round and a half-size one no longer fit, ending with what remains split evenly. 64 samples on 2
    workers: 4, 4, 8 x 6, 4, 4 (10 chunks)."""
    if chunk_size:
        while True:
            yield int(chunk_size)
    full = max(smallest, min(_MAX_CHUNK, -(-num_items // (num_workers * _CHUNKS_PER_WORKER))))
    half = max(smallest, -(-full // 2))
    remaining, first = num_items, True
    while True:
        if first:
            size = half
        elif remaining <= num_workers * half:
            size = -(-remaining // num_workers)  # the last round
        elif remaining < num_workers * (full + half):
            size = -(-remaining // (2 * num_workers))
        else:
            size = full
        size, first = max(smallest, size), False  # a chunk past the last item is cut short
        for _ in range(num_workers):
            yield size
            remaining -= size


def _chunks(function: Callable, items: Iterator, sizes: Iterator[int], shipper: Shipper,
            failed: list) -> Iterator[_Chunk]:
    """Groups (index, item) pairs into shipped chunks of the given sizes, lazily; items that are SampleFailure go
    to `failed`."""
    batch: list = []
    size = next(sizes)
    shipped_function = shipper.Pack(function, keep=True)

    def pack() -> _Chunk:
        return _Chunk(_Job(tuple(i for i, _ in batch), shipped_function, shipper.Pack(batch)))

    for index, item in items:
        if isinstance(item, SampleFailure):
            failed.append(item)
            continue
        batch.append((index, item))
        if len(batch) == size:
            yield pack()
            batch, size = [], next(sizes)
    if batch:
        yield pack()


def _Run(function: Callable, items: Iterable, num_items: int, *, executor: Any, num_workers: int,
         chunk_size: int | None, progress: bool | None, description: str) -> Iterator[tuple[int, bool, Any]]:
    """Yields (index, True, result) or (index, False, SampleFailure) for every item, as chunks complete."""
    backend = _Backend(executor, num_workers)
    workers = backend.num_workers
    failed: list[SampleFailure] = []
    source = _chunks(function, iter(items), backend.ChunkSizes(num_items, workers, chunk_size),
                     Shipper(), failed)
    retry: collections.deque[_Chunk] = collections.deque()
    in_flight: dict[cf.Future, _Chunk] = {}
    bar = ProgressBar(total=num_items, desc=description, unit="sample",
                      delay=_PROGRESS_DELAY if progress is None else 0.0,
                      disable=None if progress is None else not progress)  # None: only on a terminal, on long sweeps
    cancel = True
    try:
        exhausted = False
        while True:
            while len(in_flight) < 2 * workers and (retry or not exhausted):
                if retry:
                    chunk = retry.popleft()
                else:
                    chunk = next(source, None)
                    if chunk is None:
                        exhausted = True
                        break
                in_flight[backend.Submit(chunk.job)] = chunk
            while failed:
                failure = failed.pop()
                bar.update(1)
                yield failure.index, False, failure
            if not in_flight:
                break
            for future, rows, error in backend.Wait(in_flight):
                chunk = in_flight.pop(future)
                if error is not None:
                    if backend.Recover(error, future) and chunk.attempts + 1 < _MAX_ATTEMPTS:
                        chunk.attempts += 1
                        retry.append(chunk)
                        continue
                    text = "".join(traceback.format_exception(error))
                    rows = [(i, False, f"the worker running this sample failed ({chunk.attempts + 1} attempts):\n"
                             f"{text}") for i in chunk.job.indices]
                for index, ok, value in rows:
                    bar.update(1)
                    if ok:
                        yield index, True, cloudpickle.loads(value)
                    else:
                        yield index, False, SampleFailure(index, value)
        cancel = False
    finally:
        bar.close()
        backend.Close(cancel, in_flight)


def ParallelMapAsCompleted(function: Callable, items: Iterable, *, num_items: int | None = None,
                           executor: Any = None, num_parallel_executions: Any = True, chunk_size: int | None = None,
                           progress: bool | None = None, description: str = "samples") -> Iterator[tuple[int, Any]]:
    """Yields (index, function(items[index])) as results arrive, in completion order; raises SampleErrors at the
    end if any sample raised. `function` and the items must pickle (lambdas and script functions do);
    `num_parallel_executions` sizes the local pool (ignored with `executor=`)."""
    if num_items is None:
        items = list(items)
        num_items = len(items)
    failures: list[SampleFailure] = []
    received: dict[int, Any] = {}
    for index, ok, value in _Run(function, enumerate(items), num_items, executor=executor,
                                 num_workers=_num_workers(num_parallel_executions), chunk_size=chunk_size,
                                 progress=progress, description=description):
        if index in received:
            continue  # a chunk that finished on a worker declared lost and ran again: keep the first result
        received[index] = value if ok else None
        if ok:
            yield index, value
        else:
            failures.append(value)
    if failures:
        raise SampleErrors(failures, [received.get(i) for i in range(num_items)])


def ParallelMap(function: Callable, items: Iterable, *, executor: Any = None, num_parallel_executions: Any = True,
                chunk_size: int | None = None, progress: bool | None = None, description: str = "samples") -> list:
    """[function(item) for item in items], computed in parallel (see ParallelMapAsCompleted) and in order."""
    items = list(items)
    results: list = [None] * len(items)
    for index, value in ParallelMapAsCompleted(function, items, num_items=len(items), executor=executor,
                                               num_parallel_executions=num_parallel_executions,
                                               chunk_size=chunk_size, progress=progress, description=description):
        results[index] = value
    return results
