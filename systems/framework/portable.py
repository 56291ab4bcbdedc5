"""Portable callables: the lambdas and closures that systems hand to ports, cache entries and events pickle by
value, so diagrams and contexts move to other processes (Monte Carlo workers, a Dask cluster) and run there
exactly as here.

Standard pickle stores a function by reference (module + qualified name), which fails for a lambda or a local
function. The framework objects that hold callables pickle them through `portable()`: a function that cannot be
found by reference travels as its code object (marshal), its closure cells, defaults and globals, all inside the
same pickle stream, so a closure over a system is rebuilt over the unpickled system itself (and `copy.deepcopy`
rebinds it to the copy). Code objects are tied to the Python version, as a process pool or a Dask cluster is.
"""
from __future__ import annotations

import builtins
import copy
import functools
import importlib
import marshal
import sys
import types
import weakref
from typing import Any

__all__ = ["portable", "PortableSlots", "PortableAttributes"]


class _EmptyCell:
    """Marks a closure cell that was not filled yet when the function was pickled."""


def _found_by_reference(fn: types.FunctionType) -> bool:
    """True when pickle's by-reference lookup (module attribute path = qualified name) finds `fn` itself."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    if module is None or "<locals>" in fn.__qualname__:
        return False
    obj: Any = module
    for part in fn.__qualname__.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return obj is fn


class _Reduction:
    """A stand-in whose pickle (and deepcopy) reduction is given explicitly."""

    __slots__ = ("_reduction",)

    def __init__(self, reduction: tuple) -> None:
        self._reduction = reduction

    def __reduce__(self) -> tuple:
        return self._reduction


class _FunctionStandIn:
    """Pickles (and deep-copies) a function by value; its reduction is computed when pickle asks for it."""

    __slots__ = ("fn", "__weakref__")

    def __init__(self, fn: types.FunctionType) -> None:
        self.fn = fn

    def __reduce__(self) -> tuple:
        return _function_reduction(self.fn)

    def __deepcopy__(self, memo: dict) -> types.FunctionType:
        """A new function over the same code and globals, its closure and defaults deep-copied with `memo` (so a
        closure over a system being copied refers to the copy)."""
        fn = self.fn
        new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, None,
                                 tuple(types.CellType() for _ in fn.__code__.co_freevars))
        new.__qualname__, new.__module__ = fn.__qualname__, fn.__module__
        memo[id(self)] = new
        defaults, kwdefaults, cells, attributes, _globals = _function_state(fn, carry_globals=False)
        _set_function_state(new, copy.deepcopy((defaults, kwdefaults, cells, attributes, None), memo))
        return new


# One stand-in per function while it is being pickled, so that a function referenced twice (or by its own
# closure) is stored once and comes back as one object.
_stand_ins: "weakref.WeakValueDictionary[int, _FunctionStandIn]" = weakref.WeakValueDictionary()


def portable(value: Any) -> Any:
    """`value`, or a picklable stand-in for it when it is a function pickle cannot store by reference (a lambda,
    a local function), a functools.partial over one, a module, or a weak reference (which comes back as a weak
    reference to the copied object; a dead one as None). Anything else is returned unchanged."""
    if isinstance(value, types.FunctionType):
        if _found_by_reference(value):
            return value
        stand_in = _stand_ins.get(id(value))
        if stand_in is None or stand_in.fn is not value:
            stand_in = _stand_ins[id(value)] = _FunctionStandIn(value)
        return stand_in
    if isinstance(value, functools.partial) and type(value) is functools.partial:
        return _Reduction((_make_partial, (portable(value.func), tuple(portable(a) for a in value.args),
                                           {k: portable(v) for k, v in value.keywords.items()})))
    if isinstance(value, types.ModuleType):
        return _Reduction((importlib.import_module, (value.__name__,)))
    if type(value) is weakref.ref:  # a part's weak reference to its system: to the copy (unpickled) system
        target = value()
        return None if target is None else _Reduction((weakref.ref, (target,)))
    return value


def _referenced_globals(code: types.CodeType, names: set) -> set:
    names.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _referenced_globals(const, names)
    return names


def _importable_module(fn: types.FunctionType) -> str | None:
    """The module whose namespace `fn` runs in, when another process can import it (not a script's __main__)."""
    return fn.__module__ if fn.__module__ in sys.modules and fn.__module__ != "__main__" else None


def _function_reduction(fn: types.FunctionType) -> tuple:
    """(rebuild, args, state, None, None, state setter) for `fn`: the code in args, what it refers to in state,
    so that references back to `fn` (through a closure) find it already rebuilt."""
    code = fn.__code__
    module = _importable_module(fn)
    args = (marshal.dumps(code), module, fn.__name__, fn.__qualname__, len(code.co_freevars))
    return (_make_function, args, _function_state(fn, carry_globals=module is None), None, None,
            _set_function_state)


def _function_state(fn: types.FunctionType, carry_globals: bool) -> tuple:
    """(defaults, keyword defaults, closure cell contents, attributes, globals carried by value or None)."""
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append(portable(cell.cell_contents))
        except ValueError:  # a cell not yet filled (a local function referring to a later local)
            cells.append(_EmptyCell)
    own_globals = None
    if carry_globals:  # a script's function: carry the globals it uses, as values
        own_globals = {name: portable(fn.__globals__[name])
                       for name in sorted(_referenced_globals(fn.__code__, set())) if name in fn.__globals__}
    return (tuple(portable(d) for d in fn.__defaults__) if fn.__defaults__ else None,
            {k: portable(v) for k, v in fn.__kwdefaults__.items()} if fn.__kwdefaults__ else None,
            tuple(cells), {k: portable(v) for k, v in fn.__dict__.items()}, own_globals)


def _make_function(code_bytes: bytes, module: str | None, name: str, qualname: str, num_cells: int):
    """An empty-closure function over `code_bytes` in `module`'s globals (a fresh namespace when None)."""
    code = marshal.loads(code_bytes)
    namespace = importlib.import_module(module).__dict__ if module is not None else {"__builtins__": builtins}
    fn = types.FunctionType(code, namespace, name, None, tuple(types.CellType() for _ in range(num_cells)))
    fn.__qualname__ = qualname
    fn.__module__ = module if module is not None else "__main__"
    return fn


def _set_function_state(fn: types.FunctionType, state: tuple) -> None:
    defaults, kwdefaults, cells, attributes, own_globals = state
    fn.__defaults__ = defaults
    fn.__kwdefaults__ = kwdefaults
    for cell, value in zip(fn.__closure__ or (), cells):
        if value is not _EmptyCell:
            cell.cell_contents = value
    fn.__dict__.update(attributes)
    if own_globals:
        fn.__globals__.update(own_globals)


def _make_partial(func, args: tuple, keywords: dict) -> functools.partial:
    return functools.partial(func, *args, **keywords)


def _slot_names(cls: type) -> tuple:
    names = cls.__dict__.get("_portable_slot_names")
    if names is None:
        seen: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in klass.__dict__.get("__slots__", ()):
                if name not in ("__weakref__", "__dict__") and name not in seen:
                    seen.append(name)
        names = tuple(seen)
        setattr(cls, "_portable_slot_names", names)
    return names


class PortableSlots:
    """Mixin for the framework's slotted holders of callables (ports, cache entries, events): pickling and deep
    copying store every slot, callables through `portable()`."""

    __slots__ = ()

    def __getstate__(self) -> dict:
        return {name: portable(getattr(self, name)) for name in _slot_names(type(self)) if hasattr(self, name)}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)


def _portable_member(value: Any, depth: int = 3) -> Any:
    """portable(value), also applied inside plain lists, tuples and dicts down to `depth` levels (a container is
    copied only when something in it changes)."""
    kind = type(value)
    if depth and kind in (list, tuple):
        items = [_portable_member(v, depth - 1) for v in value]
        return kind(items) if any(a is not b for a, b in zip(items, value)) else value
    if depth and kind is dict:
        items = {k: _portable_member(v, depth - 1) for k, v in value.items()}
        return items if any(items[k] is not v for k, v in value.items()) else value
    return portable(value)


class PortableAttributes:
    """Mixin for the framework's holders of callables that keep a __dict__ (systems, witness functions, value
    producers): pickling and deep copying store every attribute, callables through `portable()`, except the
    process-local scratch a class names in `_transient_attributes` (rebuilt on demand after loading)."""

    _transient_attributes: frozenset = frozenset()

    def __getstate__(self) -> dict:
        transient = self._transient_attributes
        return {k: _portable_member(v) for k, v in self.__dict__.items() if k not in transient}
