"""`Quaternion` and `AngleAxis`, mirroring `pydrake.common.eigen_geometry` (Eigen's geometry types).

Both are plain value types for orientation. As in pydrake, constructing them from a quaternion that is not
unit length, or an axis that is not unit length, raises (tolerance 1e-5 on the norm).
"""
from __future__ import annotations

import math

import numpy as np

from mallard.common.scalar_template import ScalarCast

from mallard.multibody.math import functions as F
from mallard.multibody.math._validation import MathValueError, as_float, as_matrix, as_vector3

__all__ = ["AngleAxis", "Isometry3", "Quaternion"]

_NORM_TOLERANCE = 1e-5
_EPS = np.finfo(float).eps


def _eigen_quaternion_from_matrix(R: np.ndarray) -> np.ndarray:
    """Eigen's (non-canonical) matrix-to-quaternion conversion, as used by Quaternion(R) and AngleAxis(R)."""
    t = R[0, 0] + R[1, 1] + R[2, 2]
    q = np.empty(4)
    if t > 0.0:
        t = math.sqrt(t + 1.0)
        q[0] = 0.5 * t
        t = 0.5 / t
        q[1] = (R[2, 1] - R[1, 2]) * t
        q[2] = (R[0, 2] - R[2, 0]) * t
        q[3] = (R[1, 0] - R[0, 1]) * t
    else:
        i = 0
        if R[1, 1] > R[0, 0]:
            i = 1
        if R[2, 2] > R[i, i]:
            i = 2
        j = (i + 1) % 3
        k = (j + 1) % 3
        t = math.sqrt(R[i, i] - R[j, j] - R[k, k] + 1.0)
        q[1 + i] = 0.5 * t
        t = 0.5 / t
        q[0] = (R[k, j] - R[j, k]) * t
        q[1 + j] = (R[j, i] + R[i, j]) * t
        q[1 + k] = (R[k, i] + R[i, k]) * t
    return q


def _check_unit_quaternion(q: np.ndarray) -> np.ndarray:
    norm = math.sqrt(float(q @ q))
    if not (abs(norm - 1.0) <= _NORM_TOLERANCE):
        raise MathValueError(
            f"Quaternion is not normalized: |q| = {norm:.17g} for q = [w, x, y, z] = {q.tolist()}. "
            "Normalize it (q / |q|) before constructing the Quaternion.")
    return q


class Quaternion:
    """A unit quaternion q = w + x i + y j + z k (Hamilton convention), stored as [w, x, y, z]."""

    __slots__ = ("_q",)
    cast = ScalarCast()

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            if set(kwargs) == {"wxyz"} and not args:
                args = (kwargs["wxyz"],)
            elif set(kwargs) == {"rotation"} and not args:
                args = (kwargs["rotation"],)
            elif set(kwargs) == {"other"} and not args:
                args = (kwargs["other"],)
            elif set(kwargs) <= {"w", "x", "y", "z"}:
                args = tuple(args) + tuple(kwargs[k] for k in ("w", "x", "y", "z")[len(args):])
            else:
                raise TypeError(f"Quaternion(): unsupported keyword arguments {sorted(kwargs)}; use "
                                "Quaternion(), Quaternion(wxyz), Quaternion(w, x, y, z) or Quaternion(rotation).")
        if len(args) == 0:
            self._q = np.array([1.0, 0.0, 0.0, 0.0])
            return
        if len(args) == 4:
            q = np.array([as_float(a, n, "Quaternion") for a, n in zip(args, "wxyz")])
            self._q = _check_unit_quaternion(q)
            return
        if len(args) != 1:
            raise TypeError(f"Quaternion(): expected 0, 1 or 4 arguments, got {len(args)}.")
        arg = args[0]
        if isinstance(arg, Quaternion):
            self._q = arg._q.copy()
            return
        a = np.asarray(arg, dtype=np.float64)
        if a.shape in ((4,), (4, 1)):
            self._q = _check_unit_quaternion(a.reshape(4).copy())
        elif a.shape == (3, 3):
            self._q = _check_unit_quaternion(_eigen_quaternion_from_matrix(a))
        else:
            raise MathValueError(f"Quaternion(): expected a 4-vector [w, x, y, z] or a 3x3 rotation matrix, "
                                 f"got an array of shape {a.shape}.")

    @classmethod
    def _from_array(cls, q: np.ndarray) -> "Quaternion":
        obj = object.__new__(cls)
        obj._q = q
        return obj

    @staticmethod
    def Identity() -> "Quaternion":
        """The identity rotation [1, 0, 0, 0]."""
        return Quaternion()

    def w(self) -> float:
        return float(self._q[0])

    def x(self) -> float:
        return float(self._q[1])

    def y(self) -> float:
        return float(self._q[2])

    def z(self) -> float:
        return float(self._q[3])

    def wxyz(self) -> np.ndarray:
        """A copy of [w, x, y, z]."""
        return self._q.copy()

    def xyz(self) -> np.ndarray:
        """A copy of the vector part [x, y, z]."""
        return self._q[1:4].copy()

    def set_wxyz(self, *args, **kwargs) -> None:
        """Sets from a 4-vector wxyz = [w, x, y, z] or four scalars w, x, y, z; raises if not unit length."""
        self._q = Quaternion(*args, **kwargs)._q

    def rotation(self) -> np.ndarray:
        """The 3x3 rotation matrix of this quaternion (Eigen's formula, no renormalization)."""
        w, x, y, z = self._q
        return np.array([
            [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
            [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
            [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)]])

    def set_rotation(self, rotation) -> None:
        """Sets from a 3x3 rotation matrix (Eigen's conversion, sign not canonicalized)."""
        R = as_matrix(rotation, 3, 3, "rotation", "Quaternion.set_rotation")
        self._q = _check_unit_quaternion(_eigen_quaternion_from_matrix(R))

    def conjugate(self) -> "Quaternion":
        """[w, -x, -y, -z]: the inverse rotation."""
        return Quaternion._from_array(F.quaternion_conjugate(self._q))

    def inverse(self) -> "Quaternion":
        """The conjugate divided by |q|²."""
        return Quaternion._from_array(F.quaternion_conjugate(self._q) / float(self._q @ self._q))

    def multiply(self, other=None, *, vector=None):
        """Hamilton product with a Quaternion `other`, or rotation of a 3-vector / 3xN array of vectors."""
        if (other is None) == (vector is None):
            raise TypeError("Quaternion.multiply(): pass one of other or vector")
        other = vector if other is None else other
        if isinstance(other, Quaternion):
            return Quaternion._from_array(F.quaternion_multiply(self._q, other._q))
        v = np.asarray(other, dtype=np.float64)
        if v.shape == (3,):
            return F.quaternion_rotate(self._q, v)
        if v.ndim == 2 and v.shape[0] == 3:
            return self.rotation() @ v
        raise MathValueError(f"Quaternion.multiply(): expected a Quaternion, a 3-vector or a 3xN array, "
                             f"got shape {v.shape}.")

    def __matmul__(self, other):
        return self.multiply(other)

    def slerp(self, t: float, other: "Quaternion") -> "Quaternion":
        """Spherical linear interpolation from self (t = 0) to other (t = 1) along the shorter arc."""
        d = float(self._q @ other._q)
        absd = abs(d)
        if absd >= 1.0 - _EPS:
            s0, s1 = 1.0 - t, t
        else:
            theta = math.acos(absd)
            sin_theta = math.sin(theta)
            s0 = math.sin((1.0 - t) * theta) / sin_theta
            s1 = math.sin(t * theta) / sin_theta
        if d < 0.0:
            s1 = -s1
        return Quaternion._from_array(s0 * self._q + s1 * other._q)

    def __repr__(self) -> str:
        w, x, y, z = (float(c) for c in self._q)
        return f"Quaternion(w={w!r}, x={x!r}, y={y!r}, z={z!r})"

    def __reduce__(self):
        return (Quaternion, (self._q.copy(),))


class AngleAxis:
    """A rotation by `angle` (rad) about the unit vector `axis`."""

    __slots__ = ("_angle", "_axis")
    cast = ScalarCast()

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            names = ("angle", "axis") if set(kwargs) <= {"angle", "axis"} else None
            if names is not None:
                args = tuple(args) + tuple(kwargs[k] for k in names[len(args):])
            elif len(kwargs) == 1 and not args and next(iter(kwargs)) in ("quaternion", "rotation", "other"):
                args = (next(iter(kwargs.values())),)
            else:
                raise TypeError(f"AngleAxis(): unsupported keyword arguments {sorted(kwargs)}.")
        if len(args) == 0:
            self._angle, self._axis = 0.0, np.array([1.0, 0.0, 0.0])
        elif len(args) == 2:
            self._angle = as_float(args[0], "angle", "AngleAxis")
            self._axis = self._checked_axis(args[1])
        elif len(args) == 1:
            arg = args[0]
            if isinstance(arg, AngleAxis):
                self._angle, self._axis = arg._angle, arg._axis.copy()
            elif isinstance(arg, Quaternion):
                self._set_from_quaternion(arg._q)
            else:
                R = as_matrix(arg, 3, 3, "rotation", "AngleAxis")
                self._set_from_quaternion(_eigen_quaternion_from_matrix(R))
        else:
            raise TypeError(f"AngleAxis(): expected 0, 1 or 2 arguments, got {len(args)}.")

    @staticmethod
    def _checked_axis(axis) -> np.ndarray:
        a = as_vector3(axis, "axis", "AngleAxis")
        norm = math.sqrt(float(a @ a))
        if not (abs(norm - 1.0) <= _NORM_TOLERANCE):
            raise MathValueError(f"Axis is not normalized: |axis| = {norm:.17g} for axis = {a.tolist()}.")
        return a

    def _set_from_quaternion(self, q: np.ndarray) -> None:
        angle, axis = F.angle_axis_from_quaternion(q)
        self._angle, self._axis = float(angle), axis

    @staticmethod
    def Identity() -> "AngleAxis":
        """Zero rotation about [1, 0, 0]."""
        return AngleAxis()

    def angle(self) -> float:
        return self._angle

    def axis(self) -> np.ndarray:
        """A copy of the unit axis."""
        return self._axis.copy()

    def set_angle(self, angle: float) -> None:
        self._angle = as_float(angle, "angle", "AngleAxis.set_angle")

    def set_axis(self, axis) -> None:
        self._axis = self._checked_axis(axis)

    def quaternion(self) -> Quaternion:
        """The quaternion [cos(θ/2), sin(θ/2) λ]."""
        h = 0.5 * self._angle
        return Quaternion._from_array(np.concatenate(([math.cos(h)], math.sin(h) * self._axis)))

    def set_quaternion(self, q: Quaternion) -> None:
        self._set_from_quaternion(q._q)

    def rotation(self) -> np.ndarray:
        """The 3x3 rotation matrix (Rodrigues' formula)."""
        return F.rotation_matrix_from_angle_axis(self._angle, self._axis)

    def set_rotation(self, rotation) -> None:
        R = as_matrix(rotation, 3, 3, "rotation", "AngleAxis.set_rotation")
        self._set_from_quaternion(_eigen_quaternion_from_matrix(R))

    def inverse(self) -> "AngleAxis":
        """Rotation by -angle about the same axis."""
        out = AngleAxis()
        out._angle, out._axis = -self._angle, self._axis.copy()
        return out

    def multiply(self, other: "AngleAxis") -> Quaternion:
        """Composition of two rotations, returned as a Quaternion (as Eigen does)."""
        return self.quaternion().multiply(other.quaternion())

    def __matmul__(self, other: "AngleAxis") -> Quaternion:
        return self.multiply(other)

    def __repr__(self) -> str:
        return f"AngleAxis(angle={self._angle!r}, axis={self._axis})"

    def __reduce__(self):
        return (AngleAxis, (self._angle, self._axis.copy()))


class Isometry3:
    """An Eigen::Isometry3d: a rigid transform stored as a 4x4 homogeneous matrix [[R, p], [0 0 0 1]].

    The rotation block must be orthonormal (checked with the same tolerance as Quaternion's norm).
    """

    __slots__ = ("_M",)
    cast = ScalarCast()

    def __init__(self, *args, **kwargs) -> None:
        names = ("matrix",) if "matrix" in kwargs else ("rotation", "quaternion", "translation", "other")
        if set(kwargs) - {"matrix", "rotation", "quaternion", "translation", "other"}:
            raise TypeError(f"Isometry3(): unsupported keyword arguments {sorted(kwargs)}.")
        args = tuple(args) + tuple(kwargs[k] for k in names if k in kwargs)
        self._M = np.eye(4)
        if len(args) == 1:
            if isinstance(args[0], Isometry3):
                self._M = args[0]._M.copy()
            else:
                self.set_matrix(args[0])
        elif len(args) == 2:
            rotation, translation = args
            self.set_rotation(rotation.rotation() if isinstance(rotation, Quaternion) else rotation)
            self.set_translation(translation)
        elif args:
            raise TypeError(f"Isometry3(): expected 0, 1 or 2 arguments, got {len(args)}.")

    @staticmethod
    def Identity() -> "Isometry3":
        return Isometry3()

    def matrix(self) -> np.ndarray:
        return self._M.copy()

    def set_matrix(self, matrix) -> None:
        M = as_matrix(matrix, 4, 4, "matrix", "Isometry3")
        _check_orthonormal(M[:3, :3], "Isometry3")
        self._M = M.copy()

    def translation(self) -> np.ndarray:
        return self._M[:3, 3].copy()

    def set_translation(self, translation) -> None:
        self._M[:3, 3] = as_vector3(translation, "translation", "Isometry3")

    def rotation(self) -> np.ndarray:
        return self._M[:3, :3].copy()

    def set_rotation(self, rotation) -> None:
        R = as_matrix(rotation, 3, 3, "rotation", "Isometry3")
        _check_orthonormal(R, "Isometry3")
        self._M[:3, :3] = R

    def quaternion(self) -> Quaternion:
        return Quaternion(self._M[:3, :3])

    def set_quaternion(self, quaternion: Quaternion) -> None:
        self._M[:3, :3] = quaternion.rotation()

    def inverse(self) -> "Isometry3":
        out = Isometry3()
        Rt = self._M[:3, :3].T
        out._M[:3, :3], out._M[:3, 3] = Rt, -(Rt @ self._M[:3, 3])
        return out

    def multiply(self, other=None, position=None):
        """The composition with another Isometry3, or the transformed point(s) (3-vector or 3xN)."""
        other = position if other is None else other
        if isinstance(other, Isometry3):
            out = Isometry3()
            out._M = self._M @ other._M
            return out
        p = np.asarray(other, dtype=np.float64)
        if p.shape == (3,):
            return self._M[:3, :3] @ p + self._M[:3, 3]
        if p.ndim == 2 and p.shape[0] == 3:
            return self._M[:3, :3] @ p + self._M[:3, 3:4]
        raise MathValueError(f"Isometry3.multiply(): expected an Isometry3 or 3xN points, got shape {p.shape}.")

    def __matmul__(self, other):
        return self.multiply(other)

    def __getstate__(self) -> np.ndarray:
        return self._M.copy()

    def __setstate__(self, state) -> None:
        self._M = np.array(state, dtype=np.float64).reshape(4, 4)

    def __repr__(self) -> str:
        return f"Isometry3(matrix={self._M.tolist()})"


def _check_orthonormal(R: np.ndarray, func: str) -> None:
    if not np.all(np.isfinite(R)) or np.max(np.abs(R @ R.T - np.eye(3))) > _NORM_TOLERANCE:
        raise MathValueError(f"{func}(): Rotation matrix is not orthonormal: {R.tolist()}.")
