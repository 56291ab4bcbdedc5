"""Input and output ports (pydrake semantics: vector `Eval` returns a fresh copy)."""
from __future__ import annotations

from typing import Any, Callable


import numpy as np

from mallard.common.cpp_enum import CppEnum

from .basic_vector import BasicVector, VectorBase
from .cache import CachedSlot, OutputPortCacheEntry
from .context import fixed_inputs_changed
from .dependency import DependencyTicket
from .portable import PortableSlots
from .weak_owner import owner_gone, split_bound, weak_system_property
from mallard.common.value import AbstractValue, Value

__all__ = [
    "PortDataType", "InputPortSelection", "OutputPortSelection", "UseDefaultName", "kUseDefaultName",
    "InputPort", "OutputPort", "LeafOutputPort", "DiagramOutputPort", "FixedInputPortValue",
]


class PortDataType(CppEnum):
    kVectorValued = 0
    kAbstractValued = 1


class InputPortSelection(CppEnum):
    kNoInput = -1
    kUseFirstInputIfItExists = -2


class OutputPortSelection(CppEnum):
    kNoOutput = -1
    kUseFirstOutputIfItExists = -2


class UseDefaultName:
    """Sentinel type of `kUseDefaultName`."""

    def __repr__(self) -> str:
        return "kUseDefaultName"


kUseDefaultName = UseDefaultName()


class FixedInputPortValue:
    """A value fixed on an input port of a context (`InputPort.FixValue`)."""

    __slots__ = ("_value", "_context")

    def __init__(self, value: Any, context: Any) -> None:
        self._value = value  # a BasicVector (vector port) or an AbstractValue (abstract port)
        self._context = context

    def get_value(self) -> AbstractValue:
        return self._value if isinstance(self._value, AbstractValue) else Value(self._value)

    def GetMutableData(self) -> AbstractValue:
        fixed_inputs_changed(self._context)
        return self.get_value()

    def GetMutableVectorData(self) -> BasicVector:
        if not isinstance(self._value, VectorBase):
            raise RuntimeError("GetMutableVectorData: this fixed value is abstract, not a vector")
        fixed_inputs_changed(self._context)
        return self._value


class _PortBase(PortableSlots):
    """A port holds its system through a weak reference (`_sysref`; see weak_owner), so that a system is freed by
    reference counting; `_system` reads it (a clear error once the system was deleted)."""

    __slots__ = ("_sysref", "_sysid", "_index", "_name", "_data_type", "_size", "_model", "__weakref__")

    _system = weak_system_property(lambda port: f"port '{port._name}'")

    def get_name(self) -> str:
        return self._name

    def get_index(self):
        return self._index

    def size(self) -> int:
        return self._size

    def get_data_type(self) -> PortDataType:
        return self._data_type

    def get_system(self):
        return self._system

    def _path(self) -> str:
        return f"{self._system.GetSystemPathname()}/{self._name}"

    def _check(self, context, method: str) -> None:
        """Validates `context` (cheaply; the message is only built on failure)."""
        if getattr(context, "_system_id", None) != self._sysid or context._root is None:
            kind = "InputPort" if isinstance(self, InputPort) else "OutputPort"
            self._system._check_context(context, f"{kind}[{int(self._index)}] ({self._name}).{method}")


class InputPort(_PortBase):
    """An input port of a System. `Eval` pulls the connected (or fixed) value."""

    __slots__ = ("_ticket", "_required", "_random_type")

    def __init__(self, system, index, name: str, data_type: PortDataType, size: int, model: Any,
                 required: bool = True, random_type: Any = None) -> None:
        self._system, self._index, self._name = system, index, name
        self._data_type, self._size, self._model = data_type, size, model
        self._ticket = DependencyTicket(input_port=int(index), name=f"input_port_ticket({int(index)})")
        self._required = required
        self._random_type = random_type

    def ticket(self) -> DependencyTicket:
        return self._ticket

    def is_random(self) -> bool:
        return self._random_type is not None

    def get_random_type(self):
        return self._random_type

    def GetFullDescription(self) -> str:
        return (f"InputPort[{int(self._index)}] ({self._name}) of System {self._system.GetSystemPathname()} "
                f"({type(self._system).__name__})")

    def Eval(self, context) -> Any:
        """The value: a fresh numpy copy for a vector port, the Python object for an abstract port."""
        self._check(context, "Eval")
        system = self._sysref()
        if system is None:
            raise owner_gone(f"InputPort '{self._name}'.Eval")
        raw = system._eval_input_raw(context, self._index)
        if raw is None:
            raise RuntimeError(f"{self.GetFullDescription()} is not connected and has no fixed value. "
                               "Connect it in a DiagramBuilder or call FixValue(context, value) on it.")
        if self._data_type == PortDataType.kVectorValued:
            return raw._data.copy()
        return raw.get_value()

    def EvalBasicVector(self, context) -> VectorBase:
        self._require_vector("EvalBasicVector")
        return self._system.EvalVectorInput(context, self._index)

    def EvalAbstract(self, context) -> AbstractValue:
        self._check(context, "EvalAbstract")
        raw = self._system._eval_input_raw(context, self._index)
        if raw is None:
            raise RuntimeError(f"{self.GetFullDescription()} is not connected and has no fixed value.")
        return raw if isinstance(raw, AbstractValue) else Value(raw)

    def HasValue(self, context) -> bool:
        self._check(context, "HasValue")
        return self._system._input_source(context, self._index)[0] != 2

    def FixValue(self, context, value: Any) -> FixedInputPortValue:
        """Fixes this port's value in `context` (a vector, list, float, BasicVector or any object)."""
        self._check(context, "FixValue")
        if self._data_type == PortDataType.kVectorValued:
            stored: Any = BasicVector(self._vector_data(value))
        else:
            model = self._model if isinstance(self._model, AbstractValue) else Value(self._model)
            if isinstance(value, AbstractValue):
                if type(value) is not type(model):
                    raise RuntimeError(f"FixValue on {self.GetFullDescription()}: the port holds {type(model).__name__}"
                                       f", got a {type(value).__name__}")
                stored = value.Clone()
            else:
                stored = model.Clone()
                stored.set_value(value)  # TypeError when `value` is not of the port's type
        fixed = FixedInputPortValue(stored, context)
        context._fixed_inputs[int(self._index)] = fixed
        fixed_inputs_changed(context)
        return fixed

    def _vector_data(self, value: Any) -> np.ndarray:
        """FixValue's vector: from an array, list, scalar, BasicVector or Value[BasicVector]; a wrong size is a
        RuntimeError and a non-numeric value a TypeError (pydrake's exceptions)."""
        if isinstance(value, AbstractValue):
            value = value.get_value()
            if not isinstance(value, VectorBase):
                raise RuntimeError(f"FixValue on {self.GetFullDescription()}: the port is vector-valued, got a "
                                   f"Value holding {type(value).__name__}")
        if isinstance(value, (str, bytes)):
            raise TypeError(f"FixValue on {self.GetFullDescription()}: the port is vector-valued, got {value!r:.40}")
        try:
            arr = np.asarray(value._data if isinstance(value, VectorBase) else value, dtype=float).reshape(-1)
        except (TypeError, ValueError) as e:
            raise TypeError(f"FixValue on {self.GetFullDescription()}: the port is vector-valued, got "
                            f"{type(value).__name__} ({e})") from None
        if arr.shape[0] != self._size:
            raise RuntimeError(f"FixValue on {self.GetFullDescription()}: expected a vector of size {self._size}, "
                               f"got size {arr.shape[0]}")
        return arr

    def Allocate(self) -> AbstractValue:
        if self._data_type == PortDataType.kVectorValued:
            return Value(BasicVector(self._size))
        return self._model.Clone()

    def _require_vector(self, what: str) -> None:
        if self._data_type != PortDataType.kVectorValued:
            raise RuntimeError(f"{what}: {self.GetFullDescription()} is abstract-valued")

    def __repr__(self) -> str:
        return f"<InputPort {self._path() if self._sysref() is not None else self._name}>"


class OutputPort(_PortBase):
    """An output port of a System. `Eval` returns a fresh copy for vector ports."""

    __slots__ = ()

    def Eval(self, context) -> Any:
        self._check(context, "Eval")
        raw = self._eval(context)
        if self._data_type == PortDataType.kVectorValued:
            return raw._data.copy()
        return raw.get_value()

    def EvalBasicVector(self, context) -> VectorBase:
        self._check(context, "EvalBasicVector")
        if self._data_type != PortDataType.kVectorValued:
            raise RuntimeError(f"EvalBasicVector: output port {self._path()} is abstract-valued")
        return self._eval(context)

    def EvalAbstract(self, context) -> AbstractValue:
        self._check(context, "EvalAbstract")
        raw = self._eval(context)
        return raw if isinstance(raw, AbstractValue) else Value(raw)

    def Allocate(self) -> AbstractValue:
        """A new value of this port's type (a diagram port allocates through the port it forwards)."""
        return self._source.Allocate()

    def GetFullDescription(self) -> str:
        return (f"OutputPort[{int(self._index)}] ({self._name}) of System {self._system.GetSystemPathname()} "
                f"({type(self._system).__name__})")

    def __repr__(self) -> str:
        return f"<OutputPort {self._path() if self._sysref() is not None else self._name}>"


class LeafOutputPort(CachedSlot, OutputPort):
    """An output computed by a calc callback into a value cached in the leaf context."""

    __slots__ = ("_alloc", "_calc", "_calc_self", "_slot", "_kinds", "_pair", "_all", "_prerequisites",
                 "_is_state_port", "_disabled_by_default")

    def __init__(self, system, index, name: str, data_type: PortDataType, size: int,
                 alloc: Callable[[], Any], calc: Callable, slot: int, prerequisites: set) -> None:
        self._system, self._index, self._name = system, index, name
        self._data_type, self._size, self._model = data_type, size, None
        # a calc bound to the system is kept as its function plus a weak reference (weak_owner)
        self._calc, self._calc_self = split_bound(calc, system)
        self._alloc, self._slot = alloc, slot
        self._prerequisites = prerequisites
        self._kinds: tuple = ()
        self._pair: tuple | None = None
        self._all = True
        self._is_state_port = False
        self._disabled_by_default = False

    def cache_entry(self) -> OutputPortCacheEntry:
        """The cache entry holding this port's value in each context."""
        return OutputPortCacheEntry(self)

    def disable_caching_by_default(self) -> None:
        self._disabled_by_default = True

    def Allocate(self) -> AbstractValue:
        value = self._alloc()
        return value if isinstance(value, AbstractValue) else Value(value)

    def _describe(self) -> str:
        return f"output {self._path()}"

    def _leaf_source(self, context):
        return self, context


class DiagramOutputPort(OutputPort):
    """An output of a Diagram, forwarded from an output port of one of its subsystems."""

    __slots__ = ("_child_index", "_source")

    def __init__(self, diagram, index, name: str, child_index: int, source: OutputPort) -> None:
        self._system, self._index, self._name = diagram, index, name
        self._data_type, self._size, self._model = source._data_type, source._size, None
        self._child_index, self._source = child_index, source

    def _eval(self, context):
        return self._source._eval(context._children[self._child_index])

    def _leaf_source(self, context):
        return self._source._leaf_source(context._children[self._child_index])
