"""Containers of pydrake.common.containers: `namedview` (named access writing through to a vector) and
`EqualToDict` (a dict whose keys compare with `EqualTo`, for key types whose `==` does not return a bool).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Sequence

import numpy as np

__all__ = ["EqualToDict", "NamedViewBase", "namedview"]


class _KeyProxy:
    """Wraps a dictionary key so that hashing uses the key's hash and equality uses `type` + `EqualTo`."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return hash(self.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _KeyProxy):
            return False
        return isinstance(other.value, type(self.value)) and bool(self.value.EqualTo(other.value))


class EqualToDict(dict):
    """A dict comparing keys by type and `lhs.EqualTo(rhs)` (e.g. symbolic-like keys whose `==` builds an
    expression). `raw()` returns a plain dict with the original keys."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __setitem__(self, key, value) -> None:
        super().__setitem__(_KeyProxy(key), value)

    def __getitem__(self, key):
        return super().__getitem__(_KeyProxy(key))

    def __delitem__(self, key) -> None:
        super().__delitem__(_KeyProxy(key))

    def __contains__(self, key) -> bool:
        return super().__contains__(_KeyProxy(key))

    def keys(self) -> Iterable:
        return (proxy.value for proxy in super().keys())

    def items(self) -> Iterable:
        return zip(self.keys(), self.values())

    def raw(self) -> dict:
        """A plain dict with the original (unwrapped) keys."""
        return dict(self.items())


class NamedViewBase:
    """Base of the classes `namedview` makes: `view.field` reads and writes `value[i]` of the viewed sequence."""

    _fields: tuple[str, ...] | None = None

    def __init__(self, value) -> None:
        if self._fields is None:
            raise TypeError("NamedViewBase is abstract; make a view class with namedview(name, fields)")
        if len(value) != len(self._fields):
            raise ValueError(f"{type(self).__name__}: expected {len(self._fields)} values for fields "
                             f"{list(self._fields)}, got {len(value)}")
        object.__setattr__(self, "_value", value)

    @classmethod
    def get_fields(cls) -> tuple[str, ...]:
        """The field names, in order."""
        return cls._fields

    @classmethod
    def Zero(cls) -> "NamedViewBase":
        """A view onto a new list of zeros."""
        return cls([0] * len(cls._fields))

    def __getitem__(self, i):
        return self._value[i]

    def __setitem__(self, i, value) -> None:
        self._value[i] = value

    def __setattr__(self, attribute: str, value) -> None:
        if not hasattr(type(self), attribute):
            raise AttributeError(f"{type(self).__name__} has no field '{attribute}'; its fields are "
                                 f"{self.get_fields()}")
        object.__setattr__(self, attribute, value)

    def __len__(self) -> int:
        return len(self._value)

    def __iter__(self):
        return iter(self._value)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._value, dtype=dtype)

    def _format(self, fmt: Callable[[Any], str]) -> str:
        inner = ", ".join(f"{field}={fmt(self[i])}" for i, field in enumerate(self._fields))
        return f"{type(self).__name__}({inner})"

    def __str__(self) -> str:
        return self._format(str)

    def __repr__(self) -> str:
        return f"<{self._format(repr)}>"


def _sanitize_field_name(name: str) -> str:
    """`name` made a Python identifier: invalid characters become `_`, a leading digit gets a `_` prefix and
    runs of `_` collapse to one (pydrake's rule)."""
    chars = list(name if name[:1].isidentifier() else "_" + name)
    for i in range(1, len(chars)):
        if not ("_" + chars[i]).isidentifier():
            chars[i] = "_"
    return re.sub("__+", "_", "".join(chars))


def _field_property(i: int) -> property:
    return property(lambda self: self._value[i], lambda self, v: self._value.__setitem__(i, v))


def namedview(name: str, fields: Sequence[str], *, sanitize_field_names: bool = True) -> type:
    """A `NamedViewBase` subclass whose instances view a sequence (e.g. a numpy array) by field name.

    With `sanitize_field_names`, names are made valid identifiers as pydrake does ("iiwa::iiwa" -> "iiwa_iiwa").
    """
    fields = tuple(str(f) for f in fields)
    if sanitize_field_names:
        fields = tuple(_sanitize_field_name(f) for f in fields)
    if len(set(fields)) != len(fields):
        raise AssertionError(f"namedview {name}: field names must be unique, got {list(fields)}")
    namespace: dict[str, Any] = {"_fields": fields}
    for i, field in enumerate(fields):
        namespace[field] = _field_property(i)
    return type(name, (NamedViewBase,), namespace)
