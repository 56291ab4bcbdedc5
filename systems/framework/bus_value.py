"""`BusValue`: a name -> AbstractValue map carried on one abstract port (pydrake.systems.framework.BusValue),
made by BusCreator and taken apart by BusSelector. Iteration yields the names in insertion order."""
from __future__ import annotations

from typing import Any, Iterator

from mallard.common.value import AbstractValue

__all__ = ["BusValue"]


class BusValue:
    """Named signals on one bus; `bus[name]` is the signal's value (KeyError if absent)."""

    __slots__ = ("_signals",)

    def __init__(self) -> None:
        self._signals: dict[str, AbstractValue] = {}

    def Set(self, name: str, value: AbstractValue) -> None:
        """Stores a copy of `value` under `name` (replacing an earlier signal of that name)."""
        if not isinstance(value, AbstractValue):
            raise TypeError(f"BusValue.Set({name!r}, ...): the value must be an AbstractValue (e.g. Value(x)), got "
                            f"{type(value).__name__}")
        self._signals[str(name)] = value.Clone()

    def Find(self, name: str) -> Any:
        """The value of the signal `name`, or None when there is none."""
        value = self._signals.get(name)
        return None if value is None else value.get_value()

    def Clear(self) -> None:
        self._signals.clear()

    def __getitem__(self, name: str) -> Any:
        try:
            return self._signals[name].get_value()
        except KeyError:
            raise KeyError(f"BusValue has no signal named {name!r}; its signals are {list(self._signals)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._signals))

    def __len__(self) -> int:
        return len(self._signals)

    def __copy__(self) -> "BusValue":
        copy = BusValue()
        copy._signals = {name: value.Clone() for name, value in self._signals.items()}
        return copy

    __deepcopy__ = lambda self, memo: self.__copy__()  # noqa: E731

    def __repr__(self) -> str:
        return f"BusValue({', '.join(self._signals)})"
