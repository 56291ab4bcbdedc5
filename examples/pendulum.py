"""pydrake.examples' simple pendulum (PendulumPlant): a point mass on a massless rod with a torque at the pivot,
as Drake's examples/pendulum. θ (rad) from straight down, τ in N·m."""
from __future__ import annotations

import math

from mallard.systems.framework import Context, LeafSystem, OutputPort

from .named_vector import NamedVector, view_as

__all__ = ["PendulumInput", "PendulumParams", "PendulumPlant", "PendulumState"]


class PendulumState(NamedVector):
    """[θ, θ̇] (rad, rad/s)."""
    _rows = (("theta", 0.0), ("thetadot", 0.0))


class PendulumInput(NamedVector):
    """The torque τ at the pivot (N·m)."""
    _rows = (("tau", 0.0),)


class PendulumParams(NamedVector):
    """mass (kg), length (m), damping (N·m·s/rad) and gravity (m/s²), with Drake's defaults."""
    _rows = (("mass", 1.0), ("length", 0.5), ("damping", 0.1), ("gravity", 9.81))


class PendulumPlant(LeafSystem):
    """m l² θ̈ = τ − m g l sin θ − b θ̇: input port `tau`, output port `state`, one PendulumParams parameter."""

    def __init__(self) -> None:
        super().__init__()
        self.DeclareNumericParameter(PendulumParams())
        self.DeclareVectorInputPort("tau", PendulumInput())
        state_index = self.DeclareContinuousState(PendulumState(), 1, 1, 0)
        self.DeclareStateOutputPort("state", state_index)

    def get_state_output_port(self) -> OutputPort:
        return self.get_output_port(0)

    @staticmethod
    def get_state(context: Context) -> PendulumState:
        """The context's continuous state as a PendulumState (a view)."""
        return view_as(PendulumState, context.get_continuous_state_vector())

    @staticmethod
    def get_mutable_state(context: Context) -> PendulumState:
        """The context's continuous state as a writable PendulumState (a view)."""
        return view_as(PendulumState, context.get_mutable_continuous_state_vector())

    def get_parameters(self, context: Context) -> PendulumParams:
        """The context's PendulumParams (a view)."""
        return view_as(PendulumParams, context.get_numeric_parameter(0))

    def get_mutable_parameters(self, context: Context) -> PendulumParams:
        """The context's PendulumParams, writable (a view)."""
        return view_as(PendulumParams, context.get_mutable_numeric_parameter(0))

    def CalcTotalEnergy(self, context: Context) -> float:
        """Potential plus kinetic energy (J)."""
        return self.DoCalcPotentialEnergy(context) + self.DoCalcKineticEnergy(context)

    def DoCalcTimeDerivatives(self, context: Context, derivatives) -> None:
        x, p = self.get_state(context), self.get_parameters(context)
        tau = self.get_input_port(0).Eval(context)[0]
        thetaddot = ((tau - p.mass() * p.gravity() * p.length() * math.sin(x.theta()) - p.damping() * x.thetadot())
                     / (p.mass() * p.length() * p.length()))
        derivatives.SetFromVector([x.thetadot(), thetaddot])

    def DoCalcPotentialEnergy(self, context: Context) -> float:
        x, p = self.get_state(context), self.get_parameters(context)
        return -p.mass() * p.gravity() * p.length() * math.cos(x.theta())

    def DoCalcKineticEnergy(self, context: Context) -> float:
        x, p = self.get_state(context), self.get_parameters(context)
        return 0.5 * p.mass() * (p.length() * x.thetadot()) ** 2
