"""`DiscreteTimeApproximation`: a discrete-time version of a continuous-time system (pydrake.systems.analysis).

LinearSystem / AffineSystem: exact zero-order-hold discretization, [Ad Bd fd; 0 I 0; 0 0 1] = expm([A B f0;
0 0 0; 0 0 0] h). Any other system: x[n+1] = x[n] + integral of f(t, x, u[n]) over one period, computed with
the integrator that a SimulatorConfig names.
"""
from __future__ import annotations

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.systems.framework import LeafSystem
from mallard.systems.framework.ports import PortDataType
from mallard.systems.primitives import AffineSystem, LinearSystem

from .simulator_config import SimulatorConfig, make_integrator

scipy_linalg = LazyModule("scipy.linalg")  # loaded on first use (import time)

__all__ = ["DiscreteTimeApproximation"]


def _check_continuous(system, time_period: float) -> None:
    if not time_period > 0:
        raise ValueError(f"DiscreteTimeApproximation: time_period must be > 0, got {time_period}")
    context = system.CreateDefaultContext()
    if context.num_discrete_state_groups() or context.num_abstract_states():
        raise ValueError(f"DiscreteTimeApproximation: {system.GetSystemPathname()} must be a continuous-time "
                         "system (no discrete or abstract state)")


def _zero_order_hold(A: np.ndarray, B: np.ndarray, f0: np.ndarray, h: float) -> tuple:
    n, m = A.shape[0], B.shape[1]
    M = np.zeros((n + m + 1, n + m + 1))
    M[:n, :n], M[:n, n:n + m], M[:n, n + m] = A, B, f0
    E = scipy_linalg.expm(M * h)
    return E[:n, :n], E[:n, n:n + m], E[:n, n + m]


class _IntegratedSystem(LeafSystem):
    """x[n+1] = x[n] + integral of the continuous system's dynamics over one period with u held (ZOH); the
    outputs are the continuous system's outputs at (t, x[n], u)."""

    def __init__(self, system, time_period: float, config: SimulatorConfig) -> None:
        super().__init__()
        self._system, self._period, self._config = system, float(time_period), config
        self._sub = system.CreateDefaultContext()
        n = self._sub.num_continuous_states()
        for i in range(system.num_input_ports()):
            port = system.get_input_port(i)
            if port.get_data_type() == PortDataType.kVectorValued:
                self.DeclareVectorInputPort(port.get_name(), port.size())
            else:
                self.DeclareAbstractInputPort(port.get_name(), port.Allocate())
        self.DeclareDiscreteState(self._sub.get_continuous_state_vector().CopyToVector() if n else 0)
        self.DeclarePeriodicDiscreteUpdateEvent(self._period, 0.0, self._update)
        for i in range(system.num_output_ports()):
            port = system.get_output_port(i)
            if port.get_data_type() == PortDataType.kVectorValued:
                self.DeclareVectorOutputPort(port.get_name(), port.size(), self._make_vector_output(i))
            else:
                self.DeclareAbstractOutputPort(port.get_name(), port.Allocate, self._make_abstract_output(i))

    def _load(self, context):
        """The continuous system's context at this context's time, discrete state and inputs."""
        sub = self._sub
        sub.SetTime(context.get_time())
        sub.SetContinuousState(context.get_discrete_state(0).CopyToVector())
        for i in range(self.num_input_ports()):
            if self.get_input_port(i).HasValue(context):
                self._system.get_input_port(i).FixValue(sub, self.get_input_port(i).EvalAbstract(context))
        return sub

    def _update(self, context, discrete_state) -> None:
        sub = self._load(context)
        integrator = make_integrator(self._config.integration_scheme, self._system, self._config.max_step_size, sub)
        if integrator.supports_error_estimation():
            integrator.set_fixed_step_mode(not self._config.use_error_control)
            if self._config.use_error_control:
                integrator.set_target_accuracy(self._config.accuracy)
        integrator.Initialize()
        integrator.IntegrateWithMultipleStepsToTime(context.get_time() + self._period)
        discrete_state.get_mutable_value(0)[:] = sub.get_continuous_state_vector().CopyToVector()

    def _make_vector_output(self, index: int):
        def calc(context, output):
            output.SetFromVector(self._system.get_output_port(index).Eval(self._load(context)))
        return calc

    def _make_abstract_output(self, index: int):
        def calc(context, output):
            output.SetFrom(self._system.get_output_port(index).EvalAbstract(self._load(context)))
        return calc


def DiscreteTimeApproximation(*args, linear_system=None, affine_system=None, system=None, time_period=None,
                              integrator_config: SimulatorConfig | None = None):
    """`(linear_system, time_period)` -> LinearSystem, `(affine_system, time_period)` -> AffineSystem (exact
    zero-order hold), or `(system, time_period, integrator_config=SimulatorConfig())` -> a discrete System."""
    args = list(args)
    given = [s for s in (linear_system, affine_system, system) if s is not None]
    source = given[0] if given else args.pop(0)
    if time_period is None:
        time_period = args.pop(0)
    if integrator_config is None:
        integrator_config = args.pop(0) if args else SimulatorConfig()
    h = float(time_period)
    if isinstance(source, AffineSystem) and system is None:
        if not h > 0 or source.time_period() != 0.0:
            raise ValueError(f"DiscreteTimeApproximation: needs a continuous-time {type(source).__name__} and "
                             f"time_period > 0 (got time_period={time_period})")
        Ad, Bd, fd = _zero_order_hold(source.A(), source.B(), source.f0(), h)
        if type(source) is LinearSystem or isinstance(source, LinearSystem):
            return LinearSystem(Ad, Bd, source.C(), source.D(), h)
        return AffineSystem(Ad, Bd, fd, source.C(), source.D(), source.y0(), h)
    _check_continuous(source, h)
    return _IntegratedSystem(source, h, integrator_config)
