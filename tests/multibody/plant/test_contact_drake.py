"""Drake point-contact materials through the plant, against pydrake on identical scenes.

Discrete plant (kSap, Drake's SAP solver on the compiled step): a ball thrown onto the floor, bouncing and
rolling, matches pydrake's kSap plant to round-off; a tilted box matches through its first impact
(later, its rocking on single-point contacts is chaotic and amplifies solver-tolerance differences).
Continuous plant: the compliant point-contact generalized forces (Hunt–Crossley, Stribeck) equal
pydrake's for penetrating, sliding and slowly slipping states.
"""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_pydrake

import mallard.geometry as mg
from mallard.multibody.math import RigidTransform, RollPitchYaw, SpatialVelocity
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, DiscreteContactApproximation
from mallard.multibody.tree import SpatialInertia
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

MATERIAL = dict(dissipation=1.0, stiffness=1e4, mu=0.5, tau=0.05)


def _shape(lib, kind):
    return lib.Sphere(0.1) if kind == "sphere" else lib.Box(0.2, 0.1, 0.1)


def _inertia(lib, kind):
    return (lib.SpatialInertia.SolidSphereWithMass(1.0, 0.1) if kind == "sphere"
            else lib.SpatialInertia.SolidBoxWithMass(1.0, 0.2, 0.1, 0.1))


class _Mallard:
    Sphere, Box, HalfSpace, SpatialInertia = mg.Sphere, mg.Box, mg.HalfSpace, SpatialInertia


def _props(lib, pd=None):
    mat = MATERIAL
    if pd is not None:
        p = pd.ProximityProperties()
        pd.AddContactMaterial(mat["dissipation"], mat["stiffness"], pd.CoulombFriction(mat["mu"], mat["mu"]), p)
    else:
        p = mg.AddContactMaterial(mat["dissipation"], mat["stiffness"], mg.CoulombFriction(mat["mu"], mat["mu"]))
    p.AddProperty("material", "relaxation_time", mat["tau"])
    return p


def drake_plant(pd, h, kind, X, V):
    b = pd.DiagramBuilder()
    plant, _ = pd.AddMultibodyPlantSceneGraph(b, h)
    plant.set_contact_model(pd.ContactModel.kPoint)
    if h > 0:
        plant.set_discrete_contact_approximation(pd.DiscreteContactApproximation.kSap)
    body = plant.AddRigidBody("body", _inertia(pd, kind))
    plant.RegisterCollisionGeometry(body, pd.RigidTransform(), _shape(pd, kind), "body", _props(pd, pd))
    plant.RegisterCollisionGeometry(plant.world_body(), pd.RigidTransform(), pd.HalfSpace(), "floor", _props(pd, pd))
    plant.Finalize()
    diagram = b.Build()
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyContextFromRoot(root)
    plant.SetFreeBodyPose(ctx, body, pd.RigidTransform(pd.RollPitchYaw(X[0]), X[1]))
    plant.SetFreeBodySpatialVelocity(context=ctx, body=body, V_JpJc=pd.SpatialVelocity(V[0], V[1]))
    return diagram, plant, root, ctx


def mallard_plant(h, kind, X, V):
    b = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(b, h)
    if h > 0:
        plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
    body = plant.AddRigidBody("body", _inertia(_Mallard, kind))
    plant.RegisterCollisionGeometry(body, RigidTransform(), _shape(mg, kind), "body", _props(mg))
    plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), mg.HalfSpace(), "floor", _props(mg))
    plant.Finalize()
    diagram = b.Build()
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyContextFromRoot(root)
    plant.SetFreeBodyPose(ctx, body, RigidTransform(RollPitchYaw(X[0]).ToRotationMatrix(), X[1]))
    plant.SetFreeBodySpatialVelocity(ctx, body, SpatialVelocity(V[0], V[1]))
    return diagram, plant, root, ctx


def _trajectory(sim_cls, diagram, plant, root, ctx, h, n):
    sim = sim_cls(diagram, root)
    out = []
    for k in range(n):
        sim.AdvanceTo((k + 1) * h)
        out.append(np.array(plant.GetPositionsAndVelocities(ctx)))
    return np.array(out)


@pytest.mark.parametrize("kind, X, V, nsteps, tol", [
    ("sphere", ([0, 0, 0], [0, 0, 0.2]), ([0, 0, 0], [0.5, 0.2, 0]), 250, 1e-9),
    ("box", ([0.3, 0.2, 0.1], [0, 0, 0.15]), ([0, 0, 0], [0, 0, 0]), 100, 1e-4),
])
def test_discrete_drake_materials_match_pydrake(kind, X, V, nsteps, tol):
    require_pydrake()
    import pydrake.all as pd
    h = 0.002
    A = _trajectory(pd.Simulator, *drake_plant(pd, h, kind, X, V), h, nsteps)
    B = _trajectory(Simulator, *mallard_plant(h, kind, X, V), h, nsteps)
    assert np.min(A[:, 6]) < 0.1 if kind == "sphere" else np.min(A[:, 6]) < 0.112  # contact happened
    assert np.max(np.abs(A - B)) < tol


@pytest.mark.parametrize("z, w, v", [
    (0.099, [0, 0, 0], [0.3, 0, 0]),          # sliding: dynamic friction
    (0.0985, [0, 0, 0], [0.0, 0, -0.4]),      # approaching: Hunt–Crossley dissipation
    (0.0995, [0.0, 0.001, 0], [0.00005, 0, 0.1]),  # slow slip inside the Stribeck stiction band, separating
])
def test_continuous_point_contact_matches_pydrake(z, w, v):
    require_pydrake()
    import pydrake.all as pd
    X, V = ([0, 0, 0], [0, 0, z]), (w, v)
    _, dplant, _, dctx = drake_plant(pd, 0.0, "sphere", X, V)
    _, plant, _, ctx = mallard_plant(0.0, "sphere", X, V)
    tau_d = dplant.get_generalized_contact_forces_output_port(pd.default_model_instance()).Eval(dctx)
    instance = plant.GetModelInstanceByName("DefaultModelInstance")
    tau_m = plant.get_generalized_contact_forces_output_port(instance).Eval(ctx)
    assert np.max(np.abs(tau_d)) > 0.1
    np.testing.assert_allclose(tau_m, tau_d, rtol=1e-10, atol=1e-10)
    # the contact results report the same force on the ball
    cd = dplant.get_contact_results_output_port().Eval(dctx)
    cm = plant.get_contact_results_output_port().Eval(ctx)
    assert cm.num_point_pair_contacts() == cd.num_point_pair_contacts() == 1
    fd, fm = cd.point_pair_contact_info(0), cm.point_pair_contact_info(0)
    sign = 1.0 if int(fd.bodyB_index()) == int(fm.bodyB_index()) else -1.0
    np.testing.assert_allclose(fm.contact_force(), sign * fd.contact_force(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(fm.contact_point(), fd.contact_point(), atol=1e-12)
    assert fm.slip_speed() == pytest.approx(fd.slip_speed(), abs=1e-12)
    # Drake documents separation_speed as positive when the bodies move apart, but pydrake 1.51's continuous
    # plant reports v_AcBc . nhat_BA (positive when approaching); mallard follows the documented sign.
    assert fm.separation_speed() == pytest.approx(-fd.separation_speed(), abs=1e-12)
    assert fm.separation_speed() == pytest.approx(v[2], abs=1e-12)


def test_continuous_ball_comes_to_rest_on_the_floor():
    from mallard.systems.analysis import Simulator as Sim
    diagram, plant, root, ctx = mallard_plant(0.0, "sphere", ([0, 0, 0], [0, 0, 0.11]), ([0, 0, 0], [0, 0, 0]))
    sim = Sim(diagram, root)
    sim.AdvanceTo(2.5)  # lightly damped (zeta ~ 0.05 at 1 mm): the bounce decays as exp(-5 t)
    cr = plant.get_contact_results_output_port().Eval(ctx)
    assert cr.num_point_pair_contacts() == 1
    f = cr.point_pair_contact_info(0).contact_force()
    weight = 9.81 if int(cr.point_pair_contact_info(0).bodyB_index()) == 1 else -9.81
    assert f[2] == pytest.approx(weight, rel=1e-3)


def _deep_start(lib, z0: float, t: float):
    """A continuous plant's 2 kg box (0.2 m cube, default materials) that starts z0 below its resting height on a
    half space: (height after t, smallest step the Simulator's integrator took)."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 0.0)
    box = plant.AddRigidBody("box", lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    friction = lib.CoulombFriction(0.5, 0.5)
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(0.2, 0.2, 0.2), "box", friction)
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground", friction)
    plant.Finalize()
    sim = lib.Simulator(builder.Build())
    ctx = plant.GetMyContextFromRoot(sim.get_mutable_context())
    plant.SetFreeBodyPose(ctx, box, lib.RigidTransform([0.0, 0.0, 0.1 - z0]))
    sim.AdvanceTo(t)
    return plant.EvalBodyPoseInWorld(ctx, box).translation()[2], sim.get_integrator().get_smallest_adapted_step_size_taken()


@pytest.mark.parametrize("depth", [0.05, 0.15])
def test_continuous_plant_recovers_from_a_deep_start_as_pydrake(depth):
    """A scene that starts deep in penetration (5 cm, and 15 cm: deeper than the box's half size) recovers as
    pydrake's does: the same height after 0.1 s and the same smallest adapted step (~1e-7 s, not a step size that
    shrinks to 1e-9 s)."""
    require_pydrake()
    import pydrake.all as pd

    import mallard.all as ma
    z, h_min = _deep_start(ma, depth, 0.1)
    z_d, h_min_d = _deep_start(pd, depth, 0.1)
    assert z == pytest.approx(z_d, abs=1e-6)
    assert z > 0.1 - depth + 1e-3  # it is coming out
    assert h_min == pytest.approx(h_min_d, rel=1e-6) and h_min > 1e-8
