"""Sampled-data blocks: ZeroOrderHold, DiscreteDerivative, StateInterpolatorWithDiscreteDerivative (pydrake).

ZeroOrderHold latches u into its state at t = offset + k * period (a periodic discrete update for vectors,
an unrestricted update for abstract values) and outputs the state, so y is piecewise constant and never
direct feedthrough. DiscreteDerivative outputs (u[n] - u[n-1]) / h from two latched samples.
"""
from __future__ import annotations

import math

from mallard.systems.framework import AbstractValue, DiagramBuilder, Diagram, LeafSystem, Value
from ._util import as_vector, input_data, one_argument, positive_int, positive_period
from .routing import Multiplexer


def _state_of(system, context_or_state, what: str):
    """The leaf State to write: from a Context of `system`, or a State passed directly."""
    if hasattr(context_or_state, "get_mutable_state") and hasattr(context_or_state, "get_time"):
        system.ValidateContext(context_or_state)
        return context_or_state.get_mutable_state()
    if hasattr(context_or_state, "get_mutable_discrete_state"):
        return context_or_state
    raise TypeError(f"{what}: expected a Context of {system.GetSystemPathname()} or its State, "
                    f"got {type(context_or_state).__name__}")


class ZeroOrderHold(LeafSystem):
    """y = u sampled every `period_sec` from `offset_sec`: `(period_sec, vector_size, offset_sec=0)` or
    `(period_sec, abstract_model_value, offset_sec=0)`. The initial output is zero (or the model value)."""

    def __init__(self, period_sec: float, *args, vector_size: int | None = None, abstract_model_value=None,
                 offset_sec: float = 0.0) -> None:
        super().__init__()
        if len(args) == 2:  # (period_sec, vector_size_or_model, offset_sec) positionally
            args, offset_sec = args[:1], args[1]
        vector_size_or_model = one_argument("ZeroOrderHold", args, vector_size=vector_size,
                                            abstract_model_value=abstract_model_value)
        self._period = positive_period(period_sec, "ZeroOrderHold: period_sec")
        offset = float(offset_sec)
        if not (offset >= 0.0 and math.isfinite(offset)):
            raise ValueError(f"ZeroOrderHold: offset_sec must be >= 0, got {offset_sec}")
        self._offset = offset
        self._abstract = isinstance(vector_size_or_model, AbstractValue)
        if self._abstract:
            model = vector_size_or_model
            self.DeclareAbstractInputPort("u", model)
            xa = self.DeclareAbstractState(model)
            self.DeclarePeriodicUnrestrictedUpdateEvent(self._period, self._offset, self._latch_abstract)
            self.DeclareStateOutputPort("y", xa)
        else:
            n = positive_int(vector_size_or_model, "ZeroOrderHold: vector_size", allow_zero=True)
            self.DeclareVectorInputPort("u", n)
            xd = self.DeclareDiscreteState(n)
            self.DeclarePeriodicDiscreteUpdateEvent(self._period, self._offset, self._latch_vector)
            self.DeclareStateOutputPort("y", xd)

    def _latch_vector(self, context, discrete_state) -> None:
        discrete_state.get_mutable_value(0)[:] = input_data(self, context, 0)

    def _latch_abstract(self, context, state) -> None:
        value = self._eval_input_raw(context, 0)
        if value is None:
            port = self.get_input_port(0)
            raise RuntimeError(f"{port.GetFullDescription()} is not connected and has no fixed value.")
        state.get_mutable_abstract_state(0).SetFrom(value if isinstance(value, AbstractValue) else Value(value))

    def period(self) -> float:
        """Sampling period (seconds)."""
        return self._period

    def offset(self) -> float:
        """Time of the first sample (seconds)."""
        return self._offset

    def SetVectorState(self, context_or_state, value) -> None:
        """Set the held vector (the output until the next sample)."""
        if self._abstract:
            raise RuntimeError("ZeroOrderHold.SetVectorState: this hold is abstract-valued")
        v = as_vector(value, "ZeroOrderHold.SetVectorState")
        state = _state_of(self, context_or_state, "ZeroOrderHold.SetVectorState")
        vec = state.get_mutable_discrete_state(0)
        if v.shape[0] != vec.size():
            raise ValueError(f"ZeroOrderHold.SetVectorState: expected size {vec.size()}, got {v.shape[0]}")
        vec.SetFromVector(v)


class DiscreteDerivative(LeafSystem):
    """dudt = (u[n] - u[n-1]) / time_step, sampled every time_step from t = 0.

    With `suppress_initial_transient` (default) the output is zero until two samples have been latched.
    """

    def __init__(self, num_inputs: int, time_step: float, suppress_initial_transient: bool = True) -> None:
        super().__init__()
        self._n = positive_int(num_inputs, "DiscreteDerivative: num_inputs")
        self._h = positive_period(time_step, "DiscreteDerivative: time_step")
        self._suppress = bool(suppress_initial_transient)
        self.DeclareVectorInputPort("u", self._n)
        self.DeclareVectorOutputPort("dudt", self._n, self._calc, {self.xd_ticket()})
        self.DeclareDiscreteState(self._n)  # u[n]
        self.DeclareDiscreteState(self._n)  # u[n-1]
        if self._suppress:
            self.DeclareDiscreteState(1)  # number of updates so far
        self.DeclarePeriodicDiscreteUpdateEvent(self._h, 0.0, self._update)

    def _update(self, context, discrete_state) -> None:
        discrete_state.get_mutable_value(0)[:] = input_data(self, context, 0)
        discrete_state.get_mutable_value(1)[:] = context.get_discrete_state(0)._data
        if self._suppress:
            discrete_state.get_mutable_value(2)[0] = context.get_discrete_state(2)._data[0] + 1.0

    def _calc(self, context, output) -> None:
        if self._suppress and context.get_discrete_state(2)._data[0] < 2.0:
            output._data[:] = 0.0
            return
        x0 = context.get_discrete_state(0)._data
        x1 = context.get_discrete_state(1)._data
        output._data[:] = (x0 - x1) / self._h

    def time_step(self) -> float:
        return self._h

    def suppress_initial_transient(self) -> bool:
        return self._suppress

    def set_input_history(self, context_or_state, u_n, u_n_minus_1) -> None:
        """Set u[n] and u[n-1] (and turn the transient suppression off)."""
        a = as_vector(u_n, "DiscreteDerivative.set_input_history: u_n")
        b = as_vector(u_n_minus_1, "DiscreteDerivative.set_input_history: u_n_minus_1")
        if a.shape[0] != self._n or b.shape[0] != self._n:
            raise ValueError(f"DiscreteDerivative.set_input_history: both vectors must have size {self._n}, "
                             f"got {a.shape[0]} and {b.shape[0]}")
        state = _state_of(self, context_or_state, "DiscreteDerivative.set_input_history")
        state.get_mutable_discrete_state(0).SetFromVector(a)
        state.get_mutable_discrete_state(1).SetFromVector(b)
        if self._suppress:
            state.get_mutable_discrete_state(2).SetFromVector([2.0])


class StateInterpolatorWithDiscreteDerivative(Diagram):
    """A Diagram: position -> state = [position; DiscreteDerivative(position)]."""

    def __init__(self, num_positions: int, time_step: float, suppress_initial_transient: bool = True) -> None:
        super().__init__()
        n = positive_int(num_positions, "StateInterpolatorWithDiscreteDerivative: num_positions")
        builder = DiagramBuilder()
        self._derivative = builder.AddSystem(DiscreteDerivative(n, time_step, suppress_initial_transient))
        mux = builder.AddSystem(Multiplexer([n, n]))
        index = builder.ExportInput(self._derivative.get_input_port(), "position")
        builder.ConnectInput(index, mux.get_input_port(0))
        builder.Connect(self._derivative.get_output_port(), mux.get_input_port(1))
        builder.ExportOutput(mux.get_output_port(0), "state")
        builder.BuildInto(self)

    def suppress_initial_transient(self) -> bool:
        return self._derivative.suppress_initial_transient()

    def _derivative_state(self, context, what: str):
        if not hasattr(context, "get_time"):
            raise TypeError(f"StateInterpolatorWithDiscreteDerivative.{what}: pass this diagram's Context")
        return self.GetSubsystemContext(self._derivative, context)

    def set_initial_position(self, context=None, position=None, *, state=None) -> None:
        """Start with zero velocity at `position`: u[n] = u[n-1] = position (in `context`, or in `state`, this
        diagram's State)."""
        if state is not None:
            target = state  # the derivative is this diagram's only stateful subsystem: same discrete groups
        else:
            target = self._derivative_state(context, "set_initial_position")
        self._derivative.set_input_history(target, position, position)

    def set_initial_state(self, context, position, velocity) -> None:
        """Start at `position` with `velocity`: u[n] = position, u[n-1] = position - h * velocity."""
        p = as_vector(position, "set_initial_state: position")
        v = as_vector(velocity, "set_initial_state: velocity")
        if p.shape != v.shape:
            raise ValueError(f"set_initial_state: position (size {p.size}) and velocity (size {v.size}) differ")
        self._derivative.set_input_history(self._derivative_state(context, "set_initial_state"),
                                           p, p - self._derivative.time_step() * v)


class DiscreteTimeDelay(LeafSystem):
    """delayed_u = u sampled `delay_time_steps` periods of `update_sec` earlier (zeros / the model value until
    then): `(update_sec, delay_time_steps, vector_size)` or `(update_sec, delay_time_steps,
    abstract_model_value)`. The buffer holds delay_time_steps + 1 samples, oldest first, as Drake's."""

    def __init__(self, update_sec: float, delay_time_steps: int, *args, vector_size: int | None = None,
                 abstract_model_value=None) -> None:
        super().__init__()
        self._period = positive_period(update_sec, "DiscreteTimeDelay: update_sec")
        self._buffer = positive_int(delay_time_steps, "DiscreteTimeDelay: delay_time_steps", allow_zero=True) + 1
        arg = one_argument("DiscreteTimeDelay", args, vector_size=vector_size,
                           abstract_model_value=abstract_model_value)
        self._abstract = isinstance(arg, AbstractValue)
        if self._abstract:
            self._model = arg
            self.DeclareAbstractInputPort("u", arg)
            for _ in range(self._buffer):
                self.DeclareAbstractState(arg.Clone())
            self._oldest = self.DeclareAbstractState(Value(0))
            self.DeclareAbstractOutputPort("delayed_u", arg.Clone, self._copy_abstract, {self.xa_ticket()})
            self.DeclarePeriodicUnrestrictedUpdateEvent(self._period, 0.0, self._save_abstract)
        else:
            self._n = positive_int(arg, "DiscreteTimeDelay: vector_size", allow_zero=True)
            self.DeclareVectorInputPort("u", self._n)
            self.DeclareVectorOutputPort("delayed_u", self._n, self._copy_vector, {self.xd_ticket()})
            self.DeclareDiscreteState(self._n * self._buffer)
            self.DeclarePeriodicDiscreteUpdateEvent(self._period, 0.0, self._save_vector)

    def _copy_vector(self, context, output) -> None:
        output.SetFromVector(context.get_discrete_state(0)._data[:self._n])

    def _save_vector(self, context, discrete_state) -> None:
        old = context.get_discrete_state(0)._data
        new = discrete_state.get_mutable_value(0)
        new[:-self._n or None] = old[self._n:]
        new[len(new) - self._n:] = input_data(self, context, 0)

    def _copy_abstract(self, context, output) -> None:
        oldest = context.get_abstract_state(int(self._oldest)).get_value()
        output.SetFrom(context.get_abstract_state(oldest))

    def _save_abstract(self, context, state) -> None:
        value = self.get_input_port(0).EvalAbstract(context)
        oldest_value = state.get_mutable_abstract_state(int(self._oldest))
        oldest = oldest_value.get_value()
        state.get_mutable_abstract_state(oldest).SetFrom(value)
        oldest_value.set_value((oldest + 1) % self._buffer)


class DiscreteTimeIntegrator(LeafSystem):
    """x[n+1] = x[n] + time_step * u[n], y = x[n] (forward Euler, a discrete state updated every time_step)."""

    def __init__(self, size: int, time_step: float) -> None:
        super().__init__()
        self._h = positive_period(time_step, "DiscreteTimeIntegrator: time_step")
        n = positive_int(size, "DiscreteTimeIntegrator: size")
        self.DeclareVectorInputPort("u", n)
        xd = self.DeclareDiscreteState(n)
        self.DeclarePeriodicDiscreteUpdateEvent(self._h, 0.0, self._update)
        self.DeclareStateOutputPort("y", xd)

    def _update(self, context, discrete_state) -> None:
        discrete_state.get_mutable_value(0)[:] = context.get_discrete_state(0)._data + \
            self._h * input_data(self, context, 0)

    def time_step(self) -> float:
        return self._h

    def set_integral_value(self, context, value) -> None:
        """Sets the integral (the state) in `context`."""
        self.ValidateContext(context)
        context.SetDiscreteState(0, as_vector(value, "DiscreteTimeIntegrator.set_integral_value"))
