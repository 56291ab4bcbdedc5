"""RandomSource (statistics and pydrake's update timing) and clear errors on bad primitive arguments."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder, TriggerType
from mallard.systems.primitives import (Adder, ConstantVectorSource, Demultiplexer, DiscreteDerivative,
                                        FirstOrderLowPassFilter, Gain, Integrator, LogVectorOutput, MatrixGain,
                                        Multiplexer, PassThrough, RandomDistribution, RandomSource, Saturation,
                                        Sine, TrajectorySource, VectorLog, VectorLogSink, WrapToSystem,
                                        ZeroOrderHold)
from mallard.systems.trajectories import PiecewisePolynomial


def _changes(ns, distribution, t_final=1.0):
    b = ns.DiagramBuilder()
    src = b.AddSystem(ns.RandomSource(distribution, 2000, 0.25))
    log = ns.LogVectorOutput(src.get_output_port(0), b)
    d = b.Build()
    sim = ns.Simulator(d)
    ns.ResetIntegratorFromFlags(sim, "runge_kutta2", 0.125)
    sim.AdvanceTo(t_final)
    L = log.FindLog(sim.get_context())
    data, t = np.array(L.data()), np.array(L.sample_times())
    changed = np.any(np.diff(data, axis=1) != 0.0, axis=0)
    return t, data, t[1:][changed]


@pytest.mark.parametrize("name,mean,var,mu4,lo", [("kUniform", 0.5, 1.0 / 12.0, 1.0 / 80.0, 0.0),
                                                  ("kGaussian", 0.0, 1.0, 3.0, -np.inf),
                                                  ("kExponential", 1.0, 1.0, 9.0, 0.0)])
def test_random_source_statistics_and_timing_match_pydrake(both, name, mean, var, mu4, lo):
    mine_ns, drake_ns = both
    t, data, change_times = _changes(mine_ns, getattr(mine_ns.RandomDistribution, name))
    dt, ddata, dchange_times = _changes(drake_ns, getattr(drake_ns.RandomDistribution, name))
    np.testing.assert_array_equal(t, dt)
    np.testing.assert_array_equal(change_times, dchange_times)  # redrawn at the same times as pydrake
    assert data.min() >= lo
    samples = data[:, ::2].ravel()  # one column per sampling interval
    assert abs(samples.mean() - mean) < 5 * np.sqrt(var / samples.size)
    # 5 standard errors of the sample variance ((mu4 - var^2) / n) whatever the seed drawn
    assert abs(samples.var() - var) < 5 * np.sqrt((mu4 - var ** 2) / samples.size)


def test_random_source_seeds_and_random_context():
    a, b = RandomSource(RandomDistribution.kGaussian, 3, 0.1), RandomSource(RandomDistribution.kGaussian, 3, 0.1)
    ca, cb = a.CreateDefaultContext(), b.CreateDefaultContext()
    assert a.get_seed(ca) != b.get_seed(cb)
    assert not np.array_equal(a.get_output_port().Eval(ca), b.get_output_port().Eval(cb))
    np.testing.assert_array_equal(a.get_output_port().Eval(ca), a.get_output_port().Eval(a.CreateDefaultContext()))
    a.SetRandomContext(ca, np.random.default_rng(1))
    first = a.get_output_port().Eval(ca)
    a.SetRandomContext(ca, np.random.default_rng(1))
    np.testing.assert_array_equal(a.get_output_port().Eval(ca), first)
    a.set_fixed_seed(42)
    assert a.get_seed(a.CreateDefaultContext()) == 42
    with pytest.raises(ValueError, match="sampling_interval_sec"):
        RandomSource(RandomDistribution.kUniform, 2, -1.0)
    with pytest.raises(ValueError, match="unknown distribution"):
        RandomSource(7, 2, 0.1)


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="period_sec"):
        ZeroOrderHold(-0.1, 2)
    with pytest.raises(ValueError, match="offset_sec"):
        ZeroOrderHold(0.1, 2, -1.0)
    with pytest.raises(ValueError, match="time_step"):
        DiscreteDerivative(2, 0.0)
    with pytest.raises(ValueError, match="publish_period"):
        VectorLogSink(2, -0.5)
    with pytest.raises(ValueError, match="kPeriodic trigger needs publish_period"):
        VectorLogSink(2, {TriggerType.kPeriodic})
    with pytest.raises(ValueError, match="unsupported publish triggers"):
        VectorLogSink(2, {TriggerType.kInitialization})
    with pytest.raises(ValueError, match="not empty|must not be empty"):
        VectorLogSink(2, set())
    with pytest.raises(ValueError, match="kPeriodic is not among"):
        VectorLogSink(2, {TriggerType.kForced}, 0.1)
    with pytest.raises(ValueError, match="time constants"):
        FirstOrderLowPassFilter(-1.0)
    with pytest.raises(ValueError, match="min_value must be <= max_value"):
        Saturation([1.0, 0.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="same size"):
        Saturation([0.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="divide"):
        Demultiplexer(5, 2)
    with pytest.raises(ValueError, match="num_inputs"):
        Adder(0, 2)
    with pytest.raises(ValueError, match="size"):
        Gain(1.0, -3)
    with pytest.raises(ValueError, match="high"):
        WrapToSystem(2).set_interval(0, 1.0, 1.0)
    with pytest.raises(ValueError, match="index"):
        WrapToSystem(2).set_interval(5, 0.0, 1.0)
    with pytest.raises(ValueError, match="column vector"):
        TrajectorySource(PiecewisePolynomial(np.ones((2, 2))))
    with pytest.raises(ValueError, match="output_derivative_order"):
        TrajectorySource(PiecewisePolynomial(np.ones((2, 1))), -1)
    src = TrajectorySource(PiecewisePolynomial(np.ones((2, 1))))
    with pytest.raises(ValueError, match="UpdateTrajectory"):
        src.UpdateTrajectory(PiecewisePolynomial(np.ones((3, 1))))
    with pytest.raises(ValueError, match="input_sizes"):
        Multiplexer([])
    with pytest.raises(ValueError, match="Sine"):
        Sine(np.ones(2), np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="MatrixGain"):
        MatrixGain(np.zeros((0, 0)))
    with pytest.raises(ValueError, match="size"):
        Integrator(2).set_default_integral_value([1.0])
    with pytest.raises(ValueError, match="size 2"):
        VectorLog(2).AddData(0.0, [1.0, 2.0, 3.0])
    z = ZeroOrderHold(0.1, 2)
    with pytest.raises(ValueError, match="expected size"):
        z.SetVectorState(z.CreateDefaultContext(), [1.0])


def test_unconnected_input_is_named():
    b = DiagramBuilder()
    g = b.AddSystem(Gain(2.0, 1))
    g.set_name("my_gain")
    d = b.Build()
    ctx = d.CreateDefaultContext()
    with pytest.raises(RuntimeError, match="my_gain.*not connected"):
        g.get_output_port().Eval(g.GetMyContextFromRoot(ctx))
    pt = PassThrough(2)  # optional input: unconnected is fine
    np.testing.assert_array_equal(pt.get_output_port().Eval(pt.CreateDefaultContext()), [0.0, 0.0])


def test_constant_source_parameter_and_log_growth():
    b = DiagramBuilder()
    src = b.AddSystem(ConstantVectorSource([1.0]))
    integ = b.AddSystem(Integrator(1))
    b.Connect(src.get_output_port(), integ.get_input_port())
    sink = LogVectorOutput(integ.get_output_port(), b, 0.0005)  # > kDefaultCapacity samples
    d = b.Build()
    sim = Simulator(d)
    src.get_mutable_source_value(src.GetMyContextFromRoot(sim.get_context())).SetFromVector([2.0])
    sim.AdvanceTo(1.0)
    log = sink.FindLog(sim.get_context())
    assert log.num_samples() == 2001 and log.data().shape == (1, 2001)
    np.testing.assert_allclose(log.data()[0], 2.0 * log.sample_times(), atol=1e-9)
    with pytest.raises(ValueError):
        log.data()[0, 0] = 5.0  # read-only view
