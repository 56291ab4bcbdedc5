"""pydrake names and modules outside mallard's scope, refused with a clear error instead of a NameError.

mallard mirrors pydrake's systems, multibody, geometry, math, trajectories and visualization in double precision.
A ported script that reaches into the rest of pydrake (solvers, symbolic scalars, LCM, rendering, ...) should
learn at once that mallard does not provide it and why, not guess at a typo: `from mallard.all import *` binds
each such name of `pydrake.all` to an `OutOfScopeName` whose every use raises `OutOfScopeError` (naming the pydrake
module and the topic), and `import mallard.solvers` raises a ModuleNotFoundError that says the same.
"""
from __future__ import annotations

from typing import Any, NoReturn

from .pydrake_out_of_scope_names import OUT_OF_SCOPE_NAMES

__all__ = ["MODULE_TOPICS", "OutOfScopeError", "OutOfScopeModuleFinder", "OutOfScopeName", "TOPICS", "module_topic",
           "out_of_scope_names"]

# What each out-of-scope topic is, as the errors say it.
TOPICS = {
    "scalars": "AutoDiffXd and symbolic scalars (mallard computes in double precision only; Linearize and LQR work "
               "by finite differences)",
    "solvers": "mathematical programs, solvers and optimization-based planning",
    "lcm": "LCM messaging (DrakeVisualizer, Meldis, LCM systems; mallard visualizes with Meshcat)",
    "rendering": "rendering engines, cameras, sensors and point clouds",
    "deformable": "deformable bodies",
    "manipulation": "Drake's manipulation drivers, examples and benchmark models",
    "estimators": "state estimators",
    "contact_solvers": "Drake's internal contact solver and CENIC integrator parameters",
    "cpp": "Drake's C++ runtime and template-parameter helpers",
}

# pydrake modules outside mallard's scope (a module's sub-modules too), by topic.
MODULE_TOPICS = {
    "pydrake.autodiffutils": "scalars", "pydrake.forwarddiff": "scalars", "pydrake.symbolic": "scalars",
    "pydrake.polynomial": "scalars",
    "pydrake.lcm": "lcm", "pydrake.systems.lcm": "lcm", "pydrake.visualization._meldis": "lcm",
    "pydrake.visualization.meldis": "lcm", "pydrake.visualization.lcm_image_array_viewer": "lcm",
    "pydrake.systems.sensors": "rendering", "pydrake.systems.perception": "rendering",
    "pydrake.perception": "rendering",
    "pydrake.multibody.fem": "deformable",
    "pydrake.solvers": "solvers", "pydrake.planning": "solvers", "pydrake.geometry.optimization": "solvers",
    "pydrake.multibody.inverse_kinematics": "solvers", "pydrake.multibody.optimization": "solvers",
    "pydrake.multibody.rational": "solvers",
    "pydrake.examples": "manipulation", "pydrake.manipulation": "manipulation",
    "pydrake.multibody.benchmarks": "manipulation",
    "pydrake.systems.estimators": "estimators",
    "pydrake.multibody.contact_solvers": "contact_solvers", "pydrake.multibody.cenic": "contact_solvers",
    "pydrake.common.cpp_param": "cpp",
}


class OutOfScopeError(NotImplementedError):
    """A use of a pydrake name or module that mallard does not provide (see mallard.common.out_of_scope)."""


def _message(module: str, name: str | None, topic: str) -> str:
    what = f"{module}.{name}" if name else module
    return (f"{what} is not provided by mallard: {TOPICS[topic]} are outside its scope. mallard mirrors pydrake's "
            f"systems, multibody, geometry, math, trajectories and visualization (see the README, 'Porting pydrake "
            f"code')")


class OutOfScopeName:
    """Stands for the pydrake name `module.name`: calling it, indexing it (`Foo_[float]`), subclassing it or reading
    a public attribute raises OutOfScopeError (an attribute read: AttributeError with the same message), so nothing
    can hold a value made from it."""

    __slots__ = ("_module", "_name", "_topic")

    def __init__(self, module: str, name: str, topic: str) -> None:
        object.__setattr__(self, "_module", module)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_topic", topic)

    def _refuse(self) -> NoReturn:
        raise OutOfScopeError(_message(self._module, self._name, self._topic))

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def __getitem__(self, key: Any) -> NoReturn:
        self._refuse()

    def __mro_entries__(self, bases: tuple) -> NoReturn:
        self._refuse()

    def __getattr__(self, attribute: str) -> NoReturn:
        raise AttributeError(_message(self._module, self._name, self._topic)
                             if not attribute.startswith("_") else attribute)

    def __setattr__(self, attribute: str, value: Any) -> NoReturn:
        self._refuse()

    def __reduce__(self) -> tuple:
        return OutOfScopeName, (self._module, self._name, self._topic)

    def __repr__(self) -> str:
        return f"<{self._module}.{self._name}: not provided by mallard ({self._topic})>"


def out_of_scope_names() -> dict[str, OutOfScopeName]:
    """{name: OutOfScopeName} for every name of `pydrake.all` whose module or topic is outside mallard's scope."""
    return {name: OutOfScopeName(module, name, topic)
            for (module, topic), names in OUT_OF_SCOPE_NAMES.items() for name in names}


def module_topic(fullname: str) -> str | None:
    """The topic of pydrake module `fullname` (a `pydrake.` path) when it is outside mallard's scope, else None."""
    for module, topic in MODULE_TOPICS.items():
        if fullname == module or fullname.startswith(module + "."):
            return topic
    return None


class OutOfScopeModuleFinder:
    """The last finder of sys.meta_path: a `mallard.X` module that nothing else found and whose `pydrake.X` is
    outside mallard's scope raises a ModuleNotFoundError saying so (an `except ImportError` still catches it)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if not fullname.startswith("mallard."):
            return None
        topic = module_topic("pydrake" + fullname[len("mallard"):])
        if topic is not None:
            raise ModuleNotFoundError(_message("pydrake" + fullname[len("mallard"):], None, topic), name=fullname)
        return None

    def invalidate_caches(self) -> None:
        pass

