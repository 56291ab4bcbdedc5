"""Shipping work to worker processes: a payload that refers to systems is unpacked once per diagram per worker.

A payload (a simulator, a function closing over a plant, ...) is pickled with every System in it replaced by a
reference (its system id); the diagrams those systems belong to are pickled once per sweep and travel beside the
payload. A worker unpickles a diagram the first time it meets it and keeps it (per thread, a few at a time), so a
1000-sample Monte Carlo of an iiwa pickles its 80 kB diagram once and each worker unpickles it once (a worker
forked from the packing process after the diagram was pickled takes the one it inherited: `_Original`); the bytes
ride along with each chunk (a copy, not a pickling), beside ~13 kB of context per sample. The other objects a
payload shares with a diagram (a context's geometry shapes, identifiers, a system's functions) travel as references
too, to the worker's copy of that object (its index in the diagram's pickle memo): the worker's payload shares
them with its diagram as the parent's does. Like the systems, they must not change during the sweep; the holders
of a context's values (arrays, vectors, abstract values) always travel by value. A payload that every
chunk of a sweep shares (the function mapped) is packed once with `keep=True` and each worker thread unpickles it
once and reuses it (bound to its copies of the diagrams), instead of once per chunk. Payloads are pickled with
cloudpickle (shipped with dask.distributed), so functions and classes of a user's script travel by value, as
Dask itself sends them.
"""
from __future__ import annotations

import collections
import copyreg
import hashlib
import io
import os
import pickle
import threading
import types
import weakref
from dataclasses import dataclass
from typing import Any

import cloudpickle
import numpy as np

from mallard.common.value import AbstractValue
from mallard.systems.framework.basic_vector import BasicVector
from mallard.systems.framework.system import System

__all__ = ["Shipment", "Shipper", "Unpack"]

_KEPT_DIAGRAMS = 4  # diagrams (and kept payloads) a worker thread keeps unpickled (a sweep over a few models)


@dataclass(frozen=True)
class Shipment:
    """A pickled payload plus the pickled diagrams it refers to ({root system id: (digest, bytes)}); `digest` is set
    on a payload packed with keep=True, which workers unpickle once and keep."""

    payload: bytes
    diagrams: dict
    digest: bytes | None = None


def _root(system: System) -> System:
    while system._parent_diagram is not None:
        system = system._parent_diagram
    return system


class _SystemRefPickler(cloudpickle.Pickler):
    """cloudpickle, with every built System stored as a reference to its diagram's shipped copy.

    The references are made in `reducer_override`, which the C pickler calls only for objects of non-builtin
    types (a context of an iiwa diagram holds ~3000 objects, ~350 of them such), and the dispatch table is a plain
    dict (cloudpickle's ChainMap makes a Python call per lookup): packing a context costs ~20% less than with a
    `persistent_id` called for every object."""

    def __init__(self, file, shipper: "Shipper", roots: set) -> None:
        self.dispatch_table = shipper._dispatch_table  # before __init__, which reads it
        super().__init__(file)
        self._shipper, self._roots = shipper, roots

    def reducer_override(self, obj: Any):
        plain = _BY_VALUE_TYPES.get(type(obj))
        if plain is None:
            plain = _by_value_type(type(obj))
        if plain:  # an array, vector or value (~170 of the ~280 objects here of an iiwa context): pickle's own way
            return NotImplemented
        if isinstance(obj, System) and obj._owner_builder is None:
            root = _root(obj)
            self._shipper._diagram(root)
            self._roots.add(root._system_id)
            return _ShippedSystem, (obj._system_id,)
        shared = self._shipper._shared.get(id(obj))
        if shared is not None:
            self._roots.add(shared[0])
            return _SharedObject, shared
        return super().reducer_override(obj)


class Shipper:
    """Packs payloads for one sweep; pickles each diagram once (systems must not change during the sweep)."""

    def __init__(self) -> None:
        self._diagrams: dict[int, tuple[bytes, bytes]] = {}
        self._dispatch_table = {**copyreg.dispatch_table, **cloudpickle.Pickler._dispatch_table,
                                np.ndarray: _reduce_array}
        self._shared: dict[int, tuple[int, int]] = {}  # id(object) in a shipped diagram: (root id, memo index)
        self._memos: list = []  # the diagrams' pickler memos: keep their objects (and so their ids) alive
        self._originals: list = []  # what _ORIGINALS refers to while this sweep lasts

    def _diagram(self, root: System) -> None:
        if root._system_id not in self._diagrams:
            buffer = io.BytesIO()
            pickler = cloudpickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dump(root)
            blob = buffer.getvalue()
            self._diagrams[root._system_id] = (hashlib.blake2b(blob, digest_size=16).digest(), blob)
            memo = pickler.memo.copy()  # {id(obj): (memo index, obj)}
            self._memos.append(memo)
            original = _Original(root, memo)
            self._originals.append(original)
            _ORIGINALS[self._diagrams[root._system_id][0]] = original
            for key, (index, obj) in memo.items():
                if not isinstance(obj, _BY_VALUE):
                    self._shared.setdefault(key, (root._system_id, index))

    def Pack(self, obj: Any, keep: bool = False) -> Shipment:
        """`obj` pickled, its systems as references to their shipped diagrams. keep=True: for a payload shipped
        with many chunks (pack it once): each worker thread unpickles it once and then reuses that copy, so it
        must not change during the sweep, nor be changed by its use."""
        buffer, roots = io.BytesIO(), set()
        _SystemRefPickler(buffer, self, roots).dump(obj)
        payload, diagrams = buffer.getvalue(), {r: self._diagrams[r] for r in sorted(roots)}
        digest = None
        if keep:
            hasher = hashlib.blake2b(digest_size=16)
            for diagram_digest, _ in diagrams.values():
                hasher.update(diagram_digest)
            hasher.update(payload)
            digest = hasher.digest()
        return Shipment(payload, diagrams, digest)


# Objects a payload shares with a shipped diagram (a context's shapes, identifiers, functions, classes) are sent as
# references to the worker's copy of the diagram, as systems are, except for these types: the holders of a
# context's values (arrays, vectors, abstract values) and containers, which a context changes in place.
_BY_VALUE = (np.ndarray, BasicVector, AbstractValue, list, dict, set, bytearray)

def _reduce_array(array: np.ndarray) -> tuple:
    """A writable C-contiguous array without objects as np.ndarray(shape, dtype, bytearray of its bytes): the same
    bytes, unpickled by numpy's constructor alone (numpy's own reduction goes through Python functions both ways:
    ~5 us to pickle and ~3 us to unpickle each of the ~100 small arrays of an iiwa context, 2.2 and 1 us this way),
    into a writable bytearray-backed array as numpy's. Other arrays (read-only, strided, object, subclasses) are
    reduced by numpy."""
    if type(array) is np.ndarray and array.flags.c_contiguous and array.flags.writeable and not array.dtype.hasobject:
        return np.ndarray, (array.shape, array.dtype, bytearray(array))
    return array.__reduce_ex__(pickle.HIGHEST_PROTOCOL)


_BY_VALUE_TYPES: dict[type, bool] = {}  # type: whether its objects are pickled by value as plain objects


def _by_value_type(t: type) -> bool:
    """Whether objects of type `t` are always pickled by value with their own reduction (no system, class or
    function: neither a reference nor cloudpickle's reducers apply), remembered per type."""
    plain = _BY_VALUE_TYPES[t] = (issubclass(t, _BY_VALUE) and not issubclass(t, (System, type))
                                  and not issubclass(t, types.FunctionType))
    return plain


_loading = threading.local()  # .systems: {system id: system}, .objects: {root id: memo} of the payload unpacking


def _ShippedSystem(system_id: int) -> System:
    """The system `system_id` of the diagrams shipped with the payload being unpacked (the reference's loader)."""
    systems = getattr(_loading, "systems", None)
    if systems is None or system_id not in systems:
        raise pickle.UnpicklingError(f"shipped payload refers to system id {system_id}, which none of the "
                                     "diagrams shipped with it contains")
    return systems[system_id]


def _SharedObject(root_id: int, index: int) -> Any:
    """The object at `index` of the unpickling memo of the shipped diagram `root_id` (the object the payload shares
    with that diagram, as this worker's copy of the diagram holds it)."""
    objects = getattr(_loading, "objects", None)
    if objects is None or root_id not in objects:
        raise pickle.UnpicklingError(f"shipped payload refers to an object of the diagram of system id {root_id}, "
                                     "which was not shipped with it")
    return objects[root_id][index]


def _index(system: System, out: dict) -> dict:
    out[system._system_id] = system
    for child in getattr(system, "_diagram_systems", ()):
        _index(child, out)
    return out


class _KeptDiagram:
    """A worker's copy of a shipped diagram: {system id: system} and its unpickling memo {index: object}."""

    __slots__ = ("systems", "objects")

    def __init__(self, blob: bytes) -> None:
        unpickler = pickle.Unpickler(io.BytesIO(blob))
        self.systems = _index(unpickler.load(), {})
        self.objects = unpickler.memo.copy()


class _Original:
    """A shipped diagram as the packing process holds it: its root and its pickler memo. A process forked from
    that one (the local pool's workers, forked at the first submission, after the first chunk was packed)
    inherits both and takes them as its copy of the diagram instead of unpickling the blob: no ~5 ms of unpickling
    per worker and call (11-40 ms of wall in a fresh fork, whose new objects fault in page after page, loaded),
    and the worker runs the very objects the serial run does. Only one thread of such a process gets it (a copy
    per thread, as unpickled ones)."""

    __slots__ = ("root", "memo", "pid", "claimed", "__weakref__")

    def __init__(self, root: System, memo: dict) -> None:
        self.root, self.memo, self.pid, self.claimed = root, memo, os.getpid(), None

    def Claim(self) -> "_KeptDiagram | None":
        """In a process forked from the packing one, for the first thread that asks: the diagram as a kept one."""
        if self.pid == os.getpid() or self.claimed not in (None, (os.getpid(), threading.get_ident())):
            return None
        self.claimed = (os.getpid(), threading.get_ident())
        diagram = _KeptDiagram.__new__(_KeptDiagram)
        diagram.systems = _index(self.root, {})
        diagram.objects = {index: obj for index, obj in self.memo.values()}
        return diagram


_ORIGINALS: "weakref.WeakValueDictionary[bytes, _Original]" = weakref.WeakValueDictionary()  # digest: original

_kept = threading.local()


def _diagram_of(digest: bytes, blob: bytes) -> _KeptDiagram:
    """The diagram `blob`, unpickled once per worker thread and kept."""
    kept = getattr(_kept, "diagrams", None)
    if kept is None:
        kept = _kept.diagrams = collections.OrderedDict()
    diagram = kept.get(digest)
    if diagram is None:
        original = _ORIGINALS.get(digest)
        diagram = original.Claim() if original is not None else None
        diagram = kept[digest] = diagram if diagram is not None else _KeptDiagram(blob)
        while len(kept) > _KEPT_DIAGRAMS:
            kept.popitem(last=False)
    else:
        kept.move_to_end(digest)
    return diagram


def Unpack(shipment: Shipment) -> Any:
    """The payload of `shipment`, its system references bound to this worker's copies of the diagrams (a kept
    payload: the copy this thread unpickled before, while it still refers to the diagrams this thread keeps)."""
    systems: dict = {}
    objects: dict = {}
    bound = []
    for root_id, (digest, blob) in shipment.diagrams.items():
        diagram = _diagram_of(digest, blob)
        bound.append(diagram)
        systems.update(diagram.systems)
        objects[root_id] = diagram.objects
    if shipment.digest is not None:
        kept = getattr(_kept, "payloads", None)
        if kept is None:
            kept = _kept.payloads = collections.OrderedDict()
        entry = kept.get(shipment.digest)
        if entry is not None and len(entry[1]) == len(bound) and all(a is b for a, b in zip(entry[1], bound)):
            kept.move_to_end(shipment.digest)
            return entry[0]
    outer = getattr(_loading, "systems", None), getattr(_loading, "objects", None)
    _loading.systems, _loading.objects = systems, objects
    try:
        obj = pickle.loads(shipment.payload)
    finally:
        _loading.systems, _loading.objects = outer
    if shipment.digest is not None:
        kept[shipment.digest] = (obj, bound)
        while len(kept) > _KEPT_DIAGRAMS:
            kept.popitem(last=False)
    return obj
