"""First-party actuator + sensor plugin: a brushed DC motor with a built-in thermometer.

One instance models one motor; its actuator and a temperature sensor share the instance (the
"thermometer in a motor" case of MuJoCo's plugin chapter). With the actuator input u = armature
voltage V [V] and the transmission velocity w [rad/s] (after the actuator gear):

* electrical: L di/dt = V - R(T) i - K w, with R(T) = R (1 + alpha (T - T_amb)). With L > 0 the
  current i [A] is an activation state (act, advanced by the integrator from act_dot); with L = 0
  the current is quasi-static, i = (V - K w) / R(T).
* mechanical: scalar actuator force = K i [N m] (the transmission applies the gear).
* thermal: C dT/dt = R(T) i^2 - (T - T_amb) / R_th. The temperature T [deg C] is the plugin state,
  advanced after each step by `advance` with the exact solution for the step's constant power.
* sensor: the temperature T [deg C] (1 value).

With `actearly` the force uses the next-step current (mj_nextActivation of the current slot) and the
quasi-static current the next-step input (when the actuator has a dyntype).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from .plugin import Capability, ConfigAttribute, Plugin, PluginFrame, PluginInstance

__all__ = ["DcMotor", "dcmotor_current", "dcmotor_derivatives", "dcmotor_temperature_step"]


def dcmotor_current(config: Mapping[str, Any], voltage: float, omega: float, temperature: float,
                    current: float | None = None) -> float:
    """Motor current [A]: the state `current` when the motor has inductance, else the quasi-static one."""
    if config["inductance"] > 0:
        if current is None:
            raise ValueError("dcmotor: a motor with inductance > 0 needs its current state")
        return current
    return (voltage - config["motorconst"] * omega) / _resistance(config, temperature)


def _resistance(config: Mapping[str, Any], temperature: float) -> float:
    r = config["resistance"] * (1.0 + config["tempcoef"] * (temperature - config["ambient"]))
    if r <= 0:
        raise ValueError(f"dcmotor: winding resistance became non-positive ({r:g} ohm) at temperature "
                         f"{temperature:g} C; check 'tempcoef'")
    return r


def dcmotor_derivatives(config: Mapping[str, Any], voltage: float, omega: float, temperature: float,
                        current: float) -> tuple[float, float]:
    """(di/dt [A/s], dT/dt [K/s]) of the motor; di/dt is 0 for a motor without inductance."""
    r = _resistance(config, temperature)
    didt = (voltage - r * current - config["motorconst"] * omega) / config["inductance"] \
        if config["inductance"] > 0 else 0.0
    dTdt = (r * current * current - (temperature - config["ambient"]) / config["thermalresistance"]) \
        / config["thermalcapacitance"]
    return didt, dTdt


def dcmotor_temperature_step(config: Mapping[str, Any], temperature: float, current: float, dt: float) -> float:
    """Winding temperature after `dt` [s] at constant Joule power R(T) i^2 (exact exponential step)."""
    power = _resistance(config, temperature) * current * current
    t_ss = config["ambient"] + power * config["thermalresistance"]
    tau = config["thermalresistance"] * config["thermalcapacitance"]
    return t_ss + (temperature - t_ss) * math.exp(-dt / tau)


class DcMotor(Plugin):
    """`mallard.actuator.dcmotor`: DC-motor actuator with a winding-temperature sensor (see module doc)."""

    name = "mallard.actuator.dcmotor"
    capabilities = Capability.ACTUATOR | Capability.SENSOR
    needstage = "vel"
    attributes = (
        ConfigAttribute("resistance", "real", default=1.0, low=0.0, open_low=True, doc="winding resistance R [ohm]"),
        ConfigAttribute("inductance", "real", default=0.0, low=0.0, doc="winding inductance L [H]; 0 = quasi-static"),
        ConfigAttribute("motorconst", "real", default=0.1, low=0.0, open_low=True,
                        doc="torque / back-EMF constant K [N m / A] = [V s / rad]"),
        ConfigAttribute("ambient", "real", default=25.0, low=-273.15, doc="ambient temperature [deg C]"),
        ConfigAttribute("thermalresistance", "real", default=2.0, low=0.0, open_low=True,
                        doc="winding-to-ambient thermal resistance [K / W]"),
        ConfigAttribute("thermalcapacitance", "real", default=10.0, low=0.0, open_low=True,
                        doc="winding heat capacity [J / K]"),
        ConfigAttribute("tempcoef", "real", default=0.0, doc="resistance temperature coefficient alpha [1 / K]"),
    )

    def nstate(self, config: Mapping[str, Any]) -> int:
        return 1  # winding temperature

    def actdim(self, config: Mapping[str, Any]) -> int:
        return 1 if config["inductance"] > 0 else 0  # winding current

    def nsensordata(self, config: Mapping[str, Any], sensor_index: int) -> int:
        return 1

    def CheckInstance(self, instance: PluginInstance) -> None:
        """One instance is one motor: at most one actuator."""
        if len(instance.actuators) > 1:
            raise ValueError(f"plugin '{self.name}': one instance models one motor but "
                             f"{len(instance.actuators)} actuators use it; declare one instance per motor")

    def init(self, instance: PluginInstance, state: np.ndarray) -> dict:
        return dict(instance.config)

    def reset(self, instance: PluginInstance, state: np.ndarray, data: Any) -> None:
        state[:] = instance.config["ambient"]

    def _current(self, config, frame: PluginFrame) -> float:
        act = frame.act[0] if len(frame.act) else None
        return dcmotor_current(config, float(frame.ctrl[0]), float(frame.actuator_velocity[0]),
                               float(frame.state[0]), act)

    def compute(self, capability: Capability, instance: PluginInstance, data: Any, frame: PluginFrame) -> None:
        config = instance.config
        if capability & Capability.ACTUATOR and len(frame.ctrl):
            i = self._current(config, frame)
            if config["inductance"] > 0:  # di/dt from the input at the current activation
                frame.act_dot[0] = dcmotor_derivatives(config, float(frame.ctrl_now[0]),
                                                       float(frame.actuator_velocity[0]), float(frame.state[0]),
                                                       i)[0]
                if frame.actearly[0]:  # actearly: the force of the next-step current
                    i = frame.NextActivation(0, float(frame.act_dot[0]))
            frame.actuator_force[0] = config["motorconst"] * i
        if capability & Capability.SENSOR:
            frame.sensordata[:] = frame.state[0]

    def advance(self, instance: PluginInstance, data: Any, frame: PluginFrame) -> None:
        if not len(frame.ctrl):
            return
        i = self._current(instance.config, frame)
        frame.state[0] = dcmotor_temperature_step(instance.config, float(frame.state[0]), i, frame.timestep)
