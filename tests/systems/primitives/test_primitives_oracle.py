"""Small diagrams of primitives simulated in mallard and in pydrake: logged signals must agree.

Both sides run the same fixed-step integrator, so logged sample times agree exactly and values to rounding.
"""
from __future__ import annotations

import numpy as np
import pytest


def _simulate(ns, build, t_final, scheme="runge_kutta2", h=0.01):
    builder = ns.DiagramBuilder()
    logs = build(ns, builder)
    diagram = builder.Build()
    sim = ns.Simulator(diagram)
    ns.ResetIntegratorFromFlags(sim, scheme, h)
    sim.AdvanceTo(t_final)
    ctx = sim.get_context()
    out = {k: (np.array(s.FindLog(ctx).sample_times()), np.array(s.FindLog(ctx).data())) for k, s in logs.items()}
    return out, sim, diagram


def _compare(both, build, t_final, atol=1e-10, **kw):
    mine, _, _ = _simulate(both[0], build, t_final, **kw)
    theirs, _, _ = _simulate(both[1], build, t_final, **kw)
    assert mine.keys() == theirs.keys()
    for key in mine:
        (tm, dm), (td, dd) = mine[key], theirs[key]
        assert tm.shape == td.shape, f"{key}: {tm.shape[0]} samples vs pydrake's {td.shape[0]}"
        np.testing.assert_allclose(tm, td, rtol=0, atol=1e-12, err_msg=f"{key} sample times")
        assert dm.shape == dd.shape
        np.testing.assert_allclose(dm, dd, rtol=0, atol=atol, err_msg=f"{key} data")
    return mine


def _continuous_chain(ns, b):
    sine = b.AddSystem(ns.Sine(np.array([1.0, 0.5]), np.array([2.0, 3.0]), np.array([0.1, -0.4])))
    gain = b.AddSystem(ns.Gain(np.array([2.0, -1.5])))
    const = b.AddSystem(ns.ConstantVectorSource(np.array([0.3, -0.2])))
    adder = b.AddSystem(ns.Adder(2, 2))
    integ = b.AddSystem(ns.Integrator(np.array([1.0, -1.0])))
    lp = b.AddSystem(ns.FirstOrderLowPassFilter(np.array([0.2, 0.05])))
    sat = b.AddSystem(ns.Saturation(np.array([-0.5, -0.1]), np.array([0.4, 0.9])))
    b.Connect(sine.get_output_port(0), gain.get_input_port())
    b.Connect(gain.get_output_port(), adder.get_input_port(0))
    b.Connect(const.get_output_port(), adder.get_input_port(1))
    b.Connect(adder.get_output_port(), integ.get_input_port())
    b.Connect(integ.get_output_port(), lp.get_input_port())
    b.Connect(lp.get_output_port(), sat.get_input_port())
    return {
        "integ": ns.LogVectorOutput(integ.get_output_port(), b),
        "lp": ns.LogVectorOutput(lp.get_output_port(), b),
        "sat": ns.LogVectorOutput(sat.get_output_port(), b),
        "sine_d": ns.LogVectorOutput(sine.get_output_port(1), b, 0.05),
        "sine_dd": ns.LogVectorOutput(sine.get_output_port(2), b, 0.05),
    }


def test_continuous_chain_matches_pydrake(both):
    _compare(both, _continuous_chain, 1.5)


def _linear(ns, b):
    A = np.array([[0.0, 1.0], [-2.0, -0.3]])
    B = np.array([[0.0], [1.0]])
    C = np.array([[1.0, 0.5]])
    D = np.array([[0.2]])
    sine = b.AddSystem(ns.Sine(1.0, 1.5, 0.0, 1))
    lin = b.AddSystem(ns.LinearSystem(A, B, C, D))
    aff = b.AddSystem(ns.AffineSystem(A, B, np.array([0.1, -0.1]), C, D, np.array([0.5])))
    dlin = b.AddSystem(ns.LinearSystem(np.array([[0.9, 0.1], [0.0, 0.8]]), B, C, D, 0.1))
    daff = b.AddSystem(ns.AffineSystem(np.array([[0.5]]), np.array([[1.0]]), np.array([0.2]), np.array([[2.0]]),
                                       np.array([[0.0]]), np.array([-1.0]), 0.05))
    mg = b.AddSystem(ns.MatrixGain(np.array([[1.0], [-2.0], [0.5]])))
    for s in (lin, aff, dlin, daff, mg):
        b.Connect(sine.get_output_port(0), s.get_input_port())
    return {k: ns.LogVectorOutput(s.get_output_port(), b) for k, s in
            (("lin", lin), ("aff", aff), ("dlin", dlin), ("daff", daff), ("mg", mg))}


def test_linear_and_affine_systems_match_pydrake(both):
    _compare(both, _linear, 1.0)


def _routing(ns, b):
    sine = b.AddSystem(ns.Sine(np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 0.5]), np.zeros(3)))
    demux = b.AddSystem(ns.Demultiplexer([1, 2]))
    mux = b.AddSystem(ns.Multiplexer([2, 1, 1]))
    wrap = b.AddSystem(ns.WrapToSystem(4))
    wrap.set_interval(0, -1.0, 1.0)
    wrap.set_interval(3, 0.0, 0.7)
    pt = b.AddSystem(ns.PassThrough(4))
    scalar_mux = b.AddSystem(ns.Multiplexer(2))
    demux2 = b.AddSystem(ns.Demultiplexer(4, 2))
    b.Connect(sine.get_output_port(0), demux.get_input_port())
    b.Connect(demux.get_output_port(1), mux.get_input_port(0))
    b.Connect(demux.get_output_port(0), mux.get_input_port(1))
    b.Connect(demux.get_output_port(0), mux.get_input_port(2))
    b.Connect(mux.get_output_port(), wrap.get_input_port())
    b.Connect(wrap.get_output_port(), pt.get_input_port())
    b.Connect(pt.get_output_port(), demux2.get_input_port())
    b.Connect(demux.get_output_port(0), scalar_mux.get_input_port(0))
    b.Connect(demux.get_output_port(0), scalar_mux.get_input_port(1))
    return {"wrap": ns.LogVectorOutput(pt.get_output_port(), b, 0.1),
            "half": ns.LogVectorOutput(demux2.get_output_port(1), b, 0.1),
            "smux": ns.LogVectorOutput(scalar_mux.get_output_port(), b, 0.1)}


def test_routing_and_wrapping_match_pydrake(both):
    _compare(both, _routing, 3.0)


def _sampled(ns, b):
    sine = b.AddSystem(ns.Sine(np.array([1.0, 2.0]), np.array([3.0, 1.0]), np.array([0.0, 0.5])))
    zoh = b.AddSystem(ns.ZeroOrderHold(0.1, 2, 0.03))
    zoh0 = b.AddSystem(ns.ZeroOrderHold(0.25, 2))
    dd = b.AddSystem(ns.DiscreteDerivative(2, 0.1))
    dd_raw = b.AddSystem(ns.DiscreteDerivative(2, 0.07, False))
    interp = b.AddSystem(ns.StateInterpolatorWithDiscreteDerivative(2, 0.05))
    for s in (zoh, zoh0, dd, dd_raw):
        b.Connect(sine.get_output_port(0), s.get_input_port())
    b.Connect(sine.get_output_port(0), interp.get_input_port())
    logs = {"zoh": ns.LogVectorOutput(zoh.get_output_port(), b),
            "zoh0": ns.LogVectorOutput(zoh0.get_output_port(), b, 0.01),
            "dd": ns.LogVectorOutput(dd.get_output_port(), b),
            "dd_raw": ns.LogVectorOutput(dd_raw.get_output_port(), b, 0.02),
            "interp": ns.LogVectorOutput(interp.get_output_port(), b)}
    return logs


def test_holds_and_discrete_derivatives_match_pydrake(both):
    _compare(both, _sampled, 1.0)


def _trajectory(ns, b):
    breaks = [0.0, 0.4, 1.0, 1.3]
    samples = np.array([[0.0, 1.0, -1.0, 0.5], [2.0, 0.0, 1.0, 1.0]])
    pp = ns.PiecewisePolynomial.CubicShapePreserving(breaks, samples)
    src = b.AddSystem(ns.TrajectorySource(pp, 2))
    src_keep = b.AddSystem(ns.TrajectorySource(pp, 1, False))
    src0 = b.AddSystem(ns.TrajectorySource(ns.PiecewisePolynomial.FirstOrderHold(breaks, samples)))
    return {"d2": ns.LogVectorOutput(src.get_output_port(), b, 0.05),
            "d1": ns.LogVectorOutput(src_keep.get_output_port(), b, 0.05),
            "d0": ns.LogVectorOutput(src0.get_output_port(), b, 0.05)}


def test_trajectory_source_matches_pydrake(both):
    logs = _compare(both, _trajectory, 2.0)
    t, d2 = logs["d2"]
    assert np.all(d2[2:, t > 1.3] == 0.0)  # derivatives zeroed beyond the end time


@pytest.mark.parametrize("scheme,h", [("runge_kutta2", 0.125), ("explicit_euler", 0.03125)])
def test_per_step_logging_counts_match_pydrake(both, scheme, h):
    """publish_period 0 logs at initialization and after every step; periodic logs at k * period.

    Steps are powers of two so that step times are exact: with h = 0.1 pydrake accumulates 0.9999999999999999
    and takes an extra tiny step to 1.0 (logging twice), while mallard's simulator lands on 1.0 directly.
    """
    def build(ns, b):
        src = b.AddSystem(ns.Sine(1.0, 2.0, 0.0, 1))
        integ = b.AddSystem(ns.Integrator(1))
        b.Connect(src.get_output_port(0), integ.get_input_port())
        return {"every": ns.LogVectorOutput(integ.get_output_port(), b),
                "periodic": ns.LogVectorOutput(integ.get_output_port(), b, 0.25),
                "forced_only": ns.LogVectorOutput(integ.get_output_port(), b, {ns.TriggerType.kForced})}
    mine = _compare(both, build, 1.0, atol=1e-6, scheme=scheme, h=h)
    assert mine["forced_only"][0].size == 0
    np.testing.assert_allclose(mine["periodic"][0], [0.0, 0.25, 0.5, 0.75, 1.0], atol=1e-12)
    assert mine["every"][0].size == 1 + round(1.0 / h)


def test_forced_publish_and_log_access(both):
    for ns in both:
        b = ns.DiagramBuilder()
        src = b.AddSystem(ns.ConstantVectorSource(np.array([1.0, 2.0, 3.0])))
        sink = ns.LogVectorOutput(src.get_output_port(), b, {ns.TriggerType.kForced})
        diagram = b.Build()
        ctx = diagram.CreateDefaultContext()
        diagram.ForcedPublish(ctx)
        ctx.SetTime(0.5)
        src.get_mutable_source_value(src.GetMyContextFromRoot(ctx)).SetFromVector([4.0, 5.0, 6.0])
        diagram.ForcedPublish(ctx)
        log = sink.FindLog(ctx)
        assert log is sink.GetLog(sink.GetMyContextFromRoot(ctx)) or ns.name == "pydrake"
        np.testing.assert_array_equal(log.sample_times(), [0.0, 0.5])
        np.testing.assert_array_equal(log.data(), [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])
        assert log.num_samples() == 2 and log.get_input_size() == 3
        sink.FindMutableLog(ctx).Clear()
        assert sink.FindLog(ctx).num_samples() == 0


def test_abstract_hold_value_source_and_pass_through(both):
    for ns in both:
        b = ns.DiagramBuilder()
        src = b.AddSystem(ns.ConstantValueSource(ns.AbstractValue.Make("hello")))
        zoh = b.AddSystem(ns.ZeroOrderHold(0.1, ns.AbstractValue.Make("init")))
        pt = b.AddSystem(ns.PassThrough(ns.AbstractValue.Make("default")))
        pt_unconnected = b.AddSystem(ns.PassThrough(ns.AbstractValue.Make("default")))
        vec_pt = b.AddSystem(ns.PassThrough(np.array([7.0, 8.0])))
        b.Connect(src.get_output_port(), zoh.get_input_port())
        b.Connect(zoh.get_output_port(), pt.get_input_port())
        diagram = b.Build()
        ctx = diagram.CreateDefaultContext()
        sub = lambda s: s.GetMyContextFromRoot(ctx)  # noqa: E731
        assert zoh.get_output_port().Eval(sub(zoh)) == "init"
        assert pt_unconnected.get_output_port().Eval(sub(pt_unconnected)) == "default"
        np.testing.assert_array_equal(vec_pt.get_output_port().Eval(sub(vec_pt)), [7.0, 8.0])
        sim = ns.Simulator(diagram, ctx)
        sim.AdvanceTo(0.05)
        assert pt.get_output_port().Eval(sub(pt)) == "hello", ns.name
        assert zoh.period() == 0.1 and zoh.offset() == 0.0


def test_vector_hold_state_setters(both):
    for ns in both:
        zoh = ns.ZeroOrderHold(0.5, 2)
        ctx = zoh.CreateDefaultContext()
        zoh.SetVectorState(ctx, np.array([1.0, -1.0]))
        np.testing.assert_array_equal(zoh.get_output_port().Eval(ctx), [1.0, -1.0])
        integ = ns.Integrator(2)
        ictx = integ.CreateDefaultContext()
        integ.set_integral_value(ictx, np.array([3.0, 4.0]))
        np.testing.assert_array_equal(integ.get_output_port().Eval(ictx), [3.0, 4.0])
        lp = ns.FirstOrderLowPassFilter(0.3, 2)
        lctx = lp.CreateDefaultContext()
        lp.set_initial_output_value(lctx, np.array([0.5, 0.25]))
        np.testing.assert_array_equal(lp.get_output_port().Eval(lctx), [0.5, 0.25])
        assert lp.get_time_constant() == 0.3


def test_default_port_names_match_pydrake(both):
    def names(ns):
        systems = [ns.Adder(2, 1), ns.Gain(2.0, 1), ns.MatrixGain(np.eye(2)), ns.Integrator(1),
                   ns.Saturation(np.array([0.0]), np.array([1.0])), ns.FirstOrderLowPassFilter(1.0),
                   ns.WrapToSystem(1), ns.ZeroOrderHold(0.1, 1), ns.PassThrough(1), ns.Multiplexer(2),
                   ns.Demultiplexer(2), ns.ConstantVectorSource(np.zeros(1)), ns.Sine(1.0, 1.0, 0.0, 1),
                   ns.DiscreteDerivative(1, 0.1), ns.RandomSource(ns.RandomDistribution.kUniform, 1, 0.1),
                   ns.VectorLogSink(1), ns.StateInterpolatorWithDiscreteDerivative(1, 0.1),
                   ns.LinearSystem(np.eye(1), np.eye(1), np.eye(1), np.eye(1)),
                   ns.TrajectorySource(ns.PiecewisePolynomial(np.zeros((2, 1))))]
        return [([s.get_input_port(i).get_name() for i in range(s.num_input_ports())],
                 [s.get_output_port(i).get_name() for i in range(s.num_output_ports())]) for s in systems]
    assert names(both[0]) == names(both[1])


def test_feedthrough_matches_pydrake(both):
    def ft(ns):
        systems = [ns.Adder(2, 1), ns.Integrator(1), ns.FirstOrderLowPassFilter(1.0), ns.ZeroOrderHold(0.1, 1),
                   ns.PassThrough(1), ns.DiscreteDerivative(1, 0.1),
                   ns.LinearSystem(np.eye(1), np.eye(1), np.eye(1), np.zeros((1, 1))),
                   ns.LinearSystem(np.eye(1), np.eye(1), np.eye(1), np.eye(1)), ns.Saturation([0.0], [1.0])]
        return [s.HasDirectFeedthrough(0, 0) for s in systems]
    assert ft(both[0]) == ft(both[1])


def test_log_copy_rules_match_pydrake(both):
    """Clone copies the log, SetDefaultContext keeps it, a new context starts empty (pydrake's rules)."""
    counts = []
    for ns in both:
        b = ns.DiagramBuilder()
        src = b.AddSystem(ns.ConstantVectorSource(np.array([1.0])))
        integ = b.AddSystem(ns.Integrator(1))
        b.Connect(src.get_output_port(), integ.get_input_port())
        sink = ns.LogVectorOutput(integ.get_output_port(), b)
        d = b.Build()
        sim = ns.Simulator(d)
        ns.ResetIntegratorFromFlags(sim, "runge_kutta2", 0.125)
        sim.AdvanceTo(0.5)
        clone = sim.get_context().Clone()
        n_clone = sink.FindLog(clone).num_samples()
        d.SetDefaultContext(sim.get_mutable_context())
        n_reset = sink.FindLog(sim.get_context()).num_samples()
        sim2 = ns.Simulator(d, clone)
        ns.ResetIntegratorFromFlags(sim2, "runge_kutta2", 0.125)
        sim2.AdvanceTo(1.0)
        counts.append((n_clone, n_reset, sink.FindLog(clone).num_samples(),
                       sink.FindLog(d.CreateDefaultContext()).num_samples()))
    assert counts[0] == counts[1]


def test_log_survives_pickling(mallard_ns):
    import pickle
    ns = mallard_ns
    b = ns.DiagramBuilder()
    src = b.AddSystem(ns.ConstantVectorSource(np.array([1.0, 2.0])))
    sink = ns.LogVectorOutput(src.get_output_port(), b, 0.25)
    d = b.Build()
    sim = ns.Simulator(d)
    sim.AdvanceTo(1.0)
    restored = pickle.loads(pickle.dumps(sim.get_context()))
    np.testing.assert_array_equal(sink.FindLog(restored).data(), sink.FindLog(sim.get_context()).data())
    np.testing.assert_array_equal(sink.FindLog(restored).sample_times(), [0.0, 0.25, 0.5, 0.75, 1.0])


def test_initial_history_setters_and_input_driven_sine_match_pydrake(both):
    """StateInterpolator.set_initial_position and a Sine driven by an input instead of time, in both engines."""
    results = []
    for ns in both:
        b = ns.DiagramBuilder()
        ramp = b.AddSystem(ns.Integrator(np.array([0.2, -0.1])))
        one = b.AddSystem(ns.ConstantVectorSource(np.array([1.0, 2.0])))
        b.Connect(one.get_output_port(), ramp.get_input_port())
        sine = b.AddSystem(ns.Sine(np.array([1.0, 2.0]), np.array([1.0, 0.5]), np.array([0.0, 0.3]), False))
        interp = b.AddSystem(ns.StateInterpolatorWithDiscreteDerivative(2, 0.125))
        interp2 = b.AddSystem(ns.StateInterpolatorWithDiscreteDerivative(2, 0.125, False))
        dd = b.AddSystem(ns.DiscreteDerivative(2, 0.25))
        b.Connect(ramp.get_output_port(), sine.get_input_port())
        for s in (interp, interp2, dd):
            b.Connect(sine.get_output_port(0), s.get_input_port())
        logs = [ns.LogVectorOutput(port, b) for port in
                (sine.get_output_port(0), sine.get_output_port(1), interp.get_output_port(), interp2.get_output_port(),
                 dd.get_output_port())]
        d = b.Build()
        ctx = d.CreateDefaultContext()
        interp.set_initial_position(interp.GetMyContextFromRoot(ctx), np.array([0.5, 0.5]))
        interp2.set_initial_position(interp2.GetMyContextFromRoot(ctx), np.array([0.1, 0.2]))
        sim = ns.Simulator(d, ctx)
        ns.ResetIntegratorFromFlags(sim, "runge_kutta2", 0.0625)
        sim.AdvanceTo(1.0)
        results.append([(np.array(L.FindLog(ctx).sample_times()), np.array(L.FindLog(ctx).data())) for L in logs])
    for (tm, dm), (td, dd_) in zip(*results):
        np.testing.assert_array_equal(tm, td)
        np.testing.assert_allclose(dm, dd_, rtol=0, atol=1e-12)


def test_discrete_taylor_approximation_matches_pydrake(both):
    approximations = []
    for ns in both:
        b = ns.DiagramBuilder()
        gain = b.AddSystem(ns.MatrixGain(np.array([[0.5, 0.1], [0.0, 0.9]])))
        dsys = b.AddSystem(ns.AffineSystem(np.array([[0.8, 0.1], [0.0, 0.5]]), np.eye(2), np.array([0.1, 0.2]),
                                           np.array([[1.0, 2.0]]), np.array([[0.0, 0.3]]), np.array([0.4]), 0.1))
        b.Connect(gain.get_output_port(), dsys.get_input_port())
        b.ExportInput(gain.get_input_port(), "u")
        b.ExportOutput(dsys.get_output_port(), "y")
        d = b.Build()
        ctx = d.CreateDefaultContext()
        d.get_input_port(0).FixValue(ctx, np.array([0.3, -0.7]))
        ctx.SetDiscreteState(np.array([1.0, 2.0]))
        approximations.append(ns.FirstOrderTaylorApproximation(d, ctx))
    mine, theirs = approximations
    assert mine.time_period() == theirs.time_period()
    for name in ("A", "B", "f0", "C", "D", "y0"):
        np.testing.assert_allclose(getattr(mine, name)(), getattr(theirs, name)(), rtol=0, atol=1e-9, err_msg=name)


def test_history_setters_without_pydrake_binding(mallard_ns):
    """DiscreteDerivative.set_input_history and StateInterpolator.set_initial_state (C++-only in Drake)."""
    ns = mallard_ns
    dd = ns.DiscreteDerivative(2, 0.5)
    ctx = dd.CreateDefaultContext()
    np.testing.assert_array_equal(dd.get_output_port().Eval(ctx), [0.0, 0.0])  # suppressed transient
    dd.set_input_history(ctx, np.array([1.0, 1.0]), np.array([0.0, 2.0]))
    np.testing.assert_allclose(dd.get_output_port().Eval(ctx), [2.0, -2.0])
    interp = ns.StateInterpolatorWithDiscreteDerivative(2, 0.1)
    ictx = interp.CreateDefaultContext()
    interp.get_input_port().FixValue(ictx, np.array([0.5, 0.5]))
    interp.set_initial_state(ictx, np.array([0.5, 0.5]), np.array([1.0, -1.0]))
    np.testing.assert_allclose(interp.get_output_port().Eval(ictx), [0.5, 0.5, 1.0, -1.0])


def test_sparse_matrix_gain_output_matches_pydrake(both):
    """SparseMatrixGain's y = D u is a flat vector of D's row count on both sides (Drake's primitives_test compares
    it with `D.todense() @ u`, an np.matrix of shape (1, n), and fails on pydrake itself), and D() round-trips."""
    import scipy.sparse
    D = scipy.sparse.csc_matrix((np.array([2, 1.0, 3]), np.array([0, 1, 0]), np.array([0, 2, 2, 3])), shape=(2, 3))
    outputs = []
    for ns in both:
        dut = ns.SparseMatrixGain(D=D)
        ctx = dut.CreateDefaultContext()
        dut.get_input_port().FixValue(ctx, np.array([1, 2, 3]))
        outputs.append(np.asarray(dut.get_output_port().Eval(ctx)))
        np.testing.assert_array_equal(dut.D().toarray(), D.toarray())
    mine, theirs = outputs
    assert mine.shape == theirs.shape == (2,)
    np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(mine, [11.0, 1.0])
