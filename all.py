"""`mallard.all`: every public name of mallard in one namespace, as `pydrake.all` does for pydrake.

`from mallard.all import *` brings the systems framework, simulator, primitives, controllers,
trajectories, math, multibody math/tree/plant/parsing, geometry, parsers, planning and visualization into scope.
"""
from __future__ import annotations

import importlib

_SUBPACKAGES = (
    "mallard.common",
    "mallard.common.compatibility",
    "mallard.common.containers",
    "mallard.common.cpp_template",
    "mallard.common.eigen_geometry",
    "mallard.common.value",
    "mallard.common.yaml",
    "mallard.common.schema",
    "mallard.systems.framework",
    "mallard.systems.analysis",
    "mallard.systems.primitives",
    "mallard.systems.controllers",
    "mallard.trajectories",
    "mallard.systems.drawing",
    "mallard.systems.scalar_conversion",
    "mallard.systems.rendering",
    "mallard.math",
    "mallard.multibody.math",
    "mallard.multibody.tree",
    "mallard.multibody.plant",
    "mallard.multibody.parsing",
    "mallard.multibody.contact",
    "mallard.multibody.plugins",
    "mallard.multibody.meshcat",
    "mallard.geometry",
    "mallard.parsers",
    "mallard.planning",
    "mallard.visualization",
)


def _export_all() -> list[str]:
    names: list[str] = []
    namespace = globals()
    for package in _SUBPACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if name in namespace and namespace[name] is not value and name in names:
                raise ImportError(f"mallard.all: {package}.{name} differs from the {name} exported earlier; "
                                  "one public name must mean one object")
            namespace[name] = value
            if name not in names:
                names.append(name)
    return names


__all__ = _export_all()
from mallard.common.find_resource import getDrakePath  # noqa: E402  (pydrake.all's alias from pydrake/__init__)
# pydrake.all's AutoDiffXd (pydrake.autodiffutils): a name whose every use raises mallard's double-only error, so
# `MultibodyPlant_[AutoDiffXd]` in a ported script says why it cannot work (issue #13) instead of a NameError.
from mallard.common.scalar_template import AutoDiffXd  # noqa: E402

__all__ += ["getDrakePath", "AutoDiffXd"]

# pydrake.all's names from modules (or of subjects) outside mallard's scope: each use raises an error naming the
# pydrake module and why mallard lacks it (mallard.common.out_of_scope), where a ported script got a NameError.
from mallard.common.out_of_scope import out_of_scope_names  # noqa: E402


def _bind_out_of_scope_names() -> None:
    namespace = globals()
    for name, marker in out_of_scope_names().items():
        if name not in namespace:  # (the table leaves out what mallard provides; a stale entry never shadows it)
            namespace[name] = marker
            __all__.append(name)


_bind_out_of_scope_names()
