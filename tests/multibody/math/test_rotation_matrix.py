"""RotationMatrix against pydrake.math.RotationMatrix at random inputs, plus its error cases."""
import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import AngleAxis, Quaternion, RollPitchYaw, RotationMatrix

TOL = 1e-12


@pytest.fixture(scope="module")
def dm():
    require_pydrake()
    import pydrake.math as dm
    return dm


def random_rpys(n=40, seed=0):
    rng = np.random.default_rng(seed)
    out = rng.uniform([-np.pi, -np.pi / 2, -np.pi], [np.pi, np.pi / 2, np.pi], size=(n, 3))
    # gimbal lock, identity and half-turns exercise the special branches
    extra = [[0.1, np.pi / 2, 0.3], [0.1, -np.pi / 2, 0.3], [0, 0, 0], [np.pi, 0, 0], [0, 0, np.pi],
             [0, np.pi / 2, 0], [3.0, 1.5707963, -2.0]]
    return np.vstack([out, extra])


def test_constructors_match_pydrake(dm):
    from pydrake.common.eigen_geometry import AngleAxis as DAngleAxis, Quaternion as DQuaternion
    for rpy in random_rpys():
        Rd = dm.RollPitchYaw(rpy).ToRotationMatrix()
        R = RotationMatrix(RollPitchYaw(rpy))
        np.testing.assert_allclose(R.matrix(), Rd.matrix(), atol=TOL)
        np.testing.assert_allclose(RotationMatrix(Rd.matrix()).matrix(), Rd.matrix(), atol=TOL)
        q = Rd.ToQuaternion().wxyz()
        np.testing.assert_allclose(RotationMatrix(Quaternion(q)).matrix(),
                                   dm.RotationMatrix(DQuaternion(q)).matrix(), atol=TOL)
        aa = Rd.ToAngleAxis()
        np.testing.assert_allclose(RotationMatrix(AngleAxis(aa.angle(), aa.axis())).matrix(),
                                   dm.RotationMatrix(DAngleAxis(aa.angle(), aa.axis())).matrix(), atol=TOL)


def test_conversions_match_pydrake(dm):
    for rpy in random_rpys(seed=1):
        Rd = dm.RollPitchYaw(rpy).ToRotationMatrix()
        R = RotationMatrix(Rd.matrix())
        np.testing.assert_allclose(R.ToQuaternion().wxyz(), Rd.ToQuaternion().wxyz(), atol=TOL)
        assert R.ToQuaternion().w() >= 0.0
        np.testing.assert_allclose(R.ToRollPitchYaw().vector(), Rd.ToRollPitchYaw().vector(), atol=TOL)
        assert R.ToAngleAxis().angle() == pytest.approx(Rd.ToAngleAxis().angle(), abs=TOL)
        np.testing.assert_allclose(R.ToAngleAxis().axis(), Rd.ToAngleAxis().axis(), atol=1e-9)


def test_half_turn_quaternion_and_angle_axis_conventions(dm):
    for theta in (np.pi, 3.5, -3.5, 2 * np.pi - 1e-3):
        Rd = dm.RotationMatrix.MakeXRotation(theta)
        R = RotationMatrix.MakeXRotation(theta)
        np.testing.assert_allclose(R.ToQuaternion().wxyz(), Rd.ToQuaternion().wxyz(), atol=TOL)
        assert R.ToAngleAxis().angle() == pytest.approx(Rd.ToAngleAxis().angle(), abs=TOL)
        np.testing.assert_allclose(R.ToAngleAxis().axis(), Rd.ToAngleAxis().axis(), atol=TOL)


def test_algebra_matches_pydrake(dm):
    rng = np.random.default_rng(2)
    rpys = random_rpys(seed=3)
    for a, b in zip(rpys[:-1], rpys[1:]):
        A, B = RotationMatrix(RollPitchYaw(a)), RotationMatrix(RollPitchYaw(b))
        Ad, Bd = dm.RotationMatrix(dm.RollPitchYaw(a)), dm.RotationMatrix(dm.RollPitchYaw(b))
        np.testing.assert_allclose((A @ B).matrix(), (Ad @ Bd).matrix(), atol=TOL)
        np.testing.assert_allclose(A.multiply(B).matrix(), Ad.multiply(Bd).matrix(), atol=TOL)
        np.testing.assert_allclose(A.inverse().matrix(), Ad.inverse().matrix(), atol=TOL)
        np.testing.assert_allclose(A.transpose().matrix(), Ad.transpose().matrix(), atol=TOL)
        np.testing.assert_allclose(A.InvertAndCompose(B).matrix(), Ad.InvertAndCompose(Bd).matrix(), atol=TOL)
        v = rng.normal(size=3)
        V = rng.normal(size=(3, 5))
        np.testing.assert_allclose(A @ v, Ad @ v, atol=TOL)
        np.testing.assert_allclose(A.multiply(V), Ad.multiply(V), atol=TOL)
        assert (A @ V).shape == (3, 5)
        for i in range(3):
            np.testing.assert_allclose(A.col(i), Ad.col(i), atol=TOL)
            np.testing.assert_allclose(A.row(i), Ad.row(i), atol=TOL)


def test_make_axis_rotations_and_from_one_vector(dm):
    rng = np.random.default_rng(4)
    for theta in rng.uniform(-7, 7, size=10):
        for name in ("MakeXRotation", "MakeYRotation", "MakeZRotation"):
            np.testing.assert_allclose(getattr(RotationMatrix, name)(theta).matrix(),
                                       getattr(dm.RotationMatrix, name)(theta).matrix(), atol=TOL)
    vectors = list(rng.normal(size=(10, 3)) * rng.uniform(0.01, 10, size=(10, 1)))
    vectors += [np.array([0, 0, 1.0]), np.array([0, -2.0, 0]), np.array([1.0, 1.0, 1.0])]
    for b in vectors:
        for axis in range(3):
            R = RotationMatrix.MakeFromOneVector(b, axis)
            np.testing.assert_allclose(R.matrix(), dm.RotationMatrix.MakeFromOneVector(b, axis).matrix(), atol=TOL)
            assert R.IsValid()
            np.testing.assert_allclose(R.col(axis), b / np.linalg.norm(b), atol=TOL)


def test_project_to_rotation_matrix(dm):
    rng = np.random.default_rng(5)
    for _ in range(10):
        M = dm.RollPitchYaw(rng.normal(size=3)).ToRotationMatrix().matrix() + 0.1 * rng.normal(size=(3, 3))
        if np.linalg.det(M) <= 0:
            continue
        np.testing.assert_allclose(RotationMatrix.ProjectToRotationMatrix(M).matrix(),
                                   dm.RotationMatrix.ProjectToRotationMatrix(M).matrix(), atol=1e-12)
    np.testing.assert_allclose(RotationMatrix.ProjectToRotationMatrix(np.diag([1.0, 2.0, 3.0])).matrix(), np.eye(3))
    with pytest.raises(ValueError, match="determinant is negative"):
        RotationMatrix.ProjectToRotationMatrix(np.diag([1.0, 2.0, -3.0]))


def test_predicates():
    R = RotationMatrix.MakeZRotation(0.3)
    assert RotationMatrix().IsExactlyIdentity() and RotationMatrix.Identity().IsNearlyIdentity()
    assert not R.IsExactlyIdentity() and not R.IsNearlyIdentity()
    assert R.IsNearlyEqualTo(RotationMatrix.MakeZRotation(0.3 + 1e-13), 1e-12)
    assert not R.IsNearlyEqualTo(RotationMatrix.MakeZRotation(0.3 + 1e-9), 1e-12)
    assert R.IsValid() and RotationMatrix.MakeUnchecked(np.diag([1, 1, 1.001])).IsValid() is False
    assert RotationMatrix(np.eye(3) * (1 + 1e-14)).IsValid()  # within Drake's 128 ε tolerance


def test_non_orthonormal_and_bad_sizes_raise():
    with pytest.raises(ValueError, match="not orthonormal"):
        RotationMatrix(np.diag([1.0, 1.0, 1.001]))
    with pytest.raises(RuntimeError, match="not orthonormal"):  # pydrake raises RuntimeError: both work
        RotationMatrix(np.ones((3, 3)))
    with pytest.raises(ValueError, match="determinant is negative"):
        RotationMatrix(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ValueError, match="infinity or NaN"):
        RotationMatrix(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="3x3"):
        RotationMatrix(np.eye(2))
    with pytest.raises(ValueError, match="3-vector or a 3xN"):
        RotationMatrix() @ np.ones(4)
    with pytest.raises(ValueError, match="index"):
        RotationMatrix().col(3)
    with pytest.raises(ValueError, match="cannot normalize"):
        RotationMatrix.MakeFromOneVector([0, 0, 0], 1)
    with pytest.raises(ValueError, match="axis_index"):
        RotationMatrix.MakeFromOneVector([0, 0, 1], 3)


def test_copies_and_pickle():
    import copy
    import pickle
    R = RotationMatrix.MakeXRotation(0.4)
    m = R.matrix()
    m[0, 0] = 9.0
    assert R.matrix()[0, 0] == 1.0
    for R2 in (pickle.loads(pickle.dumps(R)), copy.deepcopy(R), RotationMatrix(R)):
        assert R2.IsExactlyEqualTo(R)
    assert repr(RotationMatrix()).startswith("RotationMatrix([\n  [1.0, 0.0, 0.0],")
