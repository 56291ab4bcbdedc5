"""RandomGenerator (std::mt19937 as pydrake's) and Parallelism, against pydrake where it is installed."""
from __future__ import annotations

import copy
import os
import pickle

import numpy as np
import pytest

from mallard.common import Parallelism, RandomGenerator
from oracles import require_pydrake


@pytest.mark.parametrize("seed", [None, 0, 1, 42, 2**31 + 7, 2**32 - 1, 2**32 + 5, 2**64 - 1])
def test_raw_draws_match_pydrake(seed):
    require_pydrake()
    from pydrake import common
    ours = RandomGenerator() if seed is None else RandomGenerator(seed)
    theirs = common.RandomGenerator() if seed is None else common.RandomGenerator(seed)
    assert [ours() for _ in range(700)] == [theirs() for _ in range(700)]  # past one 624-word twist


def test_default_seed_is_mt19937s():
    # std::mt19937 with its default seed 5489: the 10000th draw is 4123659995 (C++11 [rand.predef])
    generator = RandomGenerator()
    for _ in range(9999):
        generator()
    assert generator() == 4123659995


def test_copies_and_pickles_replay_the_same_draws():
    generator = RandomGenerator(7)
    generator.standard_normal(3)
    for replicate in (copy.copy, copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))):
        replica = replicate(generator)
        assert type(replica) is RandomGenerator and replica == generator
        assert [replica() for _ in range(5)] == [generator() for _ in range(5)]
        np.testing.assert_array_equal(replica.uniform(size=4), generator.uniform(size=4))
    assert RandomGenerator(7) != generator


def test_numpy_distributions_draw_from_the_same_stream():
    """numpy-style draws consume the engine's raw words: a uniform double is two words (53 bits)."""
    a, b = RandomGenerator(3), RandomGenerator(3)
    a.random()
    b(), b()
    assert a() == b()
    assert a.integers(0, 10, size=5).shape == (5,)


def test_bad_seeds_are_rejected_as_pydrake():
    with pytest.raises(TypeError, match="integer"):
        RandomGenerator(1.5)
    with pytest.raises(TypeError, match=r"\[0, 2\*\*64\)"):
        RandomGenerator(-1)


def test_parallelism_as_pydrake(monkeypatch):
    require_pydrake()
    from pydrake import common
    # True is the hardware concurrency lowered by DRAKE_NUM_THREADS / OMP_NUM_THREADS, which pydrake reads once and
    # other libraries set during a test run (dask sets OMP_NUM_THREADS): compared while neither is set
    unset = not any(os.environ.get(n) for n in ("DRAKE_NUM_THREADS", "OMP_NUM_THREADS"))
    for arg in (False, True, 1, 3) if unset else (False, 1, 3):
        assert Parallelism(arg).num_threads() == common.Parallelism(arg).num_threads()
    assert Parallelism().num_threads() == 1 and repr(Parallelism(3)) == "Parallelism(num_threads=3)"
    monkeypatch.setenv("DRAKE_NUM_THREADS", "1")
    assert Parallelism.Max().num_threads() == 1
    with pytest.raises(ValueError, match=">= 1"):
        Parallelism(0)
