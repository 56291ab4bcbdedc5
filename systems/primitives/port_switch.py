"""`PortSwitch`: passes through the input port selected by an InputPortIndex on `port_selector`
(pydrake.systems.primitives)."""
from __future__ import annotations

from typing import Any

from mallard.systems.framework import AbstractValue, InputPortIndex, LeafSystem, Value

from ._util import positive_int

__all__ = ["PortSwitch"]


class PortSwitch(LeafSystem):
    """`PortSwitch(vector_size)` (vector inputs) or `PortSwitch(model_value)` (abstract inputs); declare the
    inputs with DeclareInputPort(name). The output "value" is the selected input's value."""

    def __init__(self, vector_size: Any = None, *, model_value: AbstractValue | None = None) -> None:
        super().__init__()
        if model_value is None and isinstance(vector_size, AbstractValue):
            vector_size, model_value = None, vector_size
        self._selector = self.DeclareAbstractInputPort("port_selector", Value(InputPortIndex(0)))
        if model_value is not None:
            self._model = model_value
            self.DeclareAbstractOutputPort("value", model_value.Clone, self._calc_abstract,
                                           {self.all_input_ports_ticket()})
        else:
            self._model = None
            self._size = positive_int(vector_size, "PortSwitch: vector_size")
            self.DeclareVectorOutputPort("value", self._size, self._calc_vector, {self.all_input_ports_ticket()})

    def get_port_selector_input_port(self):
        return self._selector

    def DeclareInputPort(self, name: str):
        """A new input that `port_selector` may select (vector of vector_size, or abstract like the model)."""
        if self._model is not None:
            return self.DeclareAbstractInputPort(name, self._model)
        return self.DeclareVectorInputPort(name, self._size)

    def _selected(self, context):
        index = int(self._selector.Eval(context))
        if not 0 < index < self.num_input_ports():
            raise RuntimeError(f"{self.GetSystemPathname()}: port_selector is {index}, which is not one of the "
                               f"switched inputs 1..{self.num_input_ports() - 1}")
        return self.get_input_port(index)

    def _calc_vector(self, context, output) -> None:
        output.SetFromVector(self._selected(context).Eval(context))

    def _calc_abstract(self, context, output) -> None:
        output.SetFrom(self._selected(context).EvalAbstract(context))
