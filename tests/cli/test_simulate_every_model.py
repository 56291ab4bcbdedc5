"""`mallard simulate` on every model in ../shared/models: URDF / SDFormat at the default 1 ms step, MJCF at the
model's own <option timestep> (MuJoCo's, read by the oracle) with no warning about the plant's time step; each run
writes an HTML replay that holds the scene and its animation. Files the parser rejects exit with 2 and a located
message. `python -m mallard.visualization.model_visualizer` runs the same way."""
from __future__ import annotations

import pytest
from meshcat_html import html_command_types
from oracles import require_mujoco

from mallard.cli import main, model_visualizer_main
from mallard.cli.model_scene import ModelScene
from mallard.multibody.plant import MultibodyPlant
from mallard.parsers import ParseError, Parser


def _models(models_dir, *patterns):
    return sorted(p for pattern in patterns for p in models_dir.rglob(pattern))


def _check_replay(html_path, model) -> None:
    types = html_command_types(html_path.read_text())
    assert types.count("set_object") >= 1 and types[-1] == "set_animation", model


def test_every_urdf_and_sdformat_model_simulates_at_the_default_step(models_dir, tmp_path, capsys):
    models = _models(models_dir, "*.urdf", "*.sdf")
    assert len(models) >= 20
    for model in models:
        html = tmp_path / f"{model.stem}.html"
        code = main(["simulate", str(model), "--duration", "0.05", "--html", str(html), "--no-progress"])
        out, err = capsys.readouterr()
        assert code == 0, f"{model}: {err}"
        assert f"simulated {model.name} for 0.05 s" in out and "time step 0.001 s (default for URDF/SDFormat" in out
        _check_replay(html, model)


def test_every_mjcf_model_simulates_at_its_own_timestep(models_dir, tmp_path, capsys):
    mujoco = require_mujoco()
    ran, rejected = 0, []
    for model in _models(models_dir, "*.xml"):
        html = tmp_path / f"{model.stem}.html"
        code = main(["simulate", str(model), "--duration", "0.01", "--html", str(html), "--no-progress"])
        out, err = capsys.readouterr()
        if code == 2:  # a file the parser rejects (package.xml): located at the same file and line as Parser's
            with pytest.raises(ParseError) as parse_error:
                Parser(MultibodyPlant(0.0)).AddModels(str(model))
            assert str(parse_error.value).split(" ", 1)[0] in err and err.count("\n") == 1
            rejected.append(model.name)
            continue
        assert code == 0, f"{model}: {err}"
        h = mujoco.MjModel.from_xml_path(str(model)).opt.timestep
        assert f"time step {h:g} s (the model's <option timestep>)" in out, (model, out)
        assert "differs from the MultibodyPlant time_step" not in err, (model, err)
        _check_replay(html, model)
        ran += 1
    assert ran >= 40 and rejected == ["package.xml"]  # the humanoid and the MuJoCo test models run


def test_mjcf_plant_is_built_with_the_model_timestep_and_integrator(models_dir):
    scene = ModelScene(str(models_dir / "mujoco" / "model" / "humanoid.xml"))
    assert scene.plant.time_step() == 0.005 and scene.step.source == "the model's <option timestep>"
    assert scene.step.integrator == "MuJoCo's Euler integrator"
    implicit = ModelScene(str(models_dir / "mujoco" / "testdata" / "actuation" / "damper.xml"))
    assert implicit.step.integrator == "MuJoCo's implicitfast integrator"
    assert implicit.plant.time_step() == 0.002
    override = ModelScene(str(models_dir / "mujoco" / "model" / "humanoid.xml"), time_step=0.001)
    assert override.plant.time_step() == 0.001 and override.step.source == "--time-step"
    urdf = ModelScene(str(models_dir / "drake_examples" / "Acrobot.urdf"), time_step=0.0)
    assert urdf.plant.time_step() == 0.0 and urdf.step.describe().startswith("continuous plant")


def test_model_visualizer_module_runs_the_same_simulation(models_dir, tmp_path, capsys):
    html, plot = tmp_path / "acrobot.html", tmp_path / "acrobot.png"
    code = model_visualizer_main([str(models_dir / "drake_examples" / "Acrobot.urdf"), "--simulate", "0.1",
                                  "--html", str(html), "--plot", str(plot), "--port", "0"])
    assert code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "simulated Acrobot.urdf for 0.1 s" in out and str(html) in out and str(plot) in out
    _check_replay(html, "Acrobot.urdf")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
