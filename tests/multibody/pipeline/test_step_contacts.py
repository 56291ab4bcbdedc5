"""The discrete plant's sampled output ports as Drake 1.51's (pipeline/step_contacts.py): with sampled output ports
(the default) contact_results holds the contacts and forces of the last step and the body accelerations its v̇ at
the kinematics it started from — empty (zero) before the first step, unchanged by SetPositions, kept by Clone and
SetDefaultContext, refreshed by ExecuteForcedEvents — while EvalBodySpatialAccelerationInWorld and the center of
mass's acceleration stay live; with use_sampled_output_ports=False, the step that starts at the current state. The
same script on pydrake and mallard, values to round-off, in a transient (a tilted box landing while sliding).
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from oracles import require_pydrake

import mallard.all as ma


def _box(lib, sampled: bool, approx: str):
    """A 2 kg, 0.2 m box on a half space (1 ms steps), tilted, 1 mm into the ground, sliding at 0.3 m/s."""
    builder = lib.DiagramBuilder()
    config = lib.MultibodyPlantConfig(time_step=1e-3, discrete_contact_approximation=approx,
                                      use_sampled_output_ports=sampled)
    plant, _ = lib.AddMultibodyPlant(config, builder)
    box = plant.AddRigidBody("box", lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(0.2, 0.2, 0.2), "box",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    simulator = lib.Simulator(builder.Build())
    root = simulator.get_mutable_context()
    ctx = plant.GetMyMutableContextFromRoot(root)
    tilt = lib.RollPitchYaw(0.3, 0.2, 0.1)
    corner = max(-(tilt.ToRotationMatrix().matrix() @ np.array([sx, sy, sz]))[2] * 0.1
                 for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1))
    plant.SetFreeBodyPose(ctx, box, lib.RigidTransform(tilt, [0.0, 0.0, corner - 1e-3]))
    plant.SetFreeBodySpatialVelocity(ctx, box, lib.SpatialVelocity([0.5, 0.0, 0.2], [0.3, 0.0, -0.1]))
    return plant, simulator, ctx


def _row(plant, ctx) -> list:
    """Every field of the contact_results port's point contacts, with v̇, the box's spatial acceleration and the
    generalized contact forces."""
    cr = plant.get_contact_results_output_port().Eval(ctx)
    row = [cr.num_point_pair_contacts(), cr.num_hydroelastic_contacts()]
    for i in range(cr.num_point_pair_contacts()):
        info = cr.point_pair_contact_info(i)
        pair = info.point_pair()
        row += [int(info.bodyA_index()), int(info.bodyB_index()), *info.contact_force(), *info.contact_point(),
                info.separation_speed(), info.slip_speed(), pair.depth, *pair.nhat_BA_W, *pair.p_WCa, *pair.p_WCb]
    row += list(plant.get_generalized_acceleration_output_port().Eval(ctx))
    A = plant.get_body_spatial_accelerations_output_port().Eval(ctx)[1]  # the box's A_WB
    row += [*A.rotational(), *A.translational()]
    instance = plant.GetModelInstanceByName("DefaultModelInstance")
    row += list(plant.get_generalized_contact_forces_output_port(instance).Eval(ctx))
    A = plant.EvalBodySpatialAccelerationInWorld(ctx, plant.GetBodyByName("box"))  # always live (the last 9)
    row += [*A.rotational(), *A.translational(), *plant.CalcCenterOfMassTranslationalAccelerationInWorld(ctx)]
    return row


def _script(lib, sampled: bool, approx: str) -> list:
    """The port's rows through: the start, Initialize, one and three steps, SetPositions, a clone,
    ExecuteForcedEvents and SetDefaultContext."""
    plant, simulator, ctx = _box(lib, sampled, approx)
    rows = [_row(plant, ctx)]
    simulator.Initialize()
    rows.append(_row(plant, ctx))
    for t in (0.001, 0.003):
        simulator.AdvanceTo(t)
        rows.append(_row(plant, ctx))
    q = plant.GetPositions(ctx)
    q[6] -= 2e-4
    plant.SetPositions(ctx, q)
    rows.append(_row(plant, ctx))
    clone = simulator.get_context().Clone()
    rows.append(_row(plant, plant.GetMyContextFromRoot(clone)))
    plant.ExecuteForcedEvents(ctx)
    rows.append(_row(plant, ctx))
    simulator.get_system().SetDefaultContext(simulator.get_mutable_context())
    rows.append(_row(plant, ctx))
    return rows


@pytest.mark.parametrize("approx", ["lagged", "sap", "tamsi"])
@pytest.mark.parametrize("sampled", [True, False])
def test_contact_results_sampling_as_pydrake(approx, sampled):
    require_pydrake()
    import pydrake.all as pda
    theirs, mine = _script(pda, sampled, approx), _script(ma, sampled, approx)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        assert len(a) == len(b) and a[:2] == b[:2], f"row {k}: {a[:2]} contacts, pydrake {b[:2]}"
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, err_msg=f"row {k}")
    if sampled:
        assert theirs[0][0] == 0 and theirs[2][0] > 0  # nothing before the first step, its contacts after it
        assert theirs[4][:-9] == theirs[3][:-9]        # SetPositions leaves the last step's results,
        assert theirs[4][-9:] != theirs[3][-9:]        # but not the live accelerations


def test_sampled_contacts_survive_copies_and_later_steps():
    """A clone, a pickled context and a deep copy keep the step's contacts after the original steps on."""
    plant, simulator, ctx = _box(ma, True, "lagged")
    simulator.AdvanceTo(0.002)
    before = _row(plant, ctx)
    root = simulator.get_context()
    copies = [root.Clone(), pickle.loads(pickle.dumps(root)), copy.deepcopy(root)]
    simulator.AdvanceTo(0.004)
    assert _row(plant, ctx) != before
    for other in copies:
        assert _row(plant, plant.GetMyContextFromRoot(other)) == before
