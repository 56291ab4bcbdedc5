"""Example 1: energy shaping swings Pendulum.urdf up within its torque limit and the LQR holds it upright."""
import runpy
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def test_pendulum_swings_up_and_balances(tmp_path, models_dir):
    module = runpy.run_path(str(REPO / "examples" / "pendulum_swingup_lqr.py"), run_name="pendulum_swingup_lqr")
    summary = module["run"](duration=6.0, out=tmp_path / "p.png")
    # Upright (θ = π modulo 2π) and at rest: the LQR basin is exponentially stable, so after > 3 s in it the
    # residual is far below the 1e-4 tolerance.
    assert abs(summary["final_angle_error"]) < 1e-4
    assert abs(summary["final_rate"]) < 1e-4
    # The controller had to pump (|τ| <= TAU_MAX < m g l) before the LQR caught the arm.
    assert module["TAU_MAX"] < 4.9
    assert 0.5 < summary["lqr_engaged_at"] < 5.0
    assert summary["max_abs_tau"] <= module["TAU_MAX"] + 1e-12
    png = (tmp_path / "p.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(png) < 150_000


def test_upright_lqr_gain_matches_closed_form(models_dir):
    """K from the linearized plant equals the point-mass pendulum's LQR: I = m l², mgl, damping b."""
    import scipy.linalg
    module = runpy.run_path(str(REPO / "examples" / "pendulum_swingup_lqr.py"), run_name="pendulum_swingup_lqr")
    from mallard.multibody.plant import MultibodyPlant
    from mallard.parsers import Parser
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(str(models_dir / "drake_examples" / "Pendulum.urdf"))
    plant.Finalize()
    K, S = module["upright_lqr"](plant)
    m, l, b, g = 1.0, 0.5, 0.1, 9.81  # Pendulum.urdf: two 0.5 kg point masses 0.5 m below the pin
    inertia = m * l * l
    A = np.array([[0.0, 1.0], [m * g * l / inertia, -b / inertia]])
    B = np.array([[0.0], [1.0 / inertia]])
    Q, R = np.diag([10.0, 1.0]), np.array([[1.0]])
    S_ref = scipy.linalg.solve_continuous_are(A, B, Q, R)
    np.testing.assert_allclose(K, B.T @ S_ref, rtol=1e-5)
    np.testing.assert_allclose(S, S_ref, rtol=1e-5)


def test_missing_models_folder_is_a_clear_error(monkeypatch):
    module = runpy.run_path(str(REPO / "examples" / "pendulum_swingup_lqr.py"), run_name="pendulum_swingup_lqr")
    monkeypatch.setitem(module["models_dir"].__globals__, "__file__", "/nonexistent/a/b/examples/x.py")
    with pytest.raises(FileNotFoundError, match="shared robot models were not found at /nonexistent"):
        module["models_dir"]()
