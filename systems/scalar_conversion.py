"""`pydrake.systems.scalar_conversion.TemplateSystem` for mallard: scalar-templated systems instantiate to their
float class (Linearize uses finite differences, so no AutoDiffXd conversion is needed; asking for another
scalar type is a clear "double precision only" error)."""
from __future__ import annotations

import sys
from typing import Any, Callable

from mallard.common.scalar_template import check_scalar_type, double_only_error
from mallard.systems.framework import LeafSystem, SystemScalarConverter

__all__ = ["TemplateSystem"]


class TemplateSystem:
    """`@TemplateSystem.define("Name_")` on `def Name_(T): class Impl(LeafSystem_[T]): ...; return Impl`.

    The class defines `_construct(self, ..., converter=None)` and `_construct_copy(self, other,
    converter=None)` instead of `__init__` (pydrake's contract, checked at instantiation).
    """

    def __init__(self, name: str, T_list=None, T_pairs=None, scope: str | None = None) -> None:
        self._name = name
        self._scope = scope
        self._T_list = list(T_list) if T_list is not None else [float]
        self._explicit_pairs = None if T_pairs is None else list(T_pairs)
        self._converter = SystemScalarConverter()
        self._instantiate: Callable[[Any], type] | None = None
        self._cls: type | None = None

    @classmethod
    def define(cls, name: str, T_list=None, T_pairs=None, *args, scope=None, **kwargs) -> Callable:
        """Decorator making a template from `instantiate(T) -> class`."""
        if scope is None:
            scope = sys._getframe(1).f_globals.get("__name__")
        template = cls(name, T_list, T_pairs, *args, scope=scope, **kwargs)

        def decorator(instantiate: Callable[[Any], type]) -> "TemplateSystem":
            template._instantiate = instantiate
            return template
        return decorator

    @property
    def _T_pairs(self) -> list:
        """The conversion pairs (T, U); only float exists in mallard, so there are none."""
        if self._explicit_pairs is not None:
            return self._explicit_pairs
        if any(T is not float for T in self._T_list):
            raise double_only_error(f"{self._name} scalar conversion pairs")
        return []

    @property
    def param_list(self) -> list[tuple]:
        return [(float,)]

    def _make_class(self) -> type:
        name = f"{self._name}[float]"
        impl = self._instantiate(float)
        if not (isinstance(impl, type) and issubclass(impl, LeafSystem)):
            raise RuntimeError(f"{name} must inherit from LeafSystem_[float] (mallard's LeafSystem)")
        if "__init__" in impl.__dict__:
            raise RuntimeError(f"{name} defines `__init__`, but should not. Please implement `_construct` and "
                               "`_construct_copy` instead.")
        for method in ("_construct", "_construct_copy"):
            if method not in impl.__dict__:
                raise RuntimeError(f"{name} does not define `{method}`. Please ensure this is defined.")
        template = self

        def __init__(system, *args, converter=None, **kwargs):
            converter = template._converter if converter is None else converter
            if len(args) == 1 and not kwargs and isinstance(args[0], impl):
                impl._construct_copy(system, args[0], converter=converter)
            else:
                impl._construct(system, *args, converter=converter, **kwargs)
        impl.__init__ = __init__
        impl.__name__ = impl.__qualname__ = name
        if self._scope is not None:
            impl.__module__ = self._scope
        return impl

    def __getitem__(self, T: Any) -> type:
        check_scalar_type(self._name, T)
        if self._cls is None:
            self._cls = self._make_class()
        return self._cls

    def get_instantiation(self, param: Any = None) -> tuple[type, tuple]:
        return self[param], (float,)

    def is_instantiation(self, cls: type) -> bool:
        return cls is self._cls

    def is_subclass_of_instantiation(self, cls: type) -> bool:
        return self._cls is not None and isinstance(cls, type) and issubclass(cls, self._cls)

    def __repr__(self) -> str:
        return f"<TemplateSystem {self._scope + '.' if self._scope else ''}{self._name}>"
