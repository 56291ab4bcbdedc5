"""Continuous-state blocks: Integrator and FirstOrderLowPassFilter (pydrake.systems.primitives)."""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import LeafSystem
from ._util import as_vector, input_data, one_argument, positive_int


class Integrator(LeafSystem):
    """x' = u0, y0 = x: `Integrator(size)` (starts at zero) or `Integrator(initial_value)`."""

    def __init__(self, *args, size: int | None = None, initial_value=None) -> None:
        super().__init__()
        arg = one_argument("Integrator", args, size=size, initial_value=initial_value)
        if isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
            x0 = np.zeros(positive_int(arg, "Integrator: size", allow_zero=True))
        else:
            x0 = as_vector(arg, "Integrator: initial_value")
            if x0.size == 0:
                raise ValueError("Integrator: initial_value must not be empty")
        n = x0.shape[0]
        self.DeclareVectorInputPort("u0", n)
        xc = self.DeclareContinuousState(n)
        self._xc_model = x0.copy()
        self.DeclareStateOutputPort("y0", xc)

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        derivatives._vector._data[:] = input_data(self, context, 0)

    def set_integral_value(self, context, value) -> None:
        """Set the state (the integral) in `context`."""
        self.ValidateContext(context)
        v = as_vector(value, "Integrator.set_integral_value")
        if v.shape[0] != self._xc_model.shape[0]:
            raise ValueError(f"Integrator.set_integral_value: expected size {self._xc_model.shape[0]}, got {v.shape[0]}")
        context.SetContinuousState(v)

    def set_default_integral_value(self, initial_value) -> None:
        """Initial value of the integral in new contexts."""
        v = as_vector(initial_value, "Integrator.set_default_integral_value")
        if v.shape[0] != self._xc_model.shape[0]:
            raise ValueError(f"Integrator.set_default_integral_value: expected size {self._xc_model.shape[0]}, "
                             f"got {v.shape[0]}")
        self._xc_model = v


class FirstOrderLowPassFilter(LeafSystem):
    """x' = (u0 - x) / tau elementwise, y0 = x: `(time_constant, size=1)` or `(time_constants)` (seconds)."""

    def __init__(self, time_constant=None, size: int = 1, *, time_constants=None) -> None:
        super().__init__()
        if time_constants is not None:
            if time_constant is not None:
                raise TypeError("FirstOrderLowPassFilter: give time_constant (and size) or time_constants, not both")
            time_constant = time_constants
        if np.ndim(time_constant) == 0:
            tau = np.full(positive_int(size, "FirstOrderLowPassFilter: size"), float(time_constant))
        else:
            tau = as_vector(time_constant, "FirstOrderLowPassFilter: time_constants")
        if tau.size == 0 or not np.all(tau > 0.0) or not np.all(np.isfinite(tau)):
            raise ValueError(f"FirstOrderLowPassFilter: time constants must be positive and finite, got {tau}")
        self._tau = tau
        n = tau.shape[0]
        self.DeclareVectorInputPort("u0", n)
        xc = self.DeclareContinuousState(n)
        self.DeclareStateOutputPort("y0", xc)

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        x = context._continuous._vector._data
        derivatives._vector._data[:] = (input_data(self, context, 0) - x) / self._tau

    def get_time_constant(self) -> float:
        """The common time constant (RuntimeError if they differ per element)."""
        if not np.all(self._tau == self._tau[0]):
            raise RuntimeError(f"FirstOrderLowPassFilter.get_time_constant: the time constants differ {self._tau}; "
                               "use get_time_constants_vector()")
        return float(self._tau[0])

    def get_time_constants_vector(self) -> np.ndarray:
        return self._tau.copy()

    def set_initial_output_value(self, context, z0) -> None:
        """Set the filter state (= output) in `context`."""
        self.ValidateContext(context)
        v = as_vector(z0, "FirstOrderLowPassFilter.set_initial_output_value")
        if v.shape[0] != self._tau.shape[0]:
            raise ValueError(f"set_initial_output_value: expected size {self._tau.shape[0]}, got {v.shape[0]}")
        context.SetContinuousState(v)
