"""Shared test fixtures: where the shared robot models live, and oracle imports that skip clearly."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
MODELS = SHARED / "models"


@pytest.fixture(scope="session")
def models_dir() -> Path:
    """The `../shared/models` folder (CI has shared/ beside the checkout)."""
    if not MODELS.is_dir():
        pytest.skip(f"shared models not found at {MODELS}")
    return MODELS
