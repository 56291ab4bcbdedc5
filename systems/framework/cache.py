"""Cache entries: values computed from a context and kept until a prerequisite changes."""
from __future__ import annotations

from typing import Any, Callable

from .dependency import DependencyTicket
from .portable import PortableAttributes, PortableSlots
from .state import CacheIndex
from .weak_owner import owner_gone, split_bound, weak_system_property
from mallard.common.value import AbstractValue, Value

__all__ = ["ValueProducer", "CacheEntry", "CacheEntryValue", "CachedSlot", "OutputPortCacheEntry"]

# A context's cache slot: [version stamp, value, caching disabled?, CacheEntryValue view or None].
STAMP, VALUE, DISABLED, VIEW = range(4)


def new_slot(disabled: bool = False) -> list:
    return [-1, None, disabled, None]


class ValueProducer(PortableAttributes):
    """Pairs an allocator (returning an AbstractValue) with a calc(context, abstract_value) callback."""

    def __init__(self, allocate: Callable[[], Any] | None = None, calc: Callable | None = None) -> None:
        if allocate is None or calc is None:
            raise ValueError("ValueProducer needs both allocate= and calc=")
        self._allocate = allocate
        self._calc = calc

    def Allocate(self) -> AbstractValue:
        """The allocator's result, which must be an AbstractValue (e.g. `Value(...)`), as in pydrake."""
        value = self._allocate()
        if not isinstance(value, AbstractValue):
            name = getattr(self._allocate, "__qualname__", None) or repr(self._allocate)
            raise RuntimeError(f"ValueProducer: the allocate callback {name}() must return a Value (an "
                               f"AbstractValue), not {type(value).__name__}")
        return value

    def Calc(self, context, value: AbstractValue) -> None:
        self._calc(context, value)

    @staticmethod
    def NoopCalc(context, value: AbstractValue) -> None:
        """A calc that leaves the value as allocated (for scratch storage updated by hand)."""


class _CheckedAllocate(PortableSlots):
    """ValueProducer.Allocate over the producer's allocate callback, kept unbound when it is a method of the
    system (`owner`, a weak reference; see weak_owner)."""

    __slots__ = ("_allocate", "_owner")

    def __init__(self, allocate: Callable, owner) -> None:
        self._allocate, self._owner = allocate, owner

    def __call__(self) -> AbstractValue:
        if self._owner is None:
            value = self._allocate()
        else:
            owner = self._owner()
            if owner is None:
                raise owner_gone("a cache entry's allocator")
            value = self._allocate(owner)
        if not isinstance(value, AbstractValue):
            name = getattr(self._allocate, "__qualname__", None) or repr(self._allocate)
            raise RuntimeError(f"ValueProducer: the allocate callback {name}() must return a Value (an "
                               f"AbstractValue), not {type(value).__name__}")
        return value


def stamp_pair(kinds: tuple) -> tuple | None:
    """(a, b) such that versions[a] + versions[b] stamps an item of one or two prerequisite kinds (one kind counts
    twice: the sum still moves whenever its version does), None for more kinds (their stamp sums `kinds`)."""
    if len(kinds) == 1:
        return kinds[0], kinds[0]
    return tuple(kinds) if len(kinds) == 2 else None


class CachedSlot:
    """Shared evaluation logic: recompute into the context's slot when the version stamp moved. The stamp is the
    sum of the versions of the prerequisite kinds (`_kinds`; the root's `_vsum` when `_all`; `_pair` for one or
    two kinds, see stamp_pair); versions only grow, so a stamp moves exactly when a prerequisite changed."""

    __slots__ = ()

    def _stamp(self, root) -> int:
        if self._all:
            return root._vsum
        versions = root._versions
        if self._pair is not None:
            return versions[self._pair[0]] + versions[self._pair[1]]
        return sum(versions[k] for k in self._kinds)

    def _eval(self, context):
        slot = context._cache[self._slot]
        root = context._root
        if self._all:  # (_stamp, inlined: the hot path of every cached value)
            stamp = root._vsum
        else:
            versions, pair = root._versions, self._pair
            if pair is not None:
                a, b = pair
                stamp = versions[a] + versions[b]
            else:
                stamp = 0
                for k in self._kinds:
                    stamp += versions[k]
        value = slot[1]
        if value is None:
            value = slot[1] = self._alloc()
        elif slot[0] == stamp and root._caching and not slot[2]:
            return value
        elif root._frozen:
            raise RuntimeError(f"{self._describe()} is out of date but the cache is frozen")
        owner = self._calc_self
        if owner is None:
            self._calc(context, value)
        else:  # a method of the system, kept unbound (weak_owner)
            system = owner()
            if system is None:
                raise owner_gone("a cached value or output port")
            self._calc(system, context, value)
        slot[0] = stamp
        return value


class CacheEntry(PortableSlots, CachedSlot):
    """A cached computation declared with `LeafSystem.DeclareCacheEntry`."""

    __slots__ = ("_sysref", "_sysid", "_description", "_slot", "_index", "_prerequisites", "_kinds", "_pair",
                 "_all", "_alloc", "_calc", "_calc_self", "_ticket", "_disabled_by_default", "_default_prerequisites")

    def __init__(self, system, index: int, slot: int, description: str, producer: ValueProducer,
                 prerequisites: set, default_prerequisites: bool = False) -> None:
        self._disabled_by_default = False
        self._default_prerequisites = default_prerequisites
        self._system = system
        self._description = description
        self._index = index
        self._slot = slot
        self._prerequisites = set(prerequisites)
        self._kinds: tuple = ()
        self._pair: tuple | None = None
        self._all = True
        # The producer's own allocate and calc when ValueProducer's methods would only forward to them (one call
        # fewer per recompute); methods bound to the system are kept unbound with a weak reference (weak_owner),
        # and the producer itself is not kept (it holds them bound).
        if type(producer).Allocate is ValueProducer.Allocate:
            self._alloc = _CheckedAllocate(*split_bound(producer._allocate, system))
        else:
            self._alloc = producer.Allocate
        calc = producer._calc if type(producer).Calc is ValueProducer.Calc else producer.Calc
        self._calc, self._calc_self = split_bound(calc, system)
        self._ticket = DependencyTicket(cache_index=index, name=f"cache_entry_ticket({index})")

    _system = weak_system_property(lambda entry: f"cache entry '{entry._description}'")

    def _describe(self) -> str:
        return f"cache entry '{self._description}' of {self._system.GetSystemPathname()}"

    def description(self) -> str:
        return self._description

    def cache_index(self) -> CacheIndex:
        return CacheIndex(self._index)

    def ticket(self) -> DependencyTicket:
        return self._ticket

    def prerequisites(self) -> set:
        return self._prerequisites

    def Eval(self, context) -> Any:
        """The cached Python value (recomputed first if a prerequisite changed)."""
        if getattr(context, "_system_id", None) != self._sysid or context._root is None:
            self._system._check_context(context, f"CacheEntry '{self._description}'.Eval")
        return self._eval(context).get_value()

    def EvalAbstract(self, context) -> AbstractValue:
        if getattr(context, "_system_id", None) != self._sysid or context._root is None:
            self._system._check_context(context, f"CacheEntry '{self._description}'.EvalAbstract")
        return self._eval(context)

    def is_out_of_date(self, context) -> bool:
        slot = context._cache[self._slot]
        root = context._root
        return slot[1] is None or slot[0] != self._stamp(root)

    # ----- caching controls ----------------------------------------------------------------------
    def is_cache_entry_disabled(self, context) -> bool:
        return bool(context._cache[self._slot][DISABLED])

    def disable_caching(self, context) -> None:
        context._cache[self._slot][DISABLED] = True

    def enable_caching(self, context) -> None:
        context._cache[self._slot][DISABLED] = False

    def is_disabled_by_default(self) -> bool:
        return self._disabled_by_default

    def disable_caching_by_default(self) -> None:
        """New contexts start with this entry's caching disabled (recomputed on every Eval)."""
        self._disabled_by_default = True

    def has_default_prerequisites(self) -> bool:
        """True when the prerequisites were left to the default (all sources)."""
        return self._default_prerequisites

    def get_cache_entry_value(self, context) -> "CacheEntryValue":
        """The context's storage of this entry (the same object on every call)."""
        slot = context._cache[self._slot]
        if slot[VALUE] is None:
            slot[VALUE] = self._alloc()
        if slot[VIEW] is None:
            slot[VIEW] = CacheEntryValue(self, context)
        return slot[VIEW]

    get_mutable_cache_entry_value = get_cache_entry_value


class CacheEntryValue:
    """A context's stored value of one cache entry: GetValueOrThrow refuses an out-of-date value."""

    __slots__ = ("_entry", "_context")

    def __init__(self, entry: CacheEntry, context) -> None:
        self._entry, self._context = entry, context

    def GetValueOrThrow(self) -> Any:
        if self._entry.is_out_of_date(self._context):
            raise RuntimeError(f"GetValueOrThrow on {self._entry._describe()}: the current value is out of date; "
                               "use CacheEntry.Eval(context) to compute it")
        return self._context._cache[self._entry._slot][VALUE].get_value()

    def GetMutableValueOrThrow(self) -> Any:
        """The stored object, to update in place (whether or not it is up to date)."""
        return self._context._cache[self._entry._slot][VALUE].get_mutable_value()


class OutputPortCacheEntry:
    """The cache entry behind a leaf output port (`LeafOutputPort.cache_entry()`)."""

    __slots__ = ("_port",)

    def __init__(self, port) -> None:
        self._port = port

    def description(self) -> str:
        return f"output port '{self._port.get_name()}' of {self._port.get_system().GetSystemPathname()}"

    def is_disabled_by_default(self) -> bool:
        return self._port._disabled_by_default

    def disable_caching_by_default(self) -> None:
        self._port._disabled_by_default = True

    def is_cache_entry_disabled(self, context) -> bool:
        return bool(context._cache[self._port._slot][DISABLED])

    def disable_caching(self, context) -> None:
        context._cache[self._port._slot][DISABLED] = True

    def enable_caching(self, context) -> None:
        context._cache[self._port._slot][DISABLED] = False
