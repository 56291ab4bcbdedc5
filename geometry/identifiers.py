"""Unique identifiers for SceneGraph entities: GeometryId, FrameId, SourceId (pydrake.geometry)."""
from __future__ import annotations

import itertools
from typing import ClassVar


class GeometryLookupError(KeyError, RuntimeError):
    """A lookup of an unknown id, name or property failed.

    It is both a KeyError (the project's lookup convention) and a RuntimeError (what pydrake raises),
    so either ``except`` clause catches it. The message is shown without KeyError's quoting.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class GeometryValueError(ValueError, RuntimeError):
    """A bad geometry value (a color out of range, unusable mesh data ...): a ValueError for Python code and
    the RuntimeError pydrake raises."""


class _Identifier:
    """An opaque, hashable, totally ordered id; new ids come from ``get_new_id()`` only."""

    _counter: ClassVar[itertools.count]
    __slots__ = ("_value",)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._counter = itertools.count(1)

    def __init__(self, value: int = 0):
        self._value = int(value)

    @classmethod
    def get_new_id(cls):
        """Return a new id, never handed out before in this process."""
        return cls(next(cls._counter))

    def get_value(self) -> int:
        """The integer behind the id (unique per id type)."""
        return self._value

    def is_valid(self) -> bool:
        """True for ids made by get_new_id(); a default-constructed id is invalid."""
        return self._value > 0

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._value == self._value

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value < other._value

    def __le__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value <= other._value

    def __gt__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value > other._value

    def __ge__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value >= other._value

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._value))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} value={self._value}>"

    def __getstate__(self):
        return self._value

    def __setstate__(self, state):
        self._value = state
        cls = type(self)
        following = next(cls._counter)
        # an id loaded from another process: new ids in this one must not repeat it
        cls._counter = itertools.count(max(following, self._value + 1))


class GeometryId(_Identifier):
    """Identifies one registered geometry."""

    __slots__ = ()


class FrameId(_Identifier):
    """Identifies one registered frame (the world frame has its own fixed id)."""

    __slots__ = ()


class SourceId(_Identifier):
    """Identifies one registered geometry source (e.g. a MultibodyPlant)."""

    __slots__ = ()


class FilterId(_Identifier):
    """Identifies a collision-filter declaration (reserved for transient filters)."""

    __slots__ = ()
