"""The model runner: every shared URDF/SDFormat model loads, shows, simulates passively, records
to HTML and plots; MJCF models run when the parser loads them; bad input exits with code 2."""
from __future__ import annotations

import base64
import re
import subprocess
import sys

import numpy as np
import pytest
import umsgpack

from mallard.parsers import ParseError, Parser
from mallard.visualization.model_visualizer import ModelVisualizer, main
from mallard.geometry.meshcat import Meshcat, MeshcatParams

SHARED_FORMATS = ("*.urdf", "*.sdf")


def _models(models_dir, patterns):
    return sorted(p for pattern in patterns for p in models_dir.rglob(pattern))


def _html_command_types(html: str) -> list[str]:
    block = html.split("var commands = [", 1)[1].split("];", 1)[0]
    return [umsgpack.unpackb(base64.b64decode(s))["type"] for s in re.findall(r'"([A-Za-z0-9+/=]+)"', block)]


def test_every_shared_urdf_and_sdf_model_runs(models_dir, tmp_path, capsys):
    models = _models(models_dir, SHARED_FORMATS)
    assert len(models) >= 20
    for model in models:
        html = tmp_path / f"{model.stem}.html"
        code = main([str(model), "--simulate", "0.05", "--html", str(html), "--port", "0"])
        assert code == 0, f"{model}: {capsys.readouterr().err}"
        types = _html_command_types(html.read_text())
        assert types.count("set_object") >= 1 and types[-1] == "set_animation", model


def test_simulate_record_and_plot(models_dir, tmp_path):
    meshcat = Meshcat(MeshcatParams(port=0))
    try:
        viz = ModelVisualizer(meshcat, time_step=1e-3)
        viz.AddModels(str(models_dir / "drake_examples" / "Acrobot.urdf"))
        out = viz.Run(simulate=0.25, html=str(tmp_path / "a.html"), plot=str(tmp_path / "a.png"), position=[1.0, 0.0])
    finally:
        meshcat.Close()
    t, x = out["times"], out["data"]
    assert t[0] == 0.0 and t[-1] == pytest.approx(0.25, abs=1e-9) and x.shape == (4, len(t))
    assert x[0, 0] == 1.0 and abs(x[0, -1] - 1.0) > 0.05  # the released Acrobot falls
    import matplotlib.image

    img = matplotlib.image.imread(str(tmp_path / "a.png"))
    assert img.shape[0] > 300 and np.std(img[..., :3]) > 0.05
    assert "set_animation" in _html_command_types((tmp_path / "a.html").read_text())
    meshcat = Meshcat(MeshcatParams(port=0))
    try:
        viz2 = ModelVisualizer(meshcat)
        viz2.AddModels(str(models_dir / "drake_examples" / "Acrobot.urdf"))
        with pytest.raises(ValueError, match="position has 3 values; the plant has 2"):
            viz2.Run(position=[0, 0, 0], wait=False)
    finally:
        meshcat.Close()


def test_every_mjcf_model_the_parser_loads_runs(models_dir, tmp_path, capsys):
    from mallard.multibody.plant import MultibodyPlant

    ran = 0
    for model in _models(models_dir, ("*.xml",)):
        try:
            Parser(MultibodyPlant(0.002)).AddModels(str(model))
        except ParseError:
            continue  # files the parser rejects give a located ParseError (tests/parsers/mjcf)
        html = tmp_path / f"{model.stem}.html"
        code = main([str(model), "--simulate", "0.01", "--html", str(html), "--port", "0"])
        assert code == 0, f"{model}: {capsys.readouterr().err}"
        ran += 1
    assert ran >= 40  # the humanoid and the MuJoCo test models


def test_bad_input_exits_with_code_2(tmp_path, capsys):
    missing = tmp_path / "nope.urdf"
    assert main([str(missing), "--html", str(tmp_path / "x.html")]) == 2
    assert f"model file not found: {missing}" in capsys.readouterr().err
    mesh = tmp_path / "thing.obj"
    mesh.write_text("v 0 0 0\n")
    assert main([str(mesh)]) == 2
    assert "unsupported extension '.obj'" in capsys.readouterr().err
    broken = tmp_path / "broken.urdf"
    broken.write_text("<robot name='r'><link name='a'></robot>")
    assert main([str(broken), "--html", str(tmp_path / "x.html"), "--port", "0"]) == 2
    assert "broken.urdf" in capsys.readouterr().err
    assert main([str(missing).replace(".urdf", ".sdf"), "--simulate", "-1"]) == 2
    # the real command line returns the code to the shell
    proc = subprocess.run([sys.executable, "-m", "mallard.visualization.model_visualizer", str(missing)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "model file not found" in proc.stderr
