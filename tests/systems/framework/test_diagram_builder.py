"""DiagramBuilder / Diagram: wiring, exports, lookups, algebraic loops, graphviz, context navigation."""
import numpy as np
import pytest

from mallard.systems.framework import Diagram, DiagramBuilder, LeafSystem


class Scale(LeafSystem):
    def __init__(self, k=2.0, n=1, feedthrough=True):
        super().__init__()
        self.k = k
        self.DeclareVectorInputPort("u", n)
        prereq = None if feedthrough else {self.nothing_ticket()}
        self.DeclareVectorOutputPort("y", n, self.calc, prerequisites_of_calc=prereq)

    def calc(self, context, out):
        out.SetFromVector(self.k * self.get_input_port().Eval(context))


class Plant(LeafSystem):
    """xdot = u, y = x (state output: not feedthrough)."""

    def __init__(self):
        super().__init__()
        self.DeclareVectorInputPort("u", 1)
        self.DeclareContinuousState(1)
        self.DeclareVectorOutputPort("y", 1, lambda c, o: o.SetFromVector(c.get_continuous_state_vector().get_value()),
                                     prerequisites_of_calc={self.xc_ticket()})

    def DoCalcTimeDerivatives(self, context, d):
        d.get_mutable_vector().SetFromVector(self.get_input_port().Eval(context))


def test_export_connect_and_nested_diagrams():
    b = DiagramBuilder()
    a = b.AddNamedSystem("a", Scale(2.0))
    c = b.AddNamedSystem("c", Scale(3.0))
    b.Connect(a.get_output_port(), c.get_input_port())
    b.ExportInput(a.get_input_port(), "in")
    b.ExportOutput(c.get_output_port(), "out")
    inner = b.Build()
    inner.set_name("inner")
    b2 = DiagramBuilder()
    d_inner = b2.AddSystem(inner)
    e = b2.AddNamedSystem("e", Scale(0.5))
    b2.Connect(d_inner.GetOutputPort("out"), e.get_input_port())
    b2.ExportInput(d_inner.GetInputPort("in"))
    b2.ExportOutput(e.get_output_port())
    outer = b2.Build()
    ctx = outer.CreateDefaultContext()
    outer.get_input_port(0).FixValue(ctx, [1.0])
    assert outer.get_input_port(0).get_name() == "inner_in"
    np.testing.assert_allclose(outer.get_output_port(0).Eval(ctx), [3.0])
    np.testing.assert_allclose(c.get_output_port().Eval(c.GetMyContextFromRoot(ctx)), [6.0])
    assert c.GetSystemPathname() == "::_::inner::c"
    assert outer.GetSubsystemByName("inner") is inner
    assert inner.connection_map() == {(c, 0): (a, 0)}
    assert inner.HasDirectFeedthrough(0, 0)
    dot = outer.GetGraphvizString()
    assert dot.startswith("digraph") and "inner" in dot and "->" in dot


def test_algebraic_loop_error_lists_the_chain_and_remedy():
    b = DiagramBuilder()
    a = b.AddNamedSystem("ctrl", Scale())
    c = b.AddNamedSystem("amp", Scale())
    b.Connect(a.get_output_port(), c.get_input_port())
    b.Connect(c.get_output_port(), a.get_input_port())
    with pytest.raises(RuntimeError) as info:
        b.Build()
    text = str(info.value)
    assert text.startswith("Reported algebraic loop detected in DiagramBuilder:")
    assert "::ctrl/u (InputPort[0]) is direct-feedthrough to ::ctrl/y (OutputPort[0])" in text
    assert "::amp/y (OutputPort[0]) is connected to ::ctrl/u (InputPort[0])" in text
    assert "prerequisites_of_calc" in text


def test_loop_through_state_builds_and_simulates():
    from mallard.systems.analysis import Simulator
    b = DiagramBuilder()
    plant = b.AddSystem(Plant())
    gain = b.AddSystem(Scale(-1.0))
    b.Connect(plant.get_output_port(), gain.get_input_port())
    b.Connect(gain.get_output_port(), plant.get_input_port())
    d = b.Build()
    sim = Simulator(d)
    sim.get_mutable_context().SetContinuousState([1.0])
    sim.get_mutable_integrator().set_target_accuracy(1e-9)
    sim.AdvanceTo(1.0)
    np.testing.assert_allclose(sim.get_context().get_continuous_state_vector().CopyToVector(), [np.exp(-1.0)],
                               rtol=1e-7)


def test_builder_errors():
    b = DiagramBuilder()
    a = b.AddNamedSystem("a", Scale(n=2))
    c = b.AddNamedSystem("c", Scale(n=3))
    with pytest.raises(ValueError, match=r"size mismatch: ::a/y \(OutputPort\[0\]\) has size 2 but ::c/u"):
        b.Connect(a.get_output_port(), c.get_input_port())
    e = b.AddNamedSystem("e", Scale(n=2))
    b.Connect(a.get_output_port(), e.get_input_port())
    with pytest.raises(RuntimeError, match="already connected"):
        b.Connect(a.get_output_port(), e.get_input_port())
    with pytest.raises(RuntimeError, match="already added"):
        b.AddSystem(a)
    stranger = Scale()
    with pytest.raises(RuntimeError, match="has not been added"):
        b.Connect(stranger.get_output_port(), c.get_input_port())
    with pytest.raises(KeyError, match=r"this DiagramBuilder has no subsystem named 'zz'.*\['a', 'c', 'e'\]"):
        b.GetSubsystemByName("zz")
    b.AddNamedSystem("a", Scale())
    with pytest.raises(RuntimeError, match="two subsystems are named 'a'"):
        b.Build()


def test_unnamed_systems_get_unique_names_and_diagram_subclass():
    class Twice(Diagram):
        def __init__(self):
            super().__init__()
            b = DiagramBuilder()
            s = b.AddSystem(Scale(2.0))
            b.ExportInput(s.get_input_port(), "u")
            b.ExportOutput(s.get_output_port(), "y")
            b.BuildInto(self)

    d = Twice()
    assert d.get_name() == "" and d.GetSystemPathname() == "::_"
    sub = d.GetSystems()[0]
    assert "Scale@" in sub.get_name()
    ctx = d.CreateDefaultContext()
    d.GetInputPort("u").FixValue(ctx, [4.0])
    np.testing.assert_allclose(d.GetOutputPort("y").Eval(ctx), [8.0])


def test_find_cycle_agrees_with_networkx_on_random_graphs():
    """Build's loop check (find_cycle over port_edges' adjacency lists) finds a cycle exactly when networkx does,
    and what it returns is a closed chain of the graph's edges."""
    import networkx as nx
    from mallard.systems.framework.diagram_builder import find_cycle
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(300):
        n = int(rng.integers(1, 9))
        edges: dict = {}
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        for _ in range(int(rng.integers(0, 2 * n))):
            a, b = (int(x) for x in rng.integers(0, n, 2))
            if a != b and not graph.has_edge(a, b):
                graph.add_edge(a, b)
                edges.setdefault(a, []).append((b, (a, b)))
        cycle = find_cycle(edges)
        assert bool(cycle) == (not nx.is_directed_acyclic_graph(graph))
        if cycle:
            found += 1
            assert all(graph.has_edge(a, b) and ports == (a, b) for a, b, ports in cycle)
            assert all(cycle[k][1] == cycle[(k + 1) % len(cycle)][0] for k in range(len(cycle)))
    assert found > 50
