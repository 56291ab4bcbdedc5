"""The proximity-property helpers write exactly what Drake's write (checked against pydrake), and the
SceneGraph-wide defaults (SceneGraphConfig, DefaultProximityProperties)."""
from __future__ import annotations

import copy

import pytest

import mallard.geometry as mg
from oracles import require_pydrake


def _pyd():
    require_pydrake()
    import pydrake.geometry
    import pydrake.multibody.plant

    return pydrake.geometry, pydrake.multibody.plant


def _table(props, pg_module):
    """{(group, name): value} with the compliance enum as its name (pydrake cannot read Drake's enum back, so
    its presence is what is compared)."""
    out = {}
    for g in props.GetGroupNames():
        for name in props.GetPropertiesInGroup(g):
            value = "<enum>" if name == "compliance_type" else props.GetProperty(g, name)
            out[(g, name)] = value
    return out


def test_property_helpers_write_drakes_properties():
    pg, pp = _pyd()
    calls = [
        lambda m, p: m.AddRigidHydroelasticProperties(resolution_hint=0.175, properties=p),
        lambda m, p: m.AddRigidHydroelasticProperties(properties=p),
        lambda m, p: m.AddCompliantHydroelasticProperties(resolution_hint=0.275, hydroelastic_modulus=1e8,
                                                          properties=p),
        lambda m, p: m.AddCompliantHydroelasticPropertiesForHalfSpace(slab_thickness=0.3, hydroelastic_modulus=5e7,
                                                                      properties=p),
        lambda m, p: m.AddContactMaterial(dissipation=2.7, point_stiffness=3.9, friction=None, properties=p),
        lambda m, p: m.AddContactMaterial(p, dissipation=1.5),
    ]
    for call in calls:
        ours, ref = mg.ProximityProperties(), pg.ProximityProperties()
        call(mg, ours)
        call(pg, ref)
        assert _table(ours, mg) == _table(ref, pg)
        assert str(ours).splitlines()[0] in str(ref).splitlines()
    ours = mg.ProximityProperties()
    mg.AddCompliantHydroelasticProperties(0.1, 1e7, ours)
    assert ours.GetProperty("hydroelastic", "compliance_type") == "compliant"
    assert ours.GetProperty("hydroelastic", "compliance_type") is mg.properties.HydroelasticType.kCompliant
    with pytest.raises(RuntimeError, match="hydroelastic modulus must be positive"):
        mg.AddCompliantHydroelasticProperties(0.1, 0.0, mg.ProximityProperties())
    with pytest.raises(RuntimeError, match="already exists"):
        mg.AddRigidHydroelasticProperties(properties=ours)


def test_properties_str_and_values_as_pydrake():
    pg, _ = _pyd()
    assert str(mg.ProximityProperties()) == str(pg.ProximityProperties()) == "[__default__]"
    ours, ref = mg.IllustrationProperties(), pg.IllustrationProperties()
    for p in (ours, ref):
        p.AddProperty("phong", "shininess", 2.5)
        p.AddProperty("phong", "name", "shiny")
    assert set(str(ours).splitlines()) == set(str(ref).splitlines())
    group = ours.GetPropertiesInGroup(group_name="phong")
    assert {k: v.get_value() for k, v in group.items()} == {"shininess": 2.5, "name": "shiny"}
    assert mg.PerceptionProperties(other=ours).GetProperty("phong", "name") == "shiny"


def test_scene_graph_config_matches_pydrake():
    pg, _ = _pyd()
    assert repr(mg.SceneGraphConfig()) == repr(pg.SceneGraphConfig())
    kw = dict(compliance_type="compliant", hydroelastic_modulus=2, resolution_hint=3, slab_thickness=4,
              dynamic_friction=5, static_friction=6, hunt_crossley_dissipation=7, relaxation_time=None,
              point_stiffness=9)
    assert repr(mg.DefaultProximityProperties(**kw)) == repr(pg.DefaultProximityProperties(**kw))
    sg = mg.SceneGraph(config=mg.SceneGraphConfig())
    assert sg.get_config().default_proximity_properties.compliance_type == "undefined"
    config = copy.deepcopy(sg.get_config())
    config.default_proximity_properties.compliance_type = "rigid"
    sg.set_config(config=config)
    assert sg.get_config().default_proximity_properties.compliance_type == "rigid"
    bad = mg.SceneGraphConfig(default_proximity_properties=mg.DefaultProximityProperties(compliance_type="soft"))
    with pytest.raises(RuntimeError, match="Unknown hydroelastic_type: 'soft'"):
        sg.set_config(bad)
    with pytest.raises(RuntimeError, match="'point_stiffness' \\(-1\\) must be a positive value"):
        mg.DefaultProximityProperties(point_stiffness=-1).ValidateOrThrow()


def _default_compliant_surface(M):
    """A box with only friction on a box table, in a SceneGraph whose config makes geometries compliant by default:
    the total area of their contact surfaces."""
    builder = M.DiagramBuilder()
    config = M.SceneGraphConfig()
    config.default_proximity_properties.compliance_type = "compliant"
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    sg.set_config(config)
    body = plant.AddRigidBody("b", M.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    plant.RegisterCollisionGeometry(body, M.RigidTransform(), M.Box(0.1, 0.1, 0.1), "box", M.CoulombFriction(0.3, 0.3))
    plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform([0, 0, -0.5]), M.Box(2, 2, 1), "table",
                                    M.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    root = builder.Build().CreateDefaultContext()
    plant.SetFreeBodyPose(plant.GetMyContextFromRoot(root), body, M.RigidTransform([0, 0, 0.045]))
    query = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(root))
    return [s.total_area() for s in query.ComputeContactSurfaces(M.HydroelasticContactRepresentation.kPolygon)]


def test_scene_graph_config_defaults_make_geometries_hydroelastic_as_pydrake():
    """SceneGraphConfig's default proximity properties (compliant, E = 1e7 Pa, resolution hint 0.02 m) give geometries
    registered without hydroelastic properties pydrake's compliant representations: the same contact surface."""
    require_pydrake()
    import pydrake.all as pd

    import mallard.all as ma
    area, area_d = _default_compliant_surface(ma), _default_compliant_surface(pd)
    assert len(area) == len(area_d) == 1 and area[0] == pytest.approx(area_d[0], rel=1e-12)
