"""An iiwa pushing a box (issue #16's oracle scene) on pydrake and mallard: the quick start's scene (iiwa14 with
sphere collision, a table, a 0.5 kg box on four corner spheres, kLagged at 2 ms) under a gravity-compensated PD
written as a Python LeafSystem on each engine.

The push is chaotic: in pydrake itself, moving the box's start by 1e-12 m moves its final position by about 1 cm.
So the two engines must agree to round-off until the wrist meets the box, and mallard's final box position must lie
within pydrake's own spread over such perturbations.
"""
from __future__ import annotations

import importlib

import numpy as np
from oracles import require_pydrake

import mallard.all as ma
from drake_scenes import iiwa_push_scene

CONTACT_ONSET = 1.56  # s: the wrist first touches the box


def _contacts(plant, ctx) -> np.ndarray:
    """The contact_results port's point contacts (sampled: the last step's) as one row of numbers."""
    cr = plant.get_contact_results_output_port().Eval(ctx)
    row = [cr.num_point_pair_contacts()]
    for i in range(cr.num_point_pair_contacts()):
        info = cr.point_pair_contact_info(i)
        row += [int(info.bodyA_index()), int(info.bodyB_index()), *info.contact_force(), *info.contact_point(),
                info.separation_speed(), info.slip_speed(), info.point_pair().depth]
    return np.array(row, float)


def _push(lib, times, dx: float = 0.0, contacts: list | None = None) -> np.ndarray:
    """Rows [box q (7), arm q (7)] at `times` (s); the box starts `dx` m further along x. `contacts`: gets the
    contact_results rows at `times`."""
    diagram, plant, init, box = iiwa_push_scene(lib, dx)
    simulator = lib.Simulator(diagram)
    init(simulator.get_mutable_context())
    ctx = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    iiwa = plant.GetModelInstanceByName("iiwa14")
    rows = []
    for t in times:
        simulator.AdvanceTo(t)
        rows.append(np.concatenate([plant.GetPositions(ctx, box.model_instance()), plant.GetPositions(ctx, iiwa)]))
        if contacts is not None:
            contacts.append(_contacts(plant, ctx))
    return np.array(rows)


def test_iiwa_pushes_a_box_as_pydrake():
    """Round-off agreement up to the first touch (the box settling on its corners, the contact results of the last
    step); the final box position within pydrake's own spread."""
    require_pydrake()
    pd = importlib.import_module("pydrake.all")
    times = [0.004, CONTACT_ONSET, 3.5]
    cd, cm = [], []
    theirs, mine = _push(pd, times, contacts=cd), _push(ma, times, contacts=cm)
    for k in range(2):  # the four corners on the table: forces, points, speeds and depths of the last step
        assert cm[k][0] == cd[k][0] == 4 and cm[k].shape == cd[k].shape
        # (the corners sink ~3e-6 m: a 1e-12 m round-off in the state moves their forces by ~3e-7 of themselves)
        np.testing.assert_allclose(cm[k], cd[k], rtol=2e-6, atol=1e-9)
    theirs, mine = theirs[1:], mine[1:]
    np.testing.assert_allclose(mine[0], theirs[0], atol=1e-9)  # before the push: same arm motion, box at rest
    assert np.linalg.norm(mine[1, 4:6] - mine[0, 4:6]) > 0.3  # the wrist pushed the box some 35 cm
    spread = max(np.abs(_push(pd, times, dx)[2, 4:7] - theirs[1, 4:7]).max() for dx in (1e-12, -1e-12, 1e-10))
    assert spread > 1e-4  # the push is chaotic in pydrake too, so an exact match cannot be asked
    assert np.abs(mine[1, 4:7] - theirs[1, 4:7]).max() < 2.0 * spread
    np.testing.assert_allclose(mine[1, 7:], theirs[1, 7:], atol=5e-3)  # the arm ends where its PD holds it
