"""Import helpers for the reference engines, which are test oracles only (the `dev` extra)."""
from __future__ import annotations

import pytest


def require_pydrake():
    """Return the pydrake module, or skip the calling test with a clear reason."""
    return pytest.importorskip("pydrake", reason="drake is not installed: pip install -e '.[dev]' provides the pydrake oracle")


def require_mujoco():
    """Return the mujoco module, or skip the calling test with a clear reason."""
    return pytest.importorskip("mujoco", reason="mujoco is not installed: pip install -e '.[dev]' provides the MuJoCo oracle")
