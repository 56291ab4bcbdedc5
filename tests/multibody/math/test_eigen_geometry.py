"""Quaternion and AngleAxis against pydrake.common.eigen_geometry."""
import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import AngleAxis, Quaternion, RollPitchYaw

TOL = 1e-12


@pytest.fixture(scope="module")
def eg():
    require_pydrake()
    import pydrake.common.eigen_geometry as eg
    return eg


def random_quaternions(seed, n=25):
    q = np.random.default_rng(seed).normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def test_quaternion_operations_match_pydrake(eg):
    rng = np.random.default_rng(0)
    qs = random_quaternions(1)
    for a, b in zip(qs[:-1], qs[1:]):
        A, B, Ad, Bd = Quaternion(a), Quaternion(b), eg.Quaternion(a), eg.Quaternion(b)
        np.testing.assert_allclose((A @ B).wxyz(), (Ad @ Bd).wxyz(), atol=TOL)
        np.testing.assert_allclose(A.multiply(B).wxyz(), Ad.multiply(Bd).wxyz(), atol=TOL)
        np.testing.assert_allclose(A.conjugate().wxyz(), Ad.conjugate().wxyz(), atol=TOL)
        np.testing.assert_allclose(A.inverse().wxyz(), Ad.inverse().wxyz(), atol=TOL)
        np.testing.assert_allclose(A.rotation(), Ad.rotation(), atol=TOL)
        v, V = rng.normal(size=3), rng.normal(size=(3, 4))
        np.testing.assert_allclose(A.multiply(v), Ad.multiply(v), atol=TOL)
        np.testing.assert_allclose(A @ V, Ad.multiply(V), atol=TOL)
        t = rng.uniform()
        np.testing.assert_allclose(A.slerp(t, B).wxyz(), Ad.slerp(t, Bd).wxyz(), atol=TOL)
        R = Ad.rotation()
        np.testing.assert_allclose(Quaternion(R).wxyz(), eg.Quaternion(R).wxyz(), atol=TOL)
        np.testing.assert_allclose(A.xyz(), Ad.xyz(), atol=0)
        assert (A.w(), A.x(), A.y(), A.z()) == (Ad.w(), Ad.x(), Ad.y(), Ad.z())


def test_angle_axis_matches_pydrake(eg):
    rng = np.random.default_rng(2)
    for q in random_quaternions(3):
        Qd = eg.Quaternion(q)
        aa, aad = AngleAxis(Quaternion(q)), eg.AngleAxis(Qd)
        assert aa.angle() == pytest.approx(aad.angle(), abs=TOL)
        np.testing.assert_allclose(aa.axis(), aad.axis(), atol=1e-11)
        R = Qd.rotation()
        np.testing.assert_allclose(AngleAxis(R).axis(), eg.AngleAxis(R).axis(), atol=1e-11)
        assert AngleAxis(R).angle() == pytest.approx(eg.AngleAxis(R).angle(), abs=TOL)
        angle, axis = rng.uniform(-7, 7), rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        A, Ad = AngleAxis(angle, axis), eg.AngleAxis(angle, axis)
        np.testing.assert_allclose(A.rotation(), Ad.rotation(), atol=TOL)
        np.testing.assert_allclose(A.quaternion().wxyz(), Ad.quaternion().wxyz(), atol=TOL)
        np.testing.assert_allclose(A.inverse().rotation(), Ad.inverse().rotation(), atol=TOL)
        np.testing.assert_allclose((A @ A).wxyz(), (Ad @ Ad).wxyz(), atol=TOL)


def test_defaults_repr_and_errors():
    np.testing.assert_array_equal(Quaternion().wxyz(), [1, 0, 0, 0])
    np.testing.assert_array_equal(Quaternion.Identity().wxyz(), [1, 0, 0, 0])
    assert AngleAxis().angle() == 0.0 and AngleAxis().axis().tolist() == [1.0, 0.0, 0.0]
    assert repr(Quaternion(1, 0, 0, 0)) == "Quaternion(w=1.0, x=0.0, y=0.0, z=0.0)"
    assert repr(AngleAxis(1, [1, 0, 0])) == "AngleAxis(angle=1.0, axis=[1. 0. 0.])"
    Quaternion(1 + 1e-7, 0, 0, 0)  # tolerated, as in pydrake
    with pytest.raises(ValueError, match="not normalized"):
        Quaternion(2.0, 0.0, 0.0, 0.0)
    with pytest.raises(RuntimeError, match="not normalized"):
        Quaternion(np.array([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(ValueError, match="not normalized"):
        AngleAxis(1.0, [0.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="4-vector"):
        Quaternion(np.ones(5))
    q = Quaternion(RollPitchYaw(0.1, 0.2, 0.3).ToQuaternion())
    q.set_wxyz(0.0, 1.0, 0.0, 0.0)
    np.testing.assert_array_equal(q.wxyz(), [0, 1, 0, 0])
