"""Type-erased values for abstract ports, abstract state and abstract parameters (pydrake.common.value)."""
from __future__ import annotations

import copy
from typing import Any

__all__ = ["AbstractValue", "Value"]


class AbstractValue:
    """A type-erased holder of one Python object; `Value` is the concrete holder."""

    __slots__ = ()

    @staticmethod
    def Make(value: Any) -> "Value":
        """Wraps `value` in a `Value` (an AbstractValue passes through unchanged)."""
        if isinstance(value, AbstractValue):
            return value  # type: ignore[return-value]
        return Value(value)

    def get_value(self) -> Any:  # pragma: no cover - overridden
        raise TypeError("AbstractValue is abstract; use Value(obj) or AbstractValue.Make(obj)")

    def get_mutable_value(self) -> Any:  # pragma: no cover - overridden
        raise TypeError("AbstractValue is abstract; use Value(obj) or AbstractValue.Make(obj)")

    def set_value(self, value: Any) -> None:  # pragma: no cover - overridden
        raise TypeError("AbstractValue is abstract; use Value(obj) or AbstractValue.Make(obj)")


def _clone_object(obj: Any) -> Any:
    """Deep copy when possible (pydrake copies values into contexts); shallow copy otherwise."""
    try:
        return copy.deepcopy(obj)
    except Exception:  # objects holding locks, sockets, ... are shared rather than copied
        try:
            return copy.copy(obj)
        except Exception:
            return obj


class Value(AbstractValue):
    """Holds one Python object. `Value[T](obj)` is accepted as in pydrake (the type argument is informative)."""

    __slots__ = ("_value",)

    def __class_getitem__(cls, item: Any) -> type:
        return cls

    def __init__(self, value: Any = None) -> None:
        self._value = value

    def get_value(self) -> Any:
        return self._value

    def get_mutable_value(self) -> Any:
        return self._value

    def set_value(self, value: Any) -> None:
        self._value = value

    def Clone(self) -> "Value":
        """A new Value holding a deep copy of the object."""
        return Value(_clone_object(self._value))

    def SetFrom(self, other: AbstractValue) -> None:
        """Copies the object held by `other` into this value."""
        self._value = _clone_object(other.get_value())

    def __getstate__(self):
        return {"_value": self._value}

    def __setstate__(self, state):
        self._value = state["_value"]

    def __repr__(self) -> str:
        return f"Value({self._value!r})"
