"""`PiecewiseQuaternionSlerp`: orientation trajectories by spherical linear interpolation (pydrake.trajectories).

Quaternions are stored as numpy arrays [w, x, y, z]; samples may be Quaternion, RotationMatrix, AngleAxis,
3x3 matrices or [w, x, y, z] arrays. Consecutive samples are sign-flipped onto the same hemisphere
so each segment takes the short way; the angular velocity w_W (world frame, rad/s) is constant per segment.
value(t) is the (4, 1) quaternion; EvalDerivative(t, 1) the (3, 1) angular velocity, order >= 2 zero.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mallard.multibody.math.eigen_geometry import Quaternion

from .piecewise_polynomial import PiecewisePolynomial
from .piecewise_trajectory import PiecewiseTrajectory
from .spline_fitting import kEpsilonTime
from .trajectory import Trajectory


def quaternion_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a*b of [w, x, y, z] quaternions."""
    aw, av, bw, bv = a[0], a[1:], b[0], b[1:]
    return np.concatenate([[aw * bw - av @ bv], aw * bv + bw * av + np.cross(av, bv)])


def quaternion_from_rotation_matrix(R: np.ndarray) -> np.ndarray:
    """Unit quaternion [w, x, y, z] (w >= 0) of a 3x3 rotation matrix (Shepperd's branch on the largest term)."""
    R = np.asarray(R, dtype=float)
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    diag = np.array([tr, R[0, 0], R[1, 1], R[2, 2]])
    k = int(np.argmax(diag))
    if k == 0:
        s = 2.0 * np.sqrt(1.0 + tr)
        q = np.array([0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s])
    elif k == 1:
        s = 2.0 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        q = np.array([(R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s])
    elif k == 2:
        s = 2.0 * np.sqrt(1.0 - R[0, 0] + R[1, 1] - R[2, 2])
        q = np.array([(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s])
    else:
        s = 2.0 * np.sqrt(1.0 - R[0, 0] - R[1, 1] + R[2, 2])
        q = np.array([(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s])
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def rotation_matrix_from_quaternion(q: np.ndarray) -> np.ndarray:
    """3x3 rotation matrix of a (normalized here) [w, x, y, z] quaternion."""
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _to_quaternion(sample) -> np.ndarray:
    """Accept a [w, x, y, z] array, a 3x3 matrix, or an object with matrix() / wxyz() (RotationMatrix, Quaternion)."""
    if hasattr(sample, "wxyz"):
        q = np.asarray(sample.wxyz(), dtype=float)
    elif hasattr(sample, "matrix"):
        q = quaternion_from_rotation_matrix(np.asarray(sample.matrix(), dtype=float))
    elif hasattr(sample, "rotation") and callable(sample.rotation):  # AngleAxis (rotation() is 3x3)
        R = sample.rotation()
        q = quaternion_from_rotation_matrix(np.asarray(R.matrix() if hasattr(R, "matrix") else R, dtype=float))
    else:
        a = np.asarray(sample, dtype=float)
        if a.shape == (3, 3):
            q = quaternion_from_rotation_matrix(a)
        elif a.size == 4:
            q = a.ravel().copy()
        else:
            raise ValueError(f"PiecewiseQuaternionSlerp: a sample must be a quaternion [w, x, y, z] or a 3x3 "
                             f"rotation matrix, got shape {a.shape}")
    n = np.linalg.norm(q)
    if not np.isfinite(n) or n < 1e-12:
        raise ValueError(f"PiecewiseQuaternionSlerp: quaternion {q} cannot be normalized")
    return q / n


def _slerp(q0: np.ndarray, q1: np.ndarray, s: float) -> np.ndarray:
    d = float(q0 @ q1)
    ad = abs(d)
    if ad >= 1.0 - np.finfo(float).eps:
        c0, c1 = 1.0 - s, s
    else:
        theta = np.arccos(ad)
        st = np.sin(theta)
        c0, c1 = np.sin((1.0 - s) * theta) / st, np.sin(s * theta) / st
    if d < 0:
        c1 = -c1
    return c0 * q0 + c1 * q1


class PiecewiseQuaternionSlerp(PiecewiseTrajectory):
    """Orientation trajectory through quaternion samples at `breaks`, slerped within segments.

    The samples are `quaternions`, `rotation_matrices` (3x3 arrays or RotationMatrix) or `angle_axes`
    (pydrake's keyword names; any of these forms may also be given positionally).
    """

    def __init__(self, breaks: Sequence[float] | None = None, quaternions: Sequence | None = None, *,
                 rotation_matrices: Sequence | None = None, angle_axes: Sequence | None = None):
        given = [x for x in (quaternions, rotation_matrices, angle_axes) if x is not None]
        if len(given) > 1:
            raise TypeError("PiecewiseQuaternionSlerp: give one of quaternions, rotation_matrices or angle_axes")
        samples = given[0] if given else None
        self._breaks = np.zeros(0)
        self._q = np.zeros((0, 4))
        self._w = np.zeros((0, 3))
        if breaks is None and samples is None:
            return
        t = np.asarray(breaks, dtype=float).ravel()
        qs = [_to_quaternion(s) for s in samples]
        if t.size != len(qs):
            raise ValueError(f"PiecewiseQuaternionSlerp: {t.size} breaks but {len(qs)} orientation samples")
        if t.size < 2:
            raise ValueError("PiecewiseQuaternionSlerp: needs at least 2 breaks")
        if np.any(np.diff(t) < kEpsilonTime):
            raise ValueError(f"PiecewiseQuaternionSlerp: breaks must increase by at least {kEpsilonTime}: {t.tolist()}")
        self._breaks = t
        self._q = np.zeros((0, 4))
        for q in qs:
            self._push(q)

    def _push(self, q: np.ndarray) -> None:
        if self._q.shape[0] and float(self._q[-1] @ q) < 0.0:
            q = -q
        self._q = np.vstack([self._q, q])
        n = self._q.shape[0]
        if n >= 2:
            w = self._segment_angular_velocity(self._q[-2], self._q[-1], self._breaks[n - 1] - self._breaks[n - 2])
            self._w = np.vstack([self._w, w])

    @staticmethod
    def _segment_angular_velocity(q0: np.ndarray, q1: np.ndarray, h: float) -> np.ndarray:
        """w_W such that q1 = exp(w_W h) q0 (constant world-frame angular velocity over the segment)."""
        q0_inv = np.concatenate([[q0[0]], -q0[1:]])
        dq = quaternion_multiply(q1, q0_inv)
        if dq[0] < 0:
            dq = -dq
        sv = np.linalg.norm(dq[1:])
        if sv < 1e-300:
            return np.zeros(3)
        angle = 2.0 * np.arctan2(sv, dq[0])
        return dq[1:] / sv * angle / h

    def Append(self, time: float, quaternion=None, *, rotation_matrix=None, angle_axis=None) -> None:
        """Add one segment ending at `time` with the given orientation (a Quaternion, a rotation matrix or
        RotationMatrix, or an AngleAxis)."""
        given = [x for x in (quaternion, rotation_matrix, angle_axis) if x is not None]
        if len(given) != 1:
            raise TypeError("PiecewiseQuaternionSlerp.Append: give exactly one of quaternion, rotation_matrix or "
                            "angle_axis")
        q = _to_quaternion(given[0])
        if self._breaks.size and not time - self._breaks[-1] >= kEpsilonTime:
            raise ValueError(f"PiecewiseQuaternionSlerp.Append: time {time} must be after end_time() {self._breaks[-1]}")
        self._breaks = np.append(self._breaks, float(time))
        self._push(q)

    # ---- Trajectory hooks -----------------------------------------------------------------------
    def _require(self) -> None:
        self._require_segments("value")

    def do_rows(self) -> int:
        return 4

    def do_cols(self) -> int:
        return 1

    def orientation(self, time: float) -> Quaternion:
        """The orientation at `time` as a Quaternion (end values outside the breaks)."""
        return Quaternion(self._orientation_wxyz(time))

    def _orientation_wxyz(self, t: float) -> np.ndarray:
        """The unit quaternion [w, x, y, z] at t as an array."""
        self._require()
        i = self.get_segment_index(t)
        s = (float(t) - self._breaks[i]) / (self._breaks[i + 1] - self._breaks[i])
        s = min(max(s, 0.0), 1.0)
        return _slerp(self._q[i], self._q[i + 1], s)

    def angular_velocity(self, time: float) -> np.ndarray:
        """World-frame angular velocity w_W (rad/s) of the segment containing `time` (end segments outside)."""
        self._require()
        return self._w[self.get_segment_index(time)].copy()

    def angular_acceleration(self, time: float) -> np.ndarray:
        """Zero: the angular velocity is constant within each segment."""
        self._require()
        return np.zeros(3)

    def DoValue(self, t: float) -> np.ndarray:
        return self._orientation_wxyz(t)[:, None]

    def do_has_derivative(self) -> bool:
        return True

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        if derivative_order == 1:
            return self.angular_velocity(t)[:, None]
        self._require()
        return np.zeros((3, 1))

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        self._require()
        if derivative_order == 0:
            return self.Clone()
        samples = np.vstack([self._w, self._w[-1:]]).T if derivative_order == 1 else np.zeros((3, self._breaks.size))
        return PiecewisePolynomial.ZeroOrderHold(self._breaks, samples)

    def Clone(self) -> "PiecewiseQuaternionSlerp":
        c = PiecewiseQuaternionSlerp()
        c._breaks, c._q, c._w = self._breaks.copy(), self._q.copy(), self._w.copy()
        return c

    def get_quaternion_samples(self) -> np.ndarray:
        """The (sign-aligned) quaternion samples, shape (N, 4)."""
        return self._q.copy()
