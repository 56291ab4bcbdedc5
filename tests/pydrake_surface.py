"""The public surface of pydrake modules, read from pydrake's docstrings: every class, function and method with the
parameter names of each of its overloads (pybind11 writes `name(self: T, a: A, b: B = ...) -> R` per overload).

Run it to print what a mallard module lacks:  python tests/pydrake_surface.py pydrake.multibody.tree
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys
from dataclasses import dataclass

_SIGNATURE = re.compile(r"^(?:\d+\. )?(\w+)\((.*)\)(?: -> .*)?$")
# Overloads for other scalar types only exist because pydrake templates on AutoDiffXd / Expression.
_OTHER_SCALARS = ("AutoDiff", "symbolic", "Expression")


@dataclass(frozen=True)
class Overload:
    """One overload: module, class (None for a function), member name and its (name, has_default) parameters."""
    module: str
    owner: str | None
    member: str
    params: tuple[tuple[str, bool], ...]

    def __str__(self) -> str:
        where = f"{self.module}.{self.owner}.{self.member}" if self.owner else f"{self.module}.{self.member}"
        return f"{where}({', '.join(p for p, _ in self.params)})"


def _split(params: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in params:
        depth += ch in "[(<{"
        depth -= ch in "])>}"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def overloads_of(obj, name: str) -> list[tuple[tuple[str, bool], ...]]:
    """The parameter lists of every overload of `obj` (a pybind11 callable) written in its docstring."""
    found = []
    for line in (getattr(obj, "__doc__", None) or "").splitlines():
        m = _SIGNATURE.match(line.strip())
        if not m or m.group(1) != name:
            continue
        params, ok = [], True
        for p in _split(m.group(2)):
            if p in ("*args", "**kwargs"):
                ok = False
                break
            if p == "*":
                continue
            pname, _, rest = p.partition(":")
            ptype, _, default = rest.partition("=")
            if any(s in ptype for s in _OTHER_SCALARS):
                ok = False
                break
            params.append((pname.strip(), bool(default.strip())))
        if ok:
            found.append(tuple(params))
    return found


def _defining_module(cls: type, attr: str) -> str:
    for base in cls.__mro__:
        if attr in vars(base):
            return base.__module__
    return cls.__module__


def surface(module_name: str, skip_inherited_from: tuple[str, ...] = ()) -> tuple[list[str], list[Overload]]:
    """(public names, overloads) of a pydrake module; members inherited from classes of the modules in
    `skip_inherited_from` (e.g. pydrake.systems.framework's System API) are left out."""
    module = importlib.import_module(module_name)
    names, out = [], []
    for name in sorted(dir(module)):
        if name.startswith("_") or "𝓣" in name:
            continue
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        names.append(name)
        if isinstance(obj, type):
            for attr in sorted(dir(obj)):
                if (attr.startswith("_") and attr != "__init__") or "𝓣" in attr:
                    continue
                if _defining_module(obj, attr).startswith(skip_inherited_from):
                    continue
                member = getattr(obj, attr, None)
                if callable(member) and not isinstance(member, type):
                    out += [Overload(module_name, name, attr, p) for p in overloads_of(member, attr)]
        elif callable(obj):
            out += [Overload(module_name, None, name, p) for p in overloads_of(obj, name)]
    return names, out


def binds(overload: Overload, target) -> bool:
    """Whether mallard's `target` accepts the overload's parameters (positionally for pybind's argN names)."""
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return True  # a builtin without a signature: nothing to check
    args, kwargs = [], {}
    params = list(overload.params)
    is_init = overload.member == "__init__"
    for pname, _ in params:
        if pname == "self" or (pname.startswith("arg") and pname[3:].isdigit()):
            args.append(None)
        else:
            kwargs[pname] = None
    if is_init and not (params and params[0][0] == "self"):
        args.insert(0, None)
    try:
        sig.bind(*args, **kwargs)
    except TypeError:
        try:  # the same call with only the parameters that have no default (optional ones may be keyword-only)
            sig.bind(*args, **{k: v for (k, d), v in zip([p for p in params if p[0] in kwargs], kwargs.values())
                               if not d})
        except TypeError:
            return False
        return all(k in sig.parameters or any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
                   for k in kwargs)
    return True


if __name__ == "__main__":
    for mod in sys.argv[1:]:
        mallard_mod = importlib.import_module("mallard" + mod[len("pydrake"):])
        names, overloads = surface(mod, ("pydrake.systems",))
        for n in names:
            if not hasattr(mallard_mod, n):
                print("missing name", f"{mod}.{n}")
        for o in overloads:
            owner = mallard_mod if o.owner is None else getattr(mallard_mod, o.owner, None)
            if owner is None:
                continue
            target = getattr(owner, o.member, None)
            if target is None:
                print("missing member", o)
            elif not binds(o, target):
                print("rejects", o)
