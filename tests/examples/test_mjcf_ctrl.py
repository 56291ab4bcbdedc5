"""Example 7: MuJoCo's humanoid (root welded) driven through the plant's MJCF ctrl port by a Python PD."""
import runpy
from pathlib import Path

import numpy as np
import pytest
from oracles import require_mujoco

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "mjcf_ctrl.py"


@pytest.fixture(scope="module")
def module():
    return runpy.run_path(str(EXAMPLE), run_name="mjcf_ctrl")


def test_controlled_joints_reach_their_targets(module, tmp_path, models_dir):
    summary = module["run"](duration=3.0, out=tmp_path / "h.png", with_mujoco=False)
    assert len(summary["joints"]) == 21 and summary["steps"] == 600 and summary["samples"] == 601
    # OMEGA = 15 rad/s, ZETA = 1 per joint: within 0.02 rad after < 1.5 s and 5 mrad after 3 s (the slowest
    # coupled mode decays with a ~1 s time constant: 1.9 mrad observed)
    assert summary["settling_time"] < 1.5
    assert summary["max_final_error"] < 5e-3
    assert summary["saturated_fraction"] < 0.02  # ctrl stays inside ±1 almost always
    # the hamstring tendons stay inside [-0.3, 2], so their (unsimulated) limits never engage
    lo, hi = summary["hamstring_range"]
    assert -0.3 < lo and hi < 2.0
    assert "max_diff_vs_mujoco" not in summary
    png = (tmp_path / "h.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(png) < 150_000


def test_trajectory_matches_mujoco(module, tmp_path, models_dir):
    """Same model, same 5 ms explicit-Euler step and the same controller on both sides: only round-off can
    separate them (8.9e-16 rad observed over 2 s). 1e-9 rad leaves room for round-off growth and still catches
    any modelling or ordering difference, which shows up at 1e-5 rad within a step or two."""
    require_mujoco()
    summary = module["run"](duration=2.0, out=tmp_path / "h.png")
    assert summary["max_diff_vs_mujoco"] < 1e-9


def test_holding_torque_makes_the_target_an_equilibrium(module, models_dir):
    from mallard.systems.analysis import Simulator
    from mallard.systems.framework import DiagramBuilder
    builder = DiagramBuilder()
    plant = module["add_humanoid"](builder)
    port = plant.GetInputPort("Humanoid_ctrl")
    assert port.size() == 21
    joints, gears = module["motor_joints"]()
    assert gears.min() == 20.0 and gears.max() == 120.0
    targets = np.array([module["TARGETS"][n] for n in joints])
    kp, kd, u_hold = module["pd_gains"](plant, joints, gears, targets)
    assert np.all(kp > 0) and np.all(kd > 0) and np.all(np.abs(u_hold) < 1.0)
    simulator = Simulator(builder.Build())
    context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    q = plant.GetPositions(context).copy()
    for name, q_d in zip(joints, targets):
        q[plant.GetJointByName(name).position_start()] = q_d
    plant.SetPositions(context, q)
    port.FixValue(context, u_hold)
    simulator.AdvanceTo(0.1)  # 20 steps at the target with ctrl = u_hold: nothing moves
    assert np.max(np.abs(plant.GetVelocities(context))) < 1e-9
    port.FixValue(context, np.zeros(21))  # without it the pose sags
    simulator.AdvanceTo(0.2)
    assert np.max(np.abs(plant.GetVelocities(context))) > 1e-2


def test_controller_rejects_mismatched_gains(module, models_dir):
    from mallard.systems.framework import DiagramBuilder
    plant = module["add_humanoid"](DiagramBuilder())
    with pytest.raises(ValueError, match="21 targets and gains needed"):
        module["JointPdCtrl"](plant, list(module["TARGETS"]), np.zeros(21), (np.ones(21), np.ones(20), np.zeros(21)))
