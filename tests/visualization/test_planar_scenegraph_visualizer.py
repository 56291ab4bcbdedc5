"""PlanarSceneGraphVisualizer: headless matplotlib frames of a moving SceneGraph that change as it
moves, written as GIF / PNG frames (MP4 when ffmpeg exists), and clear errors."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from mallard.systems.analysis import Simulator
from mallard.visualization import ConnectPlanarSceneGraphVisualizer, PlanarSceneGraphVisualizer
from mallard.visualization import planar_scenegraph_visualizer as psv

T_VW_YZ = np.array([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])  # view the y-z plane


def red_rows(img: np.ndarray) -> np.ndarray:
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    return np.nonzero((r > 0.8) & (g < 0.2) & (b < 0.2))[0]


@pytest.fixture
def recorded(moving_scene):
    builder, scene_graph, _ = moving_scene()
    vis = ConnectPlanarSceneGraphVisualizer(builder, scene_graph, T_VW=T_VW_YZ, xlim=(-1.2, 1.2), ylim=(-0.8, 0.8),
                                            draw_period=0.125, figsize=(4, 3))
    simulator = Simulator(builder.Build())
    vis.start_recording()
    simulator.AdvanceTo(1.0)
    vis.stop_recording()
    return vis


def test_outlines_follow_the_poses(recorded):
    vis = recorded
    # t = 0 (initialization, then the periodic publish at 0, as pydrake records them), 0.125, ..., 1.0
    times = [frame.get_time() for frame in vis._recorded_contexts]
    assert times == [0.0] + [0.125 * k for k in range(9)]
    for k, t in enumerate(times):
        vis._draw_recorded_frame(k)
        box, ball = ([np.asarray(fill.get_xy()) for fill in fills] for fills in vis._body_fills.values())
        box, ball = box[0], ball[0]
        assert vis.ax.get_title() == f"t = {t:.1f}"
        z = 0.3 * np.sin(2 * np.pi * t)
        # the box (0.4 m cube at y = -0.6) projects to a 0.4 x 0.4 square centered at (-0.6, z)
        np.testing.assert_allclose(box.min(axis=0), [-0.8, z - 0.2], atol=1e-9)
        np.testing.assert_allclose(box.max(axis=0), [-0.4, z + 0.2], atol=1e-9)
        np.testing.assert_allclose(0.5 * (ball.min(axis=0) + ball.max(axis=0)), [0.6, z], atol=1e-9)
        assert ball.max(axis=0)[0] - ball.min(axis=0)[0] == pytest.approx(0.5, abs=0.02)


def test_png_frames_change_as_the_scene_moves(recorded, tmp_path):
    import matplotlib.image

    paths = recorded.SaveAnimation(str(tmp_path / "frames"))
    assert len(paths) == 10 and all(p.endswith(".png") for p in paths)
    imgs = [matplotlib.image.imread(p) for p in paths[1:]]  # one frame per 0.125 s from t = 0
    assert not np.array_equal(imgs[0], imgs[2])
    # the red box is higher on screen (smaller row) at t = 0.25 (z = +0.3) than at t = 0.75 (z = -0.3)
    up, down = red_rows(imgs[2]), red_rows(imgs[6])
    assert len(up) > 100 and len(down) > 100
    assert up.mean() < down.mean() - 30


def test_gif_has_one_changing_frame_per_recorded_frame(recorded, tmp_path):
    from PIL import Image

    out = tmp_path / "scene.gif"
    assert recorded.SaveAnimation(str(out)) == [str(out)]
    with Image.open(out) as gif:
        assert gif.n_frames in (9, 10)  # pillow may merge the two identical frames at t = 0
        gif.seek(2)
        a = np.asarray(gif.convert("RGB"))
        gif.seek(6)
        b = np.asarray(gif.convert("RGB"))
    assert not np.array_equal(a, b)


def test_mp4_uses_ffmpeg_or_falls_back_to_png_frames(recorded, tmp_path, monkeypatch):
    out = tmp_path / "scene.mp4"
    if shutil.which("ffmpeg"):
        assert recorded.SaveAnimation(str(out)) == [str(out)] and out.stat().st_size > 1000
    monkeypatch.setattr(psv.shutil, "which", lambda name: None)
    with pytest.warns(RuntimeWarning, match="ffmpeg is not installed"):
        paths = recorded.SaveAnimation(str(out))
    assert len(paths) == 10 and all("scene_frames" in p for p in paths)


def test_bad_input(recorded, moving_scene, tmp_path):
    with pytest.raises(ValueError, match="unsupported file type '.avi'"):
        recorded.SaveAnimation(str(tmp_path / "x.avi"))
    with pytest.raises(FileNotFoundError, match="folder does not exist"):
        recorded.SaveAnimation(str(tmp_path / "missing" / "x.gif"))
    _, scene_graph, _ = moving_scene()
    with pytest.raises(ValueError, match="T_VW must be a finite 3x4"):
        PlanarSceneGraphVisualizer(scene_graph, T_VW=np.eye(3))
    with pytest.raises(ValueError, match="draw_period"):
        PlanarSceneGraphVisualizer(scene_graph, draw_period=-1.0)
    with pytest.raises(TypeError, match="needs a SceneGraph"):
        PlanarSceneGraphVisualizer(None)
    fresh = PlanarSceneGraphVisualizer(scene_graph)
    with pytest.raises(RuntimeError, match="no frames recorded"):
        fresh.SaveAnimation(str(tmp_path / "x.gif"))

    class Torus(psv.Sphere.__mro__[1]):  # a Shape subclass the visualizer does not know
        pass

    with pytest.raises(ValueError, match="cannot draw a Torus"):
        psv.shape_points(Torus())
