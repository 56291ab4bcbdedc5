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
import logging
import math
import threading
import warnings

import numpy as np

from mallard.geometry.meshcat_animation import MeshcatAnimation, transform_matrix
from mallard.geometry.meshcat_server import LOOPBACK_HOSTS, MeshcatServer, bind_first_free_port, viewer_dist_dir
from mallard.geometry.meshcat_shapes import line_object, shape_to_object, triangle_mesh_object
from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.rgba import Rgba
from mallard.geometry.shapes import Shape

_log = logging.getLogger("mallard.meshcat")
_DEFAULT_PORTS = list(range(7000, 7100))


@dataclasses.dataclass
class MeshcatParams:
    """Settings of a Meshcat server. ``port=None`` tries 7000..7099; a given port that is busy is
    replaced by the next free one (with a warning naming both); 0 picks any free port. ``host``
    must be a loopback address (pydrake's "*" is taken as loopback, with a warning): mallard never
    serves the scene beyond this machine."""

    host: str = "localhost"
    port: int | None = None
    web_url_pattern: str = "http://{host}:{port}"
    show_stats_plot: bool = False


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


def _key(full: str) -> tuple:
    return tuple(p for p in full.split("/") if p)


class Meshcat:
    """A browser-based 3D scene: SetObject / SetTransform / SetProperty / SetLine / Delete, recordings,
    and StaticHtml. Use ``StartMeshcat()`` to make one."""

    def __init__(self, params: MeshcatParams | int | None = None):
        if params is None:
            params = MeshcatParams()
        elif isinstance(params, (int, np.integer)) and not isinstance(params, bool):
            params = MeshcatParams(port=int(params))
        if not isinstance(params, MeshcatParams):
            raise ValueError(f"Meshcat(params): need MeshcatParams or a port number; given {type(params).__name__}")
        if params.host in ("*", ""):  # pydrake's "all interfaces": mallard still serves loopback only
            warnings.warn("Meshcat: host '*' asks for all network interfaces; mallard serves the viewer on "
                          "127.0.0.1 only", RuntimeWarning, stacklevel=2)
            params = dataclasses.replace(params, host="localhost")
        if params.host not in LOOPBACK_HOSTS:
            raise ValueError(f"Meshcat: host {params.host!r} is not a loopback address; mallard serves the viewer "
                             f"on this machine only ({', '.join(LOOPBACK_HOSTS)})")
        if params.port is not None and not (0 <= int(params.port) <= 65535):
            raise ValueError(f"Meshcat: port must be in [0, 65535]; given {params.port}")
        self._params = dataclasses.replace(params)
        self._lock = threading.RLock()
        self._nodes: dict[tuple, _Node] = {}
        self._animation_msg: bytes | None = None
        self._recording: MeshcatAnimation | None = None
        self._is_recording = False
        self._set_while_recording = True
        bind_host = "::1" if params.host == "::1" else "127.0.0.1"
        if params.port is None:
            candidates = _DEFAULT_PORTS
        elif int(params.port) == 0:
            candidates = [0]
        else:
            p = int(params.port)
            candidates = [p] + [q for q in range(p + 1, min(p + 100, 65536))]
        sockets, self._port = bind_first_free_port(bind_host, candidates)
        if params.port not in (None, 0) and self._port != int(params.port):
            warnings.warn(f"Meshcat: port {params.port} is busy; using port {self._port} instead", RuntimeWarning,
                          stacklevel=2)
        self._server = MeshcatServer(sockets, self._scene_messages)
        url_host = "127.0.0.1" if params.host != "::1" else "[::1]"
        self._web_url = params.web_url_pattern.format(host=url_host, port=self._port)
        _log.info("Meshcat listening for connections at %s", self._web_url)

    # ----- server -----------------------------------------------------------------------------------
    def web_url(self) -> str:
        """The URL to open in a browser to see the scene."""
        return self._web_url

    def port(self) -> int:
        return self._port

    def ws_url(self) -> str:
        """The websocket URL the viewer connects to."""
        return f"ws://127.0.0.1:{self._port}"

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
    def SetObject(self, path: str, shape, rgba: Rgba = Rgba(0.9, 0.9, 0.9, 1.0)) -> None:
        """Draw ``shape`` (a Shape) at ``path`` in color ``rgba``; mesh files keep their own materials
        where the viewer supports them. Replaces any object already at ``path``."""
        if not isinstance(shape, (Shape, TriangleSurfaceMesh)):
            raise ValueError(f"Meshcat.SetObject('{path}'): cannot draw a {type(shape).__name__}; pass a Shape "
                             "(Sphere, Box, Cylinder, Capsule, Ellipsoid, HalfSpace, Mesh, Convex ...)")
        full = _full_path(path)
        msg = _pack({"type": "set_object", "path": full, "object": shape_to_object(shape, rgba)})
        self._set_object_message(full, msg)

    def _set_object_message(self, full: str, msg: bytes) -> None:
        with self._lock:
            node = self._node(full)
            node.object = msg
            node.properties = {}
        self._send(msg)

    def SetTriangleMesh(self, path: str, vertices, faces, rgba: Rgba = Rgba(0.1, 0.1, 0.1, 1.0),
                        wireframe: bool = False) -> None:
        """Draw triangles given vertices (3xN, in the frame of ``path``) and faces (3xM indices)."""
        full = _full_path(path)
        msg = _pack({"type": "set_object", "path": full, "object": triangle_mesh_object(vertices, faces, rgba,
                                                                                         wireframe)})
        self._set_object_message(full, msg)

    def SetLine(self, path: str, vertices, line_width: float = 1.0, rgba: Rgba = Rgba(0.1, 0.1, 0.1, 1.0)) -> None:
        """Draw a polyline through the columns of ``vertices`` (3xN, in the frame of ``path``)."""
        full = _full_path(path)
        msg = _pack({"type": "set_object", "path": full,
                     "object": line_object(vertices, rgba, line_width, segments=False)})
        self._set_object_message(full, msg)

    def SetLineSegments(self, path: str, start, end, line_width: float = 1.0,
                        rgba: Rgba = Rgba(0.1, 0.1, 0.1, 1.0)) -> None:
        """Draw segments from the columns of ``start`` to those of ``end`` (both 3xN)."""
        S, E = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        if S.shape != E.shape or S.ndim != 2 or S.shape[0] != 3:
            raise ValueError(f"Meshcat.SetLineSegments('{path}'): start and end must both be 3xN; given {S.shape} "
                             f"and {E.shape}")
        V = np.empty((3, 2 * S.shape[1]))
        V[:, 0::2], V[:, 1::2] = S, E
        full = _full_path(path)
        msg = _pack({"type": "set_object", "path": full, "object": line_object(V, rgba, line_width, segments=True)})
        self._set_object_message(full, msg)

    def SetTransform(self, path: str, X_ParentPath, time_in_recording: float | None = None) -> None:
        """Set the pose of ``path`` in its parent path (RigidTransform or 4x4). While recording, a
        ``time_in_recording`` (s) also keys the recording at that time."""
        M = transform_matrix(X_ParentPath, f"Meshcat.SetTransform('{path}')")
        full = _full_path(path)
        if self._is_recording and time_in_recording is not None:
            rec = self._recording
            rec.SetTransform(rec.frame(time_in_recording - rec.start_time()), full, M)
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
        msg = _pack({"type": "set_property", "path": full, "property": property, "value": v})
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

    # ----- animation and recording ------------------------------------------------------------------
    def SetAnimation(self, animation: MeshcatAnimation) -> None:
        """Send ``animation`` to the viewer (it replaces any earlier one)."""
        if not isinstance(animation, MeshcatAnimation):
            raise ValueError(f"Meshcat.SetAnimation needs a MeshcatAnimation; given {type(animation).__name__}")
        msg = _pack(animation.lowered(_full_path))
        with self._lock:
            self._animation_msg = msg
        self._send(msg)

    def StartRecording(self, frames_per_second: float = 64.0, set_transforms_while_recording: bool = True) -> None:
        """Start keying SetTransform/SetProperty calls that pass ``time_in_recording`` into a new
        recording (the old one is discarded)."""
        self._recording = MeshcatAnimation(frames_per_second)
        self._is_recording = True
        self._set_while_recording = bool(set_transforms_while_recording)

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
        """A self-contained HTML page (viewer code inlined) showing the current scene and its
        published animation; open it in any browser, no server needed."""
        with open(f"{viewer_dist_dir()}/main.min.js", "r", encoding="utf-8") as f:
            viewer_js = f.read()
        if "</script" in viewer_js.lower():
            raise RuntimeError("Meshcat.StaticHtml: the meshcat viewer script contains '</script' and cannot be "
                               "inlined; upgrade the meshcat package")
        commands = ",\n".join('"' + base64.b64encode(m).decode("ascii") + '"' for m in self._scene_messages())
        return _STATIC_PAGE.replace("@VIEWER_JS@", viewer_js).replace("@COMMANDS@", commands)


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
    var text = atob(commands[i]);
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
    """Start a Meshcat server on this machine and print the URL to open (as pydrake's StartMeshcat)."""
    meshcat = Meshcat(params)
    print(f"Meshcat is listening for connections at {meshcat.web_url()}")
    return meshcat
