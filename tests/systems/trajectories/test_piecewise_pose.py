"""PiecewisePose / PiecewiseQuaternionSlerp against pydrake on random poses (values, velocities) to 1e-10."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems.trajectories import PiecewisePose, PiecewiseQuaternionSlerp
from oracles import require_pydrake


def _random_poses(seed: int, n: int = 5):
    require_pydrake()
    from pydrake.math import RigidTransform, RollPitchYaw
    rng = np.random.default_rng(seed)
    X = [RigidTransform(RollPitchYaw(*rng.uniform(-3, 3, 3)), rng.normal(size=3)) for _ in range(n)]
    return np.cumsum(rng.uniform(0.3, 1.0, n)), X


@pytest.mark.parametrize("maker", ["MakeLinear", "MakeCubicLinearWithEndLinearVelocity"])
@pytest.mark.parametrize("seed", [0, 1])
def test_pose_trajectories_match_pydrake(maker, seed):
    from pydrake.trajectories import PiecewisePose as DrakePose
    t, X = _random_poses(seed)
    args = (np.array([1.0, 0.0, -0.5]), np.array([0.0, 0.2, 1.0])) if maker != "MakeLinear" else ()
    theirs = getattr(DrakePose, maker)(t, X, *args)
    mine = getattr(PiecewisePose, maker)(t, [x.GetAsMatrix4() for x in X], *args)
    assert mine.get_segment_times() == pytest.approx(theirs.get_segment_times(), abs=0)
    for s in list(np.linspace(t[0] - 1.0, t[-1] + 1.0, 61)) + list(t):
        np.testing.assert_allclose(mine.value(s), theirs.value(s), atol=1e-10)
        np.testing.assert_allclose(mine.GetVelocity(s), theirs.GetVelocity(s), atol=1e-10)
        np.testing.assert_allclose(mine.GetAcceleration(s), theirs.GetAcceleration(s), atol=1e-10)
        np.testing.assert_allclose(mine.EvalDerivative(s, 1), theirs.EvalDerivative(s, 1), atol=1e-10)
        np.testing.assert_allclose(mine.MakeDerivative(1).value(s), theirs.MakeDerivative(1).value(s), atol=1e-10)
        mo, do = mine.get_orientation_trajectory(), theirs.get_orientation_trajectory()
        np.testing.assert_allclose(mo.value(s), do.value(s), atol=1e-10)
        np.testing.assert_allclose(mo.angular_velocity(s), do.angular_velocity(s), atol=1e-10)
        np.testing.assert_allclose(mo.orientation(s).wxyz(), do.orientation(s).wxyz(), atol=1e-10)


def test_slerp_bad_input():
    with pytest.raises(ValueError, match="breaks but"):
        PiecewiseQuaternionSlerp([0.0, 1.0], [np.eye(3)])
    with pytest.raises(ValueError, match="at least 2"):
        PiecewiseQuaternionSlerp([0.0], [np.eye(3)])
    with pytest.raises(ValueError, match="quaternion"):
        PiecewiseQuaternionSlerp([0.0, 1.0], [np.eye(3), np.ones(5)])
    s = PiecewiseQuaternionSlerp([0.0, 1.0], [np.eye(3), np.eye(3)])
    with pytest.raises(ValueError, match="after end_time"):
        s.Append(0.5, np.eye(3))
    with pytest.raises(ValueError, match="4x4"):
        PiecewisePose.MakeLinear([0.0, 1.0], [np.eye(3), np.eye(3)])


def test_get_pose_returns_mallard_rigid_transform():
    from mallard.multibody.math import RigidTransform
    from pydrake.trajectories import PiecewisePose as DrakePose
    t, X = _random_poses(4, n=3)
    mine_in = [RigidTransform(x.GetAsMatrix4()) for x in X]
    mine = PiecewisePose.MakeCubicLinearWithEndLinearVelocity(t, mine_in)
    theirs = DrakePose.MakeCubicLinearWithEndLinearVelocity(t, X)
    for s in np.linspace(t[0], t[-1], 7):
        pose = mine.GetPose(s)
        assert isinstance(pose, RigidTransform)
        np.testing.assert_allclose(pose.GetAsMatrix4(), theirs.GetPose(s).GetAsMatrix4(), atol=1e-10)


def test_slerp_accepts_rotation_types():
    from mallard.multibody.math import AngleAxis, Quaternion, RotationMatrix
    Rz = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    q_half = np.array([np.cos(np.pi / 8), 0.0, 0.0, np.sin(np.pi / 8)])
    for end in (Rz, RotationMatrix(Rz), Quaternion(np.array([np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)])),
                AngleAxis(np.pi / 2, np.array([0.0, 0.0, 1.0]))):
        s = PiecewiseQuaternionSlerp([0.0, 2.0], [np.eye(3), end])
        np.testing.assert_allclose(s.orientation(1.0).wxyz(), q_half, atol=1e-12)
        np.testing.assert_allclose(s.angular_velocity(1.0), [0.0, 0.0, np.pi / 4], atol=1e-12)
