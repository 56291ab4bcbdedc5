"""mallard.systems.analysis: Simulator, integrators, SimulatorConfig, Monte Carlo (mirrors pydrake.systems.analysis)."""
from mallard.common.scalar_template import define_scalar_templates

from .batch_eval import BatchEvalTimeDerivatives, BatchEvalUniquePeriodicDiscreteUpdate
from .discrete_time_approximation import DiscreteTimeApproximation
from .explicit_integrators import (BogackiShampine3Integrator, ExplicitEulerIntegrator, RungeKutta2Integrator,
                                   RungeKutta3Integrator, RungeKutta4Integrator, RungeKutta5Integrator,
                                   SemiExplicitEulerIntegrator)
from .implicit_integrators import ImplicitEulerIntegrator, RadauIntegrator
from .integrator_base import IntegratorBase, StepResult
from .monte_carlo import (MonteCarloSimulation, RandomSimulation, RandomSimulationResult, kNoConcurrency,
                          kUseHardwareConcurrency)
from .parallel_map import ParallelMap, ParallelMapAsCompleted, SampleErrors, SampleFailure
from .simulator import InitializeParams, Simulator
from .simulator_print_stats import PrintSimulatorStatistics
from .simulator_config import (ApplySimulatorConfig, ExtractSimulatorConfig, GetIntegrationSchemes,
                               ResetIntegratorFromFlags, SimulatorConfig)
from .simulator_status import SimulatorStatus

__all__ = [
    "ApplySimulatorConfig", "BatchEvalTimeDerivatives", "BatchEvalUniquePeriodicDiscreteUpdate",
    "BogackiShampine3Integrator", "DiscreteTimeApproximation", "ExplicitEulerIntegrator", "ExtractSimulatorConfig",
    "GetIntegrationSchemes", "ImplicitEulerIntegrator", "InitializeParams", "IntegratorBase", "MonteCarloSimulation",
    "ParallelMap", "ParallelMapAsCompleted", "PrintSimulatorStatistics", "RandomSimulation", "RandomSimulationResult",
    "SampleErrors", "SampleFailure", "kNoConcurrency", "kUseHardwareConcurrency",
    "RadauIntegrator", "ResetIntegratorFromFlags", "RungeKutta2Integrator", "RungeKutta3Integrator",
    "RungeKutta4Integrator", "RungeKutta5Integrator", "SemiExplicitEulerIntegrator", "Simulator", "SimulatorConfig",
    "SimulatorStatus", "StepResult",
]
__all__ += define_scalar_templates(globals(), [
    "ExplicitEulerIntegrator", "ImplicitEulerIntegrator", "IntegratorBase", "RadauIntegrator",
    "RungeKutta2Integrator", "RungeKutta3Integrator", "RungeKutta5Integrator", "SemiExplicitEulerIntegrator",
    "Simulator",
])
