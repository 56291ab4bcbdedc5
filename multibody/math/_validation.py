"""Input checks shared by the math and inertia classes: array shapes, finiteness, unit vectors.

Every helper raises `MathValueError` (a ValueError that is also a RuntimeError, because pydrake raises
RuntimeError for the same conditions) with a message naming the function and argument.
"""
from __future__ import annotations

import numpy as np


class MathValueError(ValueError, RuntimeError):
    """A bad value passed to a math or inertia class (wrong size, non-finite, not orthonormal, non-physical).

    It derives from ValueError (mallard's convention for bad values) and from RuntimeError, which is what
    pydrake raises for the same conditions, so code written against either catches it.
    """


def as_vector3(value, name: str, func: str) -> np.ndarray:
    """Returns `value` as a new float64 array of shape (3,); raises MathValueError otherwise."""
    try:
        v = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MathValueError(f"{func}(): argument '{name}' must be a 3-vector of floats, got {value!r}.") from exc
    if v.shape not in ((3,), (3, 1), (1, 3)):
        raise MathValueError(f"{func}(): argument '{name}' must be a 3-vector, got an array of shape {v.shape}.")
    return v.reshape(3)


def as_vector6(value, name: str, func: str) -> np.ndarray:
    """Returns `value` as a new float64 array of shape (6,); raises MathValueError otherwise."""
    try:
        v = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MathValueError(f"{func}(): argument '{name}' must be a 6-vector of floats, got {value!r}.") from exc
    if v.shape not in ((6,), (6, 1), (1, 6)):
        raise MathValueError(f"{func}(): argument '{name}' must be a 6-vector, got an array of shape {v.shape}.")
    return v.reshape(6)


def as_matrix(value, rows: int, cols: int, name: str, func: str) -> np.ndarray:
    """Returns `value` as a new float64 array of shape (rows, cols); raises MathValueError otherwise."""
    try:
        m = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MathValueError(f"{func}(): argument '{name}' must be a {rows}x{cols} matrix of floats.") from exc
    if m.shape != (rows, cols):
        raise MathValueError(f"{func}(): argument '{name}' must be a {rows}x{cols} matrix, got shape {m.shape}.")
    return m


def as_float(value, name: str, func: str) -> float:
    """Returns `value` as a Python float; raises MathValueError for non-scalars."""
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise MathValueError(f"{func}(): argument '{name}' must be a real number, got {value!r}.") from exc


def positive_finite(value, name: str, func: str) -> float:
    """Returns `value` as a float if it is positive and finite (pydrake's factory-argument rule)."""
    x = as_float(value, name, func)
    if not (np.isfinite(x) and x > 0.0):
        raise MathValueError(f"{func}(): {name} is not positive and finite: {x:g}.")
    return x


def nonnegative_finite(value, name: str, func: str) -> float:
    """Returns `value` as a float if it is non-negative and finite."""
    x = as_float(value, name, func)
    if not (np.isfinite(x) and x >= 0.0):
        raise MathValueError(f"{func}(): {name} is not non-negative and finite: {x:g}.")
    return x


def unit_vector(value, name: str, func: str, tolerance: float = 1e-14) -> np.ndarray:
    """Returns `value` as a 3-vector if |value| is within `tolerance` of 1 (pydrake's inertia-factory check)."""
    u = as_vector3(value, name, func)
    norm = float(np.sqrt(u @ u))
    error = abs(norm - 1.0)
    if not (np.isfinite(error) and error <= tolerance):
        raise MathValueError(
            f"{func}(): The {name} argument {u[0]:g} {u[1]:g} {u[2]:g} is not a unit vector.\n"
            f"|{name}| = {norm:.17g}\n||{name}| - 1| = {error:.17g} is greater than {tolerance:g}.")
    return u
