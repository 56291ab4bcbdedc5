"""JointSliders (pydrake.multibody.meshcat): one Meshcat slider per position of a MultibodyPlant, and a
``positions`` output that reads them, as Drake's joint_sliders.cc builds them.

Sliders are named after the joint (plus "_<suffix>" for multi-position joints, plus "/<model instance>" when
names would repeat); their range is the joint limits clipped to [lower_limit, upper_limit] (default ±10),
their step ``step`` (default 0.01) and their initial value the plant's default positions.
"""
from __future__ import annotations

import time

import numpy as np

from mallard.common.text_logging import log
from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.meshcat import Meshcat
from mallard.systems.framework import LeafSystem

__all__ = ["JointSliders", "JointSliders_"]

_log = log()


def _broadcast(name: str, default: float, n: int, value) -> np.ndarray:
    if value is None:
        return np.full(n, default)
    v = np.asarray(value, dtype=float)
    if v.ndim == 0:
        return np.full(n, float(v))
    if v.size != n:
        raise RuntimeError(f"Expected {name} of size {n}, but got size {v.size} instead")
    return v.reshape(n).copy()


def _slider_names(plant, with_model: bool) -> list[str]:
    names = [""] * plant.num_positions()
    for joint_index in plant.GetJointIndices():
        joint = plant.get_joint(joint_index)
        for j in range(joint.num_positions()):
            name = f"{joint.name()}_{joint.position_suffix(j)}" if joint.num_positions() > 1 else joint.name()
            if with_model:
                name += f"/{plant.GetModelInstanceName(joint.model_instance())}"
            names[joint.position_start() + j] = name
    return names


class JointSliders(LeafSystem):
    """Meshcat sliders for every position of ``plant``; output port ``positions`` holds their values."""

    def __init__(self, meshcat: Meshcat, plant, initial_value=None, lower_limit=None, upper_limit=None, step=None,
                 decrement_keycodes: list[str] = (), increment_keycodes: list[str] = ()):
        super().__init__()
        if not isinstance(meshcat, Meshcat):
            raise TypeError(f"JointSliders needs a Meshcat; given {type(meshcat).__name__}")
        nq = plant.num_positions()
        for name, codes in (("decrement_keycodes", decrement_keycodes), ("increment_keycodes", increment_keycodes)):
            if len(codes) not in (0, nq):
                raise RuntimeError(f"Expected {name} of size zero or {nq}, but got size {len(codes)} instead")
        if initial_value is not None and np.asarray(initial_value).size != nq:
            raise RuntimeError(f"Expected initial_value of size {nq}, but got size {np.asarray(initial_value).size} "
                               "instead")
        nominal = (np.asarray(initial_value, dtype=float).reshape(nq) if initial_value is not None
                   else plant.GetPositions(plant.CreateDefaultContext()))
        names = _slider_names(plant, with_model=False)
        if len(set(names)) != len(names):
            names = _slider_names(plant, with_model=True)
        lo = np.maximum(_broadcast("lower_limit", -10.0, nq, lower_limit), plant.GetPositionLowerLimits())
        hi = np.minimum(_broadcast("upper_limit", 10.0, nq, upper_limit), plant.GetPositionUpperLimits())
        steps = _broadcast("step", 0.01, nq, step)
        self._meshcat, self._plant, self._names = meshcat, plant, names
        self._nominal = np.array(nominal, dtype=float)
        self._registered = True
        for i, name in enumerate(names):
            meshcat.AddSlider(name, lo[i], hi[i], steps[i], self._nominal[i],
                              decrement_keycodes[i] if len(decrement_keycodes) else "",
                              increment_keycodes[i] if len(increment_keycodes) else "")
        self.DeclareVectorOutputPort("positions", nq, self._calc_output)

    def _calc_output(self, context, output) -> None:
        if self._registered:
            q = np.array([self._meshcat.GetSliderValue(name) for name in self._names])
        else:
            q = self._nominal
        output.SetFromVector(q)

    def Delete(self) -> None:
        """Remove the sliders from Meshcat (the output then holds the nominal positions)."""
        if self._registered:
            self._registered = False
            for name in self._names:
                self._meshcat.DeleteSlider(name, strict=False)

    def SetPositions(self, q) -> None:
        """Move the sliders (and the nominal positions) to ``q``."""
        q = np.asarray(q, dtype=float).reshape(-1)
        if q.size != len(self._names):
            raise RuntimeError(f"Expected q of size {len(self._names)}, but got size {q.size} instead")
        self._nominal = q.copy()
        if self._registered:
            for name, value in zip(self._names, q):
                self._meshcat.SetSliderValue(name, value)

    def Run(self, diagram, timeout: float | None = None, stop_button_keycode: str = "Escape") -> np.ndarray:
        """Publish ``diagram`` each time a slider moves, until the "Stop JointSliders" button is clicked or
        ``timeout`` (s) elapses; returns the final slider positions."""
        root = diagram.CreateDefaultContext()
        sliders_context = self.GetMyContextFromRoot(root)
        plant_context = self._plant.GetMyMutableContextFromRoot(root)
        button = "Stop JointSliders"
        _log.info("Press the '%s' button in Meshcat%s to continue.", button,
                  f" or press '{stop_button_keycode}'" if stop_button_keycode else "")
        self._meshcat.AddButton(button, stop_button_keycode)
        try:
            start = time.monotonic()
            diagram.ExecuteInitializationEvents(root)
            self._plant.SetPositions(plant_context, self.get_output_port().Eval(sliders_context))
            diagram.ForcedPublish(root)
            while self._meshcat.GetButtonClicks(button) < 1:
                if timeout is not None and time.monotonic() - start >= timeout:
                    break
                q = self.get_output_port().Eval(sliders_context)
                if np.array_equal(q, self._plant.GetPositions(plant_context)):
                    time.sleep(0.001)
                    continue
                self._plant.SetPositions(plant_context, q)
                diagram.ForcedPublish(root)
            return self.get_output_port().Eval(sliders_context)
        finally:
            self._meshcat.DeleteButton(button, strict=False)


JointSliders_ = ScalarTemplate("JointSliders_", JointSliders)
