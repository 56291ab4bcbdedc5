"""First-party actuator plugin `mujoco.pid`: MuJoCo's PID controller plugin (same name, config, state layout).

The force is f = kp e + ki I + kd ė with the error e = u − L (u the actuator input, L its length) and
ė = u̇ − V (u̇ the dyntype activation rate, 0 without dyntype; V the actuator velocity).

* integral (when ki ≠ 0): an activation slot I, advanced each step to I⁺ = clip(I + e h, ±imax/ki) (its
  rate is (I⁺ − I)/h); the force always uses I⁺, so the I term acts in the same step;
* slew limit (when `slewmax` is given): an activation slot holding the previous input; once time > 0
  (a previous input exists) the input is clipped to previous ± slewmax·h;
* with a dyntype the input is the dyntype activation (its next-step value when `actearly`), placed after
  the plugin's slots in act; the rates of the plugin's slots use the current activation.

Activation layout per actuator: [I (if ki ≠ 0), previous input (if slewmax), dyntype activation (if any)].
One instance may drive several actuators (each with its own slots). No plugin state (nstate 0).
"""
from __future__ import annotations

from typing import Any, Mapping

from .plugin import Capability, ConfigAttribute, Plugin, PluginFrame, PluginInstance

__all__ = ["Pid"]


class Pid(Plugin):
    """`mujoco.pid`: a PID actuator (see the module docstring); one instance drives one actuator."""

    name = "mujoco.pid"
    capabilities = Capability.ACTUATOR
    attributes = (
        ConfigAttribute("kp", "real", default=0.0, doc="proportional gain [force / length]"),
        ConfigAttribute("ki", "real", default=0.0, doc="integral gain [force / (length s)]; != 0 adds a slot"),
        ConfigAttribute("kd", "real", default=0.0, doc="derivative gain [force s / length]"),
        ConfigAttribute("imax", "real", low=0.0, doc="bound on the I term's force (optional)"),
        ConfigAttribute("slewmax", "real", low=0.0, doc="maximum input rate [input / s] (optional)"),
    )

    def actdim(self, config: Mapping[str, Any]) -> int:
        return int(config["ki"] != 0) + int("slewmax" in config)

    def CheckInstance(self, instance: PluginInstance) -> None:
        if not instance.actuators:
            raise ValueError(f"plugin '{self.name}': no actuator uses instance '{instance.name}'")

    @staticmethod
    def _input(config, frame: PluginFrame, j: int, u: float) -> float:
        """The input after the slew limit (previous input ± slewmax·h once a previous input exists)."""
        if "slewmax" in config and frame.time > 0:
            prev = float(frame.act[j + (1 if config["ki"] else 0)])
            step = config["slewmax"] * frame.timestep
            u = min(max(u, prev - step), prev + step)
        return u

    @staticmethod
    def _integral(config, frame: PluginFrame, j: int, error: float) -> float:
        """I⁺ = I + e h, clamped to ±imax/ki when imax is given."""
        integral = float(frame.act[j]) + error * frame.timestep
        if "imax" in config:
            bound = abs(config["imax"] / config["ki"])
            integral = min(max(integral, -bound), bound)
        return integral

    def compute(self, capability: Capability, instance: PluginInstance, data: Any, frame: PluginFrame) -> None:
        config = instance.config
        h = frame.timestep
        if h <= 0:
            raise ValueError(f"plugin '{self.name}': needs the step size (frame.timestep > 0)")
        n = self.actdim(config)
        for k in range(len(frame.ctrl)):
            j = k * n  # this actuator's first slot in frame.act
            length, velocity = float(frame.actuator_length[k]), float(frame.actuator_velocity[k])
            # activation rates from the input at the current activation
            u_now = self._input(config, frame, j, float(frame.ctrl_now[k]))
            slot = j
            if config["ki"]:
                frame.act_dot[slot] = (self._integral(config, frame, j, u_now - length) - float(frame.act[slot])) / h
                slot += 1
            if "slewmax" in config:
                frame.act_dot[slot] = (u_now - float(frame.act[slot])) / h
            # the force from the input the actuator uses (the next-step activation when actearly)
            error = self._input(config, frame, j, float(frame.ctrl[k])) - length
            force = config["kp"] * error + config["kd"] * (float(frame.ctrl_dot[k]) - velocity)
            if config["ki"]:
                force += config["ki"] * self._integral(config, frame, j, error)
            frame.actuator_force[k] = force
