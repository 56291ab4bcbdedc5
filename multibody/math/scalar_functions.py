"""pydrake.math's scalar functions and array helpers on floats: log, sqrt, sin, ..., min, max, pow, inv, matmul.

pydrake overloads these for float, AutoDiffXd and Expression; mallard is double precision only, so each is
the float version: scalars in, a Python float (or bool for `isnan`) out, as pydrake returns. The
comparison helpers (`eq`, `lt`, ...) are numpy's elementwise comparisons, as pydrake's vectorized ones.
"""
from __future__ import annotations

import builtins
import math as _m

import numpy as np

__all__ = ["abs", "acos", "arccos", "arcsin", "arctan", "arctan2", "asin", "atan", "atan2", "ceil", "cos", "cosh",
           "eq", "exp", "floor", "ge", "gt", "inv", "isnan", "le", "log", "lt", "matmul", "max", "min", "ne", "pow",
           "sin", "sinh", "sqrt", "tan", "tanh"]


def _unary(name: str, fn, doc: str):
    def f(x) -> float:
        return float(fn(float(x)))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"{doc} of a float (pydrake.math.{name})."
    return f


log = _unary("log", _m.log, "Natural logarithm")
abs = _unary("abs", _m.fabs, "Absolute value")  # noqa: A001 (pydrake's name)
exp = _unary("exp", _m.exp, "Exponential")
sqrt = _unary("sqrt", _m.sqrt, "Square root")
sin = _unary("sin", _m.sin, "Sine (radians)")
cos = _unary("cos", _m.cos, "Cosine (radians)")
tan = _unary("tan", _m.tan, "Tangent (radians)")
asin = _unary("asin", _m.asin, "Arc sine (radians)")
acos = _unary("acos", _m.acos, "Arc cosine (radians)")
atan = _unary("atan", _m.atan, "Arc tangent (radians)")
sinh = _unary("sinh", _m.sinh, "Hyperbolic sine")
cosh = _unary("cosh", _m.cosh, "Hyperbolic cosine")
tanh = _unary("tanh", _m.tanh, "Hyperbolic tangent")
ceil = _unary("ceil", _m.ceil, "Ceiling, as a float")
floor = _unary("floor", _m.floor, "Floor, as a float")
arcsin, arccos, arctan = asin, acos, atan


def isnan(x) -> bool:
    """True when the float x is NaN (pydrake.math.isnan)."""
    return _m.isnan(float(x))


def min(a, b) -> float:  # noqa: A001 (pydrake's name)
    """The smaller of two floats (pydrake.math.min)."""
    return float(builtins.min(float(a), float(b)))


def max(a, b) -> float:  # noqa: A001 (pydrake's name)
    """The larger of two floats (pydrake.math.max)."""
    return float(builtins.max(float(a), float(b)))


def pow(base, exponent) -> float:  # noqa: A001 (pydrake's name)
    """base raised to exponent, in floats (pydrake.math.pow)."""
    return _m.pow(float(base), float(exponent))


def atan2(y, x) -> float:
    """Four-quadrant arc tangent of y/x in radians (pydrake.math.atan2)."""
    return _m.atan2(float(y), float(x))


arctan2 = atan2


def inv(X) -> np.ndarray:
    """Inverse of a square float matrix (pydrake.math.inv)."""
    A = np.asarray(X, dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"inv(): expected a square matrix, got an array of shape {A.shape}")
    return np.linalg.inv(A)


def matmul(A, B) -> np.ndarray:
    """Matrix product A @ B of float arrays (pydrake.math.matmul)."""
    return np.matmul(np.asarray(A, dtype=float), np.asarray(B, dtype=float))


def _compare(name: str, op):
    def f(a, b):
        return op(np.asarray(a), np.asarray(b))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise `{name}` of two arrays (pydrake.math.{name}, Drake's vectorized comparison)."
    return f


eq = _compare("eq", np.equal)
ne = _compare("ne", np.not_equal)
lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)
