"""Overload resolution for pydrake-style methods that take different parameter lists (pybind11 overloads).

    _OVERLOADS = (Overload(("source_id", SourceId), ("frame", GeometryFrame)),
                  Overload(("source_id", SourceId), ("parent_id", FrameId), ("frame", GeometryFrame)))
    k, a = resolve("SceneGraph.RegisterFrame", _OVERLOADS, args, kwargs)

The first overload whose parameters bind the call (positionally then by keyword, every typed parameter of the
right type) wins, as pybind11 tries them in order; no match is a TypeError listing the accepted signatures.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Overload", "REQUIRED", "bind", "declares", "resolve"]

REQUIRED = object()


class Overload:
    """One parameter list: (name, type or tuple of types or None for any[, default]) per parameter."""

    def __init__(self, *params: tuple):
        self.params = []
        for p in params:
            name, kind = p[0], p[1]
            default = p[2] if len(p) > 2 else REQUIRED
            self.params.append((name, kind, default))

    def bind(self, args: tuple, kwargs: dict) -> dict | None:
        if len(args) > len(self.params):
            return None
        names = [p[0] for p in self.params]
        if any(k not in names for k in kwargs):
            return None
        out: dict[str, Any] = {}
        for (name, kind, default), value in zip(self.params, args):
            if name in kwargs:
                return None
            out[name] = value
        for name, kind, default in self.params[len(args):]:
            if name in kwargs:
                out[name] = kwargs[name]
            elif default is REQUIRED:
                return None
            else:
                out[name] = default
        for name, kind, default in self.params:
            value = out[name]
            if kind is not None and not (value is default and default is not REQUIRED) \
                    and not isinstance(value, kind):
                return None
        return out

    def __str__(self) -> str:
        parts = []
        for name, kind, default in self.params:
            t = "" if kind is None else ": " + ("|".join(k.__name__ for k in kind) if isinstance(kind, tuple)
                                                 else kind.__name__)
            parts.append(name + t + ("" if default is REQUIRED else f" = {default!r}"))
        return "(" + ", ".join(parts) + ")"


def resolve(who: str, overloads: tuple, args: tuple, kwargs: dict) -> tuple[int, dict]:
    """(index of the first overload that binds, its arguments by name); TypeError naming them all otherwise."""
    for k, o in enumerate(overloads):
        bound = o.bind(args, kwargs)
        if bound is not None:
            return k, bound
    given = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    accepted = "\n".join(f"  {k + 1}. {who}{o}" for k, o in enumerate(overloads))
    raise TypeError(f"{who}(): incompatible arguments ({', '.join(given)}); the supported signatures are:\n"
                    f"{accepted}")


def declares(overloads: tuple, context_first: bool = False):
    """Attach the parameter lists a ``*args, **kwargs`` callable resolves (``__overloads__``; with
    ``context_first`` each also takes a leading ``context``), so tools can read its real signature."""
    def attach(fn):
        fn.__overloads__ = tuple(overloads)
        fn.__context_first__ = context_first
        return fn

    return attach


def bind(what: str, args: tuple, kwargs: dict, *signatures: tuple[str, ...]) -> dict:
    """The {name: value} of the first signature (a tuple of parameter names, all required, any types) that the call
    fits: the quick form for overloads told apart by their keyword names alone (SetPositions(context, q) /
    SetPositions(context, model_instance, q))."""
    for names in signatures:
        if len(args) + len(kwargs) != len(names) or len(args) > len(names):
            continue
        rest = names[len(args):]
        if set(kwargs) == set(rest):
            return {**dict(zip(names, args)), **kwargs}
    accepted = " or ".join(f"{what}({', '.join(n)})" for n in signatures)
    given = ", ".join([f"<{type(a).__name__}>" for a in args] + [f"{k}=" for k in kwargs])
    raise TypeError(f"{what}({given}): incompatible function arguments; the accepted calls are {accepted}")
