"""Discrete-plant contact physics: the seeds' worked cube example through the plant, a box at rest,
a block on a slope (stick / slide with the analytic acceleration), energy in an elastic bounce, and
the contact_results / generalized contact force outputs."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry import (AddMujocoContactParameters, Box, CoulombFriction, HalfSpace, ProximityProperties,
                              Sphere)
from mallard.multibody.math import RigidTransform, RollPitchYaw, SpatialVelocity
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.tree import SpatialInertia
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

G = 9.81


def mj_props(mu=1.0, **kw):
    p = ProximityProperties()
    p.AddProperty("material", "coulomb_friction", CoulombFriction(mu, mu))
    kw.setdefault("solref", (0.02, 1.0))
    return AddMujocoContactParameters(p, friction=(mu, 0.005, 0.0001), **kw)


def one_body(shape, M, h=0.002, mu=1.0, X_floor=None, options=None, **kw):
    """A free body with `shape` above a MuJoCo-parameterized floor; returns (diagram, plant, body)."""
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, h)
    plant.SetUseSampledOutputPorts(False)  # contact_results: the step that starts at the context's state
    body = plant.AddRigidBody("body", M)
    plant.RegisterCollisionGeometry(body, RigidTransform(), shape, "body_geom", mj_props(mu, **kw))
    plant.RegisterCollisionGeometry(plant.world_body(), X_floor or RigidTransform(), HalfSpace(), "floor",
                                    mj_props(mu, **kw))
    if options:
        plant.set_constraint_solver_options(**options)
    plant.Finalize()
    return builder.Build(), plant, body


def cube():
    return one_body(Box(0.1, 0.1, 0.1), SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))


def _results(plant, ctx):
    cr = plant.get_contact_results_output_port().Eval(ctx)
    return [cr.point_pair_contact_info(i) for i in range(cr.num_point_pair_contacts())]


@pytest.mark.parametrize("penetration, vz, expected", [(0.002, 0.0, 3.7194), (0.01, -1.0, 34.888)])
def test_worked_cube_example(penetration, vz, expected):
    diagram, plant, box = cube()
    ctx = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    plant.SetFreeBodyPose(ctx, box, RigidTransform([0, 0, 0.05 - penetration]))
    plant.SetFreeBodySpatialVelocity(ctx, box, SpatialVelocity(np.zeros(3), [0, 0, vz]))
    infos = _results(plant, ctx)
    assert len(infos) == 4
    for info in infos:
        f = info.contact_force()
        assert f[2] == pytest.approx(expected, abs=5e-4)
        np.testing.assert_allclose(f[:2], 0.0, atol=1e-9)
        assert info.bodyB_index() == box.index() and int(info.bodyA_index()) == 0
        assert info.contact_point()[2] == pytest.approx(-penetration / 2, abs=1e-12)
        assert info.separation_speed() == pytest.approx(vz, abs=1e-12)
        assert info.slip_speed() == pytest.approx(0.0, abs=1e-12)
        pair = info.point_pair()
        assert pair.depth == pytest.approx(penetration) and pair.nhat_BA_W == pytest.approx([0, 0, -1])
        assert pair.p_WCb[2] == pytest.approx(-penetration) and pair.p_WCa[2] == pytest.approx(0.0, abs=1e-15)


def test_worked_example_theory_value():
    """The article's 3.58 N is one pyramid row with the diagonal approximation: f = (aref - a0)/(A + R) with
    A = efc_diagA = 4, R = (1 - d)/d A. MuJoCo (and mallard) solve all 16 coupled pyramid rows with the full
    J M^-1 J', which gives 3.7194 N: the theory neglects the off-diagonal coupling between rows."""
    diagram, plant, box = cube()
    ctx = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    plant.SetFreeBodyPose(ctx, box, RigidTransform([0, 0, 0.048]))
    plant._contact_capture = []
    plant._CalcDiscreteStep(ctx)
    sol = plant._contact_capture.pop()
    plant._contact_capture = None
    pb = sol.problem
    assert pb.nefc == 16
    np.testing.assert_allclose(pb.efc_diagA, 4.0, rtol=1e-12)
    k, b, imp = pb.efc_KBIP[0, 0], pb.efc_KBIP[0, 1], pb.efc_KBIP[0, 2]
    # |r| >= width: d = dmax = 0.95; k = 1/(dmax^2 tc^2 zeta^2), b = 2/(dmax tc)
    assert (k * imp, b, imp) == pytest.approx((2631.5789, 105.26316, 0.95), rel=1e-6)
    R = (1 - imp) / imp * pb.efc_diagA[0]
    assert pb.efc_R[0] == pytest.approx(R, rel=1e-12)
    aref = -b * 0.0 - k * imp * (-0.002)
    assert pb.efc_aref[0] == pytest.approx(aref, rel=1e-12)
    theory = (aref + G) / (pb.efc_diagA[0] + R)
    assert theory == pytest.approx(3.58, abs=5e-3)
    total = sum(sol.f_contact[:, 0])
    assert total / 4 == pytest.approx(3.7194, abs=5e-4)


def test_box_at_rest_carries_its_weight():
    diagram, plant, box = one_body(Box(0.2, 0.1, 0.08), SpatialInertia.SolidBoxWithMass(2.5, 0.2, 0.1, 0.08))
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyContextFromRoot(root)
    plant.SetFreeBodyPose(ctx, box, RigidTransform([0, 0, 0.045]))
    sim = Simulator(diagram, root)
    sim.AdvanceTo(1.0)
    infos = _results(plant, ctx)
    assert len(infos) == 4
    fz = np.array([i.contact_force()[2] for i in infos])
    assert fz.sum() == pytest.approx(2.5 * G, rel=1e-4)
    np.testing.assert_allclose(fz, 2.5 * G / 4, rtol=1e-3)
    instance = plant.GetModelInstanceByName("DefaultModelInstance")
    tau = plant.get_generalized_contact_forces_output_port(instance).Eval(ctx)
    assert tau[5] == pytest.approx(2.5 * G, rel=1e-4)  # vertical force on the free body's z velocity


@pytest.mark.parametrize("mu, sticks", [(0.5, True), (0.2, False)])
def test_block_on_slope(mu, sticks):
    theta = 0.3  # tan = 0.309
    R = RollPitchYaw(0.0, theta, 0.0).ToRotationMatrix()
    diagram, plant, box = one_body(Box(0.1, 0.1, 0.1), SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1), mu=mu,
                                   X_floor=RigidTransform(R, [0, 0, 0]), options=dict(cone="elliptic"))
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyContextFromRoot(root)
    n = R.matrix()[:, 2]
    plant.SetFreeBodyPose(ctx, box, RigidTransform(R, 0.0495 * n))
    sim = Simulator(diagram, root)
    sim.AdvanceTo(0.3)
    x0 = plant.GetFreeBodyPose(ctx, box).translation().copy()
    v0 = plant.EvalBodySpatialVelocityInWorld(ctx, box).translational().copy()
    sim.AdvanceTo(0.8)
    x1 = plant.GetFreeBodyPose(ctx, box).translation()
    v1 = plant.EvalBodySpatialVelocityInWorld(ctx, box).translational()
    down = R.matrix()[:, 0]  # slope direction (+x of the tilted floor points downhill for a positive pitch)
    if sticks:
        # soft (regularized) friction creeps slowly, as in MuJoCo: < 1 mm in 0.5 s (sliding at mu = 0.2 covers ~0.2 m)
        assert abs((x1 - x0) @ down) < 1e-3
        assert abs(v1 @ down) < 2e-3
    else:
        a = ((v1 - v0) @ down) / 0.5
        expected = G * (np.sin(theta) - mu * np.cos(theta))
        assert abs(a) == pytest.approx(expected, rel=2e-3)


def test_elastic_bounce_energy_does_not_grow():
    """A nearly elastic contact (direct solref: stiffness 2e4 /s^2, damping 2 /s; restitution ~0.98): over a
    sequence of bounces the total energy never exceeds the initial energy and decreases apex to apex.
    (With exactly zero damping the explicit contact onset/offset of the discrete step gains ~0.7 % per
    bounce, in MuJoCo as in mallard.)"""
    diagram, plant, ball = one_body(Sphere(0.05), SpatialInertia.SolidSphereWithMass(1.0, 0.05), h=0.001,
                                    solref=(-20000.0, -2.0), solimp=(0.99, 0.99, 0.001, 0.5, 2.0))
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyContextFromRoot(root)
    plant.SetFreeBodyPose(ctx, ball, RigidTransform([0, 0, 0.3]))
    E0 = plant.CalcKineticEnergy(ctx) + plant.CalcPotentialEnergy(ctx)
    sim = Simulator(diagram, root)
    energies, heights = [], []
    for k in range(1, 1501):
        sim.AdvanceTo(k * 0.001)
        energies.append(plant.CalcKineticEnergy(ctx) + plant.CalcPotentialEnergy(ctx))
        heights.append(plant.GetFreeBodyPose(ctx, ball).translation()[2])
    heights, energies = np.array(heights), np.array(energies)
    apex = np.flatnonzero((heights[1:-1] > heights[:-2]) & (heights[1:-1] >= heights[2:])) + 1
    assert len(apex) >= 3 and heights[apex[2]] > 0.25  # it really bounces, nearly elastically
    assert np.max(energies) <= E0 * (1 + 1e-9)
    assert np.all(np.diff(energies[apex]) < 0)


@pytest.mark.parametrize("solver, tol", [("cg", 1e-4), ("pgs", 2e-2)])
def test_other_solvers_reproduce_the_worked_example(solver, tol):
    diagram, plant, box = one_body(Box(0.1, 0.1, 0.1), SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1),
                                   options=dict(solver=solver, iterations=500))
    ctx = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    plant.SetFreeBodyPose(ctx, box, RigidTransform([0, 0, 0.048]))
    fz = [i.contact_force()[2] for i in _results(plant, ctx)]
    assert len(fz) == 4
    np.testing.assert_allclose(fz, 3.7194, rtol=tol)
    assert plant.get_constraint_solver_options().solver == solver
