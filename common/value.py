"""Type-erased values for abstract ports, abstract state and abstract parameters (pydrake.common.value).

As in pydrake, `Value` is a template over the held type: `Value[str]`, `Value[float]`, `Value[BasicVector]`,
`Value[object]`. `Value(x)` infers the instantiation (str, bool and float, and mallard's own classes, get their
own; anything else is `Value[object]`), `Value[T]()` holds a default T, and a typed value refuses to hold an
object of another type. str / bool / float / int are held by value: they have no mutable reference.
"""
from __future__ import annotations

import copy
import sys
from typing import Any

from .cpp_template import TemplateClass

__all__ = ["AbstractValue", "Value"]

# Types pydrake converts to and from C++ by value: a Value of one cannot hand out a mutable reference.
_CONVERSION_TYPES = (str, bool, float, int)
_DEFAULTS = {str: "", bool: False, float: 0.0, int: 0, object: None}


class AbstractValue:
    """A type-erased holder of one Python object; `Value[T]` is the concrete holder."""

    __slots__ = ()

    @staticmethod
    def Make(value: Any) -> "Value":
        """Wraps `value` in a `Value` of its inferred type (an AbstractValue passes through unchanged)."""
        if isinstance(value, AbstractValue):
            return value  # type: ignore[return-value]
        return Value(value)

    def get_value(self) -> Any:
        raise TypeError("AbstractValue is abstract; use Value(obj) or AbstractValue.Make(obj)")

    def get_mutable_value(self) -> Any:
        raise TypeError("AbstractValue is abstract; use Value(obj) or AbstractValue.Make(obj)")

    def set_value(self, value: Any) -> None:
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


def _inferred_type(value: Any) -> type:
    """The Value instantiation pydrake would pick for `value`."""
    t = type(value)
    if t is bool or t is str:
        return t
    if isinstance(value, float):
        return float
    for base in t.__mro__[:-1]:  # a user subclass of a mallard class is held as that class (pydrake's C++ type)
        if base.__module__.split(".", 1)[0] == "mallard":
            return base
    return object


def _instantiate(T: Any, value: Any) -> "_ValueBase":
    """Unpickling helper: `Value[T]` holding `value`."""
    cls = Value[T]
    v = cls.__new__(cls)
    v._value = value
    return v


def _make_instantiation(param: tuple) -> type:
    """The class `Value[T]` (made the first time T is asked for: mallard has no registry of value types)."""
    if len(param) != 1:
        raise RuntimeError(f"Invalid instantiation: Value takes one type, got {len(param)}")
    return type("Value", (_ValueBase,), {"__slots__": (), "_T": param[0]})


def _deduce(*args, **kwargs) -> Any:
    """The T of `Value(obj)`: obj's type as pydrake infers it."""
    if not args:
        raise TypeError("Value() needs a value to infer its type; use Value[T]() for a default T")
    return _inferred_type(args[0])


Value = TemplateClass("Value", scope=sys.modules[__name__], on_demand=_make_instantiation, deduce=_deduce)


class _ValueBase(AbstractValue):
    """What every `Value[T]` is: holds one Python object of type T."""

    __slots__ = ("_value",)
    _T: Any = None

    def __init__(self, *args) -> None:
        T = self._T
        if not args:
            if T in _DEFAULTS:
                self._value = _DEFAULTS[T]
                return
            try:
                self._value = T()
            except TypeError as e:
                raise TypeError(f"{type(self).__name__}(): {T.__name__} has no default constructor; "
                                f"give a value ({e})") from None
            return
        value = args[0]
        if len(args) == 1 and (T is object or isinstance(value, T) or T in _CONVERSION_TYPES):
            self._value = self._checked(value)
            return
        try:  # pydrake's emplace constructor: Value[T](args...) holds T(args...)
            self._value = T(*args)
        except TypeError as e:
            raise TypeError(f"{type(self).__name__}: cannot hold {type(value).__name__} ({e})") from None

    def _checked(self, value: Any) -> Any:
        """`value` converted to this instantiation's type, or TypeError when it is not one."""
        T = self._T
        if T is object or type(value) is T:
            return value
        if T is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if T is int and isinstance(value, int) and not isinstance(value, bool):
            return int(value)
        if T is bool and type(value).__name__ == "bool_":
            return bool(value)
        if T not in _CONVERSION_TYPES and isinstance(value, T):
            return value
        raise TypeError(f"{type(self).__name__}.set_value: expected a {getattr(T, '__name__', T)}, "
                        f"got {type(value).__name__} ({value!r:.60})")

    def get_value(self) -> Any:
        """The held object (for Value[object] and mallard types, the object itself, not a copy)."""
        return self._value

    def get_mutable_value(self) -> Any:
        """The held object, to mutate in place; str / bool / float / int values are immutable (RuntimeError)."""
        if self._T in _CONVERSION_TYPES:
            raise RuntimeError(f"Cannot get mutable value (or reference) for a type-conversion type: {self._T}")
        return self._value

    def set_value(self, value: Any) -> None:
        """Replaces the held object; it must be of this instantiation's type (TypeError otherwise)."""
        self._value = self._checked(value)

    def Clone(self) -> "Value":
        """A new Value of the same instantiation holding a deep copy of the object."""
        return _instantiate(self._T, _clone_object(self._value))

    def SetFrom(self, other: AbstractValue) -> None:
        """Copies the object held by `other` (a Value of the same type) into this value."""
        if isinstance(other, _ValueBase) and type(other) is not type(self) and self._T is not object:
            raise RuntimeError(f"{type(self).__name__}.SetFrom: cannot copy from a {type(other).__name__}")
        self._value = _clone_object(other.get_value())

    def __reduce__(self):
        return _instantiate, (self._T, self._value)

    def __copy__(self) -> "Value":
        return _instantiate(self._T, self._value)

    def __deepcopy__(self, memo) -> "Value":
        return _instantiate(self._T, copy.deepcopy(self._value, memo))

    # repr is object's, as pydrake prints a Value: <mallard.common.value.Value[object] object at 0x...>


for _T in (str, bool, float, object):  # registered at import, in pydrake's order (Value[None] is Value[str])
    Value[_T]
del _T
