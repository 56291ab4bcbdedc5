"""Fuzz: mutated URDF, SDFormat and MJCF files from the shared models, loaded into a plant, finalized and stepped
once, end as a clean load with a finite model or as a located error — never another exception type, an error
without a place, a non-finite model or a hang (tests/fuzz/model_mutations.py generates and classifies; the long run
is tests/fuzz/run_fuzz.py)."""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import MODELS
from fuzz.model_mutations import BAD, GOOD, Case, bases, located_parse_error, random_case, run_case

from mallard.parsers import ParseError

_POOL: list = []
_FOLDER = tempfile.TemporaryDirectory(prefix="mallard-fuzz-")
_PACKAGE_XML = MODELS / "drake_models" / "package.xml"


def _pool() -> list:
    if not _POOL:
        if not MODELS.is_dir():
            pytest.skip(f"shared models not found at {MODELS}")
        _POOL.extend(bases(MODELS, include_slow=False))
    return _POOL


def test_every_base_model_loads_and_steps() -> None:
    """The unmutated bases load cleanly (so a forbidden outcome below comes from the mutation), which also
    compiles the kernels before the timed cases."""
    for base in _pool():
        for h in (0.0, 0.001):
            outcome = run_case(Case(base, [], h), Path(_FOLDER.name), _PACKAGE_XML, limit_s=600.0)
            assert outcome.kind == "loaded", (base.path.name, h, outcome.detail)


@settings(max_examples=600, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(rng=st.randoms(use_true_random=False))
def test_mutated_models_load_or_fail_with_a_located_error(rng: random.Random) -> None:
    case = random_case(rng, _pool())
    outcome = run_case(case, Path(_FOLDER.name), _PACKAGE_XML, limit_s=60.0)
    assert outcome.kind in GOOD, f"{outcome.kind}: {case.describe()}\n{outcome.detail}"
    assert outcome.kind not in BAD


def test_classification_rejects_unlocated_errors() -> None:
    """The classifier itself: a ParseError needs this file, a line and an element (or says empty/binary)."""
    assert located_parse_error(ParseError("bad", "/m.urdf", 3, "joint"), "/m.urdf")
    assert located_parse_error(ParseError("the file is empty", "/m.urdf", None, None), "/m.urdf")
    assert not located_parse_error(ParseError("bad", "/m.urdf", None, None), "/m.urdf")
    assert not located_parse_error(ParseError("bad", "/other.urdf", 3, "joint"), "/m.urdf")
