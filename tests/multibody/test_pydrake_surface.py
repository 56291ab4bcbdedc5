"""Every public name and every overload's keyword names of pydrake's math, eigen_geometry and multibody modules
(read from pydrake's docstrings by tests/pydrake_surface.py) exist in mallard and bind to mallard's signatures.

The System API that these classes inherit (LeafSystem's Declare*, ...) belongs to mallard.systems and is checked
there. What mallard leaves out on purpose is listed below with the reason; anything else missing fails.
"""
from __future__ import annotations

import importlib

import pytest

from oracles import require_pydrake
from pydrake_surface import binds, surface

MODULES = ["pydrake.math", "pydrake.common.eigen_geometry", "pydrake.multibody.math", "pydrake.multibody.tree",
           "pydrake.multibody.plant", "pydrake.multibody.parsing"]

DEFORMABLES = "deformable bodies are out of scope (issue 13)"
HYDROELASTIC = "hydroelastic contact is its own issue"
LCM = "LCM and Drake Visualizer messages are out of scope (issue 13)"
LEFT_OUT = {
    "pydrake.multibody.tree.DeformableBody": DEFORMABLES,
    "pydrake.multibody.tree.DeformableBodyId": DEFORMABLES,
    "pydrake.multibody.tree.DeformableBodyIndex": DEFORMABLES,
    "pydrake.multibody.plant.DeformableContactInfo": DEFORMABLES,
    "pydrake.multibody.plant.DeformableContactInfo_": DEFORMABLES,
    "pydrake.multibody.plant.DeformableModel": DEFORMABLES,
    "pydrake.multibody.plant.PhysicalModel": DEFORMABLES,
    "pydrake.multibody.plant.MultibodyPlant.deformable_model": DEFORMABLES,
    "pydrake.multibody.plant.MultibodyPlant.mutable_deformable_model": DEFORMABLES,
    "pydrake.multibody.plant.ContactResults.deformable_contact_info": DEFORMABLES,
    "pydrake.multibody.plant.ContactResults.num_deformable_contacts": DEFORMABLES,
    "pydrake.multibody.plant.HydroelasticContactInfo": HYDROELASTIC,
    "pydrake.multibody.plant.HydroelasticContactInfo_": HYDROELASTIC,
    "pydrake.multibody.plant.ContactResultsToLcmSystem": LCM,
    "pydrake.multibody.plant.ConnectContactResultsToDrakeVisualizer": LCM,
}


def _left_out(path: str) -> bool:
    return path in LEFT_OUT or any(path.startswith(p + ".") for p in LEFT_OUT)


@pytest.mark.parametrize("module_name", MODULES)
def test_mallard_has_pydrakes_names_and_keywords(module_name):
    require_pydrake()
    mallard_module = importlib.import_module("mallard" + module_name[len("pydrake"):])
    names, overloads = surface(module_name, skip_inherited_from=("pydrake.systems",))
    assert names, f"no public names read from {module_name}"
    missing = [f"{module_name}.{n}" for n in names
               if not hasattr(mallard_module, n) and not _left_out(f"{module_name}.{n}")]
    rejected = []
    for o in overloads:
        owner = mallard_module if o.owner is None else getattr(mallard_module, o.owner, None)
        path = f"{module_name}.{o.owner}.{o.member}" if o.owner else f"{module_name}.{o.member}"
        if owner is None or _left_out(path):
            continue
        target = getattr(owner, o.member, None)
        if target is None:
            missing.append(path)
        elif not binds(o, target):
            rejected.append(str(o))
    assert not missing, f"mallard lacks {sorted(set(missing))}"
    assert not rejected, f"mallard rejects pydrake's calls {rejected}"


def test_left_out_names_exist_in_pydrake():
    """The exclusion list only names pydrake APIs that exist (so it cannot hide a typo)."""
    require_pydrake()
    for path in LEFT_OUT:
        module_name = next(m for m in sorted(MODULES, key=len, reverse=True) if path.startswith(m + "."))
        obj = importlib.import_module(module_name)
        for part in path[len(module_name) + 1:].split("."):
            assert hasattr(obj, part), f"{path} is not in pydrake"
            obj = getattr(obj, part)
