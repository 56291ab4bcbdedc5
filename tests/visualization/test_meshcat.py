"""Meshcat: the loopback server, scene commands for every shape, mesh files, recordings, StaticHtml,
and clear errors for bad input."""
from __future__ import annotations

import asyncio
import base64
import os
import re
import socket
import subprocess
import sys
import urllib.request

import numpy as np
import pytest
import umsgpack

from mallard.geometry import (Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, HeightField, Mesh, MujocoPlane,
                              Rgba, Shape, Sphere)
from mallard.geometry.meshcat import Meshcat, MeshcatParams, StartMeshcat
from mallard.geometry.meshcat_animation import MeshcatAnimation
from mallard.multibody.math import RigidTransform, RotationMatrix, RollPitchYaw


@pytest.fixture
def meshcat():
    m = Meshcat(MeshcatParams(port=0))
    yield m
    m.Close()


def scene_commands(m: Meshcat) -> list[dict]:
    return [umsgpack.unpackb(b) for b in m._scene_messages()]


def object_at(m: Meshcat, path: str) -> dict:
    cmds = [c for c in scene_commands(m) if c["type"] == "set_object" and c["path"] == path]
    assert len(cmds) == 1, f"expected one object at {path}"
    return cmds[0]["object"]


def html_commands(html: str) -> list[dict]:
    block = html.split("var commands = [", 1)[1].split("];", 1)[0]
    return [umsgpack.unpackb(base64.b64decode(s))
            for s in re.findall(r'"data:application/octet-binary;base64,([A-Za-z0-9+/=]+)"', block)]


# ----- server -------------------------------------------------------------------------------------------
def test_server_serves_the_viewer_on_loopback(meshcat):
    url = meshcat.web_url()
    assert url == f"http://localhost:{meshcat.port()}"  # pydrake's URL; the server listens on 127.0.0.1 only
    page = urllib.request.urlopen(url, timeout=10).read().decode()
    assert "MeshCat.Viewer" in page and "main.min.js" in page
    js = urllib.request.urlopen(url + "/static/main.min.js", timeout=10)
    assert js.status == 200 and len(js.read()) > 100_000
    # only the loopback interface listens
    assert [s.getsockname()[0] for s in meshcat._server._sockets] == ["127.0.0.1"]


def test_browser_connection_gets_scene_then_updates(meshcat):
    import tornado.websocket

    meshcat.SetObject("box", Box(1, 2, 3), Rgba(1, 0, 0, 1))
    meshcat.SetTransform("box", RigidTransform([1.0, 2.0, 3.0]))

    async def client():
        conn = await tornado.websocket.websocket_connect(meshcat.ws_url())
        first = [umsgpack.unpackb(await asyncio.wait_for(conn.read_message(), 10)) for _ in range(2)]
        for _ in range(100):  # the server registers the client before sending the scene
            if meshcat.GetNumActiveConnections():
                break
            await asyncio.sleep(0.02)
        meshcat.SetTransform("box", RigidTransform([4.0, 5.0, 6.0]))
        update = umsgpack.unpackb(await asyncio.wait_for(conn.read_message(), 10))
        conn.close()
        return first, update

    first, update = asyncio.run(client())
    assert [c["type"] for c in first] == ["set_object", "set_transform"]
    assert first[1]["matrix"][12:15] == [1.0, 2.0, 3.0]
    assert update["type"] == "set_transform" and update["path"] == "/drake/box"
    assert update["matrix"][12:15] == [4.0, 5.0, 6.0]


def test_a_busy_port_is_an_error_as_in_pydrake():
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        busy = blocker.getsockname()[1]
        with pytest.raises(RuntimeError, match=rf"port {busy} on 127.0.0.1 is already in use"):
            Meshcat(MeshcatParams(port=busy))
        with pytest.raises(RuntimeError, match="already in use"):
            Meshcat(port=busy)


_START_MESHCAT = """
import logging, sys
from {pkg}.geometry import StartMeshcat
if sys.argv[1:] == ["quiet"]:
    logging.getLogger("drake").setLevel(logging.WARNING)
meshcat = StartMeshcat()
print("done")
"""


def _start_meshcat_output(pkg: str, *args: str) -> tuple[str, str]:
    """(stdout, stderr) of a fresh process that calls StartMeshcat() with `pkg` in pydrake's place; ports -> PORT."""
    p = subprocess.run([sys.executable, "-c", _START_MESHCAT.format(pkg=pkg), *args], capture_output=True, text=True,
                       timeout=120, cwd=os.path.dirname(__file__))
    assert p.returncode == 0, p.stderr
    return tuple(re.sub(r"localhost:\d+", "localhost:PORT", t) for t in (p.stdout, p.stderr))


def test_start_meshcat_logs_url_as_pydrake():
    """StartMeshcat's URL goes to the "drake" logger at INFO (stderr `INFO:drake:...`), not to stdout, as pydrake's;
    a script that raises the "drake" logger's level silences it on both."""
    pytest.importorskip("pydrake", reason="pydrake (drake wheel) is the oracle for the log line")
    out, err = _start_meshcat_output("mallard")
    assert (out, err) == ("done\n", "INFO:drake:Meshcat listening for connections at http://localhost:PORT\n")
    assert (out, err) == _start_meshcat_output("pydrake")
    assert _start_meshcat_output("mallard", "quiet") == ("done\n", "") == _start_meshcat_output("pydrake", "quiet")


def test_bad_params_raise():
    with pytest.raises(ValueError, match="not a loopback address"):
        Meshcat(MeshcatParams(host="0.0.0.0", port=0))
    with pytest.warns(RuntimeWarning, match="127.0.0.1 only"):
        m = Meshcat(MeshcatParams(host="*", port=0))
    assert m.web_url().startswith("http://localhost:")
    m.Close()
    with pytest.raises(ValueError, match="port must be in"):
        Meshcat(MeshcatParams(port=70000))
    with pytest.raises(TypeError, match=r"port: int\|integer\|NoneType = None"):
        Meshcat("7000")


# ----- objects ------------------------------------------------------------------------------------------
def test_primitive_shapes_become_threejs_objects(meshcat):
    meshcat.SetObject("sphere", Sphere(0.5), Rgba(1.0, 0.5, 0.0, 0.25))
    obj = object_at(meshcat, "/drake/sphere")
    assert obj["geometries"][0]["type"] == "SphereGeometry" and obj["geometries"][0]["radius"] == 0.5
    material = obj["materials"][0]
    assert material["color"] == 0xff8000 and material["opacity"] == 0.25 and material["transparent"]

    meshcat.SetObject("/abs/box", Box(1, 2, 3))
    g = object_at(meshcat, "/abs/box")["geometries"][0]
    assert (g["type"], g["width"], g["height"], g["depth"]) == ("BoxGeometry", 1, 2, 3)

    meshcat.SetObject("cyl", Cylinder(0.1, 2.0))
    obj = object_at(meshcat, "/drake/cyl")
    assert obj["geometries"][0]["height"] == 2.0 and obj["geometries"][0]["radiusTop"] == 0.1
    M = np.array(obj["object"]["matrix"]).reshape(4, 4).T  # three.js stores column-major
    np.testing.assert_allclose(M[:3, :3] @ [0, 1, 0], [0, 0, 1], atol=1e-12)  # three.js y axis -> Drake z

    meshcat.SetObject("ell", Ellipsoid(1, 2, 3))
    M = np.array(object_at(meshcat, "/drake/ell")["object"]["matrix"]).reshape(4, 4).T
    np.testing.assert_allclose(np.diag(M), [1, 2, 3, 1])

    meshcat.SetObject("cap", Capsule(0.1, 0.6))
    geom = object_at(meshcat, "/drake/cap")["geometries"][0]
    V = np.frombuffer(geom["data"]["attributes"]["position"]["array"].data, np.float32).reshape(-1, 3)
    np.testing.assert_allclose(V.max(axis=0), [0.1, 0.1, 0.4], atol=2e-3)
    np.testing.assert_allclose(V.min(axis=0), [-0.1, -0.1, -0.4], atol=2e-3)

    meshcat.SetObject("plane", MujocoPlane([2.0, 3.0, 0.1]))
    g = object_at(meshcat, "/drake/plane")["geometries"][0]
    assert (g["width"], g["height"]) == (4.0, 6.0)
    meshcat.SetObject("half", HalfSpace())
    assert object_at(meshcat, "/drake/half")["geometries"][0]["width"] == 20.0

    meshcat.SetObject("hf", HeightField(np.array([[0.0, 1.0], [0.5, 0.0]]), [1.0, 1.0, 0.2, 0.1]))
    geom = object_at(meshcat, "/drake/hf")["geometries"][0]
    V = np.frombuffer(geom["data"]["attributes"]["position"]["array"].data, np.float32).reshape(-1, 3)
    assert V.shape == (4, 3) and np.isclose(V[:, 2].max(), 0.2)


def test_set_object_replaces_and_clears_properties(meshcat):
    meshcat.SetObject("a", Sphere(1.0))
    meshcat.SetProperty("a", "visible", False)
    assert any(c["type"] == "set_property" for c in scene_commands(meshcat))
    meshcat.SetObject("a", Box(1, 1, 1))
    cmds = scene_commands(meshcat)
    assert [c["type"] for c in cmds] == ["set_object"]
    assert cmds[0]["object"]["geometries"][0]["type"] == "BoxGeometry"


def test_mesh_files_keep_their_materials(meshcat, models_dir, tmp_path):
    iiwa = models_dir / "drake_models" / "iiwa_description" / "meshes" / "iiwa14"
    meshcat.SetObject("obj", Mesh(str(iiwa / "collision" / "link_3.obj"), 2.0), Rgba(0.2, 0.4, 0.6, 1))
    obj = object_at(meshcat, "/drake/obj")
    assert obj["geometries"][0]["type"] == "_meshfile_geometry" and obj["geometries"][0]["format"] == "obj"
    assert obj["materials"][0]["color"] == 0x336699
    np.testing.assert_allclose(obj["object"]["matrix"], np.diag([2.0, 2, 2, 1]).reshape(-1))

    # glTF: the orange link keeps its material color and is turned from glTF's y-up to z-up
    meshcat.SetObject("gltf", Mesh(str(iiwa / "visual" / "link_4_orange.gltf")))
    obj = object_at(meshcat, "/drake/gltf")
    attrs = obj["geometries"][0]["data"]["attributes"]
    colors = np.frombuffer(attrs["color"]["array"].data, np.float32).reshape(-1, 3)
    assert np.any(np.all(np.abs(colors - [1.0, 38 / 255, 0.0]) < 1e-3, axis=1))
    assert obj["materials"][0]["vertexColors"] == 2
    M = np.array(obj["object"]["matrix"]).reshape(4, 4).T
    np.testing.assert_allclose(M[:3, :3] @ [0, 1, 0], [0, 0, 1], atol=1e-12)

    # STL (written here with trimesh) is sent as the file's bytes
    import trimesh

    stl = tmp_path / "cube.stl"
    trimesh.creation.box((1, 1, 1)).export(str(stl))
    meshcat.SetObject("stl", Mesh(str(stl)))
    g = object_at(meshcat, "/drake/stl")["geometries"][0]
    assert g["format"] == "stl" and bytes(g["data"].data) == stl.read_bytes()

    # OBJ + MTL + texture: the viewer gets the MTL and the texture inlined as a data URI
    (tmp_path / "tex.png").write_bytes(_tiny_png())
    (tmp_path / "mat.mtl").write_text("newmtl m0\nKd 1 1 1\nmap_Kd tex.png\n")
    (tmp_path / "tri.obj").write_text("mtllib mat.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\n"
                                      "usemtl m0\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    meshcat.SetObject("textured", Mesh(str(tmp_path / "tri.obj")))
    obj = object_at(meshcat, "/drake/textured")["object"]
    assert obj["type"] == "_meshfile_object" and "map_Kd tex.png" in obj["mtl_library"]
    assert obj["resources"]["tex.png"].startswith("data:image/png;base64,")

    # Convex is drawn as the hull of the mesh
    meshcat.SetObject("hull", Convex(str(iiwa / "collision" / "link_3.obj")))
    assert object_at(meshcat, "/drake/hull")["geometries"][0]["type"] == "BufferGeometry"


def _tiny_png() -> bytes:
    import io

    import matplotlib.image

    buf = io.BytesIO()
    matplotlib.image.imsave(buf, np.ones((2, 2, 3)), format="png")
    return buf.getvalue()


def test_bad_objects_raise_clear_errors(meshcat, tmp_path):
    class Torus(Shape):
        pass

    with pytest.raises(ValueError, match="cannot draw a Torus; supported shapes: Sphere, Box"):
        meshcat.SetObject("t", Torus())
    with pytest.raises(ValueError, match="cannot draw a str; pass a Shape"):
        meshcat.SetObject("t", "sphere")
    with pytest.raises(ValueError, match="rgba must be an Rgba"):
        meshcat.SetObject("t", Sphere(1.0), (1, 0, 0, 1))
    missing = tmp_path / "gone.obj"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        meshcat.SetObject("m", Mesh(str(missing)))  # a Mesh reads its file when used, as in Drake
    missing.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n")
    mesh = Mesh(str(missing))
    missing.unlink()
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        meshcat.SetObject("m", mesh)
    with pytest.raises(ValueError, match="RigidTransform or a 4x4"):
        meshcat.SetTransform("m", np.eye(3))
    with pytest.raises(ValueError, match="NaN"):
        meshcat.SetTransform("m", np.full((4, 4), np.nan))
    with pytest.raises(ValueError, match="3xN"):
        meshcat.SetLine("l", np.zeros((2, 5)))
    with pytest.raises(ValueError, match="finite"):
        meshcat.SetProperty("m", "opacity", float("nan"))
    assert not meshcat.HasPath("m") and not meshcat.HasPath("t")


def test_lines_transforms_properties_delete(meshcat):
    meshcat.SetLine("line", np.array([[0, 1, 2], [0, 0, 0], [0, 1, 0]], float), 2.0, Rgba(0, 0, 1, 1))
    obj = object_at(meshcat, "/drake/line")
    assert obj["object"]["type"] == "Line" and obj["materials"][0]["color"] == 0x0000ff
    meshcat.SetLineSegments("segs", np.zeros((3, 2)), np.ones((3, 2)))
    assert object_at(meshcat, "/drake/segs")["object"]["type"] == "LineSegments"

    X = RigidTransform(RotationMatrix(RollPitchYaw(0.1, 0.2, 0.3)), [1.0, 2.0, 3.0])
    meshcat.SetTransform("robot/link", X)
    meshcat.SetProperty("/Background", "top_color", [1.0, 1.0, 1.0])
    cmds = scene_commands(meshcat)
    tf = [c for c in cmds if c["type"] == "set_transform"][0]
    np.testing.assert_allclose(np.array(tf["matrix"]).reshape(4, 4).T, X.GetAsMatrix4())
    prop = [c for c in cmds if c["type"] == "set_property"][0]
    assert (prop["path"], prop["property"], prop["value"]) == ("/Background", "top_color", [1.0, 1.0, 1.0])

    assert meshcat.HasPath("robot") and meshcat.HasPath("/drake/robot/link")
    meshcat.Delete("robot")
    assert not meshcat.HasPath("robot") and meshcat.HasPath("line")
    meshcat.Delete()
    assert not meshcat.HasPath("line") and meshcat.HasPath("/Background")
    with pytest.raises(ValueError, match="root"):
        meshcat.Delete("/")


# ----- recording and static html ------------------------------------------------------------------------
def test_recording_keys_frames_and_lands_in_static_html(meshcat):
    meshcat.SetObject("ball", Sphere(0.1), Rgba(1, 0, 0, 1))
    meshcat.StartRecording(frames_per_second=10.0)
    for k in range(6):
        t = 0.1 * k
        meshcat.SetTransform("ball", RigidTransform([0.0, 0.0, t]), t)
    meshcat.SetProperty("ball", "visible", False, 0.5)
    meshcat.StopRecording()
    rec = meshcat.get_mutable_recording()
    assert rec.num_frames() == 6 and rec.frames_per_second() == 10.0
    assert rec.get_key_frame(3, "/drake/ball", "position") == pytest.approx([0.0, 0.0, 0.3])
    assert rec.get_key_frame(5, "/drake/ball", "visible") is False
    # live transform followed the recording (set_transforms_while_recording=True)
    live = [c for c in scene_commands(meshcat) if c["type"] == "set_transform"][-1]
    assert live["matrix"][14] == pytest.approx(0.5)

    meshcat.PublishRecording()
    html = meshcat.StaticHtml()
    assert "<script src" not in html and "MeshCat.Viewer" in html and len(html) > 500_000
    cmds = html_commands(html)
    assert [c["type"] for c in cmds] == ["set_object", "set_property", "set_transform", "set_animation"]
    anim = cmds[-1]
    assert anim["options"]["play"] is True
    clip = anim["animations"][0]
    assert anim["animations"][0]["path"] == "/drake/ball" and clip["clip"]["fps"] == 10.0
    tracks = {t["name"]: t for t in clip["clip"]["tracks"]}
    pos = tracks[".position"]
    assert [k["time"] for k in pos["keys"]] == [0, 1, 2, 3, 4, 5]
    assert [k["value"][2] for k in pos["keys"]] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    assert tracks[".quaternion"]["keys"][0]["value"] == pytest.approx([0.0, 0.0, 0.0, 1.0])

    meshcat.DeleteRecording()
    with pytest.raises(RuntimeError, match="StartRecording"):
        meshcat.PublishRecording()


def test_recording_without_live_updates(meshcat):
    meshcat.SetTransform("x", RigidTransform([1.0, 0.0, 0.0]))
    meshcat.StartRecording(set_visualizations_while_recording=False)
    meshcat.SetTransform("x", RigidTransform([2.0, 0.0, 0.0]), 0.0)
    live = [c for c in scene_commands(meshcat) if c["type"] == "set_transform"][0]
    assert live["matrix"][12] == 1.0
    assert meshcat.get_mutable_recording().get_key_frame(0, "/drake/x", "position") == [2.0, 0.0, 0.0]


def test_meshcat_animation_options_and_errors():
    anim = MeshcatAnimation(32.0)
    assert anim.frame(0.5) == 16 and anim.frame(1 / 32 * 7) == 7
    anim.set_loop_mode(MeshcatAnimation.LoopMode.kLoopOnce)
    anim.set_repetitions(3)
    anim.set_autoplay(False)
    anim.SetTransform(0, "/a", np.eye(4))
    anim.SetProperty(2, "/a", "opacity", 0.5)
    low = anim.lowered(lambda p: p)
    assert low["options"] == {"play": False, "loopMode": 2200, "repetitions": 3, "clampWhenFinished": True}
    with pytest.raises(ValueError, match="frames_per_second"):
        MeshcatAnimation(0.0)
    with pytest.raises(ValueError, match="non-negative integer"):
        anim.SetTransform(-1, "/a", np.eye(4))
    with pytest.raises(ValueError, match="holds number values"):
        anim.SetProperty(3, "/a", "opacity", True)


def test_triangle_meshes(meshcat):
    from mallard.geometry import TriangleSurfaceMesh

    V = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], float)
    F = np.array([[0, 0, 0, 1], [1, 2, 3, 2], [2, 3, 1, 3]])
    meshcat.SetTriangleMesh("tri", V, F, Rgba(0, 1, 0, 1), wireframe=True)
    obj = object_at(meshcat, "/drake/tri")
    assert obj["materials"][0]["wireframe"] is True and obj["materials"][0]["color"] == 0x00ff00
    index = np.frombuffer(obj["geometries"][0]["data"]["index"]["array"].data, np.uint32).reshape(-1, 3)
    np.testing.assert_array_equal(index, F.T)
    meshcat.SetObject("surface", TriangleSurfaceMesh(V.T, F.T))
    assert object_at(meshcat, "/drake/surface")["geometries"][0]["type"] == "BufferGeometry"
    with pytest.raises(ValueError, match="faces must be 3xM indices into the 4 vertices"):
        meshcat.SetTriangleMesh("bad", V, F + 5)
