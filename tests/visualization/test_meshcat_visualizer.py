"""MeshcatVisualizer: drawing a SceneGraph's geometries with their colors, publishing poses,
recording them, and the recorded HTML rendered in headless Chromium (acceptance)."""
from __future__ import annotations

import numpy as np
import pytest
import umsgpack

from mallard.geometry import Rgba, Role
from mallard.geometry.meshcat import Meshcat, MeshcatParams
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams
from mallard.systems.analysis import Simulator
from mallard.visualization import AddDefaultVisualization


@pytest.fixture
def meshcat():
    m = Meshcat(MeshcatParams(port=0))
    yield m
    m.Close()


def commands(m: Meshcat) -> list[dict]:
    return [umsgpack.unpackb(b) for b in m._scene_messages()]


def red_mask(img: np.ndarray) -> np.ndarray:
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    return (r > 0.45) & (g < 0.25) & (b < 0.25)


def green_mask(img: np.ndarray) -> np.ndarray:
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    return (g > 0.45) & (r < 0.25) & (b < 0.25)


def test_visualizer_draws_colored_geometry_and_records_poses(meshcat, moving_scene):
    builder, scene_graph, _ = moving_scene()
    vis = MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat, MeshcatVisualizerParams(
        publish_period=0.05, prefix="illustration"))
    assert vis.get_name() == "meshcat_visualizer(illustration)"  # as pydrake names it
    diagram = builder.Build()
    simulator = Simulator(diagram)
    recording = vis.StartRecording()
    simulator.AdvanceTo(1.0)
    vis.StopRecording()

    objects = {c["path"]: c["object"] for c in commands(meshcat) if c["type"] == "set_object"}
    box = objects["/drake/illustration/red_box/red_box_geometry"]
    ball = objects["/drake/illustration/green_ball/green_ball_geometry"]
    assert box["geometries"][0]["type"] == "BoxGeometry" and box["materials"][0]["color"] == 0xff0000
    assert ball["geometries"][0]["type"] == "SphereGeometry" and ball["materials"][0]["color"] == 0x00ff00

    # one keyframe per publish (t = 0, 0.05, ..., 1.0), with the source's poses
    assert recording.frames_per_second() == pytest.approx(20.0)
    assert recording.num_frames() == 21
    for k in range(21):
        z = recording.get_key_frame(k, "/drake/illustration/red_box", "position")[2]
        assert z == pytest.approx(0.3 * np.sin(2 * np.pi * 0.05 * k), abs=1e-9)
    # the live scene holds the last pose
    live = [c for c in commands(meshcat) if c["type"] == "set_transform" and c["path"] == "/drake/illustration/green_ball"]
    assert live[-1]["matrix"][13:15] == pytest.approx([0.6, 0.3 * np.sin(2 * np.pi * 1.0)], abs=1e-9)

    vis.Delete()
    assert not meshcat.HasPath("illustration")


def test_proximity_role_and_default_color(meshcat, moving_scene):
    from mallard.geometry import Cylinder, GeometryInstance, ProximityProperties
    from mallard.multibody.math import RigidTransform

    builder, scene_graph, source = moving_scene()
    collision = GeometryInstance(RigidTransform([0.0, 0.0, 0.1]), Cylinder(0.1, 0.5), "collision_cylinder")
    collision.set_proximity_properties(ProximityProperties())
    scene_graph.RegisterGeometry(source.source_id, source.frames[0][0], collision)
    MeshcatVisualizer.AddToBuilder(builder, scene_graph.get_query_output_port(), meshcat,
                                   MeshcatVisualizerParams(role=Role.kProximity, default_color=Rgba(0, 0, 1, 0.5),
                                                           prefix="proximity"))
    Simulator(builder.Build()).Initialize()
    objects = {c["path"]: c["object"] for c in commands(meshcat) if c["type"] == "set_object"}
    # only the proximity geometry is drawn, in the default color, offset X_FG in its frame
    assert list(objects) == ["/drake/proximity/red_box/collision_cylinder"]
    material = objects["/drake/proximity/red_box/collision_cylinder"]["materials"][0]
    assert material["color"] == 0x0000ff and material["opacity"] == 0.5 and material["transparent"]
    offset = [c for c in commands(meshcat) if c["type"] == "set_transform"
              and c["path"] == "/drake/proximity/red_box/collision_cylinder"]
    assert offset[-1]["matrix"][12:15] == [0.0, 0.0, 0.1]


def test_visualizer_bad_input(meshcat, moving_scene):
    with pytest.raises(ValueError, match="publish_period must be finite and > 0"):
        MeshcatVisualizer(meshcat, MeshcatVisualizerParams(publish_period=0.0))
    with pytest.raises(ValueError, match="needs a Meshcat"):
        MeshcatVisualizer("meshcat")
    builder, _, _ = moving_scene()
    with pytest.raises(ValueError, match="pass a SceneGraph or its query output port"):
        MeshcatVisualizer.AddToBuilder(builder, 3, meshcat)
    from mallard.systems.framework import DiagramBuilder

    with pytest.raises(RuntimeError, match="must hold one MultibodyPlant"):
        AddDefaultVisualization(DiagramBuilder(), meshcat)


def test_recorded_html_renders_in_headless_chromium(meshcat, moving_scene, screenshot, tmp_path):
    """Acceptance: record a short animation to StaticHtml, open it in headless Chromium, and find
    the red box left of center and the green ball right of it."""
    builder, scene_graph, _ = moving_scene()
    vis = MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat, MeshcatVisualizerParams(publish_period=0.05))
    simulator = Simulator(builder.Build())
    vis.StartRecording()
    simulator.AdvanceTo(1.0)
    vis.StopRecording()
    vis.PublishRecording()
    html = tmp_path / "scene.html"
    html.write_text(meshcat.StaticHtml())

    img = screenshot(html)
    assert img.shape == (600, 800, 3)
    red, green = red_mask(img), green_mask(img)
    # the default camera looks along -x from (3, 0, 1): world +y is screen right
    assert red[150:450, 150:400].sum() > 800, "red box missing left of center"
    assert green[150:450, 400:650].sum() > 800, "green ball missing right of center"
    assert red[:, 400:].sum() < 50 and green[:, :400].sum() < 50
    # away from the objects there is only background
    assert red[:100].sum() + green[:100].sum() + red[500:].sum() + green[500:].sum() == 0


def test_live_viewer_in_headless_chromium(meshcat, moving_scene, screenshot):
    """The live server: a browser opening web_url() gets the scene over the websocket and draws it."""
    builder, scene_graph, _ = moving_scene()
    MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat)
    Simulator(builder.Build()).AdvanceTo(0.25)  # z = +0.3 m
    img = screenshot(meshcat.web_url())
    red, green = red_mask(img), green_mask(img)
    assert red[100:400, 150:400].sum() > 800 and green[100:400, 400:650].sum() > 800
    assert red[:, 400:].sum() < 50 and green[:, :400].sum() < 50


def test_shared_model_recording_renders_in_headless_chromium(meshcat, models_dir, screenshot, tmp_path):
    """Acceptance on a shared model: a passive Acrobot (URDF) simulated for 0.5 s, recorded, shown."""
    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.parsers import Parser
    from mallard.systems.framework import DiagramBuilder

    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 1e-3)
    Parser(plant).AddModels(str(models_dir / "drake_examples" / "Acrobot.urdf"))
    plant.Finalize()
    vis = MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat)
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    plant_context = plant.GetMyMutableContextFromRoot(context)
    plant.SetPositions(plant_context, np.array([0.5, 0.5]))
    plant.get_actuation_input_port().FixValue(plant_context, np.zeros(plant.num_actuators()))
    simulator = Simulator(diagram, context)
    recording = vis.StartRecording()
    simulator.AdvanceTo(0.5)
    vis.PublishRecording()
    assert recording.num_frames() == 33  # 64 Hz for 0.5 s
    paths = set(recording.paths())
    # pydrake's default prefix, "visualizer"
    assert {"/drake/visualizer/Acrobot/upper_link", "/drake/visualizer/Acrobot/lower_link"} <= paths
    # the links swing: the lower link's keyed pose changes
    first = recording.get_key_frame(0, "/drake/visualizer/Acrobot/lower_link", "position")
    last = recording.get_key_frame(32, "/drake/visualizer/Acrobot/lower_link", "position")
    assert np.linalg.norm(np.subtract(first, last)) > 1e-3

    html = tmp_path / "acrobot.html"
    html.write_text(meshcat.StaticHtml())
    img = screenshot(html)
    red = red_mask(img)  # the Acrobot's upper link is red, hanging from the origin (screen center)
    assert red[250:500, 300:500].sum() > 300, "the Acrobot's red upper link is not on screen"
    assert red[:200].sum() == 0 and red[:, :250].sum() == 0 and red[:, 550:].sum() == 0


def test_missing_mesh_file_names_geometry_and_path(meshcat, moving_scene, tmp_path):
    from mallard.geometry import GeometryInstance, IllustrationProperties, Mesh
    from mallard.multibody.math import RigidTransform

    obj = tmp_path / "tet.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    builder, scene_graph, source = moving_scene()
    geom = GeometryInstance(RigidTransform(), Mesh(str(obj)), "tet")
    geom.set_illustration_properties(IllustrationProperties())
    scene_graph.RegisterGeometry(source.source_id, source.frames[0][0], geom)
    MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat)
    simulator = Simulator(builder.Build())
    obj.unlink()
    with pytest.raises(FileNotFoundError, match=rf"geometry 'tet' on frame 'red_box'.*mesh file not found: {obj}"):
        simulator.Initialize()
