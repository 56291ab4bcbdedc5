"""Applying discrete and unrestricted updates to a root context (shared by Simulator and System).

Handlers of events due together all read the same pre-update context and write into scratch copies;
the scratch is then copied back in one go, as Drake does. Only the abstract state of the leaves that
own an unrestricted event is cloned (copy-on-write).
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework.dependency import K_XA, K_XC, K_XD
from mallard.systems.framework.events import EventStatus

__all__ = ["handle_publish", "handle_discrete", "handle_unrestricted", "calc_discrete"]


def handle_publish(events) -> EventStatus:
    """Runs publish events (leaf, leaf_context, event) in order; returns the most severe status."""
    status = EventStatus.DidNothing()
    for _leaf, leaf_context, event in events:
        status.KeepMoreSevere(event._handle(leaf_context))
        if status.failed():
            break
    return status


def calc_discrete(context, events) -> tuple[EventStatus, np.ndarray]:
    """Runs discrete-update handlers into the root's scratch copy of the discrete state."""
    root = context._root
    np.copyto(root._xd_scratch, root._xd)
    status = EventStatus.DidNothing()
    for _leaf, leaf_context, event in events:
        status.KeepMoreSevere(event._handle(leaf_context, leaf_context._scratch_state._discrete))
        if status.failed():
            break
    return status, root._xd_scratch


def handle_discrete(context, events) -> EventStatus:
    """Computes and applies the discrete updates in `events` (a list of (leaf, leaf_context, event))."""
    if not events:
        return EventStatus.DidNothing()
    status, scratch = calc_discrete(context, events)
    if not status.failed():
        root = context._root
        np.copyto(root._xd, scratch)
        root._bump(K_XD)
    return status


def handle_unrestricted(context, events) -> EventStatus:
    """Computes and applies unrestricted updates: continuous, discrete and (owned) abstract state."""
    if not events:
        return EventStatus.DidNothing()
    root = context._root
    np.copyto(root._xc_scratch, root._xc)
    np.copyto(root._xd_scratch, root._xd)
    touched = {}
    for _leaf, leaf_context, _event in events:
        if id(leaf_context) not in touched:
            touched[id(leaf_context)] = leaf_context
            leaf_context._scratch_state._abstract._values = [v.Clone() for v in leaf_context._abstract]
    status = EventStatus.DidNothing()
    for _leaf, leaf_context, event in events:
        status.KeepMoreSevere(event._handle(leaf_context, leaf_context._scratch_state))
        if status.failed():
            return status
    np.copyto(root._xc, root._xc_scratch)
    np.copyto(root._xd, root._xd_scratch)
    for leaf_context in touched.values():
        for mine, new in zip(leaf_context._abstract, leaf_context._scratch_state._abstract._values):
            mine.set_value(new.get_value())
        leaf_context._scratch_state._abstract._values = []
    for kind in (K_XC, K_XD, K_XA):
        root._bump(kind)
    return status
