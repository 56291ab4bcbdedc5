"""Simulator event semantics as pydrake (spec pydrake_surface.md §3 items 1–8)."""
import time

import numpy as np
import pytest

from mallard.systems.analysis import Simulator, SimulatorStatus
from mallard.systems.framework import (DiagramBuilder, EventStatus, LeafSystem, TriggerType,
                                       UnrestrictedUpdateEvent, WitnessFunctionDirection)


class Recorder(LeafSystem):
    """Declares one of each event kind and records (kind, time) in order."""

    def __init__(self):
        super().__init__()
        self.log = []
        self.DeclareDiscreteState(1)
        self.DeclareInitializationUnrestrictedUpdateEvent(lambda c, s: self.log.append(("init_unrestricted", c.get_time())))
        self.DeclareInitializationDiscreteUpdateEvent(self.init_discrete)
        self.DeclareInitializationPublishEvent(lambda c: self.log.append(("init_publish", c.get_time())))
        self.DeclarePerStepPublishEvent(lambda c: self.log.append(("per_step_publish", c.get_time())))
        self.DeclarePeriodicDiscreteUpdateEvent(0.5, 0.0, self.periodic_discrete)

    def init_discrete(self, context, xd):
        self.log.append(("init_discrete", context.get_time()))
        xd.get_mutable_vector().SetAtIndex(0, 2.0)

    def periodic_discrete(self, context, xd):
        self.log.append(("periodic_discrete", context.get_time(), context.get_discrete_state_vector().GetAtIndex(0)))
        xd.get_mutable_vector().SetAtIndex(0, context.get_discrete_state_vector().GetAtIndex(0) + 1.0)


def test_initialization_order_and_boundary_events():
    r = Recorder()
    sim = Simulator(r)
    sim.Initialize()
    assert [e[0] for e in r.log] == ["init_unrestricted", "init_discrete", "init_publish", "per_step_publish"]
    sim.AdvanceTo(1.0)
    kinds = [e for e in r.log if e[0] == "periodic_discrete"]
    # t = 0 sees the init-updated value 2; the update due at the boundary t = 1 is left pending
    assert [(t, x) for _k, t, x in kinds] == [(0.0, 2.0), (0.5, 3.0)]
    sim.AdvanceTo(1.0)  # AdvancePendingEvents-like: handles the t = 1 update without moving time
    assert r.log[-2][0] == "periodic_discrete" and r.log[-2][1] == 1.0


def test_periodic_update_count_over_advance_to():
    class Count(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareDiscreteState(1)
            self.DeclarePeriodicDiscreteUpdateEvent(0.01, 0.0, lambda c, xd: xd.get_mutable_vector().SetAtIndex(
                0, c.get_discrete_state_vector().GetAtIndex(0) + 1))

    s = Count()
    sim = Simulator(s)
    sim.AdvanceTo(10.0)
    assert sim.get_context().get_discrete_state_vector().GetAtIndex(0) == 1000
    assert sim.get_num_discrete_updates() == 1000


def test_per_step_publish_logs_initialization_and_every_step():
    class Osc(LeafSystem):
        def __init__(self):
            super().__init__()
            self.times = []
            self.DeclareContinuousState(1, 1, 0)
            self.DeclarePerStepPublishEvent(lambda c: self.times.append(c.get_time()))

        def DoCalcTimeDerivatives(self, context, d):
            q, v = context.get_continuous_state_vector().CopyToVector()
            d.get_mutable_vector().SetFromVector([v, -q])

    s = Osc()
    sim = Simulator(s)
    sim.get_mutable_context().SetContinuousState([1.0, 0.0])
    sim.AdvanceTo(3.0)
    assert len(s.times) == sim.get_num_steps_taken() + 1
    assert s.times[0] == 0.0 and s.times[-1] == 3.0


def test_termination_failure_and_monitor():
    class Stopper(LeafSystem):
        def __init__(self, failing):
            super().__init__()
            self.failing = failing
            self.DeclarePeriodicPublishEvent(0.1, 0.0, self.check)

        def check(self, context):
            if context.get_time() >= 0.3 - 1e-12:
                if self.failing:
                    return EventStatus.Failed(self, "sensor unplugged")
                return EventStatus.ReachedTermination(self, "goal reached")
            return None

    s = Stopper(False)
    s.set_name("stopper")
    sim = Simulator(s)
    calls = []
    sim.set_monitor(lambda c: calls.append(c.get_time()))
    status = sim.AdvanceTo(1.0)
    assert status.reason() == SimulatorStatus.ReturnReason.kReachedTerminationCondition
    assert abs(status.return_time() - 0.3) < 1e-12 and "goal reached" in status.FormatMessage()
    assert calls[0] == 0.0 and len(calls) == sim.get_num_steps_taken() + 1
    f = Stopper(True)
    f.set_name("failing")
    with pytest.raises(RuntimeError, match="::failing failed with message: \"sensor unplugged\""):
        Simulator(f).AdvanceTo(1.0)


def test_bouncing_ball_witness_isolated_to_1e_10():
    g, h0, e = 9.81, 1.0, 0.8

    class Ball(LeafSystem):
        def __init__(self):
            super().__init__()
            self.impacts = []
            self.DeclareContinuousState(1, 1, 0)
            self.witness = self.MakeWitnessFunction(
                "ground", WitnessFunctionDirection.kPositiveThenNonPositive,
                lambda c: c.get_continuous_state_vector().GetAtIndex(0), UnrestrictedUpdateEvent(self.bounce))

        def bounce(self, context, event, state):
            self.impacts.append(context.get_time())
            assert event.get_trigger_type() == TriggerType.kWitness
            x = state.get_mutable_continuous_state().get_mutable_vector()
            x.SetAtIndex(1, -e * x.GetAtIndex(1))

        def DoGetWitnessFunctions(self, context):
            return [self.witness]

        def DoCalcTimeDerivatives(self, context, d):
            d.get_mutable_vector().SetFromVector([context.get_continuous_state_vector().GetAtIndex(1), -g])

    ball = Ball()
    sim = Simulator(ball)
    ctx = sim.get_mutable_context()
    ctx.SetContinuousState([h0, 0.0])
    ctx.SetAccuracy(1e-8)
    sim.AdvanceTo(1.5)
    t1 = np.sqrt(2 * h0 / g)
    t2 = t1 + 2 * e * np.sqrt(2 * g * h0) / g
    assert len(ball.impacts) == 2
    assert abs(ball.impacts[0] - t1) < 1e-10
    assert abs(ball.impacts[1] - t2) < 1e-9


def test_realtime_rate_paces_simulation():
    class Idle(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclarePeriodicPublishEvent(0.01, 0.0, lambda c: None)

    sim = Simulator(Idle())
    sim.set_target_realtime_rate(1.0)
    start = time.perf_counter()
    sim.AdvanceTo(0.2)
    assert time.perf_counter() - start >= 0.19
    assert 0.5 < sim.get_actual_realtime_rate() <= 1.2


def test_bad_use_is_reported():
    class Needs(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareVectorInputPort("command", 2)
            self.DeclareVectorInputPort("optional", 1, required=False)

    b = DiagramBuilder()
    b.AddNamedSystem("needs", Needs())
    d = b.Build()
    with pytest.raises(RuntimeError, match=r"neither connected nor fixed:\n  ::_::needs/command \(InputPort\[0\]"):
        Simulator(d).Initialize()
    sim = Simulator(Recorder())
    sim.AdvanceTo(1.0)
    with pytest.raises(ValueError, match="already at time 1.0; simulated time cannot go backwards"):
        sim.AdvanceTo(0.5)
