"""mallard.systems.controllers — mirrors `pydrake.systems.controllers`: PID, LQR (infinite and finite
horizon), inverse dynamics and joint-stiffness controllers. The multibody controllers import the plant's
companions lazily, so PID/LQR users do not pay for the multibody stack."""
from .dynamic_programming import (DynamicProgrammingOptions, FittedValueIteration,
                                  LinearProgrammingApproximateDynamicProgramming, PeriodicBoundaryCondition)
from .finite_horizon_linear_quadratic_regulator import (FiniteHorizonLinearQuadraticRegulator,
                                                       FiniteHorizonLinearQuadraticRegulatorOptions,
                                                       FiniteHorizonLinearQuadraticRegulatorResult,
                                                       MakeFiniteHorizonLinearQuadraticRegulator)
from .inverse_dynamics import InverseDynamics, InverseDynamicsMode
from .inverse_dynamics_controller import InverseDynamicsController
from .joint_stiffness_controller import JointStiffnessController
from .linear_quadratic_regulator import DiscreteTimeLinearQuadraticRegulator, LinearQuadraticRegulator
from .pid_controlled_system import PidControlledSystem
from .pid_controller import PidController

__all__ = [
    "DynamicProgrammingOptions", "FittedValueIteration", "LinearProgrammingApproximateDynamicProgramming", "PeriodicBoundaryCondition",
    "DiscreteTimeLinearQuadraticRegulator", "FiniteHorizonLinearQuadraticRegulator",
    "FiniteHorizonLinearQuadraticRegulatorOptions", "FiniteHorizonLinearQuadraticRegulatorResult",
    "InverseDynamics", "InverseDynamicsController", "InverseDynamicsMode", "JointStiffnessController",
    "LinearQuadraticRegulator", "MakeFiniteHorizonLinearQuadraticRegulator", "PidControlledSystem",
    "PidController",
]
