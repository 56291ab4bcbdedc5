"""Graphviz (DOT) text of a system's block diagram, in Drake's layout (SystemBase / Diagram
GetGraphvizFragment): a leaf is an HTML-table node with its input ports on the left and outputs on the right;
a diagram is a cluster with its exported input / output port nodes, its subsystems and the connections.

Subclasses customize their block by overriding `DoGetGraphvizFragment(params)` (adding `header_lines` or
`options`, then calling the base). Option "split" = "I/O" draws a leaf's inputs and outputs as two nodes.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

from .ports import PortDataType

__all__ = ["GraphvizFragment", "GraphvizFragmentParams", "diagram_fragment", "leaf_fragment", "make_params",
           "port_labels"]


@dataclass
class GraphvizFragmentParams:
    """What a system's DoGetGraphvizFragment gets: its node id, the remaining depth, its options and the lines
    of its header (class name, then name=...)."""

    node_id: str = ""
    max_depth: int = 2 ** 31 - 1
    options: dict = field(default_factory=dict)
    header_lines: list = field(default_factory=list)


@dataclass
class GraphvizFragment:
    """A system's DOT text (`fragments`) and the DOT ids of its input / output ports for edges."""

    input_ports: list = field(default_factory=list)
    output_ports: list = field(default_factory=list)
    fragments: list = field(default_factory=list)


def port_labels(system, inputs: bool) -> list[str]:
    """HTML labels of a system's ports; size-0 vector ports are greyed out."""
    labels = []
    for port in (system._input_ports if inputs else system._output_ports):
        label = html.escape(port.get_name(), quote=False)
        if port.get_data_type() == PortDataType.kVectorValued and port.size() == 0:
            label = f'<FONT COLOR="grey">{label}</FONT>'
        labels.append(label)
    return labels


def make_params(system, max_depth, options) -> GraphvizFragmentParams:
    """The top-level params of `system`: header = class name (and name= when it has one)."""
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"GetGraphvizFragment: max_depth must be >= 0, got {max_depth}")
    header = [f"<B>{html.escape(type(system).__name__, quote=False)}</B>"]
    name = system.get_name()
    if name and name != system.GetMemoryObjectName():
        header.append(f"name={html.escape(name, quote=False)}")
    return GraphvizFragmentParams(node_id=f"s{system._system_id}",
                                  max_depth=2 ** 31 - 1 if max_depth is None else int(max_depth),
                                  options=dict(options or {}), header_lines=header)


def leaf_fragment(system, params: GraphvizFragmentParams) -> GraphvizFragment:
    """A system drawn as one node (or two with options split=I/O)."""
    result = GraphvizFragment()
    split = params.options.get("split") == "I/O"
    node_in = params.node_id + ("in" if split else "")
    node_out = params.node_id + ("out" if split else "")
    n_in, n_out = len(system._input_ports), len(system._output_ports)
    rows = max(n_in, n_out)
    labels = [[None, None] for _ in range(rows)]
    styles = [["", ""] for _ in range(rows)]
    for i, label in enumerate(port_labels(system, True)):
        labels[i][0] = label
        result.input_ports.append(f"{node_in}:u{i}")
    for i, label in enumerate(port_labels(system, False)):
        labels[i][1] = label
        result.output_ports.append(f"{node_out}:y{i}")
    if n_in != n_out:
        shorter = 0 if n_in < n_out else 1
        fewest = min(n_in, n_out)
        if fewest == 1:
            styles[0][shorter] = f'ROWSPAN="{rows}"'
        else:
            labels[fewest][shorter] = ""
            styles[fewest][shorter] = (f'COLOR="grey" ROWSPAN="{rows - fewest}" '
                                       f'SIDES="{"BL" if shorter == 0 else "BR"}"')
    header = "<BR/>\n".join(params.header_lines)
    for node in range(2 if split else 1):
        node_id = node_in if node == 0 else node_out
        node_rows = (n_in if node == 0 else n_out) if split else rows
        result.fragments.append(f'{node_id} [shape=none, border=0, label=<\n<TABLE BORDER="0" CELLSPACING="0">\n'
                                f'<TR><TD BORDER="1" COLSPAN="2">\n{header}\n</TD></TR>\n')
        for i in range(node_rows):
            result.fragments.append("<TR>\n")
            for j in range(2):
                if split and j != node:
                    if i == 0:
                        result.fragments.append(
                            f'<TD BORDER="1" STYLE="dotted" COLOR="cadetblue" ROWSPAN="{n_out if j == 0 else n_in}">'
                            '\n<FONT COLOR="cadetblue">(split)</FONT>\n</TD>\n')
                    continue
                if labels[i][j] is not None:
                    result.fragments.append(f'<TD PORT="{"uy"[j]}{i}" BORDER="1" {styles[i][j]}>{labels[i][j]}</TD>\n')
            result.fragments.append("</TR>\n")
        result.fragments.append("</TABLE>\n>];\n")
    return result


def _sub_options(options: dict, subsystem) -> dict:
    """The options addressed to `subsystem` ("name/key" -> "key")."""
    prefix = subsystem.get_name() + "/"
    return {key[len(prefix):]: value for key, value in options.items() if key.startswith(prefix)}


def _ports_cluster(fragments: list, port_ids: list, kind: str, node_id: str, color: str, labels: list) -> None:
    fragments.append(f'subgraph cluster{node_id} {{\nrank=same\ncolor=lightgrey\nstyle=filled\nlabel="{kind} ports"\n'
                     f'{node_id} [shape=none, label=<\n<TABLE BORDER="0" COLOR="{color}" CELLSPACING="3" '
                     'STYLE="rounded">\n')
    for i, label in enumerate(labels):
        fragments.append(f'<TR><TD BORDER="1" PORT="{i}">{label}</TD></TR>\n')
        port_ids.append(f"{node_id}:{i}")
    fragments.append("</TABLE>\n>];\n}\n")


def diagram_fragment(diagram, params: GraphvizFragmentParams) -> GraphvizFragment:
    """A diagram drawn as a cluster of its subsystems (or as one node once max_depth is used up)."""
    if params.max_depth <= 0:
        return leaf_fragment(diagram, params)
    subs = {id(s): s.GetGraphvizFragment(params.max_depth - 1, _sub_options(params.options, s))
            for s in diagram._diagram_systems}
    result = GraphvizFragment()
    ident = diagram._system_id
    header = "<BR/>\n".join(params.header_lines)
    result.fragments.append(f'subgraph cluster{ident}diagram {{\ncolor=black\nconcentrate=true\n'
                            f'label=<<TABLE BORDER="0"><TR><TD>\n{header}\n</TD></TR></TABLE>>;\n')
    if diagram._input_ports:
        _ports_cluster(result.fragments, result.input_ports, "input", f"{params.node_id}in", "blue",
                       port_labels(diagram, True))
    if diagram._output_ports:
        _ports_cluster(result.fragments, result.output_ports, "output", f"{params.node_id}out", "green",
                       port_labels(diagram, False))
    result.fragments.append(f'subgraph cluster{ident}subsystems {{\ncolor=white\nlabel=""\n')
    for system in diagram._diagram_systems:
        result.fragments.extend(subs[id(system)].fragments)
    for dest, src in diagram._diagram_connections.items():
        result.fragments.append(f"{subs[id(src._system)].output_ports[int(src._index)]}:e -> "
                                f"{subs[id(dest._system)].input_ports[int(dest._index)]}:w\n")
    for i, dests in enumerate(diagram._diagram_exported_inputs):
        for dest in dests:
            result.fragments.append(f"{result.input_ports[i]}:e -> "
                                    f"{subs[id(dest._system)].input_ports[int(dest._index)]}:w [color=blue];\n")
    for i, port in enumerate(diagram._output_ports):
        src = port._source
        result.fragments.append(f"{subs[id(src._system)].output_ports[int(src._index)]}:e -> "
                                f"{result.output_ports[i]}:w [color=green];\n")
    result.fragments.append("}\n}\n")
    return result
