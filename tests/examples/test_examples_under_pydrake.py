"""Each gallery example is pydrake code: with its imports mapped back to pydrake (DESIGN.md module map) it runs
under drake 1.51.1 and reaches the same numbers as under mallard.

Only `plot_vector_log` (mallard.systems.drawing, plain matplotlib over a VectorLog) stays a mallard import.
"""
import re
import runpy
from pathlib import Path

import numpy as np
import pytest
from oracles import require_pydrake

REPO = Path(__file__).resolve().parents[2]
MODULE_MAP = [("mallard.systems.trajectories", "pydrake.trajectories"),
              ("mallard.parsers", "pydrake.multibody.parsing"),
              ("mallard.multibody.plant", "pydrake.multibody.plant"),
              ("mallard.systems.analysis", "pydrake.systems.analysis"),
              ("mallard.systems.controllers", "pydrake.systems.controllers"),
              ("mallard.systems.framework", "pydrake.systems.framework"),
              ("mallard.systems.primitives", "pydrake.systems.primitives")]
CASES = {
    "pendulum_swingup_lqr": dict(kwargs=dict(duration=5.0), exact=["K"], close={"lqr_engaged_at": 0.02},
                                 small=["final_angle_error", "final_rate"]),
    "acrobot_lqr": dict(kwargs=dict(duration=2.0), exact=["K"], close={"final_angle_error": 1e-6, "max_abs_tau": 1e-4}),
    "cart_pole_lqr": dict(kwargs=dict(duration=3.0, step_time=0.5), exact=["K"],
                          close={"final_cart_error": 1e-5, "min_pole_deviation": 1e-5, "max_abs_force": 1e-2}),
    "iiwa_inverse_dynamics": dict(kwargs=dict(duration=2.0), exact=["lag_bound"],
                                  close={"max_error_no_feed_forward": 1e-5, "max_abs_torque": 1e-3},
                                  small=["max_error_feed_forward"]),
    "discrete_pd_leafsystem": dict(kwargs=dict(duration=1.0), exact=[],
                                   close={"final_position_error": 1e-6, "max_abs_actuation": 1e-6}),
}


def as_pydrake_script(source: str) -> str:
    for ours, theirs in MODULE_MAP:
        source = re.sub(rf"^from {re.escape(ours)} import", f"from {theirs} import", source, flags=re.M)
    assert not re.search(r"^from mallard\.(?!systems\.drawing)", source, flags=re.M), "unmapped mallard import"
    return source


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_matches_pydrake(name, tmp_path, models_dir):
    require_pydrake()
    case = CASES[name]
    example = REPO / "examples" / f"{name}.py"
    # The copy must find shared/models as the original does: <examples>/../../shared/models.
    (tmp_path / "shared").symlink_to(models_dir.parent, target_is_directory=True)
    script = tmp_path / "repo" / "examples" / example.name
    script.parent.mkdir(parents=True)
    script.write_text(as_pydrake_script(example.read_text()))

    ours = runpy.run_path(str(example), run_name=name)["run"](out=tmp_path / "ours.png", **case["kwargs"])
    theirs = runpy.run_path(str(script), run_name=name)["run"](out=tmp_path / "drake.png", **case["kwargs"])
    for key in case["exact"]:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-6, err_msg=key)
    for key, atol in case["close"].items():
        np.testing.assert_allclose(ours[key], theirs[key], atol=atol, err_msg=key)
    for key in case.get("small", []):
        assert abs(ours[key]) < 1e-3 and abs(theirs[key]) < 1e-3, key
