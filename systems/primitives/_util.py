"""Small shared helpers of the primitives: argument checks and no-copy input reads."""
from __future__ import annotations

import math

import numpy as np

from mallard.systems.framework.overloads import one_argument  # noqa: F401 (re-exported for the primitives)


def input_data(system, context, index: int = 0) -> np.ndarray:
    """The input vector of port `index` as a read-only-by-convention numpy view (no copy)."""
    raw = system._eval_input_raw(context, index)
    if raw is None:
        port = system.get_input_port(index)
        raise RuntimeError(f"{port.GetFullDescription()} is not connected and has no fixed value. "
                           "Connect it in a DiagramBuilder or call FixValue(context, value) on it.")
    return raw._data


def as_vector(value, what: str, finite: bool = False) -> np.ndarray:
    """A 1-D float copy of `value` (scalars become size-1 vectors); ValueError for matrices (or non-finite)."""
    arr = np.array(value, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    elif arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a vector, got an array of shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: must be finite, got {arr}")
    return arr


def as_matrix(value, what: str, finite: bool = False) -> np.ndarray:
    """A 2-D float copy of `value` (a 1-D array is one row; empty input gives a 0x0 matrix)."""
    arr = np.array(value, dtype=float)
    if arr.size == 0:
        return np.zeros((arr.shape[0], arr.shape[1]) if arr.ndim == 2 else (0, 0))
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    elif arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise ValueError(f"{what}: expected a matrix, got an array of shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: must be finite")
    return arr


def positive_int(value, what: str, allow_zero: bool = False) -> int:
    """`value` as an int, which must be positive (or >= 0 with allow_zero)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{what} must be {'>= 0' if allow_zero else '> 0'}, got {value}")
    return int(value)


def positive_period(value, what: str) -> float:
    """A positive, finite period in seconds."""
    v = float(value)
    if not (v > 0.0 and math.isfinite(v)):
        raise ValueError(f"{what} must be positive and finite, got {value}")
    return v

