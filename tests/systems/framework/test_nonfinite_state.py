"""A discrete, unrestricted or abstract-state update that produces NaN or inf stops with a RuntimeError naming the
system, the state and the time, and leaves the state as it was before the update."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems.analysis import Simulator
from mallard.systems.framework import AbstractValue, DiagramBuilder, LeafSystem
from mallard.systems.primitives import ConstantValueSource, ConstantVectorSource, LogVectorOutput, ZeroOrderHold


def _zoh_diagram(value):
    builder = DiagramBuilder()
    source = builder.AddSystem(ConstantVectorSource(value))
    zoh = builder.AddSystem(ZeroOrderHold(0.1, len(value)))
    zoh.set_name("zoh")
    builder.Connect(source.get_output_port(), zoh.get_input_port())
    LogVectorOutput(zoh.get_output_port(), builder)
    diagram = builder.Build()
    diagram.set_name("d")
    return diagram, zoh


def test_zero_order_hold_fed_nan_names_system_state_time_and_input() -> None:
    diagram, zoh = _zoh_diagram([np.nan, 1.0])
    simulator = Simulator(diagram)
    with pytest.raises(RuntimeError) as err:
        simulator.AdvanceTo(1.0)
    message = str(err.value)
    assert "the discrete state of ZeroOrderHold '::d::zoh' became non-finite" in message
    assert "t = 0 s" in message and "group 0, index 0 = nan" in message
    assert "input port 'u'" in message
    state = zoh.GetMyContextFromRoot(simulator.get_context()).get_discrete_state_vector().CopyToVector()
    assert np.all(np.isfinite(state)), "the failed update must not be applied"


class _Reciprocal(LeafSystem):
    """x0 counts updates every 0.1 s; x1 = 1 / (3 - x0) turns inf at the fourth update (t = 0.3 s)."""

    def __init__(self) -> None:
        super().__init__()
        self.DeclareDiscreteState(2)
        self.DeclarePeriodicDiscreteUpdateEvent(0.1, 0.0, self._update)
        self.set_name("reciprocal")

    def _update(self, context, discrete_state) -> None:
        x = context.get_discrete_state_vector().get_value()
        discrete_state.set_value([x[0] + 1.0, 1.0 / (3.0 - x[0]) if x[0] < 3 else np.inf])


def test_discrete_update_returning_inf_names_the_entry_and_time() -> None:
    system = _Reciprocal()
    simulator = Simulator(system)
    with pytest.raises(RuntimeError, match=r"_Reciprocal '::reciprocal' became non-finite in the update at "
                                           r"t = 0.3 s: group 0, index 1 = inf"):
        simulator.AdvanceTo(1.0)
    assert simulator.get_context().get_discrete_state_vector().GetAtIndex(0) == 3.0  # the last good state


def test_abstract_zero_order_hold_fed_nan_array() -> None:
    builder = DiagramBuilder()
    source = builder.AddSystem(ConstantValueSource(AbstractValue.Make(np.array([1.0, np.nan]))))
    zoh = builder.AddSystem(ZeroOrderHold(0.1, AbstractValue.Make(np.zeros(2))))
    zoh.set_name("azoh")
    builder.Connect(source.get_output_port(), zoh.get_input_port())
    with pytest.raises(RuntimeError, match=r"the abstract state 0 of ZeroOrderHold '.*azoh' became non-finite in "
                                           r"the update at t = 0 s: \[ 1. nan\]"):
        Simulator(builder.Build()).AdvanceTo(1.0)


class _UnrestrictedNaN(LeafSystem):
    def __init__(self) -> None:
        super().__init__()
        self.DeclareContinuousState(1)
        self.DeclarePeriodicUnrestrictedUpdateEvent(0.1, 0.0, self._update)
        self.set_name("jump")

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        derivatives.get_mutable_vector().SetAtIndex(0, 0.0)

    def _update(self, context, state) -> None:
        value = np.nan if context.get_time() > 0.15 else 1.0
        state.get_mutable_continuous_state().get_mutable_vector().SetAtIndex(0, value)


def test_unrestricted_update_writing_nan_into_continuous_state() -> None:
    simulator = Simulator(_UnrestrictedNaN())
    with pytest.raises(RuntimeError, match=r"the continuous state of _UnrestrictedNaN '::jump' became non-finite in "
                                           r"the update at t = 0.2 s: index 0 = nan"):
        simulator.AdvanceTo(1.0)
    assert simulator.get_context().get_continuous_state_vector().GetAtIndex(0) == 1.0


def test_nan_a_user_put_in_the_state_is_left_alone() -> None:
    """Only values an update made non-finite are reported: a ZOH latching a finite input over a NaN initial
    state, or a system that never touches a NaN it was given, runs on."""
    diagram, zoh = _zoh_diagram([2.0, 1.0])
    simulator = Simulator(diagram)
    zoh.GetMyContextFromRoot(simulator.get_mutable_context()).SetDiscreteState([np.nan, np.nan])
    simulator.AdvanceTo(0.5)
    state = zoh.GetMyContextFromRoot(simulator.get_context()).get_discrete_state_vector().CopyToVector()
    np.testing.assert_array_equal(state, [2.0, 1.0])


def test_all_finite_is_exact_on_short_and_long_vectors() -> None:
    """all_finite sums short vectors as Python floats and longer ones with numpy; both say non-finite for any NaN or
    inf (also +inf and -inf together, whose sum is NaN) and finite for finite values whose sum overflows."""
    from mallard.systems.framework.state_check import all_finite
    for n in (1, 14, 64, 65, 1000):
        x = np.linspace(-1.0, 1.0, n)
        assert all_finite(x)
        for bad in ([np.nan], [np.inf], [-np.inf], [np.inf, -np.inf])[:4 if n > 1 else 3]:
            y = x.copy()
            y[:len(bad)] = bad
            assert not all_finite(y), (n, bad)
        big = np.full(n, 1e308)
        assert all_finite(big)  # the sum overflows; the exact check says finite
    assert all_finite(np.zeros(0))
    assert not all_finite(np.array([[1.0, np.nan]]))  # 2-D: the numpy reduction
