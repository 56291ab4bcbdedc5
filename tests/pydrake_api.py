"""pydrake's public API read from the installed wheel (pybind11 docstrings, Python signatures), and the check that
a mallard module accepts it: every class, function and method, and every overload's keyword names.

A pydrake overload ``f(a, b=1)`` is accepted by a mallard callable when one of its parameter lists (several
when the callable carries ``__overloads__``, see mallard.common.overloads) has every keyword pydrake accepts and
requires nothing pydrake does not pass."""
from __future__ import annotations

import enum
import importlib
import inspect
import re
from dataclasses import dataclass

from mallard.common.overloads import REQUIRED

_SIG = re.compile(r"^(?:\d+\. )?([A-Za-z_]\w*)\((.*)\)(?: -> .*)?$")


@dataclass(frozen=True)
class Params:
    """One parameter list: the keyword names, those without a default, and how many positional-only
    (unnamed, ``argN``) parameters pydrake has besides them."""

    names: frozenset
    required: frozenset
    positional: int = 0


def _split_top_level(text: str) -> list[str]:
    """Split a parameter list on commas outside brackets and quotes."""
    out, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _params_from_text(text: str) -> Params | None:
    names, required, positional = set(), set(), 0
    for part in _split_top_level(text):
        if part.startswith("*"):
            return None  # (*args, **kwargs): the overload list follows in the docstring (or is unknown)
        name = part.split(":", 1)[0].split("=", 1)[0].strip()
        if name in ("self", ""):
            continue
        if re.fullmatch(r"arg\d+", name):
            positional += 1  # pybind11's unnamed arguments are positional only
            continue
        names.add(name)
        if "=" not in part:
            required.add(name)
    return Params(frozenset(names), frozenset(required), positional)


def pydrake_overloads(obj, name: str) -> list[Params]:
    """The parameter lists of a pydrake callable (pybind11 docstring lines, else its Python signature)."""
    doc = getattr(obj, "__doc__", None) or ""
    found = []
    for line in doc.splitlines():
        m = _SIG.match(line.strip())
        if m and m.group(1) == name:
            p = _params_from_text(m.group(2))
            if p is not None:
                found.append(p)
    if found:
        return found
    if "pybind11" in type(obj).__name__ or type(obj).__name__ in ("builtin_function_or_method", "instancemethod"):
        return []  # a pybind11 callable whose docstring lists no signature
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [_params_from_signature(sig)]


def _params_from_signature(sig: inspect.Signature) -> Params:
    names, required, anything = set(), set(), False
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            anything = True
            continue
        if p.name == "self" or p.kind == p.POSITIONAL_ONLY:
            continue
        names.add(p.name)
        if p.default is p.empty:
            required.add(p.name)
    return Params(frozenset(names | ({"*"} if anything else set())), frozenset(required))


def mallard_overloads(obj) -> list[Params]:
    """The parameter lists a mallard callable accepts (``__overloads__`` when it resolves overloads)."""
    declared = getattr(obj, "__overloads__", None)
    if declared is not None:
        out = []
        for o in declared:
            names = {n for n, _, _ in o.params}
            required = {n for n, _, d in o.params if d is REQUIRED}
            if getattr(obj, "__context_first__", False):
                names.add("context")
            out.append(Params(frozenset(names), frozenset(required)))
        return out
    try:
        return [_params_from_signature(inspect.signature(obj))]
    except (TypeError, ValueError):
        return []


def accepts(ours: list[Params], theirs: Params) -> bool:
    """Whether some mallard parameter list takes every keyword of ``theirs`` and needs nothing more than what
    a pydrake call passes (its required keywords, plus its unnamed positional arguments)."""
    if "*" in theirs.names:
        return True  # pydrake lists no signature (a class without a public constructor)
    for p in ours:
        if "*" in p.names and len(p.required - theirs.required) <= theirs.positional:
            return True  # (*args, **kwargs) without overload metadata: anything
        if theirs.names <= p.names and len(p.required - theirs.required) <= theirs.positional:
            return True
    return False


def _public(names) -> list[str]:
    return sorted(n for n in names if not n.startswith("_") and "𝓣" not in n)


def surface_gaps(pydrake_module: str, mallard_module: str, excluded: dict[str, str],
                 private: tuple[str, ...] = ()) -> list[str]:
    """What mallard lacks of a pydrake module: missing names, missing methods, overloads whose keywords
    mallard does not accept. ``excluded`` maps names ("Class" or "Class.method") to why they are out of
    scope; ``private`` lists underscore names pydrake's own code uses that mallard provides too."""
    theirs = importlib.import_module(pydrake_module)
    ours = importlib.import_module(mallard_module)
    gaps = []
    for name in _public(dir(theirs)) + list(private):
        if name in excluded:
            continue
        ref = getattr(theirs, name)
        if inspect.ismodule(ref) or type(ref).__name__ == "TemplateClass" or not callable(ref):
            continue
        if not getattr(ref, "__module__", "").startswith(pydrake_module):
            continue  # imported from elsewhere (e.g. the shapes planar_scenegraph_visualizer uses)
        obj = getattr(ours, name, None)
        if obj is None:
            gaps.append(f"{name}: missing")
            continue
        if inspect.isclass(ref):
            gaps += _class_gaps(name, ref, obj, excluded)
        else:
            gaps += [f"{name}{sorted(p.names)}: keywords not accepted" for p in pydrake_overloads(ref, name)
                     if not accepts(mallard_overloads(obj), p)]
    return gaps


def _keyword_constructor(ref: type) -> Params | None:
    """A pybind11 ``__init__(self, **kwargs)`` (a struct's): its properties are the optional keywords."""
    doc = getattr(ref.__init__, "__doc__", None) or ""
    if re.search(r"__init__\(self: [\w.]+, \*\*kwargs\)", doc):
        props = {m for m in vars(ref) if isinstance(inspect.getattr_static(ref, m), property) and not m.startswith("_")}
        return Params(frozenset(props), frozenset())
    return None


def _has_member(obj, member: str) -> bool:
    if getattr(obj, member, None) is not None or member in getattr(obj, "__dataclass_fields__", {}):
        return True
    if inspect.isclass(obj) and issubclass(obj, enum.Enum) and member in ("name", "value"):
        return True
    try:
        return hasattr(obj(), member)  # an attribute set by the constructor
    except Exception:  # a class that cannot be made without arguments
        return False


def _class_gaps(name: str, ref: type, obj, excluded: dict) -> list[str]:
    gaps = []
    if inspect.isclass(obj):
        init = mallard_overloads(obj.__init__) if "__init__" in _own(obj) else [Params(frozenset(), frozenset())]
        keyword = _keyword_constructor(ref)
        for p in [keyword] if keyword is not None else pydrake_overloads(ref.__init__, "__init__"):
            if not accepts(init, p):
                gaps.append(f"{name}{sorted(p.names)}: constructor keywords not accepted")
    for member in _public(vars(ref)):
        key = f"{name}.{member}"
        if key in excluded:
            continue
        attr = inspect.getattr_static(ref, member)
        if not _has_member(obj, member):
            gaps.append(f"{key}: missing")
            continue
        mine = getattr(obj, member, None)
        if mine is None:
            continue
        if isinstance(attr, property) or inspect.isclass(getattr(ref, member)) or not callable(getattr(ref, member)):
            continue
        gaps += [f"{key}{sorted(p.names)}: keywords not accepted" for p in pydrake_overloads(getattr(ref, member),
                                                                                                member)
                 if not accepts(mallard_overloads(mine), p)]
    return gaps


def _own(cls) -> set:
    return {k for c in cls.__mro__ if c is not object for k in vars(c)}
