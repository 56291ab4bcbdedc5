"""Dependency tickets and the coarse version counters behind caching (DESIGN §3).

The root Context keeps one monotonically increasing counter per kind of source (time, continuous
state, discrete state, abstract state, parameters, fixed inputs, accuracy). A ticket names the kinds a
computation depends on; a cached value is fresh while the sum of those counters is unchanged.
"""
from __future__ import annotations

__all__ = ["DependencyTicket"]

# Version-counter kinds (indices into the root context's counter list).
K_TIME, K_XC, K_XD, K_XA, K_P, K_U, K_ACC = range(7)
NUM_KINDS = 7
ALL_KINDS = frozenset(range(NUM_KINDS))
STATE_KINDS = frozenset((K_XC, K_XD, K_XA))


class DependencyTicket:
    """Names what a computed value depends on: a set of source kinds, an input port, or a cache entry."""

    __slots__ = ("_kinds", "_input_port", "_cache_index", "_name", "_all_inputs")

    def __init__(self, kinds=(), *, input_port: int | None = None, cache_index: int | None = None,
                 all_inputs: bool = False, name: str = "") -> None:
        self._kinds = frozenset(kinds)
        self._input_port = input_port
        self._cache_index = cache_index
        self._all_inputs = all_inputs
        self._name = name

    def is_valid(self) -> bool:
        return True

    def is_input_dependent(self) -> bool:
        return self._all_inputs or self._input_port is not None

    def __repr__(self) -> str:
        return f"DependencyTicket({self._name or sorted(self._kinds)})"

    def __hash__(self) -> int:
        return hash((self._kinds, self._input_port, self._cache_index, self._all_inputs))

    def __eq__(self, other) -> bool:
        return isinstance(other, DependencyTicket) and (
            self._kinds, self._input_port, self._cache_index, self._all_inputs) == (
            other._kinds, other._input_port, other._cache_index, other._all_inputs)


def resolve_kinds(tickets, cache_entries) -> tuple[frozenset, bool, frozenset]:
    """Expands tickets into (version kinds, depends-on-all-inputs, input port indices).

    Input ports count as every kind (an upstream value may depend on anything); cache-entry tickets
    expand into that entry's own prerequisites.
    """
    kinds: set[int] = set()
    all_inputs = False
    inputs: set[int] = set()
    stack = list(tickets)
    seen: set[int] = set()
    while stack:
        t = stack.pop()
        if not isinstance(t, DependencyTicket):
            raise TypeError(f"prerequisites_of_calc must hold DependencyTickets (e.g. self.xc_ticket()), got {t!r}")
        kinds |= t._kinds
        if t._all_inputs:
            all_inputs = True
        if t._input_port is not None:
            inputs.add(t._input_port)
        if t._cache_index is not None and t._cache_index not in seen:
            seen.add(t._cache_index)
            stack.extend(cache_entries[t._cache_index].prerequisites())
    if all_inputs or inputs:
        kinds |= ALL_KINDS
    return frozenset(kinds), all_inputs, frozenset(inputs)
