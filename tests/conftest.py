"""Shared test fixtures: where the shared robot models live, and oracle imports that skip clearly."""
from __future__ import annotations

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
