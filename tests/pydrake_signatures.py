"""pydrake's call signatures, read from its docstrings, and a check that mallard accepts the same keywords.

pybind11 writes every overload of a bound function into its docstring (`1. Name(self: Cls, a: int, b: float =
0.0) -> None`); pure-Python pydrake functions have an `inspect.signature`. `pydrake_overloads(obj)` returns the
keyword names of each overload; `missing_keywords(mallard_obj, names)` says which of them mallard rejects.
"""
from __future__ import annotations

import inspect
import re
from typing import Any, Iterator

_OVERLOAD = re.compile(r"^(?:\d+\. )?(\w+)\((.*)\)(?: -> .*)?$")


def _split_top_level(text: str) -> list[str]:
    """Splits a parameter list at commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:])
    return [p.strip() for p in parts]


def _names_of(params: str) -> list[str] | None:
    """Keyword names of one overload's parameter text; None when it is the generic `*args, **kwargs` line."""
    names = []
    for p in _split_top_level(params):
        name = p.split(":", 1)[0].split("=", 1)[0].strip()
        if name.startswith("*"):
            if name in ("*args", "**kwargs") and len(_split_top_level(params)) == 2:
                return None
            continue
        # pybind11 names unnamed arguments arg0, arg1, ...: those are positional only.
        if name and name not in ("self", "/") and not re.fullmatch(r"arg\d+", name):
            names.append(name)
    return names


def pydrake_overloads(obj: Any, name: str) -> list[list[str]]:
    """The keyword names of every overload of pydrake's `obj` (a function, method or class)."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    doc = getattr(target, "__doc__", None) or ""
    header = "__init__" if inspect.isclass(obj) else name
    overloads = []
    for line in doc.splitlines():
        m = _OVERLOAD.match(line.strip())
        if m and m.group(1) == header:
            names = _names_of(m.group(2))
            if names is not None:
                overloads.append(names)
    if overloads:
        return overloads
    try:  # a pure-Python pydrake function or class
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return []
    return [[p.name for p in sig.parameters.values()
             if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]]


def missing_keywords(obj: Any, names: list[str]) -> list[str] | None:
    """The names mallard's `obj` does not accept as keywords; None when its signature cannot be read."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    params = sig.parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return []
    accepted = {p.name for p in params.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return [n for n in names if n not in accepted]


def public_members(module: Any) -> Iterator[tuple[str, Any, Any]]:
    """(qualified name, pydrake object, owner) for each public function, class, and method of a class, of
    `module` (names with `_` templates and mangled instantiations skipped)."""
    for name in sorted(dir(module)):
        if name.startswith("_") or "𝓣" in name or name.endswith("_"):
            continue
        obj = getattr(module, name)
        if not (getattr(obj, "__module__", None) or "").startswith(module.__name__):
            continue  # imported into the module from elsewhere (e.g. AutoDiffXd, numpy)
        if inspect.isclass(obj):
            yield name, obj, None
            for attr in sorted(vars(obj)):
                if attr.startswith("_") or "𝓣" in attr:
                    continue
                member = getattr(obj, attr, None)
                if callable(member) and not inspect.isclass(member):
                    yield f"{name}.{attr}", member, obj
        elif callable(obj):
            yield name, obj, None
