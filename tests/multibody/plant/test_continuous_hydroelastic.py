"""Hydroelastic contact on the continuous plant (time_step = 0) against pydrake 1.51: the time derivatives and the
contact results (F_Ac_W, surface) of a compliant sphere and box on a rigid half space in both representations, a
trajectory under the default error-controlled integrator, and the point-contact fallback beside a surface."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.all as ma
from oracles import require_pydrake


def _props(M, kind, E=1e6, res=0.02, mu=0.5, d=1.0):
    p = M.ProximityProperties()
    M.AddContactMaterial(dissipation=d, friction=M.CoulombFriction(mu, mu), properties=p)
    if kind == "soft":
        M.AddCompliantHydroelasticProperties(res, E, p)
    elif kind == "rigid":
        M.AddRigidHydroelasticProperties(res, p)
    return p


def _scene(M, shape: str, rep: str | None, fallback_ball: bool = False):
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.0)
    if rep is not None:
        plant.set_contact_surface_representation(getattr(M.HydroelasticContactRepresentation, rep))
    body = plant.AddRigidBody("body", M.SpatialInertia.SolidBoxWithMass(2.0, .2, .3, .1))
    geometry = M.Box(.2, .3, .1) if shape == "box" else M.Sphere(0.05)
    plant.RegisterCollisionGeometry(body, M.RigidTransform(), geometry, "g", _props(M, "soft", res=0.01))
    plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform(), M.HalfSpace(), "ground",
                                    _props(M, "rigid"))
    bodies = [body]
    if fallback_ball:  # no hydroelastic properties: point contact with the ground
        ball = plant.AddRigidBody("ball", M.SpatialInertia.SolidSphereWithMass(0.5, 0.04))
        plant.RegisterCollisionGeometry(ball, M.RigidTransform(), M.Sphere(0.04), "ball",
                                        _props(M, "none", mu=0.3))
        bodies.append(ball)
    plant.Finalize()
    diagram = builder.Build()
    return diagram, plant, bodies


def _set_state(M, plant, pc, bodies, z):
    plant.SetFreeBodyPose(pc, bodies[0], M.RigidTransform(M.RollPitchYaw(0.02, 0.01, 0.3), [0, 0, z]))
    plant.SetFreeBodySpatialVelocity(context=pc, body=bodies[0],
                                     V_JpJc=M.SpatialVelocity([0.1, 0.2, 0.3], [0.1, 0.0, -0.1]))
    if len(bodies) > 1:
        plant.SetFreeBodyPose(pc, bodies[1], M.RigidTransform([0.5, 0, 0.039]))


def _evaluate(M, shape, rep, fallback_ball=False):
    diagram, plant, bodies = _scene(M, shape, rep, fallback_ball)
    ctx = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(ctx)
    _set_state(M, plant, pc, bodies, 0.049 if shape == "box" else 0.048)
    xdot = diagram.EvalTimeDerivatives(ctx).CopyToVector()
    r = plant.get_contact_results_output_port().Eval(pc)
    hydro = [r.hydroelastic_contact_info(i) for i in range(r.num_hydroelastic_contacts())]
    points = [r.point_pair_contact_info(i) for i in range(r.num_point_pair_contacts())]
    return xdot, [(np.r_[h.F_Ac_W().rotational(), h.F_Ac_W().translational()], h.contact_surface().total_area(),
                   h.contact_surface().num_faces()) for h in hydro], [p.contact_force() for p in points]


@pytest.mark.parametrize("shape,rep", [("sphere", None), ("sphere", "kPolygon"), ("box", None), ("box", "kPolygon")])
def test_derivatives_and_results_match_pydrake(shape, rep):
    require_pydrake()
    import pydrake.all as pd
    (xd, hy, _), (xd_d, hy_d, _) = _evaluate(ma, shape, rep), _evaluate(pd, shape, rep)
    assert len(hy) == len(hy_d) == 1
    (F, area, nf), (F_d, area_d, nf_d) = hy[0], hy_d[0]
    assert area == pytest.approx(area_d, rel=1e-9)
    # the sphere's tetrahedra are Drake's, so its faces and quadrature points are; the box's tetrahedra differ
    # (the field is the same): its triangle quadrature agrees closely, its polygon centroids less
    tol = 1e-9 if shape == "sphere" else 1e-4 if rep is None else 2e-2
    if shape == "sphere":
        assert nf == nf_d
    np.testing.assert_allclose(F, F_d, rtol=tol, atol=tol * np.linalg.norm(F_d))
    np.testing.assert_allclose(xd, xd_d, rtol=tol, atol=tol * np.linalg.norm(xd_d))


def test_point_contact_fallback_beside_a_surface():
    require_pydrake()
    import pydrake.all as pd
    (xd, hy, pts), (xd_d, hy_d, pts_d) = (_evaluate(M, "sphere", None, fallback_ball=True) for M in (ma, pd))
    assert len(hy) == len(hy_d) == 1 and len(pts) == len(pts_d) == 1
    np.testing.assert_allclose(pts[0], pts_d[0], rtol=1e-9)
    np.testing.assert_allclose(xd, xd_d, rtol=1e-9, atol=1e-9 * np.linalg.norm(xd_d))


def _trajectory(M):
    diagram, plant, bodies = _scene(M, "sphere", None)
    sim = M.Simulator(diagram)
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    _set_state(M, plant, pc, bodies, 0.06)
    out = []
    for t in (0.05, 0.1, 0.2):
        sim.AdvanceTo(t)
        out.append(plant.GetPositions(pc).copy())
    return np.array(out), sim.get_num_steps_taken()


def test_sphere_trajectory_matches_pydrake():
    require_pydrake()
    import pydrake.all as pd
    (q, n), (q_d, n_d) = _trajectory(ma), _trajectory(pd)
    np.testing.assert_allclose(q, q_d, atol=1e-6)
    assert abs(n - n_d) <= 0.02 * n_d
