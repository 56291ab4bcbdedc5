"""RigidTransform against pydrake.math.RigidTransform at random poses, plus its error cases."""
import copy
import pickle

import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import AngleAxis, Quaternion, RigidTransform, RollPitchYaw, RotationMatrix

TOL = 1e-12


@pytest.fixture(scope="module")
def dm():
    require_pydrake()
    import pydrake.math as dm
    return dm


def random_poses(seed, n=20):
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-np.pi, np.pi, 3), rng.normal(size=3)) for _ in range(n)]


def to_drake(dm, X):
    return dm.RigidTransform(X.GetAsMatrix4())


def test_all_constructor_forms_match_pydrake(dm):
    from pydrake.common.eigen_geometry import AngleAxis as DAngleAxis, Quaternion as DQuaternion
    for rpy, p in random_poses(0):
        Xd = dm.RigidTransform(dm.RollPitchYaw(rpy), p)
        expected = Xd.GetAsMatrix4()
        q = Xd.rotation().ToQuaternion().wxyz()
        aa = Xd.rotation().ToAngleAxis()
        forms = [RigidTransform(RollPitchYaw(rpy), p),
                 RigidTransform(RotationMatrix(RollPitchYaw(rpy)), p),
                 RigidTransform(Quaternion(q), p),
                 RigidTransform(AngleAxis(aa.angle(), aa.axis()), p),
                 RigidTransform(expected), RigidTransform(expected[:3, :]),
                 RigidTransform(R=RotationMatrix(RollPitchYaw(rpy)), p=p)]
        for X in forms:
            np.testing.assert_allclose(X.GetAsMatrix4(), expected, atol=TOL)
        np.testing.assert_allclose(RigidTransform(Quaternion(q), p).GetAsMatrix4(),
                                   dm.RigidTransform(DQuaternion(q), p).GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(RigidTransform(AngleAxis(aa.angle(), aa.axis()), p).GetAsMatrix4(),
                                   dm.RigidTransform(DAngleAxis(aa.angle(), aa.axis()), p).GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(RigidTransform(p).GetAsMatrix4(), dm.RigidTransform(p).GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(RigidTransform(RotationMatrix(RollPitchYaw(rpy))).GetAsMatrix4(),
                                   dm.RigidTransform(dm.RotationMatrix(dm.RollPitchYaw(rpy))).GetAsMatrix4(), atol=TOL)
        with pytest.raises(TypeError, match="lone RollPitchYaw"):
            RigidTransform(RollPitchYaw(rpy))
    assert RigidTransform().IsExactlyIdentity() and RigidTransform.Identity().IsExactlyIdentity()


def test_composition_inverse_and_points_match_pydrake(dm):
    rng = np.random.default_rng(1)
    poses = random_poses(2)
    for (ra, pa), (rb, pb) in zip(poses[:-1], poses[1:]):
        A, B = RigidTransform(RollPitchYaw(ra), pa), RigidTransform(RollPitchYaw(rb), pb)
        Ad, Bd = to_drake(dm, A), to_drake(dm, B)
        np.testing.assert_allclose((A @ B).GetAsMatrix4(), (Ad @ Bd).GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(A.multiply(B).GetAsMatrix34(), Ad.multiply(Bd).GetAsMatrix34(), atol=TOL)
        np.testing.assert_allclose(A.inverse().GetAsMatrix4(), Ad.inverse().GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(A.InvertAndCompose(B).GetAsMatrix4(), Ad.InvertAndCompose(Bd).GetAsMatrix4(),
                                   atol=TOL)
        p, P, v4 = rng.normal(size=3), rng.normal(size=(3, 7)), rng.normal(size=4)
        np.testing.assert_allclose(A @ p, Ad @ p, atol=TOL)
        np.testing.assert_allclose(A @ P, Ad @ P, atol=TOL)
        for last in (0.0, 1.0):
            v4[3] = last
            np.testing.assert_allclose(A.multiply(v4), Ad.multiply(v4), atol=TOL)
        v4[3] = 0.5
        with pytest.raises(ValueError, match="is not 0"):
            A.multiply(v4)
        assert A.GetMaximumAbsoluteDifference(B) == pytest.approx(Ad.GetMaximumAbsoluteDifference(Bd), abs=TOL)
        assert A.GetMaximumAbsoluteTranslationDifference(B) == pytest.approx(
            Ad.GetMaximumAbsoluteTranslationDifference(Bd), abs=TOL)
        assert (A @ A.inverse()).IsNearlyIdentity(1e-12)


def test_accessors_and_setters():
    X = RigidTransform(RollPitchYaw(0.1, 0.2, 0.3), [1.0, 2.0, 3.0])
    t = X.translation()
    with pytest.raises(ValueError):
        t[0] = 9.0  # read-only view, as pydrake
    X.set_translation([4.0, 5.0, 6.0])
    np.testing.assert_array_equal(X.translation(), [4.0, 5.0, 6.0])
    X.set_rotation(RollPitchYaw(0.0, 0.0, np.pi / 2))
    np.testing.assert_allclose(X @ np.array([1.0, 0.0, 0.0]), [4.0, 6.0, 6.0], atol=TOL)
    X.set_rotation(Quaternion(1.0, 0.0, 0.0, 0.0))
    assert X.rotation().IsExactlyIdentity()
    X.set(RotationMatrix.MakeXRotation(0.2), [0.0, 0.0, 0.0])
    assert X.IsNearlyEqualTo(RigidTransform(RotationMatrix.MakeXRotation(0.2)), 0.0)
    assert X.SetIdentity().IsExactlyIdentity()
    np.testing.assert_array_equal(RigidTransform([1, 2, 3]).GetAsMatrix34()[:, 3], [1, 2, 3])
    for Y in (pickle.loads(pickle.dumps(X)), copy.copy(X), RigidTransform(X)):
        assert Y.IsExactlyEqualTo(X)
    assert repr(RigidTransform()).startswith("RigidTransform(\n  R=RotationMatrix([")


def test_bad_input_raises():
    with pytest.raises(ValueError, match="3-vector, a 3x4 matrix or a 4x4"):
        RigidTransform(np.eye(3))
    with pytest.raises(ValueError, match="not orthonormal"):
        RigidTransform(np.hstack((2.0 * np.eye(3), np.zeros((3, 1)))))
    bad = np.eye(4)
    bad[3, 0] = 1.0
    with pytest.raises(ValueError, match="bottom row"):
        RigidTransform(bad)
    with pytest.raises(ValueError, match="p.*3-vector"):
        RigidTransform(RotationMatrix(), [1.0, 2.0])
    with pytest.raises(ValueError, match="3xN"):
        RigidTransform() @ np.ones(5)
    with pytest.raises(TypeError):
        RigidTransform([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
