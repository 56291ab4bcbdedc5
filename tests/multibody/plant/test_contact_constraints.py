"""Plant constraints without a MuJoCo counterpart, and the constraint bookkeeping: Drake's distance
constraint holds a pendulum bob at its length; frictionloss holds a hinge against a small torque;
MuJoCo-parameter storage and defaults; the unconstrained fast path stays in place without constraints."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.contact.mujoco_parameters import (GetConstraintMujocoParameters, GetJointMujocoParameters,
                                                       SetJointMujocoParameters)
from mallard.multibody.tree import RevoluteJoint, SpatialInertia
from mallard.systems.analysis import Simulator
from oracles import require_pydrake


def test_distance_constraint_keeps_the_bob_on_its_circle():
    plant = MultibodyPlant(0.002)
    bob = plant.AddRigidBody("bob", SpatialInertia.SolidSphereWithMass(1.0, 0.05))
    k = plant.AddDistanceConstraint(plant.world_body(), [0, 0, 1.0], bob, [0, 0, 0], 0.5)
    plant.SetDefaultFloatingBaseBodyPose(bob, RigidTransform([0.5, 0.0, 1.0]))
    plant.Finalize()
    assert GetConstraintMujocoParameters(plant, k)["solref"] == (0.02, 1.0)
    ctx = plant.CreateDefaultContext()
    sim = Simulator(plant, ctx)
    lengths = []
    for t in np.arange(1, 301) * 0.002:
        sim.AdvanceTo(t)
        p = plant.GetFreeBodyPose(ctx, bob).translation()
        lengths.append(np.linalg.norm(p - [0, 0, 1.0]))
    assert plant.GetFreeBodyPose(ctx, bob).translation()[2] < 0.9  # it swings down
    assert np.max(np.abs(np.array(lengths) - 0.5)) < 5e-3  # soft constraint: mm-level violation while swinging


def test_frictionloss_creeps_below_and_slips_above_its_threshold():
    """MuJoCo's dry friction is a soft constraint: below the threshold the joint does not accelerate but
    creeps at the constant speed where the row force tau = jar / R balances the torque, jar = b·v
    (R = (1 - dmin)/dmin · dof_invweight0, b = 2/(dmax·tc)); above it, it accelerates at (tau - f)/I."""
    I = 1.0 * (0.1 ** 2 + 0.1 ** 2) / 12

    def rates(torque):
        plant = MultibodyPlant(0.002)
        arm = plant.AddRigidBody("arm", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
        j = plant.AddJoint(RevoluteJoint("hinge", plant.world_frame(), arm.body_frame(), [0, 0, 1]))
        SetJointMujocoParameters(plant, j, frictionloss=0.5)
        assert GetJointMujocoParameters(plant, j)["frictionloss"] == 0.5
        plant.Finalize()
        ctx = plant.CreateDefaultContext()
        plant.get_applied_generalized_force_input_port().FixValue(ctx, [torque])
        sim = Simulator(plant, ctx)
        sim.AdvanceTo(0.25)
        r1 = j.get_angular_rate(ctx)
        sim.AdvanceTo(0.5)
        return r1, j.get_angular_rate(ctx)
    r1, r2 = rates(0.3)
    creep = 0.3 * (0.1 / 0.9) / I / (2 / (0.95 * 0.02))
    assert r1 == pytest.approx(creep, rel=1e-3) and r2 == pytest.approx(creep, rel=1e-3)
    r1, r2 = rates(0.8)
    assert (r2 - r1) / 0.25 == pytest.approx((0.8 - 0.5) / I, rel=1e-3)


def test_plain_plant_keeps_the_unconstrained_step():
    plant = MultibodyPlant(0.002)
    plant.AddRigidBody("ball", SpatialInertia.SolidSphereWithMass(1.0, 0.05))
    plant.Finalize()
    assert plant._discrete_solver is None
    assert plant.get_contact_results_output_port().Eval(plant.CreateDefaultContext()).num_point_pair_contacts() == 0


def _tamsi_errors(lib):
    """The messages a plant raises for constraints under TAMSI (pydrake's or mallard's `lib` namespace)."""
    plant_mod, tree = lib.multibody.plant, lib.multibody.tree
    kTamsi = plant_mod.DiscreteContactApproximation.kTamsi
    messages = []

    def plant_with_two_bodies(approximation=None):
        plant = plant_mod.MultibodyPlant(1e-3)
        if approximation is not None:
            plant.set_discrete_contact_approximation(approximation)
        bodies = [plant.AddRigidBody(n, tree.SpatialInertia.SolidSphereWithMass(1.0, 0.1)) for n in "ab"]
        joints = [plant.AddJoint(tree.RevoluteJoint(f"j{b.name()}", plant.world_frame(), b.body_frame(), [0, 0, 1]))
                  for b in bodies]
        return plant, bodies, joints

    plant, (a, b), (ja, jb) = plant_with_two_bodies(kTamsi)
    X = lib.math.RigidTransform()
    for add in (lambda: plant.AddCouplerConstraint(ja, jb, 2.0),
                lambda: plant.AddDistanceConstraint(a, [0, 0, 0], b, [0, 0, 0], 0.5),
                lambda: plant.AddBallConstraint(a, [0, 0, 0], b, [0, 0, 0]),
                lambda: plant.AddWeldConstraint(a, X, b, X)):
        with pytest.raises(RuntimeError) as e:
            add()
        messages.append(str(e.value))
    assert plant.num_constraints() == 0
    plant, (a, b), _ = plant_with_two_bodies()
    plant.AddBallConstraint(a, [0, 0, 0], b, [0, 0, 0])
    with pytest.raises(RuntimeError) as e:
        plant.set_discrete_contact_approximation(kTamsi)
    messages.append(str(e.value))
    assert plant.get_discrete_contact_approximation() == plant_mod.DiscreteContactApproximation.kLagged
    # A continuous plant's config ignores the discrete approximation, as in Drake.
    builder = lib.systems.framework.DiagramBuilder()
    continuous, _ = plant_mod.AddMultibodyPlant(
        plant_mod.MultibodyPlantConfig(time_step=0.0, discrete_contact_approximation="tamsi"), builder)
    assert continuous.time_step() == 0.0
    return messages


def test_tamsi_refuses_constraints_as_pydrake():
    """Drake's TAMSI solver supports no constraint: Add*Constraint on a kTamsi plant and switching a plant with
    constraints to kTamsi raise pydrake's errors (before, mallard silently solved them as MuJoCo rows)."""
    require_pydrake()
    import mallard
    import pydrake
    for lib in (mallard, pydrake):
        for mod in ("multibody.plant", "multibody.tree", "math", "systems.framework"):
            __import__(f"{lib.__name__}.{mod}")
    mine = _tamsi_errors(mallard)
    assert mine == _tamsi_errors(pydrake)
    assert "TAMSI does not support weld constraints" in mine[3]
