"""Signal routing: PassThrough, Multiplexer, Demultiplexer (pydrake.systems.primitives)."""
from __future__ import annotations

from functools import partial

import numpy as np

from mallard.systems.framework import AbstractValue, BasicVector, LeafSystem, VectorBase
from ._util import as_vector, input_data, one_argument, positive_int


class PassThrough(LeafSystem):
    """y = u (direct feedthrough); when u is unconnected y is the model value (zeros by default).

    `PassThrough(vector_size)`, `PassThrough(value: vector)` or `PassThrough(abstract_model_value)`.
    """

    def __init__(self, *args, vector_size: int | None = None, value=None, abstract_model_value=None) -> None:
        super().__init__()
        arg = one_argument("PassThrough", args, vector_size=vector_size, value=value,
                           abstract_model_value=abstract_model_value)
        if isinstance(arg, AbstractValue):
            self._abstract = True
            self._model = arg.Clone()
            self.DeclareAbstractInputPort("u", self._model, required=False)
            self.DeclareAbstractOutputPort("y", self._model.Clone, self._calc_abstract,
                                           {self.all_input_ports_ticket()})
            return
        self._abstract = False
        if isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
            self._model = np.zeros(positive_int(arg, "PassThrough: vector_size", allow_zero=True))
        else:
            self._model = (arg.CopyToVector() if isinstance(arg, VectorBase)
                           else as_vector(arg, "PassThrough: value"))
        n = self._model.shape[0]
        self.DeclareVectorInputPort("u", n, required=False)
        self.DeclareVectorOutputPort("y", n, self._calc_vector, {self.all_input_ports_ticket()})

    def _calc_vector(self, context, output) -> None:
        raw = self._eval_input_raw(context, 0)
        output._data[:] = self._model if raw is None else raw._data

    def _calc_abstract(self, context, output) -> None:
        raw = self._eval_input_raw(context, 0)
        output.SetFrom(self._model if raw is None else raw)


class Multiplexer(LeafSystem):
    """y0 = [u0; u1; ...]: `Multiplexer(num_scalar_inputs)`, `(input_sizes: list)` or `(model_vector)`."""

    def __init__(self, *args, num_scalar_inputs: int | None = None, input_sizes=None, model_vector=None) -> None:
        super().__init__()
        arg = one_argument("Multiplexer", args, num_scalar_inputs=num_scalar_inputs, input_sizes=input_sizes,
                           model_vector=model_vector)
        model = None
        if isinstance(arg, VectorBase):
            model = arg
            sizes = [1] * arg.size()
        elif isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
            sizes = [1] * positive_int(arg, "Multiplexer: num_scalar_inputs")
        else:
            sizes = [positive_int(s, "Multiplexer: each input size", allow_zero=True) for s in arg]
            if not sizes:
                raise ValueError("Multiplexer: input_sizes must not be empty")
        self._sizes = sizes
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        for i, s in enumerate(sizes):
            self.DeclareVectorInputPort(f"u{i}", s)
        total = int(self._offsets[-1])
        out_model = model.Clone() if model is not None else BasicVector(total)
        self.DeclareVectorOutputPort("y0", out_model, self._calc, {self.all_input_ports_ticket()})

    def _calc(self, context, output) -> None:
        y = output._data
        off = self._offsets
        for i in range(len(self._sizes)):
            y[off[i]:off[i + 1]] = input_data(self, context, i)


class Demultiplexer(LeafSystem):
    """Splits u0 into y0, y1, ...: `Demultiplexer(size, output_ports_size=1)` or `(output_ports_sizes: list)`."""

    def __init__(self, *args, size: int | None = None, output_ports_size: int | None = None,
                 output_ports_sizes=None) -> None:
        super().__init__()
        if len(args) == 2:  # (size, output_ports_size) positionally
            args, output_ports_size = args[:1], args[1]
        size_or_sizes = one_argument("Demultiplexer", args, size=size, output_ports_sizes=output_ports_sizes)
        output_ports_size = 1 if output_ports_size is None else output_ports_size
        if isinstance(size_or_sizes, (int, np.integer)) and not isinstance(size_or_sizes, bool):
            size = positive_int(size_or_sizes, "Demultiplexer: size")
            k = positive_int(output_ports_size, "Demultiplexer: output_ports_size")
            if size % k:
                raise ValueError(f"Demultiplexer: output_ports_size ({k}) must divide size ({size}) exactly")
            sizes = [k] * (size // k)
        else:
            sizes = [positive_int(s, "Demultiplexer: each output port size") for s in size_or_sizes]
            if not sizes:
                raise ValueError("Demultiplexer: output_ports_sizes must not be empty")
        self._sizes = sizes
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.DeclareVectorInputPort("u0", int(self._offsets[-1]))
        for i, s in enumerate(sizes):
            self.DeclareVectorOutputPort(f"y{i}", s, partial(self._CalcOutput, a=int(self._offsets[i]),
                                                             b=int(self._offsets[i + 1])),
                                         {self.all_input_ports_ticket()})

    def _CalcOutput(self, context, output, a: int, b: int) -> None:
        """Output = input[a:b] (a partial of a method, not a closure over the system: see weak_owner)."""
        output._data[:] = input_data(self, context, 0)[a:b]

    def get_output_ports_sizes(self) -> list[int]:
        return list(self._sizes)
