"""`Selector`: routes chosen elements of its vector inputs to its vector outputs, as described by a
`SelectorParams` (pydrake.systems.primitives)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from mallard.systems.framework import LeafSystem

from ._util import input_data

__all__ = ["Selector", "SelectorParams"]


@dataclass(kw_only=True)
class _InputPortParams:
    """One input port: its name and size."""

    name: str | None = None
    size: int = 0

    def __repr__(self) -> str:
        return f"InputPortParams(name={self.name!r}, size={self.size})"


@dataclass(kw_only=True)
class _OutputSelection:
    """One output element: element `input_offset` of input port `input_port_index`."""

    input_port_index: int = 0
    input_offset: int = 0

    def __repr__(self) -> str:
        return f"OutputSelection(input_port_index={self.input_port_index}, input_offset={self.input_offset})"


@dataclass(kw_only=True)
class _OutputPortParams:
    """One output port: its name and, element by element, where each value comes from."""

    name: str | None = None
    selections: list = field(default_factory=list)

    def __repr__(self) -> str:
        return f"OutputPortParams(name={self.name!r}, selections={self.selections!r})"


@dataclass(kw_only=True)
class SelectorParams:
    """The inputs (InputPortParams) and outputs (OutputPortParams) of a Selector."""

    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)

    InputPortParams = _InputPortParams
    OutputSelection = _OutputSelection
    OutputPortParams = _OutputPortParams

    def __repr__(self) -> str:
        return f"SelectorParams(inputs={self.inputs!r}, outputs={self.outputs!r})"


for _cls, _name in ((_InputPortParams, "InputPortParams"), (_OutputSelection, "OutputSelection"),
                    (_OutputPortParams, "OutputPortParams")):
    _cls.__name__, _cls.__qualname__ = _name, f"SelectorParams.{_name}"


class Selector(LeafSystem):
    """Each output element is one element of one input (as the params select); a bad selection is an error
    naming the output and the input it points to."""

    def __init__(self, params: SelectorParams) -> None:
        super().__init__()
        self._params = params
        sizes = []
        for k, spec in enumerate(params.inputs):
            size = int(spec.size)
            if size < 0:
                raise ValueError(f"Selector: input {k} ({spec.name}) has negative size {size}")
            sizes.append(size)
            self.DeclareVectorInputPort(spec.name if spec.name is not None else f"u{k}", size)
        for k, spec in enumerate(params.outputs):
            picks = []
            for selection in spec.selections:
                i, j = int(selection.input_port_index), int(selection.input_offset)
                if not (0 <= i < len(sizes) and 0 <= j < sizes[i]):
                    raise ValueError(f"Selector: output {spec.name!r} selects element {j} of input {i}, which does not "
                                     f"exist (the input sizes are {sizes})")
                picks.append((i, j))
            self.DeclareVectorOutputPort(spec.name if spec.name is not None else f"y{k}", len(picks),
                                         partial(self._CalcOutput, picks=np.array(picks, dtype=int).reshape(-1, 2)),
                                         {self.all_input_ports_ticket()})

    def _CalcOutput(self, context, output, picks: np.ndarray) -> None:
        """The selected input elements (a partial of a method, not a closure over the system: see weak_owner)."""
        data = output.get_mutable_value()
        for k, (i, j) in enumerate(picks):
            data[k] = input_data(self, context, int(i))[j]
