"""Context: flat storage, Clone and pickle (identical simulation), and diagrams that are garbage-collected."""
import gc
import pickle
import weakref

import numpy as np

from mallard.systems.analysis import Simulator
from mallard.systems.framework import AbstractValue, BasicVector, DiagramBuilder, LeafSystem


class Pendulum(LeafSystem):
    def __init__(self):
        super().__init__()
        self.DeclareContinuousState(1, 1, 0)
        self.DeclareNumericParameter(BasicVector([9.81]))
        self.DeclareAbstractState(AbstractValue.Make({"kicks": 0}))
        self.DeclarePeriodicUnrestrictedUpdateEvent(0.25, 0.0, self.kick)
        self.DeclareStateOutputPort("x", self.DeclareContinuousState(1, 1, 0))

    def kick(self, context, state):
        kicks = context.get_abstract_state(0).get_value()["kicks"]
        state.get_mutable_abstract_state(0).set_value({"kicks": kicks + 1})
        v = state.get_mutable_continuous_state().get_mutable_vector()
        v.SetAtIndex(1, v.GetAtIndex(1) + 0.01)

    def DoCalcTimeDerivatives(self, context, derivatives):
        q, v = context.get_continuous_state_vector().CopyToVector()
        g = context.get_numeric_parameter(0).GetAtIndex(0)
        derivatives.get_mutable_vector().SetFromVector([v, -g * np.sin(q)])


def _diagram():
    b = DiagramBuilder()
    p = b.AddNamedSystem("pendulum", Pendulum())
    b.ExportOutput(p.get_output_port(), "x")
    return b.Build(), p


def test_leaf_contexts_view_the_root_arrays():
    d, p = _diagram()
    root = d.CreateDefaultContext()
    leaf = p.GetMyContextFromRoot(root)
    root.SetContinuousState([0.5, -0.25])
    np.testing.assert_array_equal(leaf.get_continuous_state_vector().CopyToVector(), [0.5, -0.25])
    leaf.get_mutable_continuous_state_vector().SetAtIndex(0, 0.75)
    np.testing.assert_array_equal(root.get_continuous_state_vector().CopyToVector(), [0.75, -0.25])


def test_cloned_and_pickled_contexts_simulate_identically():
    from mallard.systems.analysis import ResetIntegratorFromFlags
    d, p = _diagram()
    sim = Simulator(d)
    ResetIntegratorFromFlags(sim, "runge_kutta4", 1e-3)
    ctx = sim.get_mutable_context()
    ctx.SetContinuousState([1.0, 0.0])
    ctx.get_mutable_numeric_parameter(0).SetAtIndex(0, 3.0)
    sim.AdvanceTo(0.6)
    clone = ctx.Clone()
    pickled = pickle.loads(pickle.dumps(ctx))
    finals = []
    for c in (ctx, clone, pickled):
        s = sim
        if c is not ctx:
            s = Simulator(d, c)
            ResetIntegratorFromFlags(s, "runge_kutta4", 1e-3)
        s.AdvanceTo(2.0)
        finals.append((c.get_continuous_state_vector().CopyToVector(),
                       p.GetMyContextFromRoot(c).get_abstract_state(0).get_value()["kicks"],
                       c.get_numeric_parameter(0).GetAtIndex(0)))
    for x, kicks, g in finals[1:]:
        np.testing.assert_allclose(x, finals[0][0], rtol=1e-13, atol=1e-15)
        assert kicks == finals[0][1] and g == 3.0
    # the clone is independent of the original
    clone.SetContinuousState([0.0, 0.0])
    assert ctx.get_continuous_state_vector().GetAtIndex(0) != 0.0


def test_discarded_diagrams_are_freed():
    refs = []
    for _ in range(1000):
        d, p = _diagram()
        sim = Simulator(d)
        sim.AdvanceTo(0.01)
        refs.append(weakref.ref(p))
        del d, p, sim
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive == 0, f"{alive} of 1000 Python LeafSystems are still alive after their diagrams were dropped"


def test_memory_stays_flat_when_rebuilding_diagrams():
    import resource

    class Big(LeafSystem):
        def __init__(self):
            super().__init__()
            self.payload = np.ones(125_000)  # 1 MB per system
            self.DeclareVectorOutputPort("y", 1, self.calc)

        def calc(self, context, out):
            out.SetAtIndex(0, self.payload[0])

    def rss_mb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20

    for _ in range(20):
        b = DiagramBuilder()
        b.AddSystem(Big())
        b.Build().CreateDefaultContext()
    gc.collect()
    before = rss_mb()
    for _ in range(200):
        b = DiagramBuilder()
        s = b.AddSystem(Big())
        d = b.Build()
        ctx = d.CreateDefaultContext()
        s.get_output_port().Eval(s.GetMyContextFromRoot(ctx))
    gc.collect()
    assert rss_mb() - before < 40, "200 diagrams holding 1 MB each must not accumulate"


def test_diagrams_pickle_with_their_contexts():
    from mallard.systems.analysis import ResetIntegratorFromFlags
    d, p = _diagram()
    sim = Simulator(d)
    ResetIntegratorFromFlags(sim, "runge_kutta4", 1e-3)
    sim.get_mutable_context().SetContinuousState([0.3, 0.0])
    sim.AdvanceTo(0.5)
    d2, ctx2 = pickle.loads(pickle.dumps((d, sim.get_context())))
    sim2 = Simulator(d2, ctx2)
    ResetIntegratorFromFlags(sim2, "runge_kutta4", 1e-3)
    sim.AdvanceTo(1.0)
    sim2.AdvanceTo(1.0)
    np.testing.assert_allclose(ctx2.get_continuous_state_vector().CopyToVector(),
                               sim.get_context().get_continuous_state_vector().CopyToVector(), rtol=1e-12)
    assert d2.GetSubsystemByName("pendulum").GetMyContextFromRoot(ctx2).get_abstract_state(0).get_value()["kicks"] == 4
