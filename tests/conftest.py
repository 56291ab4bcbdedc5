"""Shared test fixtures: where the shared robot models live, and oracle imports that skip clearly; and the second
process that fills numba's cache while a cold whole-suite run starts (see `pytest_sessionstart`)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# `shared/` sits beside the checkout (or beside a folder holding it, e.g. a folder of git worktrees).
SHARED = next((folder / "shared" for folder in REPO.parents if (folder / "shared" / "models").is_dir()),
              REPO.parent / "shared")
MODELS = SHARED / "models"


@pytest.fixture(scope="session")
def models_dir() -> Path:
    """The `../shared/models` folder (CI has shared/ beside the checkout)."""
    if not MODELS.is_dir():
        pytest.skip(f"shared models not found at {MODELS}")
    return MODELS


@pytest.fixture(scope="session")
def dask_client():
    """A dask.distributed Client on a LocalCluster of 2 single-threaded worker processes, shared by the tests
    that scale out (starting one takes seconds)."""
    import logging

    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is a dependency of mallard")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close(timeout=30)


# Numba compiles each kernel on first use and caches it on disk (cache=True). A whole-suite run on a fresh checkout
# (CI) spends most of its time compiling, one kernel after another on one core: the first test that steps a model
# compiles the discrete step (minutes), later tests the batched stepper's parallel kernel, the continuous plant's...
# While the suite starts, a second pytest process runs such later compile-heavy tests on the other core, only to
# fill the cache (its outcome is ignored; the suite runs them again and loads their kernels). Listed in the order the
# suite reaches them; each takes tens of seconds to minutes cold.
WARM_TESTS = [
    "tests/geometry/collision/test_distance_broadphase.py",
    "tests/gym/test_plant_vector_env.py::test_steps_equal_contexts_simulated_one_by_one",
    "tests/multibody/pipeline/test_drake_contact.py::test_continuous_box_drop_matches_pydrake",
]
_warm: list = []


def _cache_is_cold() -> bool:
    """No numba cache index of multibody/ yet (a fresh checkout), beside the sources or under NUMBA_CACHE_DIR."""
    root = Path(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR") else REPO / "multibody"
    return not root.is_dir() or not any(root.rglob("*.nbi"))


def pytest_sessionstart(session) -> None:
    """Starts the cache-filling process for a plain `pytest` (the whole suite) on a cold cache with 2+ cores."""
    if (session.config.args_source != pytest.Config.ArgsSource.TESTPATHS or os.environ.get("MALLARD_WARM_CHILD")
            or (os.cpu_count() or 1) < 2 or not _cache_is_cold()):
        return
    env = dict(os.environ, MALLARD_WARM_CHILD="1")
    _warm.append(subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *WARM_TESTS],
                                  cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))


def pytest_sessionfinish(session, exitstatus) -> None:
    for child in _warm:
        if child.poll() is None:
            child.kill()
        child.wait()
