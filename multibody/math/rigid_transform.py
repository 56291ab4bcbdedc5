"""`RigidTransform` X_AB (pose of frame B in frame A), mirroring `pydrake.math.RigidTransform`.

X_AB holds R_AB and p_AoBo_A; `X_AB @ p_BoQ_B` gives p_AoQ_A and `X_AB @ X_BC` gives X_AC.
"""
from __future__ import annotations

import numpy as np

from mallard.common.scalar_template import ScalarCast

from mallard.multibody.math._validation import MathValueError, as_float, as_matrix, as_vector3
from mallard.multibody.math.eigen_geometry import AngleAxis, Isometry3, Quaternion
from mallard.multibody.math.roll_pitch_yaw import RollPitchYaw
from mallard.multibody.math.rotation_matrix import RotationMatrix, _check_rotation_matrix

__all__ = ["RigidTransform"]

_ROTATION_TYPES = (RotationMatrix, RollPitchYaw, Quaternion, AngleAxis)
_BAD_ARGUMENT = ("RigidTransform(): constructor argument is not an expression that can resolve to a 3-vector, "
                 "a 3x4 matrix or a 4x4 matrix (got shape {}).")


def _rotation_array(rotation) -> np.ndarray:
    """R as a 3x3 array from a RotationMatrix, RollPitchYaw, Quaternion or AngleAxis."""
    if isinstance(rotation, RotationMatrix):
        return rotation._R.copy()
    return RotationMatrix(rotation)._R


class RigidTransform:
    """A proper rigid transform X_AB = [R_AB, p_AoBo_A]."""

    __slots__ = ("_R", "_p")
    cast = ScalarCast()

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            keys = ("R", "rpy", "quaternion", "theta_lambda", "p", "pose", "other")
            unknown = set(kwargs) - set(keys)
            if unknown:
                raise TypeError(f"RigidTransform(): unknown keyword(s) {sorted(unknown)}; use one of {keys}.")
            args = tuple(args) + tuple(kwargs[k] for k in keys if k in kwargs)
        if len(args) == 0:
            self._R, self._p = np.eye(3), np.zeros(3)
        elif len(args) == 2:
            if not isinstance(args[0], _ROTATION_TYPES):
                raise TypeError("RigidTransform(R, p): the first argument must be a RotationMatrix, RollPitchYaw, "
                                f"Quaternion or AngleAxis, got {type(args[0]).__name__}.")
            self._R = _rotation_array(args[0])
            self._p = as_vector3(args[1], "p", "RigidTransform")
        elif len(args) == 1:
            arg = args[0]
            if isinstance(arg, RigidTransform):
                self._R, self._p = arg._R.copy(), arg._p.copy()
            elif isinstance(arg, RotationMatrix):
                self._R, self._p = arg._R.copy(), np.zeros(3)
            elif isinstance(arg, Isometry3):
                self._R, self._p = self._arrays_from_matrix(arg.matrix())
            elif isinstance(arg, _ROTATION_TYPES):
                raise TypeError(f"RigidTransform(): a lone {type(arg).__name__} is not accepted (as in pydrake); "
                                f"pass RigidTransform({type(arg).__name__}, p) or RigidTransform(RotationMatrix).")
            else:
                self._R, self._p = self._arrays_from_matrix(arg)
        else:
            raise TypeError(f"RigidTransform(): expected at most 2 arguments, got {len(args)}.")

    @staticmethod
    def _arrays_from_matrix(arg):
        a = np.asarray(arg, dtype=np.float64)
        if a.shape in ((3,), (3, 1)):
            return np.eye(3), a.reshape(3).copy()
        if a.shape == (4, 4):
            if not np.array_equal(a[3], [0.0, 0.0, 0.0, 1.0]):
                raise MathValueError(f"RigidTransform(): the bottom row of a 4x4 pose must be [0, 0, 0, 1], "
                                     f"got {a[3].tolist()}.")
        elif a.shape != (3, 4):
            raise MathValueError(_BAD_ARGUMENT.format(a.shape))
        R = a[:3, :3].copy()
        _check_rotation_matrix(R, "RigidTransform()")
        return R, a[:3, 3].copy()

    @classmethod
    def _from_arrays(cls, R: np.ndarray, p: np.ndarray) -> "RigidTransform":
        """Wraps trusted arrays without copies or checks; for internal use."""
        obj = object.__new__(cls)
        obj._R = R
        obj._p = p
        return obj

    # ---- factories -------------------------------------------------------------------------------
    @staticmethod
    def Identity() -> "RigidTransform":
        return RigidTransform._from_arrays(np.eye(3), np.zeros(3))

    @staticmethod
    def MakeUnchecked(pose) -> "RigidTransform":
        """From a 3x4 [R | p] matrix without checking that R is a rotation."""
        a = as_matrix(pose, 3, 4, "pose", "RigidTransform.MakeUnchecked")
        return RigidTransform._from_arrays(a[:, :3].copy(), a[:, 3].copy())

    # ---- accessors -------------------------------------------------------------------------------
    def rotation(self) -> RotationMatrix:
        """R_AB (a copy)."""
        return RotationMatrix._from_trusted(self._R.copy())

    def translation(self) -> np.ndarray:
        """p_AoBo_A as a read-only view, shape (3,)."""
        view = self._p.view()
        view.flags.writeable = False
        return view

    def set_rotation(self, R=None, *, rpy=None, quaternion=None, theta_lambda=None) -> None:
        """Sets R_AB from a RotationMatrix (R), RollPitchYaw (rpy), Quaternion (quaternion) or AngleAxis
        (theta_lambda)."""
        given = [x for x in (R, rpy, quaternion, theta_lambda) if x is not None]
        if len(given) != 1:
            raise TypeError("RigidTransform.set_rotation(): pass one of R, rpy, quaternion or theta_lambda")
        R = given[0]
        if not isinstance(R, _ROTATION_TYPES):
            raise TypeError("RigidTransform.set_rotation(): expected a RotationMatrix, RollPitchYaw, Quaternion "
                            f"or AngleAxis, got {type(R).__name__}.")
        self._R = _rotation_array(R)

    def set_translation(self, p) -> None:
        """Sets p_AoBo_A."""
        self._p = as_vector3(p, "p", "RigidTransform.set_translation")

    def set(self, R: RotationMatrix, p) -> None:
        """Sets both R_AB and p_AoBo_A."""
        self.set_rotation(R)
        self.set_translation(p)

    def SetFromIsometry3(self, pose: Isometry3) -> None:
        """Sets R_AB and p_AoBo_A from an Isometry3 (its rotation block must be a proper rotation)."""
        self._R, self._p = self._arrays_from_matrix(pose.matrix())

    def GetAsIsometry3(self) -> Isometry3:
        """This transform as an Isometry3."""
        return Isometry3(self.GetAsMatrix4())

    def SetIdentity(self) -> "RigidTransform":
        self._R, self._p = np.eye(3), np.zeros(3)
        return self

    def GetAsMatrix4(self) -> np.ndarray:
        """The 4x4 homogeneous matrix [[R, p], [0, 0, 0, 1]]."""
        M = np.eye(4)
        M[:3, :3] = self._R
        M[:3, 3] = self._p
        return M

    def GetAsMatrix34(self) -> np.ndarray:
        """The 3x4 matrix [R | p]."""
        return np.hstack((self._R, self._p[:, None]))

    # ---- algebra ---------------------------------------------------------------------------------
    def inverse(self) -> "RigidTransform":
        """X_BA = [R_ABᵀ, −R_ABᵀ p_AoBo_A]."""
        Rt = self._R.T.copy()
        return RigidTransform._from_arrays(Rt, -(Rt @ self._p))

    def InvertAndCompose(self, other: "RigidTransform") -> "RigidTransform":
        """X_AC from this X_BA and other X_BC: X_BA⁻¹ X_BC."""
        Rt = self._R.T
        return RigidTransform._from_arrays(Rt @ other._R, Rt @ (other._p - self._p))

    def multiply(self, other=None, *, p_BoQ_B=None, vec_B=None):
        """X_AC for a RigidTransform X_BC; p_AoQ_A for a point p_BoQ_B (3-vector or 3xN points); for a
        4-vector vec_B = [v; s] returns [R v + p s; s]."""
        given = [x for x in (other, p_BoQ_B, vec_B) if x is not None]
        if len(given) != 1:
            raise TypeError("RigidTransform.multiply(): pass one of other, p_BoQ_B or vec_B")
        other = given[0]
        if isinstance(other, RigidTransform):
            return RigidTransform._from_arrays(self._R @ other._R, self._R @ other._p + self._p)
        v = np.asarray(other, dtype=np.float64)
        if v.shape == (3,):
            return self._R @ v + self._p
        if v.shape == (4,):
            if v[3] not in (0.0, 1.0):
                raise MathValueError(f"RigidTransform.multiply(): the 4th element in vector {v.tolist()} is not 0 "
                                     "(a direction) or 1 (a point).")
            out = np.empty(4)
            out[:3] = self._R @ v[:3] + self._p * v[3]
            out[3] = v[3]
            return out
        if v.ndim == 2 and v.shape[0] == 3:
            return self._R @ v + self._p[:, None]
        raise MathValueError(f"RigidTransform.multiply(): expected a RigidTransform, a 3-vector, a 4-vector or "
                             f"a 3xN array of points, got an array of shape {v.shape}.")

    def __matmul__(self, other):
        return self.multiply(other)

    # ---- predicates ------------------------------------------------------------------------------
    def GetMaximumAbsoluteDifference(self, other: "RigidTransform") -> float:
        """Largest absolute element difference of the 3x4 matrices."""
        return float(max(np.max(np.abs(self._R - other._R)), np.max(np.abs(self._p - other._p))))

    def GetMaximumAbsoluteTranslationDifference(self, other: "RigidTransform") -> float:
        return float(np.max(np.abs(self._p - other._p)))

    def IsNearlyEqualTo(self, other: "RigidTransform", tolerance: float) -> bool:
        """True if every element of the 3x4 matrices differs by at most `tolerance`."""
        return self.GetMaximumAbsoluteDifference(other) <= as_float(tolerance, "tolerance", "IsNearlyEqualTo")

    def IsExactlyEqualTo(self, other: "RigidTransform") -> bool:
        return bool(np.array_equal(self._R, other._R) and np.array_equal(self._p, other._p))

    def IsExactlyIdentity(self) -> bool:
        return bool(np.array_equal(self._R, np.eye(3)) and not np.any(self._p))

    def IsNearlyIdentity(self, translation_tolerance: float) -> bool:
        """True if R is the identity within 128 ε and |p|∞ <= translation_tolerance."""
        return bool(np.max(np.abs(self._p)) <= translation_tolerance
                    and RotationMatrix._from_trusted(self._R).IsNearlyIdentity())

    # ---- python protocol -------------------------------------------------------------------------
    def __repr__(self) -> str:
        rows = "".join(f"    [{', '.join(repr(float(x)) for x in row)}],\n" for row in self._R)
        p = ", ".join(repr(float(x)) for x in self._p)
        return f"RigidTransform(\n  R=RotationMatrix([\n{rows}  ]),\n  p=[{p}],\n)"

    def __getstate__(self) -> np.ndarray:
        """pydrake's pickle state: the 3x4 matrix [R p]."""
        return self.GetAsMatrix34()

    def __setstate__(self, state) -> None:
        M = np.array(state, dtype=np.float64).reshape(3, 4)
        self._R, self._p = M[:, :3].copy(), M[:, 3].copy()
