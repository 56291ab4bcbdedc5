"""Example: a DC-motor plugin spinning an SDF-bowl turntable with a ball inside (both plugin kinds)."""
import runpy
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "plugins_dcmotor_bowl.py"


@pytest.fixture(scope="module")
def module():
    return runpy.run_path(str(EXAMPLE), run_name="plugins_dcmotor_bowl")


def test_motor_spins_the_bowl_and_heats_while_the_ball_stays_in(module, tmp_path):
    s = module["run"](duration=1.5, out=tmp_path / "p.png")
    assert s["steps"] == 750
    # the motor accelerates the turntable towards (never past) its no-load speed V / (K gear) = 8 rad/s
    assert 2.0 < s["final_spin_rate"] < s["no_load_speed"] == pytest.approx(8.0)
    # stall torque gear K V / R = 4 N m at t = 0, less as the back-EMF grows
    assert s["peak_torque"] == pytest.approx(4.0, rel=1e-9)
    # Joule heating: at most the stall power R (V/R)^2 = 32 W over C = 10 J/K for 1.5 s
    assert 0.5 < s["temperature_rise"] < 32.0 * 1.5 / 10.0
    # the ball rests on the SDF bowl's inner wall (never below its bottom) and is dragged around
    assert s["ball_min_height"] > 1.0 - 0.88 - 2e-3
    assert s["ball_final_radius"] < 0.6 and abs(s["ball_revolutions"]) > 0.1
    assert s["num_contacts"] > 0 and -s["final_contact_force"][2] > 5.0
    png = (tmp_path / "p.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(png) < 150_000
