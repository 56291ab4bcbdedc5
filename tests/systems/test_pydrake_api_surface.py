"""mallard's systems-side modules offer pydrake's names and accept pydrake's keyword names.

The list comes from the installed pydrake itself (every public class, function and method of the modules below,
with the keyword names of every overload read from pybind11's docstrings), so it follows the drake version
instead of a hand-kept copy. Names mallard deliberately does not provide are listed with the reason.
"""
import importlib

import pytest

from mallard.common.cpp_template import TemplateBase
from oracles import require_pydrake
from pydrake_signatures import missing_keywords, public_members, pydrake_overloads

# pydrake module -> mallard module (the word swap).
MODULES = ["systems.framework", "systems.analysis", "systems.primitives", "systems.controllers", "systems.drawing",
           "trajectories", "common.value", "common.containers", "systems.scalar_conversion"]

# pydrake's abstract bases whose methods every concrete object has: check them on a concrete mallard class.
CONCRETE = {"SystemBase": "LeafSystem", "System": "LeafSystem", "ContextBase": "LeafContext",
            "AbstractValue": "Value"}

# Names mallard does not provide, with why.
NOT_MIRRORED = {
    "systems.framework.System.DeclareInputPort": "declared on LeafSystem (DeclareInputPort / DeclareVectorInputPort)",
    "systems.analysis.RegionOfAttraction": "symbolic (sums-of-squares on Expression): double-only mallard",
    "systems.analysis.RegionOfAttractionOptions": "symbolic (sums-of-squares on Expression): double-only mallard",
    "systems.primitives.SymbolicVectorSystem": "symbolic dynamics (Expression): double-only mallard",
    "systems.controllers.FittedValueIteration": "needs mallard.math.BarycentricMesh (the math module's work)",
}


def _mallard_module(name: str):
    return importlib.import_module(f"mallard.{name}")


def _resolve(module, qualname: str):
    """mallard's object for a pydrake qualified name (abstract bases checked on a concrete class)."""
    parts = qualname.split(".")
    obj = module
    for i, part in enumerate(parts):
        if i == 0 and len(parts) > 1 and part in CONCRETE and hasattr(module, CONCRETE[part]):
            part = CONCRETE[part]
        obj = getattr(obj, part, None)
        if obj is None:
            return None
        if i == 0 and isinstance(obj, TemplateBase) and len(parts) > 1:  # a template's members: its default class
            obj = obj[None]
    return obj


def _excluded(module_name: str, qualname: str) -> bool:
    full = f"{module_name}.{qualname}"
    return any(full == key or full.startswith(key + ".") for key in NOT_MIRRORED)


def _members(module_name: str):
    pydrake = pytest.importorskip(f"pydrake.{module_name}", reason="pydrake (the oracle) is not installed")
    return list(public_members(pydrake))


@pytest.mark.parametrize("module_name", MODULES)
def test_every_pydrake_name_exists(module_name):
    require_pydrake()
    mallard = _mallard_module(module_name)
    missing = [q for q, _obj, _owner in _members(module_name)
               if not _excluded(module_name, q) and _resolve(mallard, q) is None]
    assert not missing, f"mallard.{module_name} lacks pydrake's {missing}"


@pytest.mark.parametrize("module_name", MODULES)
def test_pydrake_keyword_names_are_accepted(module_name):
    require_pydrake()
    mallard = _mallard_module(module_name)
    rejected = []
    for qualname, obj, _owner in _members(module_name):
        ours = None if _excluded(module_name, qualname) else _resolve(mallard, qualname)
        if ours is None:
            continue
        for names in pydrake_overloads(obj, qualname.split(".")[-1]):
            missing = missing_keywords(ours, names)
            if missing:
                rejected.append(f"{qualname}({', '.join(names)}): {missing}")
    assert not rejected, "mallard rejects pydrake keyword names:\n" + "\n".join(rejected)


def test_the_signature_reader_sees_overloads():
    """The docstring reader finds every overload's keywords (guards the two tests above against reading nothing)."""
    require_pydrake()
    framework = pytest.importorskip("pydrake.systems.framework")
    overloads = pydrake_overloads(framework.LeafSystem.DeclareContinuousState, "DeclareContinuousState")
    assert ["num_state_variables"] in overloads and ["num_q", "num_v", "num_z"] in overloads
    assert missing_keywords(lambda a, b: None, ["a", "c"]) == ["c"]
