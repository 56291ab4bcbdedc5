"""`namedview`: named attribute access to the entries of a vector, writing through to it (pydrake.common.containers)."""
from __future__ import annotations

from typing import Sequence

__all__ = ["namedview"]


def namedview(name: str, fields: Sequence[str]) -> type:
    """A class whose instances view a sequence (e.g. a numpy array): `view.x` reads and writes `value[i]`."""
    fields = tuple(str(f) for f in fields)
    if len(set(fields)) != len(fields):
        raise ValueError(f"namedview {name}: field names must be unique, got {list(fields)}")

    def __init__(self, value) -> None:
        if len(value) != len(fields):
            raise ValueError(f"{name}: expected {len(fields)} values for fields {list(fields)}, got {len(value)}")
        object.__setattr__(self, "_value", value)

    def __setattr__(self, attribute, value) -> None:
        if attribute not in fields:
            raise AttributeError(f"{name} has no field '{attribute}'; its fields are {list(fields)}")
        object.__setattr__(self, attribute, value)

    def __str__(self) -> str:
        return f"{name}(" + ", ".join(f"{f}={self._value[i]}" for i, f in enumerate(fields)) + ")"

    def __repr__(self) -> str:
        return f"<{name}(" + ", ".join(f"{f}={self._value[i]!r}" for i, f in enumerate(fields)) + ")>"

    namespace = {
        "__init__": __init__, "__setattr__": __setattr__, "__str__": __str__, "__repr__": __repr__, "_fields": fields,
        "__getitem__": lambda self, i: self._value[i], "__len__": lambda self: len(fields),
        "__setitem__": lambda self, i, v: self._value.__setitem__(i, v),
        "__iter__": lambda self: iter(self._value[i] for i in range(len(fields))),
        "get_fields": classmethod(lambda cls: fields),
        "Zero": classmethod(lambda cls: cls([0] * len(fields))),
    }
    for i, field in enumerate(fields):
        namespace[field] = property(lambda self, i=i: self._value[i],
                                    lambda self, v, i=i: self._value.__setitem__(i, v))
    return type(name, (), namespace)
