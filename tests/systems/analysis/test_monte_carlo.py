"""MonteCarloSimulation / RandomSimulation: serial as Drake; local processes and Executors give the same bits;
a worker killed mid-sweep loses no sample; a sample that raises is reported with its index and traceback."""
from __future__ import annotations

import concurrent.futures as cf
import copy
import gc
import itertools
import json
import multiprocessing
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from mallard.common import RandomGenerator
from mallard.systems.analysis import (MonteCarloSimulation, ParallelMap, ParallelMapAsCompleted, RandomSimulation,
                                      SampleErrors, Simulator, kNoConcurrency)
from mallard.systems.analysis import shipping
from mallard.systems.analysis.parallel_map import _MAX_CHUNK, _ChunkSizes, _RoundChunkSizes

from scaleout_models import CartPoleFactory, final_state_norm, raise_on_large_target

FINAL_TIME = 0.6
NUM_SAMPLES = 10


@pytest.fixture(scope="module")
def factory():
    return CartPoleFactory(time_step=0.0)


@pytest.fixture(scope="module")
def serial(factory):
    return MonteCarloSimulation(factory, final_state_norm, FINAL_TIME, NUM_SAMPLES, RandomGenerator(11),
                                kNoConcurrency)


def _outputs(results):
    return [r.output for r in results]


def test_serial_is_drakes_loop(factory, serial):
    """Sample i starts from the generator after samples 0..i-1; its snapshot replays it through RandomSimulation."""
    generator = RandomGenerator(11)
    for result in serial:
        assert result.generator_snapshot == generator
        assert RandomSimulation(factory, final_state_norm, FINAL_TIME, generator) == result.output
    assert len({r.output for r in serial}) == NUM_SAMPLES  # the draws differ from sample to sample
    replay = copy.copy(serial[3].generator_snapshot)
    assert RandomSimulation(factory, final_state_norm, FINAL_TIME, replay) == serial[3].output


def test_local_processes_give_the_serial_bits(factory, serial, capsys):
    parallel = MonteCarloSimulation(factory, final_state_norm, FINAL_TIME, NUM_SAMPLES, RandomGenerator(11),
                                    num_parallel_executions=2, progress=True, chunk_size=3)
    assert _outputs(parallel) == _outputs(serial)
    assert all(a.generator_snapshot == b.generator_snapshot for a, b in zip(parallel, serial))
    assert "MonteCarloSimulation" in capsys.readouterr().err  # the progress bar


def test_any_executor_with_closures(factory, serial):
    """A thread pool (any concurrent.futures.Executor) and a make_simulator / output given as closures."""
    def make_simulator(generator):
        return factory(generator)
    with cf.ThreadPoolExecutor(max_workers=2) as executor:
        results = MonteCarloSimulation(make_simulator, lambda system, context: final_state_norm(system, context),
                                       FINAL_TIME, NUM_SAMPLES, RandomGenerator(11), executor=executor)
    assert _outputs(results) == _outputs(serial)


def test_a_killed_worker_loses_no_sample(serial, tmp_path):
    """The first sample to pass t = 0.1 s kills its worker process (SIGKILL); the pool is replaced and the
    samples of the lost chunk run again: every sample comes back once, with the serial bits."""
    marker = tmp_path / "killed"
    crashing = CartPoleFactory(time_step=0.0, crash_marker=str(marker))
    results = MonteCarloSimulation(crashing, final_state_norm, FINAL_TIME, NUM_SAMPLES, RandomGenerator(11),
                                   num_parallel_executions=2, chunk_size=2)
    assert marker.exists()
    assert len(results) == NUM_SAMPLES and _outputs(results) == _outputs(serial)


def test_failing_samples_are_reported_with_index_and_traceback(factory):
    with pytest.raises(SampleErrors) as serial_error:
        MonteCarloSimulation(factory, raise_on_large_target, 0.0, NUM_SAMPLES, RandomGenerator(11))
    with pytest.raises(SampleErrors) as parallel_error:
        MonteCarloSimulation(factory, raise_on_large_target, 0.0, NUM_SAMPLES, RandomGenerator(11),
                             num_parallel_executions=2)
    failed = [f.index for f in serial_error.value.failures]
    assert 0 < len(failed) < NUM_SAMPLES
    assert [f.index for f in parallel_error.value.failures] == failed
    assert all("ValueError: target" in f.traceback and "raise_on_large_target" in f.traceback
               for f in parallel_error.value.failures)
    for errors in (serial_error.value, parallel_error.value):
        assert [r is None for r in errors.results] == [i in failed for i in range(NUM_SAMPLES)]
        assert all(r.output <= 0.3 for r in errors.results if r is not None)
    assert [r and r.output for r in parallel_error.value.results] == [r and r.output for r in serial_error.value.results]
    assert f"indices {failed}" in str(parallel_error.value)


def test_parallel_map_keeps_order_and_reports_bad_arguments():
    assert ParallelMap(lambda x: x * x, range(7), num_parallel_executions=2) == [x * x for x in range(7)]
    with pytest.raises(ValueError, match=">= 1"):
        ParallelMap(abs, [1], num_parallel_executions=0)
    with pytest.raises(TypeError, match="Executor"):
        ParallelMap(abs, [1], executor=object())
    assert np.isclose(ParallelMap(np.sqrt, [4.0], num_parallel_executions=1)[0], 2.0)


_INHERITED = []  # filled by the test below after the workers' modules were imported: seen only by forked workers


def _sees_the_parents_state(_item) -> tuple:
    return os.getpid(), list(_INHERITED)


@pytest.mark.skipif(sys.platform == "darwin" or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="local workers are forked only where fork is safe")
def test_local_workers_are_forked_whatever_the_default_start_method(monkeypatch):
    """Local workers are forked: they inherit mallard's modules and compiled kernels (and the parent's state), where
    a worker of Python 3.14's default start method (forkserver) imports and loads them again, seconds per call."""
    real = multiprocessing.get_context
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: real(method or "forkserver"))
    monkeypatch.setattr(sys.modules[__name__], "_INHERITED", ["set at run time"])
    rows = ParallelMap(_sees_the_parents_state, range(2), num_parallel_executions=2, chunk_size=1)
    assert all(pid != os.getpid() and seen == ["set at run time"] for pid, seen in rows)


def test_sweep_ships_each_diagram_once_per_worker(factory):
    """A parameter sweep over a function closing over a diagram: every chunk refers to the worker's one copy."""
    diagram = factory.diagram
    pd = diagram.GetSubsystemByName("pd")

    def final_cart_position(target):
        simulator = Simulator(diagram)
        context = simulator.get_mutable_context()
        pd.GetMyContextFromRoot(context).get_mutable_numeric_parameter(0).SetAtIndex(0, target)
        simulator.AdvanceTo(0.3)
        return os.getpid(), id(diagram), diagram.GetOutputPort("state").Eval(context)[0]

    targets = np.linspace(-0.5, 0.5, 8)
    rows = ParallelMap(final_cart_position, targets, num_parallel_executions=2, chunk_size=1)
    copies = {}
    for pid, diagram_id, _ in rows:
        copies.setdefault(pid, set()).add(diagram_id)
    assert all(len(ids) == 1 for ids in copies.values()) and os.getpid() not in copies
    assert [row[2] for row in rows] == [final_cart_position(t)[2] for t in targets]


class _DiagramIdentity:
    """A sweep's function closing over a diagram: (process id, id of the diagram it sees)."""

    def __init__(self, diagram) -> None:
        self.diagram = diagram

    def __call__(self, _item) -> tuple:
        return os.getpid(), id(self.diagram)


@pytest.mark.skipif(sys.platform == "darwin" or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="local workers are forked only where fork is safe")
def test_forked_workers_run_the_inherited_diagram(factory):
    """The local pool forks after the first chunk is packed: its workers take the diagram they inherited (the
    parent's objects, as the serial run uses) instead of unpickling its shipped copy; this process still
    unpickles a copy of its own."""
    function = _DiagramIdentity(factory.diagram)
    rows = ParallelMap(function, range(4), num_parallel_executions=2, chunk_size=1)
    assert all(pid != os.getpid() and seen == id(factory.diagram) for pid, seen in rows)
    assert shipping.Unpack(shipping.Shipper().Pack(function))(0)[1] != id(factory.diagram)


class _CartPosition:
    """A sweep's function closing over a diagram: (process id, which unpickling of it this is in that process, the
    cart's position at 0.3 s)."""

    _loads = itertools.count()

    def __init__(self, diagram) -> None:
        self.diagram, self.load = diagram, -1

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.load = next(_CartPosition._loads)

    def __call__(self, target: float) -> tuple:
        simulator = Simulator(self.diagram)
        context = simulator.get_mutable_context()
        pd = self.diagram.GetSubsystemByName("pd")
        pd.GetMyContextFromRoot(context).get_mutable_numeric_parameter(0).SetAtIndex(0, target)
        simulator.AdvanceTo(0.3)
        return os.getpid(), self.load, self.diagram.GetOutputPort("state").Eval(context)[0]


def test_sweeps_function_is_unpickled_once_per_worker(factory):
    """The function mapped is shipped once per sweep: each worker unpickles it once (one copy per process, over
    eight one-sample chunks), bound to that worker's copy of the diagram."""
    function = _CartPosition(factory.diagram)
    targets = np.linspace(-0.5, 0.5, 8)
    rows = ParallelMap(function, targets, num_parallel_executions=2, chunk_size=1)
    copies = {}
    for pid, copy_id, _ in rows:
        copies.setdefault(pid, set()).add(copy_id)
    assert all(len(ids) == 1 for ids in copies.values()) and os.getpid() not in copies
    assert [row[2] for row in rows] == [function(t)[2] for t in targets]


def test_kept_payload_follows_its_diagrams_copy(factory):
    """A kept payload is reused while the diagram copy it refers to is kept; once that copy is dropped (a thread
    keeps a few), the payload is unpickled again, bound to the new copy, never to a stale one."""
    shipment = shipping.Shipper().Pack(_CartPosition(factory.diagram), keep=True)
    first = shipping.Unpack(shipment)
    assert shipping.Unpack(shipment) is first and first.diagram is not factory.diagram
    shipping._kept.diagrams.clear()
    again = shipping.Unpack(shipment)
    assert again is not first and again.diagram is not first.diagram
    assert shipping.Unpack(shipment) is again
    assert again(0.2)[2] == _CartPosition(factory.diagram)(0.2)[2]


def test_objects_shared_with_the_diagram_are_shipped_as_references(factory):
    """A context shares its geometries' shapes with its diagram's SceneGraph: a shipped simulator refers to them in
    the worker's copy of the diagram (unpickled once per worker) instead of carrying copies of its own, so its
    shapes are that copy's, as the parent's are the diagram's."""
    simulator = factory(RandomGenerator(3))
    shipped = shipping.Unpack(shipping.Shipper().Pack(simulator))
    shapes = []
    for sim in (simulator, shipped):
        scene_graph = sim.get_system().GetSubsystemByName("scene_graph")
        inspector = scene_graph.get_query_output_port().Eval(
            scene_graph.GetMyContextFromRoot(sim.get_context())).inspector()
        model = scene_graph.model_inspector()
        ids = model.GetAllGeometryIds()
        assert len(ids) == 3 and all(inspector.GetShape(g) is model.GetShape(g) for g in ids)
        shapes.append([type(model.GetShape(g)) for g in ids])
    assert shipped.get_system() is not factory.diagram and shapes[0] == shapes[1]


def test_shipped_arrays_keep_their_bytes_dtype_shape_and_writability():
    """Arrays travel as their bytes (numpy's constructor unpickles them): values, dtype, shape, Fortran order and
    read-only-ness come back as they left (a strided view as a contiguous copy, as numpy pickles it), and one array
    held twice is still one array."""
    read_only = np.arange(3.0)
    read_only.flags.writeable = False
    arrays = [np.linspace(0.0, 1.0, 7), np.array(2.5), np.zeros((0, 6)), np.arange(6.0).reshape(2, 3),
              np.arange(6.0).reshape(2, 3).T, np.arange(4, dtype=">i4"), np.zeros(2, dtype=[("a", "f8"), ("b", "i1")]),
              np.array([None, 1], dtype=object), read_only, np.arange(10.0)[::3]]
    shared = np.ones(2)
    got, again, same = shipping.Unpack(shipping.Shipper().Pack((arrays, shared, shared)))
    assert again is same
    for a, b in zip(arrays, got):
        assert b.dtype == a.dtype and b.shape == a.shape and b.tobytes() == a.tobytes()
        assert b.flags.writeable == a.flags.writeable
    assert got[4].flags.f_contiguous and not got[4].flags.c_contiguous  # the transposed array, in Fortran order


@pytest.mark.parametrize("num_items, num_workers, smallest", [(64, 2, 1), (1000, 2, 1), (7, 4, 1), (1, 2, 1),
                                                              (64, 2, 2), (1000, 2, 2), (7, 4, 2)])
def test_automatic_chunks_ramp_up_then_shrink_at_the_end(num_items, num_workers, smallest):
    """Automatic chunking: each worker first gets `smallest` samples (all start at once; a Dask task costs more
    than a sample, a local one little), then the sizes at most double per round of workers (the next chunk is
    ready before a worker runs out), never exceed the cap, and the chunks that finish a sweep are no larger than
    the ones before them, ending with `smallest` samples (fewer when the sweep is too small to give each worker
    four chunks of that size)."""
    sizes, total, generator = [], 0, _ChunkSizes(num_items, num_workers, None, smallest)
    while total < num_items:
        sizes.append(next(generator))
        total += sizes[-1]
    first = min(smallest, -(-num_items // (4 * num_workers)))  # at least four chunks per worker
    assert sizes[:num_workers] == [first] * min(num_workers, len(sizes))
    assert all(size <= first * 2 ** (k // num_workers) for k, size in enumerate(sizes))
    assert max(sizes) <= _MAX_CHUNK
    tail = sizes[sizes.index(max(sizes)):]
    assert tail == sorted(tail, reverse=True)
    if num_items > 2 * num_workers * first:
        assert sizes[-1] == first and max(sizes) > first
    if num_items == 1000:
        assert max(sizes) == _MAX_CHUNK and len(sizes) < 60  # large sweeps reach full-size chunks


def _sweep_sizes(sizes_of, num_items, num_workers, smallest) -> list:
    sizes, generator = [], sizes_of(num_items, num_workers, None, smallest)
    while sum(sizes) < num_items:
        sizes.append(min(next(generator), num_items - sum(sizes)))
    return sizes


@pytest.mark.parametrize("num_items, num_workers", [(64, 2), (1000, 2), (100, 2), (64, 4), (7, 4), (1, 2)])
def test_dask_chunks_come_in_rounds_of_equal_chunks(num_items, num_workers):
    """Dask's automatic chunks (the scheduler assigns a task a chunk ahead): every round gives each worker a
    chunk of the same size (the last one cut short by the end of the sweep), half-size first, full-size (at most
    the cap) in the middle, never growing again once they shrink, so each worker gets the same share."""
    sizes = _sweep_sizes(_RoundChunkSizes, num_items, num_workers, 2)
    rounds = [sizes[k:k + num_workers] for k in range(0, len(sizes), num_workers)]
    for round_ in rounds[:-1]:
        assert len(set(round_)) == 1
    assert max(rounds[-1]) - min(rounds[-1]) <= 1 or sum(rounds[-1]) < 2 * num_workers
    assert max(sizes) <= _MAX_CHUNK
    heads = [round_[0] for round_ in rounds]
    peak = heads.index(max(heads))
    assert heads[peak:] == sorted(heads[peak:], reverse=True) and heads[0] <= heads[peak]
    if num_items == 64 and num_workers == 2:
        assert sizes == [4, 4, 8, 8, 8, 8, 8, 8, 4, 4]  # 10 tasks (the guided sizes: 15)
    if num_items == 1000:
        assert max(sizes) == _MAX_CHUNK and len(sizes) < 40


OPENMP_PROBE = textwrap.dedent('''
    import json
    import numba
    import numpy as np
    from mallard.multibody.pipeline.batch import BatchedStepper
    from mallard.multibody.plant import MultibodyPlant
    from mallard.parsers import Parser
    from mallard.systems.analysis import ParallelMap

    PINNED = """<mujoco><worldbody><body name="a" pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0"/></body></worldbody>
      <equality><connect body1="a" anchor="0.3 0 0"/></equality></mujoco>"""

    def rollout(speed):
        plant = MultibodyPlant(0.002)
        Parser(plant).AddModelsFromString(PINNED, "xml")
        plant.Finalize()
        stepper = BatchedStepper(plant, 3)
        assert stepper._tree is None  # a constraint row: the general batch kernel
        x0 = np.tile(plant.GetPositionsAndVelocities(plant.CreateDefaultContext()), (3, 1))
        x0[:, -1] = [speed, -speed, 2 * speed]
        return stepper.Step(x0, num_steps=10).tolist()

    numba.set_num_threads(2)
    here = [rollout(speed) for speed in (0.5, 1.0)]  # numba's threads: a parallel region in this process
    there = ParallelMap(rollout, [0.5, 1.0], num_parallel_executions=2)
    print(json.dumps({"layer": numba.threading_layer(), "equal": here == there}))
''')


def test_local_workers_step_batches_after_this_process_used_openmp():
    """A sweep whose samples step a BatchedStepper runs on local workers forked from a process that already ran
    numba's parallel kernels: the workers step on their own thread (with numba's OpenMP layer a parallel region in
    such a fork terminates it) and give this process's bits."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread here: no parallel region to start")
    out = subprocess.run([sys.executable, "-c", OPENMP_PROBE], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["equal"], result


def test_local_sweep_freezes_the_heap_while_its_workers_run():
    """While forked workers run, this process's heap is frozen (no full collection copies the pages it shares with
    them) and unfrozen afterwards; a heap the user froze stays frozen."""
    assert gc.get_freeze_count() == 0
    results = ParallelMapAsCompleted(abs, [-1, -2, -3, -4], num_parallel_executions=2, chunk_size=1)
    first = next(results)
    assert gc.get_freeze_count() > 0  # mid-sweep
    assert sorted([first, *results]) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        assert ParallelMap(abs, [-5, 6], num_parallel_executions=2) == [5, 6]
        assert gc.get_freeze_count() > 0  # (the sweep did not unfreeze the user's heap)
    finally:
        gc.unfreeze()
