"""PrintSimulatorStatistics: the simulator's and its integrator's step statistics, printed in Drake's layout
(systems/analysis/simulator_print_stats.cc), ending with the integrator's summary as JSON."""
from __future__ import annotations

import json
import math

from .implicit_integrators import _ImplicitBase
from .simulator import Simulator

__all__ = ["PrintSimulatorStatistics"]


def _g10(x: float) -> str:
    """fmt's {:10.6g}: numbers right-aligned, nan / inf left-aligned."""
    return f"{x:10.6g}" if math.isfinite(x) else f"{x:<10}"


def PrintSimulatorStatistics(simulator: Simulator) -> None:
    """Prints the simulator's update counts and the integrator's step statistics (sizes in s)."""
    integrator = simulator.get_integrator()
    lines = ["General stats regarding discrete updates:",
             f"Number of time steps taken (simulator stats) = {simulator.get_num_steps_taken()}",
             f"Simulator publishes every time step: {str(simulator.get_publish_every_time_step()).lower()}",
             f"Number of publishes = {simulator.get_num_publishes()}",
             f"Number of discrete updates = {simulator.get_num_discrete_updates()}",
             f"Number of \"unrestricted\" updates = {simulator.get_num_unrestricted_updates()}"]
    if integrator.get_num_steps_taken() == 0:
        lines += ["", "Note: the following integrator took zero steps. The simulator exclusively used the discrete "
                      "solver."]
    fixed = integrator.get_fixed_step_mode()
    lines += ["", f"Stats for integrator {type(integrator).__name__} with "
                  f"{'fixed steps' if fixed else 'error control'}:",
              f"Number of time steps taken (integrator stats) = {integrator.get_num_steps_taken()}"]
    if not fixed:
        lines += [f"Initial time step taken = {_g10(integrator.get_actual_initial_step_size_taken())} s",
                  f"Largest time step taken = {_g10(integrator.get_largest_step_size_taken())} s",
                  f"Smallest adapted step size = {_g10(integrator.get_smallest_adapted_step_size_taken())} s",
                  "Number of steps shrunk due to error control = "
                  f"{integrator.get_num_step_shrinkages_from_error_control()}"]
    lines += [f"Number of derivative evaluations = {integrator.get_num_derivative_evaluations()}",
              "Number of steps shrunk due to convergence-based failure = "
              f"{integrator.get_num_step_shrinkages_from_substep_failures()}",
              f"Number of convergence-based step failures (should match) = {integrator.get_num_substep_failures()}"]
    if isinstance(integrator, _ImplicitBase):
        # Totals only: mallard's implicit integrators do not count the error estimator's share separately.
        lines += ["Implicit Integrator Statistics:",
                  f"Number of Derivative Evaluations = {integrator.get_num_derivative_evaluations()}",
                  f"Number of Jacobian Computations = {integrator.get_num_jacobian_evaluations()}"]
    # nlohmann's JSON writes a non-finite number as null
    summary = {k: (v if not isinstance(v, float) or math.isfinite(v) else None)
               for k, v in sorted(integrator.GetStatisticsSummary())}
    lines += ["", "JSON Statistics:", json.dumps(summary, indent=2)]
    print("\n".join(lines))
