"""The `mallard` command: `info` lists what a model puts in the plant, `view` serves it, `simulate` writes a
labelled plot; bad input exits with 2 and one line naming the problem; `python -m mallard` and the console script
declared in pyproject.toml reach the same `main`."""
from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import matplotlib.image
import numpy as np

from mallard.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_info_lists_bodies_joints_actuators_and_state_names(models_dir, capsys):
    iiwa = models_dir / "drake_models" / "iiwa_description" / "urdf" / "iiwa14_primitive_collision.urdf"
    assert main(["info", str(iiwa)]) == 0
    out = capsys.readouterr().out
    assert "plant: time step 0.001 s (default for URDF/SDFormat" in out
    assert "bodies (11):" in out and "  iiwa_link_1  (5.76 kg)" in out
    assert "  iiwa_joint_2: revolute, 1 q / 1 v, iiwa_link_1 -> iiwa_link_2  [-2.09..2.09]" in out
    assert "actuators (7):" in out and "  iiwa_motor_7 -> joint iiwa_joint_7, effort limit 40  [actuation[6]]" in out
    assert "sensors: none" in out and "state names (14 positions + 13 velocities):" in out
    assert "iiwa_joint_1_q" in out and "base_qw" in out and "iiwa_joint_7_w" in out

    assert main(["info", str(models_dir / "mujoco" / "model" / "humanoid.xml")]) == 0
    out = capsys.readouterr().out
    assert "plant: time step 0.005 s (the model's <option timestep>), MuJoCo's Euler integrator" in out
    assert "actuators (21):" in out and "  elbow_left -> joint elbow_left  [Humanoid_ctrl[20]]" in out
    force = models_dir / "mujoco" / "testdata" / "core_smooth" / "rne_post" / "connect" / "force_free.xml"
    assert main(["info", str(force)]) == 0
    assert "sensors (1):\n  force0: force, 3 values  [" in capsys.readouterr().out


def test_view_serves_the_model_once(models_dir, capsys):
    assert main(["view", str(models_dir / "drake_examples" / "Acrobot.urdf"), "--loop-once", "--port", "0"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"Acrobot.urdf is shown at http://[\w.]+:\d+\n", out)


def test_simulate_plots_named_panels_and_shows_progress(models_dir, tmp_path, capsys):
    plot = tmp_path / "humanoid.png"
    model = models_dir / "mujoco" / "model" / "humanoid.xml"
    assert main(["simulate", str(model), "--duration", "0.1", "--plot", str(plot)]) == 0
    out, err = capsys.readouterr()
    assert "simulating: 100%" in err and "× real time" in err  # the progress bar is on by default
    assert f"  plot: {plot}" in out and "replay" not in out
    image = matplotlib.image.imread(str(plot))
    assert image.shape[1] == 810 and np.std(image[..., :3]) > 0.05


def test_bad_input_exits_with_code_2(tmp_path, capsys):
    missing = tmp_path / "nope.urdf"
    assert main(["simulate", str(missing), "--html", str(tmp_path / "x.html")]) == 2
    assert f"mallard simulate: error: model file not found: {missing}" in capsys.readouterr().err
    mesh = tmp_path / "thing.obj"
    mesh.write_text("v 0 0 0\n")
    assert main(["info", str(mesh)]) == 2
    assert "unsupported extension '.obj'" in capsys.readouterr().err
    broken = tmp_path / "broken.urdf"
    broken.write_text("<robot name='r'><link name='a'></robot>")
    assert main(["view", str(broken), "--loop-once", "--port", "0"]) == 2
    assert "broken.urdf" in capsys.readouterr().err
    good = tmp_path / "one.urdf"
    good.write_text("<robot name='r'><link name='a'><inertial><mass value='1'/>"
                    "<inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link></robot>")
    assert main(["simulate", str(good), "--duration", "-1"]) == 2
    assert "duration must be a finite number of seconds >= 0" in capsys.readouterr().err
    assert main(["simulate", str(good), "--time-step", "-0.1"]) == 2
    assert "time step must be a finite number of seconds >= 0" in capsys.readouterr().err
    assert main(["simulate", str(good), "--plot", str(tmp_path / "no" / "dir.png")]) == 2
    assert "output folder does not exist" in capsys.readouterr().err


def test_module_and_console_script_reach_main(models_dir):
    model = str(models_dir / "drake_examples" / "Pendulum.urdf")
    proc = subprocess.run([sys.executable, "-m", "mallard", "info", model], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and "state names (1 positions + 1 velocities):" in proc.stdout, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "mallard.visualization.model_visualizer", model[:-5] + "_no.urdf"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "model file not found" in proc.stderr
    target = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]["mallard"]
    module, function = target.split(":")
    assert getattr(importlib.import_module(module), function) is main
    script = shutil.which("mallard", path=str(Path(sys.executable).parent))
    if script is not None:  # installed by `pip install -e .` after the entry point was declared
        proc = subprocess.run([script, "info", model], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and "Pendulum" in proc.stdout, proc.stderr
