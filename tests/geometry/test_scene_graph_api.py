"""SceneGraph's pydrake API: context-only edits, per-role GeometryVersion, transient collision filters,
keyword overloads of the inspector and QueryObject, bounding boxes, and the hydroelastic query contract."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.geometry as mg
from mallard.multibody.math import RigidTransform
from oracles import require_pydrake


def _pyd():
    require_pydrake()
    import pydrake.geometry
    import pydrake.math

    return pydrake.geometry, pydrake.math


def _scene(mod, math_mod):
    """A source with a frame holding a sphere and a box, and an anchored half space; all with proximity."""
    sg = mod.SceneGraph()
    s = sg.RegisterSource("src")
    f = sg.RegisterFrame(source_id=s, frame=mod.GeometryFrame("f"))
    ids = []
    for name, shape in (("sphere", mod.Sphere(0.5)), ("box", mod.Box(1, 1, 1))):
        g = sg.RegisterGeometry(source_id=s, frame_id=f, geometry=mod.GeometryInstance(
            X_PG=math_mod.RigidTransform([0, 0, len(ids)]), shape=shape, name=name))
        sg.AssignRole(s, g, mod.ProximityProperties())
        ids.append(g)
    ground = sg.RegisterAnchoredGeometry(s, mod.GeometryInstance(math_mod.RigidTransform(), mod.HalfSpace(), "ground"))
    sg.AssignRole(source_id=s, geometry_id=ground, properties=mod.ProximityProperties())
    return sg, s, f, ids, ground


def test_geometry_version_follows_drakes_per_role_rules():
    pg, pm = _pyd()
    import mallard.multibody.math as mm
    steps = [
        lambda m, sg, s, f, g: sg.AssignRole(s, g[0], m.IllustrationProperties()),
        lambda m, sg, s, f, g: sg.collision_filter_manager().Apply(
            m.CollisionFilterDeclaration().ExcludeWithin(m.GeometrySet(g))),
        lambda m, sg, s, f, g: sg.RemoveRole(source_id=s, geometry_id=g[1], role=m.Role.kProximity),
        lambda m, sg, s, f, g: sg.RegisterFrame(s, m.GeometryFrame("g2")),
        lambda m, sg, s, f, g: sg.RenameFrame(frame_id=f, name="f_renamed"),
    ]
    roles = ("kProximity", "kIllustration", "kPerception")
    worlds = []
    for mod, math_mod in ((mg, mm), (pg, pm)):
        sg, s, f, ids, ground = _scene(mod, math_mod)
        seen = []
        for step in steps:
            before = mod.GeometryVersion(other=sg.model_inspector().geometry_version())
            step(mod, sg, s, f, ids)
            after = sg.model_inspector().geometry_version()
            seen.append(tuple(before.IsSameAs(other=after, role=getattr(mod.Role, r)) for r in roles))
        fresh = mod.GeometryVersion()
        seen.append(tuple(fresh.IsSameAs(after, getattr(mod.Role, r)) for r in roles))
        worlds.append(seen)
    assert worlds[0] == worlds[1]


def test_context_edits_and_transient_filters():
    import mallard.multibody.math as mm
    sg, s, f, ids, ground = _scene(mg, mm)
    context = sg.CreateDefaultContext()
    query = sg.get_query_output_port().Eval(context)
    extra = sg.RegisterGeometry(context=context, source_id=s, frame_id=sg.world_frame_id(),
                                geometry=mg.GeometryInstance(RigidTransform(), mg.Sphere(1.0), "extra"))
    assert sg.model_inspector().num_geometries() == 3 and query.inspector().num_geometries() == 4
    sg.ChangeShape(context=context, source_id=s, geometry_id=ids[0], shape=mg.Capsule(1, 2), X_FG=RigidTransform([1, 2, 3]))
    assert isinstance(query.inspector().GetShape(ids[0]), mg.Capsule)
    assert isinstance(sg.model_inspector().GetShape(ids[0]), mg.Sphere)
    np.testing.assert_array_equal(query.inspector().GetPoseInFrame(ids[0]).translation(), [1, 2, 3])
    assert sg.RemoveRole(context, s, f, mg.Role.kProximity) == 2  # the frame variant: both of f's geometries
    sg.RemoveGeometry(context=context, source_id=s, geometry_id=extra)
    assert query.inspector().num_geometries() == 3

    manager = sg.collision_filter_manager()
    assert not manager.has_transient_history()
    fid = manager.ApplyTransient(declaration=mg.CollisionFilterDeclaration(scope=mg.CollisionFilterScope.kAll)
                                 .ExcludeBetween(mg.GeometrySet(geometry_ids=ids), mg.GeometrySet(ground)))
    inspector = sg.model_inspector()
    assert manager.IsActive(filter_id=fid) and inspector.CollisionFiltered(ids[0], ground)
    with pytest.raises(RuntimeError, match="transient declarations are active"):
        manager.Apply(mg.CollisionFilterDeclaration().ExcludeWithin(mg.GeometrySet(ids)))
    assert manager.RemoveDeclaration(filter_id=fid) and not manager.IsActive(fid)
    assert not inspector.CollisionFiltered(ids[0], ground) and not manager.RemoveDeclaration(fid)


def test_inspector_and_query_keywords_and_boxes():
    pg, pm = _pyd()
    import mallard.multibody.math as mm
    sg, s, f, ids, ground = _scene(mg, mm)
    ins = sg.model_inspector()
    assert ins.GetName(frame_id=f) == "f" and ins.GetName(geometry_id=ids[1]) == "box" and ins.GetName(s) == "src"
    assert ins.BelongsToSource(frame_id=f, source_id=s) and ins.GetOwningSourceName(geometry_id=ground) == "src"
    gs = [mg.GeometrySet(frame_id=f), mg.GeometrySet([f]), mg.GeometrySet([], [f]), mg.GeometrySet(frame_ids=[f])]
    assert all(ins.GetGeometryIds(g) == set(ids) for g in gs)
    assert ins.GetObbInGeometryFrame(geometry_id=ground) is None
    context = sg.CreateDefaultContext()
    poses = mg.FramePoseVector_[float]()
    poses.set_value(id=f, value=RigidTransform([0.0, 0.0, 2.0]))
    sg.get_source_pose_port(s).FixValue(context, poses)
    q = sg.get_query_output_port().Eval(context)
    np.testing.assert_array_equal(q.GetPoseInWorld(geometry_id=ids[1]).translation(), [0, 0, 3])
    np.testing.assert_array_equal(q.GetPoseInWorld(frame_id=f).translation(), [0, 0, 2])
    obb = q.ComputeObbInWorld(geometry_id=ids[1])
    np.testing.assert_array_equal(obb.center(), [0, 0, 3])
    assert q.ComputeObbInWorld(ground) is None and q.ComputeAabbInWorld(ids[0]) is None
    # the same Obb as pydrake's (primitives are exact)
    sg_ref, s_ref, f_ref, ids_ref, _ = _scene(pg, pm)
    ref = sg_ref.model_inspector().GetObbInGeometryFrame(ids_ref[1])
    np.testing.assert_array_equal(ins.GetObbInGeometryFrame(ids[1]).half_width(), ref.half_width())


def test_hydroelastic_queries_never_fall_back_silently():
    import mallard.multibody.math as mm
    sg, s, f, ids, ground = _scene(mg, mm)
    context = sg.CreateDefaultContext()
    poses = mg.FramePoseVector()
    poses.set_value(f, RigidTransform([0.0, 0.0, 5.0]))
    sg.get_source_pose_port(s).FixValue(context, poses)
    rep = mg.HydroelasticContactRepresentation.kTriangle
    q = sg.get_query_output_port().Eval(context)
    assert q.ComputeContactSurfaces(representation=rep) == []  # nothing touches
    poses.set_value(f, RigidTransform([0.0, 0.0, 0.25]))
    sg.get_source_pose_port(s).FixValue(context, poses)
    q = sg.get_query_output_port().Eval(context)
    with pytest.raises(RuntimeError, match="no hydroelastic representation"):
        q.ComputeContactSurfaces(rep)
    surfaces, points = q.ComputeContactSurfacesWithFallback(representation=rep)
    assert surfaces == [] and len(points) == 1 and {points[0].id_A, points[0].id_B} == {ids[0], ground}
    props = mg.ProximityProperties()
    mg.AddCompliantHydroelasticProperties(0.1, 1e7, props)
    sg.AssignRole(context, s, ids[0], props, mg.RoleAssign.kReplace)
    rigid = mg.ProximityProperties()
    mg.AddRigidHydroelasticProperties(rigid)
    sg.AssignRole(context, s, ground, rigid, mg.RoleAssign.kReplace)
    q = sg.get_query_output_port().Eval(context)
    surfaces, points = q.ComputeContactSurfacesWithFallback(rep)
    assert len(surfaces) == 1 and points == [] and {surfaces[0].id_M(), surfaces[0].id_N()} == {ids[0], ground}
