"""`pydrake.systems.scalar_conversion.TemplateSystem` for mallard: scalar-templated systems instantiate to their
float class (Linearize uses finite differences, so no AutoDiffXd conversion is needed)."""
from __future__ import annotations

from typing import Any, Callable

from mallard.common.scalar_template import check_scalar_type

__all__ = ["TemplateSystem"]


class TemplateSystem:
    """`@TemplateSystem.define("Name_")` on `def Name_(T): class Impl(LeafSystem_[T]): ...; return Impl`."""

    def __init__(self, name: str, instantiate: Callable[[Any], type]) -> None:
        self._name = name
        self._instantiate = instantiate
        self._cls: type | None = None

    @classmethod
    def define(cls, name: str, T_list=None, T_pairs=None, *args, scope=None, **kwargs) -> Callable:
        """Decorator making a template from `instantiate(T) -> class` (the class defines `_construct`)."""
        def decorator(instantiate: Callable[[Any], type]) -> "TemplateSystem":
            return cls(name, instantiate)
        return decorator

    def __getitem__(self, T: Any) -> type:
        check_scalar_type(self._name, T)
        if self._cls is None:
            impl = self._instantiate(float)
            if "__init__" not in impl.__dict__ and hasattr(impl, "_construct"):
                def __init__(system, *args, converter=None, **kwargs):
                    system._construct(*args, converter=converter, **kwargs)
                impl.__init__ = __init__
            impl.__name__ = impl.__qualname__ = f"{self._name}[float]"
            self._cls = impl
        return self._cls

    def get_instantiation(self, param: Any = None) -> tuple[type, tuple]:
        return self[param], (float,)

    def is_instantiation(self, cls: type) -> bool:
        return cls is self._cls

    def __repr__(self) -> str:
        return f"<TemplateSystem {self._name}>"
