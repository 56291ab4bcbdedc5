"""Namespaces that give the same names for mallard and pydrake, so one diagram-building function runs on both."""
from __future__ import annotations

import types

import pytest

from oracles import require_pydrake


def _mallard_ns():
    import mallard.systems.analysis as analysis
    import mallard.systems.framework as framework
    import mallard.systems.primitives as primitives
    import mallard.systems.trajectories as trajectories
    ns = types.SimpleNamespace()
    for mod in (framework, analysis, primitives, trajectories):
        for name in getattr(mod, "__all__", dir(mod)):
            setattr(ns, name, getattr(mod, name))
    ns.name = "mallard"
    return ns


def _drake_ns():
    require_pydrake()
    import pydrake.common as common
    import pydrake.common.value as value
    import pydrake.systems.analysis as analysis
    import pydrake.systems.framework as framework
    import pydrake.systems.primitives as primitives
    import pydrake.trajectories as trajectories
    ns = types.SimpleNamespace()
    for mod in (framework, analysis, primitives, trajectories, value):
        for name in dir(mod):
            if not name.startswith("_"):
                setattr(ns, name, getattr(mod, name))
    ns.RandomDistribution = common.RandomDistribution
    ns.name = "pydrake"
    return ns


@pytest.fixture(scope="session")
def mallard_ns():
    return _mallard_ns()


@pytest.fixture(scope="session")
def drake_ns():
    return _drake_ns()


@pytest.fixture(scope="session")
def both(mallard_ns, drake_ns):
    """(mallard namespace, pydrake namespace)."""
    return mallard_ns, drake_ns
