"""UnitInertia factories and shifts against pydrake.multibody.tree.UnitInertia."""
import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import RotationMatrix
from mallard.multibody.tree.rotational_inertia import RotationalInertia
from mallard.multibody.tree.unit_inertia import UnitInertia

TOL = 1e-12


@pytest.fixture(scope="module")
def dt():
    require_pydrake()
    import pydrake.multibody.tree as dt
    return dt


def unit(rng):
    u = rng.normal(size=3)
    return u / np.linalg.norm(u)


def test_factories_match_pydrake(dt):
    rng = np.random.default_rng(0)
    for _ in range(8):
        r, L, a, b, c = rng.uniform(0.01, 2.0, size=5)
        u, p = unit(rng), rng.normal(size=3)
        J = rng.uniform(0.0, 1.0)
        K = rng.uniform(J / 2, 2.0)
        cases = [("SolidSphere", (r,)), ("HollowSphere", (r,)), ("SolidBox", (a, b, c)), ("SolidCube", (L,)),
                 ("SolidEllipsoid", (a, b, c)), ("SolidCylinder", (r, L, u)), ("SolidCylinderAboutEnd", (r, L, u)),
                 ("SolidCapsule", (r, L, u)), ("ThinRod", (L, u)), ("StraightLine", (K, u)),
                 ("AxiallySymmetric", (J, K, u)), ("PointMass", (p,)), ("TriaxiallySymmetric", (K,))]
        for name, args in cases:
            ours, theirs = getattr(UnitInertia, name)(*args), getattr(dt.UnitInertia, name)(*args)
            assert isinstance(ours, UnitInertia)
            np.testing.assert_allclose(ours.CopyToFullMatrix3(), theirs.CopyToFullMatrix3(), atol=TOL, err_msg=name)


def test_shifts_types_and_conversions_match_pydrake(dt):
    rng = np.random.default_rng(1)
    G, Gd = UnitInertia.SolidBox(0.1, 0.2, 0.3), dt.UnitInertia.SolidBox(0.1, 0.2, 0.3)
    p = rng.normal(size=3)
    np.testing.assert_allclose(G.ShiftFromCenterOfMass(p).CopyToFullMatrix3(),
                               Gd.ShiftFromCenterOfMass(p).CopyToFullMatrix3(), atol=TOL)
    np.testing.assert_allclose(G.ShiftFromCenterOfMass(p).ShiftToCenterOfMass(p).CopyToFullMatrix3(),
                               G.CopyToFullMatrix3(), atol=TOL)
    assert isinstance(G.ShiftFromCenterOfMass(p), UnitInertia)
    assert isinstance(G.ReExpress(RotationMatrix.MakeXRotation(0.3)), UnitInertia)
    assert type(G * 2.0) is RotationalInertia and type(G + G) is RotationalInertia  # as pydrake
    I = RotationalInertia(2.0, 3.0, 4.0)
    np.testing.assert_allclose(UnitInertia().SetFromRotationalInertia(I, 2.0).CopyToFullMatrix3(),
                               np.diag([1.0, 1.5, 2.0]))
    np.testing.assert_array_equal(UnitInertia(I).CopyToFullMatrix3(), I.CopyToFullMatrix3())


def test_bad_factory_arguments_raise():
    with pytest.raises(ValueError, match="Lx is not non-negative"):
        UnitInertia.SolidBox(-1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="not a unit vector"):
        UnitInertia.SolidCylinder(0.1, 0.5, [0.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="triangle inequality"):
        UnitInertia.AxiallySymmetric(3.0, 1.0, [0.0, 0.0, 1.0])
    assert not UnitInertia(1.0, 1.0, 3.0).CouldBePhysicallyValid()  # unchecked, as in pydrake
    with pytest.raises(ValueError, match="mass is not positive"):
        UnitInertia().SetFromRotationalInertia(RotationalInertia(1, 1, 1), 0.0)
    with pytest.raises(TypeError, match="PointMass"):
        UnitInertia(1.0, [1.0, 2.0, 3.0])
