"""Example: iiwa14 PD Monte Carlo with random initial postures and payload masses on a Dask LocalCluster."""
import runpy
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "iiwa_monte_carlo.py"


def test_cluster_run_matches_serial_and_error_grows_with_payload(tmp_path, models_dir, dask_client):
    module = runpy.run_path(str(EXAMPLE), run_name="iiwa_monte_carlo")
    on_cluster = module["run"](samples=6, duration=1.5, out=tmp_path / "mc.png", executor=dask_client)
    serial = module["run"](samples=6, duration=1.5, workers=1, out=tmp_path / "serial.png")
    np.testing.assert_array_equal(on_cluster["errors"], serial["errors"])   # bit for bit
    masses, errors = on_cluster["masses"], on_cluster["errors"]
    assert np.all((masses >= 0.0) & (masses <= 5.0)) and len(set(masses)) == 6
    # a PD without gravity compensation sags more under a heavier payload
    assert np.corrcoef(masses, errors)[0, 1] > 0.9
    png = (tmp_path / "mc.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
