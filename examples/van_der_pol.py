"""pydrake.examples.VanDerPolOscillator: q̈ + μ(q² − 1)q̇ + q = 0 (μ a parameter, default 1), as Drake's
examples/van_der_pol, with its limit cycle."""
from __future__ import annotations

import numpy as np

from mallard.systems.analysis import Simulator
from mallard.systems.framework import BasicVector, Context, DiagramBuilder, LeafSystem, OutputPort
from mallard.systems.primitives import LogVectorOutput

__all__ = ["VanDerPolOscillator"]


class VanDerPolOscillator(LeafSystem):
    """State [q, q̇]; output 0 is q, output 1 the full state; one numeric parameter μ ≥ 0."""

    def __init__(self) -> None:
        super().__init__()
        state_index = self.DeclareContinuousState(1, 1, 0)
        self.DeclareVectorOutputPort("y0", 1, self.CopyPositionToOutput)
        self.DeclareStateOutputPort("y1", state_index)
        self.DeclareNumericParameter(BasicVector([1.0]))

    def get_position_output_port(self) -> OutputPort:
        return self.get_output_port(0)

    def get_full_state_output_port(self) -> OutputPort:
        return self.get_output_port(1)

    @staticmethod
    def CalcLimitCycle() -> np.ndarray:
        """The μ = 1 limit cycle as a 2×N array of [q; q̇] samples: one period (6.667 s) simulated from a state on
        the cycle (Drake's precomputed start), logged at every step."""
        builder = DiagramBuilder()
        vdp = builder.AddSystem(VanDerPolOscillator())
        logger = LogVectorOutput(vdp.get_full_state_output_port(), builder)
        diagram = builder.Build()
        simulator = Simulator(diagram)
        simulator.get_mutable_context().SetContinuousState([-0.1144, 2.0578])
        simulator.AdvanceTo(6.667)
        return logger.FindLog(simulator.get_context()).data()

    def DoCalcTimeDerivatives(self, context: Context, derivatives) -> None:
        q, qdot = context.get_continuous_state_vector().CopyToVector()
        mu = context.get_numeric_parameter(0).GetAtIndex(0)
        derivatives.SetFromVector([qdot, -mu * (q * q - 1) * qdot - q])

    def CopyPositionToOutput(self, context: Context, output: BasicVector) -> None:
        output.SetAtIndex(0, context.get_continuous_state_vector().GetAtIndex(0))
