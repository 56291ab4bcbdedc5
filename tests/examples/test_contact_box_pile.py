"""Example 6: boxes dropped into a bin on a discrete plant; contact forces read from the contact_results port."""
import runpy
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "contact_box_pile.py"


@pytest.fixture(scope="module")
def module():
    return runpy.run_path(str(EXAMPLE), run_name="contact_box_pile")


def test_resting_pile_carries_its_weight(module, tmp_path, models_dir):
    summary = module["run"](duration=1.5, out=tmp_path / "pile.png")
    # Every box and the bin's total support carry exactly their weights once the pile is still: the soft
    # (MuJoCo-style) contacts are static at rest, so the residual is the solver tolerance (~1e-5 relative).
    # 0.1 % leaves room for solver iterations while catching any missing/duplicated contact (≥ 10 % of a box).
    assert summary["total_weight"] == pytest.approx(5.0 * 9.81)
    assert summary["support_error"] < 1e-3
    assert max(summary["body_force_errors"]) < 1e-3
    # and the bodies have come to rest (all generalized velocities, rad/s and m/s)
    assert summary["max_final_speed"] < 1e-3
    # the stack crate / slab / brick sits at the sums of its half heights (within the 1 mm contact penetration)
    np.testing.assert_allclose(summary["final_heights"], [0.06, 0.14, 0.19, 0.05], atol=1e-3)
    # the drop produced an impact well above the static load, and many contacts (4 per flat face pair)
    assert summary["peak_support"] > 2 * summary["total_weight"]
    assert summary["num_contacts"] >= 12
    assert summary["plant_steps"] == 750 and summary["samples"] == 151
    png = (tmp_path / "pile.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(png) < 150_000


def test_force_system_sums_contacts_per_body(module):
    """The converter attributes −f to body A and +f to body B and counts the world's reaction separately."""
    from mallard.multibody.plant import ContactResults, PointPairContactInfo
    from mallard.systems.framework import DiagramBuilder, Value
    plant = module["add_box_pile"](DiagramBuilder())
    crate, slab = plant.GetBodyByName("crate"), plant.GetBodyByName("slab")
    system = module["VerticalContactForces"](plant, [crate, slab])
    results = ContactResults()
    world = plant.world_body().index()
    # ground pushes the crate up 30 N; the slab pushes the crate down 10 N (force on B = slab is +10 N up)
    results.AddContactInfo(PointPairContactInfo(world, crate.index(), [0, 0, 30.0], [0, 0, 0], 0.0, 0.0, None))
    results.AddContactInfo(PointPairContactInfo(crate.index(), slab.index(), [1.0, 0, 10.0], [0, 0, 0.1], 0.0, 0.0,
                                                None))
    context = system.CreateDefaultContext()
    system.get_input_port(0).FixValue(context, Value(results))
    np.testing.assert_allclose(system.get_output_port(0).Eval(context), [20.0, 10.0, 30.0])
