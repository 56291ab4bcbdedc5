"""SpatialInertia against pydrake.multibody.tree.SpatialInertia: factories, Shift/ReExpress, products with
spatial vectors, validity errors, and the inertias of real robot models (iiwa14, Acrobot) read from URDF."""
import numpy as np
import pytest
from lxml import etree
from oracles import require_pydrake

from mallard.multibody.math import RollPitchYaw, RotationMatrix, SpatialAcceleration, SpatialVelocity
from mallard.multibody.tree.rotational_inertia import RotationalInertia
from mallard.multibody.tree.spatial_inertia import SpatialInertia
from mallard.multibody.tree.unit_inertia import UnitInertia

TOL = 1e-12


@pytest.fixture(scope="module")
def drake():
    require_pydrake()
    import pydrake.math as dm
    import pydrake.multibody.math as dmm
    import pydrake.multibody.tree as dt
    return dm, dmm, dt


def unit(rng):
    u = rng.normal(size=3)
    return u / np.linalg.norm(u)


def factory_cases(rng):
    m, rho, r, L, a, b, c = rng.uniform(0.05, 3.0, size=7)
    u = unit(rng)
    return [("SolidBoxWithMass", (m, a, b, c)), ("SolidBoxWithDensity", (rho, a, b, c)),
            ("SolidCubeWithDensity", (rho, L)), ("SolidSphereWithMass", (m, r)),
            ("SolidSphereWithDensity", (rho, r)), ("HollowSphereWithMass", (m, r)),
            ("HollowSphereWithDensity", (rho, r)), ("SolidEllipsoidWithMass", (m, a, b, c)),
            ("SolidEllipsoidWithDensity", (rho, a, b, c)), ("SolidCylinderWithMass", (m, r, L, u)),
            ("SolidCylinderWithDensity", (rho, r, L, u)), ("SolidCylinderWithMassAboutEnd", (m, r, L, u)),
            ("SolidCylinderWithDensityAboutEnd", (rho, r, L, u)), ("SolidCapsuleWithMass", (m, r, L, u)),
            ("SolidCapsuleWithDensity", (rho, r, L, u)), ("ThinRodWithMass", (m, L, u)),
            ("ThinRodWithMassAboutEnd", (m, L, u))]


def test_factories_match_pydrake(drake):
    _, _, dt = drake
    rng = np.random.default_rng(0)
    for _ in range(5):
        for name, args in factory_cases(rng):
            ours, theirs = getattr(SpatialInertia, name)(*args), getattr(dt.SpatialInertia, name)(*args)
            np.testing.assert_allclose(ours.CopyToFullMatrix6(), theirs.CopyToFullMatrix6(), atol=1e-12,
                                       rtol=1e-13, err_msg=name)
            assert ours.get_mass() == pytest.approx(theirs.get_mass(), rel=1e-14)
            np.testing.assert_allclose(ours.get_com(), theirs.get_com(), atol=TOL)
            assert ours.IsPhysicallyValid()


def test_shift_reexpress_and_accessors_match_pydrake(drake):
    dm, _, dt = drake
    rng = np.random.default_rng(1)
    for name, args in factory_cases(rng):
        ours, theirs = getattr(SpatialInertia, name)(*args), getattr(dt.SpatialInertia, name)(*args)
        p, rpy = rng.normal(size=3), rng.uniform(-3, 3, size=3)
        R, Rd = RotationMatrix(RollPitchYaw(rpy)), dm.RotationMatrix(dm.RollPitchYaw(rpy))
        ours, theirs = ours.Shift(p).ReExpress(R), theirs.Shift(p).ReExpress(Rd)
        np.testing.assert_allclose(ours.CopyToFullMatrix6(), theirs.CopyToFullMatrix6(), atol=1e-11, rtol=1e-12)
        np.testing.assert_allclose(ours.get_unit_inertia().CopyToFullMatrix3(),
                                   theirs.get_unit_inertia().CopyToFullMatrix3(), atol=1e-11, rtol=1e-12)
        np.testing.assert_allclose(ours.CalcRotationalInertia().CopyToFullMatrix3(),
                                   theirs.CalcRotationalInertia().CopyToFullMatrix3(), atol=1e-11, rtol=1e-12)
        np.testing.assert_allclose(ours.CalcComMoment(), theirs.CalcComMoment(), atol=1e-12)
        moments, _ = ours.CalcRotationalInertia().CalcPrincipalMomentsAndAxesOfInertia()
        np.testing.assert_allclose(moments, theirs.CalcRotationalInertia().CalcPrincipalMomentsOfInertia(),
                                   atol=1e-11, rtol=1e-12)


def test_equivalent_solid_ellipsoid_matches_pydrake(drake):
    dm, _, dt = drake
    for args, p, rpy in (((2.0, 0.1, 0.3, 0.2), [-0.1, 0.2, 0.3], [0.0, 0.0, 0.0]),
                         ((1.0, 0.4, 0.2, 0.1), [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
                         ((1.5, 0.3, 0.1, 0.2), [0.2, 0.1, -0.3], [0.4, -1.1, 2.5])):
        M = SpatialInertia.SolidEllipsoidWithMass(*args).Shift(p).ReExpress(RotationMatrix(RollPitchYaw(rpy)))
        abc, X = M.CalcPrincipalSemiDiametersAndPoseForSolidEllipsoid()
        abc_d, X_d = dt.SpatialInertia.SolidEllipsoidWithMass(*args).Shift(p).ReExpress(
            dm.RotationMatrix(dm.RollPitchYaw(rpy))).CalcPrincipalSemiDiametersAndPoseForSolidEllipsoid()
        np.testing.assert_allclose(abc, abc_d, atol=TOL)
        np.testing.assert_allclose(X.GetAsMatrix4(), X_d.GetAsMatrix4(), atol=TOL)
        np.testing.assert_allclose(sorted(abc, reverse=True), sorted(args[1:], reverse=True), atol=TOL)


def test_shift_sign_convention_reaches_the_center_of_mass():
    # M_BBo_E.Shift(p_BoBcm_E) is M_BBcm_E: the center of mass lands at the new point.
    M_BBo = SpatialInertia.SolidCylinderWithMassAboutEnd(2.0, 0.1, 0.6, [0.0, 0.0, 1.0])
    M_BBcm = M_BBo.Shift(M_BBo.get_com())
    np.testing.assert_allclose(M_BBcm.get_com(), 0.0, atol=TOL)
    np.testing.assert_allclose(M_BBcm.CopyToFullMatrix6(),
                               SpatialInertia.SolidCylinderWithMass(2.0, 0.1, 0.6, [0.0, 0.0, 1.0]).CopyToFullMatrix6(),
                               atol=TOL)


def test_products_with_spatial_vectors_and_sum_match_pydrake(drake):
    _, dmm, dt = drake
    rng = np.random.default_rng(2)
    p = rng.normal(size=3)
    ours = SpatialInertia.SolidBoxWithMass(1.5, 0.1, 0.2, 0.3).Shift(p)
    theirs = dt.SpatialInertia.SolidBoxWithMass(1.5, 0.1, 0.2, 0.3).Shift(p)
    V, A = rng.normal(size=6), rng.normal(size=6)
    np.testing.assert_allclose((ours * SpatialVelocity(V)).get_coeffs(),
                               (theirs * dmm.SpatialVelocity(V)).get_coeffs(), atol=TOL)
    np.testing.assert_allclose((ours * SpatialAcceleration(A)).get_coeffs(),
                               (theirs * dmm.SpatialAcceleration(A)).get_coeffs(), atol=TOL)
    np.testing.assert_allclose((ours * SpatialVelocity(V)).get_coeffs(), ours.CopyToFullMatrix6() @ V, atol=TOL)
    # Kinetic energy: ½ V·(M V) equals ½ Vᵀ M V.
    assert 0.5 * SpatialVelocity(V).dot(ours * SpatialVelocity(V)) == pytest.approx(
        0.5 * V @ ours.CopyToFullMatrix6() @ V, rel=1e-13)
    other = SpatialInertia.SolidSphereWithMass(2.0, 0.5).Shift([1.0, 0.0, 0.0])
    other_d = dt.SpatialInertia.SolidSphereWithMass(2.0, 0.5).Shift([1.0, 0.0, 0.0])
    ours += other
    theirs += other_d
    np.testing.assert_allclose(ours.CopyToFullMatrix6(), theirs.CopyToFullMatrix6(), atol=TOL)
    zero = SpatialInertia.Zero()
    zero += SpatialInertia.Zero()
    assert zero.get_mass() == 0.0 and zero.IsZero()


def test_make_from_central_inertia_and_point_mass(drake):
    _, _, dt = drake
    I = RotationalInertia(0.1, 0.2, 0.25, 0.01, -0.02, 0.03)
    Id = dt.RotationalInertia(0.1, 0.2, 0.25, 0.01, -0.02, 0.03)
    p = np.array([0.3, -0.1, 0.2])
    np.testing.assert_allclose(SpatialInertia.MakeFromCentralInertia(2.0, p, I).CopyToFullMatrix6(),
                               dt.SpatialInertia.MakeFromCentralInertia(2.0, p, Id).CopyToFullMatrix6(), atol=TOL)
    np.testing.assert_allclose(SpatialInertia.PointMass(2.0, p).CopyToFullMatrix6(),
                               dt.SpatialInertia(2.0, p, dt.UnitInertia.PointMass(p)).CopyToFullMatrix6(), atol=TOL)
    M = SpatialInertia(2.0, p, UnitInertia.SolidSphere(0.1).ShiftFromCenterOfMass(-p))
    Md = dt.SpatialInertia(2.0, p, dt.UnitInertia.SolidSphere(0.1).ShiftFromCenterOfMass(-p))
    np.testing.assert_allclose(M.CopyToFullMatrix6(), Md.CopyToFullMatrix6(), atol=TOL)
    assert SpatialInertia.NaN().IsNaN() and not SpatialInertia.NaN().IsPhysicallyValid()
    assert SpatialInertia.Zero().IsPhysicallyValid()


def test_non_physical_inertias_raise_with_the_failed_condition():
    with pytest.raises(ValueError, match="mass = -1 is negative"):
        SpatialInertia(-1.0, [0, 0, 0], UnitInertia(1, 1, 1))
    G_bad = UnitInertia(1.0, 1.0, 3.0)  # unit inertias are unchecked, as in pydrake
    with pytest.raises(RuntimeError, match="triangle inequality"):  # pydrake raises RuntimeError; so do we
        SpatialInertia(1.0, [0, 0, 0], G_bad)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        SpatialInertia(1.0, [1.0, 0.0, 0.0], UnitInertia(0.1, 0.1, 0.1))  # com too far for this inertia
    assert not SpatialInertia(1.0, [1.0, 0.0, 0.0], UnitInertia(0.1, 0.1, 0.1), skip_validity_check=True
                              ).IsPhysicallyValid()
    with pytest.raises(ValueError, match="SolidBoxWithMass\\(\\): mass is not positive and finite: -1"):
        SpatialInertia.SolidBoxWithMass(-1.0, 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="x-length is not positive and finite: 0"):
        SpatialInertia.SolidBoxWithMass(1.0, 0.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="radius is not positive"):
        SpatialInertia.SolidSphereWithMass(1.0, -1.0)
    with pytest.raises(ValueError, match="is not a unit vector"):
        SpatialInertia.SolidCylinderWithMass(1.0, 1.0, 1.0, [0.0, 0.0, 1.0000001])
    with pytest.raises(ValueError, match="3-vector"):
        SpatialInertia(1.0, [0.0, 0.0], UnitInertia(1, 1, 1))


def _urdf_inertias(path):
    """{link: (mass, p_BoBcm_B, I_BBcm_B)} from a URDF's <inertial> elements."""
    out = {}
    for link in etree.parse(str(path)).getroot().iter("link"):
        inertial = link.find("inertial")
        if inertial is None:
            continue
        mass = float(inertial.find("mass").get("value"))
        origin = inertial.find("origin")
        xyz = np.array([float(v) for v in (origin.get("xyz", "0 0 0") if origin is not None else "0 0 0").split()])
        rpy = np.array([float(v) for v in (origin.get("rpy", "0 0 0") if origin is not None else "0 0 0").split()])
        e = inertial.find("inertia")
        I_BBcm_Bi = RotationalInertia(*(float(e.get(k, "0")) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")))
        out[link.get("name")] = (mass, xyz, I_BBcm_Bi.ReExpress(RotationMatrix(RollPitchYaw(rpy))))
    return out


@pytest.mark.parametrize("relpath", ["drake_models/iiwa_description/urdf/iiwa14_no_collision.urdf",
                                     "drake_examples/Acrobot.urdf"])
def test_real_model_body_inertias_match_drake_parser(drake, models_dir, relpath):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    parser.package_map().Remove("drake_models")
    parser.package_map().Add("drake_models", str(models_dir / "drake_models"))
    parser.AddModels(str(models_dir / relpath))
    plant.Finalize()
    checked = 0
    for name, (mass, p, I_BBcm_B) in _urdf_inertias(models_dir / relpath).items():
        if mass <= 0.0:
            continue
        M_BBo_B = SpatialInertia.MakeFromCentralInertia(mass, p, I_BBcm_B)
        expected = plant.GetBodyByName(name).default_spatial_inertia().CopyToFullMatrix6()
        np.testing.assert_allclose(M_BBo_B.CopyToFullMatrix6(), expected, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(M_BBo_B.Shift(M_BBo_B.get_com()).CalcRotationalInertia().CopyToFullMatrix3(),
                                   I_BBcm_B.CopyToFullMatrix3(), atol=1e-12)
        checked += 1
    assert checked >= 2
