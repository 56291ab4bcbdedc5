"""ContactVisualizer: a box resting on the ground gets one arrow per contact point (MuJoCo-style box-plane
contact gives the four bottom corners), arrow length = |f| / newtons_per_meter, arrows hide when contact ends,
bad parameters are rejected, and the recorded arrows render green in headless Chromium."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry import (AddMujocoContactParameters, Box, CoulombFriction, HalfSpace, ProximityProperties)
from mallard.geometry.meshcat import Meshcat, MeshcatParams
from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.tree import SpatialInertia
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder
from mallard.visualization import ContactVisualizer, ContactVisualizerParams

G = 9.81
HALF = 0.1  # m: half edge of the box


@pytest.fixture
def meshcat():
    m = Meshcat(MeshcatParams(port=0))
    yield m
    m.Close()


def contact_props() -> ProximityProperties:
    p = ProximityProperties()
    p.AddProperty("material", "coulomb_friction", CoulombFriction(1.0, 1.0))
    return AddMujocoContactParameters(p, friction=(1.0, 0.005, 0.0001), solref=(0.02, 1.0))


def resting_box(meshcat, mass=2.0, params=None, duration=0.5):
    """A `mass` kg, 0.2 m box simulated for `duration` s from rest on the ground with a ContactVisualizer;
    returns (visualizer, plant, plant context, recording, root context)."""
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    box = plant.AddRigidBody("box", SpatialInertia.SolidBoxWithMass(mass, 2 * HALF, 2 * HALF, 2 * HALF))
    plant.RegisterCollisionGeometry(box, RigidTransform(), Box(2 * HALF, 2 * HALF, 2 * HALF), "box", contact_props())
    plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), HalfSpace(), "ground", contact_props())
    plant.Finalize()
    visualizer = ContactVisualizer.AddToBuilder(builder, plant, meshcat, params)
    simulator = Simulator(builder.Build())
    plant_context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    plant.SetFreeBodyPose(plant_context, box, RigidTransform([0.0, 0.0, HALF]))
    meshcat.StartRecording(32.0)
    simulator.AdvanceTo(duration)
    meshcat.StopRecording()
    return visualizer, plant, plant_context, meshcat.get_recording(), simulator.get_mutable_context()


def shaft_lengths(recording, paths, frame):
    return np.array([recording.get_key_frame(frame, f"/drake/{p}/shaft", "scale")[2] for p in paths])


def test_resting_box_draws_an_arrow_at_each_corner_scaled_by_force(meshcat):
    params = ContactVisualizerParams(newtons_per_meter=20.0)
    visualizer, plant, plant_context, recording, _ = resting_box(meshcat, params=params)
    assert visualizer.get_name() == "meshcat_contact_visualizer"  # pydrake's name
    paths = visualizer.arrow_paths()
    assert paths == [f"contact_forces/point/world+box/{k}" for k in range(4)]
    for p in paths:
        assert meshcat.HasPath(f"{p}/shaft") and meshcat.HasPath(f"{p}/head") and meshcat.HasPath(f"{p}/tail")
    last = recording.num_frames() - 1  # t = 0.5 s at 32 frames/s
    assert last == 16
    # arrows sit at the bottom corners (the contact points, within the 0.1 mm penetration) and point up (+z)
    corners = np.array([recording.get_key_frame(last, f"/drake/{p}", "position") for p in paths])
    np.testing.assert_allclose(np.sort(np.abs(corners[:, :2]).ravel()), HALF, atol=1e-6)
    np.testing.assert_allclose(corners[:, 2], 0.0, atol=1e-4)
    for p in paths:
        x, y, _, _ = recording.get_key_frame(last, f"/drake/{p}", "quaternion")  # [x, y, z, w]
        assert 1.0 - 2.0 * (x * x + y * y) > 1.0 - 1e-9, "the arrow's z axis (the force) must be vertical"
    # the four arrows together carry the weight: Σ length · newtons_per_meter = m g (a 0.5 % residual is the
    # MuJoCo-style soft contact still settling after 0.5 s)
    lengths = shaft_lengths(recording, paths, last)
    assert lengths.sum() * 20.0 == pytest.approx(2.0 * G, rel=5e-3)
    # the lengths equal the plant's reported forces divided by newtons_per_meter
    results = plant.get_contact_results_output_port().Eval(plant_context)
    forces = sorted(np.linalg.norm(results.point_pair_contact_info(i).contact_force()) for i in range(4))
    np.testing.assert_allclose(sorted(lengths * 20.0), forces, rtol=2e-3)
    # the cones sit at the shaft's ends
    head = recording.get_key_frame(last, f"/drake/{paths[0]}/head", "position")
    tail = recording.get_key_frame(last, f"/drake/{paths[0]}/tail", "position")
    assert head[2] == pytest.approx(lengths[0] / 2) and tail[2] == pytest.approx(-lengths[0] / 2)


def test_arrow_length_scales_with_force_and_with_newtons_per_meter(meshcat):
    _, _, _, light, _ = resting_box(meshcat, mass=2.0)
    paths = [f"contact_forces/point/world+box/{k}" for k in range(4)]
    light_len = shaft_lengths(light, paths, 16).sum()
    meshcat.Delete()
    _, _, _, heavy, _ = resting_box(meshcat, mass=6.0)
    heavy_len = shaft_lengths(heavy, paths, 16).sum()
    meshcat.Delete()
    _, _, _, coarse, _ = resting_box(meshcat, mass=6.0, params=ContactVisualizerParams(newtons_per_meter=30.0))
    coarse_len = shaft_lengths(coarse, paths, 16).sum()
    assert light_len == pytest.approx(2.0 * G / 10.0, rel=5e-3)  # default 10 N per metre
    assert heavy_len / light_len == pytest.approx(3.0, rel=5e-3)
    assert heavy_len / coarse_len == pytest.approx(3.0, rel=1e-9)


def test_arrows_hide_when_contact_ends_and_threshold_filters(meshcat):
    visualizer, plant, plant_context, _, root = resting_box(meshcat, duration=0.1)
    assert len(visualizer.arrow_paths()) == 4
    plant.SetFreeBodyPose(plant_context, plant.GetBodyByName("box"), RigidTransform([0.0, 0.0, 1.0]))
    visualizer.ForcedPublish(visualizer.GetMyContextFromRoot(root))
    assert len(visualizer.arrow_paths()) == 4  # the plant's sampled contact_results: its last step's, as Drake's
    plant.ExecuteForcedEvents(plant_context)  # a step from the lifted pose: no contact
    visualizer.ForcedPublish(visualizer.GetMyContextFromRoot(root))
    assert visualizer.arrow_paths() == []
    assert len(visualizer.arrow_paths(visible_only=False)) == 4  # kept, hidden, for reuse
    meshcat.Delete()
    # per-corner force ≈ 4.9 N: a 10 N threshold draws nothing
    visualizer, *_ = resting_box(meshcat, params=ContactVisualizerParams(force_threshold=10.0), duration=0.1)
    assert visualizer.arrow_paths(visible_only=False) == []


def test_bad_parameters_and_unfinalized_plant_are_rejected(meshcat):
    with pytest.raises(ValueError, match="newtons_per_meter must be finite and > 0"):
        ContactVisualizer(meshcat, ContactVisualizerParams(newtons_per_meter=0.0))
    with pytest.raises(ValueError, match="force_threshold must be finite and >= 0"):
        ContactVisualizer(meshcat, ContactVisualizerParams(force_threshold=float("nan")))
    with pytest.raises(ValueError, match="needs a Meshcat"):
        ContactVisualizer("meshcat")
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    with pytest.raises(RuntimeError, match="not finalized"):
        ContactVisualizer.AddToBuilder(builder, plant, meshcat)


def test_recorded_arrows_render_in_headless_chromium(meshcat, screenshot, tmp_path):
    """Thick arrows (2 cm radius, 0.49 m each) at the box corners, recorded and shown in a static page: green
    pixels near the image centre (the default camera looks at the origin from (3, 0, 1)), none at the top."""
    params = ContactVisualizerParams(radius=0.02, newtons_per_meter=10.0)
    resting_box(meshcat, params=params, duration=0.25)
    meshcat.PublishRecording()
    html = tmp_path / "contact.html"
    html.write_text(meshcat.StaticHtml())
    img = screenshot(html)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    green = (g > 0.45) & (r < 0.3) & (b < 0.3)
    assert green[150:450, 250:550].sum() > 300, "no green contact arrows near the centre"
    assert green[:100].sum() == 0


def test_two_visualizers_in_one_diagram_get_distinct_names(meshcat):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    plant.Finalize()
    first = ContactVisualizer.AddToBuilder(builder, plant, meshcat)
    second = ContactVisualizer.AddToBuilder(builder, plant, meshcat, ContactVisualizerParams(prefix="other"))
    builder.Build()
    assert first.get_name() == "meshcat_contact_visualizer" and second.get_name() != "meshcat_contact_visualizer"


def _hydroelastic_ball_on_table(m, meshcat, compliance_by_default: bool):
    """A compliant 5 cm ball pressed 1 cm into a rigid table, built with module tree `m` (mallard or pydrake):
    hydroelastic properties given per geometry, or only SceneGraph's default compliance_type "compliant"; returns
    the Meshcat after one forced publish of the ContactVisualizer."""
    builder = m.systems.framework.DiagramBuilder()
    plant, scene_graph = m.multibody.plant.AddMultibodyPlantSceneGraph(builder, 0.001)
    plant.set_contact_model(m.multibody.plant.ContactModel.kHydroelastic)
    plant.SetUseSampledOutputPorts(False)  # contact results of the current state, before any step (ModelVisualizer)
    if compliance_by_default:
        config = m.geometry.SceneGraphConfig()
        config.default_proximity_properties.compliance_type = "compliant"
        scene_graph.set_config(config)
    ball = plant.AddRigidBody("ball", m.multibody.tree.SpatialInertia.SolidSphereWithMass(0.5, 0.05))
    table_props, ball_props = m.geometry.ProximityProperties(), m.geometry.ProximityProperties()
    if not compliance_by_default:
        m.geometry.AddRigidHydroelasticProperties(0.01, table_props)
        m.geometry.AddCompliantHydroelasticProperties(0.01, 1e6, ball_props)
    plant.RegisterCollisionGeometry(plant.world_body(), m.math.RigidTransform([0, 0, -0.05]),
                                    m.geometry.Box(0.4, 0.4, 0.1), "table", table_props)
    plant.RegisterCollisionGeometry(ball, m.math.RigidTransform(), m.geometry.Sphere(0.05), "ball", ball_props)
    plant.Finalize()
    m.multibody.meshcat.ContactVisualizer.AddToBuilder(builder, plant, meshcat)
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    plant.SetFreeBodyPose(plant.GetMyMutableContextFromRoot(context), ball, m.math.RigidTransform([0, 0, 0.04]))
    diagram.ForcedPublish(context)
    return meshcat


@pytest.mark.parametrize("compliance_by_default", [False, True])
def test_hydroelastic_contacts_draw_force_and_moment_as_pydrake(meshcat, compliance_by_default):
    """The ball's contact surface gets a force arrow at Drake's path (the bodies' names), shown, and no moment
    arrow (the pressure is symmetric about the centroid), in mallard and in pydrake."""
    import mallard
    import mallard.all  # noqa: F401 - loads the submodules the builder reads, as pydrake.all below
    path = "contact_forces/hydroelastic/world+ball"
    ours = _hydroelastic_ball_on_table(mallard, meshcat, compliance_by_default)
    assert ours._GetPackedProperty(path=f"{path}/force_C_W", property="visible") != b""
    pydrake = pytest.importorskip("pydrake", reason="pydrake (the oracle) is in the dev extra")
    import pydrake.all  # noqa: F401 - loads the submodules the builder reads
    theirs = _hydroelastic_ball_on_table(pydrake, pydrake.geometry.Meshcat(), compliance_by_default)
    for p in (path, f"{path}/force_C_W", f"{path}/moment_C_W"):
        assert ours._GetPackedProperty(path=p, property="visible") == theirs._GetPackedProperty(path=p,
                                                                                                 property="visible"), p
