"""Applying publish, discrete and unrestricted events to a root context (shared by Simulator and System).

Handlers of events due together all read the same pre-update context and write into scratch copies;
the scratch is then copied back in one go, as Drake does. Only the abstract state of the leaves that
own an unrestricted event is cloned (copy-on-write). Each function returns the most severe status
a handler returned, or None when every handler simply succeeded.
"""
from __future__ import annotations

import numpy as np

from .dependency import K_XA, K_XC, K_XD
from .events import EventStatus, more_severe

__all__ = ["handle_publish", "handle_discrete", "handle_unrestricted", "calc_discrete"]


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
            leaf_context._scratch_state._abstract._values = [v.Clone() for v in leaf_context._abstract]
    status = None
    for _leaf, leaf_context, event in events:
        status = more_severe(status, event._handle(leaf_context, leaf_context._scratch_state))
        if _failed(status):
            return status
    np.copyto(root._xc, root._xc_scratch)
    np.copyto(root._xd, root._xd_scratch)
    for leaf_context in touched:
        for mine, new in zip(leaf_context._abstract, leaf_context._scratch_state._abstract._values):
            mine.set_value(new.get_value())
        leaf_context._scratch_state._abstract._values = []
    versions = root._versions
    versions[K_XC] += 1
    versions[K_XD] += 1
    versions[K_XA] += 1
    root._vsum += 3
    return status
