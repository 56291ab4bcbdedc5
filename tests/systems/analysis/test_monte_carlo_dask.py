"""MonteCarloSimulation on a real dask.distributed LocalCluster (2 worker processes): every result equals the
serial run's bit for bit, and a worker killed mid-sweep loses no sample and duplicates none."""
from __future__ import annotations

import os
import time

import pytest

from mallard.common import RandomGenerator
from mallard.systems.analysis import MonteCarloSimulation, ParallelMap, ParallelMapAsCompleted

from scaleout_models import CartPoleFactory, final_state_norm

FINAL_TIME = 0.6
NUM_SAMPLES = 12


@pytest.fixture(scope="module")
def serial():
    return MonteCarloSimulation(CartPoleFactory(), final_state_norm, FINAL_TIME, NUM_SAMPLES, RandomGenerator(5))


def test_local_cluster_gives_the_serial_bits(dask_client, serial):
    results = MonteCarloSimulation(CartPoleFactory(), final_state_norm, FINAL_TIME, NUM_SAMPLES, RandomGenerator(5),
                                   executor=dask_client, chunk_size=2)
    assert [r.output for r in results] == [r.output for r in serial]
    assert all(a.generator_snapshot == b.generator_snapshot for a, b in zip(results, serial))
    # both workers take part (tasks of 0.2 s each: one worker alone cannot drain the queue first)
    ran_on = ParallelMap(lambda _: (time.sleep(0.2), os.getpid())[1], range(8), executor=dask_client, chunk_size=1)
    assert len(set(ran_on)) == 2


def test_killed_worker_loses_and_duplicates_no_sample(dask_client, serial, tmp_path):
    """The first sample to pass t = 0.1 s SIGKILLs its worker process; the nanny restarts it, the scheduler
    reruns the lost chunk elsewhere, and every sample comes back once, with the serial bits."""
    marker = tmp_path / "killed"
    results = MonteCarloSimulation(CartPoleFactory(crash_marker=str(marker)), final_state_norm, FINAL_TIME,
                                   NUM_SAMPLES, RandomGenerator(5), executor=dask_client, chunk_size=2)
    assert marker.exists()
    assert len(results) == NUM_SAMPLES
    assert [r.output for r in results] == [r.output for r in serial]


def test_stopping_early_cancels_the_tasks_left(dask_client):
    """A sweep closed after its first result cancels its chunks still queued or running: the client holds none of
    them afterwards, only finished ones whose release is on its way (unfinished ones would run on)."""
    held_before = set(dask_client.futures)
    results = ParallelMapAsCompleted(time.sleep, [0.0] + [1.0] * 5, executor=dask_client, chunk_size=1)
    assert next(results) == (0, None)
    assert len(set(dask_client.futures) - held_before) >= 2  # chunks in flight
    results.close()
    left = {key: state.status for key, state in dask_client.futures.items() if key not in held_before}
    assert all(status == "finished" for status in left.values()), left
