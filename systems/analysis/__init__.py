"""mallard.systems.analysis: Simulator, integrators, SimulatorConfig (mirrors pydrake.systems.analysis)."""
from .explicit_integrators import (BogackiShampine3Integrator, ExplicitEulerIntegrator, RungeKutta2Integrator,
                                   RungeKutta3Integrator, RungeKutta4Integrator, RungeKutta5Integrator,
                                   SemiExplicitEulerIntegrator)
from .implicit_integrators import ImplicitEulerIntegrator, RadauIntegrator
from .integrator_base import IntegratorBase, StepResult
from .simulator import InitializeParams, PrintSimulatorStatistics, Simulator
from .simulator_config import (ApplySimulatorConfig, ExtractSimulatorConfig, GetIntegrationSchemes,
                               ResetIntegratorFromFlags, SimulatorConfig)
from .simulator_status import SimulatorStatus
from mallard.common.scalar_template import ScalarTemplate

Simulator_ = ScalarTemplate("Simulator_", Simulator)

__all__ = [
    "ApplySimulatorConfig", "BogackiShampine3Integrator", "ExplicitEulerIntegrator", "ExtractSimulatorConfig",
    "GetIntegrationSchemes", "ImplicitEulerIntegrator", "InitializeParams", "IntegratorBase", "PrintSimulatorStatistics",
    "RadauIntegrator", "ResetIntegratorFromFlags", "RungeKutta2Integrator", "RungeKutta3Integrator",
    "RungeKutta4Integrator", "RungeKutta5Integrator", "SemiExplicitEulerIntegrator", "Simulator", "SimulatorConfig",
    "SimulatorStatus", "StepResult", "Simulator_",
]
