"""`SpatialVector`: the shared base of SpatialVelocity, SpatialAcceleration, SpatialForce, SpatialMomentum.

A spatial vector stores six numbers [rotational; translational] expressed in one frame E. This base holds
the storage, accessors, re-expression (`Rotate`) and the vector-space operators; each subclass adds the
physics that differs (Shift, Compose..., dot). Operators only combine vectors of the same kind.
"""
from __future__ import annotations

import numpy as np

from mallard.common.scalar_template import ScalarCast

from mallard.multibody.math._validation import as_float, as_vector3, as_vector6

__all__ = ["SpatialVector"]


class SpatialVector:
    """Six-vector [rotational; translational] expressed in a frame E."""

    __slots__ = ("_V",)
    cast = ScalarCast()
    # (rotational name, translational name, six-vector name) used by the constructor's keywords and repr.
    _NAMES = ("rotational", "translational", "V")

    def __init__(self, *args, **kwargs) -> None:
        cls = type(self).__name__
        rot, trans, six = self._NAMES
        if kwargs:
            if set(kwargs) <= {rot, trans}:
                args = tuple(args) + tuple(kwargs[k] for k in (rot, trans)[len(args):])
            elif set(kwargs) == {six} and not args:
                args = (kwargs[six],)
            else:
                raise TypeError(f"{cls}(): unsupported keyword arguments {sorted(kwargs)}; use {cls}({rot}, {trans}) "
                                f"or {cls}({six}).")
        if len(args) == 0:
            self._V = np.full(6, np.nan)
        elif len(args) == 1:
            self._V = as_vector6(args[0], six, cls)
        elif len(args) == 2:
            self._V = np.concatenate((as_vector3(args[0], rot, cls), as_vector3(args[1], trans, cls)))
        else:
            raise TypeError(f"{cls}(): expected 0, 1 or 2 arguments, got {len(args)}.")

    @classmethod
    def _wrap(cls, V: np.ndarray):
        """Wraps a trusted (6,) array without copy or checks; for internal use."""
        obj = object.__new__(cls)
        obj._V = V
        return obj

    @classmethod
    def Zero(cls):
        """The zero spatial vector."""
        return cls._wrap(np.zeros(6))

    def rotational(self) -> np.ndarray:
        """The rotational part (first three entries), read-only view."""
        view = self._V[0:3]
        view.flags.writeable = False
        return view

    def translational(self) -> np.ndarray:
        """The translational part (last three entries), read-only view."""
        view = self._V[3:6]
        view.flags.writeable = False
        return view

    def get_coeffs(self) -> np.ndarray:
        """A copy of all six entries [rotational; translational]."""
        return self._V.copy()

    def SetZero(self):
        """Sets all entries to zero and returns self."""
        self._V = np.zeros(6)
        return self

    def SetNaN(self):
        """Sets all entries to NaN (marks the vector as uninitialized) and returns self."""
        self._V = np.full(6, np.nan)
        return self

    def IsNaN(self) -> bool:
        """True if any entry is NaN."""
        return bool(np.any(np.isnan(self._V)))

    def IsApprox(self, other, precision: float = np.finfo(float).eps) -> bool:
        """Eigen-style relative comparison of each part: |a − b| <= precision · min(|a|, |b|)."""
        self._check_same_kind(other, "IsApprox")
        for a, b in ((self._V[:3], other._V[:3]), (self._V[3:], other._V[3:])):
            if np.linalg.norm(a - b) > precision * min(np.linalg.norm(a), np.linalg.norm(b)):
                return False
        return True

    def IsNearlyEqualWithinAbsoluteTolerance(self, other, tolerance: float) -> bool:
        """True if every entry differs from other's by at most `tolerance`."""
        self._check_same_kind(other, "IsNearlyEqualWithinAbsoluteTolerance")
        return bool(np.max(np.abs(self._V - other._V)) <= tolerance)

    def Rotate(self, R_FE):
        """Re-expresses this vector from frame E in frame F: [R_FE r; R_FE t]."""
        R = getattr(R_FE, "_R", None)
        if R is None:
            raise TypeError(f"{type(self).__name__}.Rotate(): expected a RotationMatrix R_FE, "
                            f"got {type(R_FE).__name__}.")
        out = np.empty(6)
        out[0:3] = R @ self._V[0:3]
        out[3:6] = R @ self._V[3:6]
        return self._wrap(out)

    def _check_same_kind(self, other, op: str) -> None:
        if type(other) is not type(self):
            raise TypeError(f"{type(self).__name__}.{op}(): expected a {type(self).__name__}, "
                            f"got {type(other).__name__}.")

    # ---- vector-space operators ------------------------------------------------------------------
    def __add__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._wrap(self._V + other._V)

    def __sub__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._wrap(self._V - other._V)

    def __iadd__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        self._V = self._V + other._V
        return self

    def __isub__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        self._V = self._V - other._V
        return self

    def __neg__(self):
        return self._wrap(-self._V)

    def __mul__(self, scalar):
        if isinstance(scalar, (SpatialVector, np.ndarray)):
            return NotImplemented
        return self._wrap(self._V * as_float(scalar, "scalar", f"{type(self).__name__}.__mul__"))

    __rmul__ = __mul__

    def __imul__(self, scalar):
        if isinstance(scalar, (SpatialVector, np.ndarray)):
            return NotImplemented
        self._V = self._V * as_float(scalar, "scalar", f"{type(self).__name__}.__imul__")
        return self

    def _power(self, other, allowed: tuple, op: str) -> float:
        if not isinstance(other, allowed):
            names = " or ".join(c.__name__ for c in allowed)
            raise TypeError(f"{type(self).__name__}.{op}(): expected a {names}, got {type(other).__name__}.")
        return float(self._V @ other._V)

    def __repr__(self) -> str:
        rot, trans, _ = self._NAMES
        r = ", ".join(repr(float(x)) for x in self._V[:3])
        t = ", ".join(repr(float(x)) for x in self._V[3:])
        return f"{type(self).__name__}(\n  {rot}=[{r}],\n  {trans}=[{t}],\n)"

    def __getstate__(self) -> np.ndarray:
        """pydrake's pickle state: the six coefficients [rotational; translational]."""
        return self._V.copy()

    def __setstate__(self, state) -> None:
        self._V = np.array(state, dtype=np.float64).reshape(6)


def _offset(value, func: str) -> np.ndarray:
    """A shift offset as a (3,) array (shared by the subclasses' Shift methods)."""
    return as_vector3(value, "offset", func)
