"""Meshcat's pydrake API on mallard, against pydrake: parameters and camera types, controls (buttons,
sliders, browser messages), the packed scene commands, static exports, and the point-cloud visualizer."""
from __future__ import annotations

import copy
import io
import zipfile

import numpy as np
import pytest
import umsgpack

import mallard.geometry as mg
from mallard.multibody.math import RigidTransform
from oracles import require_pydrake


def _pg():
    require_pydrake()
    import pydrake.geometry

    return pydrake.geometry


@pytest.fixture
def pair():
    pg = _pg()
    ours, ref = mg.Meshcat(port=0), pg.Meshcat()
    yield ours, ref
    ours.Close()


def test_value_types_match_pydrake():
    pg = _pg()
    for ours, ref in ((mg.Meshcat.PerspectiveCamera(fov=80, aspect=1.2), pg.Meshcat.PerspectiveCamera(fov=80, aspect=1.2)),
                      (mg.Meshcat.OrthographicCamera(left=0.1, zoom=2), pg.Meshcat.OrthographicCamera(left=0.1, zoom=2)),
                      (mg.MeshcatParams.PropertyTuple(path="a", property="p", value=[1.0]),
                       pg.MeshcatParams.PropertyTuple(path="a", property="p", value=[1.0]))):
        assert repr(ours) == repr(ref) and repr(copy.copy(ours)) == repr(ours)
    assert [f for f in ("host", "port", "web_url_pattern", "initial_properties", "show_stats_plot",
                        "realtime_rate_period") if f in repr(mg.MeshcatParams())] == \
        [f for f in ("host", "port", "web_url_pattern", "initial_properties", "show_stats_plot",
                     "realtime_rate_period") if f in repr(pg.MeshcatParams())]
    assert int(mg.Meshcat.SideOfFaceToRender.kBackSide) == int(pg.Meshcat.SideOfFaceToRender.kBackSide)
    g, g_ref = mg.Meshcat.Gamepad(), pg.Meshcat(port=None).GetGamepad()
    assert (g.index, g.button_values, g.axes) == (g_ref.index, g_ref.button_values, g_ref.axes)


def test_controls_match_pydrake(pair):
    for m in pair:
        m.AddButton("zz", "KeyZ")
        m.AddButton(name="aa")
        m.AddButton("zz", "KeyZ")  # again: its clicks restart at zero
        with pytest.raises(RuntimeError, match="does not match the current keycode"):
            m.AddButton("zz", "KeyY")
        assert m.AddSlider(name="s", min=-1, max=1, step=0.01, value=0.123456) == pytest.approx(0.12)
        m.AddSlider("t", 0, 1, 0.3, 0.5)
    ours, ref = pair
    assert ours.GetButtonNames() == ref.GetButtonNames() == ["aa", "zz"]
    assert ours.GetSliderNames() == ref.GetSliderNames()
    for name, value in (("s", 0.7), ("s", 3.0), ("t", 0.5), ("s", -0.1)):
        assert ours.SetSliderValue(name, value) == ref.SetSliderValue(name, value)
        assert ours.GetSliderValue(name) == ref.GetSliderValue(name)
    for m in pair:
        with pytest.raises(RuntimeError, match="does not have any slider named nope"):
            m.GetSliderValue("nope")
        with pytest.raises(RuntimeError, match="does not have any button named nope"):
            m.DeleteButton("nope")
        assert not m.DeleteButton("nope", strict=False)
        m._InjectWebsocketMessage(message=umsgpack.packb({"type": "button", "name": "zz"}))
        m._InjectWebsocketMessage(umsgpack.packb({"type": "slider", "name": "t", "value": 0.9}))
    assert ours.GetButtonClicks("zz") == ref.GetButtonClicks("zz") == 1
    assert ours.GetSliderValue("t") == ref.GetSliderValue("t")
    for m in pair:
        m.DeleteAddedControls()
        assert m.GetButtonNames() == [] and m.GetSliderNames() == []


def test_packed_commands_match_pydrake(pair):
    pg = _pg()
    import pydrake.math

    ours, ref = pair
    ours.SetTransform("/a", RigidTransform([1, 2, 3]))
    ref.SetTransform("/a", pydrake.math.RigidTransform([1, 2, 3]))
    assert umsgpack.unpackb(ours._GetPackedTransform("/a")) == umsgpack.unpackb(ref._GetPackedTransform("/a"))
    for m in pair:
        m.SetProperty("/Lights/AmbientLight/<object>", "intensity", 2)
        m.SetProperty(path="/Background", property="top_color", value=[0, 0, 0])
    for path, prop in (("/Lights/AmbientLight/<object>", "intensity"), ("/Background", "top_color")):
        assert umsgpack.unpackb(ours._GetPackedProperty(path, prop)) == \
            umsgpack.unpackb(ref._GetPackedProperty(path, prop))
    assert ours._GetPackedObject("/nothing") == ref._GetPackedObject("/nothing") == b""
    ours.SetObject(path="/box", shape=mg.Box(1, 2, 3), rgba=mg.Rgba(0.5, 0.5, 0.5))
    obj = umsgpack.unpackb(ours._GetPackedObject("/box"))
    assert obj["type"] == "set_object" and obj["object"]["geometries"][0]["type"] == "BoxGeometry"
    with zipfile.ZipFile(io.BytesIO(ours.StaticZip())) as z:
        assert "meshcat.html" in z.namelist()
    assert "data:application/octet-binary;base64" in ours.StaticHtml()
    assert ours.GetTrackedCameraPose() is None and ref.GetTrackedCameraPose() is None
    X = np.eye(4)
    X[:3, 3] = [1, 2, 3]
    ours._InjectWebsocketMessage(umsgpack.packb({"type": "camera_pose", "camera_pose": X.T.reshape(-1).tolist(),
                                                 "is_perspective": True}))
    np.testing.assert_array_equal(ours.GetTrackedCameraPose().translation(), [1, 2, 3])


def test_shapes_meshes_surfaces_and_clouds_are_drawn(pair):
    ours = pair[0]
    mesh = mg.TriangleSurfaceMesh(triangles=[mg.SurfaceTriangle(0, 1, 2), mg.SurfaceTriangle(3, 0, 2)],
                                  vertices=[[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]])
    ours.SetObject(path="/m", mesh=mesh, rgba=mg.Rgba(0.3, 0.3, 0.3), wireframe=True, wireframe_line_width=2.0,
                   side=ours.SideOfFaceToRender.kFrontSide)
    material = umsgpack.unpackb(ours._GetPackedObject("/m"))["object"]["materials"][0]
    assert material["wireframe"] and material["side"] == 0 and material["wireframeLinewidth"] == 2.0
    X, Y = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 3))
    ours.PlotSurface(path="surface", X=X, Y=Y, Z=X * Y)
    geometry = umsgpack.unpackb(ours._GetPackedObject("surface"))["object"]["geometries"][0]
    assert len(geometry["data"]["index"]["array"].data) // 4 == 3 * 2 * (4 - 1) * (3 - 1)  # uint32 indices
    ours.SetObject("cloud", np.array([[0, 1, np.nan], [0, 0, 0], [0, 0, 0]], float), point_size=0.01)
    points = umsgpack.unpackb(ours._GetPackedObject("cloud"))["object"]
    position = points["geometries"][0]["data"]["attributes"]["position"]["array"]
    assert points["object"]["type"] == "Points" and len(position.data) // 4 == 6  # the NaN point is not drawn
    ours.SetObject("cone", mg.MeshcatCone(1.0, 0.5, 0.25))
    with pytest.raises(ValueError, match="rgba must be an Rgba"):
        ours.SetObject("bad", mg.Sphere(1), (1, 0, 0, 1))


def test_point_cloud_visualizer_publishes_its_input(pair):
    ours = pair[0]
    vis = mg.MeshcatPointCloudVisualizer_[float](meshcat=ours, path="cloud", publish_period=1 / 12.0)
    vis.set_point_size(0.1)
    vis.set_default_rgba(mg.Rgba(0, 0, 1, 1))
    context = vis.CreateDefaultContext()
    vis.cloud_input_port().FixValue(context, np.zeros((3, 4)))
    vis.pose_input_port().FixValue(context, RigidTransform([0, 0, 1]))
    vis.ForcedPublish(context)
    assert ours.HasPath("cloud")
    assert umsgpack.unpackb(ours._GetPackedTransform("cloud"))["matrix"][14] == 1.0
    vis.Delete()
    assert not ours.HasPath("cloud")
