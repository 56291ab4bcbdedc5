"""The continuous plant's compiled RK3 (multibody/pipeline/lean_continuous.py) against the Simulator's Python loop: a
compliant hydroelastic box dropped on a rigid half space, and point contact (a tumbling box, a ball and a capsule on
the ground and on each other), take the same steps to the bit (state, step statistics, ideal next step), in one
AdvanceTo or several, and a step the Python loop must reject with an error is left to it."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.all as ma


def _box_drop(lean: bool):
    builder = ma.DiagramBuilder()
    plant, _ = ma.AddMultibodyPlantSceneGraph(builder, 0.0)
    body = plant.AddRigidBody("body", ma.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.3, 0.1))
    soft, rigid = ma.ProximityProperties(), ma.ProximityProperties()
    for p in (soft, rigid):
        ma.AddContactMaterial(dissipation=1.0, friction=ma.CoulombFriction(0.5, 0.5), properties=p)
    ma.AddCompliantHydroelasticProperties(0.02, 1e6, soft)
    ma.AddRigidHydroelasticProperties(rigid)
    plant.RegisterCollisionGeometry(body, ma.RigidTransform(), ma.Box(0.2, 0.3, 0.1), "body", soft)
    plant.RegisterCollisionGeometry(plant.world_body(), ma.RigidTransform(), ma.HalfSpace(), "ground", rigid)
    plant.Finalize()
    diagram = builder.Build()
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyMutableContextFromRoot(root)
    plant.SetFreeBodyPose(ctx, body, ma.RigidTransform(ma.RollPitchYaw(0.02, 0.01, 0.3), [0.0, 0.0, 0.06]))
    if not lean:
        plant._LeanIntegrate = lambda *args: 0  # the Simulator's Python loop
    return ma.Simulator(diagram, root), plant, ctx


def _point_scene(lean: bool):
    """A box (FCL's single point on the half space) and a ball (the narrow phase's deepest point) dropped on the
    ground, and a ball resting on the box."""
    builder = ma.DiagramBuilder()
    plant, _ = ma.AddMultibodyPlantSceneGraph(builder, 0.0)
    plant.set_contact_model(ma.ContactModel.kPoint)
    friction = ma.CoulombFriction(0.5, 0.5)
    shapes = [("box", ma.Box(0.2, 0.2, 0.2), [0.0, 0.0, 0.3]), ("ball", ma.Sphere(0.05), [0.5, 0.0, 0.2]),
              ("top", ma.Sphere(0.05), [0.0, 0.0, 0.45])]
    bodies = []
    for name, shape, _ in shapes:
        body = plant.AddRigidBody(name, ma.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
        plant.RegisterCollisionGeometry(body, ma.RigidTransform(), shape, name, friction)
        bodies.append(body)
    plant.RegisterCollisionGeometry(plant.world_body(), ma.RigidTransform(), ma.HalfSpace(), "ground", friction)
    plant.Finalize()
    diagram = builder.Build()
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyMutableContextFromRoot(root)
    for body, (_, _, p) in zip(bodies, shapes):
        plant.SetFreeBodyPose(ctx, body, ma.RigidTransform(p))
    if not lean:
        plant._LeanIntegrate = lambda *args: 0
    return ma.Simulator(diagram, root), plant, ctx


def _outcome(sim, plant, ctx):
    ig = sim.get_integrator()
    stats = [ig.get_num_steps_taken(), ig.get_num_derivative_evaluations(),
             ig.get_num_step_shrinkages_from_error_control(), ig.get_largest_step_size_taken(),
             ig.get_smallest_adapted_step_size_taken(), ig.get_actual_initial_step_size_taken(),
             ig.get_ideal_next_step_size(), sim.get_num_steps_taken(), ctx.get_time()]
    return np.array(plant.GetPositionsAndVelocities(ctx)), np.array(stats)


@pytest.mark.parametrize("stops", [(0.12,), (0.05, 0.051, 0.12)])
def test_compiled_rk3_takes_the_python_loops_steps(stops):
    runs = []
    for lean in (True, False):
        sim, plant, ctx = _box_drop(lean)
        for t in stops:
            sim.AdvanceTo(t)
        runs.append(_outcome(sim, plant, ctx))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert runs[0][1][1] > 300  # it did integrate through the impact
    assert abs(runs[0][0][6] - 0.05) < 2e-3  # resting on the ground (half height 0.05 m)


def test_compiled_point_contact_takes_the_python_loops_steps():
    runs = []
    for lean in (True, False):
        sim, plant, ctx = _point_scene(lean)
        sim.AdvanceTo(0.3)
        cr = plant.get_contact_results_output_port().Eval(ctx)
        runs.append(_outcome(sim, plant, ctx) + (cr.num_point_pair_contacts(),))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert runs[0][2] == runs[1][2] >= 3  # resting and colliding at the end


def test_a_step_below_the_minimum_is_left_to_the_python_loop():
    messages = []
    for lean in (True, False):
        sim, plant, ctx = _box_drop(lean)
        sim.get_mutable_integrator().set_requested_minimum_step_size(1e-3)
        with pytest.raises(RuntimeError, match="smaller than the minimum") as err:
            sim.AdvanceTo(0.1)
        messages.append((str(err.value), ctx.get_time()))
    assert messages[0] == messages[1]
