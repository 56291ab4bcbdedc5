"""MeshcatAnimation: keyframes of transforms and properties for the meshcat viewer
(pydrake.geometry.MeshcatAnimation). A Meshcat's recording is one of these."""
from __future__ import annotations

import enum
import math

import numpy as np


class _LoopMode(enum.IntEnum):
    """How the animation repeats (values are three.js's loop constants)."""

    kLoopOnce = 2200
    kLoopRepeat = 2201
    kLoopPingPong = 2202


def transform_matrix(X, who: str) -> np.ndarray:
    """A 4x4 homogeneous matrix from a RigidTransform (anything with GetAsMatrix4) or a 4x4 array."""
    M = X.GetAsMatrix4() if hasattr(X, "GetAsMatrix4") else X
    M = np.asarray(M, dtype=float)
    if M.shape != (4, 4):
        raise ValueError(f"{who}: the transform must be a RigidTransform or a 4x4 matrix; given shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{who}: the transform has NaN or inf entries")
    return M


def quaternion_xyzw(R: np.ndarray) -> list[float]:
    """The unit quaternion [x, y, z, w] (three.js order) of a rotation matrix."""
    t = R[0, 0] + R[1, 1] + R[2, 2]
    if t > 0:
        s = 2.0 * math.sqrt(t + 1.0)
        w, x, y, z = 0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        w, x, y, z = (R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        w, x, y, z = (R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s
    else:
        s = 2.0 * math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        w, x, y, z = (R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s
    q = np.array([x, y, z, w])
    return (q / np.linalg.norm(q)).tolist()


class MeshcatAnimation:
    """Keyframed transforms and properties of scene paths, played back by the viewer.

    Frames are integers; frame k is shown at time k / frames_per_second (s) after the start.
    """

    LoopMode = _LoopMode

    def __init__(self, frames_per_second: float = 64.0):
        fps = float(frames_per_second)
        if not math.isfinite(fps) or fps <= 0:
            raise ValueError(f"MeshcatAnimation: frames_per_second must be finite and > 0; given {frames_per_second!r}")
        self._fps = fps
        self._start_time = 0.0
        self._autoplay = True
        self._loop_mode = _LoopMode.kLoopRepeat
        self._repetitions = 1
        self._clamp = True
        # path -> property -> (three.js type, {frame: value})
        self._tracks: dict[str, dict[str, tuple[str, dict[int, object]]]] = {}

    # ----- timing ----------------------------------------------------------------------------------
    def frames_per_second(self) -> float:
        return self._fps

    def start_time(self) -> float:
        """The simulation time (s) of frame 0."""
        return self._start_time

    def set_start_time(self, time: float) -> None:
        self._start_time = float(time)

    def frame(self, time_from_start: float) -> int:
        """The frame shown at ``time_from_start`` (s) after start_time() (the nearest one, so publish
        times that are multiples of 1/fps map to distinct frames despite round-off)."""
        t = float(time_from_start)
        if not math.isfinite(t) or t < 0:
            raise ValueError(f"MeshcatAnimation.frame: time must be finite and >= start_time; given {t} s from start")
        return int(math.floor(t * self._fps + 0.5))

    # ----- options ---------------------------------------------------------------------------------
    def autoplay(self) -> bool:
        return self._autoplay

    def set_autoplay(self, play: bool) -> None:
        self._autoplay = bool(play)

    def loop_mode(self) -> _LoopMode:
        return self._loop_mode

    def set_loop_mode(self, mode: _LoopMode) -> None:
        self._loop_mode = _LoopMode(mode)

    def repetitions(self) -> int:
        return self._repetitions

    def set_repetitions(self, repetitions: int) -> None:
        if int(repetitions) < 1:
            raise ValueError(f"MeshcatAnimation: repetitions must be >= 1; given {repetitions!r}")
        self._repetitions = int(repetitions)

    def clamp_when_finished(self) -> bool:
        return self._clamp

    def set_clamp_when_finished(self, clamp: bool) -> None:
        self._clamp = bool(clamp)

    # ----- keyframes -------------------------------------------------------------------------------
    def _set(self, frame: int, path: str, prop: str, jstype: str, value) -> None:
        if int(frame) != frame or frame < 0:
            raise ValueError(f"MeshcatAnimation: frame must be a non-negative integer; given {frame!r}")
        tracks = self._tracks.setdefault(path, {})
        kind, keys = tracks.setdefault(prop, (jstype, {}))
        if kind != jstype:
            raise ValueError(f"MeshcatAnimation: property '{prop}' of '{path}' holds {kind} values; cannot set a "
                             f"{jstype} value")
        keys[int(frame)] = value

    def SetTransform(self, frame: int, path: str, X_ParentPath) -> None:
        """Key the pose of ``path`` in its parent at ``frame`` (RigidTransform or 4x4)."""
        M = transform_matrix(X_ParentPath, "MeshcatAnimation.SetTransform")
        self._set(frame, path, "position", "vector3", M[:3, 3].tolist())
        self._set(frame, path, "quaternion", "quaternion", quaternion_xyzw(M[:3, :3]))

    def SetProperty(self, frame: int, path: str, property: str, value) -> None:
        """Key a property (bool, number, or list of numbers) of the object at ``path``."""
        if isinstance(value, (bool, np.bool_)):
            self._set(frame, path, property, "boolean", bool(value))
        elif isinstance(value, (int, float, np.number)):
            self._set(frame, path, property, "number", float(value))
        else:
            v = np.asarray(value, dtype=float).reshape(-1)
            self._set(frame, path, property, "vector", v.tolist())

    def paths(self) -> list[str]:
        return list(self._tracks)

    def num_frames(self) -> int:
        """One past the last keyed frame (0 when empty)."""
        last = [max(keys) for t in self._tracks.values() for _, keys in t.values() if keys]
        return max(last) + 1 if last else 0

    def get_key_frame(self, frame: int, path: str, property: str):
        """The value keyed at (frame, path, property), or None."""
        return self._tracks.get(path, {}).get(property, (None, {}))[1].get(int(frame))

    def lowered(self, full_path) -> dict:
        """The ``set_animation`` command for the viewer (paths resolved by ``full_path``)."""
        animations = []
        for path, tracks in self._tracks.items():
            lowered_tracks = []
            for prop, (jstype, keys) in tracks.items():
                frames = sorted(keys)
                lowered_tracks.append({"name": "." + prop, "type": jstype,
                                       "keys": [{"time": f, "value": keys[f]} for f in frames]})
            animations.append({"path": full_path(path),
                               "clip": {"fps": self._fps, "name": "default", "tracks": lowered_tracks}})
        return {"type": "set_animation", "path": "", "animations": animations,
                "options": {"play": self._autoplay, "loopMode": int(self._loop_mode),
                            "repetitions": self._repetitions, "clampWhenFinished": self._clamp}}
