"""`RollPitchYaw`: SpaceXYZ Euler angles, mirroring `pydrake.math.RollPitchYaw`.

The orientation of frame D in frame A is R_AD = Rz(yaw) Ry(pitch) Rx(roll). Conversions from a rotation
use Drake's quaternion-based algorithm, accurate even at gimbal lock (pitch = ±π/2). Rate conversions that
divide by cos(pitch) raise when |cos(pitch)| < 0.008 (within 0.458° of gimbal lock), as Drake does.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.common.scalar_template import ScalarCast

from mallard.multibody.math import functions as F
from mallard.multibody.math._validation import MathValueError, as_float, as_vector3
from mallard.multibody.math.eigen_geometry import Quaternion
from mallard.multibody.math.rotation_matrix import RotationMatrix

__all__ = ["RollPitchYaw"]

_GIMBAL_LOCK_COS_TOLERANCE = 0.008


class RollPitchYaw:
    """Roll, pitch, yaw angles (rad) of a SpaceXYZ rotation sequence."""

    __slots__ = ("_rpy",)
    cast = ScalarCast()

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            if set(kwargs) <= {"roll", "pitch", "yaw"}:
                args = tuple(args) + tuple(kwargs[k] for k in ("roll", "pitch", "yaw")[len(args):])
            elif len(kwargs) == 1 and not args and next(iter(kwargs)) in ("other", "rpy", "R", "quaternion",
                                                                            "matrix"):
                args = (next(iter(kwargs.values())),)
            else:
                raise TypeError(f"RollPitchYaw(): unsupported keyword arguments {sorted(kwargs)}.")
        if len(args) == 3:
            self._rpy = np.array([as_float(a, n, "RollPitchYaw") for a, n in zip(args, ("roll", "pitch", "yaw"))])
            return
        if len(args) != 1:
            raise TypeError(f"RollPitchYaw(): expected 1 or 3 arguments, got {len(args)}.")
        arg = args[0]
        if isinstance(arg, RollPitchYaw):
            self._rpy = arg._rpy.copy()
        elif isinstance(arg, RotationMatrix):
            self._rpy = F.rpy_from_rotation_matrix(arg._R)
        elif isinstance(arg, Quaternion):
            q = arg._q / math.sqrt(float(arg._q @ arg._q))
            self._rpy = F.rpy_from_quaternion_and_rotation_matrix(q, F.rotation_matrix_from_quaternion(q))
        else:
            a = np.asarray(arg, dtype=np.float64)
            if a.shape == (3, 3):
                self._rpy = F.rpy_from_rotation_matrix(RotationMatrix(a)._R)
            else:
                self._rpy = as_vector3(a, "rpy", "RollPitchYaw")

    @classmethod
    def _from_array(cls, rpy: np.ndarray) -> "RollPitchYaw":
        obj = object.__new__(cls)
        obj._rpy = rpy
        return obj

    def vector(self) -> np.ndarray:
        """A copy of [roll, pitch, yaw]."""
        return self._rpy.copy()

    def roll_angle(self) -> float:
        return float(self._rpy[0])

    def pitch_angle(self) -> float:
        return float(self._rpy[1])

    def yaw_angle(self) -> float:
        return float(self._rpy[2])

    def ToRotationMatrix(self) -> RotationMatrix:
        """R_AD = Rz(yaw) Ry(pitch) Rx(roll)."""
        return RotationMatrix._from_trusted(F.rotation_matrix_from_rpy(self._rpy))

    def ToQuaternion(self) -> Quaternion:
        """The quaternion of R_AD (product of the half-angle rotations; not sign-canonicalized)."""
        return Quaternion._from_array(F.quaternion_from_rpy(self._rpy))

    def IsNearlySameOrientation(self, other: "RollPitchYaw", tolerance: float) -> bool:
        """True if the two rotation matrices agree element-wise within `tolerance`."""
        return self.ToRotationMatrix().IsNearlyEqualTo(other.ToRotationMatrix(), tolerance)

    def IsNearlyEqualTo(self, other: "RollPitchYaw", tolerance: float) -> bool:
        """True if the three angles agree within `tolerance`."""
        return bool(np.max(np.abs(self._rpy - other._rpy)) <= tolerance)

    # ---- time derivatives ------------------------------------------------------------------------
    def CalcRotationMatrixDt(self, rpyDt) -> np.ndarray:
        """Ṙ_AD (3x3) for angle rates rpyDt = [ṙ, ṗ, ẏ] (rad/s)."""
        rd, pd, yd = as_vector3(rpyDt, "rpyDt", "CalcRotationMatrixDt")
        r, p, y = self._rpy
        c0, c1, c2 = math.cos(r), math.cos(p), math.cos(y)
        s0, s1, s2 = math.sin(r), math.sin(p), math.sin(y)
        R_r = np.array([[0.0, c2 * s1 * c0 + s2 * s0, -c2 * s1 * s0 + s2 * c0],
                        [0.0, s2 * s1 * c0 - c2 * s0, -s2 * s1 * s0 - c2 * c0],
                        [0.0, c1 * c0, -c1 * s0]])
        R_p = np.array([[-c2 * s1, c2 * c1 * s0, c2 * c1 * c0],
                        [-s2 * s1, s2 * c1 * s0, s2 * c1 * c0],
                        [-c1, -s1 * s0, -s1 * c0]])
        R_y = np.array([[-s2 * c1, -s2 * s1 * s0 - c2 * c0, -s2 * s1 * c0 + c2 * s0],
                        [c2 * c1, c2 * s1 * s0 - s2 * c0, c2 * s1 * c0 + s2 * s0],
                        [0.0, 0.0, 0.0]])
        return R_r * rd + R_p * pd + R_y * yd

    def _parent_map(self) -> np.ndarray:
        """N with w_AD_A = N rpyDt."""
        _, p, y = self._rpy
        sp, cp, sy, cy = math.sin(p), math.cos(p), math.sin(y), math.cos(y)
        return np.array([[cp * cy, -sy, 0.0], [cp * sy, cy, 0.0], [-sp, 0.0, 1.0]])

    def _child_map(self) -> np.ndarray:
        """N with w_AD_D = N rpyDt."""
        r, p, _ = self._rpy
        sr, cr, sp, cp = math.sin(r), math.cos(r), math.sin(p), math.cos(p)
        return np.array([[1.0, 0.0, -sp], [0.0, cr, sr * cp], [0.0, -sr, cr * cp]])

    def _check_gimbal_lock(self, func: str) -> float:
        cp = math.cos(self._rpy[1])
        if abs(cp) < _GIMBAL_LOCK_COS_TOLERANCE:
            tol_deg = math.degrees(math.asin(_GIMBAL_LOCK_COS_TOLERANCE))
            raise MathValueError(
                f"RollPitchYaw::{func}(): Pitch angle p = {math.degrees(self._rpy[1]):g} degrees is within "
                f"{tol_deg:g} degrees of gimbal-lock. There is a divide-by-zero error (singularity) at "
                "gimbal-lock.  Pitch angles near gimbal-lock cause numerical inaccuracies.  To avoid this "
                "orientation singularity, use a quaternion -- not RollPitchYaw.")
        return cp

    def _parent_inverse_map(self, func: str) -> np.ndarray:
        cp = self._check_gimbal_lock(func)
        _, p, y = self._rpy
        sp, sy, cy = math.sin(p), math.sin(y), math.cos(y)
        return np.array([[cy / cp, sy / cp, 0.0], [-sy, cy, 0.0], [cy / cp * sp, sy / cp * sp, 1.0]])

    def _child_inverse_map(self, func: str) -> np.ndarray:
        cp = self._check_gimbal_lock(func)
        r, p, _ = self._rpy
        sp, sr, cr = math.sin(p), math.sin(r), math.cos(r)
        return np.array([[1.0, sr / cp * sp, cr / cp * sp], [0.0, cr, -sr], [0.0, sr / cp, cr / cp]])

    def CalcAngularVelocityInParentFromRpyDt(self, rpyDt) -> np.ndarray:
        """w_AD_A (rad/s), D's angular velocity in A expressed in A, from rpyDt."""
        return self._parent_map() @ as_vector3(rpyDt, "rpyDt", "CalcAngularVelocityInParentFromRpyDt")

    def CalcAngularVelocityInChildFromRpyDt(self, rpyDt) -> np.ndarray:
        """w_AD_D (rad/s), D's angular velocity in A expressed in D, from rpyDt."""
        return self._child_map() @ as_vector3(rpyDt, "rpyDt", "CalcAngularVelocityInChildFromRpyDt")

    def CalcRpyDtFromAngularVelocityInParent(self, w_AD_A) -> np.ndarray:
        """rpyDt from w_AD_A; raises ValueError near gimbal lock."""
        func = "CalcRpyDtFromAngularVelocityInParent"
        return self._parent_inverse_map(func) @ as_vector3(w_AD_A, "w_AD_A", func)

    def CalcRpyDtFromAngularVelocityInChild(self, w_AD_D) -> np.ndarray:
        """rpyDt from w_AD_D; raises ValueError near gimbal lock."""
        func = "CalcRpyDtFromAngularVelocityInChild"
        return self._child_inverse_map(func) @ as_vector3(w_AD_D, "w_AD_D", func)

    def CalcRpyDDtFromRpyDtAndAngularAccelInParent(self, rpyDt, alpha_AD_A) -> np.ndarray:
        """Second derivatives of the angles from rpyDt and alpha_AD_A (rad/s²); raises near gimbal lock."""
        func = "CalcRpyDDtFromRpyDtAndAngularAccelInParent"
        rd = as_vector3(rpyDt, "rpyDt", func)
        alpha = as_vector3(alpha_AD_A, "alpha_AD_A", func)
        Minv = self._parent_inverse_map(func)
        _, p, y = self._rpy
        sp, cp, sy, cy = math.sin(p), math.cos(p), math.sin(y), math.cos(y)
        pd, yd = rd[1], rd[2]
        MDt = np.array([[-cy * sp * pd - sy * cp * yd, -cy * yd, 0.0],
                        [-sy * sp * pd + cy * cp * yd, -sy * yd, 0.0],
                        [-cp * pd, 0.0, 0.0]])
        return Minv @ (alpha - MDt @ rd)

    def CalcRpyDDtFromAngularAccelInChild(self, rpyDt, alpha_AD_D) -> np.ndarray:
        """Second derivatives of the angles from rpyDt and alpha_AD_D (rad/s²); raises near gimbal lock."""
        func = "CalcRpyDDtFromAngularAccelInChild"
        rd = as_vector3(rpyDt, "rpyDt", func)
        alpha = as_vector3(alpha_AD_D, "alpha_AD_D", func)
        M = self._child_inverse_map(func)
        _, p, _ = self._rpy
        cp = math.cos(p)
        tanp = math.tan(p)
        r_dot, p_dot, y_dot = rd
        remainder = np.array([tanp * r_dot * p_dot + p_dot * y_dot / cp,
                              -cp * r_dot * y_dot,
                              tanp * p_dot * y_dot + r_dot * p_dot / cp])
        return M @ alpha + remainder

    def __repr__(self) -> str:
        r, p, y = (float(a) for a in self._rpy)
        return f"RollPitchYaw(roll={r!r}, pitch={p!r}, yaw={y!r})"

    def __getstate__(self) -> np.ndarray:
        """pydrake's pickle state: [roll, pitch, yaw]."""
        return self._rpy.copy()

    def __setstate__(self, state) -> None:
        self._rpy = np.array(state, dtype=np.float64).reshape(3)
