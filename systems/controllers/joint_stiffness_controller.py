"""JointStiffnessController: joint-space stiffness with gravity and force-element compensation.

    τ = −τ_app(q, v) + kp ⊙ (q_d − q) + kd ⊙ (v_d − v),    u = B⁻¹·τ

τ_app are the generalized forces of gravity, the force elements and joint damping, so the closed loop
behaves like a spring-damper per joint about x_d = [q_d; v_d]. Ports: `estimated_state`, `desired_state`
(both num_multibody_states) → `actuation`. The plant must be finalized and fully actuated with q̇ = v.
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import InputPort, LeafSystem, OutputPort
from mallard.systems.primitives._util import input_data
from ._checks import finalized_plant, gain_vector, require_fully_actuated

__all__ = ["JointStiffnessController"]


class JointStiffnessController(LeafSystem):
    """`JointStiffnessController(plant, kp, kd)` with one stiffness and one damping gain per position."""

    def __init__(self, plant, kp, kd) -> None:
        super().__init__()
        what = "JointStiffnessController"
        self._plant = finalized_plant(plant, what)
        require_fully_actuated(plant, what)
        if not plant.IsVelocityEqualToQDot():
            raise ValueError(f"{what}: the plant '{plant.get_name()}' has q̇ != v for some joint; only plants "
                             "whose velocities are the time derivatives of their positions are supported")
        n = plant.num_positions()
        self._kp = gain_vector(kp, f"{what}: kp")
        self._kd = gain_vector(kd, f"{what}: kd")
        for gain, name in ((self._kp, "kp"), (self._kd, "kd")):
            if gain.size != n:
                raise ValueError(f"{what}: {name} has size {gain.size} but the plant '{plant.get_name()}' has {n} "
                                 "positions; give one gain per position")
        B = np.asarray(plant.MakeActuationMatrix(), dtype=float)
        try:
            self._B_inv = np.linalg.inv(B)
        except np.linalg.LinAlgError:
            raise ValueError(f"{what}: the actuation matrix of '{plant.get_name()}' is singular") from None
        self._identity_B = np.array_equal(B, np.eye(n))
        self._n = n
        self._plant_context = plant.CreateDefaultContext()
        from mallard.multibody.tree import MultibodyForces
        self._forces = MultibodyForces(plant)
        nx = plant.num_multibody_states()
        self._estimated = self.DeclareVectorInputPort("estimated_state", nx)
        self._desired = self.DeclareVectorInputPort("desired_state", nx)
        self._output = self.DeclareVectorOutputPort("actuation", n, self._calc_actuation,
                                                    {self.all_input_ports_ticket()})

    def _calc_actuation(self, context, output) -> None:
        plant, plant_context, n = self._plant, self._plant_context, self._n
        x = input_data(self, context, 0)
        x_d = input_data(self, context, 1)
        plant.SetPositionsAndVelocities(plant_context, x)
        plant.CalcForceElementsContribution(plant_context, self._forces)
        tau = -plant.CalcGeneralizedForces(plant_context, self._forces)
        tau += self._kp * (x_d[:n] - x[:n]) + self._kd * (x_d[n:] - x[n:])
        output._data[:] = tau if self._identity_B else self._B_inv @ tau

    def get_input_port_estimated_state(self) -> InputPort:
        return self._estimated

    def get_input_port_desired_state(self) -> InputPort:
        return self._desired

    def get_output_port_actuation(self) -> OutputPort:
        return self._output

    def get_multibody_plant(self):
        """The MultibodyPlant whose gravity and force elements are compensated."""
        return self._plant
