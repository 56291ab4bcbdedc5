"""ModelVisualizer: a shared model loads, simulates passively, records to HTML and plots (the command line that
runs every shared model is tested in tests/cli)."""
from __future__ import annotations

import base64
import re

import numpy as np
import pytest
import umsgpack

from mallard.visualization.model_visualizer import ModelVisualizer
from mallard.geometry.meshcat import Meshcat, MeshcatParams


def _html_command_types(html: str) -> list[str]:
    block = html.split("var commands = [", 1)[1].split("];", 1)[0]
    return [umsgpack.unpackb(base64.b64decode(s))["type"]
            for s in re.findall(r'"data:application/octet-binary;base64,([A-Za-z0-9+/=]+)"', block)]


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
        with pytest.raises(ValueError, match=r"Number of passed positions \(3\) does not match the number in the "
                                             r"model \(2\)"):
            viz2.Run(position=[0, 0, 0], wait=False)
    finally:
        meshcat.Close()
