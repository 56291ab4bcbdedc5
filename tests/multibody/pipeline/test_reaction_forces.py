"""Joint reaction forces in contact against pydrake 1.51 on identical scenes: a pendulum whose bob rests on the
ground, an arm whose welded box rests on a table, an iiwa falling onto a table, a link carrying bodies by weld, ball
and distance constraints.

Drake's reaction_forces port of a discrete plant reports the step that starts at the state (its contact forces and
v̇ = (v⁺ − v)/h, at that state), with sampled output ports the last step's; a continuous plant's includes its compliant
contact forces. A body resting on the ground has its weight carried by the contact, not by its joint.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from oracles import require_pydrake

import mallard.all as ma
import quickstart as qs
from gallery import models_dir

MODES = [(1e-3, True, "kLagged"), (1e-3, False, "kLagged"), (1e-3, True, "kSap"), (1e-3, True, "kTamsi"),
         (1e-3, False, "kSimilar")]


def _finish(lib, builder, plant, h, sampled, approx):
    if h > 0:
        plant.set_discrete_contact_approximation(getattr(lib.DiscreteContactApproximation, approx))
        plant.SetUseSampledOutputPorts(sampled)
    plant.Finalize()
    diagram = builder.Build()
    root = diagram.CreateDefaultContext()
    return diagram, plant, root, plant.GetMyContextFromRoot(root)


def pendulum(lib, h, sampled, approx):
    """A 1 kg bob (sphere r = 0.1 m) on a 0.5 m rod hinged 0.4 m above the ground: at rest on the ground at 53°."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, h)
    bob = plant.AddRigidBody("bob", lib.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    pivot = plant.AddFrame(lib.FixedOffsetFrame("pivot", plant.world_frame(), lib.RigidTransform([0.0, 0.0, 0.4])))
    rod = plant.AddFrame(lib.FixedOffsetFrame("rod_end", bob.body_frame(), lib.RigidTransform([0.0, 0.0, 0.5])))
    plant.AddJoint(lib.RevoluteJoint("pin", pivot, rod, [0.0, 1.0, 0.0]))
    friction = lib.CoulombFriction(0.8, 0.8)
    plant.RegisterCollisionGeometry(bob, lib.RigidTransform(), lib.Sphere(0.1), "bob", friction)
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground", friction)
    out = _finish(lib, builder, plant, h, sampled, approx)
    plant.GetJointByName("pin").set_angle(out[3], 0.93)  # bob 0.3 mm into the ground
    return out


def welded_box(lib, h, sampled, approx):
    """An arm hinged at the world carries a welded 2 kg box that rests on a table."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, h)
    arm = plant.AddRigidBody("arm", lib.SpatialInertia.SolidBoxWithMass(0.5, 0.6, 0.05, 0.05))
    box = plant.AddRigidBody("box", lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    hinge = plant.AddFrame(lib.FixedOffsetFrame("hinge", plant.world_frame(), lib.RigidTransform([0.0, 0.0, 0.3])))
    shoulder = plant.AddFrame(lib.FixedOffsetFrame("shoulder", arm.body_frame(), lib.RigidTransform([-0.3, 0, 0])))
    plant.AddJoint(lib.RevoluteJoint("hinge", hinge, shoulder, [0.0, 1.0, 0.0]))
    plant.AddJoint(lib.WeldJoint("weld", arm.body_frame(), box.body_frame(),
                                 lib.RigidTransform(lib.RollPitchYaw(0.0, 0.0, 0.3), [0.35, 0.02, -0.1])))
    friction = lib.CoulombFriction(0.6, 0.6)
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(0.2, 0.2, 0.2), "box", friction)
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform([0.6, 0.0, -0.05]),
                                    lib.Box(1.0, 1.0, 0.1), "table", friction)
    out = _finish(lib, builder, plant, h, sampled, approx)
    plant.GetJointByName("hinge").set_angle(out[3], -0.0005)
    return out


def iiwa_on_table(lib, h, sampled, approx):
    """The quick start's iiwa14 (sphere collision) without actuation, leaning onto a table: three links touch it."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, h)
    parser = lib.Parser(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):  # pydrake pre-registers a download: use the local copy
        package_map.Remove("drake_models")
    package_map.AddPackageXml(str(models_dir() / "drake_models" / "package.xml"))
    iiwa = parser.AddModels(str(models_dir() / qs.IIWA))[0]
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base", iiwa))
    friction = lib.ProximityProperties()
    friction.AddProperty("material", "coulomb_friction", lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform([0.6, 0.0, 0.1]), lib.Box(0.5, 1.2, 0.2),
                                    "table", friction)
    out = _finish(lib, builder, plant, h, sampled, approx)
    plant.get_actuation_input_port().FixValue(out[3], np.zeros(7))
    plant.SetPositions(out[3], [0.2, 1.3, 0.0, -0.9, 0.0, 0.6, 0.0])
    return out


def constrained(lib, h, sampled, approx):
    """A link hinged at the world carries three free bodies by Drake's SAP constraints: one welded to it
    (AddWeldConstraint), one on a ball joint (AddBallConstraint), one hanging from a compliant distance constraint
    (AddDistanceConstraint); each starts off its constraint. (pydrake 1.51 crashes on a ball constraint to the
    world body, so none is used here.)"""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, h)
    link = plant.AddRigidBody("link", lib.SpatialInertia.SolidBoxWithMass(1.0, 0.5, 0.05, 0.05))
    hinge = plant.AddFrame(lib.FixedOffsetFrame("hinge", plant.world_frame(), lib.RigidTransform([0.0, 0.0, 0.5])))
    end = plant.AddFrame(lib.FixedOffsetFrame("end", link.body_frame(), lib.RigidTransform([-0.25, 0, 0])))
    plant.AddJoint(lib.RevoluteJoint("hinge", hinge, end, [0.0, 1.0, 0.0]))
    welded = plant.AddRigidBody("welded", lib.SpatialInertia.SolidBoxWithMass(0.5, 0.1, 0.1, 0.1))
    hanging = plant.AddRigidBody("hanging", lib.SpatialInertia.SolidSphereWithMass(0.3, 0.05))
    balled = plant.AddRigidBody("balled", lib.SpatialInertia.SolidSphereWithMass(0.4, 0.05))
    plant.AddBallConstraint(link, [0.25, 0.0, 0.0], balled, [0.0, 0.0, 0.05])
    plant.AddWeldConstraint(link, lib.RigidTransform(lib.RollPitchYaw(0.1, 0.0, 0.2), [0.1, 0.0, 0.05]), welded,
                            lib.RigidTransform())
    plant.AddDistanceConstraint(link, [0.0, 0.0, 0.0], hanging, [0.0, 0.0, 0.0], 0.2, 1e4, 10.0)
    out = _finish(lib, builder, plant, h, sampled, approx)
    plant.SetFreeBodyPose(out[3], welded, lib.RigidTransform([0.6, 0.0, 0.55]))
    plant.SetFreeBodyPose(out[3], hanging, lib.RigidTransform([0.5, 0.0, 0.25]))
    plant.SetFreeBodyPose(out[3], balled, lib.RigidTransform([0.75, 0.0, 0.45]))
    return out


def _pydrake():
    require_pydrake()
    return importlib.import_module("pydrake.all")


def _coeffs(plant, ctx) -> np.ndarray:
    return np.array([F.get_coeffs() for F in plant.get_reaction_forces_output_port().Eval(ctx)])


def _run(lib, scene, mode, t):
    diagram, plant, root, ctx = scene(lib, *mode)
    sim = lib.Simulator(diagram, root)
    sim.AdvanceTo(t)
    return _coeffs(plant, ctx), plant, ctx


@pytest.mark.parametrize("scene", [pendulum, welded_box])
@pytest.mark.parametrize("mode", MODES, ids=lambda m: f"{m[2]}-{'sampled' if m[1] else 'unsampled'}")
def test_discrete_reaction_forces_match_pydrake(scene, mode):
    pd = _pydrake()
    for t in (0.05, 1.0):  # the first bounce; 1 s later (at rest, except kSap and kTamsi still rattle)
        Fd = _run(pd, scene, mode, t)[0]
        Fm = _run(ma, scene, mode, t)[0]
        np.testing.assert_allclose(Fm, Fd, rtol=0, atol=1e-6 * np.abs(Fd).max())
    if scene is pendulum and mode[2] in ("kLagged", "kSimilar"):  # at rest: the ground carries the weight
        assert np.linalg.norm(Fm[0, 3:]) < 1.0


@pytest.mark.parametrize("mode", [m for m in MODES if m[2] != "kTamsi"],
                         ids=lambda m: f"{m[2]}-{'sampled' if m[1] else 'unsampled'}")
def test_sap_constraint_forces_enter_reaction_forces_as_pydrake(mode):
    """Drake's SAP approximations step weld, ball and distance constraints as SapWeldConstraint, SapBallConstraint
    and SapDistanceConstraint (pipeline/drake_constraints.py), and their impulses act on the bodies in the
    reaction forces: the free bodies' floating joints transmit nothing, the hinge carries the whole load."""
    pd = _pydrake()
    for t in (0.05, 0.5):
        Fd, plant_d, ctx_d = _run(pd, constrained, mode, t)
        Fm, plant_m, ctx_m = _run(ma, constrained, mode, t)
        np.testing.assert_allclose(plant_m.GetPositions(ctx_m), plant_d.GetPositions(ctx_d), rtol=0, atol=1e-8)
        np.testing.assert_allclose(Fm, Fd, rtol=0, atol=1e-7 * np.abs(Fd).max())
    assert np.abs(Fm[1:]).max() < 1e-6 * np.abs(Fm[0]).max()  # the floating joints carry nothing


@pytest.mark.parametrize("sampled", [True, False])
def test_iiwa_reaction_forces_in_contact_match_pydrake(sampled):
    pd = _pydrake()
    mode = (qs.TIME_STEP, sampled, "kLagged")
    Fd, plant, ctx = _run(pd, iiwa_on_table, mode, 0.3)
    assert plant.get_contact_results_output_port().Eval(ctx).num_point_pair_contacts() == 3
    Fm = _run(ma, iiwa_on_table, mode, 0.3)[0]
    np.testing.assert_allclose(Fm, Fd, rtol=0, atol=1e-6 * np.abs(Fd).max())


@pytest.mark.parametrize("scene", [pendulum, welded_box])
def test_continuous_reaction_forces_match_pydrake(scene):
    pd = _pydrake()
    out = []
    for lib in (pd, ma):
        _, plant, _, ctx = scene(lib, 0.0, True, "")
        plant.SetVelocities(ctx, [0.3])
        out.append(_coeffs(plant, ctx))
    np.testing.assert_allclose(out[1], out[0], rtol=0, atol=1e-9 * np.abs(out[0]).max())


def test_sampled_reaction_forces_are_zero_before_the_first_step():
    _, plant, _, ctx = pendulum(ma, 1e-3, True, "kLagged")
    np.testing.assert_array_equal(_coeffs(plant, ctx), 0.0)
