"""Weak back-references from a system's parts to the system, so that reference counting alone frees a system.

A system holds its ports, cache entries, events and witness functions; each of them needs the system back (to
name it in a message, to check a context, to call the system's method that computes a value). Were those back
references strong, every system would sit in a reference cycle and outlive its last user until the cyclic
garbage collector ran (pydrake frees a system as soon as nothing holds it; Drake's binding tests check that a
MultibodyPlant goes away the moment its last element handle is dropped). So the parts hold the system through
a `weakref.ref`, and a callback that is a bound method of the system is stored as its function plus that weak
reference and called as `function(system, ...)`: the same call, one dereference more (about 20 ns, paid only
when a cached value is recomputed or an event runs, never on a cache hit).

Pickling and deep copying turn the weak reference back into one to the copied (or unpickled) system
(see `portable.portable`).
"""
from __future__ import annotations

import functools
import types
import weakref
from typing import Any, Callable

__all__ = ["split_bound", "owner_gone", "deref_owner", "weak_system_property", "WeakAttribute"]


def split_bound(callback: Any, owner: Any) -> tuple[Any, "weakref.ref | None"]:
    """(function, weak reference to `owner`) when `callback` is a method bound to `owner`, else (callback, None).

    A functools.partial of such a method with keyword arguments only is split the same way (into a partial of the
    function). The caller then invokes `function(ref(), *args)` in the first case and `callback(*args)` in the
    second."""
    if type(callback) is types.MethodType and callback.__self__ is owner:
        return callback.__func__, weakref.ref(owner)
    if type(callback) is functools.partial and not callback.args:
        method = callback.func
        if type(method) is types.MethodType and method.__self__ is owner:
            return functools.partial(method.__func__, **callback.keywords), weakref.ref(owner)
    return callback, None


def owner_gone(what: str) -> RuntimeError:
    """The error raised when a part outlives the system (or plant) that owned it."""
    return RuntimeError(f"{what}: the system that owned it was deleted. Keep a reference to the system (or "
                        "to its Diagram) for as long as you use its ports, cache entries or events.")


def deref_owner(ref: "weakref.ref | None", what: str) -> Any:
    """The object `ref` points to; None when `ref` is None; a clear error when that object was deleted."""
    if ref is None:
        return None
    owner = ref()
    if owner is None:
        raise owner_gone(what)
    return owner


def weak_system_property(what: Callable[[Any], str]) -> property:
    """The `_system` property of a slotted part (port, cache entry): it reads the system through the part's
    `_sysref` (a clear error naming `what(part)` once the system was deleted) and setting it stores a weak
    reference plus the system's id (`_sysid`, which context checks compare without dereferencing)."""

    def get(part: Any) -> Any:
        system = part._sysref()
        if system is None:
            raise owner_gone(what(part))
        return system

    def set_(part: Any, system: Any) -> None:
        part._sysref = weakref.ref(system)
        part._sysid = system._system_id

    return property(get, set_)


class WeakAttribute:
    """A class attribute that stores its object through a weak reference (in the instance's `<name>_ref`) and
    reads back the object, or None when none was set or it was deleted. For the owner back-references of objects
    with a __dict__ (a subsystem's Diagram, an element's plant, a plant's contact helpers); with
    PortableAttributes they pickle and deep-copy to the copied owner."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._key = name + "_ref"
        setattr(owner, self._key, None)  # the default: nothing set

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        ref = instance.__dict__.get(self._key)
        return None if ref is None else ref()

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[self._key] = None if value is None else weakref.ref(value)
