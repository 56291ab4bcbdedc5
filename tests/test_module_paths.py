"""The word swap is the whole port: every pydrake module path of the systems side imports as `mallard.<path>`,
and each name of that pydrake module that mallard provides is reachable there."""
import importlib

import pytest

from oracles import require_pydrake

# pydrake module paths whose mallard counterpart lives on the systems side (framework, analysis, primitives,
# controllers, trajectories, common).
PATHS = ["systems", "systems.framework", "systems.analysis", "systems.primitives", "systems.controllers",
         "systems.scalar_conversion", "systems.drawing", "trajectories", "common", "common.value", "common.yaml",
         "common.containers", "examples", "all"]


@pytest.mark.parametrize("path", PATHS)
def test_pydrake_path_imports_under_mallard(path):
    module = importlib.import_module(f"mallard.{path}")
    assert module.__name__ == f"mallard.{path}"


@pytest.mark.parametrize("path", ["systems.framework", "systems.primitives", "trajectories", "common.value"])
def test_names_are_the_same_objects_as_at_the_code_location(path):
    """The alias paths hand out the implementation objects, not copies (isinstance and identity hold)."""
    require_pydrake()
    pydrake_module = importlib.import_module(f"pydrake.{path}")
    module = importlib.import_module(f"mallard.{path}")
    shared = [n for n in dir(pydrake_module) if not n.startswith("_") and hasattr(module, n)]
    assert len(shared) >= 2
    if path == "trajectories":
        import mallard.systems.trajectories as code
        assert all(getattr(module, n) is getattr(code, n) for n in shared if hasattr(code, n))
    if path == "common.value":
        import mallard.systems.framework as code
        assert module.Value is code.Value and module.AbstractValue is code.AbstractValue
