"""The README's main example runs, reaches its control objective and writes its plot."""
import runpy
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]


def test_quickstart_holds_pendulum_upright(tmp_path):
    module = runpy.run_path(str(REPO / "examples" / "quickstart.py"), run_name="quickstart")
    summary = module["run"](duration=3.0, out=tmp_path / "q.png")
    assert abs(summary["final_angle_error"]) < 1e-6 and abs(summary["final_rate"]) < 1e-6
    assert summary["samples"] == summary["steps"] + 1
    png = (tmp_path / "q.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
