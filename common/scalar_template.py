"""pydrake's scalar-type template names (`LeafSystem_[T]`, `MultibodyPlant_[T]`, `RigidTransform_[T]`, ...) for double-precision mallard.

pydrake scripts write systems as templates so they can be converted to AutoDiffXd for linearization; mallard
linearizes any system by finite differences, so every template instantiates to the one float class and asking
for another scalar type is a clear error rather than an AttributeError.
"""
from __future__ import annotations

import copy
import sys
from typing import Any, Iterable

from .cpp_template import TemplateClass

__all__ = ["AutoDiffXd", "ScalarCast", "ScalarTemplate", "check_scalar_type", "define_scalar_templates",
           "double_only_error", "pretty_class_name"]


def double_only_error(what: str) -> TypeError:
    """The error for any request of a non-double scalar type (`what` names the request)."""
    return TypeError(f"{what}: mallard computes in double precision only. Linearize, FirstOrderTaylorApproximation "
                     "and LinearQuadraticRegulator work on float systems by finite differences, so no AutoDiffXd or "
                     "symbolic instantiation or conversion is needed")


class AutoDiffXd:
    """pydrake's automatic-differentiation scalar, by name only: mallard has none (it differentiates by finite
    differences), so that a ported `Foo_[AutoDiffXd]` or `AutoDiffXd(...)` reaches the double-only error (issue
    #13) rather than a NameError. It cannot be constructed or subclassed, so nothing can hold one."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "AutoDiffXd":
        raise double_only_error("AutoDiffXd(...)")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise double_only_error(f"class {cls.__name__}(AutoDiffXd)")


def check_scalar_type(name: str, T: Any) -> None:
    """Accepts float / None (the default scalar); anything else raises TypeError explaining why."""
    if T is None or T is float:
        return
    raise double_only_error(f"{name}[{getattr(T, '__name__', T)}]")


class ScalarTemplate(TemplateClass):
    """`Name_[T]` → the float class `cls` (also `Name_[None]`, the default instantiation, as in pydrake); any other
    scalar type raises the double-only error."""

    def __init__(self, name: str, cls: type) -> None:
        super().__init__(name, scope=sys.modules.get(cls.__module__), on_demand=self._refuse)
        self.add_instantiation((float,), cls, skip_rename=True)

    def _refuse(self, param: tuple) -> type:
        raise double_only_error(self._instantiation_name(param))

    def __str__(self) -> str:
        return f"<TemplateClass {self._full_name()}>"

    __repr__ = __str__


def define_scalar_templates(namespace: dict, names: Iterable[str]) -> list[str]:
    """Adds `Name_ = ScalarTemplate("Name_", Name)` to `namespace` for each class name; returns the new names."""
    added = []
    for name in names:
        template = f"{name}_"
        namespace[template] = ScalarTemplate(template, namespace[name])
        added.append(template)
    return added


def pretty_class_name(cls: type, *, use_qualname: bool = False) -> str:
    """The class name for display (`Value[str]`, `PassThrough`); `use_qualname` gives the qualified name."""
    return cls.__qualname__ if use_qualname else cls.__name__


class ScalarCast:
    """pydrake's `obj.cast[T]()` on a value type: `cast[float]()` is a copy; other scalar types raise."""

    def __get__(self, obj, cls):
        return _BoundCast(obj, cls)


class _BoundCast:
    def __init__(self, obj: Any, cls: type) -> None:
        self._obj, self._cls = obj, cls

    def __getitem__(self, T: Any):
        check_scalar_type(f"{self._cls.__name__}.cast", T)
        return lambda: copy.copy(self._obj)
