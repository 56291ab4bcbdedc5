"""Hydroelastic contact surfaces (QueryObject.ComputeContactSurfaces) against pydrake 1.51: compliant box / sphere on
rigid half spaces and boxes, two compliant spheres, a rigid box on a compliant half space; both representations.
Area, ∫p·n dA, centroid and gradients match to 1e-9 and the polygons are Drake's (the same meshes and pressure
fields, tests/geometry/hydroelastic/test_field_meshes.py)."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.all as ma
from mallard.geometry.hydroelastic.primitive_meshes import (MakeBoxSurfaceMesh, MakeBoxVolumeMesh,
                                                            MakeSphereVolumeMesh)
from oracles import require_pydrake

CASES = ["box_plane", "spheres", "sphere_box", "box_box", "softplane_box"]


def _scene(M, case):
    """(scene graph, root context) of a test scene built with module M (mallard.all or pydrake.all)."""
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)

    def props(kind, E=1e6, res=0.02):
        p = M.ProximityProperties()
        M.AddContactMaterial(dissipation=1.0, friction=M.CoulombFriction(0.5, 0.5), properties=p)
        if kind == "soft":
            M.AddCompliantHydroelasticProperties(res, E, p)
        else:
            M.AddRigidHydroelasticProperties(res, p)
        return p

    world = plant.world_body()
    if case in ("box_plane", "box_box", "softplane_box"):
        b = plant.AddRigidBody("box", M.SpatialInertia.SolidBoxWithMass(2.0, .2, .3, .1))
        plant.RegisterCollisionGeometry(b, M.RigidTransform(), M.Box(.2, .3, .1), "box",
                                        props("rigid" if case == "softplane_box" else "soft"))
        X = [M.RigidTransform(M.RollPitchYaw(0.1, -0.05, 0.3), [0, 0, 0.045])]
        if case == "box_plane":
            plant.RegisterCollisionGeometry(world, M.RigidTransform(), M.HalfSpace(), "ground", props("rigid"))
        elif case == "box_box":
            plant.RegisterCollisionGeometry(world, M.RigidTransform([0, 0, -0.1]), M.Box(0.5, 0.5, 0.2), "table",
                                            props("rigid"))
            X = [M.RigidTransform(M.RollPitchYaw(0.02, -0.01, 0.3), [0, 0, 0.046])]
        else:
            p = M.ProximityProperties()
            M.AddContactMaterial(dissipation=1.0, friction=M.CoulombFriction(0.5, 0.5), properties=p)
            M.AddCompliantHydroelasticPropertiesForHalfSpace(0.1, 1e6, p)
            plant.RegisterCollisionGeometry(world, M.RigidTransform(), M.HalfSpace(), "ground", p)
            X = [M.RigidTransform(M.RollPitchYaw(0.02, -0.01, 0.3), [0, 0, 0.046])]
    elif case == "spheres":
        for k in range(2):
            b = plant.AddRigidBody(f"s{k}", M.SpatialInertia.SolidSphereWithMass(1.0, .05))
            plant.RegisterCollisionGeometry(b, M.RigidTransform(), M.Sphere(0.05), f"s{k}",
                                            props("soft", E=1e5 * (k + 1), res=0.01))
        X = [M.RigidTransform([0, 0, 0]), M.RigidTransform(M.RollPitchYaw(0.2, 0.1, 0), [0.005, 0.002, 0.095])]
    else:
        b = plant.AddRigidBody("s", M.SpatialInertia.SolidSphereWithMass(1.0, .05))
        plant.RegisterCollisionGeometry(b, M.RigidTransform(), M.Sphere(0.05), "s", props("soft", res=0.01))
        plant.RegisterCollisionGeometry(world, M.RigidTransform([0, 0, -0.1]), M.Box(0.3, 0.3, 0.2), "table",
                                        props("rigid"))
        X = [M.RigidTransform(M.RollPitchYaw(0.3, 0.2, 0.1), [0.01, 0, 0.046])]
    plant.Finalize()
    diagram = builder.Build()
    ctx = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(ctx)
    for k, x in enumerate(X):
        plant.SetFreeBodyPose(pc, plant.get_body(M.BodyIndex(k + 1)), x)
    return sg, ctx


def _summary(s):
    """(num faces, area, ∫p·n dA, centroid, gradient flags, gradient of the first face)."""
    F = np.zeros(3)
    for f in range(s.num_faces()):
        c = s.centroid(f)
        p0 = s.tri_e_MN().Evaluate(f, [1 / 3, 1 / 3, 1 / 3]) if s.is_triangle() else \
            s.poly_e_MN().EvaluateCartesian(f, c)
        F += s.area(f) * p0 * s.face_normal(f)
    g = s.EvaluateGradE_M_W(0) if s.HasGradE_M() else s.EvaluateGradE_N_W(0)
    return s.num_faces(), s.total_area(), F, s.centroid(), (s.HasGradE_M(), s.HasGradE_N()), np.linalg.norm(g)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("rep", ["kPolygon", "kTriangle"])
def test_contact_surfaces_match_pydrake(case, rep):
    require_pydrake()
    import pydrake.all as pd
    got, want = [], []
    for M, out in ((ma, got), (pd, want)):
        sg, ctx = _scene(M, case)
        q = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(ctx))
        surfaces = q.ComputeContactSurfaces(getattr(M.HydroelasticContactRepresentation, rep))
        assert len(surfaces) == 1
        assert surfaces[0].id_M() < surfaces[0].id_N()
        out.append(_summary(surfaces[0]))
    (nf, area, F, c, flags, g), (nf_d, area_d, F_d, c_d, flags_d, g_d) = got[0], want[0]
    assert flags == flags_d
    assert area == pytest.approx(area_d, rel=1e-9)
    np.testing.assert_allclose(F, F_d, rtol=1e-9, atol=1e-9 * np.linalg.norm(F_d))
    np.testing.assert_allclose(c, c_d, atol=1e-10)
    if case in ("box_plane", "box_box", "softplane_box"):  # one gradient over the whole surface
        assert g == pytest.approx(g_d, rel=1e-9)
    if rep == "kPolygon":  # Drake's meshes: the same polygons
        assert nf == nf_d


def test_fallback_and_refusals():
    sg, ctx = _scene(ma, "box_plane")
    q = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(ctx))
    surfaces, points = q.ComputeContactSurfacesWithFallback(ma.HydroelasticContactRepresentation.kPolygon)
    assert len(surfaces) == 1 and points == []


def test_meshes():
    for size in [(1, 1, 1), (0.2, 0.2, 0.6), (0.1, 0.3, 0.5)]:
        m = MakeBoxVolumeMesh(size)
        vols = [m.CalcTetrahedronVolume(e) for e in range(m.num_elements())]
        assert min(vols) > 0 and sum(vols) == pytest.approx(np.prod(size), rel=1e-12)
    s = MakeBoxSurfaceMesh((1, 2, 3))
    assert (s.num_vertices(), s.num_elements(), s.total_area()) == (14, 24, pytest.approx(22.0))
    sphere = MakeSphereVolumeMesh(0.05, 0.01)  # Drake's level 3: 8·4³ tetrahedra
    assert sphere.num_elements() == 512 and sphere.num_vertices() == 259
    assert min(sphere.CalcTetrahedronVolume(e) for e in range(512)) > 0
