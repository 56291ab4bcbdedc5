"""Applying publish, discrete and unrestricted events to a root context (shared by Simulator and System).

Handlers of events due together all read the same pre-update context and write into scratch copies;
the scratch is then copied back in one go, as Drake does. Only the abstract state of the leaves that
own an unrestricted event is copied, and only when a handler asks to write it (copy-on-write). Each function returns the most severe status
a handler returned, or None when every handler simply succeeded.
"""
from __future__ import annotations

import numpy as np

from .dependency import K_XA, K_XC, K_XD
from .events import EventStatus, more_severe
from .state_check import (all_finite, is_numeric_nonfinite, nonfinite_abstract_message,
                          nonfinite_continuous_update_message, nonfinite_discrete_message)
from .state import AbstractValues
from mallard.common.value import AbstractValue, _clone_object

__all__ = ["handle_publish", "handle_discrete", "handle_unrestricted", "calc_discrete"]


class _CopyOnWriteValue(AbstractValue):
    """The handler's view of one abstract state value: reads see the current value, the first mutable
    access takes a private copy, and set_value replaces it without copying anything."""

    __slots__ = ("_original", "_value", "_written")

    def __init__(self, original: AbstractValue) -> None:
        self._original, self._value, self._written = original, None, False

    def get_value(self):
        return self._value if self._written else self._original.get_value()

    def get_mutable_value(self):
        if not self._written:
            self._value, self._written = _clone_object(self._original.get_value()), True
        return self._value

    def set_value(self, value) -> None:
        self._value, self._written = value, True

    def SetFrom(self, other: AbstractValue) -> None:
        self.set_value(_clone_object(other.get_value()))

    def Clone(self):
        clone = self._original.Clone()
        if self._written:
            clone.set_value(_clone_object(self._value))
        return clone


class _CopyOnWriteValues(AbstractValues):
    """Abstract state handed to unrestricted-update handlers; only what they write is copied back."""

    __slots__ = ("_views",)

    def __init__(self, originals: list) -> None:
        super().__init__(originals)
        self._views: dict = {}

    def get_mutable_value(self, index: int) -> AbstractValue:
        view = self._views.get(index)
        if view is None:
            view = self._views[index] = _CopyOnWriteValue(self._at(index))
        return view

    def _apply(self) -> None:
        for index, view in self._views.items():
            if view._written:
                self._values[index].set_value(view._value)


def _failed(status) -> bool:
    return status is not None and status._severity == EventStatus.Severity.kFailed


def handle_publish(events):
    """Runs publish events (leaf, leaf_context, event) in order."""
    status = None
    for _leaf, leaf_context, event in events:
        status = more_severe(status, event._handle(leaf_context))
        if _failed(status):
            break
    return status


def calc_discrete(context, events):
    """Runs discrete-update handlers into the root's scratch copy of the discrete state."""
    root = context._root
    np.copyto(root._xd_scratch, root._xd)
    status = None
    for _leaf, leaf_context, event in events:
        status = more_severe(status, event._handle(leaf_context, leaf_context._scratch_state._discrete))
        if _failed(status):
            break
    return status, root._xd_scratch


def handle_discrete(context, events):
    """Computes and applies the discrete updates in `events` (a list of (leaf, leaf_context, event))."""
    if not events:
        return None
    status, scratch = calc_discrete(context, events)
    if not _failed(status):
        root = context._root
        if not all_finite(scratch):
            _raise_if_new_nonfinite(root, events, check_continuous=False)
        np.copyto(root._xd, scratch)
        root._bump(K_XD)
    return status


def handle_unrestricted(context, events):
    """Computes and applies unrestricted updates: continuous, discrete and (owned) abstract state."""
    if not events:
        return None
    root = context._root
    np.copyto(root._xc_scratch, root._xc)
    np.copyto(root._xd_scratch, root._xd)
    touched = []
    for _leaf, leaf_context, _event in events:
        if leaf_context._abstract and all(leaf_context is not t for t in touched):
            touched.append(leaf_context)
            leaf_context._scratch_state._abstract = _CopyOnWriteValues(leaf_context._abstract)
    try:
        status = None
        for _leaf, leaf_context, event in events:
            status = more_severe(status, event._handle(leaf_context, leaf_context._scratch_state))
            if _failed(status):
                return status
        if not (all_finite(root._xc_scratch) and all_finite(root._xd_scratch)):
            _raise_if_new_nonfinite(root, events, check_continuous=True)
        for leaf_context in touched:
            _check_abstract_writes(root, events, leaf_context)
        np.copyto(root._xc, root._xc_scratch)
        np.copyto(root._xd, root._xd_scratch)
        for leaf_context in touched:
            leaf_context._scratch_state._abstract._apply()
    finally:
        for leaf_context in touched:
            leaf_context._scratch_state._abstract = AbstractValues([])
    versions = root._versions
    versions[K_XC] += 1
    versions[K_XD] += 1
    versions[K_XA] += 1
    root._vsum += 3
    return status


def _raise_if_new_nonfinite(root, events, check_continuous: bool) -> None:
    """Raises RuntimeError naming the system, state and time when the update made a state non-finite
    (NaN or inf already in the state before the update is left alone); the state keeps its old values."""
    pairs = []
    for leaf, leaf_context, _event in events:
        if all(leaf_context is not lc for _l, lc in pairs):
            pairs.append((leaf, leaf_context))
    message = nonfinite_continuous_update_message(pairs, root._time) if check_continuous else None
    message = message or nonfinite_discrete_message(pairs, root._time)
    if message is not None:
        raise RuntimeError(message)


def _check_abstract_writes(root, events, leaf_context) -> None:
    """Raises RuntimeError when an unrestricted update wrote a numeric abstract value holding NaN/inf
    (over a value that was finite)."""
    values = leaf_context._scratch_state._abstract
    for index, view in values._views.items():
        if view._written and is_numeric_nonfinite(view._value) and \
                not is_numeric_nonfinite(values._at(index).get_value()):
            leaf = next(leaf for leaf, lc, _e in events if lc is leaf_context)
            raise RuntimeError(nonfinite_abstract_message(leaf, leaf_context, index, view._value, root._time))
