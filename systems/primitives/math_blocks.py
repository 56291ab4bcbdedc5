"""Memoryless math blocks: Adder, Gain, Saturation, WrapToSystem (pydrake.systems.primitives)."""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import LeafSystem
from ._util import as_vector, input_data, positive_int


class Adder(LeafSystem):
    """sum = u0 + u1 + ... + u(num_inputs-1), every port of the same `size`."""

    def __init__(self, num_inputs: int, size: int) -> None:
        super().__init__()
        self._num_inputs = positive_int(num_inputs, "Adder: num_inputs")
        self._size = positive_int(size, "Adder: size", allow_zero=True)
        for i in range(self._num_inputs):
            self.DeclareVectorInputPort(f"u{i}", self._size)
        self.DeclareVectorOutputPort("sum", self._size, self._calc, {self.all_input_ports_ticket()})

    def _calc(self, context, output) -> None:
        y = output._data
        y[:] = input_data(self, context, 0)
        for i in range(1, self._num_inputs):
            y += input_data(self, context, i)


class Gain(LeafSystem):
    """y0 = k * u0 elementwise: `Gain(k, size)` (same gain everywhere) or `Gain(k: vector)`."""

    def __init__(self, k, size: int | None = None) -> None:
        super().__init__()
        if size is None:
            self._k = as_vector(k, "Gain: k")
            if self._k.size == 0:
                raise ValueError("Gain: the gain vector k must not be empty")
        else:
            self._k = np.full(positive_int(size, "Gain: size", allow_zero=True), float(k))
        n = self._k.shape[0]
        self.DeclareVectorInputPort("u0", n)
        self.DeclareVectorOutputPort("y0", n, self._calc, {self.all_input_ports_ticket()})

    def _calc(self, context, output) -> None:
        np.multiply(self._k, input_data(self, context, 0), out=output._data)

    def get_gain(self) -> float:
        """The gain, when it is the same for every element (else RuntimeError)."""
        if not np.all(self._k == self._k[0]):
            raise RuntimeError(f"Gain.get_gain: the gains differ per element {self._k}; use get_gain_vector()")
        return float(self._k[0])

    def get_gain_vector(self) -> np.ndarray:
        return self._k.copy()


class Saturation(LeafSystem):
    """y0 = min(max(u0, min_value), max_value) elementwise."""

    def __init__(self, min_value, max_value) -> None:
        super().__init__()
        lo = as_vector(min_value, "Saturation: min_value")
        hi = as_vector(max_value, "Saturation: max_value")
        if lo.shape != hi.shape or lo.size == 0:
            raise ValueError(f"Saturation: min_value (size {lo.size}) and max_value (size {hi.size}) must be "
                             "non-empty and the same size")
        if np.any(lo > hi):
            raise ValueError(f"Saturation: min_value must be <= max_value elementwise, got {lo} and {hi}")
        self._lo, self._hi = lo, hi
        self.DeclareVectorInputPort("u0", lo.shape[0])
        self.DeclareVectorOutputPort("y0", lo.shape[0], self._calc, {self.all_input_ports_ticket()})

    def _calc(self, context, output) -> None:
        np.clip(input_data(self, context, 0), self._lo, self._hi, out=output._data)


class WrapToSystem(LeafSystem):
    """y0 = u0 with selected elements wrapped into [low, high) (see set_interval); others pass through."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self._size = positive_int(size, "WrapToSystem: size")
        self._low = np.full(self._size, np.nan)
        self._high = np.full(self._size, np.nan)
        self._mask = np.zeros(self._size, dtype=bool)
        self.DeclareVectorInputPort("u0", self._size)
        self.DeclareVectorOutputPort("y0", self._size, self._calc, {self.all_input_ports_ticket()})

    def set_interval(self, index: int, low: float, high: float) -> None:
        """Wrap element `index` into [low, high); needs high > low."""
        if not 0 <= int(index) < self._size:
            raise ValueError(f"WrapToSystem.set_interval: index {index} is outside 0..{self._size - 1}")
        if not float(high) > float(low):
            raise ValueError(f"WrapToSystem.set_interval: high ({high}) must be greater than low ({low})")
        self._low[index], self._high[index] = float(low), float(high)
        self._mask[index] = True

    def _calc(self, context, output) -> None:
        u = input_data(self, context, 0)
        y = output._data
        y[:] = u
        m = self._mask
        if m.any():
            lo, rng = self._low[m], self._high[m] - self._low[m]
            r = np.fmod(u[m] - lo, rng)
            y[m] = np.where(r < 0.0, r + rng, r) + lo
