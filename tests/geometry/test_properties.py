"""Geometry properties, roles, CoulombFriction, contact materials and MuJoCo contact parameters."""
from __future__ import annotations

import pytest

from mallard.geometry import (AddContactMaterial, AddMujocoContactParameters,
                              CalcContactFrictionFromSurfaceProperties, CoulombFriction, GeometryLookupError,
                              GetMujocoContactParameters, IllustrationProperties, MakePhongIllustrationProperties,
                              ProximityProperties, Rgba, Role)


def test_property_table_api():
    p = ProximityProperties()
    assert p.num_groups() == 1 and p.HasGroup(p.default_group_name())
    p.AddProperty("material", "k", 1.0)
    assert p.HasProperty("material", "k") and p.GetProperty("material", "k") == 1.0
    assert p.GetPropertyOrDefault("material", "missing", 7) == 7
    with pytest.raises(RuntimeError, match="already exists"):
        p.AddProperty("material", "k", 2.0)
    p.UpdateProperty("material", "k", 3.0)
    assert p.GetProperty("material", "k") == 3.0
    with pytest.raises(ValueError, match="cannot replace"):
        p.UpdateProperty("material", "k", "text")
    with pytest.raises(KeyError, match="no property 'x'.*'k'"):
        p.GetProperty("material", "x")
    with pytest.raises(RuntimeError, match="no group 'nogroup'"):
        p.GetProperty("nogroup", "x")
    assert {k: v.get_value() for k, v in p.GetPropertiesInGroup("material").items()} == {"k": 3.0}
    assert p.RemoveProperty("material", "k") and not p.RemoveProperty("material", "k")
    q = ProximityProperties(p)
    assert q == p and q is not p


def test_coulomb_friction_and_combination():
    f = CoulombFriction(0.8, 0.5)
    assert (f.static_friction(), f.dynamic_friction()) == (0.8, 0.5)
    with pytest.raises(ValueError, match="must not exceed"):
        CoulombFriction(0.3, 0.5)
    with pytest.raises(ValueError, match=">= 0"):
        CoulombFriction(-1, -1)
    c = CalcContactFrictionFromSurfaceProperties(CoulombFriction(0.6, 0.4), CoulombFriction(0.3, 0.2))
    assert c.static_friction() == pytest.approx(2 * 0.6 * 0.3 / 0.9)
    assert c.dynamic_friction() == pytest.approx(2 * 0.4 * 0.2 / 0.6)


def test_add_contact_material_matches_pydrake_groups():
    props = AddContactMaterial(dissipation=2.0, point_stiffness=1e5, friction=CoulombFriction(1.0, 0.5))
    assert props.GetProperty("material", "hunt_crossley_dissipation") == 2.0
    assert props.GetProperty("material", "point_contact_stiffness") == 1e5
    assert props.GetProperty("material", "coulomb_friction") == CoulombFriction(1.0, 0.5)
    with pytest.raises(ValueError, match="point_stiffness"):
        AddContactMaterial(point_stiffness=0.0)


def test_add_contact_material_like_pydrake():
    pydrake_geometry = pytest.importorskip("pydrake.geometry")
    from pydrake.multibody.plant import CoulombFriction as DrakeFriction

    ref = pydrake_geometry.ProximityProperties()
    pydrake_geometry.AddContactMaterial(dissipation=2.0, point_stiffness=1e5, friction=DrakeFriction(1.0, 0.5),
                                        properties=ref)
    ours = AddContactMaterial(dissipation=2.0, point_stiffness=1e5, friction=CoulombFriction(1.0, 0.5))
    assert set(ref.GetPropertiesInGroup("material")) == set(ours.GetPropertiesInGroup("material"))


def test_mujoco_contact_parameters():
    p = AddMujocoContactParameters(condim=4, solref=[0.01, 0.5], friction=(1, 0.01, 0.001), margin=0.002,
                                   contype=2, conaffinity=5)
    mj = GetMujocoContactParameters(p)
    assert (mj.condim, mj.contype, mj.conaffinity, mj.margin, mj.gap, mj.priority) == (4, 2, 5, 0.002, 0.0, 0)
    assert mj.solref == (0.01, 0.5) and mj.solimp == (0.9, 0.95, 0.001, 0.5, 2.0)
    assert p.GetProperty("mujoco", "friction") == (1.0, 0.01, 0.001)
    assert GetMujocoContactParameters(None).condim == 3
    with pytest.raises(ValueError, match="condim"):
        AddMujocoContactParameters(condim=2)
    with pytest.raises(ValueError, match="solimp"):
        AddMujocoContactParameters(solimp=[1, 2])
    with pytest.raises(ValueError, match="unknown mujoco contact parameter"):
        AddMujocoContactParameters(stiffness=3)


def test_illustration_properties_and_roles():
    ip = MakePhongIllustrationProperties([0.1, 0.2, 0.3, 0.4])
    assert isinstance(ip, IllustrationProperties)
    assert ip.GetProperty("phong", "diffuse") == Rgba(0.1, 0.2, 0.3, 0.4)
    assert Role.kProximity != Role.kIllustration and Role.kUnassigned == 0
    assert issubclass(GeometryLookupError, KeyError) and issubclass(GeometryLookupError, RuntimeError)
