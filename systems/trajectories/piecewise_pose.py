"""`PiecewisePose`: a pose trajectory X_WB(t) = (slerped orientation, polynomial position), as pydrake's.

value(t) is the 4x4 homogeneous matrix of X_WB(t); GetVelocity(t) is V_WB = [w_WB; v_WB] and
GetAcceleration(t) is A_WB = [alpha_WB; a_WB], both zero outside [start_time, end_time] (pydrake's rule).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mallard.multibody.math import RigidTransform

from .piecewise_polynomial import PiecewisePolynomial, _pad
from .piecewise_quaternion import PiecewiseQuaternionSlerp, rotation_matrix_from_quaternion
from .piecewise_trajectory import PiecewiseTrajectory
from .trajectory import Trajectory


def _split_pose(X) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) of a RigidTransform-like object (rotation()/translation() or GetAsMatrix4()) or a 4x4 array."""
    if hasattr(X, "rotation") and hasattr(X, "translation"):
        R = X.rotation()
        R = np.asarray(R.matrix() if hasattr(R, "matrix") else R, dtype=float)
        return R, np.asarray(X.translation(), dtype=float).ravel()
    M = np.asarray(X.GetAsMatrix4() if hasattr(X, "GetAsMatrix4") else X, dtype=float)
    if M.shape != (4, 4):
        raise ValueError(f"PiecewisePose: a pose must be a RigidTransform or a 4x4 matrix, got shape {M.shape}")
    return M[:3, :3], M[:3, 3].copy()


class PiecewisePose(PiecewiseTrajectory):
    """Pose trajectory from a 3x1 position PiecewisePolynomial and a PiecewiseQuaternionSlerp."""

    def __init__(self, position_trajectory: PiecewisePolynomial | None = None,
                 orientation_trajectory: PiecewiseQuaternionSlerp | None = None):
        if (position_trajectory is None) != (orientation_trajectory is None):
            raise ValueError("PiecewisePose: give both position_trajectory and orientation_trajectory, or neither")
        self._position = position_trajectory if position_trajectory is not None else PiecewisePolynomial()
        self._orientation = orientation_trajectory if orientation_trajectory is not None else PiecewiseQuaternionSlerp()
        if position_trajectory is not None:
            if (position_trajectory.rows(), position_trajectory.cols()) != (3, 1):
                raise ValueError(f"PiecewisePose: position trajectory must be 3x1, got "
                                 f"{position_trajectory.rows()}x{position_trajectory.cols()}")
            tp = np.asarray(position_trajectory.get_segment_times())
            to = np.asarray(orientation_trajectory.get_segment_times())
            if tp.shape != to.shape or not np.allclose(tp, to, rtol=0, atol=1e-12):
                raise ValueError("PiecewisePose: position and orientation trajectories must have the same breaks")
        self._velocity = self._position.derivative(1) if position_trajectory is not None else None
        self._acceleration = self._position.derivative(2) if position_trajectory is not None else None

    @staticmethod
    def _samples(times: Sequence[float], poses: Sequence) -> tuple[np.ndarray, list, np.ndarray]:
        if len(times) != len(poses):
            raise ValueError(f"PiecewisePose: {len(times)} times but {len(poses)} poses")
        Rp = [_split_pose(X) for X in poses]
        return np.asarray(times, dtype=float), [R for R, _ in Rp], np.stack([p for _, p in Rp], axis=1)

    @classmethod
    def MakeLinear(cls, times: Sequence[float], poses: Sequence) -> "PiecewisePose":
        """Linear position interpolation and slerped orientation through the poses X_WB at `times`."""
        t, Rs, P = cls._samples(times, poses)
        return cls(PiecewisePolynomial.FirstOrderHold(t, P), PiecewiseQuaternionSlerp(t, Rs))

    @classmethod
    def MakeCubicLinearWithEndLinearVelocity(cls, times: Sequence[float], poses: Sequence,
                                             start_vel=np.zeros(3), end_vel=np.zeros(3)) -> "PiecewisePose":
        """C2 cubic position with end linear velocities (m/s, world frame) and slerped orientation."""
        t, Rs, P = cls._samples(times, poses)
        v0 = np.asarray(start_vel, dtype=float).reshape(3, 1)
        v1 = np.asarray(end_vel, dtype=float).reshape(3, 1)
        pos = PiecewisePolynomial.CubicWithContinuousSecondDerivatives(t, P, v0, v1)
        return cls(pos, PiecewiseQuaternionSlerp(t, Rs))

    def get_position_trajectory(self) -> PiecewisePolynomial:
        return self._position

    def get_orientation_trajectory(self) -> PiecewiseQuaternionSlerp:
        return self._orientation

    def GetPose(self, time: float) -> RigidTransform:
        """X_WB(t) as a RigidTransform."""
        return RigidTransform(self.value(time))

    def GetVelocity(self, time: float) -> np.ndarray:
        """V_WB = [w_WB; v_WB] (rad/s; m/s), zero outside the time range."""
        if not self.is_time_in_range(time):
            return np.zeros(6)
        return np.concatenate([self._orientation.angular_velocity(time), self._velocity.value(time)[:, 0]])

    def GetAcceleration(self, time: float) -> np.ndarray:
        """A_WB = [alpha_WB; a_WB] (rad/s^2; m/s^2), zero outside the time range."""
        if not self.is_time_in_range(time):
            return np.zeros(6)
        return np.concatenate([self._orientation.angular_acceleration(time), self._acceleration.value(time)[:, 0]])

    def IsApprox(self, other: "PiecewisePose", tol: float) -> bool:
        """Same breaks and poses to `tol` at every break and segment midpoint."""
        ta, tb = np.asarray(self.get_segment_times()), np.asarray(other.get_segment_times())
        if ta.shape != tb.shape or not np.allclose(ta, tb, rtol=0, atol=tol):
            return False
        ts = np.concatenate([ta, 0.5 * (ta[1:] + ta[:-1])])
        return all(np.allclose(self.value(t), other.value(t), rtol=0, atol=tol) for t in ts)

    # ---- Trajectory hooks -----------------------------------------------------------------------
    def DoValue(self, t: float) -> np.ndarray:
        M = np.eye(4)
        M[:3, :3] = rotation_matrix_from_quaternion(self._orientation._orientation_wxyz(t))
        M[:3, 3] = self._position.value(t)[:, 0]
        return M

    def do_rows(self) -> int:
        return 4

    def do_cols(self) -> int:
        return 4

    @property
    def _breaks(self) -> np.ndarray:
        return self._position._breaks

    def do_has_derivative(self) -> bool:
        return True

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        """[d^k(orientation); d^k(position)] as a (6, 1) column (angular part from the slerp)."""
        return np.vstack([self._orientation.EvalDerivative(t, derivative_order),
                          self._position.EvalDerivative(t, derivative_order)])

    def DoMakeDerivative(self, derivative_order: int) -> Trajectory:
        if derivative_order == 0:
            return self.Clone()
        ang = self._orientation.MakeDerivative(derivative_order)
        lin = self._position.derivative(derivative_order)
        out = PiecewisePolynomial()
        # Stack [angular; linear] per segment on the common breaks.
        D = max(ang._coeffs.shape[-1], lin._coeffs.shape[-1])
        out._breaks = np.asarray(lin.get_segment_times(), dtype=float)
        out._coeffs = np.concatenate([_pad(ang._coeffs, D), _pad(lin._coeffs, D)], axis=1)
        out._degrees = np.maximum(ang._degrees, lin._degrees)
        return out

    def Clone(self) -> "PiecewisePose":
        if self._position.empty():
            return PiecewisePose()
        return PiecewisePose(self._position.Clone(), self._orientation.Clone())
