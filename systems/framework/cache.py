"""Cache entries: values computed from a context and kept until a prerequisite changes."""
from __future__ import annotations

from typing import Any, Callable

from .dependency import DependencyTicket
from .portable import PortableAttributes, PortableSlots
from .value import AbstractValue, Value

__all__ = ["ValueProducer", "CacheEntry", "CachedSlot"]


class ValueProducer(PortableAttributes):
    """Pairs an allocator (returning an AbstractValue) with a calc(context, abstract_value) callback."""

    def __init__(self, allocate: Callable[[], Any] | None = None, calc: Callable | None = None) -> None:
        if allocate is None or calc is None:
            raise ValueError("ValueProducer needs both allocate= and calc=")
        self._allocate = allocate
        self._calc = calc

    def Allocate(self) -> AbstractValue:
        value = self._allocate()
        return value if isinstance(value, AbstractValue) else Value(value)

    def Calc(self, context, value: AbstractValue) -> None:
        self._calc(context, value)


class CachedSlot:
    """Shared evaluation logic: recompute into the context's slot when the version stamp moved."""

    __slots__ = ()

    def _eval(self, context):
        slot = context._cache[self._slot]
        root = context._root
        if self._all:
            stamp = root._vsum
        else:
            versions = root._versions
            stamp = 0
            for k in self._kinds:
                stamp += versions[k]
        value = slot[1]
        if value is None:
            value = slot[1] = self._alloc()
        elif slot[0] == stamp and root._caching:
            return value
        elif root._frozen:
            raise RuntimeError(f"{self._describe()} is out of date but the cache is frozen")
        self._calc(context, value)
        slot[0] = stamp
        return value


class CacheEntry(PortableSlots, CachedSlot):
    """A cached computation declared with `LeafSystem.DeclareCacheEntry`."""

    __slots__ = ("_system", "_description", "_producer", "_slot", "_index", "_prerequisites", "_kinds", "_all",
                 "_alloc", "_calc", "_ticket")

    def __init__(self, system, index: int, slot: int, description: str, producer: ValueProducer,
                 prerequisites: set) -> None:
        self._system = system
        self._description = description
        self._producer = producer
        self._index = index
        self._slot = slot
        self._prerequisites = set(prerequisites)
        self._kinds: tuple = ()
        self._all = True
        self._alloc = producer.Allocate
        self._calc = producer.Calc
        self._ticket = DependencyTicket(cache_index=index, name=f"cache_entry_ticket({index})")

    def _describe(self) -> str:
        return f"cache entry '{self._description}' of {self._system.GetSystemPathname()}"

    def description(self) -> str:
        return self._description

    def cache_index(self) -> int:
        return self._index

    def ticket(self) -> DependencyTicket:
        return self._ticket

    def prerequisites(self) -> set:
        return self._prerequisites

    def Eval(self, context) -> Any:
        """The cached Python value (recomputed first if a prerequisite changed)."""
        if getattr(context, "_system_id", None) != self._system._system_id or context._root is None:
            self._system._check_context(context, f"CacheEntry '{self._description}'.Eval")
        return self._eval(context).get_value()

    def EvalAbstract(self, context) -> AbstractValue:
        if getattr(context, "_system_id", None) != self._system._system_id or context._root is None:
            self._system._check_context(context, f"CacheEntry '{self._description}'.EvalAbstract")
        return self._eval(context)

    def is_out_of_date(self, context) -> bool:
        slot = context._cache[self._slot]
        root = context._root
        stamp = root._vsum if self._all else sum(root._versions[k] for k in self._kinds)
        return slot[1] is None or slot[0] != stamp
