"""The plain-array kernels in mallard.multibody.math.functions, against pydrake and identities."""
import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import functions as F

TOL = 1e-12


@pytest.fixture(scope="module")
def dm():
    require_pydrake()
    import pydrake.math as dm
    return dm


def test_rotation_kernels_match_pydrake(dm):
    rng = np.random.default_rng(0)
    for rpy in rng.uniform(-3.5, 3.5, size=(25, 3)):
        Rd = dm.RollPitchYaw(rpy).ToRotationMatrix()
        R = F.rotation_matrix_from_rpy(rpy)
        np.testing.assert_allclose(R, Rd.matrix(), atol=TOL)
        q = F.quaternion_from_rotation_matrix(R)
        np.testing.assert_allclose(q, Rd.ToQuaternion().wxyz(), atol=TOL)
        np.testing.assert_allclose(F.rotation_matrix_from_quaternion(q), R, atol=TOL)
        np.testing.assert_allclose(F.rotation_matrix_from_quaternion(3.0 * q), R, atol=TOL)  # normalizes
        np.testing.assert_allclose(F.rpy_from_rotation_matrix(R), Rd.ToRollPitchYaw().vector(), atol=TOL)
        np.testing.assert_allclose(F.quaternion_from_rpy(rpy), dm.RollPitchYaw(rpy).ToQuaternion().wxyz(), atol=TOL)
        angle, axis = F.angle_axis_from_quaternion(q)
        np.testing.assert_allclose(F.rotation_matrix_from_angle_axis(angle, axis), R, atol=TOL)
        v = rng.normal(size=3)
        np.testing.assert_allclose(F.quaternion_rotate(q, v), R @ v, atol=TOL)
        q2 = F.quaternion_from_rotation_matrix(F.rotation_matrix_from_rpy(rng.normal(size=3)))
        np.testing.assert_allclose(F.rotation_matrix_from_quaternion(F.quaternion_multiply(q, q2)),
                                   R @ F.rotation_matrix_from_quaternion(q2), atol=TOL)
        np.testing.assert_allclose(F.rotation_matrix_from_quaternion(F.quaternion_conjugate(q)), R.T, atol=TOL)
        assert F.orthonormality_error(R) < 1e-15


def test_skew_and_shift_kernels():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(F.skew(a) @ b, np.cross(a, b), atol=TOL)
    np.testing.assert_allclose(F.skew(a), -F.skew(a).T)
    V, p = rng.normal(size=6), rng.normal(size=3)
    np.testing.assert_allclose(F.shift_spatial_velocity(V, p)[3:], V[3:] + np.cross(V[:3], p), atol=TOL)
    np.testing.assert_allclose(F.shift_spatial_force(V, p)[:3], V[:3] - np.cross(p, V[3:]), atol=TOL)
    np.testing.assert_allclose(F.point_mass_unit_inertia(p), p @ p * np.eye(3) - np.outer(p, p), atol=TOL)
    assert F.orthonormality_error(np.diag([1.0, 1.0, 1.1])) == pytest.approx(0.21)


def test_pydrake_named_helpers_match_pydrake(dm):
    for value, low, high in ((7.0, -np.pi, np.pi), (np.pi, -np.pi, np.pi), (-np.pi, -np.pi, np.pi), (5.0, 0.0, 1.0),
                             (-12.3, 2.0, 4.5), (0.2, 0.0, 1.0)):
        assert F.wrap_to(value, low, high) == pytest.approx(dm.wrap_to(value, low, high), abs=1e-14)
        assert low <= F.wrap_to(value, low, high) < high
    with pytest.raises(ValueError, match="low < high"):
        F.wrap_to(1.0, 1.0, 0.0)
    np.testing.assert_array_equal(F.VectorToSkewSymmetric([1.0, 2.0, 3.0]), dm.VectorToSkewSymmetric([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="3-vector"):
        F.VectorToSkewSymmetric([1.0, 2.0])


def test_symmetric_eigen3_matches_numpy_and_diagonalizes():
    from mallard.multibody.math.symmetric_eigen import symmetric_eigen3
    rng = np.random.default_rng(3)
    for scale in (1e-6, 1.0, 1e6):
        A = rng.normal(size=(3, 3)) * scale
        A = A + A.T
        w, V = symmetric_eigen3(A)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(A), atol=1e-12 * scale)
        np.testing.assert_allclose(V.T @ V, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(V @ np.diag(w) @ V.T, A, atol=1e-12 * scale)
    w, V = symmetric_eigen3(np.zeros((3, 3)))
    np.testing.assert_array_equal(w, 0.0)
    np.testing.assert_array_equal(V, np.eye(3))
