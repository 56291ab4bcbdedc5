"""InverseDynamics: generalized forces that realize a desired acceleration on a MultibodyPlant.

kInverseDynamics:     τ = M(q)·v̇_d + C(q, v)·v − τ_app(q, v)   (τ_app: gravity, force elements, joint damping)
kGravityCompensation: τ = −τ_g(q)

Ports: `estimated_state` x = [q; v] (num_multibody_states), `desired_acceleration` v̇_d (num_velocities,
kInverseDynamics only) → `generalized_force` τ (num_velocities). Mass properties and other parameters come
from `plant_context` (copied at construction) or the plant's default context.
"""
from __future__ import annotations

from mallard.common.cpp_enum import CppEnum

from mallard.systems.framework import InputPort, LeafSystem, OutputPort
from mallard.systems.primitives._util import input_data
from ._checks import finalized_plant, plant_context_copy

__all__ = ["InverseDynamics", "InverseDynamicsMode"]


class InverseDynamicsMode(CppEnum):
    """What InverseDynamics computes: full inverse dynamics, or gravity compensation only."""
    kInverseDynamics = 0
    kGravityCompensation = 1


class InverseDynamics(LeafSystem):
    """`InverseDynamics(plant, mode=kInverseDynamics, plant_context=None)` for a finalized MultibodyPlant."""

    InverseDynamicsMode = InverseDynamicsMode
    kInverseDynamics = InverseDynamicsMode.kInverseDynamics
    kGravityCompensation = InverseDynamicsMode.kGravityCompensation

    def __init__(self, plant, mode: InverseDynamicsMode = InverseDynamicsMode.kInverseDynamics,
                 plant_context=None) -> None:
        super().__init__()
        what = "InverseDynamics"
        self._plant = finalized_plant(plant, what)
        try:
            self._mode = InverseDynamicsMode(int(mode))
        except ValueError:
            raise ValueError(f"{what}: mode must be InverseDynamicsMode.kInverseDynamics or "
                             f"kGravityCompensation, got {mode!r}") from None
        self._plant_context = plant_context_copy(plant, plant_context, what)
        nx, nv = plant.num_multibody_states(), plant.num_velocities()
        self._num_states, self._num_velocities = nx, nv
        from mallard.multibody.tree import MultibodyForces
        self._forces = MultibodyForces(plant)
        self._estimated = self.DeclareVectorInputPort("estimated_state", nx)
        self._desired = None
        if self._mode == InverseDynamicsMode.kInverseDynamics:
            self._desired = self.DeclareVectorInputPort("desired_acceleration", nv)
        self._output = self.DeclareVectorOutputPort("generalized_force", nv, self._calc_force,
                                                    {self.all_input_ports_ticket()})

    def _calc_force(self, context, output) -> None:
        plant, plant_context = self._plant, self._plant_context
        plant.SetPositionsAndVelocities(plant_context, input_data(self, context, 0))
        if self._mode == InverseDynamicsMode.kGravityCompensation:
            output._data[:] = -plant.CalcGravityGeneralizedForces(plant_context)
            return
        plant.CalcForceElementsContribution(plant_context, self._forces)
        output._data[:] = plant.CalcInverseDynamics(plant_context, input_data(self, context, 1), self._forces)

    # ---- accessors ----------------------------------------------------------------------------------------
    def get_input_port_estimated_state(self) -> InputPort:
        return self._estimated

    def get_input_port_desired_acceleration(self) -> InputPort:
        """The v̇_d input (RuntimeError in kGravityCompensation mode, which has none)."""
        if self._desired is None:
            raise RuntimeError("InverseDynamics.get_input_port_desired_acceleration: this InverseDynamics was built "
                               "with mode kGravityCompensation and has no desired_acceleration input")
        return self._desired

    def get_output_port_generalized_force(self) -> OutputPort:
        return self._output

    def is_pure_gravity_compensation(self) -> bool:
        return self._mode == InverseDynamicsMode.kGravityCompensation
