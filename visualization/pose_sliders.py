"""MeshcatPoseSliders (pydrake.visualization): six Meshcat sliders (roll, pitch, yaw, x, y, z) for a pose,
with an output ``pose`` (a RigidTransform) that reads them, as Drake's meshcat_pose_sliders.cc."""
from __future__ import annotations

import math
import time

import numpy as np

from mallard.common.text_logging import log
from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.meshcat import Meshcat
from mallard.multibody.math import RigidTransform, RollPitchYaw, RotationMatrix
from mallard.systems.framework import LeafSystem, Value

__all__ = ["MeshcatPoseSliders", "MeshcatPoseSliders_"]

_log = log()
_NAMES = ("roll", "pitch", "yaw", "x", "y", "z")


def _adjust_angle(x: float, lo: float, hi: float) -> float:
    """``x`` shifted by multiples of 2π into [lo, hi), then clamped."""
    while x < lo:
        x += 2.0 * math.pi
    while x >= hi:
        x -= 2.0 * math.pi
    return min(max(x, lo), hi)


def _rpy_xyz(pose: RigidTransform, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    rpy = RollPitchYaw(pose.rotation()).vector()
    p = pose.translation()
    return np.array([_adjust_angle(rpy[i], lo[i], hi[i]) for i in range(3)]
                    + [min(max(p[i], lo[3 + i]), hi[3 + i]) for i in range(3)])


class MeshcatPoseSliders(LeafSystem):
    """Sliders for a roll-pitch-yaw-x-y-z pose; input ``pose`` (optional) sets them at initialization."""

    def __init__(self, meshcat: Meshcat, initial_pose: RigidTransform | None = None,
                 lower_limit=(-math.pi, -math.pi, -math.pi, -1.0, -1.0, -1.0),
                 upper_limit=(math.pi, math.pi, math.pi, 1.0, 1.0, 1.0), step=(0.01,) * 6,
                 decrement_keycodes=("KeyQ", "KeyS", "KeyA", "KeyJ", "KeyK", "KeyU"),
                 increment_keycodes=("KeyE", "KeyW", "KeyD", "KeyL", "KeyI", "KeyO"), prefix: str = "",
                 visible=(True,) * 6):
        super().__init__()
        if not isinstance(meshcat, Meshcat):
            raise TypeError(f"MeshcatPoseSliders needs a Meshcat; given {type(meshcat).__name__}")
        lo, hi, st = (np.asarray(v, dtype=float).reshape(6) for v in (lower_limit, upper_limit, step))
        if not np.all(lo <= hi) or not np.all(st > 0):
            raise ValueError("MeshcatPoseSliders: need lower_limit <= upper_limit and step > 0 for every slider")
        for name, codes in (("decrement_keycodes", decrement_keycodes), ("increment_keycodes", increment_keycodes)):
            if len(codes) != 6:
                raise RuntimeError(f"Expected {name} of size 6, but got size {len(codes)} instead")
        self._meshcat, self._lo, self._hi = meshcat, lo, hi
        self._visible = [bool(v) for v in visible]
        self._nominal = RigidTransform() if initial_pose is None else RigidTransform(initial_pose)
        self._names = [f"{prefix}_{n}" if prefix else n for n in _NAMES]
        self._registered = True
        values = _rpy_xyz(self._nominal, lo, hi)
        for i in range(6):
            if self._visible[i]:
                meshcat.AddSlider(self._names[i], lo[i], hi[i], st[i], values[i], decrement_keycodes[i],
                                  increment_keycodes[i])
        self.DeclareAbstractInputPort("pose", Value(RigidTransform()), required=False)
        self.DeclareAbstractOutputPort("pose", lambda: Value(RigidTransform()), self._calc_output)
        self.DeclareInitializationPublishEvent(self._on_initialization)

    def _calc_output(self, context, value) -> None:
        if not self._registered:
            value.set_value(RigidTransform(self._nominal))
            return
        v = _rpy_xyz(self._nominal, self._lo, self._hi)
        for i in range(6):
            if self._visible[i]:
                v[i] = self._meshcat.GetSliderValue(self._names[i])
        value.set_value(RigidTransform(RotationMatrix(RollPitchYaw(v[:3])), v[3:]))

    def _on_initialization(self, context) -> None:
        if self.get_input_port().HasValue(context):
            self.SetPose(self.get_input_port().Eval(context))

    def Delete(self) -> None:
        """Remove the sliders from Meshcat (the output then holds the nominal pose)."""
        if self._registered:
            self._registered = False
            for name, shown in zip(self._names, self._visible):
                if shown:
                    self._meshcat.DeleteSlider(name, strict=False)

    def SetPose(self, pose: RigidTransform) -> None:
        """Move the sliders (and the nominal pose) to ``pose``."""
        self._nominal = RigidTransform(pose)
        if self._registered:
            v = _rpy_xyz(self._nominal, self._lo, self._hi)
            for i in range(6):
                if self._visible[i]:
                    self._meshcat.SetSliderValue(self._names[i], v[i])

    def Run(self, system, context, timeout: float | None = None, stop_button_keycode: str = "Escape") \
            -> RigidTransform:
        """Publish ``system`` (which contains these sliders) each time the pose changes, until the "Stop
        MeshcatPoseSliders" button is clicked or ``timeout`` (s) elapses; returns the last pose."""
        root = context.Clone()
        pose_context = self.GetMyContextFromRoot(root)
        button = "Stop MeshcatPoseSliders"
        _log.info("Press the '%s' button in Meshcat%s to continue.", button,
                  f" or press '{stop_button_keycode}'" if stop_button_keycode else "")
        self._meshcat.AddButton(button, stop_button_keycode)
        try:
            start = time.monotonic()
            system.ExecuteInitializationEvents(root)
            pose = RigidTransform(self._nominal)
            system.ForcedPublish(root)
            while self._meshcat.GetButtonClicks(button) < 1:
                if timeout is not None and time.monotonic() - start >= timeout:
                    break
                new_pose = self.get_output_port().Eval(pose_context)
                if new_pose.IsExactlyEqualTo(pose):
                    time.sleep(0.001)
                    continue
                pose = new_pose
                system.ForcedPublish(root)
            return pose
        finally:
            self._meshcat.DeleteButton(button, strict=False)


MeshcatPoseSliders_ = ScalarTemplate("MeshcatPoseSliders_", MeshcatPoseSliders)
