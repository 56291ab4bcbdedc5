"""`RotationMatrix` R_AB, mirroring `pydrake.math.RotationMatrix`.

R_AB relates frames A and B: its columns are Bx, By, Bz expressed in A, and `R_AB @ v_B` gives v_A.
Construction from a raw 3x3 matrix checks it is a proper rotation (orthonormal to 128 ε, det > 0) and
raises `ValueError` otherwise, as Drake's debug build does; `MakeUnchecked` skips the check.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.common.scalar_template import ScalarCast

from mallard.multibody.math import functions as F
from mallard.multibody.math._validation import MathValueError, as_float, as_matrix, as_vector3
from mallard.multibody.math.eigen_geometry import AngleAxis, Quaternion

__all__ = ["RotationMatrix"]

_ORTHONORMAL_TOLERANCE = 128 * np.finfo(float).eps


def _check_rotation_matrix(R: np.ndarray, func: str) -> None:
    """Raises MathValueError unless R is finite, orthonormal within 128 ε and right-handed."""
    measure = F.orthonormality_error(R)  # NaN if R has NaN entries, so NaN fails the test below
    if measure <= _ORTHONORMAL_TOLERANCE and F.determinant3(R) > 0.0:
        return
    if not np.all(np.isfinite(R)):
        raise MathValueError(f"{func}: Rotation matrix contains an element that is infinity or NaN:\n{R}")
    if not measure <= _ORTHONORMAL_TOLERANCE:
        raise MathValueError(
            f"{func}: Rotation matrix is not orthonormal.\n"
            f"  Measure of orthonormality error: {measure:g}  (near-zero is good).\n"
            "  To calculate the proper orthonormal rotation matrix closest to the alleged rotation matrix, use "
            "RotationMatrix.ProjectToRotationMatrix(M), or normalize the quaternion it came from.")
    if F.determinant3(R) < 0.0:
        raise MathValueError(f"{func}: Rotation matrix determinant is negative. It is possible a basis is "
                             "left-handed.")


def _is_roll_pitch_yaw(obj) -> bool:
    from mallard.multibody.math.roll_pitch_yaw import RollPitchYaw  # deferred: roll_pitch_yaw imports us
    return isinstance(obj, RollPitchYaw)


class RotationMatrix:
    """A 3x3 proper orthonormal matrix R_AB (rotation of frame B relative to frame A)."""

    __slots__ = ("_R",)
    cast = ScalarCast()

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            if len(kwargs) != 1 or args:
                raise TypeError(f"RotationMatrix(): unsupported arguments {sorted(kwargs)}.")
            key, value = next(iter(kwargs.items()))
            if key not in ("other", "R", "quaternion", "theta_lambda", "rpy"):
                raise TypeError(f"RotationMatrix(): unknown keyword '{key}'; use one of other, R, quaternion, "
                                "theta_lambda, rpy.")
            args = (value,)
        if len(args) == 0:
            self._R = np.eye(3)
            return
        if len(args) != 1:
            raise TypeError(f"RotationMatrix(): expected at most 1 argument, got {len(args)}.")
        arg = args[0]
        if isinstance(arg, RotationMatrix):
            self._R = arg._R.copy()
        elif isinstance(arg, Quaternion):
            self._R = F.rotation_matrix_from_quaternion(arg._q)
        elif isinstance(arg, AngleAxis):
            axis = arg._axis / math.sqrt(float(arg._axis @ arg._axis))
            self._R = F.rotation_matrix_from_angle_axis(arg._angle, axis)
        elif _is_roll_pitch_yaw(arg):
            self._R = F.rotation_matrix_from_rpy(arg._rpy)
        else:
            R = as_matrix(arg, 3, 3, "R", "RotationMatrix")
            _check_rotation_matrix(R, "RotationMatrix()")
            self._R = R

    @classmethod
    def _from_trusted(cls, R: np.ndarray) -> "RotationMatrix":
        """Wraps an array known to be a rotation matrix (no copy, no check); for internal use."""
        obj = object.__new__(cls)
        obj._R = R
        return obj

    # ---- factories -------------------------------------------------------------------------------
    @staticmethod
    def Identity() -> "RotationMatrix":
        return RotationMatrix._from_trusted(np.eye(3))

    @staticmethod
    def MakeUnchecked(R) -> "RotationMatrix":
        """Wraps a 3x3 matrix without checking that it is a rotation."""
        return RotationMatrix._from_trusted(as_matrix(R, 3, 3, "R", "RotationMatrix.MakeUnchecked"))

    @staticmethod
    def MakeXRotation(theta: float) -> "RotationMatrix":
        """Rotation by theta (rad) about the x axis."""
        c, s = math.cos(theta), math.sin(theta)
        return RotationMatrix._from_trusted(np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]))

    @staticmethod
    def MakeYRotation(theta: float) -> "RotationMatrix":
        """Rotation by theta (rad) about the y axis."""
        c, s = math.cos(theta), math.sin(theta)
        return RotationMatrix._from_trusted(np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]))

    @staticmethod
    def MakeZRotation(theta: float) -> "RotationMatrix":
        """Rotation by theta (rad) about the z axis."""
        c, s = math.cos(theta), math.sin(theta)
        return RotationMatrix._from_trusted(np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]))

    @staticmethod
    def MakeFromOneVector(b_A, axis_index: int) -> "RotationMatrix":
        """A right-handed basis B whose axis `axis_index` (0, 1, 2 = x, y, z) is b_A normalized.

        The other two axes follow Drake's deterministic construction (built from the component of b_A
        with the smallest magnitude). Raises ValueError if |b_A| < 1e-10 or is not finite.
        """
        func = "RotationMatrix.MakeFromOneVector"
        b = as_vector3(b_A, "b_A", func)
        if axis_index not in (0, 1, 2):
            raise MathValueError(f"{func}(): axis_index must be 0, 1 or 2, got {axis_index!r}.")
        norm = math.sqrt(float(b @ b))
        if not (math.isfinite(norm) and norm >= 1e-10):
            raise MathValueError(
                f"{func}() cannot normalize the given vector v.\n   v = {b[0]:g} {b[1]:g} {b[2]:g}\n |v| = {norm:g}\n"
                " The measures must be finite and the vector must have a magnitude of at least 1e-10 to "
                "normalize. If you are confident that v's direction is meaningful, pass v.normalized() instead.")
        u = b / norm
        R = np.empty((3, 3))
        R[:, axis_index] = u
        i = int(np.argmin(np.abs(u)))
        j, k = (i + 1) % 3, (i + 2) % 3
        mag = math.sqrt(1.0 - u[i] * u[i])
        r = 1.0 / mag
        s = -r * u[i]
        v = np.empty(3)
        w = np.empty(3)
        v[i], v[j], v[k] = 0.0, -r * u[k], r * u[j]
        w[i], w[j], w[k] = mag, s * u[j], s * u[k]
        R[:, (axis_index + 1) % 3] = v
        R[:, (axis_index + 2) % 3] = w
        return RotationMatrix._from_trusted(R)

    @staticmethod
    def ProjectToRotationMatrix(M) -> "RotationMatrix":
        """The proper rotation closest to M in the Frobenius norm (U Vᵀ from the SVD M = U Σ Vᵀ).

        Raises ValueError if the closest orthonormal matrix is a reflection (det < 0).
        """
        A = as_matrix(M, 3, 3, "M", "RotationMatrix.ProjectToRotationMatrix")
        if not np.all(np.isfinite(A)):
            raise MathValueError("RotationMatrix.ProjectToRotationMatrix(): M contains infinity or NaN.")
        U, _, Vt = np.linalg.svd(A)
        R = U @ Vt
        _check_rotation_matrix(R, "RotationMatrix.ProjectToRotationMatrix()")
        return RotationMatrix._from_trusted(R)

    # ---- accessors -------------------------------------------------------------------------------
    def matrix(self) -> np.ndarray:
        """A copy of the 3x3 matrix."""
        return self._R.copy()

    def set(self, R) -> None:
        """Replaces the matrix after checking it is a proper rotation."""
        M = as_matrix(R, 3, 3, "R", "RotationMatrix.set")
        _check_rotation_matrix(M, "RotationMatrix.set()")
        self._R = M

    def _index(self, index: int, what: str) -> int:
        if not isinstance(index, (int, np.integer)) or not 0 <= index <= 2:
            raise MathValueError(f"RotationMatrix.{what}(): index must be 0, 1 or 2, got {index!r}.")
        return int(index)

    def col(self, index: int) -> np.ndarray:
        """Column `index` (a copy, shape (3,)): the B axis `index` expressed in A."""
        return self._R[:, self._index(index, "col")].copy()

    def row(self, index: int) -> np.ndarray:
        """Row `index` (a copy, shape (3,)): the A axis `index` expressed in B."""
        return self._R[self._index(index, "row"), :].copy()

    # ---- algebra ---------------------------------------------------------------------------------
    def inverse(self) -> "RotationMatrix":
        """R_BA = R_ABᵀ."""
        return RotationMatrix._from_trusted(self._R.T.copy())

    def transpose(self) -> "RotationMatrix":
        """R_BA = R_ABᵀ."""
        return RotationMatrix._from_trusted(self._R.T.copy())

    def InvertAndCompose(self, other: "RotationMatrix") -> "RotationMatrix":
        """R_AC from this R_BA and other R_BC: R_BAᵀ R_BC."""
        return RotationMatrix._from_trusted(self._R.T @ other._R)

    def multiply(self, other=None, *, v_B=None):
        """R_AC = R_AB R_BC for a RotationMatrix `other`; v_A = R_AB v_B for a 3-vector or a 3xN array."""
        if (other is None) == (v_B is None):
            raise TypeError("RotationMatrix.multiply(): pass one of other or v_B")
        other = v_B if other is None else other
        if isinstance(other, RotationMatrix):
            return RotationMatrix._from_trusted(self._R @ other._R)
        v = np.asarray(other, dtype=np.float64)
        if v.shape == (3,) or (v.ndim == 2 and v.shape[0] == 3):
            return self._R @ v
        raise MathValueError(f"RotationMatrix.multiply(): expected a RotationMatrix, a 3-vector or a 3xN array, "
                             f"got an array of shape {v.shape}.")

    def __matmul__(self, other):
        rotate = getattr(other, "Rotate", None)
        if rotate is not None and hasattr(other, "get_coeffs"):
            return rotate(self)
        return self.multiply(other)

    # ---- conversions -----------------------------------------------------------------------------
    def ToQuaternion(self) -> Quaternion:
        """The unit quaternion of this rotation, in canonical form w >= 0."""
        return Quaternion._from_array(F.quaternion_from_rotation_matrix(self._R))

    def ToRollPitchYaw(self):
        """The SpaceXYZ roll-pitch-yaw angles (roll, yaw in [-π, π], pitch in [-π/2, π/2])."""
        from mallard.multibody.math.roll_pitch_yaw import RollPitchYaw
        return RollPitchYaw._from_array(F.rpy_from_rotation_matrix(self._R))

    def ToAngleAxis(self) -> AngleAxis:
        """The angle-axis of this rotation with 0 <= angle <= π."""
        return AngleAxis(self._R)

    # ---- predicates ------------------------------------------------------------------------------
    def IsValid(self) -> bool:
        """True if the matrix is finite, orthonormal within 128 ε, and right-handed."""
        R = self._R
        return bool(F.orthonormality_error(R) <= _ORTHONORMAL_TOLERANCE and F.determinant3(R) >= 0.0)

    def IsExactlyIdentity(self) -> bool:
        return bool(np.array_equal(self._R, np.eye(3)))

    def IsNearlyIdentity(self, tolerance: float = _ORTHONORMAL_TOLERANCE) -> bool:
        """True if every element differs from the identity's by at most `tolerance`."""
        return bool(np.max(np.abs(self._R - np.eye(3))) <= tolerance)

    def IsNearlyEqualTo(self, other: "RotationMatrix", tolerance: float) -> bool:
        """True if every element differs from `other`'s by at most `tolerance`."""
        return bool(np.max(np.abs(self._R - other._R)) <= as_float(tolerance, "tolerance", "IsNearlyEqualTo"))

    def IsExactlyEqualTo(self, other: "RotationMatrix") -> bool:
        return bool(np.array_equal(self._R, other._R))

    def GetMaximumAbsoluteDifference(self, other: "RotationMatrix") -> float:
        return float(np.max(np.abs(self._R - other._R)))

    # ---- python protocol -------------------------------------------------------------------------
    def __repr__(self) -> str:
        rows = "".join(f"  [{', '.join(repr(float(x)) for x in row)}],\n" for row in self._R)
        return f"RotationMatrix([\n{rows}])"

    def __getstate__(self) -> np.ndarray:
        """pydrake's pickle state: the 3x3 matrix."""
        return self._R.copy()

    def __setstate__(self, state) -> None:
        self._R = np.array(state, dtype=np.float64).reshape(3, 3)
