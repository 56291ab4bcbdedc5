"""SpatialVelocity / Acceleration / Force / Momentum against pydrake.multibody.math at random inputs."""
import pickle

import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import (
    RollPitchYaw,
    RotationMatrix,
    SpatialAcceleration,
    SpatialForce,
    SpatialMomentum,
    SpatialVelocity,
)

TOL = 1e-12
KINDS = ("SpatialVelocity", "SpatialAcceleration", "SpatialForce", "SpatialMomentum")
OURS = dict(SpatialVelocity=SpatialVelocity, SpatialAcceleration=SpatialAcceleration, SpatialForce=SpatialForce,
            SpatialMomentum=SpatialMomentum)


@pytest.fixture(scope="module")
def drake():
    require_pydrake()
    import pydrake.math as dm
    import pydrake.multibody.math as dmm
    return dm, dmm


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("kind", KINDS)
def test_vector_space_and_rotate_match_pydrake(drake, rng, kind):
    dm, dmm = drake
    ours, theirs = OURS[kind], getattr(dmm, kind)
    for _ in range(10):
        a, b = rng.normal(size=6), rng.normal(size=6)
        rpy, s = rng.uniform(-3, 3, size=3), rng.normal()
        A, B = ours(a[:3], a[3:]), ours(b)
        Ad, Bd = theirs(a[:3], a[3:]), theirs(b)
        np.testing.assert_allclose((A + B).get_coeffs(), (Ad + Bd).get_coeffs(), atol=TOL)
        np.testing.assert_allclose((A - B).get_coeffs(), (Ad - Bd).get_coeffs(), atol=TOL)
        np.testing.assert_allclose((-A).get_coeffs(), (-Ad).get_coeffs(), atol=TOL)
        np.testing.assert_allclose((s * A).get_coeffs(), (s * Ad).get_coeffs(), atol=TOL)
        np.testing.assert_allclose((A * s).get_coeffs(), (Ad * s).get_coeffs(), atol=TOL)
        R, Rd = RotationMatrix(RollPitchYaw(rpy)), dm.RotationMatrix(dm.RollPitchYaw(rpy))
        np.testing.assert_allclose(A.Rotate(R).get_coeffs(), Ad.Rotate(Rd).get_coeffs(), atol=TOL)
        np.testing.assert_allclose((R @ A).get_coeffs(), Ad.Rotate(Rd).get_coeffs(), atol=TOL)
        np.testing.assert_array_equal(A.rotational(), a[:3])
        np.testing.assert_array_equal(A.translational(), a[3:])
        C = ours(a)
        C += B
        C -= A
        C *= 2.0
        np.testing.assert_allclose(C.get_coeffs(), 2.0 * b, atol=TOL)
    assert np.all(ours.Zero().get_coeffs() == 0.0) and ours().IsNaN()
    assert not ours(np.ones(6)).SetZero().IsNaN()


def test_shift_and_compose_match_pydrake(drake, rng):
    _, dmm = drake
    for _ in range(20):
        V, V2, A, A2 = (rng.normal(size=6) for _ in range(4))
        p, w = rng.normal(size=3), rng.normal(size=3)
        np.testing.assert_allclose(SpatialVelocity(V).Shift(p).get_coeffs(),
                                   dmm.SpatialVelocity(V).Shift(p).get_coeffs(), atol=TOL)
        np.testing.assert_allclose(SpatialForce(V).Shift(p).get_coeffs(),
                                   dmm.SpatialForce(V).Shift(p).get_coeffs(), atol=TOL)
        np.testing.assert_allclose(SpatialMomentum(V).Shift(p).get_coeffs(),
                                   dmm.SpatialMomentum(V).Shift(p).get_coeffs(), atol=TOL)
        np.testing.assert_allclose(SpatialAcceleration(A).Shift(p, w).get_coeffs(),
                                   dmm.SpatialAcceleration(A).Shift(p, w).get_coeffs(), atol=TOL)
        np.testing.assert_allclose(SpatialAcceleration(A).ShiftWithZeroAngularVelocity(p).get_coeffs(),
                                   dmm.SpatialAcceleration(A).ShiftWithZeroAngularVelocity(p).get_coeffs(), atol=TOL)
        np.testing.assert_allclose(
            SpatialVelocity(V).ComposeWithMovingFrameVelocity(p, SpatialVelocity(V2)).get_coeffs(),
            dmm.SpatialVelocity(V).ComposeWithMovingFrameVelocity(p, dmm.SpatialVelocity(V2)).get_coeffs(), atol=TOL)
        ours = SpatialAcceleration(A).ComposeWithMovingFrameAcceleration(
            p, w, SpatialVelocity(V2), SpatialAcceleration(A2))
        theirs = dmm.SpatialAcceleration(A).ComposeWithMovingFrameAcceleration(
            p, w, dmm.SpatialVelocity(V2), dmm.SpatialAcceleration(A2))
        np.testing.assert_allclose(ours.get_coeffs(), theirs.get_coeffs(), atol=TOL)


def test_power_dot_products_match_pydrake(drake, rng):
    _, dmm = drake
    V, F = rng.normal(size=6), rng.normal(size=6)
    expected = dmm.SpatialVelocity(V).dot(dmm.SpatialForce(F))
    assert SpatialVelocity(V).dot(SpatialForce(F)) == pytest.approx(expected, abs=TOL)
    assert SpatialForce(F).dot(SpatialVelocity(V)) == pytest.approx(expected, abs=TOL)
    assert (SpatialVelocity(V) @ SpatialForce(F)) == pytest.approx(expected, abs=TOL)
    assert SpatialVelocity(V).dot(SpatialMomentum(F)) == pytest.approx(
        dmm.SpatialVelocity(V).dot(dmm.SpatialMomentum(F)), abs=TOL)
    assert SpatialMomentum(F).dot(SpatialVelocity(V)) == pytest.approx(
        dmm.SpatialMomentum(F).dot(dmm.SpatialVelocity(V)), abs=TOL)
    with pytest.raises(TypeError, match="SpatialForce or SpatialMomentum"):
        SpatialVelocity(V).dot(SpatialVelocity(V))


def test_power_is_invariant_under_shift(rng):
    # Moving the reference point changes V and F but not the power they produce.
    V, F, p = rng.normal(size=6), rng.normal(size=6), rng.normal(size=3)
    P0 = SpatialVelocity(V).dot(SpatialForce(F))
    assert SpatialVelocity(V).Shift(p).dot(SpatialForce(F).Shift(p)) == pytest.approx(P0, abs=1e-12)


def test_errors_and_protocols():
    with pytest.raises(ValueError, match="6-vector"):
        SpatialVelocity(np.ones(5))
    with pytest.raises(ValueError, match="'v' must be a 3-vector"):
        SpatialVelocity([1, 2, 3], [1, 2])
    with pytest.raises(TypeError):
        SpatialVelocity(np.ones(6)) + SpatialForce(np.ones(6))
    with pytest.raises(TypeError):
        SpatialVelocity(np.ones(6)).Rotate(np.eye(3))
    V = SpatialVelocity(w=[1.0, 2.0, 3.0], v=[4.0, 5.0, 6.0])
    with pytest.raises(ValueError):
        V.rotational()[0] = 5.0
    assert repr(V) == "SpatialVelocity(\n  w=[1.0, 2.0, 3.0],\n  v=[4.0, 5.0, 6.0],\n)"
    assert repr(SpatialForce(np.zeros(6))).startswith("SpatialForce(\n  tau=[")
    W = pickle.loads(pickle.dumps(V))
    assert type(W) is SpatialVelocity and W.IsApprox(V) and V.IsNearlyEqualWithinAbsoluteTolerance(W, 0.0)
    assert not V.IsApprox(V * (1 + 1e-6), 1e-9) and V.IsApprox(V * (1 + 1e-12), 1e-9)
    assert V.SetNaN().IsNaN()
