"""Forced and initialization events, VectorSystem, output allocation and subsystem-context navigation."""
import numpy as np
import pytest

from mallard.systems.analysis import Simulator
from mallard.systems.framework import (BasicVector, DiagramBuilder, EventStatus, LeafSystem, PublishEvent,
                                       TriggerType, VectorSystem)


class Forced(LeafSystem):
    def __init__(self):
        super().__init__()
        self.published = []
        self.DeclareDiscreteState(1)
        self.DeclareForcedPublishEvent(lambda c: self.published.append(c.get_time()))
        self.DeclareForcedDiscreteUpdateEvent(
            lambda c, xd: xd.get_mutable_vector().SetAtIndex(0, c.get_discrete_state_vector().GetAtIndex(0) + 10))
        self.DeclareForcedUnrestrictedUpdateEvent(
            lambda c, s: s.get_mutable_discrete_state(0).SetAtIndex(0, -1.0))
        self.DeclarePerStepEvent(PublishEvent(self.per_step))
        self.triggers = []

    def per_step(self, context, event):
        self.triggers.append(event.get_trigger_type())
        return EventStatus.Succeeded()


def test_forced_events_and_execute_helpers():
    s = Forced()
    ctx = s.CreateDefaultContext()
    ctx.SetTime(0.5)
    s.ForcedPublish(ctx)
    assert s.published == [0.5]
    s.ExecuteForcedEvents(ctx, publish=False)
    # unrestricted first (x = -1), then discrete (x + 10)
    assert ctx.get_discrete_state_vector().GetAtIndex(0) == 9.0
    s.ExecuteInitializationEvents(ctx)
    sim = Simulator(s)
    with pytest.warns(FutureWarning, match="no longer controlled by the Simulator"):
        sim.set_publish_every_time_step(True)
    sim.AdvanceTo(0.3)
    assert set(s.triggers) == {TriggerType.kPerStep}
    assert len(s.published) == 2 + sim.get_num_steps_taken()  # the call above, at initialization, every step


def test_vector_system_discrete_and_continuous():
    class Accumulate(VectorSystem):
        def __init__(self):
            super().__init__(1, 1, direct_feedthrough=False)
            self.DeclareDiscreteState(1)
            self.DeclarePeriodicDiscreteUpdate(0.1)

        def DoCalcVectorDiscreteVariableUpdates(self, context, u, x, xn):
            xn[:] = x + u

    class Decay(VectorSystem):
        def __init__(self):
            super().__init__(0, 1)
            self.DeclareContinuousState(1)

        def DoCalcVectorTimeDerivatives(self, context, u, x, xdot):
            xdot[:] = -x

    acc = Accumulate()
    ctx = acc.CreateDefaultContext()
    acc.get_input_port(0).FixValue(ctx, [2.0])
    sim = Simulator(acc, ctx)
    sim.AdvanceTo(1.0)
    assert ctx.get_discrete_state_vector().GetAtIndex(0) == 20.0  # updates at 0.0 ... 0.9
    np.testing.assert_array_equal(acc.get_output_port(0).Eval(ctx), [20.0])
    assert not acc.HasDirectFeedthrough(0, 0)
    decay = Decay()
    sim = Simulator(decay)
    sim.get_mutable_context().SetContinuousState([1.0])
    sim.get_mutable_integrator().set_target_accuracy(1e-10)
    sim.AdvanceTo(1.0)
    np.testing.assert_allclose(decay.get_output_port(0).Eval(sim.get_context()), [np.exp(-1.0)], rtol=1e-8)


def test_calc_output_subsystem_context_and_fix_inputs_from():
    class Add1(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareVectorInputPort("u", 2)
            self.DeclareVectorOutputPort("y", 2, lambda c, o: o.SetFromVector(self.get_input_port().Eval(c) + 1))

    b = DiagramBuilder()
    a = b.AddNamedSystem("a", Add1())
    b.ExportInput(a.get_input_port(), "u")
    b.ExportOutput(a.get_output_port(), "y")
    d = b.Build()
    ctx = d.CreateDefaultContext()
    d.get_input_port(0).FixValue(ctx, BasicVector([1.0, 2.0]))
    outputs = d.AllocateOutput()
    d.CalcOutput(ctx, outputs)
    np.testing.assert_array_equal(outputs.get_vector_data(0).CopyToVector(), [2.0, 3.0])
    assert d.GetSubsystemContext(a, ctx) is a.GetMyContextFromRoot(ctx)
    other = Add1()
    other_ctx = other.CreateDefaultContext()
    other.FixInputPortsFrom(d, ctx, other_ctx)
    np.testing.assert_array_equal(other.get_output_port().Eval(other_ctx), [2.0, 3.0])
    with pytest.raises(RuntimeError, match="GetMyContextFromRoot"):
        a.get_output_port().Eval(ctx)
