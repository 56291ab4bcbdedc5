"""PidControlledSystem: a Diagram closing a PidController around a plant (pydrake.systems.controllers).

    plant state output ──▶ PidController(estimated_state) ──▶ Adder ──▶ plant input
    desired_state ──────▶ PidController(desired_state)          ▲
    feedforward_control ────────────────────────────────────────┘

Ports: `feedforward_control` (the plant input's size), `desired_state` (2·|kp|) → the plant's state output
(exported under the plant port's name).
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import Diagram, DiagramBuilder, InputPort, OutputPort, PortDataType, System
from mallard.systems.primitives import Adder
from ._checks import gain_vector, matrix
from .pid_controller import PidController

__all__ = ["PidControlledSystem"]


def _port(system: System, index, kind: str, what: str):
    count = system.num_input_ports() if kind == "input" else system.num_output_ports()
    i = int(index)
    if not 0 <= i < count:
        raise ValueError(f"{what}: {kind} port index {i} is out of range; {system.GetSystemName()} "
                         f"({type(system).__name__}) has {count} {kind} ports")
    port = system.get_input_port(i) if kind == "input" else system.get_output_port(i)
    if port.get_data_type() != PortDataType.kVectorValued:
        raise ValueError(f"{what}: {kind} port '{port.get_name()}' of {type(system).__name__} is abstract-valued; "
                         f"select a vector {kind} port with the {'plant_input' if kind == 'input' else 'state_output'}"
                         "_port_index argument")
    return port


class PidControlledSystem(Diagram):
    """`(plant, kp, ki, kd, state_output_port_index=0, plant_input_port_index=0)` or
    `(plant, feedback_selector, kp, ki, kd, ...)`; scalar gains apply to every plant input."""

    def __init__(self, plant: System, *args, state_output_port_index: int = 0, plant_input_port_index: int = 0,
                 **kwargs) -> None:
        super().__init__()
        what = "PidControlledSystem"
        if not isinstance(plant, System):
            raise TypeError(f"{what}: plant must be a System, got {type(plant).__name__}")
        feedback_selector, kp, ki, kd, extra = self._parse(args, kwargs)
        if extra:
            if len(extra) > 2:
                raise TypeError(f"{what}: too many arguments")
            state_output_port_index = extra[0]
            if len(extra) == 2:
                plant_input_port_index = extra[1]
        plant_output = _port(plant, state_output_port_index, "output", what)
        plant_input = _port(plant, plant_input_port_index, "input", what)
        m = plant_input.size()

        def expand(gain, name):
            if np.ndim(gain) == 0:
                return np.full(m, float(gain))
            return gain_vector(gain, f"{what}: {name}")
        kp_, ki_, kd_ = expand(kp, "kp"), expand(ki, "ki"), expand(kd, "kd")
        if kp_.size != m:
            raise ValueError(f"{what}: the gains have size {kp_.size} but the plant input "
                             f"'{plant_input.get_name()}' has size {m}; give one gain per plant input")
        if feedback_selector is None:
            if plant_output.size() != 2 * m:
                raise ValueError(f"{what}: the plant's state output '{plant_output.get_name()}' has size "
                                 f"{plant_output.size()} but the PID needs 2 * {m} = {2 * m} (positions and "
                                 "velocities of the controlled inputs); pass a feedback_selector matrix of shape "
                                 f"({2 * m}, {plant_output.size()})")
            selector = None
        else:
            selector = matrix(feedback_selector, f"{what}: feedback_selector")
            if selector.shape[1] != plant_output.size():
                raise ValueError(f"{what}: feedback_selector has {selector.shape[1]} columns but the plant's state "
                                 f"output '{plant_output.get_name()}' has size {plant_output.size()}")

        builder = DiagramBuilder()
        builder.AddSystem(plant)
        self._plant = plant
        self._controller = builder.AddSystem(
            PidController(kp_, ki_, kd_) if selector is None else PidController(selector, kp_, ki_, kd_))
        adder = builder.AddSystem(Adder(2, m))
        builder.Connect(plant_output, self._controller.get_input_port_estimated_state())
        builder.Connect(self._controller.get_output_port_control(), adder.get_input_port(0))
        builder.Connect(adder.get_output_port(0), plant_input)
        self._control_input = builder.ExportInput(adder.get_input_port(1), "feedforward_control")
        self._state_input = builder.ExportInput(self._controller.get_input_port_desired_state(), "desired_state")
        self._state_output = builder.ExportOutput(plant_output, plant_output.get_name())
        builder.BuildInto(self)

    @staticmethod
    def _parse(args: tuple, kwargs: dict):
        kwargs = dict(kwargs)
        selector = kwargs.pop("feedback_selector", None)
        gains = {k: kwargs.pop(k) for k in ("kp", "ki", "kd") if k in kwargs}
        if kwargs:
            raise TypeError(f"PidControlledSystem: unexpected arguments {sorted(kwargs)}")
        args = list(args)
        if selector is None and args and np.ndim(args[0]) == 2 and "kp" not in gains:
            selector = args.pop(0)
        for name in ("kp", "ki", "kd"):
            if name not in gains:
                if not args:
                    raise TypeError(f"PidControlledSystem: missing gain '{name}'; call (plant, kp, ki, kd) or "
                                    "(plant, feedback_selector, kp, ki, kd)")
                gains[name] = args.pop(0)
        return selector, gains["kp"], gains["ki"], gains["kd"], args

    # ---- ports and subsystems -----------------------------------------------------------------------------
    def get_control_input_port(self) -> InputPort:
        """`feedforward_control`: added to the PID output before it enters the plant."""
        return self.get_input_port(int(self._control_input))

    def get_state_input_port(self) -> InputPort:
        """`desired_state`: [q_d; v_d] for the PID."""
        return self.get_input_port(int(self._state_input))

    def get_state_output_port(self) -> OutputPort:
        """The plant's state output."""
        return self.get_output_port(int(self._state_output))

    def plant(self) -> System:
        """The controlled system (owned by this diagram)."""
        return self._plant
