"""Draw a system's block diagram with matplotlib (pydrake.systems.drawing.plot_system_graphviz).

With the graphviz `dot` program installed, the system's `GetGraphvizString()` is rendered to PNG and shown
with `imshow` (as pydrake does). Without it, a Diagram is laid out with networkx: one box per subsystem,
one arrow per connection labelled `output -> input`, exported ports as small ellipse nodes.
"""
from __future__ import annotations

import shutil
import subprocess
from io import BytesIO


def plot_graphviz(dot_text: str, ax=None):
    """Render DOT text with the `dot` program and show it on `ax` (or the current axes); returns the AxesImage."""
    import matplotlib.pyplot as plt

    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("plot_graphviz: the graphviz 'dot' program is not installed (apt-get install graphviz); "
                           "plot_system_graphviz(system) falls back to a networkx layout without it")
    result = subprocess.run([exe, "-Tpng"], input=dot_text.encode(), capture_output=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"plot_graphviz: dot failed: {result.stderr.decode(errors='replace').strip()}")
    ax = ax if ax is not None else plt.gca()
    ax.axis("off")
    return ax.imshow(plt.imread(BytesIO(result.stdout), format="png"), aspect="equal")


def _wrap_camel(text: str, width: int = 16) -> str:
    """Break a long CamelCase name into lines of about `width` characters at word starts."""
    import re
    lines, line = [], ""
    for word in re.findall(r"[A-Z]+[a-z0-9]*|[^A-Z]+", text):
        if line and len(line) + len(word) > width:
            lines.append(line)
            line = ""
        line += word
    return "\n".join(lines + [line])


def _system_label(system) -> str:
    name = system.get_name()
    kind = _wrap_camel(type(system).__name__)
    if not name or name == kind or ("@" in name and "/" in name):  # unnamed: the builder's memory-object name
        return kind
    return f"{name}\n({kind})"


def diagram_graph(system):
    """A networkx MultiDiGraph of a diagram's subsystems (nodes) and connections (edges, port names as labels)."""
    import networkx as nx

    graph = nx.MultiDiGraph()
    subsystems = system.GetSystems() if hasattr(system, "GetSystems") else []
    if not subsystems:
        graph.add_node(id(system), label=_system_label(system), kind="system")
        return graph
    for sub in subsystems:
        graph.add_node(id(sub), label=_system_label(sub), kind="system")
    for (dest, in_index), (src, out_index) in system.connection_map().items():
        graph.add_edge(id(src), id(dest), label=f"{src.get_output_port(out_index).get_name()} -> "
                                              f"{dest.get_input_port(in_index).get_name()}")
    for k in range(system.num_input_ports()):
        node = ("in", k)
        graph.add_node(node, label=system.get_input_port(k).get_name(), kind="port")
        for dest, in_index in system.GetInputPortLocators(k):
            graph.add_edge(node, id(dest), label=dest.get_input_port(in_index).get_name())
    for k in range(system.num_output_ports()):
        node = ("out", k)
        graph.add_node(node, label=system.get_output_port(k).get_name(), kind="port")
        src, out_index = system.get_output_port_locator(k)
        graph.add_edge(id(src), node, label=src.get_output_port(out_index).get_name())
    return graph


def _layout(graph) -> dict:
    """Layered left-to-right layout: layer = longest path from a source (cycles collapsed), rows in order."""
    import networkx as nx
    import numpy as np

    condensed = nx.condensation(nx.DiGraph(graph))
    layer_of = {}
    for comp in nx.topological_sort(condensed):
        layer_of[comp] = 1 + max((layer_of[p] for p in condensed.predecessors(comp)), default=-1)
    mapping = condensed.graph["mapping"]
    rows: dict = {}
    pos = {}
    for node in graph.nodes:
        layer = layer_of[mapping[node]]
        row = rows.get(layer, 0)
        rows[layer] = row + 1
        pos[node] = np.array([float(layer), -float(row)])
    return pos


def _draw_networkx(system, ax):
    import matplotlib.pyplot as plt

    graph = diagram_graph(system)
    pos = _layout(graph)
    ax = ax if ax is not None else plt.gca()
    ax.axis("off")
    for u, v, data in graph.edges(data=True):
        ax.annotate("", xy=pos[v], xytext=pos[u],
                    arrowprops=dict(arrowstyle="-|>", color="0.3", shrinkA=25, shrinkB=25,
                                    connectionstyle="arc3,rad=0.08"))
        mid = (pos[u] + pos[v]) / 2.0
        ax.text(mid[0], mid[1], data["label"], fontsize=7, color="0.25", ha="center", va="bottom")
    for node, data in graph.nodes(data=True):
        box = dict(boxstyle="round,pad=0.4", fc="#dde8f5", ec="0.2") if data["kind"] == "system" else \
            dict(boxstyle="ellipse,pad=0.3", fc="#f5efdd", ec="0.4")
        ax.text(pos[node][0], pos[node][1], data["label"], ha="center", va="center", fontsize=8, bbox=box)
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_title(system.get_name() or type(system).__name__)
    return ax


def plot_system_graphviz(system, ax=None, **kwargs):
    """Plot `system`'s block diagram on `ax`; kwargs (max_depth, options) go to GetGraphvizString.

    Returns the AxesImage when rendered by graphviz, else the Axes holding the networkx drawing.
    """
    if shutil.which("dot") is not None:
        return plot_graphviz(system.GetGraphvizString(**kwargs), ax=ax)
    return _draw_networkx(system, ax)
