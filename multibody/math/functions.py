"""Plain-array rotation and spatial-algebra kernels, compiled with numba for use inside other kernels.

Conventions: quaternions are `q_wxyz = [w, x, y, z]` (Hamilton, scalar first, as Drake and MuJoCo store
them); roll-pitch-yaw `rpy = [r, p, y]` are Drake's SpaceXYZ angles, R = Rz(y) Ry(p) Rx(r); spatial
vectors are `[angular; translational]`. Every function takes and returns float64 numpy arrays, allocates
its result, and never raises (callers validate): they are the numeric layer under the object API.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "skew",
    "rotation_matrix_from_quaternion",
    "quaternion_from_rotation_matrix",
    "rotation_matrix_from_rpy",
    "rpy_from_rotation_matrix",
    "rpy_from_quaternion_and_rotation_matrix",
    "quaternion_from_rpy",
    "rotation_matrix_from_angle_axis",
    "angle_axis_from_quaternion",
    "quaternion_multiply",
    "quaternion_rotate",
    "quaternion_conjugate",
    "orthonormality_error",
    "determinant3",
    "shift_spatial_velocity",
    "shift_spatial_force",
    "point_mass_unit_inertia",
    "wrap_to",
    "VectorToSkewSymmetric",
]

_EPS = 2.220446049250313e-16


@njit(cache=True)
def skew(v: np.ndarray) -> np.ndarray:
    """Skew-symmetric cross-product matrix [v]ₓ of a 3-vector, so that skew(a) @ b == a × b."""
    S = np.zeros((3, 3))
    S[0, 1] = -v[2]
    S[0, 2] = v[1]
    S[1, 0] = v[2]
    S[1, 2] = -v[0]
    S[2, 0] = -v[1]
    S[2, 1] = v[0]
    return S


@njit(cache=True)
def rotation_matrix_from_quaternion(q_wxyz: np.ndarray) -> np.ndarray:
    """R_AB from a quaternion [w, x, y, z]; the quaternion is normalized implicitly (divided by |q|²)."""
    w, x, y, z = q_wxyz[0], q_wxyz[1], q_wxyz[2], q_wxyz[3]
    s = 2.0 / (w * w + x * x + y * y + z * z)
    wx, wy, wz = w * x * s, w * y * s, w * z * s
    xx, xy, xz = x * x * s, x * y * s, x * z * s
    yy, yz, zz = y * y * s, y * z * s, z * z * s
    R = np.empty((3, 3))
    R[0, 0] = 1.0 - yy - zz
    R[0, 1] = xy - wz
    R[0, 2] = xz + wy
    R[1, 0] = xy + wz
    R[1, 1] = 1.0 - xx - zz
    R[1, 2] = yz - wx
    R[2, 0] = xz - wy
    R[2, 1] = yz + wx
    R[2, 2] = 1.0 - xx - yy
    return R


@njit(cache=True)
def quaternion_from_rotation_matrix(R: np.ndarray) -> np.ndarray:
    """Unit quaternion [w, x, y, z] of R in canonical form (w >= 0), as Drake's RotationMatrix.ToQuaternion.

    Branches on the largest of trace and diagonal elements for accuracy, then normalizes.
    """
    trace = R[0, 0] + R[1, 1] + R[2, 2]
    q = np.empty(4)
    if trace >= R[0, 0] and trace >= R[1, 1] and trace >= R[2, 2]:
        q[0] = 1.0 + trace
        q[1] = R[2, 1] - R[1, 2]
        q[2] = R[0, 2] - R[2, 0]
        q[3] = R[1, 0] - R[0, 1]
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        q[0] = R[2, 1] - R[1, 2]
        q[1] = 1.0 - (trace - 2.0 * R[0, 0])
        q[2] = R[0, 1] + R[1, 0]
        q[3] = R[0, 2] + R[2, 0]
    elif R[1, 1] >= R[2, 2]:
        q[0] = R[0, 2] - R[2, 0]
        q[1] = R[0, 1] + R[1, 0]
        q[2] = 1.0 - (trace - 2.0 * R[1, 1])
        q[3] = R[1, 2] + R[2, 1]
    else:
        q[0] = R[1, 0] - R[0, 1]
        q[1] = R[0, 2] + R[2, 0]
        q[2] = R[1, 2] + R[2, 1]
        q[3] = 1.0 - (trace - 2.0 * R[2, 2])
    scale = 1.0 / math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if q[0] < 0.0:
        scale = -scale
    return q * scale


@njit(cache=True)
def rotation_matrix_from_rpy(rpy: np.ndarray) -> np.ndarray:
    """R_AD = Rz(yaw) Ry(pitch) Rx(roll) for SpaceXYZ angles rpy = [roll, pitch, yaw] (rad)."""
    c0, s0 = math.cos(rpy[0]), math.sin(rpy[0])
    c1, s1 = math.cos(rpy[1]), math.sin(rpy[1])
    c2, s2 = math.cos(rpy[2]), math.sin(rpy[2])
    R = np.empty((3, 3))
    R[0, 0] = c2 * c1
    R[0, 1] = c2 * s1 * s0 - s2 * c0
    R[0, 2] = c2 * s1 * c0 + s2 * s0
    R[1, 0] = s2 * c1
    R[1, 1] = s2 * s1 * s0 + c2 * c0
    R[1, 2] = s2 * s1 * c0 - c2 * s0
    R[2, 0] = -s1
    R[2, 1] = c1 * s0
    R[2, 2] = c1 * c0
    return R


@njit(cache=True)
def quaternion_from_rpy(rpy: np.ndarray) -> np.ndarray:
    """Quaternion [w, x, y, z] of SpaceXYZ angles rpy (the product of the three half-angle rotations)."""
    c0, s0 = math.cos(0.5 * rpy[0]), math.sin(0.5 * rpy[0])
    c1, s1 = math.cos(0.5 * rpy[1]), math.sin(0.5 * rpy[1])
    c2, s2 = math.cos(0.5 * rpy[2]), math.sin(0.5 * rpy[2])
    q = np.empty(4)
    q[0] = c0 * c1 * c2 + s0 * s1 * s2
    q[1] = s0 * c1 * c2 - c0 * s1 * s2
    q[2] = c0 * s1 * c2 + s0 * c1 * s2
    q[3] = c0 * c1 * s2 - s0 * s1 * c2
    return q


@njit(cache=True)
def rpy_from_quaternion_and_rotation_matrix(q_wxyz: np.ndarray, R: np.ndarray) -> np.ndarray:
    """SpaceXYZ angles of an orientation given both as unit quaternion and rotation matrix.

    Pitch comes from R via atan2 (accurate near ±π/2), roll and yaw from half-angle sums of the quaternion,
    so the result stays accurate at gimbal lock. Ranges: roll, yaw in [-π, π], pitch in [-π/2, π/2].
    """
    Rsum = math.sqrt((R[2, 2] ** 2 + R[2, 1] ** 2 + R[1, 0] ** 2 + R[0, 0] ** 2) / 2.0)
    pitch = math.atan2(-R[2, 0], Rsum)
    e0, e1, e2, e3 = q_wxyz[0], q_wxyz[1], q_wxyz[2], q_wxyz[3]
    yA, xA = e1 + e3, e0 - e2
    yB, xB = e3 - e1, e0 + e2
    zA = 0.0 if (abs(yA) <= _EPS and abs(xA) <= _EPS) else math.atan2(yA, xA)
    zB = 0.0 if (abs(yB) <= _EPS and abs(xB) <= _EPS) else math.atan2(yB, xB)
    roll = zA - zB
    yaw = zA + zB
    if roll > math.pi:
        roll -= 2.0 * math.pi
    if roll < -math.pi:
        roll += 2.0 * math.pi
    if yaw > math.pi:
        yaw -= 2.0 * math.pi
    if yaw < -math.pi:
        yaw += 2.0 * math.pi
    out = np.empty(3)
    out[0] = roll
    out[1] = pitch
    out[2] = yaw
    return out


@njit(cache=True)
def rpy_from_rotation_matrix(R: np.ndarray) -> np.ndarray:
    """SpaceXYZ angles [roll, pitch, yaw] of a rotation matrix, as Drake's RotationMatrix.ToRollPitchYaw."""
    return rpy_from_quaternion_and_rotation_matrix(quaternion_from_rotation_matrix(R), R)


@njit(cache=True)
def rotation_matrix_from_angle_axis(angle: float, axis: np.ndarray) -> np.ndarray:
    """Rotation by `angle` (rad) about the unit vector `axis` (Rodrigues' formula)."""
    c, s = math.cos(angle), math.sin(angle)
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = (1.0 - c) * axis[i] * axis[j]
        R[i, i] += c
    R[0, 1] -= s * axis[2]
    R[1, 0] += s * axis[2]
    R[0, 2] += s * axis[1]
    R[2, 0] -= s * axis[1]
    R[1, 2] -= s * axis[0]
    R[2, 1] += s * axis[0]
    return R


@njit(cache=True)
def angle_axis_from_quaternion(q_wxyz: np.ndarray):
    """(angle, axis) of a unit quaternion with 0 <= angle <= π; the identity gives (0, [1, 0, 0])."""
    n = math.sqrt(q_wxyz[1] ** 2 + q_wxyz[2] ** 2 + q_wxyz[3] ** 2)
    axis = np.zeros(3)
    if n == 0.0:
        axis[0] = 1.0
        return 0.0, axis
    angle = 2.0 * math.atan2(n, abs(q_wxyz[0]))
    sign = -1.0 if q_wxyz[0] < 0.0 else 1.0
    for i in range(3):
        axis[i] = sign * q_wxyz[i + 1] / n
    return angle, axis


@njit(cache=True)
def quaternion_multiply(q1: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """Hamilton product q1 ⊗ q2 of quaternions [w, x, y, z] (q_AC = q_AB ⊗ q_BC)."""
    w1, x1, y1, z1 = q1[0], q1[1], q1[2], q1[3]
    w2, x2, y2, z2 = q2[0], q2[1], q2[2], q2[3]
    q = np.empty(4)
    q[0] = w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2
    q[1] = w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2
    q[2] = w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2
    q[3] = w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2
    return q


@njit(cache=True)
def quaternion_conjugate(q_wxyz: np.ndarray) -> np.ndarray:
    """Conjugate [w, -x, -y, -z] (the inverse rotation for a unit quaternion)."""
    q = -q_wxyz
    q[0] = q_wxyz[0]
    return q


@njit(cache=True)
def quaternion_rotate(q_wxyz: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotates the 3-vector v by the unit quaternion q: v + 2w (u × v) + 2 u × (u × v), u = [x, y, z]."""
    u = q_wxyz[1:4]
    t = 2.0 * np.cross(u, v)
    return v + q_wxyz[0] * t + np.cross(u, t)


@njit(cache=True)
def orthonormality_error(R: np.ndarray) -> float:
    """Largest |(R Rᵀ − I)ᵢⱼ|: zero for an orthonormal matrix (Drake's measure of orthonormality)."""
    E = R @ R.T
    m = 0.0
    for i in range(3):
        for j in range(3):
            d = abs(E[i, j] - (1.0 if i == j else 0.0))
            if d > m or d != d:
                m = d
    return m


@njit(cache=True)
def determinant3(M: np.ndarray) -> float:
    """Determinant of a 3x3 matrix by cofactor expansion (+1 for a proper rotation)."""
    return (M[0, 0] * (M[1, 1] * M[2, 2] - M[1, 2] * M[2, 1])
            - M[0, 1] * (M[1, 0] * M[2, 2] - M[1, 2] * M[2, 0])
            + M[0, 2] * (M[1, 0] * M[2, 1] - M[1, 1] * M[2, 0]))


@njit(cache=True)
def shift_spatial_velocity(V: np.ndarray, p: np.ndarray) -> np.ndarray:
    """V_MBq_E from V_MBp_E = [w; v] and p_BpBq_E: [w; v + w × p]."""
    out = V.copy()
    out[3:6] += np.cross(V[0:3], p)
    return out


@njit(cache=True)
def shift_spatial_force(F: np.ndarray, p: np.ndarray) -> np.ndarray:
    """F_Bq_E from F_Bp_E = [τ; f] and p_BpBq_E: [τ − p × f; f] (also for spatial momentum)."""
    out = F.copy()
    out[0:3] -= np.cross(p, F[3:6])
    return out


@njit(cache=True)
def point_mass_unit_inertia(p: np.ndarray) -> np.ndarray:
    """Unit inertia |p|² I − p pᵀ of a unit point mass at position p (used by every inertia shift)."""
    G = -np.outer(p, p)
    d = p[0] * p[0] + p[1] * p[1] + p[2] * p[2]
    for i in range(3):
        G[i, i] += d
    return G


def wrap_to(value: float, low: float, high: float) -> float:
    """pydrake.math.wrap_to: value + k (high − low) for the integer k that lands it in [low, high)."""
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"wrap_to(): low and high must be finite with low < high, got low={low!r}, high={high!r}.")
    span = high - low
    out = value - span * math.floor((value - low) / span)
    return low if out >= high else out


def VectorToSkewSymmetric(p) -> np.ndarray:
    """pydrake.math.VectorToSkewSymmetric: the 3x3 matrix [p]ₓ with [p]ₓ v = p × v."""
    v = np.asarray(p, dtype=np.float64)
    if v.shape not in ((3,), (3, 1)):
        raise ValueError(f"VectorToSkewSymmetric(): expected a 3-vector, got an array of shape {v.shape}.")
    return skew(v.reshape(3))
