"""Block-diagram drawing (networkx fallback or graphviz) and VectorLog plotting."""
from __future__ import annotations

import shutil

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mallard.systems.analysis import Simulator  # noqa: E402
from mallard.systems.drawing import diagram_graph, plot_graphviz, plot_system_graphviz, plot_vector_log  # noqa: E402
from mallard.systems.framework import DiagramBuilder  # noqa: E402
from mallard.systems.primitives import (FirstOrderLowPassFilter, Integrator, LogVectorOutput, Sine,  # noqa: E402
                                        StateInterpolatorWithDiscreteDerivative, VectorLog)


def _diagram():
    b = DiagramBuilder()
    sine = b.AddNamedSystem("sine", Sine(1.0, 2.0, 0.0, 2))
    lp = b.AddNamedSystem("filter", FirstOrderLowPassFilter(0.1, 2))
    interp = b.AddNamedSystem("interp", StateInterpolatorWithDiscreteDerivative(2, 0.05))
    integ = b.AddSystem(Integrator(2))
    b.Connect(sine.get_output_port(0), lp.get_input_port())
    b.Connect(lp.get_output_port(), interp.get_input_port())
    b.ExportInput(integ.get_input_port(), "u")
    b.ExportOutput(interp.get_output_port(), "state")
    sink = LogVectorOutput(lp.get_output_port(), b)
    d = b.Build()
    d.set_name("demo")
    return d, sink


def test_diagram_graph_structure():
    d, _ = _diagram()
    g = diagram_graph(d)
    labels = {data["label"] for _, data in g.nodes(data=True)}
    assert {"sine\n(Sine)", "filter\n(FirstOrderLow\nPassFilter)", "u", "state"} <= labels
    edge_labels = sorted(data["label"] for _, _, data in g.edges(data=True))
    assert "y0 -> u0" in edge_labels and "y0 -> position" in edge_labels and "y0 -> data" in edge_labels
    assert g.number_of_edges() == 5  # three connections, one exported input, one exported output


def test_plot_system_graphviz_draws():
    d, _ = _diagram()
    fig, ax = plt.subplots()
    result = plot_system_graphviz(d, ax=ax)
    if shutil.which("dot") is None:
        assert result is ax
        texts = [t.get_text() for t in ax.texts]
        assert any("filter" in t for t in texts) and any("y0 -> u0" == t for t in texts)
    else:
        assert result.get_array().ndim == 3
    plt.close(fig)
    if shutil.which("dot") is None:
        with pytest.raises(RuntimeError, match="dot"):
            plot_graphviz(d.GetGraphvizString())


def test_plot_vector_log_labels_and_data():
    d, sink = _diagram()
    sim = Simulator(d)
    d.get_input_port(0).FixValue(sim.get_mutable_context(), [0.0, 0.0])
    sim.AdvanceTo(0.5)
    log = sink.FindLog(sim.get_context())
    fig, ax = plt.subplots()
    out = plot_vector_log(log, names=["a", "b"], ax=ax)
    assert out is ax
    assert [line.get_label() for line in ax.get_lines()] == ["a", "b"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), log.data()[1])
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), log.sample_times())
    assert ax.get_xlabel() == "time (s)"
    plt.close(fig)
    ax2 = plot_vector_log(log, indices=[1])
    assert [line.get_label() for line in ax2.get_lines()] == ["x[1]"]
    plt.close("all")
    with pytest.raises(ValueError, match="one name per row"):
        plot_vector_log(VectorLog(3), names=["a"])
