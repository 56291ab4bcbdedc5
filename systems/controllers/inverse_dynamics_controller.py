"""InverseDynamicsController: PID on the acceleration level plus inverse dynamics (a Diagram).

    v̇_cmd = v̇_d + kp ⊙ (q_d − q) + ki ⊙ ∫(q_d − q) dt + kd ⊙ (v_d − v)
    τ     = M(q)·v̇_cmd + C(q, v)·v − τ_app(q, v)          (InverseDynamics)
    u     = B⁻¹·τ                                         (B: the plant's actuation matrix)

Ports: `estimated_state`, `desired_state` ([q_d; v_d]), `desired_acceleration` (only when
has_reference_acceleration; otherwise v̇_d = 0) → `actuation` (u), `generalized_force` (τ).
The plant must be finalized and fully actuated with num_positions == num_velocities.
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import Diagram, DiagramBuilder, InputPort, OutputPort
from mallard.systems.primitives import Adder, ConstantVectorSource, SparseMatrixGain
from ._checks import finalized_plant, require_fully_actuated, same_size_gains
from .inverse_dynamics import InverseDynamics, InverseDynamicsMode
from .pid_controller import PidController

__all__ = ["InverseDynamicsController"]


class InverseDynamicsController(Diagram):
    """`InverseDynamicsController(robot, kp, ki, kd, has_reference_acceleration, plant_context=None)`."""

    def __init__(self, robot, kp, ki, kd, has_reference_acceleration: bool, plant_context=None) -> None:
        super().__init__()
        what = "InverseDynamicsController"
        plant = finalized_plant(robot, what)
        require_fully_actuated(plant, what)
        kp_, ki_, kd_ = same_size_gains(kp, ki, kd, what)
        nq, nv = plant.num_positions(), plant.num_velocities()
        if kp_.size != nq:
            raise ValueError(f"{what}: the gains have size {kp_.size} but the plant '{plant.get_name()}' has {nq} "
                             "positions; give one gain per position")
        B = np.asarray(plant.MakeActuationMatrix(), dtype=float)
        try:
            B_inv = np.linalg.inv(B)
        except np.linalg.LinAlgError:
            raise ValueError(f"{what}: the actuation matrix of '{plant.get_name()}' is singular; every "
                             "velocity needs its own actuator") from None
        self._plant = plant
        self._has_reference_acceleration = bool(has_reference_acceleration)

        builder = DiagramBuilder()
        inverse_dynamics = builder.AddNamedSystem(
            "InverseDynamics", InverseDynamics(plant, InverseDynamicsMode.kInverseDynamics, plant_context))
        self._pid = builder.AddNamedSystem("pid", PidController(kp_, ki_, kd_))
        adder = builder.AddNamedSystem("+", Adder(2, nv))
        to_actuation = builder.AddNamedSystem("B⁻¹", SparseMatrixGain(B_inv))

        self._estimated = builder.ExportInput(inverse_dynamics.get_input_port_estimated_state(), "estimated_state")
        builder.ConnectInput(self._estimated, self._pid.get_input_port_estimated_state())
        self._desired = builder.ExportInput(self._pid.get_input_port_desired_state(), "desired_state")
        builder.Connect(self._pid.get_output_port_control(), adder.get_input_port(0))
        if self._has_reference_acceleration:
            self._acceleration = builder.ExportInput(adder.get_input_port(1), "desired_acceleration")
        else:
            zero = builder.AddNamedSystem("desired_acceleration=0", ConstantVectorSource(np.zeros(nv)))
            builder.Connect(zero.get_output_port(0), adder.get_input_port(1))
            self._acceleration = None
        builder.Connect(adder.get_output_port(0), inverse_dynamics.get_input_port_desired_acceleration())
        builder.Connect(inverse_dynamics.get_output_port_generalized_force(), to_actuation.get_input_port(0))
        self._actuation = builder.ExportOutput(to_actuation.get_output_port(0), "actuation")
        self._generalized_force = builder.ExportOutput(inverse_dynamics.get_output_port_generalized_force(),
                                                       "generalized_force")
        builder.BuildInto(self)

    # ---- ports --------------------------------------------------------------------------------------------
    def get_input_port_estimated_state(self) -> InputPort:
        return self.get_input_port(int(self._estimated))

    def get_input_port_desired_state(self) -> InputPort:
        return self.get_input_port(int(self._desired))

    def get_input_port_desired_acceleration(self) -> InputPort:
        """The v̇_d input (RuntimeError when built with has_reference_acceleration=False)."""
        if self._acceleration is None:
            raise RuntimeError("InverseDynamicsController.get_input_port_desired_acceleration: this controller was "
                               "built with has_reference_acceleration=False, so it has no desired_acceleration "
                               "input (the reference acceleration is zero)")
        return self.get_input_port(int(self._acceleration))

    def get_output_port_control(self) -> OutputPort:
        """`actuation`: u = B⁻¹·τ, to connect to the plant's actuation input."""
        return self.get_output_port(int(self._actuation))

    def get_output_port_generalized_force(self) -> OutputPort:
        """`generalized_force`: τ, to connect to the plant's applied_generalized_force input."""
        return self.get_output_port(int(self._generalized_force))

    # ---- state and plant ----------------------------------------------------------------------------------
    def set_integral_value(self, context, value) -> None:
        """Set the PID's integral state ∫(q_d − q) dt in this controller's `context`."""
        self.ValidateContext(context)
        self._pid.set_integral_value(self.GetMutableSubsystemContext(self._pid, context), value)

    def get_multibody_plant_for_control(self):
        """The MultibodyPlant this controller computes its dynamics with."""
        return self._plant
