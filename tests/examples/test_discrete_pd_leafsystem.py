"""Example 5: a Python LeafSystem PD (gravity compensated) through a 200 Hz ZeroOrderHold on a discrete plant."""
import runpy
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "discrete_pd_leafsystem.py"


def test_arm_settles_at_target(tmp_path, models_dir):
    module = runpy.run_path(str(EXAMPLE), run_name="discrete_pd_leafsystem")
    summary = module["run"](duration=2.5, out=tmp_path / "d.png")
    # Exact gravity compensation makes the target an equilibrium of the sampled loop, so the PD settles on it.
    assert summary["final_position_error"] < 1e-3
    assert summary["final_rate"] < 1e-2
    assert 0.2 < summary["settling_time"] < 2.0
    assert summary["plant_steps"] == 2500
    png = (tmp_path / "d.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(png) < 150_000


def test_plant_is_discrete_and_controller_is_held_at_200_hz(models_dir):
    module = runpy.run_path(str(EXAMPLE), run_name="discrete_pd_leafsystem")
    from mallard.systems.framework import DiagramBuilder
    plant = module["add_two_link_arm"](DiagramBuilder())
    assert plant.time_step() == module["PLANT_TIME_STEP"] > 0.0
    assert plant.num_actuators() == 2 and plant.num_velocities() == 2
    assert module["CONTROL_PERIOD"] == pytest.approx(0.005)


def test_pd_rejects_wrong_gain_sizes(models_dir):
    module = runpy.run_path(str(EXAMPLE), run_name="discrete_pd_leafsystem")
    from mallard.systems.framework import DiagramBuilder
    plant = module["add_two_link_arm"](DiagramBuilder())
    with pytest.raises(ValueError, match="kp must have 2 entries"):
        module["GravityCompensatedPD"](plant, kp=[1.0, 2.0, 3.0], kd=[1.0, 1.0])
