"""`str(context)`: Drake's text rendering of a Context (LeafContext / DiagramContext::do_to_string).

Vectors print as Eigen prints a row vector at 16 significant digits (every entry right-aligned to the widest
one, separated by one space); the time prints in shortest round-trip form ("0", "0.25").
"""
from __future__ import annotations

import numpy as np

__all__ = ["context_to_string", "eigen_row", "shortest_double"]


def shortest_double(x: float) -> str:
    """fmt::to_string(double): the shortest round-trip spelling, without a trailing ".0"."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def eigen_row(values) -> str:
    """Eigen's `stream << vector.transpose()` at precision 16."""
    items = ["%.16g" % v for v in np.asarray(values, dtype=float).ravel()]
    width = max((len(s) for s in items), default=0)
    return " ".join(s.rjust(width) for s in items)


def _groups_text(groups: list, what: str, item: str) -> list[str]:
    """The lines listing vector groups (discrete state or numeric parameters): counts, then each group's values."""
    lines = [f"  {len(groups)} {what} with\n"]
    for group in groups:
        lines += [f"     {group.size()} {item}\n", f"       {eigen_row(group.CopyToVector())}\n"]
    return lines


def _leaf_to_string(context) -> str:
    path = context._pathname
    out = [f"{path} Context\n", "-" * (len(path) + 9) + "\n", f"Time: {shortest_double(context.get_time())}\n"]
    nxc, ngroups, nabstract = (context.num_continuous_states(), context.num_discrete_state_groups(),
                               context.num_abstract_states())
    if nxc or ngroups or nabstract:
        out.append("States:\n")
        if nxc:
            out.append(f"  {nxc} continuous states\n")
            out.append(f"    {eigen_row(context.get_continuous_state_vector().CopyToVector())}\n")
        if ngroups:
            out.extend(_groups_text([context.get_discrete_state(i) for i in range(ngroups)],
                                    "discrete state groups", "states"))
        if nabstract:
            out.append(f"  {nabstract} abstract states\n")
        out.append("\n")
    nnumeric, nabstract_params = context.num_numeric_parameter_groups(), context.num_abstract_parameters()
    if nnumeric or nabstract_params:
        out.append("Parameters:\n")
        if nnumeric:
            out.extend(_groups_text([context.get_numeric_parameter(i) for i in range(nnumeric)],
                                    "numeric parameter groups", "parameters"))
        if nabstract_params:
            out.append(f"  {nabstract_params} abstract parameters\n")
    return "".join(out)


def _has_content(context) -> bool:
    return bool(context.num_continuous_states() or context.num_discrete_state_groups()
                or context.num_abstract_states() or context.num_numeric_parameter_groups()
                or context.num_abstract_parameters())


def _diagram_to_string(context) -> str:
    path = context._pathname
    out = [f"{path} Context (of a Diagram)\n", "-" * (len(path) + 24) + "\n"]
    if context.num_continuous_states():
        out.append(f"{context.num_continuous_states()} total continuous states\n")
    groups = [context.get_discrete_state(i) for i in range(context.num_discrete_state_groups())]
    if groups:
        out.append(f"{sum(g.size() for g in groups)} total discrete states in {len(groups)} groups\n")
    if context.num_abstract_states():
        out.append(f"{context.num_abstract_states()} total abstract states\n")
    numeric = [context.get_numeric_parameter(i) for i in range(context.num_numeric_parameter_groups())]
    if numeric:
        out.append(f"{sum(p.size() for p in numeric)} total numeric parameters in {len(numeric)} groups\n")
    if context.num_abstract_parameters():
        out.append(f"{context.num_abstract_parameters()} total abstract parameters\n")
    for child in context._children:
        if _has_content(child):
            out.append("\n" + context_to_string(child))
    return "".join(out)


def context_to_string(context) -> str:
    """Drake's text of a leaf or diagram context."""
    return _diagram_to_string(context) if hasattr(context, "_children") else _leaf_to_string(context)
