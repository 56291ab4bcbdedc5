"""Every URDF/SDFormat file of the shared Drake models, read into records, must match pydrake's own
parse: instance names, bodies, mass properties, joints, limits, actuators, geometry and poses."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import MODELS
from oracles import require_pydrake

from mallard.parsers import (CalcCollisionFilterGroups, CalcLinkPosesInWorld, PackageMap,
                             ParseError, ReadModels)

MODEL_FILES = sorted(
    str(p.relative_to(MODELS)) for folder in ("drake_examples", "drake_models")
    for p in (MODELS / folder).rglob("*") if p.suffix in (".urdf", ".sdf", ".xacro"))
PARSEABLE = [f for f in MODEL_FILES if not f.endswith(".xacro")]
DATA = Path(__file__).resolve().parent / "data"
TEST_PACKAGE = DATA / "test_pkg"
# Synthetic files exercising nesting, includes, frames, relative_to and expressed_in.
SYNTHETIC = ["nested_world.sdf", "joints.sdf", "test_pkg/models/arm/arm.sdf", "test_pkg/urdf/finger.urdf"]

_TYPE_NAMES = {"fixed": "weld", "continuous": "revolute", "ball": "ball_rpy"}


@pytest.fixture(scope="module")
def package_map(models_dir: Path) -> PackageMap:
    pm = PackageMap.MakeEmpty()
    pm.AddPackageXml(str(models_dir / "drake_models" / "package.xml"))
    pm.PopulateFromFolder(str(TEST_PACKAGE))
    return pm


def _drake_parse(path: str):
    """(plant, scene_graph, model instances) from pydrake's parser, not yet finalized."""
    require_pydrake()
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    parser = Parser(plant)
    parser.package_map().Remove("drake_models")
    parser.package_map().AddPackageXml(str(MODELS / "drake_models" / "package.xml"))
    parser.package_map().PopulateFromFolder(str(TEST_PACKAGE))
    instances = parser.AddModels(path)
    return parser, plant, scene_graph, instances


def _shape_params(shape) -> tuple:
    """(type, sizes...) of a pydrake shape, comparable with `_record_params`."""
    name = type(shape).__name__
    if name == "Box":
        return ("box", *shape.size())
    if name == "Sphere":
        return ("sphere", shape.radius())
    if name == "Cylinder":
        return ("cylinder", shape.radius(), shape.length())
    if name == "Capsule":
        return ("capsule", shape.radius(), shape.length())
    if name == "Ellipsoid":
        return ("ellipsoid", shape.a(), shape.b(), shape.c())
    if name in ("Mesh", "Convex"):
        return ("mesh" if name == "Mesh" else "convex", str(Path(shape.source().path()).resolve()),
                *shape.scale3())
    if name == "HalfSpace":
        return ("plane",)
    raise AssertionError(f"unexpected pydrake shape {name}")


def _record_params(s) -> tuple:
    if s.type == "box":
        return ("box", *s.size)
    if s.type == "sphere":
        return ("sphere", s.radius)
    if s.type in ("cylinder", "capsule"):
        return (s.type, s.radius, s.length)
    if s.type == "ellipsoid":
        return ("ellipsoid", *s.radii)
    if s.type == "mesh":
        return ("convex" if s.convex else "mesh", str(Path(s.filename).resolve()), *s.scale)
    return (s.type,)


def _same(a: tuple, b: tuple) -> bool:
    if len(a) != len(b) or a[0] != b[0]:
        return False
    return all(x == y if isinstance(x, str) else abs(x - y) <= 1e-12 * max(1, abs(x))
               for x, y in zip(a[1:], b[1:]))


@pytest.mark.parametrize("relpath", PARSEABLE)
def test_records_match_drake(relpath: str, package_map: PackageMap) -> None:
    _compare_with_drake(str(MODELS / relpath), package_map, ordered=True)


@pytest.mark.parametrize("relpath", SYNTHETIC)
def test_synthetic_records_match_drake(relpath: str, package_map: PackageMap) -> None:
    _compare_with_drake(str(DATA / relpath), package_map, ordered=False)


def _compare_with_drake(path: str, package_map: PackageMap, ordered: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = ReadModels(path, package_map=package_map)
    parser, plant, scene_graph, returned = _drake_parse(path)
    from pydrake.multibody.tree import (JointActuatorIndex, JointIndex, ModelInstanceIndex,
                                        world_model_instance)

    # Model instances (pydrake leaves URDF-included instances out of its returned list) and
    # bodies (names, order, mass properties about the body origin).
    if ordered:
        assert [m.name for m in models] == [plant.GetModelInstanceName(i) for i in returned]
    all_instances = [ModelInstanceIndex(i) for i in range(2, plant.num_model_instances())]
    assert sorted(m.name for m in models) == sorted(plant.GetModelInstanceName(i)
                                                    for i in all_instances)
    instances = [plant.GetModelInstanceByName(m.name) for m in models]
    by_instance = {}
    for m, instance in zip(models, instances):
        bodies = [plant.get_body(b) for b in plant.GetBodyIndices(instance)]
        assert [lk.name for lk in m.links] == [b.name() for b in bodies]
        for lk, body in zip(m.links, bodies):
            M = body.default_spatial_inertia()
            assert lk.inertial.mass == pytest.approx(body.default_mass(), abs=1e-12)
            I_BBo_B = M.CalcRotationalInertia().CopyToFullMatrix3()
            np.testing.assert_allclose(lk.inertial.CalcRotationalInertiaAboutBodyOrigin(),
                                       I_BBo_B, rtol=0, atol=1e-12)
            if lk.inertial.mass > 0:
                np.testing.assert_allclose(lk.inertial.p_BoBcm_B, M.get_com(), atol=1e-12)
        by_instance[m.name] = (m, instance)

    # Joints declared by the files (before Finalize adds floating joints).
    drake_joints = {}
    for i in range(plant.num_joints()):
        j = plant.get_joint(JointIndex(i))
        drake_joints[(plant.GetModelInstanceName(j.model_instance()), j.name())] = j
    # pydrake puts a joint in its child body's model instance.
    ours = {(j.child_model, j.name): j for m in models for j in m.joints}
    assert sorted(ours) == sorted(drake_joints)
    assert len(ours) == sum(len(m.joints) for m in models), "duplicate joint names"
    for name, rec in ours.items():
        j = drake_joints[name]
        assert _TYPE_NAMES.get(rec.type, rec.type) == j.type_name()
        assert rec.parent == j.parent_body().name()
        assert rec.child == j.child_body().name()
        assert rec.child_model == plant.GetModelInstanceName(j.child_body().model_instance())
        if rec.parent != "world":
            assert rec.parent_model == plant.GetModelInstanceName(
                j.parent_body().model_instance())
        if j.num_positions() in (1, 2, 3) and rec.type not in ("fixed",):
            np.testing.assert_array_equal(rec.lower, j.position_lower_limits())
            np.testing.assert_array_equal(rec.upper, j.position_upper_limits())
            np.testing.assert_array_equal(rec.velocity, j.velocity_upper_limits())
            np.testing.assert_array_equal(rec.acceleration, j.acceleration_upper_limits())
            np.testing.assert_array_equal(rec.damping, j.default_damping_vector())
        if j.type_name() in ("revolute", "prismatic"):
            axis = j.revolute_axis() if j.type_name() == "revolute" else j.translation_axis()
            # pydrake expresses the axis in its joint frame F (on the parent), ours in J.
            R_PF = j.frame_on_parent().GetFixedPoseInBodyFrame().rotation().matrix()
            np.testing.assert_allclose(rec.X_PJ[:3, :3] @ rec.axis, R_PF @ axis, atol=1e-9)
        if j.type_name() == "universal":
            # Drake's frame F on the parent has x = axis, y = axis2 (ours are given in J).
            R_JF = np.column_stack([rec.axis, rec.axis2, np.cross(rec.axis, rec.axis2)])
            R_PF = j.frame_on_parent().GetFixedPoseInBodyFrame().rotation().matrix()
            np.testing.assert_allclose(rec.X_PJ[:3, :3] @ R_JF, R_PF, atol=1e-12)
        if j.type_name() == "screw":
            assert rec.screw_thread_pitch == j.screw_pitch()

    # Actuators.
    drake_acts = [plant.get_joint_actuator(JointActuatorIndex(i))
                  for i in range(plant.num_actuators())]
    our_acts = [a for m in models for a in m.actuators]
    if ordered:
        assert [a.name for a in our_acts] == [a.name() for a in drake_acts]
    else:
        our_acts = sorted(our_acts, key=lambda a: a.name)
        drake_acts = sorted(drake_acts, key=lambda a: a.name())
        assert [a.name for a in our_acts] == [a.name() for a in drake_acts]
    for ours_a, a in zip(our_acts, drake_acts):
        assert ours_a.joint == a.joint().name()
        assert ours_a.effort_limit == a.effort_limit()
        assert ours_a.gear_ratio == a.default_gear_ratio()
        assert ours_a.rotor_inertia == a.default_rotor_inertia()

    # Geometry per body: counts, shapes and sizes, poses in the body frame.
    inspector = scene_graph.model_inspector()
    for m, instance in zip(models, instances):
        for lk in m.links:
            body = plant.GetBodyByName(lk.name, instance)
            for role, ids in (("collisions", plant.GetCollisionGeometriesForBody(body)),
                              ("visuals", plant.GetVisualGeometriesForBody(body))):
                recs = getattr(lk, role)
                assert len(recs) == len(ids), f"{lk.name} {role}"
                theirs = [(_shape_params(inspector.GetShape(g)),
                           inspector.GetPoseInFrame(g).GetAsMatrix4()) for g in ids]
                for rec in recs:
                    params = _record_params(rec.shape)
                    assert any(_same(params, p) and np.allclose(rec.X_BG, X, atol=1e-12)
                               for p, X in theirs), f"{lk.name} {rec.name} {params}"

    # Frames (world-scope SDFormat frames ride with the first model): body and pose.
    for m, instance in zip(models, instances):
        for f in m.frames:
            # pydrake puts a frame in its body's model instance.
            frame_instance = (plant.GetModelInstanceByName(f.body_model) if f.body_model
                              else world_model_instance())
            frame = plant.GetFrameByName(f.name, frame_instance)
            assert frame.body().name() == f.body
            np.testing.assert_allclose(frame.GetFixedPoseInBodyFrame().GetAsMatrix4(), f.X_BF,
                                       atol=1e-12)

    # Collision filter groups (scoped names, member groups expanded) and exclusion pairs.
    groups, exclusions = CalcCollisionFilterGroups(models)
    drake_groups = parser.GetCollisionFilterGroups()
    assert groups == {k: set(v) for k, v in drake_groups.groups().items()}
    assert {frozenset(p) for p in exclusions} == {frozenset(p) for p in
                                                 drake_groups.exclusion_pairs()}

    # Body poses in world at the default configuration (q = 0, free bodies at their pose).
    plant.Finalize()
    context = plant.CreateDefaultContext()
    X_W = CalcLinkPosesInWorld(models)
    for (model_name, link), X in X_W.items():
        body = plant.GetBodyByName(link, plant.GetModelInstanceByName(model_name))
        np.testing.assert_allclose(X, plant.EvalBodyPoseInWorld(context, body).GetAsMatrix4(),
                                   atol=1e-12, err_msg=f"{model_name}::{link}")


@pytest.mark.parametrize("relpath", MODEL_FILES)
def test_parse_every_file(relpath: str, package_map: PackageMap) -> None:
    """Every model file parses into non-empty records; xacro files get a clear error."""
    path = str(MODELS / relpath)
    if relpath.endswith(".xacro"):
        with pytest.raises(ParseError, match="xacro is not supported.*run xacro first") as info:
            ReadModels(path, package_map=package_map)
        assert info.value.filename == path
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = ReadModels(path, package_map=package_map)
    assert models and all(m.links for m in models)
    for m in models:
        for lk in m.links:
            assert lk.inertial.mass >= 0
            for g in lk.visuals + lk.collisions:
                assert g.X_BG.shape == (4, 4)
                np.testing.assert_allclose(g.X_BG[:3, :3] @ g.X_BG[:3, :3].T, np.eye(3),
                                           atol=1e-12)
