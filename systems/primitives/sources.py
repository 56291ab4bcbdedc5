"""Signal sources: ConstantVectorSource, ConstantValueSource, Sine, TrajectorySource (pydrake.systems.primitives)."""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import AbstractValue, BasicVector, LeafSystem, Value
from ._util import as_vector, input_data, positive_int


class ConstantVectorSource(LeafSystem):
    """Outputs y0 = source_value at all times; the value is a numeric parameter of the context."""

    def __init__(self, source_value) -> None:
        super().__init__()
        value = as_vector(source_value, "ConstantVectorSource: source_value")
        self._param = self.DeclareNumericParameter(BasicVector(value))
        self.DeclareVectorOutputPort("y0", value.shape[0], self._calc, {self.all_parameters_ticket()})

    def _calc(self, context, output) -> None:
        output._data[:] = context.get_numeric_parameter(self._param)._data

    def get_source_value(self, context) -> BasicVector:
        """The parameter holding the output value (a BasicVector view into `context`)."""
        self.ValidateContext(context)
        return context.get_numeric_parameter(self._param)

    def get_mutable_source_value(self, context) -> BasicVector:
        """Writable view of the output value parameter."""
        self.ValidateContext(context)
        return context.get_mutable_numeric_parameter(self._param)


class ConstantValueSource(LeafSystem):
    """Outputs a copy of a constant abstract value on y0."""

    def __init__(self, value) -> None:
        super().__init__()
        self._value = value if isinstance(value, AbstractValue) else Value(value)
        self.DeclareAbstractOutputPort("y0", self._value.Clone, self._calc, {self.nothing_ticket()})

    def _calc(self, context, output) -> None:
        output.SetFrom(self._value)


class Sine(LeafSystem):
    """y0 = a sin(w t + p), y1 = a w cos(w t + p), y2 = -a w^2 sin(w t + p), elementwise (w in rad/s).

    With `is_time_based=False` the "time" t is read from an input port u0 of the same size.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        vector_form = "amplitudes" in kwargs or (bool(args) and np.ndim(args[0]) > 0)
        form = (("amplitudes", "frequencies", "phases", "is_time_based") if vector_form
                else ("amplitude", "frequency", "phase", "size", "is_time_based"))
        if len(args) > len(form):
            raise TypeError(f"Sine: too many arguments; the signature is Sine({', '.join(form)})")
        vals = dict(zip(form, args))
        for k, v in kwargs.items():
            if k not in form or k in vals:
                raise TypeError(f"Sine: unexpected or repeated argument '{k}'; the signature is Sine({', '.join(form)})")
            vals[k] = v
        missing = [n for n in form[:-1] if n not in vals]
        if missing:
            raise TypeError(f"Sine: missing {missing}; use Sine(amplitude, frequency, phase, size) or "
                            "Sine(amplitudes, frequencies, phases)")
        is_time_based = vals.get("is_time_based", True)
        if vector_form:
            a = as_vector(vals["amplitudes"], "Sine: amplitudes")
            w = as_vector(vals["frequencies"], "Sine: frequencies")
            p = as_vector(vals["phases"], "Sine: phases")
            if not (a.shape == w.shape == p.shape) or a.size == 0:
                raise ValueError(f"Sine: amplitudes, frequencies and phases must be non-empty and the same size, "
                                 f"got {a.size}, {w.size}, {p.size}")
        else:
            size = positive_int(vals["size"], "Sine: size")
            a = np.full(size, float(vals["amplitude"]))
            w = np.full(size, float(vals["frequency"]))
            p = np.full(size, float(vals["phase"]))
        self._a, self._w, self._p = a, w, p
        self._is_time_based = bool(is_time_based)
        n = a.shape[0]
        if self._is_time_based:
            prereq = {self.time_ticket()}
        else:
            self.DeclareVectorInputPort("u0", n)
            prereq = {self.all_input_ports_ticket()}
        self.DeclareVectorOutputPort("y0", n, self._calc_y0, prereq)
        self.DeclareVectorOutputPort("y1", n, self._calc_y1, prereq)
        self.DeclareVectorOutputPort("y2", n, self._calc_y2, prereq)

    def _arg(self, context) -> np.ndarray:
        t = context.get_time() if self._is_time_based else input_data(self, context, 0)
        return self._w * t + self._p

    def _calc_y0(self, context, output) -> None:
        output._data[:] = self._a * np.sin(self._arg(context))

    def _calc_y1(self, context, output) -> None:
        output._data[:] = self._a * self._w * np.cos(self._arg(context))

    def _calc_y2(self, context, output) -> None:
        output._data[:] = -self._a * self._w * self._w * np.sin(self._arg(context))

    def amplitude(self) -> float:
        return float(self._a[0])

    def frequency(self) -> float:
        return float(self._w[0])

    def phase(self) -> float:
        return float(self._p[0])

    def is_time_based(self) -> bool:
        return self._is_time_based

    def amplitude_vector(self) -> np.ndarray:
        return self._a.copy()

    def frequency_vector(self) -> np.ndarray:
        return self._w.copy()

    def phase_vector(self) -> np.ndarray:
        return self._p.copy()


class TrajectorySource(LeafSystem):
    """Outputs y0 = [q(t); q'(t); ...; q^(k)(t)] from a column-vector Trajectory q (k = output_derivative_order).

    With `zero_derivatives_beyond_limits` (default) the derivatives are zero for t outside
    [start_time, end_time]; the value itself is the trajectory's own (clamped) value there.
    """

    def __init__(self, trajectory, output_derivative_order: int = 0,
                 zero_derivatives_beyond_limits: bool = True) -> None:
        super().__init__()
        self._order = positive_int(output_derivative_order, "TrajectorySource: output_derivative_order",
                                   allow_zero=True)
        self._clamp = bool(zero_derivatives_beyond_limits)
        self._set(trajectory)
        self._rows = trajectory.rows()
        self.DeclareVectorOutputPort("y0", self._rows * (self._order + 1), self._calc, {self.time_ticket()})

    def _set(self, trajectory) -> None:
        if trajectory.cols() != 1:
            raise ValueError(f"TrajectorySource: the trajectory must be a column vector (cols() == 1), "
                             f"got {trajectory.rows()}x{trajectory.cols()}")
        if self._order > 0 and not trajectory.has_derivative():
            raise ValueError("TrajectorySource: output_derivative_order > 0 needs a trajectory with derivatives")
        self._trajectory = trajectory.Clone()
        self._derivatives = [self._trajectory.MakeDerivative(k) for k in range(1, self._order + 1)]

    def UpdateTrajectory(self, trajectory) -> None:
        """Replace the trajectory by one of the same size (rows x 1)."""
        if trajectory.rows() != self._rows or trajectory.cols() != 1:
            raise ValueError(f"TrajectorySource.UpdateTrajectory: the new trajectory is "
                             f"{trajectory.rows()}x{trajectory.cols()}, this source outputs {self._rows}x1")
        self._set(trajectory)

    def _calc(self, context, output) -> None:
        t = context.get_time()
        y = output._data
        n = self._rows
        y[:n] = self._trajectory.value(t)[:, 0]
        if self._order:
            traj = self._trajectory
            outside = self._clamp and (t < traj.start_time() or t > traj.end_time())
            for k, d in enumerate(self._derivatives, start=1):
                y[k * n:(k + 1) * n] = 0.0 if outside else d.value(t)[:, 0]
