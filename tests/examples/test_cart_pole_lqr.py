"""Example 3: the cart-pole LQR follows a step in the cart reference and keeps the pole upright."""
import runpy
from pathlib import Path

import numpy as np
from oracles import require_pydrake

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "cart_pole_lqr.py"


def test_cart_reaches_new_reference_with_pole_upright(tmp_path, models_dir):
    module = runpy.run_path(str(EXAMPLE), run_name="cart_pole_lqr")
    summary = module["run"](duration=4.5, out=tmp_path / "c.png", step_time=0.5, cart_target=1.0)
    assert abs(summary["final_cart_error"]) < 5e-3     # m, 4 s after the step
    assert abs(summary["final_pole_error"]) < 1e-3     # rad
    assert np.max(np.abs(summary["final_rates"])) < 1e-2
    # The step really disturbed the pole (the cart first moves away to tip the pole toward the target).
    assert summary["min_pole_deviation"] < -0.05
    png = (tmp_path / "c.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(png) < 150_000


def test_cart_pole_lqr_gain_matches_pydrake(models_dir):
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    from pydrake.systems.controllers import LinearQuadraticRegulator as DrakeLqr

    module = runpy.run_path(str(EXAMPLE), run_name="cart_pole_lqr")
    plant = DrakePlant(0.0)
    DrakeParser(plant).AddModels(str(models_dir / "drake_examples" / "cart_pole.sdf"))
    plant.Finalize()
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, module["UPRIGHT"])
    plant.get_actuation_input_port().FixValue(context, [0.0])
    K_drake = -DrakeLqr(plant, context, module["Q"], module["R"],
                        input_port_index=int(plant.get_actuation_input_port().get_index())).D()

    from mallard.multibody.plant import MultibodyPlant
    from mallard.parsers import Parser
    ours = MultibodyPlant(0.0)
    Parser(ours).AddModels(str(models_dir / "drake_examples" / "cart_pole.sdf"))
    ours.Finalize()
    K, _ = module["upright_lqr_gain"](ours)
    np.testing.assert_allclose(K, K_drake, rtol=1e-6)
