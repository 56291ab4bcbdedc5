"""Overloaded pydrake signatures in plain Python: pick the parameter list a call matches, by position then keyword.

pybind11 overloads such as SetPositions(context, q) / SetPositions(context, model_instance, q) take the same
keyword names as pydrake; `bind` tries each parameter list in order, as pybind11 does, and reports the accepted
lists when none fits.
"""
from __future__ import annotations

__all__ = ["bind"]


def bind(what: str, args: tuple, kwargs: dict, *signatures: tuple[str, ...]) -> dict:
    """The {name: value} of the first signature (a tuple of parameter names, all required) that the call fits."""
    for names in signatures:
        if len(args) + len(kwargs) != len(names) or len(args) > len(names):
            continue
        rest = names[len(args):]
        if set(kwargs) == set(rest):
            return {**dict(zip(names, args)), **kwargs}
    accepted = " or ".join(f"{what}({', '.join(n)})" for n in signatures)
    given = ", ".join([f"<{type(a).__name__}>" for a in args] + [f"{k}=" for k in kwargs])
    raise TypeError(f"{what}({given}): incompatible function arguments; the accepted calls are {accepted}")
