"""Geometry registered by Parser(builder) against pydrake's: per body, the same collision and visual
geometries (shape, parameters, pose in the body, friction, contact material, diffuse color), and
after Finalize the same collision candidate count (collision filter groups applied)."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import MODELS
from oracles import require_pydrake

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder

DATA = Path(__file__).resolve().parent / "data"
FILES = [str(MODELS / "drake_examples" / "Acrobot.urdf"), str(MODELS / "drake_examples" / "Pendulum.urdf"),
         *sorted(str(p) for p in (MODELS / "drake_models").rglob("*") if p.suffix in (".urdf", ".sdf")),
         str(DATA / "nested_world.sdf"), str(DATA / "test_pkg" / "models" / "arm" / "arm.sdf")]


def _shape_params(shape) -> tuple:
    """(type, sizes) of a mallard or pydrake shape."""
    name = type(shape).__name__
    getters = {"Box": ("width", "depth", "height"), "Sphere": ("radius",), "Cylinder": ("radius", "length"),
               "Capsule": ("radius", "length"), "Ellipsoid": ("a", "b", "c"), "HalfSpace": ()}
    if name in ("Mesh", "Convex"):
        path = shape.source().path() if hasattr(shape.source(), "path") else shape.source()
        return name, str(Path(path).resolve()), tuple(np.round(shape.scale3(), 12))
    return (name, *(round(float(getattr(shape, g)()), 12) for g in getters[name]))


def _rgba_tuple(rgba) -> tuple:
    value = rgba.rgba() if callable(rgba.rgba) else rgba.rgba  # (mallard's Rgba.rgba is a property)
    return tuple(np.round(np.asarray(value, float), 6))  # SDFormat colors are float32 in pydrake


def _geometries(plant, scene_graph, body_indices, index_type) -> list:
    """Per body: sorted descriptions of its collision and visual geometries."""
    inspector = scene_graph.model_inspector()
    out = []
    for b in body_indices:
        body = plant.get_body(index_type(b))
        collisions, visuals = [], []
        for gid in plant.GetCollisionGeometriesForBody(body):
            props = inspector.GetProximityProperties(gid)
            friction = props.GetProperty("material", "coulomb_friction")
            extra = tuple(props.GetProperty("material", k) if props.HasProperty("material", k) else None
                          for k in ("hunt_crossley_dissipation", "point_contact_stiffness"))
            collisions.append((_shape_params(inspector.GetShape(gid)),
                               tuple(np.round(inspector.GetPoseInFrame(gid).GetAsMatrix4().ravel(), 10) + 0.0),
                               friction.static_friction(), friction.dynamic_friction(), extra))
        for gid in plant.GetVisualGeometriesForBody(body):
            props = inspector.GetIllustrationProperties(gid)
            rgba = props.GetProperty("phong", "diffuse") if props.HasProperty("phong", "diffuse") else None
            visuals.append((_shape_params(inspector.GetShape(gid)),
                            tuple(np.round(inspector.GetPoseInFrame(gid).GetAsMatrix4().ravel(), 10) + 0.0),
                            None if rgba is None else _rgba_tuple(rgba)))
        out.append((body.name(), sorted(collisions), sorted(visuals)))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: Path(p).name)
def test_registered_geometry_matches_pydrake(path: str) -> None:
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph as DrakeAddPlant
    from pydrake.multibody.tree import BodyIndex
    from pydrake.systems.framework import DiagramBuilder as DrakeBuilder

    results = []
    for make_builder, add_plant, parser_type, index_type in ((DiagramBuilder, AddMultibodyPlantSceneGraph, Parser, int),
                                                             (DrakeBuilder, DrakeAddPlant, DrakeParser, BodyIndex)):
        builder = make_builder()
        plant, scene_graph = add_plant(builder, 0.001)
        parser = parser_type(builder)
        parser.package_map().Remove("drake_models")  # both default maps know it as a remote package
        parser.package_map().AddPackageXml(str(MODELS / "drake_models" / "package.xml"))
        parser.package_map().PopulateFromFolder(str(DATA / "test_pkg"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parser.AddModels(path)
            plant.Finalize()
        geometries = _geometries(plant, scene_graph, range(plant.num_bodies()), index_type)
        results.append((geometries, len(scene_graph.model_inspector().GetCollisionCandidates())))
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1]


def test_make_shape_covers_every_record_type() -> None:
    from mallard.geometry import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Mesh, Sphere
    from mallard.parsers import ShapeRecord
    from mallard.parsers.parser_geometry import MakeShape
    mesh = str(DATA / "meshes" / "box.obj")
    cases = [(ShapeRecord("box", size=np.array([1.0, 2.0, 3.0])), Box(1.0, 2.0, 3.0)),
             (ShapeRecord("sphere", radius=0.5), Sphere(0.5)),
             (ShapeRecord("cylinder", radius=0.1, length=0.4), Cylinder(0.1, 0.4)),
             (ShapeRecord("capsule", radius=0.1, length=0.4), Capsule(0.1, 0.4)),
             (ShapeRecord("ellipsoid", radii=np.array([0.1, 0.2, 0.3])), Ellipsoid(0.1, 0.2, 0.3)),
             (ShapeRecord("plane", normal=np.array([0.0, 0.0, 1.0])), HalfSpace()),
             (ShapeRecord("mesh", filename=mesh, scale=np.array([2.0, 2.0, 2.0])), Mesh(mesh, 2.0)),
             (ShapeRecord("mesh", filename=mesh, convex=True), Convex(mesh))]
    for record, expected in cases:
        assert MakeShape(record) == expected
    with pytest.raises(ValueError, match="shape type 'torus' is not supported"):
        MakeShape(ShapeRecord("torus"))


def test_proximity_properties_follow_drake_defaults() -> None:
    from mallard.parsers import GeometryRecord, ShapeRecord
    from mallard.parsers.parser_geometry import MakeProximityProperties

    def props(**proximity):
        return MakeProximityProperties(GeometryRecord("g", "collision", ShapeRecord("sphere", radius=1.0),
                                                      proximity=proximity))

    def friction(p):
        f = p.GetProperty("material", "coulomb_friction")
        return f.static_friction(), f.dynamic_friction()

    assert friction(props()) == (1.0, 1.0)  # Drake's default_friction()
    assert friction(props(mu=0.7, mu2=0.6)) == (0.7, 0.6)
    assert friction(props(mu_dynamic=0.4)) == (0.4, 0.4)
    assert friction(props(mu_static=0.9, mu_dynamic=0.5, mu=0.1)) == (0.9, 0.5)
    p = props(point_contact_stiffness=1e5, hunt_crossley_dissipation=2.0, hydroelastic_modulus=1e7,
              mesh_resolution_hint=0.01, compliant_hydroelastic=None)
    assert p.GetProperty("material", "point_contact_stiffness") == 1e5
    assert p.GetProperty("material", "hunt_crossley_dissipation") == 2.0
    assert p.GetProperty("hydroelastic", "hydroelastic_modulus") == 1e7
    assert p.GetProperty("hydroelastic", "resolution_hint") == 0.01
    assert p.GetProperty("hydroelastic", "compliance_type") == "compliant"
