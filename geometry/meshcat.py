"""Meshcat: a 3D scene shown in the browser (pydrake.geometry.Meshcat, MeshcatParams, StartMeshcat).

Built on the ``meshcat`` package's three.js viewer. Meshcat keeps the scene (objects, transforms,
properties, the published animation) in Python, serves the viewer from a loopback web server and
streams every change to connected browsers; a browser that connects later gets the whole scene.
``StaticHtml()`` writes the same scene, with the recorded animation, into one self-contained HTML
page that needs no server. Relative paths live under "/drake/", as in pydrake.
"""
from __future__ import annotations

import base64
import dataclasses
import io
import math
import threading
import warnings
import zipfile

import numpy as np

from mallard.common.text_logging import log
from mallard.common.overloads import Overload, declares, resolve
from mallard.geometry.meshcat_animation import MeshcatAnimation, transform_matrix
from mallard.geometry.meshcat_controls import MeshcatControls
from mallard.geometry.meshcat_params import (Gamepad, MeshcatParams, OrthographicCamera, PerspectiveCamera,
                                             SideOfFaceToRender)
from mallard.geometry.meshcat_server import LOOPBACK_HOSTS, MeshcatServer, bind_first_free_port, viewer_dist_dir
from mallard.geometry.meshcat_shapes import line_object, point_cloud_object, shape_to_object, triangle_mesh_object
from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.rgba import Rgba
from mallard.geometry.shapes import Shape

__all__ = ["Meshcat", "MeshcatParams", "StartMeshcat"]

_log = log()
_DEFAULT_PORTS = list(range(7000, 7100))
_INIT_OVERLOADS = (Overload(("port", (int, np.integer, type(None)), None)), Overload(("params", MeshcatParams)))


class _Node:
    __slots__ = ("object", "transform", "properties")

    def __init__(self):
        self.object: bytes | None = None
        self.transform: bytes | None = None
        self.properties: dict[str, bytes] = {}


def _pack(command: dict) -> bytes:
    import umsgpack

    return umsgpack.packb(command)


def _full_path(path: str) -> str:
    """Absolute scene path: relative paths go under /drake/; no trailing slash."""
    if not isinstance(path, str):
        raise ValueError(f"Meshcat: a path must be a string; given {type(path).__name__}")
    full = path if path.startswith("/") else "/drake/" + path
    while len(full) > 1 and full.endswith("/"):
        full = full[:-1]
    return full


def _color(rgba, default: tuple, who: str) -> Rgba:
    """``rgba`` (an Rgba), or the default color when it is None."""
    if rgba is None:
        return Rgba(*default)
    if not isinstance(rgba, Rgba):
        raise ValueError(f"Meshcat.{who}: rgba must be an Rgba; given {type(rgba).__name__}")
    return rgba


def _key(full: str) -> tuple:
    return tuple(p for p in full.split("/") if p)


class Meshcat(MeshcatControls):
    """A browser-based 3D scene: SetObject / SetTransform / SetProperty / SetLine / Delete, buttons and
    sliders, cameras, recordings, and StaticHtml. ``Meshcat(port=None)`` or ``Meshcat(params)``; pydrake
    scripts usually call ``StartMeshcat()``."""

    PerspectiveCamera = PerspectiveCamera
    OrthographicCamera = OrthographicCamera
    Gamepad = Gamepad
    SideOfFaceToRender = SideOfFaceToRender

    @declares(_INIT_OVERLOADS)
    def __init__(self, *args, **kwargs):
        k, a = resolve("Meshcat", _INIT_OVERLOADS, args, kwargs)
        params = MeshcatParams(port=None if a["port"] is None else int(a["port"])) if k == 0 else a["params"]
        if params.host in ("*", ""):  # pydrake's "all interfaces": mallard still serves loopback only
            warnings.warn("Meshcat: host '*' asks for all network interfaces; mallard serves the viewer on "
                          "127.0.0.1 only", RuntimeWarning, stacklevel=2)
            params = dataclasses.replace(params, host="localhost")
        if params.host not in LOOPBACK_HOSTS:
            raise ValueError(f"Meshcat: host {params.host!r} is not a loopback address; mallard serves the viewer "
                             f"on this machine only ({', '.join(LOOPBACK_HOSTS)})")
        if params.port is not None and not (0 <= int(params.port) <= 65535):
            raise ValueError(f"Meshcat: port must be in [0, 65535]; given {params.port}")
        self._params = dataclasses.replace(params, initial_properties=list(params.initial_properties))
        self._lock = threading.RLock()
        self._nodes: dict[tuple, _Node] = {}
        self._animation_msg: bytes | None = None
        self._recording: MeshcatAnimation | None = None
        self._is_recording = False
        self._set_while_recording = True
        self._init_controls()
        bind_host = "::1" if params.host == "::1" else "127.0.0.1"
        candidates = _DEFAULT_PORTS if params.port is None else [int(params.port)]
        sockets, self._port = bind_first_free_port(bind_host, candidates)
        self._server = MeshcatServer(sockets, self._scene_messages, self._on_browser_message)
        self._url_host = {"::1": "[::1]"}.get(params.host, params.host)
        self._web_url = params.web_url_pattern.format(host=self._url_host, port=self._port)
        _log.info("Meshcat listening for connections at %s", self._web_url)
        for prop in self._params.initial_properties:
            self.SetProperty(prop.path, prop.property, prop.value)

    # ----- server -----------------------------------------------------------------------------------
    def web_url(self) -> str:
        """The URL to open in a browser to see the scene."""
        return self._web_url

    def port(self) -> int:
        return self._port

    def ws_url(self) -> str:
        """The websocket URL the viewer connects to."""
        return f"ws://{self._url_host}:{self._port}"

    def GetNumActiveConnections(self) -> int:
        return self._server.num_clients()

    def Close(self) -> None:
        """(mallard) Stop the web server now (it also stops when the process exits)."""
        self._server.stop()

    def __del__(self):
        server = getattr(self, "_server", None)
        if server is not None:
            server.stop()

    def _send(self, message: bytes) -> None:
        self._server.broadcast(message)

    def _scene_messages(self) -> list[bytes]:
        """The messages that rebuild the whole scene in a fresh viewer, parents first."""
        with self._lock:
            out = []
            for key in sorted(self._nodes, key=len):
                node = self._nodes[key]
                if node.object is not None:
                    out.append(node.object)
                out.extend(node.properties.values())
                if node.transform is not None:
                    out.append(node.transform)
            if self._animation_msg is not None:
                out.append(self._animation_msg)
            return out

    def _node(self, full: str) -> _Node:
        key = _key(full)
        node = self._nodes.get(key)
        if node is None:
            node = self._nodes[key] = _Node()
        return node

    # ----- scene ------------------------------------------------------------------------------------
    _OBJECT_OVERLOADS = (
        Overload(("path", str), ("shape", Shape), ("rgba", None, None)),
        Overload(("path", str), ("mesh", TriangleSurfaceMesh), ("rgba", None, None), ("wireframe", bool, False),
                 ("wireframe_line_width", None, 1.0), ("side", None, SideOfFaceToRender.kDoubleSide)))
    _CLOUD_OVERLOAD = (Overload(("path", str), ("cloud", None), ("point_size", None, 0.001), ("rgba", None, None)),)

    @declares(_OBJECT_OVERLOADS + _CLOUD_OVERLOAD)
    def SetObject(self, *args, **kwargs) -> None:
        """Draw at ``path``: SetObject(path, shape, rgba=Rgba(.9, .9, .9)) a Shape (mesh files keep their own
        materials where the viewer supports them); SetObject(path, cloud, point_size=0.001, rgba=...) a point
        cloud (an object with xyzs() (3, N) [m] and, optionally, rgbs() (3, N) 0..255, or a 3xN array);
        SetObject(path, mesh, rgba=Rgba(.1, .1, .1), wireframe=False, wireframe_line_width=1.0,
        side=kDoubleSide) a TriangleSurfaceMesh. Replaces any object already at ``path``."""
        second = kwargs.get("cloud", args[1] if len(args) > 1 else None)
        if "cloud" in kwargs or hasattr(second, "xyzs") or isinstance(second, np.ndarray):
            _, a = resolve("Meshcat.SetObject", self._CLOUD_OVERLOAD, args, kwargs)
            cloud = a["cloud"]
            if hasattr(cloud, "xyzs"):
                xyzs = cloud.xyzs()
                rgbs = cloud.rgbs() if getattr(cloud, "has_rgbs", lambda: False)() else None
            else:
                xyzs, rgbs = np.asarray(cloud, dtype=float), None
            self._set_object_command(a["path"], point_cloud_object(xyzs, rgbs, float(a["point_size"]),
                                                                   _color(a["rgba"], (0.9, 0.9, 0.9), "SetObject")))
            return
        if second is not None and not isinstance(second, (Shape, TriangleSurfaceMesh)) and "mesh" not in kwargs:
            raise ValueError(f"Meshcat.SetObject: cannot draw a {type(second).__name__}; pass a Shape (Sphere, Box, "
                             "Cylinder, Capsule, Ellipsoid, HalfSpace, Mesh, Convex ...), a TriangleSurfaceMesh or "
                             "a point cloud")
        k, a = resolve("Meshcat.SetObject", self._OBJECT_OVERLOADS, args, kwargs)
        if k == 0:
            obj = shape_to_object(a["shape"], _color(a["rgba"], (0.9, 0.9, 0.9), "SetObject"))
        else:
            mesh = a["mesh"]
            obj = triangle_mesh_object(mesh.vertex_array().T, mesh.element_array().T,
                                       _color(a["rgba"], (0.1, 0.1, 0.1), "SetObject"), a["wireframe"],
                                       a["wireframe_line_width"], int(a["side"]))
        self._set_object_command(a["path"], obj)

    def _set_object_command(self, path: str, obj: dict) -> None:
        full = _full_path(path)
        self._set_object_message(full, _pack({"type": "set_object", "path": full, "object": obj}))

    def _set_object_message(self, full: str, msg: bytes) -> None:
        with self._lock:
            node = self._node(full)
            node.object = msg
            node.properties = {}
        self._send(msg)

    def SetTriangleMesh(self, path: str, vertices, faces, rgba: Rgba = Rgba(0.1, 0.1, 0.1, 1.0),
                        wireframe: bool = False, wireframe_line_width: float = 1.0,
                        side: SideOfFaceToRender = SideOfFaceToRender.kDoubleSide) -> None:
        """Draw triangles given vertices (3xN, in the frame of ``path``) and faces (3xM indices)."""
        self._set_object_command(path, triangle_mesh_object(vertices, faces, rgba, wireframe, wireframe_line_width,
                                                            int(side)))

    def SetTriangleColorMesh(self, path: str, vertices, faces, colors, wireframe: bool = False,
                             wireframe_line_width: float = 1.0,
                             side: SideOfFaceToRender = SideOfFaceToRender.kDoubleSide) -> None:
        """Draw triangles colored per vertex: ``colors`` (3xN, each channel in [0, 1])."""
        self._set_object_command(path, triangle_mesh_object(vertices, faces, Rgba(1.0, 1.0, 1.0), wireframe,
                                                            wireframe_line_width, int(side), colors=colors))

    def PlotSurface(self, path: str, X, Y, Z, rgba: Rgba = Rgba(0.1, 0.1, 0.9, 1.0), wireframe: bool = False,
                    wireframe_line_width: float = 1.0) -> None:
        """Draw the surface z = Z over the grid (X, Y) (all m x n, as from np.meshgrid)."""
        X, Y, Z = (np.asarray(M, dtype=float) for M in (X, Y, Z))
        if X.ndim != 2 or X.shape != Y.shape or X.shape != Z.shape:
            raise ValueError(f"Meshcat.PlotSurface('{path}'): X, Y and Z must be matrices of one shape; given "
                             f"{X.shape}, {Y.shape}, {Z.shape}")
        m, n = X.shape
        V = np.vstack([X.ravel(), Y.ravel(), Z.ravel()])
        idx = np.arange(m * n).reshape(m, n)
        a, b, c, d = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
        F = np.hstack([np.vstack([a, b, c]), np.vstack([a, c, d])])
        self.SetTriangleMesh(path, V, F, rgba, wireframe, wireframe_line_width)

    def SetLine(self, path: str, vertices, line_width: float = 1.0, rgba: Rgba = Rgba(0.1, 0.1, 0.1, 1.0)) -> None:
        """Draw a polyline through the columns of ``vertices`` (3xN, in the frame of ``path``)."""
        self._set_object_command(path, line_object(vertices, rgba, line_width, segments=False))

    def SetLineSegments(self, path: str, start, end, line_width: float = 1.0,
                        rgba: Rgba = Rgba(0.1, 0.1, 0.1, 1.0)) -> None:
        """Draw segments from the columns of ``start`` to those of ``end`` (both 3xN)."""
        S, E = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        if S.shape != E.shape or S.ndim != 2 or S.shape[0] != 3:
            raise ValueError(f"Meshcat.SetLineSegments('{path}'): start and end must both be 3xN; given {S.shape} "
                             f"and {E.shape}")
        V = np.empty((3, 2 * S.shape[1]))
        V[:, 0::2], V[:, 1::2] = S, E
        self._set_object_command(path, line_object(V, rgba, line_width, segments=True))

    _TRANSFORM_OVERLOADS = (Overload(("path", str), ("X_ParentPath", None), ("time_in_recording", None, None)),
                            Overload(("path", str), ("matrix", None)))

    @declares(_TRANSFORM_OVERLOADS)
    def SetTransform(self, *args, **kwargs) -> None:
        """SetTransform(path, X_ParentPath, time_in_recording=None) or SetTransform(path, matrix): the pose of
        ``path`` in its parent path (RigidTransform or 4x4). While recording, a ``time_in_recording`` (s) keys
        the recording at that time."""
        k, a = resolve("Meshcat.SetTransform", self._TRANSFORM_OVERLOADS, args, kwargs)
        path = a["path"]
        M = transform_matrix(a["X_ParentPath"] if k == 0 else a["matrix"], f"Meshcat.SetTransform('{path}')")
        full = _full_path(path)
        t = a.get("time_in_recording")
        if self._is_recording and t is not None:
            rec = self._recording
            rec.SetTransform(rec.frame(t - rec.start_time()), full, M)
            if not self._set_while_recording:
                return
        msg = _pack({"type": "set_transform", "path": full, "matrix": [float(x) for x in M.T.reshape(-1)]})
        with self._lock:
            self._node(full).transform = msg
        self._send(msg)

    def SetProperty(self, path: str, property: str, value, time_in_recording: float | None = None) -> None:
        """Set a property of the object at ``path`` (e.g. "visible", "color" [r, g, b, a], "top_color"
        of "/Background"); bool, number or list of numbers."""
        if not isinstance(property, str) or not property:
            raise ValueError(f"Meshcat.SetProperty('{path}'): property must be a non-empty string; given {property!r}")
        if isinstance(value, (bool, np.bool_)):
            v = bool(value)
        elif isinstance(value, (int, float, np.number)):
            v = float(value)
            if not math.isfinite(v):
                raise ValueError(f"Meshcat.SetProperty('{path}', '{property}'): value must be finite; given {value}")
        else:
            arr = np.asarray(value, dtype=float).reshape(-1)
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"Meshcat.SetProperty('{path}', '{property}'): values must be finite; given "
                                 f"{arr.tolist()}")
            v = arr.tolist()
        full = _full_path(path)
        if self._is_recording and time_in_recording is not None:
            rec = self._recording
            rec.SetProperty(rec.frame(time_in_recording - rec.start_time()), full, property, v)
            if not self._set_while_recording:
                return
        self._set_property_command(path, property, v)

    def _set_property_command(self, path: str, property: str, value) -> None:
        full = _full_path(path)
        msg = _pack({"type": "set_property", "path": full, "property": property, "value": value})
        with self._lock:
            self._node(full).properties[property] = msg
        self._send(msg)

    def Delete(self, path: str = "") -> None:
        """Delete ``path`` and everything under it (default: everything under /drake)."""
        full = _full_path(path)
        key = _key(full)
        if not key:
            raise ValueError("Meshcat.Delete: deleting the root '/' is not supported; delete '/drake' or a sub-path")
        with self._lock:
            for k in [k for k in self._nodes if k[:len(key)] == key]:
                del self._nodes[k]
        self._send(_pack({"type": "delete", "path": full}))

    def HasPath(self, path: str) -> bool:
        """True if something was set at ``path`` or below it."""
        key = _key(_full_path(path))
        with self._lock:
            return any(k[:len(key)] == key for k in self._nodes)

    def _GetPackedObject(self, path: str) -> bytes:
        """The msgpack ``set_object`` command last sent for ``path`` (b"" if none)."""
        with self._lock:
            node = self._nodes.get(_key(_full_path(path)))
            return b"" if node is None or node.object is None else node.object

    def _GetPackedTransform(self, path: str) -> bytes:
        """The msgpack ``set_transform`` command last sent for ``path`` (b"" if none)."""
        with self._lock:
            node = self._nodes.get(_key(_full_path(path)))
            return b"" if node is None or node.transform is None else node.transform

    def _GetPackedProperty(self, path: str, property: str) -> bytes:
        """The msgpack ``set_property`` command last sent for (``path``, ``property``) (b"" if none)."""
        with self._lock:
            node = self._nodes.get(_key(_full_path(path)))
            return b"" if node is None else node.properties.get(property, b"")

    def Flush(self) -> None:
        """Return once every command sent so far has been handed to the connected browsers."""
        self._server.flush()

    def _on_browser_message(self, message: bytes) -> None:
        try:
            self._InjectWebsocketMessage(message)
        except ValueError as exc:  # a malformed message from a browser must not stop the server
            _log.warning("%s", exc)

    # ----- animation and recording ------------------------------------------------------------------
    def SetAnimation(self, animation: MeshcatAnimation) -> None:
        """Send ``animation`` to the viewer (it replaces any earlier one)."""
        if not isinstance(animation, MeshcatAnimation):
            raise ValueError(f"Meshcat.SetAnimation needs a MeshcatAnimation; given {type(animation).__name__}")
        msg = _pack(animation.lowered(_full_path))
        with self._lock:
            self._animation_msg = msg
        self._send(msg)

    def StartRecording(self, frames_per_second: float = 64.0, set_visualizations_while_recording: bool = True) \
            -> None:
        """Start keying SetTransform/SetProperty calls that pass ``time_in_recording`` into a new recording (the
        old one is discarded); with ``set_visualizations_while_recording`` False they only key it."""
        self._recording = MeshcatAnimation(frames_per_second)
        self._is_recording = True
        self._set_while_recording = bool(set_visualizations_while_recording)

    def StopRecording(self) -> None:
        """Stop recording; the recording is kept for PublishRecording / StaticHtml."""
        self._is_recording = False

    def is_recording(self) -> bool:
        return self._is_recording

    def PublishRecording(self) -> None:
        """Send the recording to the viewer as its animation (and into StaticHtml)."""
        if self._recording is None:
            raise RuntimeError("Meshcat.PublishRecording: nothing was recorded; call StartRecording() first")
        self.SetAnimation(self._recording)

    def DeleteRecording(self) -> None:
        """Forget the recording (and stop recording)."""
        self._recording = None
        self._is_recording = False

    def get_mutable_recording(self) -> MeshcatAnimation:
        if self._recording is None:
            raise RuntimeError("Meshcat.get_mutable_recording: there is no recording; call StartRecording() first")
        return self._recording

    def get_recording(self) -> MeshcatAnimation:
        return self.get_mutable_recording()

    # ----- static html ------------------------------------------------------------------------------
    def StaticHtml(self) -> str:
        """A self-contained HTML page (viewer code inlined, scene commands as data URLs) showing the current
        scene and its published animation; open it in any browser, no server needed."""
        with open(f"{viewer_dist_dir()}/main.min.js", "r", encoding="utf-8") as f:
            viewer_js = f.read()
        if "</script" in viewer_js.lower():
            raise RuntimeError("Meshcat.StaticHtml: the meshcat viewer script contains '</script' and cannot be "
                               "inlined; upgrade the meshcat package")
        commands = ",\n".join('"data:application/octet-binary;base64,' + base64.b64encode(m).decode("ascii") + '"'
                               for m in self._scene_messages())
        return _STATIC_PAGE.replace("@VIEWER_JS@", viewer_js).replace("@COMMANDS@", commands)

    def StaticZip(self) -> bytes:
        """StaticHtml() as meshcat.html in a zip archive (bytes)."""
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr("meshcat.html", self.StaticHtml())
        return out.getvalue()


_STATIC_PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>mallard meshcat</title>
<style>
body { margin: 0; }
#meshcat-pane { width: 100vw; height: 100vh; overflow: hidden; }
</style>
</head>
<body>
<div id="meshcat-pane"></div>
<script>
@VIEWER_JS@
</script>
<script>
(function () {
  var viewer = new MeshCat.Viewer(document.getElementById("meshcat-pane"));
  window.viewer = viewer;
  var commands = [
@COMMANDS@
  ];
  for (var i = 0; i < commands.length; ++i) {
    var text = atob(commands[i].substring(commands[i].indexOf(",") + 1));
    var bytes = new Uint8Array(text.length);
    for (var k = 0; k < text.length; ++k) { bytes[k] = text.charCodeAt(k); }
    viewer.handle_command_bytearray(bytes);
  }
})();
</script>
</body>
</html>
"""


def StartMeshcat(params: MeshcatParams | None = None) -> Meshcat:
    """Start a Meshcat server on this machine (as pydrake's StartMeshcat: a Meshcat with default parameters, whose
    constructor logs the URL to open at INFO level on the "drake" logger)."""
    return Meshcat(params)
