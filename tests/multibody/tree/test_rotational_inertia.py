"""RotationalInertia against pydrake.multibody.tree.RotationalInertia, plus validity errors."""
import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import RollPitchYaw, RotationMatrix
from mallard.multibody.tree.rotational_inertia import RotationalInertia

TOL = 1e-12


@pytest.fixture(scope="module")
def drake():
    require_pydrake()
    import pydrake.math as dm
    import pydrake.multibody.tree as dt
    return dm, dt


def random_valid_inertias(seed, n=15):
    """Random physically valid inertias: R diag(principal) Rᵀ with principal moments from random masses."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        a, b, c = rng.uniform(0.05, 1.0, size=3)
        moments = np.array([b * b + c * c, a * a + c * c, a * a + b * b]) * rng.uniform(0.1, 10.0)
        R = RotationMatrix(RollPitchYaw(rng.uniform(-3, 3, size=3))).matrix()
        out.append(R @ np.diag(moments) @ R.T)
    return out


def args_of(I):
    return I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]


def test_construction_and_accessors_match_pydrake(drake):
    _, dt = drake
    rng = np.random.default_rng(0)
    for I in random_valid_inertias(1):
        ours, theirs = RotationalInertia(*args_of(I)), dt.RotationalInertia(*args_of(I))
        np.testing.assert_allclose(ours.CopyToFullMatrix3(), theirs.CopyToFullMatrix3(), atol=TOL)
        np.testing.assert_allclose(ours.get_moments(), theirs.get_moments(), atol=TOL)
        np.testing.assert_allclose(ours.get_products(), theirs.get_products(), atol=TOL)
        assert ours.Trace() == pytest.approx(theirs.Trace(), abs=TOL)
        assert ours.CalcMaximumPossibleMomentOfInertia() == pytest.approx(
            theirs.CalcMaximumPossibleMomentOfInertia(), abs=TOL)
        assert ours[0, 1] == theirs[0, 1] and ours.rows() == 3 and ours.cols() == 3
        mass, p = rng.uniform(0.1, 5.0), rng.normal(size=3)
        np.testing.assert_allclose(RotationalInertia(mass, p).CopyToFullMatrix3(),
                                   dt.RotationalInertia(mass, p).CopyToFullMatrix3(), atol=TOL)
    assert RotationalInertia().IsNaN() and not RotationalInertia(1, 1, 1).IsNaN()
    np.testing.assert_array_equal(RotationalInertia.TriaxiallySymmetric(2.0).CopyToFullMatrix3(), 2.0 * np.eye(3))


def test_shifts_and_reexpress_match_pydrake(drake):
    dm, dt = drake
    rng = np.random.default_rng(2)
    for I in random_valid_inertias(3):
        ours, theirs = RotationalInertia(*args_of(I)), dt.RotationalInertia(*args_of(I))
        mass, p1, p2 = rng.uniform(0.1, 5.0), rng.normal(size=3), rng.normal(size=3)
        rpy = rng.uniform(-3, 3, size=3)
        pairs = [
            (ours.ReExpress(RotationMatrix(RollPitchYaw(rpy))),
             theirs.ReExpress(dm.RotationMatrix(dm.RollPitchYaw(rpy)))),
            (ours.ShiftFromCenterOfMass(mass, p1), theirs.ShiftFromCenterOfMass(mass, p1)),
            (ours.ShiftFromCenterOfMass(mass, p1).ShiftToCenterOfMass(mass, p1),
             theirs.ShiftFromCenterOfMass(mass, p1).ShiftToCenterOfMass(mass, p1)),
            (ours.ShiftToThenAwayFromCenterOfMass(mass, p1, p2), theirs.ShiftToThenAwayFromCenterOfMass(mass, p1, p2)),
            (ours + ours, theirs + theirs), (ours * 3.0, theirs * 3.0), (3.0 * ours, 3.0 * theirs),
            (ours / 4.0, theirs / 4.0), ((ours * 2.0) - ours, (theirs * 2.0) - theirs),
        ]
        for a, b in pairs:
            np.testing.assert_allclose(a.CopyToFullMatrix3(), b.CopyToFullMatrix3(), atol=1e-11)
        w = rng.normal(size=3)
        np.testing.assert_allclose(ours * w, theirs * w, atol=TOL)


def test_principal_moments_and_axes_match_pydrake(drake):
    _, dt = drake
    for I in random_valid_inertias(4, n=60) + [np.diag([3.0, 1.0, 2.0]), np.diag([2.0, 2.0, 2.0]),
                                                 np.diag([1.0, 3.0, 3.0])]:
        ours, theirs = RotationalInertia(*args_of(I)), dt.RotationalInertia(*args_of(I))
        moments, R = ours.CalcPrincipalMomentsAndAxesOfInertia()
        moments_d, R_d = theirs.CalcPrincipalMomentsAndAxesOfInertia()
        np.testing.assert_allclose(moments, moments_d, atol=1e-12, rtol=1e-12)
        np.testing.assert_allclose(ours.CalcPrincipalMomentsOfInertia(), theirs.CalcPrincipalMomentsOfInertia(),
                                   atol=1e-12, rtol=1e-12)
        assert R.IsValid()
        # Distinct moments: the axes (including their signs, which Eigen's solver fixes) equal pydrake's.
        np.testing.assert_allclose(R.matrix(), R_d.matrix(), atol=1e-12)
        np.testing.assert_allclose(R.matrix() @ np.diag(moments) @ R.matrix().T, I, atol=1e-12)


def test_principal_axes_with_repeated_moments_diagonalize(drake):
    # With two equal moments any orthonormal basis of that plane is principal; check the decomposition.
    rng = np.random.default_rng(9)
    for _ in range(10):
        R0 = RotationMatrix(RollPitchYaw(rng.uniform(-3, 3, size=3))).matrix()
        I = R0 @ np.diag([2.0, 2.0, 3.0]) @ R0.T
        moments, R = RotationalInertia(*args_of(I)).CalcPrincipalMomentsAndAxesOfInertia()
        np.testing.assert_allclose(moments, [2.0, 2.0, 3.0], atol=1e-12)
        assert R.IsValid()
        np.testing.assert_allclose(R.matrix() @ np.diag(moments) @ R.matrix().T, I, atol=1e-12)


def test_nearly_equal_and_validity_predicates(drake):
    _, dt = drake
    I = RotationalInertia(2, 3, 4)
    results = []
    for precision in (1e-5, 1e-4):
        results.append(I.IsNearlyEqualTo(RotationalInertia(2, 3, 4.0001), precision))
        assert results[-1] == dt.RotationalInertia(2, 3, 4).IsNearlyEqualTo(dt.RotationalInertia(2, 3, 4.0001),
                                                                             precision)
    assert results == [False, True]
    assert I.CouldBePhysicallyValid()
    invalid = RotationalInertia(1, 2, 3) - RotationalInertia(1, 1, 1) * 3.0  # arithmetic is unchecked
    assert not invalid.CouldBePhysicallyValid()
    assert not RotationalInertia().CouldBePhysicallyValid()


def test_non_physical_inertias_are_detected_not_rejected(drake):
    # As pydrake: RotationalInertia itself is unchecked; CouldBePhysicallyValid() says why it is not physical,
    # and SpatialInertia refuses it with a message naming the failed condition.
    _, dt = drake
    from mallard.multibody.tree.spatial_inertia import SpatialInertia
    cases = [((1.0, 1.0, 3.0), "triangle inequality"), ((-1.0, 1.0, 1.0), "negative"),
             ((1.0, 1.0, 1.0, 2.0, 0.0, 0.0), "not positive semidefinite")]
    for args, reason in cases:
        I = RotationalInertia(*args)
        assert not I.CouldBePhysicallyValid()
        assert I.CouldBePhysicallyValid() == dt.RotationalInertia(*args).CouldBePhysicallyValid()
        with pytest.raises(ValueError, match=reason):
            SpatialInertia.MakeFromCentralInertia(1.0, [0.0, 0.0, 0.0], I)
    assert RotationalInertia(1.0, 1.0, 2.0).CouldBePhysicallyValid()  # the triangle's equality edge is valid
    with pytest.raises(ValueError, match="real number"):
        RotationalInertia("a", 1, 1)
    with pytest.raises(ValueError, match="NaN"):
        RotationalInertia().CalcPrincipalMomentsOfInertia()
    with pytest.raises(TypeError):
        RotationalInertia(1.0, 2.0, 3.0, 4.0)
