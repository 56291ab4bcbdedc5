"""BusCreator and BusSelector: bundle named signals onto one BusValue port and take them apart again
(pydrake.systems.primitives). Port names are the signal names."""
from __future__ import annotations

from typing import Any

from mallard.systems.framework import AbstractValue, BasicVector, LeafSystem, Value
from mallard.systems.framework.bus_value import BusValue
from mallard.systems.framework.ports import PortDataType, UseDefaultName

__all__ = ["BusCreator", "BusSelector"]


def _port_name(name: Any, default: str) -> str:
    return default if name is None or isinstance(name, UseDefaultName) else str(name)


class BusCreator(LeafSystem):
    """Output: a BusValue holding every connected (or fixed) input under the input port's name; inputs
    with no value are left out. Declare the inputs with DeclareVectorInputPort / DeclareAbstractInputPort."""

    def __init__(self, output_port_name: Any = None) -> None:
        super().__init__()
        self.DeclareAbstractOutputPort(_port_name(output_port_name, "y0"), lambda: Value(BusValue()), self._calc,
                                       {self.all_input_ports_ticket()})

    def DeclareVectorInputPort(self, name: Any, size: int):
        """A vector input carried on the bus under the port's name (default `u<index>`)."""
        return super().DeclareVectorInputPort(name, size, required=False)

    def DeclareAbstractInputPort(self, name: Any, model_value: AbstractValue):
        """An abstract input carried on the bus under the port's name (default `u<index>`)."""
        return super().DeclareAbstractInputPort(name, model_value, required=False)

    def _calc(self, context, output) -> None:
        bus = output.get_mutable_value()
        bus.Clear()
        for port in self._input_ports:
            raw = self._eval_input_raw(context, port.get_index())
            if raw is None:
                continue
            if port.get_data_type() == PortDataType.kVectorValued:
                bus.Set(port.get_name(), Value(BasicVector(raw.CopyToVector())))
            else:
                bus.Set(port.get_name(), raw)


class BusSelector(LeafSystem):
    """Input: a BusValue; each declared output is the bus signal of the output port's name (an error when the
    bus lacks it)."""

    def __init__(self, input_port_name: Any = None) -> None:
        super().__init__()
        self.DeclareAbstractInputPort(_port_name(input_port_name, "u0"), Value(BusValue()))

    def _signal(self, context, name: str):
        bus = self.get_input_port(0).Eval(context)
        value = bus.Find(name)
        if value is None:
            raise RuntimeError(f"{self.GetSystemPathname()}: the input bus has no signal named {name!r}; it has "
                               f"{list(bus)}")
        return value

    def DeclareVectorOutputPort(self, name: Any, size: int):
        """A vector output taken from the bus signal of the port's name (default `y<index>`)."""
        index = len(self._output_ports)
        port_name = _port_name(name, f"y{index}")

        def calc(context, output):
            value = self._signal(context, port_name)
            output.SetFromVector(value.CopyToVector() if hasattr(value, "CopyToVector") else value)
        return super().DeclareVectorOutputPort(port_name, size, calc, {self.all_input_ports_ticket()})

    def DeclareAbstractOutputPort(self, name: Any, model_value: AbstractValue):
        """An abstract output taken from the bus signal of the port's name (default `y<index>`)."""
        index = len(self._output_ports)
        port_name = _port_name(name, f"y{index}")

        def calc(context, output):
            output.set_value(self._signal(context, port_name))
        return super().DeclareAbstractOutputPort(port_name, model_value.Clone, calc, {self.all_input_ports_ticket()})
