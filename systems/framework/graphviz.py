"""GetGraphvizString: a DOT description of a system's block diagram (subsystems as nested clusters)."""
from __future__ import annotations

__all__ = ["graphviz_string"]


def _node_id(system) -> str:
    return f"s{system._system_id}"


def _label(text: str) -> str:
    return text.replace('"', '\\"')


def _leaf_block(system, lines: list[str], indent: str) -> None:
    ins = "|".join(f"<u{k}> {_label(p.get_name())}" for k, p in enumerate(system._input_ports))
    outs = "|".join(f"<y{k}> {_label(p.get_name())}" for k, p in enumerate(system._output_ports))
    name = _label(system.get_name() or type(system).__name__)
    lines.append(f'{indent}{_node_id(system)} [shape=record, label="{{{{{ins}}}|{name}|{{{outs}}}}}"];')


def _port_node(port, is_input: bool, max_depth, depth) -> str:
    """The DOT endpoint of a port, descending into subdiagrams that are expanded."""
    from .diagram import Diagram
    system = port.get_system()
    if isinstance(system, Diagram) and (max_depth is None or depth < max_depth):
        if is_input:
            return f"{_node_id(system)}_u{int(port.get_index())}"
        return f"{_node_id(system)}_y{int(port.get_index())}"
    return f"{_node_id(system)}:{'u' if is_input else 'y'}{int(port.get_index())}"


def _emit(system, lines: list[str], indent: str, max_depth, depth: int) -> None:
    from .diagram import Diagram
    if not isinstance(system, Diagram) or (max_depth is not None and depth >= max_depth):
        _leaf_block(system, lines, indent)
        return
    lines.append(f"{indent}subgraph cluster_{_node_id(system)} {{")
    lines.append(f'{indent}  label="{_label(system.get_name() or "diagram")}";')
    for k, port in enumerate(system._input_ports):
        lines.append(f'{indent}  {_node_id(system)}_u{k} [shape=ellipse, label="{_label(port.get_name())}"];')
    for k, port in enumerate(system._output_ports):
        lines.append(f'{indent}  {_node_id(system)}_y{k} [shape=ellipse, label="{_label(port.get_name())}"];')
    for sub in system._diagram_systems:
        _emit(sub, lines, indent + "  ", max_depth, depth + 1)
    for dest, src in system._diagram_connections.items():
        lines.append(f"{indent}  {_port_node(src, False, max_depth, depth + 1)} -> "
                     f"{_port_node(dest, True, max_depth, depth + 1)};")
    for k, dests in enumerate(system._diagram_exported_inputs):
        for dest in dests:
            lines.append(f"{indent}  {_node_id(system)}_u{k} -> {_port_node(dest, True, max_depth, depth + 1)};")
    for k, port in enumerate(system._output_ports):
        lines.append(f"{indent}  {_port_node(port._source, False, max_depth, depth + 1)} -> {_node_id(system)}_y{k};")
    lines.append(f"{indent}}}")


def graphviz_string(system, max_depth: int | None = None, options: dict | None = None) -> str:
    """DOT text for `system`; subdiagrams deeper than `max_depth` are drawn as single blocks."""
    lines = ["digraph _" + str(system._system_id) + " {", "  rankdir=LR;"]
    _emit(system, lines, "  ", max_depth, 0)
    lines.append("}")
    return "\n".join(lines) + "\n"
