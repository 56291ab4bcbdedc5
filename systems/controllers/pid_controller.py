"""PidController: a continuous-time PID on projected positions and velocities (pydrake.systems.controllers).

With x̃ = P_x·x_est = [q; v] and the desired state x_d = [q_d; v_d] (both of size 2n), the controller has
one continuous state per controlled position, z = ∫(q_d − q) dt, and outputs

    y = P_y · (kp ⊙ (q_d − q) + ki ⊙ z + kd ⊙ (v_d − v)).

Ports: `estimated_state` (size P_x.cols), `desired_state` (size 2n) → `control` (size P_y.rows). The output
reads both inputs (direct feedthrough), as in Drake.
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import InputPort, LeafSystem, OutputPort
from mallard.systems.primitives._util import input_data
from ._checks import matrix, same_size_gains

__all__ = ["PidController"]


class PidController(LeafSystem):
    """PID control of n positions: `(kp, ki, kd)`, `(state_projection, kp, ki, kd)` or
    `(state_projection, output_projection, kp, ki, kd)`; gains are vectors of size n."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        state_projection, output_projection, kp, ki, kd = self._parse(args, kwargs)
        kp_, ki_, kd_ = same_size_gains(kp, ki, kd, "PidController")
        n = kp_.size
        P_x = np.eye(2 * n) if state_projection is None else matrix(state_projection,
                                                                     "PidController: state_projection")
        P_y = np.eye(n) if output_projection is None else matrix(output_projection,
                                                                  "PidController: output_projection")
        if P_x.shape[0] != 2 * n:
            raise ValueError(f"PidController: state projection row dimension mismatch, expecting {2 * n} "
                             f"(= 2 * |kp|), is {P_x.shape[0]}")
        if P_x.shape[1] == 0 and n:
            raise ValueError("PidController: state_projection has no columns (the estimated state would be empty)")
        if P_y.shape[1] != n:
            raise ValueError(f"PidController: output projection column dimension mismatch, expecting {n} "
                             f"(= |kp|), is {P_y.shape[1]}")
        if P_y.shape[0] == 0 and n:
            raise ValueError("PidController: output_projection has no rows (the control output would be empty)")
        self._kp, self._ki, self._kd = kp_, ki_, kd_
        self._n = n
        self._P_x, self._P_y = P_x, P_y
        self._identity_x = P_x.shape == (2 * n, 2 * n) and np.array_equal(P_x, np.eye(2 * n))
        self._identity_y = P_y.shape == (n, n) and np.array_equal(P_y, np.eye(n))
        self._estimated = self.DeclareVectorInputPort("estimated_state", P_x.shape[1])
        self._desired = self.DeclareVectorInputPort("desired_state", 2 * n)
        self.DeclareContinuousState(n)
        self._control = self.DeclareVectorOutputPort("control", P_y.shape[0], self._calc_control)

    @staticmethod
    def _parse(args: tuple, kwargs: dict):
        names = {3: ("kp", "ki", "kd"), 4: ("state_projection", "kp", "ki", "kd"),
                 5: ("state_projection", "output_projection", "kp", "ki", "kd")}
        total = len(args) + len(kwargs)
        if total not in names:
            raise TypeError("PidController takes (kp, ki, kd), (state_projection, kp, ki, kd) or "
                            f"(state_projection, output_projection, kp, ki, kd); got {total} arguments")
        order = names[total]
        values = dict(zip(order, args))
        for key, value in kwargs.items():
            if key not in order or key in values:
                raise TypeError(f"PidController: unexpected or repeated argument '{key}' for the {total}-argument "
                                f"form {order}")
            values[key] = value
        return (values.get("state_projection"), values.get("output_projection"), values["kp"], values["ki"],
                values["kd"])

    # ---- dynamics and output ------------------------------------------------------------------------------
    def _projected_state(self, context) -> np.ndarray:
        x = input_data(self, context, 0)
        return x if self._identity_x else self._P_x @ x

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        """ż = q_d − q."""
        n = self._n
        derivatives._vector._data[:] = input_data(self, context, 1)[:n] - self._projected_state(context)[:n]

    def _calc_control(self, context, output) -> None:
        n = self._n
        x = self._projected_state(context)
        x_d = input_data(self, context, 1)
        z = context._continuous._vector._data
        u = self._kp * (x_d[:n] - x[:n]) + self._ki * z + self._kd * (x_d[n:] - x[n:])
        output._data[:] = u if self._identity_y else self._P_y @ u

    # ---- accessors ----------------------------------------------------------------------------------------
    def get_Kp_vector(self) -> np.ndarray:
        """Proportional gains (size n)."""
        return self._kp.copy()

    def get_Ki_vector(self) -> np.ndarray:
        """Integral gains (size n)."""
        return self._ki.copy()

    def get_Kd_vector(self) -> np.ndarray:
        """Derivative gains (size n)."""
        return self._kd.copy()

    def get_input_port_estimated_state(self) -> InputPort:
        return self._estimated

    def get_input_port_desired_state(self) -> InputPort:
        return self._desired

    def get_output_port_control(self) -> OutputPort:
        return self._control

    def set_integral_value(self, context, value) -> None:
        """Set the integral state z = ∫(q_d − q) dt in this controller's `context` (size n)."""
        self.ValidateContext(context)
        z = np.array(value, dtype=float).reshape(-1)
        if z.size != self._n:
            raise ValueError(f"PidController.set_integral_value: expected {self._n} values (one per controlled "
                             f"position), got {z.size}")
        context.SetContinuousState(z)
