"""Non-finite state detection: a NaN or inf produced by an update or an integration step stops the
simulation with an error naming the system, the state and the time, instead of flowing into the state
and the logs.

The test is one reduction over a flat array (the sum of finite numbers is finite unless it overflows, and
a NaN or inf anywhere makes it non-finite), so the framework runs it on every update; locating the bad
entry, naming it and looking at the system's inputs happens only on failure.
"""
from __future__ import annotations

import math

import numpy as np

from .basic_vector import VectorBase

__all__ = ["all_finite", "is_numeric_nonfinite", "describe_state_entry", "nonfinite_inputs",
           "new_nonfinite", "nonfinite_discrete_message", "nonfinite_continuous_update_message", "nonfinite_abstract_message"]


def all_finite(x: np.ndarray) -> bool:
    """True when every entry of the float array `x` is finite (one reduction; exact). A short vector is summed as
    Python floats: a quarter of a numpy reduction's call cost, which an update pays once per step."""
    if x.ndim == 1 and x.shape[0] <= _SHORT:
        return math.isfinite(sum(x.tolist())) or bool(np.isfinite(x).all())
    return math.isfinite(np.add.reduce(x, axis=None)) or bool(np.isfinite(x).all())


_SHORT = 64  # entries up to which all_finite sums Python floats


def is_numeric_nonfinite(value) -> bool:
    """True for a numeric abstract value (float, float/complex array, BasicVector) holding NaN or inf."""
    if isinstance(value, VectorBase):
        value = value.get_value()
    if isinstance(value, (float, np.floating)):
        return not math.isfinite(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        return not bool(np.isfinite(value).all())
    return False


def describe_state_entry(leaf, kind: str, group: int, index: int, size: int) -> str:
    """`'name' (index i)` for a state entry of `leaf`, with the system's state name when it has one."""
    names = None
    if kind == "continuous" or (kind == "discrete" and group == 0):
        get_names = getattr(leaf, "GetStateNames", None)
        if get_names is not None:
            try:
                names = list(get_names())
            except (RuntimeError, ValueError, TypeError, AttributeError):
                names = None
    label = f"index {index}" if kind == "continuous" else f"group {group}, index {index}"
    if names is not None and len(names) == size:
        return f"'{names[index]}' ({label})"
    return label


def nonfinite_inputs(leaf, leaf_context) -> str:
    """`; its input port 'u' is non-finite ([nan 1.])` for the vector inputs of `leaf` holding NaN/inf."""
    parts = []
    for port in getattr(leaf, "_input_ports", []):
        try:
            if leaf._resolve_input(leaf_context, port._index)[0] == 2:
                continue
            value = port.Eval(leaf_context)
        except Exception:  # noqa: BLE001 - diagnosing an earlier failure must not replace it
            continue
        if is_numeric_nonfinite(value if not isinstance(value, (list, tuple)) else np.asarray(value, float)):
            parts.append(f"'{port.get_name()}' = {np.array2string(np.asarray(value), threshold=8)}")
    if not parts:
        return ""
    return "; its input port " + ", ".join(parts) + " is non-finite" if len(parts) == 1 else \
        "; its input ports " + ", ".join(parts) + " are non-finite"


def _leaf_name(leaf) -> str:
    return f"{type(leaf).__name__} '{leaf.GetSystemPathname()}'"


_ADVICE = ("; the update left the state as it was before it (check the system's inputs, parameters and update "
           "function)")


def new_nonfinite(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Indices where `new` is NaN/inf and `old` was finite (values a user set non-finite are not reported)."""
    return np.flatnonzero(~np.isfinite(new) & np.isfinite(old))


def nonfinite_discrete_message(pairs: list, time: float) -> str | None:
    """The message for an update that made the discrete state of a leaf in `pairs` ((leaf, leaf_context)
    that ran an update) non-finite, read from the leaf contexts' scratch state (the update's result); None
    when the non-finite entries were already there before the update."""
    for leaf, lc in pairs:
        for g, (vec, old) in enumerate(zip(lc._scratch_state._discrete._groups, lc._discrete._groups)):
            bad = new_nonfinite(vec._data, old._data)
            if bad.size:
                i = int(bad[0])
                return (f"the discrete state of {_leaf_name(leaf)} became non-finite in the update at "
                        f"t = {time:.9g} s: {describe_state_entry(leaf, 'discrete', g, i, vec._data.size)} = "
                        f"{vec._data[i]}{nonfinite_inputs(leaf, lc)}{_ADVICE}")
    return None


def nonfinite_continuous_update_message(pairs: list, time: float) -> str | None:
    """The message for an unrestricted update that made a leaf's continuous state non-finite, or None."""
    for leaf, lc in pairs:
        data = lc._scratch_state._continuous._vector._data
        bad = new_nonfinite(data, lc._continuous._vector._data)
        if bad.size:
            i = int(bad[0])
            return (f"the continuous state of {_leaf_name(leaf)} became non-finite in the update at t = {time:.9g} s: "
                    f"{describe_state_entry(leaf, 'continuous', 0, i, data.size)} = {data[i]}"
                    f"{nonfinite_inputs(leaf, lc)}{_ADVICE}")
    return None


def nonfinite_abstract_message(leaf, leaf_context, index: int, value, time: float) -> str:
    """The message for an unrestricted update that wrote NaN/inf into abstract state `index` of `leaf`."""
    shown = np.array2string(np.asarray(value.get_value() if isinstance(value, VectorBase) else value),
                            threshold=8)
    return (f"the abstract state {index} of {_leaf_name(leaf)} became non-finite in the update at "
            f"t = {time:.9g} s: {shown}{nonfinite_inputs(leaf, leaf_context)}{_ADVICE}")
