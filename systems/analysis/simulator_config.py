"""SimulatorConfig (pydantic), ApplySimulatorConfig, ExtractSimulatorConfig and integrator schemes by name."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .explicit_integrators import (BogackiShampine3Integrator, ExplicitEulerIntegrator, RungeKutta2Integrator,
                                   RungeKutta3Integrator, RungeKutta4Integrator, RungeKutta5Integrator,
                                   SemiExplicitEulerIntegrator)
from .implicit_integrators import ImplicitEulerIntegrator, RadauIntegrator

__all__ = ["SimulatorConfig", "ApplySimulatorConfig", "ExtractSimulatorConfig", "ResetIntegratorFromFlags",
           "GetIntegrationSchemes"]

_SCHEMES = {
    "bogacki_shampine3": lambda s, h, c: BogackiShampine3Integrator(s, c),
    "explicit_euler": lambda s, h, c: ExplicitEulerIntegrator(s, h, c),
    "implicit_euler": lambda s, h, c: ImplicitEulerIntegrator(s, c),
    "radau1": lambda s, h, c: RadauIntegrator(s, c, num_stages=1),
    "radau3": lambda s, h, c: RadauIntegrator(s, c, num_stages=2),
    "runge_kutta2": lambda s, h, c: RungeKutta2Integrator(s, h, c),
    "runge_kutta3": lambda s, h, c: RungeKutta3Integrator(s, c),
    "runge_kutta4": lambda s, h, c: RungeKutta4Integrator(s, h, c),
    "runge_kutta5": lambda s, h, c: RungeKutta5Integrator(s, c),
    "semi_explicit_euler": lambda s, h, c: SemiExplicitEulerIntegrator(s, h, c),
}


class SimulatorConfig(BaseModel):
    """Simulator settings, with pydrake's field names and defaults."""

    model_config = ConfigDict(validate_assignment=True, extra="forbid")

    integration_scheme: str = "runge_kutta3"
    max_step_size: float = Field(0.1, gt=0)
    accuracy: float = Field(1e-4, gt=0)
    use_error_control: bool = True
    start_time: float = 0.0
    target_realtime_rate: float = Field(0.0, ge=0)
    publish_every_time_step: bool = False

    def __init__(self, *args, **kwargs) -> None:
        names = list(type(self).model_fields)
        kwargs.update(dict(zip(names, args)))
        super().__init__(**kwargs)


def make_integrator(scheme: str, system, max_step_size: float, context):
    """A new integrator of the named scheme for `system` and `context`."""
    if scheme not in _SCHEMES:
        raise ValueError(f"Unknown integration scheme '{scheme}'; mallard provides {GetIntegrationSchemes()}")
    integrator = _SCHEMES[scheme](system, max_step_size, context)
    integrator.set_maximum_step_size(max_step_size)
    return integrator


def GetIntegrationSchemes() -> list[str]:
    """The scheme names accepted by ResetIntegratorFromFlags / SimulatorConfig."""
    return sorted(_SCHEMES)


def ResetIntegratorFromFlags(simulator, scheme: str, max_step_size: float):
    """Replaces the simulator's integrator by the one named `scheme`; returns it."""
    integrator = make_integrator(scheme, simulator.get_system(), max_step_size, simulator.get_mutable_context())
    return simulator.reset_integrator(integrator)


def ApplySimulatorConfig(config: SimulatorConfig, simulator) -> None:
    """Configures integrator, accuracy, realtime rate, per-step publishing and start time from `config`."""
    integrator = ResetIntegratorFromFlags(simulator, config.integration_scheme, config.max_step_size)
    if integrator.supports_error_estimation():
        integrator.set_fixed_step_mode(not config.use_error_control)
    if not integrator.get_fixed_step_mode():
        integrator.set_target_accuracy(config.accuracy)
    simulator.set_target_realtime_rate(config.target_realtime_rate)
    simulator._publish_every_step = bool(config.publish_every_time_step)  # (the setter is deprecated)
    simulator.get_mutable_context().SetTime(config.start_time)


def ExtractSimulatorConfig(simulator) -> SimulatorConfig:
    """The SimulatorConfig that reproduces the simulator's current settings."""
    integrator = simulator.get_integrator()
    names = {type(_SCHEMES[k](simulator.get_system(), 0.1, None)).__name__: k for k in _SCHEMES}
    scheme = names.get(type(integrator).__name__, "runge_kutta3")
    if type(integrator) is RadauIntegrator:
        scheme = "radau1" if integrator._stages == 1 else "radau3"
    return SimulatorConfig(
        integration_scheme=scheme, max_step_size=integrator.get_maximum_step_size(),
        accuracy=integrator.get_target_accuracy() or 1e-4,
        use_error_control=not integrator.get_fixed_step_mode(), start_time=simulator.get_context().get_time(),
        target_realtime_rate=simulator.get_target_realtime_rate(),
        publish_every_time_step=simulator.get_publish_every_time_step())
