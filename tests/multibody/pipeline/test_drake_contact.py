"""Drake's discrete point contact on the compiled step (pipeline/drake_contact.py, contact/sap_solver.py) against
pydrake 1.51 on the same scripts: pydrake's defaults (SceneGraph's default proximity properties, kLagged), each
SAP-family approximation, a Hunt–Crossley bouncing ball, a joint limit, ContactResults' body order, signs and
fields, and the continuous plant's compliant contact.
"""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_pydrake

import mallard.all as ma
from drake_scenes import ball_scene, box_scene
from mallard.multibody.contact.sap_solver import SAP_CONE, SAP_HC_LAGGED, SAP_HC_SIMILAR, SapSolve
from mallard.multibody.plant._pipeline_step import UncompiledFeatures

APPROX = ("kLagged", "kSap", "kSimilar", "kTamsi")


def _box_drop(lib, approx, h=0.001, t=1.5, yaw=0.0):
    """The shared box drop (examples/drake_scenes.py) simulated `t` s; returns the plant and its context."""
    diagram, plant, init, _ = box_scene(lib, approx, h, yaw)
    root = diagram.CreateDefaultContext()
    init(root)
    lib.Simulator(diagram, root).AdvanceTo(t)
    return plant, plant.GetMyContextFromRoot(root)


def _infos(plant, ctx):
    cr = plant.get_contact_results_output_port().Eval(ctx)
    return [cr.point_pair_contact_info(i) for i in range(cr.num_point_pair_contacts())]


@pytest.mark.parametrize("approx", APPROX)
def test_box_drop_matches_pydrake(approx):
    pd = require_pydrake()
    import pydrake.all as pda
    del pd
    dplant, dctx = _box_drop(pda, approx)
    mplant, mctx = _box_drop(ma, approx)
    assert UncompiledFeatures(mplant) == []
    qd, qm = dplant.GetPositions(dctx), mplant.GetPositions(mctx)
    np.testing.assert_allclose(qm, qd, atol=1e-4)
    assert abs(qm[6] - qd[6]) < 1e-5  # the rest height (penetration ~5e-5 m)
    cd, cm = _infos(dplant, dctx), _infos(mplant, mctx)
    assert len(cd) == len(cm) == 1
    fd, fm = cd[0], cm[0]
    assert (int(fm.bodyA_index()), int(fm.bodyB_index())) == (int(fd.bodyA_index()), int(fd.bodyB_index()))
    np.testing.assert_allclose(fm.contact_force(), fd.contact_force(), rtol=1e-2, atol=1e-3)
    assert fm.contact_force()[2] == pytest.approx(-2.0 * 9.81, rel=1e-3)  # the force on B (the ground)
    np.testing.assert_allclose(fm.contact_point(), fd.contact_point(), atol=1e-5)
    pm, pp = fm.point_pair(), fd.point_pair()
    np.testing.assert_allclose(pm.nhat_BA_W, pp.nhat_BA_W, atol=1e-9)
    np.testing.assert_allclose(pm.p_WCa, pp.p_WCa, atol=1e-5)
    np.testing.assert_allclose(pm.p_WCb, pp.p_WCb, atol=1e-5)
    assert pm.depth == pytest.approx(pp.depth, rel=2e-2)
    assert fm.slip_speed() == pytest.approx(fd.slip_speed(), abs=1e-5)
    assert fm.separation_speed() == pytest.approx(fd.separation_speed(), abs=1e-5)


def _ball(lib, dissipation, h=0.001, t=1.6, z0=0.5):
    """The shared Hunt–Crossley ball (examples/drake_scenes.py); returns its positions at every 2 ms."""
    diagram, plant, init, _ = ball_scene(lib, dissipation, h, z0)
    root = diagram.CreateDefaultContext()
    init(root)
    ctx = plant.GetMyContextFromRoot(root)
    sim = lib.Simulator(diagram, root)
    qs = []
    for k in range(int(round(t / 0.002))):
        sim.AdvanceTo((k + 1) * 0.002)
        qs.append(plant.GetPositions(ctx).copy())
    return np.array(qs)


def _apexes(z):
    """Heights of the local maxima after the first impact."""
    k = np.flatnonzero((z[1:-1] > z[:-2]) & (z[1:-1] >= z[2:])) + 1
    return z[k]


def test_hunt_crossley_ball_bounces_as_pydrake():
    require_pydrake()
    import pydrake.all as pda
    qd, qm = _ball(pda, 0.05), _ball(ma, 0.05)
    ad, am = _apexes(qd[:, 6]), _apexes(qm[:, 6])
    assert len(ad) >= 2 and len(am) >= 2
    assert ad[0] > 0.2  # it bounces
    np.testing.assert_allclose(am[:2] - 0.05, ad[:2] - 0.05, rtol=2e-2)
    np.testing.assert_allclose(qm, qd, atol=1e-4)  # the whole motion: bounces, sliding friction, rolling


def _limited_arm(lib, approx, h=0.001, t=1.0):
    """A 1 kg rod on a revolute joint limited to [-0.4, 0.4] rad falling onto its limit, next to a box on the
    ground (contact and a limit in one problem)."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, h)
    plant.set_discrete_contact_approximation(getattr(lib.DiscreteContactApproximation, approx))
    rod = plant.AddRigidBody("rod", lib.SpatialInertia.SolidBoxWithMass(1.0, 0.05, 0.05, 0.5))
    joint = plant.AddJoint(lib.RevoluteJoint("hinge", plant.world_frame(), rod.body_frame(), [0.0, 1.0, 0.0]))
    joint.set_position_limits([-0.4], [0.4])
    box = plant.AddRigidBody("box", lib.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(0.1, 0.1, 0.1), "box",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform([0, 0, -1.0]), lib.HalfSpace(), "ground",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    diagram = builder.Build()
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyMutableContextFromRoot(root)
    joint.set_angle(ctx, 0.0)
    joint.set_angular_rate(ctx, 2.0)
    plant.SetFreeBodyPose(ctx, box, lib.RigidTransform([1.0, 0.0, -0.9]))
    sim = lib.Simulator(diagram, root)
    out = []
    for k in range(int(round(t / 0.01))):
        sim.AdvanceTo((k + 1) * 0.01)
        out.append(plant.GetPositions(ctx).copy())
    return np.array(out)


@pytest.mark.parametrize("approx", ["kLagged", "kTamsi"])
def test_joint_limit_matches_pydrake(approx):
    """SAP's limit constraint (kLagged) and TAMSI's explicit penalty forces (kTamsi)."""
    require_pydrake()
    import pydrake.all as pda
    qd, qm = _limited_arm(pda, approx), _limited_arm(ma, approx)
    assert qd[:, 0].max() > 0.39  # the limit was hit
    np.testing.assert_allclose(qm, qd, atol=1e-4)


def test_continuous_box_drop_matches_pydrake():
    require_pydrake()
    import pydrake.all as pda
    dplant, dctx = _box_drop(pda, None, h=0.0, t=0.6)
    mplant, mctx = _box_drop(ma, None, h=0.0, t=0.6)
    np.testing.assert_allclose(mplant.GetPositions(mctx), dplant.GetPositions(dctx), atol=1e-4)


@pytest.mark.parametrize("kind", [SAP_CONE, SAP_HC_LAGGED, SAP_HC_SIMILAR])
def test_sap_solver_degenerate_delassus(kind):
    """A contact whose Jacobian vanishes (w = 0) and a zero-friction contact never make the solver fail."""
    A = np.array([[2.0, 0.0], [0.0, 1.0]])
    h = 1e-3
    v_star = np.array([-9.81 * h, 0.0])
    J = np.zeros((6, 2))
    J[0, 0] = 1.0  # contact 0 acts on dof 0; contact 1 has a zero Jacobian
    par = np.zeros((2, 8))
    for c in range(2):
        if kind == SAP_CONE:
            par[c, :4] = [0.0 if c else 0.5, 1e-3, 1e-12, 1e-3 / (h + 0.1)]
        else:
            par[c, :7] = [0.0 if c else 0.5, 1e5, 10.0, 1e5 * 1e-4, h, h * 10.0, 1e-4]
    v, gamma, converged, it, residual = SapSolve(A, v_star, np.zeros(2), J, np.array([kind, kind]),
                                                 np.array([0, 3]), par)
    assert converged and np.all(np.isfinite(v)) and np.all(np.isfinite(gamma))
    assert gamma[0] > 0.0  # the first contact pushes


def test_hydroelastic_fallback_and_strict_models():
    """A compliant ball on a half space without hydroelastic properties: kHydroelasticWithFallback gives it point
    contact (no surface, no warning); kHydroelastic refuses the pair with its names instead of replacing it."""
    import warnings
    for model in (ma.ContactModel.kHydroelasticWithFallback, ma.ContactModel.kHydroelastic):
        builder = ma.DiagramBuilder()
        plant, _ = ma.AddMultibodyPlantSceneGraph(builder, 0.001)
        plant.set_contact_model(model)
        ball = plant.AddRigidBody("ball", ma.SpatialInertia.SolidSphereWithMass(1.0, 0.05))
        props = ma.ProximityProperties()
        ma.AddContactMaterial(friction=ma.CoulombFriction(0.5, 0.5), properties=props)
        ma.AddCompliantHydroelasticProperties(0.01, 1e6, props)
        plant.RegisterCollisionGeometry(ball, ma.RigidTransform(), ma.Sphere(0.05), "ball", props)
        plant.RegisterCollisionGeometry(plant.world_body(), ma.RigidTransform(), ma.HalfSpace(), "ground",
                                        ma.CoulombFriction(0.5, 0.5))
        plant.Finalize()
        diagram = builder.Build()
        sim = ma.Simulator(diagram)
        ctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
        plant.SetFreeBodyPose(ctx, ball, ma.RigidTransform([0.0, 0.0, 0.049]))
        if model == ma.ContactModel.kHydroelastic:
            with pytest.raises(RuntimeError, match="'ball' and 'ground' cannot have a hydroelastic contact surface"):
                sim.AdvanceTo(0.01)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sim.AdvanceTo(0.01)
        results = plant.get_contact_results_output_port().Eval(ctx)
        assert results.num_point_pair_contacts() == 1 and results.num_hydroelastic_contacts() == 0


def _cube_stack(lib, approx: str):
    """Eight touching 2 cm, 10 g cubes stacked 2 × 2 × 2 on a half space (coplanar faces, many degenerate box–box
    contacts, as a Rubik's cube's): the cubes' [x y z] after 0.3 s."""
    s = 0.02
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 1e-3)
    plant.set_discrete_contact_approximation(getattr(lib.DiscreteContactApproximation, approx))
    friction = lib.CoulombFriction(0.5, 0.5)
    cubes = []
    for i in range(2):
        for j in range(2):
            for k in range(2):
                body = plant.AddRigidBody(f"c{i}{j}{k}", lib.SpatialInertia.SolidBoxWithMass(0.01, s, s, s))
                plant.RegisterCollisionGeometry(body, lib.RigidTransform(), lib.Box(s, s, s), f"c{i}{j}{k}", friction)
                cubes.append((body, [i * s, j * s, k * s + s / 2]))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground", friction)
    plant.Finalize()
    sim = lib.Simulator(builder.Build())
    ctx = plant.GetMyContextFromRoot(sim.get_mutable_context())
    for body, p in cubes:
        plant.SetFreeBodyPose(ctx, body, lib.RigidTransform(p))
    sim.AdvanceTo(0.3)
    return plant.GetPositions(ctx).reshape(-1, 7)[:, 4:]


@pytest.mark.parametrize("approx", ["kLagged", "kSap"])
def test_stacked_cubes_never_fail_the_solver(approx):
    """A valid scene full of degenerate contacts steps without a solver failure and settles as pydrake's (the
    touching faces make single-point box–box contacts jump, so positions agree to 2 mm, not round-off)."""
    require_pydrake()
    import pydrake.all as pda
    p, p_d = _cube_stack(ma, approx), _cube_stack(pda, approx)
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(p, p_d, atol=2e-3)
