"""Simulator.AdvanceTo(show_progress=True) / set_show_progress: a tqdm bar of simulated time and real-time rate
on stderr, the user's monitor still called every step, the same trajectory, and no monitor when off."""
import numpy as np

from mallard.systems.analysis import Simulator
from mallard.systems.framework import LeafSystem
from mallard.systems.framework.events import EventStatus


class Decay(LeafSystem):
    """ẋ = -x."""

    def __init__(self):
        super().__init__()
        self.DeclareStateOutputPort("x", self.DeclareContinuousState(1))

    def DoCalcTimeDerivatives(self, context, derivatives):
        derivatives.SetFromVector(-context.get_continuous_state_vector().CopyToVector())


def _simulator():
    sim = Simulator(Decay())
    sim.get_mutable_context().SetContinuousState([1.0])
    sim.get_mutable_integrator().set_maximum_step_size(1e-3)
    return sim


def test_progress_bar_shows_time_and_rate_and_keeps_the_monitor(capsys):
    calls = {True: [], False: []}

    def monitor(shown):
        def record(context):
            calls[shown].append(context.get_time())
            return EventStatus.DidNothing()
        return record

    sim, plain = _simulator(), _simulator()
    sim.set_monitor(monitor(True))
    sim.AdvanceTo(0.5, show_progress=True)
    err = capsys.readouterr().err
    assert "simulating: 100%" in err and "t = 0.500/0.500 s" in err and "× real time" in err
    assert sim.get_monitor().__name__ == "record"  # the user's monitor is back after the call
    plain.AdvanceTo(0.5)
    assert capsys.readouterr().err == ""
    assert plain.get_monitor() is None  # nothing installed per step when the bar is off
    plain.set_monitor(monitor(False))
    plain.AdvanceTo(1.0)
    sim.AdvanceTo(1.0, show_progress=False)
    assert len(calls[True]) > 500 and calls[True][-1] == 1.0
    assert calls[True][-len(calls[False]):] == calls[False]  # called at every step, bar or not
    np.testing.assert_array_equal(sim.get_context().get_continuous_state_vector().CopyToVector(),
                                  plain.get_context().get_continuous_state_vector().CopyToVector())


def test_set_show_progress_is_the_default_for_advance_to(capsys):
    sim = _simulator()
    assert not sim.get_show_progress()
    sim.set_show_progress(True)
    sim.AdvanceTo(0.25)
    assert "t = 0.250/0.250 s" in capsys.readouterr().err
    sim.AdvanceTo(0.25)  # nothing to advance: no bar
    sim.AdvanceTo(0.5, show_progress=False)  # the argument wins
    assert capsys.readouterr().err == ""
    assert sim.get_monitor() is None
    sim.AdvanceTo(0.75)
    assert "t = 0.250/0.250 s" in capsys.readouterr().err  # the bar counts from where the call starts
