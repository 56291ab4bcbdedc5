"""Shipping work to worker processes: a payload that refers to systems carries each diagram once per worker.

A payload (a simulator, a function closing over a plant, ...) is pickled with every System in it replaced by a
reference (its system id); the diagrams those systems belong to are pickled once per sweep and travel beside the
payload. A worker unpickles a diagram the first time it meets it and keeps it (per thread, a few at a time), so a
1000-sample Monte Carlo moves a 200 kB diagram to each worker once and a few kB of context per sample. Payloads
are pickled with cloudpickle (shipped with dask.distributed), so functions and classes of a user's script travel
by value, as Dask itself sends them.
"""
from __future__ import annotations

import collections
import hashlib
import io
import pickle
import threading
from dataclasses import dataclass
from typing import Any

import cloudpickle

from mallard.systems.framework.system import System

__all__ = ["Shipment", "Shipper", "Unpack"]

_KEPT_DIAGRAMS = 4  # diagrams a worker thread keeps unpickled (a sweep over a few models reuses them)


@dataclass(frozen=True)
class Shipment:
    """A pickled payload plus the pickled diagrams it refers to ({root system id: (digest, bytes)})."""

    payload: bytes
    diagrams: dict


def _root(system: System) -> System:
    while system._parent_diagram is not None:
        system = system._parent_diagram
    return system


class _SystemRefPickler(cloudpickle.Pickler):
    """cloudpickle, with every built System stored as a reference to its diagram's shipped copy."""

    def __init__(self, file, shipper: "Shipper", roots: set) -> None:
        super().__init__(file)
        self._shipper, self._roots = shipper, roots

    def persistent_id(self, obj: Any):
        if not isinstance(obj, System) or obj._owner_builder is not None:
            return None
        root = _root(obj)
        self._shipper._diagram(root)
        self._roots.add(root._system_id)
        return ("mallard.System", obj._system_id)


class Shipper:
    """Packs payloads for one sweep; pickles each diagram once (systems must not change during the sweep)."""

    def __init__(self) -> None:
        self._diagrams: dict[int, tuple[bytes, bytes]] = {}

    def _diagram(self, root: System) -> None:
        if root._system_id not in self._diagrams:
            blob = cloudpickle.dumps(root)
            self._diagrams[root._system_id] = (hashlib.blake2b(blob, digest_size=16).digest(), blob)

    def Pack(self, obj: Any) -> Shipment:
        buffer, roots = io.BytesIO(), set()
        _SystemRefPickler(buffer, self, roots).dump(obj)
        return Shipment(buffer.getvalue(), {r: self._diagrams[r] for r in sorted(roots)})


class _SystemRefUnpickler(pickle.Unpickler):
    def __init__(self, file, systems: dict) -> None:
        super().__init__(file)
        self._systems = systems

    def persistent_load(self, pid):
        kind, system_id = pid
        if kind != "mallard.System" or system_id not in self._systems:
            raise pickle.UnpicklingError(f"shipped payload refers to system id {system_id}, which none of the "
                                         "diagrams shipped with it contains")
        return self._systems[system_id]


def _index(system: System, out: dict) -> dict:
    out[system._system_id] = system
    for child in getattr(system, "_diagram_systems", ()):
        _index(child, out)
    return out


_kept = threading.local()


def _systems_of(digest: bytes, blob: bytes) -> dict:
    """{system id: system} of the diagram `blob`, unpickled once per worker thread and kept."""
    kept = getattr(_kept, "diagrams", None)
    if kept is None:
        kept = _kept.diagrams = collections.OrderedDict()
    systems = kept.get(digest)
    if systems is None:
        systems = kept[digest] = _index(pickle.loads(blob), {})
        while len(kept) > _KEPT_DIAGRAMS:
            kept.popitem(last=False)
    else:
        kept.move_to_end(digest)
    return systems


def Unpack(shipment: Shipment) -> Any:
    """The payload of `shipment`, its system references bound to this worker's copies of the diagrams."""
    systems: dict = {}
    for digest, blob in shipment.diagrams.values():
        systems.update(_systems_of(digest, blob))
    return _SystemRefUnpickler(io.BytesIO(shipment.payload), systems).load()
