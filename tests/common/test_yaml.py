"""mallard.common.yaml loads and dumps as pydrake.common.yaml: the same data, the same errors, the same text."""
# (no `from __future__ import annotations`: pydrake reads dataclass field types as given, not as strings)

import dataclasses
import importlib
import typing

import numpy as np
import pytest

from mallard.common import yaml as ours
from oracles import require_pydrake


@dataclasses.dataclass
class Inner:
    a: float = 1.0
    b: list[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Other:
    z: str = "q"


@dataclasses.dataclass
class Scenario:
    x: float = 0.0
    s: str = "hi"
    inner: Inner = dataclasses.field(default_factory=Inner)
    opt: typing.Optional[Inner] = None
    m: dict[str, float] = dataclasses.field(default_factory=lambda: {"k": 1.0})
    u: typing.Union[Inner, Other] = dataclasses.field(default_factory=Inner)
    v: typing.Union[str, int, float] = "a"
    arr: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(2))


DOC = "x: 3\ninner: {b: [1, 2]}\nopt: {a: 5}\nm: {j: 2}\nu: !Other {z: w}\nv: 4\narr: [1, 2, 3]\n_anchor: 1\n"


def _theirs():
    require_pydrake()
    return importlib.import_module("pydrake.common.yaml")


def test_untyped_load_and_dump_match_pydrake():
    theirs = _theirs()
    for private in (False, True):
        assert ours.yaml_load(data=DOC, private=private) == theirs.yaml_load(data=DOC, private=private)
    data = {"a": [1.0, 2.0], "b": {"c": 1, "_tag": "!T"}, "d": [{"e": None}]}
    assert ours.yaml_dump(data) == theirs.yaml_dump(data)
    assert ours.yaml_load(data=ours.yaml_dump(data), private=True) == data


def test_typed_load_merges_as_pydrake():
    theirs = _theirs()
    mine, drake = (m.yaml_load_typed(schema=Scenario, data=DOC) for m in (ours, theirs))
    assert repr(mine.arr) == repr(drake.arr)
    assert dataclasses.replace(mine, arr=None) == dataclasses.replace(drake, arr=None)
    assert mine.m == {"k": 1.0, "j": 2.0} and mine.u == Other(z="w") and mine.v == 4
    assert ours.yaml_load_typed(schema=Scenario, data=DOC, retain_map_defaults=False).m == {"j": 2.0}


@pytest.mark.parametrize("doc", ["y: 1", "x: [1]", "u: !Nope {}", "x: foo"])
def test_typed_load_rejects_what_pydrake_rejects(doc):
    theirs = _theirs()
    with pytest.raises(Exception) as drake_error:
        theirs.yaml_load_typed(schema=Scenario, data=doc)
    with pytest.raises(type(drake_error.value)) as error:
        ours.yaml_load_typed(schema=Scenario, data=doc)
    assert str(error.value) == str(drake_error.value)


def test_typed_dump_writes_pydrake_text():
    theirs = _theirs()
    value = ours.yaml_load_typed(schema=Scenario, data=DOC)
    for kwargs in ({}, {"defaults": Scenario()}, {"child_name": "root"}):
        assert ours.yaml_dump_typed(value, **kwargs) == theirs.yaml_dump_typed(value, **kwargs)
    for v in (3, 2.5, "x"):
        assert ours.yaml_dump_typed(Scenario(v=v)) == theirs.yaml_dump_typed(Scenario(v=v))
    assert ours.yaml_load_typed(schema=Scenario, data=ours.yaml_dump_typed(value)).u == value.u


def test_exactly_one_source():
    with pytest.raises(RuntimeError, match="Exactly one of"):
        ours.yaml_load(data="a: 1", filename="x.yaml")
    with pytest.raises(RuntimeError, match="Exactly one of"):
        ours.yaml_load()
