"""Fixtures for the visualization tests: a headless Chromium screenshotter and a small moving scene
(a SceneGraph whose frames a LeafSystem moves)."""
from __future__ import annotations

import gc

import numpy as np
import pytest

from mallard.geometry import (Box, FramePoseVector, GeometryFrame, GeometryInstance, MakePhongIllustrationProperties,
                              SceneGraph, Sphere)
from mallard.multibody.math import RigidTransform
from mallard.systems.framework import DiagramBuilder, LeafSystem, Value
from mallard.visualization.html_screenshot import FindBrowser, ScreenshotHtml


@pytest.fixture(autouse=True, scope="session")
def freeze_earlier_objects():
    """Moves every object alive before the first visualization test out of the collector's reach (gc.freeze), so
    the per-test collection below scans only what these tests make: after the rest of the suite the heap holds
    millions of objects (compiled kernels' type data) and a full collection takes seconds."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def collect_pydrake_garbage_on_main_thread(freeze_earlier_objects):
    """After each test, collect cyclic garbage here, on the main thread: pydrake's Meshcat (the oracle) aborts the
    process when a reference cycle holding it is collected by a garbage collection that happens to run on another
    thread (mallard's Meshcat server thread, for instance)."""
    yield
    gc.collect()


@pytest.fixture(scope="session")
def browser() -> str:
    """The path of a Chromium/Chrome binary; skips when none is installed."""
    path = FindBrowser()
    if path is None:
        pytest.skip("no headless browser: install Debian's chromium (apt-get install -y chromium chromium-driver)")
    return path


@pytest.fixture
def screenshot(browser, tmp_path):
    """screenshot(html_file_or_url) -> RGB image (600, 800, 3) floats in [0, 1] of the page in headless
    Chromium (a live http:// page gets 3 s of virtual time to connect and draw)."""
    import matplotlib.image

    def take(html_file) -> np.ndarray:
        target = str(html_file)
        png = ScreenshotHtml(target, tmp_path / "screenshot.png", browser=browser,
                             virtual_time_ms=3000 if target.startswith("http") else None)
        return np.asarray(matplotlib.image.imread(png)[:, :, :3], dtype=float)

    return take


class PoseSource(LeafSystem):
    """Registers a red box (left, y = -0.6 m) and a green sphere (right, y = +0.6 m) and bobs them
    up and down: z = 0.3 sin(2 pi t) m."""

    def __init__(self, scene_graph: SceneGraph):
        super().__init__()
        self.source_id = scene_graph.RegisterSource("mover")
        self.frames = []
        for name, shape, color, y in (("red_box", Box(0.4, 0.4, 0.4), (1.0, 0.0, 0.0, 1.0), -0.6),
                                      ("green_ball", Sphere(0.25), (0.0, 1.0, 0.0, 1.0), 0.6)):
            frame = scene_graph.RegisterFrame(self.source_id, GeometryFrame(name))
            geom = GeometryInstance(RigidTransform(), shape, name + "_geometry")
            geom.set_illustration_properties(MakePhongIllustrationProperties(color))
            scene_graph.RegisterGeometry(self.source_id, frame, geom)
            self.frames.append((frame, y))
        self.DeclareAbstractOutputPort("geometry_pose", lambda: Value(FramePoseVector()), self._calc)

    def _calc(self, context, value) -> None:
        poses = value.get_mutable_value()
        z = 0.3 * np.sin(2 * np.pi * context.get_time())
        for frame, y in self.frames:
            poses.set_value(frame, RigidTransform(np.array([0.0, y, z])))


@pytest.fixture
def moving_scene():
    """make() -> (builder, scene_graph, source): a SceneGraph fed by a PoseSource, not yet built."""

    def make():
        builder = DiagramBuilder()
        scene_graph = builder.AddSystem(SceneGraph())
        source = builder.AddSystem(PoseSource(scene_graph))
        builder.Connect(source.get_output_port(0), scene_graph.get_source_pose_port(source.source_id))
        return builder, scene_graph, source

    return make
