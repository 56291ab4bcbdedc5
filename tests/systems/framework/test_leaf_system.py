"""LeafSystem declarations, ports (copy/view rules), parameters, cache entries and bad-input errors."""
import numpy as np
import pytest

from mallard.systems.framework import (AbstractValue, BasicVector, DiagramBuilder, DiscreteStateIndex, LeafSystem,
                                       Value, ValueProducer)


class Gainer(LeafSystem):
    """y = k u with k a numeric parameter; also counts its calc calls."""

    def __init__(self, n=2):
        super().__init__()
        self.calls = 0
        self.u = self.DeclareVectorInputPort("u", n)
        self.k = self.DeclareNumericParameter(BasicVector([2.0]))
        self.DeclareVectorOutputPort("y", n, self.calc)

    def calc(self, context, output):
        self.calls += 1
        k = context.get_numeric_parameter(self.k).GetAtIndex(0)
        output.SetFromVector(k * self.u.Eval(context))


def test_eval_returns_fresh_copies_and_caches():
    s = Gainer()
    ctx = s.CreateDefaultContext()
    s.get_input_port(0).FixValue(ctx, [1.0, 2.0])
    y = s.get_output_port(0).Eval(ctx)
    np.testing.assert_array_equal(y, [2.0, 4.0])
    y[0] = 99.0  # mutating the copy does not touch the cache
    np.testing.assert_array_equal(s.get_output_port(0).Eval(ctx), [2.0, 4.0])
    assert s.calls == 1  # second Eval was served from the cache
    u = s.get_input_port(0).Eval(ctx)
    u[0] = 5.0
    np.testing.assert_array_equal(s.get_input_port(0).Eval(ctx), [1.0, 2.0])


def test_cache_invalidation_on_parameter_and_input_change():
    s = Gainer()
    ctx = s.CreateDefaultContext()
    s.get_input_port(0).FixValue(ctx, [1.0, 2.0])
    s.get_output_port(0).Eval(ctx)
    ctx.get_mutable_numeric_parameter(0).SetAtIndex(0, 3.0)
    np.testing.assert_array_equal(s.get_output_port(0).Eval(ctx), [3.0, 6.0])
    s.get_input_port(0).FixValue(ctx, [1.0, 1.0])
    np.testing.assert_array_equal(s.get_output_port(0).Eval(ctx), [3.0, 3.0])
    assert s.calls == 3


def test_basic_vector_views():
    v = BasicVector([1.0, 2.0])
    ro = v.get_value()
    with pytest.raises(ValueError):
        ro[0] = 3.0
    v.get_mutable_value()[0] = 3.0
    assert v.GetAtIndex(0) == 3.0
    c = v.CopyToVector()
    c[1] = 7.0
    assert v.GetAtIndex(1) == 2.0


def test_state_views_and_setters():
    class S(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareContinuousState(2, 1, 1)  # q = 2 entries? no: nq=2, nv=1, nz=1
            self.DeclareDiscreteState([1.0, 2.0])
            self.DeclareDiscreteState(3)
            self.DeclareAbstractState(AbstractValue.Make("hello"))

    s = S()
    ctx = s.CreateDefaultContext()
    assert ctx.num_continuous_states() == 4 and ctx.num_discrete_state_groups() == 2
    cs = ctx.get_continuous_state()
    assert (cs.num_q(), cs.num_v(), cs.num_z()) == (2, 1, 1)
    ctx.SetContinuousState([1, 2, 3, 4])
    np.testing.assert_array_equal(cs.get_generalized_velocity().CopyToVector(), [3])
    np.testing.assert_array_equal(ctx.get_discrete_state(0).CopyToVector(), [1.0, 2.0])
    ctx.SetDiscreteState(1, [4, 5, 6])
    np.testing.assert_array_equal(ctx.get_discrete_state(1).CopyToVector(), [4, 5, 6])
    with pytest.raises(RuntimeError, match="groups"):
        ctx.get_discrete_state_vector()
    assert ctx.get_abstract_state(0).get_value() == "hello"
    ctx.SetAbstractState(0, "bye")
    assert ctx.get_abstract_state(0).get_value() == "bye"
    with pytest.raises(ValueError, match="size 4"):
        ctx.SetContinuousState([1, 2])


def test_state_output_ports_are_not_feedthrough():
    class S(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareVectorInputPort("u", 1)
            index = self.DeclareDiscreteState(1)
            self.DeclareStateOutputPort("x", index)
            self.DeclareVectorOutputPort("y", 1, lambda c, o: o.SetFromVector(self.get_input_port().Eval(c)))
            self.DeclareVectorOutputPort("z", 1, lambda c, o: None, prerequisites_of_calc={self.time_ticket()})

    s = S()
    assert not s.HasDirectFeedthrough(0, 0)
    assert s.HasDirectFeedthrough(0, 1)
    assert not s.HasDirectFeedthrough(0, 2)
    assert isinstance(DiscreteStateIndex(0), int)


def test_cache_entry_and_prerequisites():
    class S(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareContinuousState(1)
            self.n = 0
            self.entry = self.DeclareCacheEntry(
                "square", ValueProducer(allocate=lambda: AbstractValue.Make(0.0), calc=self.calc),
                {self.xc_ticket()})

        def calc(self, context, value):
            self.n += 1
            x = context.get_continuous_state_vector().GetAtIndex(0)
            value.set_value(x * x)

    s = S()
    ctx = s.CreateDefaultContext()
    ctx.SetContinuousState([3.0])
    assert s.entry.Eval(ctx) == 9.0
    ctx.SetTime(1.0)  # time is not a prerequisite
    assert s.entry.Eval(ctx) == 9.0 and s.n == 1
    ctx.get_mutable_continuous_state_vector().SetAtIndex(0, 2.0)
    assert s.entry.Eval(ctx) == 4.0 and s.n == 2


def test_abstract_ports():
    class Src(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareAbstractOutputPort("s", lambda: AbstractValue.Make(""), self.calc,
                                           prerequisites_of_calc={self.time_ticket()})

        def calc(self, context, value):
            value.set_value(f"t={context.get_time():.1f}")

    class Sink(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareAbstractInputPort("s", Value(""))

    b = DiagramBuilder()
    src, sink = b.AddSystem(Src()), b.AddSystem(Sink())
    b.Connect(src.get_output_port(), sink.get_input_port())
    d = b.Build()
    ctx = d.CreateDefaultContext()
    ctx.SetTime(2.0)
    assert sink.get_input_port().Eval(sink.GetMyContextFromRoot(ctx)) == "t=2.0"
    with pytest.raises(TypeError, match="expected a str"):  # pydrake: TypeError from Value[str].set_value
        sink.get_input_port().FixValue(sink.GetMyContextFromRoot(ctx), 3)


def test_bad_input_errors_name_system_and_port():
    s = Gainer()
    s.set_name("gain")
    ctx = s.CreateDefaultContext()
    with pytest.raises(RuntimeError, match=r"InputPort\[0\] \(u\) of System ::gain .*size 2, got size 3"):
        s.get_input_port(0).FixValue(ctx, [1, 2, 3])
    with pytest.raises(RuntimeError, match="u.*::gain.*not connected"):
        s.get_output_port(0).Eval(ctx)
    with pytest.raises(KeyError, match=r"no input port named 'v'.*\['u'\]"):
        s.GetInputPort("v")
    with pytest.raises(ValueError, match="period_sec must be positive"):
        s.DeclarePeriodicPublishEvent(-0.1, 0.0, lambda c: None)
    with pytest.raises(ValueError, match="offset_sec"):
        s.DeclarePeriodicPublishEvent(0.1, -1.0, lambda c: None)
    with pytest.raises(ValueError, match="already has an input port named 'u'"):
        s.DeclareVectorInputPort("u", 1)
    other = Gainer().CreateDefaultContext()
    with pytest.raises(RuntimeError, match="belongs to"):
        s.get_output_port(0).Eval(other)


def test_missing_derivatives_override_is_reported():
    class S(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareContinuousState(1)

    s = S()
    with pytest.raises(RuntimeError, match="does not override DoCalcTimeDerivatives"):
        s.EvalTimeDerivatives(s.CreateDefaultContext())
