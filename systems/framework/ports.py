"""Input and output ports (pydrake semantics: vector `Eval` returns a fresh copy)."""
from __future__ import annotations

import enum
from typing import Any, Callable

import numpy as np

from .basic_vector import BasicVector, VectorBase
from .cache import CachedSlot
from .context import fixed_inputs_changed
from .dependency import DependencyTicket
from .portable import PortableSlots
from .value import AbstractValue, Value

__all__ = [
    "PortDataType", "InputPortSelection", "OutputPortSelection", "UseDefaultName", "kUseDefaultName",
    "InputPort", "OutputPort", "LeafOutputPort", "DiagramOutputPort", "FixedInputPortValue",
]


class PortDataType(enum.IntEnum):
    kVectorValued = 0
    kAbstractValued = 1


class InputPortSelection(enum.IntEnum):
    kNoInput = -1
    kUseFirstInputIfItExists = -2


class OutputPortSelection(enum.IntEnum):
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
    __slots__ = ("_system", "_index", "_name", "_data_type", "_size", "_model", "__weakref__")

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
        if getattr(context, "_system_id", None) != self._system._system_id or context._root is None:
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
        raw = self._system._eval_input_raw(context, self._index)
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
            if isinstance(value, AbstractValue):
                value = value.get_value()
            data = value._data if isinstance(value, VectorBase) else value
            arr = np.asarray(data, dtype=float).reshape(-1)
            if arr.shape[0] != self._size:
                raise ValueError(f"FixValue on {self.GetFullDescription()}: expected a vector of size "
                                 f"{self._size}, got size {arr.shape[0]}")
            stored: Any = BasicVector(arr)
        else:
            stored = value.Clone() if isinstance(value, Value) else Value(value)
            model = self._model.get_value() if isinstance(self._model, AbstractValue) else None
            if model is not None and not isinstance(stored.get_value(), type(model)):
                raise ValueError(f"FixValue on {self.GetFullDescription()}: expected a value of type "
                                 f"{type(model).__name__}, got {type(stored.get_value()).__name__}")
        fixed = FixedInputPortValue(stored, context)
        context._fixed_inputs[int(self._index)] = fixed
        fixed_inputs_changed(context)
        return fixed

    def Allocate(self) -> AbstractValue:
        if self._data_type == PortDataType.kVectorValued:
            return Value(BasicVector(self._size))
        return self._model.Clone()

    def _require_vector(self, what: str) -> None:
        if self._data_type != PortDataType.kVectorValued:
            raise RuntimeError(f"{what}: {self.GetFullDescription()} is abstract-valued")

    def __repr__(self) -> str:
        return f"<InputPort {self._path() if self._system else self._name}>"


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

    def GetFullDescription(self) -> str:
        return (f"OutputPort[{int(self._index)}] ({self._name}) of System {self._system.GetSystemPathname()} "
                f"({type(self._system).__name__})")

    def __repr__(self) -> str:
        return f"<OutputPort {self._path() if self._system else self._name}>"


class LeafOutputPort(CachedSlot, OutputPort):
    """An output computed by a calc callback into a value cached in the leaf context."""

    __slots__ = ("_alloc", "_calc", "_slot", "_kinds", "_all", "_prerequisites", "_is_state_port")

    def __init__(self, system, index, name: str, data_type: PortDataType, size: int,
                 alloc: Callable[[], Any], calc: Callable, slot: int, prerequisites: set) -> None:
        self._system, self._index, self._name = system, index, name
        self._data_type, self._size, self._model = data_type, size, None
        self._alloc, self._calc, self._slot = alloc, calc, slot
        self._prerequisites = prerequisites
        self._kinds: tuple = ()
        self._all = True
        self._is_state_port = False

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

    def Allocate(self) -> AbstractValue:
        return self._source.Allocate()

    def _eval(self, context):
        return self._source._eval(context._children[self._child_index])

    def _leaf_source(self, context):
        return self._source._leaf_source(context._children[self._child_index])
