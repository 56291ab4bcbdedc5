"""pydrake.math's quaternion utilities and uniformly random rotations (Drake's math/quaternion.h and
random_rotation.h): canonical forms, quaternion time derivatives from angular velocity (Kane 1983, §1.13)
and Shoemake's uniform sampling of SO(3).
"""
from __future__ import annotations

import math

import numpy as np

from .eigen_geometry import AngleAxis, Quaternion
from .roll_pitch_yaw import RollPitchYaw
from .rotation_matrix import RotationMatrix

__all__ = ["AreQuaternionsEqualForOrientation", "CalculateAngularVelocityExpressedInBFromQuaternionDt",
           "CalculateQuaternionDtConstraintViolation", "CalculateQuaternionDtFromAngularVelocityExpressedInB",
           "ClosestQuaternion", "IsBothQuaternionAndQuaternionDtOK", "IsQuaternionValid",
           "QuaternionToCanonicalForm", "UniformlyRandomAngleAxis", "UniformlyRandomQuaternion",
           "UniformlyRandomRPY", "UniformlyRandomRotationMatrix", "is_quaternion_in_canonical_form"]


def _wxyz(quat) -> np.ndarray:
    if isinstance(quat, Quaternion):
        return quat.wxyz()
    q = np.asarray(quat, dtype=float).reshape(-1)
    if q.size != 4:
        raise ValueError(f"expected a Quaternion or a 4-vector [w, x, y, z], got {q.size} entries")
    return q


def ClosestQuaternion(quat1: Quaternion, quat2: Quaternion) -> Quaternion:
    """quat2 or −quat2 (normalized), whichever is nearer to quat1 on the unit sphere: the same orientation."""
    q1, q2 = _wxyz(quat1), _wxyz(quat2)
    q = -q2 if float(q1 @ q2) < 0 else q2.copy()
    return Quaternion._from_array(q / np.linalg.norm(q))


def is_quaternion_in_canonical_form(quat: Quaternion) -> bool:
    """True when w ≥ 0."""
    return bool(_wxyz(quat)[0] >= 0.0)


def QuaternionToCanonicalForm(quat: Quaternion) -> Quaternion:
    """quat, or −quat when its w is negative (the same orientation with w ≥ 0)."""
    q = _wxyz(quat)
    return Quaternion._from_array(q.copy() if q[0] >= 0.0 else -q)


def AreQuaternionsEqualForOrientation(quat1: Quaternion, quat2: Quaternion, tolerance: float) -> bool:
    """True when the canonical forms differ by at most `tolerance` in every element."""
    d = QuaternionToCanonicalForm(quat1).wxyz() - QuaternionToCanonicalForm(quat2).wxyz()
    return bool(np.max(np.abs(d)) <= tolerance)


def CalculateQuaternionDtFromAngularVelocityExpressedInB(quat_AB: Quaternion, w_AB_B) -> np.ndarray:
    """[ẇ, ẋ, ẏ, ż] of quat_AB for B's angular velocity in A, expressed in B (rad/s)."""
    e0, e1, e2, e3 = _wxyz(quat_AB)
    wx, wy, wz = np.asarray(w_AB_B, dtype=float).reshape(3)
    return np.array([(-e1 * wx - e2 * wy - e3 * wz) / 2, (e0 * wx - e3 * wy + e2 * wz) / 2,
                     (e3 * wx + e0 * wy - e1 * wz) / 2, (-e2 * wx + e1 * wy + e0 * wz) / 2])


def CalculateAngularVelocityExpressedInBFromQuaternionDt(quat_AB: Quaternion, quatDt) -> np.ndarray:
    """w_AB_B (rad/s) from quat_AB and its time derivative [ẇ, ẋ, ẏ, ż]."""
    e0, e1, e2, e3 = _wxyz(quat_AB)
    d0, d1, d2, d3 = np.asarray(quatDt, dtype=float).reshape(4)
    return np.array([2 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3), 2 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3),
                     2 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3)])


def CalculateQuaternionDtConstraintViolation(quat: Quaternion, quatDt) -> float:
    """2 (w ẇ + x ẋ + y ẏ + z ż): zero when quatDt keeps the quaternion's norm constant."""
    return float(2.0 * (_wxyz(quat) @ np.asarray(quatDt, dtype=float).reshape(4)))


def IsQuaternionValid(quat: Quaternion, tolerance: float) -> bool:
    """True when | 1 − |quat| | ≤ tolerance."""
    return bool(abs(1.0 - np.linalg.norm(_wxyz(quat))) <= tolerance)


def IsBothQuaternionAndQuaternionDtOK(quat: Quaternion, quatDt, tolerance: float) -> bool:
    """True when quat has unit norm and quatDt satisfies the norm's time-derivative constraint, within tolerance."""
    if not IsQuaternionValid(quat, tolerance):
        return False
    return bool(abs(CalculateQuaternionDtConstraintViolation(quat, quatDt)) <= tolerance)


def _uniform01(generator) -> float:
    """One draw from U[0, 1): libstdc++'s std::generate_canonical over a 32-bit engine such as RandomGenerator
    (std::mt19937: the same draws as pydrake), else a numpy Generator's random()."""
    if callable(generator):
        lo, hi = int(generator()), int(generator())
        u = (lo + hi * 4294967296.0) / 18446744073709551616.0
        return u if u < 1.0 else math.nextafter(1.0, 0.0)
    if hasattr(generator, "random"):
        return float(generator.random())
    raise TypeError(f"expected a random generator (numpy.random.Generator or RandomGenerator), got {generator!r}")


def UniformlyRandomQuaternion(generator) -> Quaternion:
    """A unit quaternion uniformly distributed over SO(3) (Shoemake's method, Drake's component order)."""
    u1, u2, u3 = _uniform01(generator), _uniform01(generator), _uniform01(generator)
    a, b = math.sqrt(1.0 - u1), math.sqrt(u1)
    return Quaternion._from_array(np.array([a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
                                            b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3)]))


def UniformlyRandomAngleAxis(generator) -> AngleAxis:
    """A uniformly random rotation as an AngleAxis."""
    return AngleAxis(UniformlyRandomQuaternion(generator))


def UniformlyRandomRotationMatrix(generator) -> RotationMatrix:
    """A uniformly random rotation as a RotationMatrix."""
    return RotationMatrix(UniformlyRandomQuaternion(generator))


def UniformlyRandomRPY(generator) -> np.ndarray:
    """A uniformly random rotation as roll-pitch-yaw angles [r, p, y] (rad)."""
    return RollPitchYaw(UniformlyRandomQuaternion(generator)).vector()
