"""The word swap is the whole port: every pydrake module path in scope imports as `mallard.<path>`, and each name
of that pydrake module that mallard provides is reachable there."""
import importlib
import pkgutil

import pytest

from mallard.common.out_of_scope import MODULE_TOPICS
from oracles import require_pydrake

# pydrake module paths whose mallard counterpart lives on the systems side (framework, analysis, primitives,
# controllers, trajectories, common).
PATHS = ["systems", "systems.framework", "systems.analysis", "systems.primitives", "systems.controllers",
         "systems.scalar_conversion", "systems.drawing", "trajectories", "common", "common.value", "common.yaml",
         "common.containers", "examples", "all"]

# Every pydrake module path in scope (issue #13), whether pydrake is installed or not.
IN_SCOPE = ["all", "common", "common.all", "common.compatibility", "common.containers", "common.cpp_template",
            "common.deprecation", "common.eigen_geometry", "common.schema", "common.value", "common.yaml", "examples",
            "geometry", "gym", "math", "multibody", "multibody.all", "multibody.math", "multibody.meshcat",
            "multibody.parsing", "multibody.plant", "multibody.tree", "planning", "systems", "systems.all",
            "systems.analysis", "systems.controllers", "systems.drawing", "systems.framework",
            "systems.planar_scenegraph_visualizer", "systems.primitives", "systems.pyplot_visualizer",
            "systems.rendering", "systems.scalar_conversion", "trajectories", "visualization",
            "visualization.model_visualizer"]
# pydrake packages outside mallard's scope (README, "Porting pydrake code"; mallard.common.out_of_scope, whose
# `import mallard.X` error says why), and pydrake's own tooling (model-file tools, Jupyter widgets, pybind11).
OUT_OF_SCOPE = tuple(m[len("pydrake."):] for m in MODULE_TOPICS) + (
    "multibody.fix_inertia", "multibody.mesh_to_model", "common.jupyter", "common.pybind11_version",
    "multibody.jupyter_widgets", "systems.jupyter_widgets", "tutorials")


@pytest.mark.parametrize("path", IN_SCOPE)
def test_every_in_scope_pydrake_path_imports_under_mallard(path):
    module = importlib.import_module(f"mallard.{path}")
    assert module.__name__ in (f"mallard.{path}", "mallard.multibody.math.math_module")


def test_in_scope_list_is_pydrakes_module_tree_minus_the_out_of_scope_packages():
    """The public module tree of the installed pydrake, less the out-of-scope packages, is IN_SCOPE exactly: a module
    pydrake adds shows up here."""
    pydrake = require_pydrake()
    found = set()
    for info in pkgutil.walk_packages(pydrake.__path__, "pydrake."):
        path = info.name[len("pydrake."):]
        parts = path.split(".")
        if any(p.startswith("_") or p in ("test", "test_utilities") for p in parts):
            continue
        if any(path == o or path.startswith(o + ".") for o in OUT_OF_SCOPE):
            continue
        found.add(path)
    assert found <= set(IN_SCOPE), sorted(found - set(IN_SCOPE))


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
