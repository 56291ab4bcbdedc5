"""Drake's generated named vectors (AcrobotState, PendulumParams, ...): a BasicVector subclass whose rows have names,
with `name()`, `set_name(value)` and `with_name(value)` accessors and default values, built from a table of
(name, default) rows rather than written out per class."""
from __future__ import annotations

from typing import Sequence

from mallard.systems.framework import BasicVector, VectorBase

__all__ = ["NamedVector", "view_as"]


class NamedVector(BasicVector):
    """Base of the named vectors: `Cls()` holds the defaults; subclasses list their rows in `_rows`."""

    __slots__ = ()
    _rows: Sequence[tuple[str, float]] = ()

    def __init__(self) -> None:
        super().__init__([default for _, default in self._rows])

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for index, (name, _) in enumerate(cls._rows):
            cls._add_accessors(index, name)

    @classmethod
    def _add_accessors(cls, index: int, name: str) -> None:
        def get(self: NamedVector) -> float:
            return float(self.GetAtIndex(index))

        def set_(self: NamedVector, value: float) -> None:
            self.SetAtIndex(index, value)

        def with_(self: NamedVector, value: float) -> NamedVector:
            copy = self.Clone()
            copy.SetAtIndex(index, value)
            return copy

        get.__doc__ = f"The `{name}` row."
        set_.__doc__ = f"Sets the `{name}` row."
        with_.__doc__ = f"A copy with the `{name}` row set to `{name}`."
        for method, attr in ((get, name), (set_, f"set_{name}"), (with_, f"with_{name}")):
            method.__name__ = method.__qualname__ = attr
            setattr(cls, attr, method)

    @classmethod
    def GetCoordinateNames(cls) -> list[str]:
        """The names of the rows, in order."""
        return [name for name, _ in cls._rows]


def view_as(cls: type[NamedVector], vector: VectorBase) -> NamedVector:
    """vector (a context's state or parameter) seen as the named vector cls: reads and writes go to its storage."""
    if vector.size() != len(cls._rows):
        raise ValueError(f"{cls.__name__} has {len(cls._rows)} rows but the vector has {vector.size()}")
    return cls._wrap(vector._data, vector._owner, vector._kind)
