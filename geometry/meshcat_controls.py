"""The interactive side of Meshcat (a base class of mallard.geometry.Meshcat): buttons and sliders in the
viewer's control panel, the gamepad and tracked-camera state browsers report, cameras and render modes, the
environment map, and the realtime-rate display.

Browsers report clicks, slider moves, gamepad and camera state as msgpack messages over the websocket
(pydrake's protocol); ``_InjectWebsocketMessage`` handles one, as if a browser had sent it. Controls are
shown with the viewer's ``set_control`` command.
"""
from __future__ import annotations

import base64
import math
import mimetypes
import os
import threading
import time

import numpy as np

from mallard.geometry.meshcat_params import Gamepad, OrthographicCamera, PerspectiveCamera
from mallard.multibody.math import RigidTransform, RotationMatrix

_DEFAULT_CAMERA_PATH = "/Cameras/default/rotated"


def _pack(command: dict) -> bytes:
    import umsgpack

    return umsgpack.packb(command)


class _Slider:
    __slots__ = ("min", "max", "step", "value")

    def __init__(self, lo: float, hi: float, step: float, value: float):
        self.min, self.max, self.step = lo, hi, step
        self.value = self.snap(value)

    def snap(self, value: float) -> float:
        """``value`` clamped to [min, max] then rounded to a multiple of the step, as dat.GUI's (and Drake's)
        setValue does."""
        v = min(max(float(value), self.min), self.max)
        return round(v / self.step) * self.step if self.step > 0 else v


class MeshcatControls:
    """Controls, cameras and viewer state of a Meshcat (see mallard.geometry.Meshcat)."""

    def _init_controls(self) -> None:
        self._controls_lock = threading.RLock()
        self._buttons: dict[str, int] = {}  # name -> clicks
        self._button_keys: dict[str, str] = {}
        self._sliders: dict[str, _Slider] = {}
        self._gamepad = Gamepad()
        self._tracked_camera: RigidTransform | None = None
        self._realtime_rate = 0.0
        self._rate_anchor: tuple[float, float] | None = None  # (sim time, wall time) of the last rate update

    # ----- buttons ------------------------------------------------------------------------------------
    def AddButton(self, name: str, keycode: str = "") -> None:
        """Add a button to the control panel (``keycode``, e.g. "KeyB", also clicks it); adding an existing
        name resets its click count."""
        with self._controls_lock:
            if name in self._sliders:
                raise RuntimeError(f"Meshcat already has a slider named {name}; controls need distinct names")
            new = name not in self._buttons
            if not new and self._button_keys.get(name, "") != str(keycode):
                raise RuntimeError(f"Meshcat already has a button named `{name}`, but the previously assigned "
                                   f"keycode `{self._button_keys[name]}` does not match the current keycode "
                                   f"`{keycode}`. To re-assign the keycode, you must first delete the button.")
            self._buttons[name] = 0
            self._button_keys[name] = str(keycode)
        if new:
            callback = f"() => this.connection.send(msgpack.encode({{'type': 'button', 'name': {name!r}}}))"
            self._send_control({"type": "set_control", "name": name, "callback": callback, "keycode": str(keycode)})

    def GetButtonClicks(self, name: str) -> int:
        """How many times the button was clicked since it was added."""
        with self._controls_lock:
            if name not in self._buttons:
                raise RuntimeError(f"Meshcat does not have any button named {name}. The registered button names "
                                   f"are ({', '.join(self._buttons)}).")
            return self._buttons[name]

    def GetButtonNames(self) -> list[str]:
        """The button names, sorted (as pydrake lists them)."""
        with self._controls_lock:
            return sorted(self._buttons)

    def DeleteButton(self, name: str, strict: bool = True) -> bool:
        """Remove a button; a missing one raises when ``strict``, else returns False."""
        with self._controls_lock:
            if name not in self._buttons:
                if strict:
                    raise RuntimeError(f"Meshcat does not have any button named {name}. The registered button "
                                       f"names are ({', '.join(self._buttons)}).")
                return False
            del self._buttons[name]
            self._button_keys.pop(name, None)
        self._send_control({"type": "delete_control", "name": name})
        return True

    # ----- sliders ------------------------------------------------------------------------------------
    def AddSlider(self, name: str, min: float, max: float, step: float, value: float, decrement_keycode: str = "",
                  increment_keycode: str = "") -> float:
        """Add a slider over [min, max] in steps of ``step``; returns its (snapped) initial value."""
        lo, hi, st = float(min), float(max), float(step)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi and st >= 0):
            raise ValueError(f"Meshcat.AddSlider('{name}'): need finite min <= max and step >= 0; given min={min}, "
                             f"max={max}, step={step}")
        with self._controls_lock:
            if name in self._sliders or name in self._buttons:
                raise RuntimeError(f"Meshcat already has a slider named {name}.")
            slider = self._sliders[name] = _Slider(lo, hi, st, value)
        callback = (f"(value) => this.connection.send(msgpack.encode({{'type': 'slider', 'name': {name!r}, "
                    "'value': value}))")
        self._send_control({"type": "set_control", "name": name, "callback": callback, "value": slider.value,
                            "min": lo, "max": hi, "step": st, "decrement_keycode": str(decrement_keycode),
                            "increment_keycode": str(increment_keycode)})
        return slider.value

    def _slider(self, name: str) -> _Slider:
        if name not in self._sliders:
            raise RuntimeError(f"Meshcat does not have any slider named {name}. The registered slider names are "
                               f"({', '.join(self._sliders)}).")
        return self._sliders[name]

    def SetSliderValue(self, name: str, value: float) -> float:
        """Move a slider (clamped and snapped to its steps); returns the value it took."""
        with self._controls_lock:
            slider = self._slider(name)
            slider.value = slider.snap(value)
            v = slider.value
        self._send_control({"type": "set_control_value", "name": name, "value": v})
        return v

    def GetSliderValue(self, name: str) -> float:
        with self._controls_lock:
            return self._slider(name).value

    def GetSliderNames(self) -> list[str]:
        """The slider names, sorted (as pydrake lists them)."""
        with self._controls_lock:
            return sorted(self._sliders)

    def DeleteSlider(self, name: str, strict: bool = True) -> bool:
        """Remove a slider; a missing one raises when ``strict``, else returns False."""
        with self._controls_lock:
            if name not in self._sliders:
                if strict:
                    self._slider(name)
                return False
            del self._sliders[name]
        self._send_control({"type": "delete_control", "name": name})
        return True

    def DeleteAddedControls(self) -> None:
        """Remove every button and slider."""
        for name in self.GetButtonNames():
            self.DeleteButton(name, strict=False)
        for name in self.GetSliderNames():
            self.DeleteSlider(name, strict=False)

    # ----- browser state ------------------------------------------------------------------------------
    def GetGamepad(self) -> Gamepad:
        """The last gamepad state a browser reported (index None when none has)."""
        with self._controls_lock:
            g = self._gamepad
            return Gamepad(g.index, list(g.button_values), list(g.axes))

    def GetTrackedCameraPose(self) -> RigidTransform | None:
        """X_WC of the camera of a browser opened with ?tracked_camera=on (C looks along +Cz, Drake's camera
        convention); None until such a browser reports it."""
        with self._controls_lock:
            return None if self._tracked_camera is None else RigidTransform(self._tracked_camera)

    def _InjectWebsocketMessage(self, message: bytes) -> None:
        """Handle one message from a browser (msgpack: button, slider, gamepad or camera_pose)."""
        import umsgpack

        try:
            data = umsgpack.unpackb(bytes(message))
        except Exception as exc:  # umsgpack raises many types for bad data
            raise ValueError(f"Meshcat: cannot decode a websocket message ({type(exc).__name__}: {exc})") from None
        if not isinstance(data, dict):
            return
        kind, name = data.get("type"), data.get("name")
        with self._controls_lock:
            if kind == "button" and name in self._buttons:
                self._buttons[name] += 1
            elif kind == "slider" and name in self._sliders:
                slider = self._sliders[name]
                slider.value = float(data.get("value", slider.value))  # the browser's slider already snapped it
            elif kind == "gamepad" and isinstance(data.get("gamepad"), dict):
                g = data["gamepad"]
                self._gamepad = Gamepad(g.get("index"), [float(x) for x in g.get("button_values", [])],
                                        [float(x) for x in g.get("axes", [])])
            elif kind == "camera_pose" and len(data.get("camera_pose", [])) == 16:
                # three.js's camera looks along -Cz with +Cy up: turn it about Cx by pi to Drake's convention.
                M = np.asarray(data["camera_pose"], dtype=float).reshape(4, 4).T
                R = M[:3, :3] @ np.diag([1.0, -1.0, -1.0])
                self._tracked_camera = RigidTransform(RotationMatrix(R), M[:3, 3])

    # ----- cameras and render modes -------------------------------------------------------------------
    def SetCamera(self, camera: PerspectiveCamera | OrthographicCamera, path: str = _DEFAULT_CAMERA_PATH) -> None:
        """Make ``camera`` the viewer's camera (placed at ``path``)."""
        if not isinstance(camera, (PerspectiveCamera, OrthographicCamera)):
            raise TypeError(f"Meshcat.SetCamera needs a Meshcat.PerspectiveCamera or Meshcat.OrthographicCamera; "
                            f"given {type(camera).__name__}")
        obj = dict(camera.lowered(), uuid=f"camera-{abs(hash(path))}")
        self._set_object_command(path, {"metadata": {"version": 4.5, "type": "Object"}, "geometries": [],
                                        "materials": [], "object": obj})

    def Set2dRenderMode(self, X_WC: RigidTransform | None = None, xmin: float = -1.0, xmax: float = 1.0,
                        ymin: float = -1.0, ymax: float = 1.0) -> None:
        """Look orthographically along +Cy of X_WC (default: from -y at the origin) at the box [xmin, xmax] x
        [ymin, ymax]; grid, axes and background are hidden."""
        if X_WC is None:
            X_WC = RigidTransform([0.0, -1.0, 0.0])
        self.SetCamera(OrthographicCamera(left=xmin, right=xmax, top=ymax, bottom=ymin, near=-1000.0, far=1000.0),
                       _DEFAULT_CAMERA_PATH)
        self.SetTransform("/Cameras/default", X_WC)
        self.SetProperty(_DEFAULT_CAMERA_PATH + "/<object>", "position", [0.0, 0.0, 0.0])
        for path in ("/Background", "/Grid", "/Axes"):
            self.SetProperty(path, "visible", False)

    def ResetRenderMode(self) -> None:
        """Back to the default perspective camera, with grid, axes and background shown."""
        self.SetCamera(PerspectiveCamera(fov=75.0, aspect=1.0, near=0.01, far=100.0), _DEFAULT_CAMERA_PATH)
        self.SetTransform("/Cameras/default", RigidTransform())
        self.SetProperty(_DEFAULT_CAMERA_PATH + "/<object>", "position", [3.0, 1.0, 0.0])
        for path in ("/Background", "/Grid", "/Axes"):
            self.SetProperty(path, "visible", True)

    def SetCameraTarget(self, target_in_world) -> None:
        """Point the viewer's orbit controls at ``target_in_world`` (m). The viewer bundled with the meshcat
        package has no orbit-target command; Drake's viewer does."""
        p = _finite3(target_in_world, "SetCameraTarget")
        self._send_view({"type": "set_target", "value": [p[0], p[2], -p[1]]})  # three.js is y-up

    def SetCameraPose(self, camera_in_world, target_in_world) -> None:
        """Place the default camera at ``camera_in_world`` looking at ``target_in_world`` (both m, World)."""
        cam, target = _finite3(camera_in_world, "SetCameraPose"), _finite3(target_in_world, "SetCameraPose")
        self.SetTransform("/Cameras/default", RigidTransform(target))
        d = cam - target
        self.SetProperty(_DEFAULT_CAMERA_PATH + "/<object>", "position", [d[0], d[2], -d[1]])
        self.SetCameraTarget(target)

    def SetEnvironmentMap(self, image_path: str | os.PathLike) -> None:
        """Light and back the scene with an equirectangular image ("" removes it); sent as a data URL."""
        path = os.fspath(image_path)
        value = ""
        if path:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                raise RuntimeError(f"Meshcat.SetEnvironmentMap: cannot read the image '{path}'") from None
            mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
            value = f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
        self._set_property_command("/Background/<object>", "environment_map", value)

    # ----- realtime rate ------------------------------------------------------------------------------
    def SetRealtimeRate(self, rate: float) -> None:
        """Show ``rate`` as the realtime rate in the viewer's stats."""
        self._realtime_rate = float(rate)
        self._send_view({"type": "realtime_rate", "rate": self._realtime_rate})

    def GetRealtimeRate(self) -> float:
        return self._realtime_rate

    def SetSimulationTime(self, sim_time: float) -> None:
        """Report the simulation time; every realtime_rate_period of wall time the realtime rate is updated."""
        now, t = time.monotonic(), float(sim_time)
        anchor = self._rate_anchor
        if anchor is None or t < anchor[0]:
            self._rate_anchor = (t, now)
            return
        wall = now - anchor[1]
        if wall >= self._params.realtime_rate_period:
            self.SetRealtimeRate((t - anchor[0]) / wall)
            self._rate_anchor = (t, now)

    # ----- plumbing -----------------------------------------------------------------------------------
    def _send_control(self, command: dict) -> None:
        self._send(_pack(command))

    def _send_view(self, command: dict) -> None:
        self._send(_pack(command))


def _finite3(v, who: str) -> np.ndarray:
    p = np.asarray(v, dtype=float).reshape(-1)
    if p.size != 3 or not np.all(np.isfinite(p)):
        raise ValueError(f"Meshcat.{who}: need 3 finite coordinates; given {p.tolist()}")
    return p
