"""Linearize / FirstOrderTaylorApproximation of ANY system by central finite differences.

pydrake needs AutoDiffXd scalar conversion for this (and fails on plain Python LeafSystems); mallard
differentiates f(x, u) (xdot, or x[n+1] for a discrete system) and y(x, u) numerically with central
differences, step h_i = eps^(1/3) * max(1, |z_i|), which balances truncation (O(h^2)) against rounding
(O(eps / h)) in double precision: about 1e-10 relative accuracy on smooth dynamics.

The operating point (time, state, parameters, the selected input and every other vector input) is read
from `context`; the work is done on a clone, so `context` is never modified.
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework import InputPortSelection, OutputPortSelection, PortDataType, UnrestrictedUpdateEvent
from .affine_system import AffineSystem, LinearSystem

_kStep = np.finfo(float).eps ** (1.0 / 3.0)


def _select_port(system, index, num: int, getter, selection_enum, kind: str):
    if isinstance(index, selection_enum) or (isinstance(index, int) and int(index) < 0):
        value = int(index)
        if value == -1:
            return None
        if value == -2:
            return getter(0) if num > 0 else None
        raise ValueError(f"{kind}_port_index {index} is not a port index or {selection_enum.__name__}")
    i = int(index)
    if not 0 <= i < num:
        raise ValueError(f"{kind}_port_index {i} is out of range: {system.GetSystemPathname()} has {num} "
                         f"{kind} ports")
    return getter(i)


class _Evaluator:
    """f(x, u) and y(x, u) of `system` around the operating point in `context`, on a cloned context."""

    def __init__(self, system, context, input_port_index, output_port_index, what: str) -> None:
        system.ValidateContext(context)
        self.system = system
        self.what = what
        self.in_port = _select_port(system, input_port_index, system.num_input_ports(), system.get_input_port,
                                    InputPortSelection, "input")
        self.out_port = _select_port(system, output_port_index, system.num_output_ports(), system.get_output_port,
                                     OutputPortSelection, "output")
        for port, kind in ((self.in_port, "input"), (self.out_port, "output")):
            if port is not None and port.get_data_type() != PortDataType.kVectorValued:
                raise ValueError(f"{what}: the {kind} port '{port.get_name()}' of {system.GetSystemPathname()} is "
                                 f"abstract-valued; select a vector {kind} port with {kind}_port_index")

        root_clone = context._root.Clone()
        self.ctx = system.GetMyContextFromRoot(root_clone)
        # Freeze every vector input at its value in the original context (the selected one gets perturbed).
        for port in system._input_ports:
            if port.get_data_type() == PortDataType.kVectorValued and port.HasValue(context):
                port.FixValue(self.ctx, port.Eval(context))
        if self.in_port is not None and not self.in_port.HasValue(context):
            raise RuntimeError(f"{what}: {self.in_port.GetFullDescription()} is neither connected nor fixed; "
                               "fix it to the nominal input with port.FixValue(context, u0)")
        self.u0 = self.in_port.Eval(context) if self.in_port is not None else np.zeros(0)

        nc = self.ctx.num_continuous_states()
        nd = sum(g.size() for g in self.ctx.get_discrete_state().get_data())
        if nc and nd:
            raise RuntimeError(f"{what}: {system.GetSystemPathname()} has both continuous ({nc}) and discrete ({nd}) "
                               "state; only purely continuous or purely discrete systems can be linearized")
        self.time_period = 0.0
        if nd:
            for leaf in system._leaf_systems():
                if any(isinstance(ev, UnrestrictedUpdateEvent) for _d, ev in leaf._periodic_events) \
                        and leaf.num_discrete_state_groups():
                    raise RuntimeError(f"{what}: {leaf.GetSystemPathname()} updates its discrete state with an "
                                       "unrestricted update; only periodic discrete updates can be linearized")
            attribute = system.GetUniquePeriodicDiscreteUpdateAttribute()
            if attribute is None:
                raise RuntimeError(f"{what}: {system.GetSystemPathname()} has discrete state but not exactly one "
                                   "(period, offset) of periodic discrete updates; exactly one is required")
            self.time_period = attribute.period_sec()
        self.nc, self.nd = nc, nd
        self.x0 = self._get_x()

    # ---- state access ------------------------------------------------------------------------------
    def _get_x(self) -> np.ndarray:
        if self.nc:
            return self.ctx._continuous._vector._data.copy()
        if self.nd:
            return np.concatenate([g.CopyToVector() for g in self.ctx.get_discrete_state().get_data()])
        return np.zeros(0)

    def _set(self, x: np.ndarray, u: np.ndarray) -> None:
        if self.nc:
            self.ctx.SetContinuousState(x)
        elif self.nd:
            off = 0
            for i, g in enumerate(self.ctx.get_discrete_state().get_data()):
                self.ctx.SetDiscreteState(i, x[off:off + g.size()])
                off += g.size()
        if self.in_port is not None:
            self.in_port.FixValue(self.ctx, u)

    def f(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """xdot (continuous) or x[n+1] (discrete) at (x, u)."""
        self._set(x, u)
        if self.nc:
            return self.system.EvalTimeDerivatives(self.ctx).CopyToVector()
        if self.nd:
            updated = self.system.EvalUniquePeriodicDiscreteUpdate(self.ctx)
            return np.concatenate([g.CopyToVector() for g in updated.get_data()])
        return np.zeros(0)

    def y(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        self._set(x, u)
        return self.out_port.Eval(self.ctx) if self.out_port is not None else np.zeros(0)

    def jacobians(self):
        """(f0, y0, A, B, C, D) at the operating point by central differences."""
        x0, u0 = self.x0, self.u0
        n, m = x0.shape[0], u0.shape[0]
        f0, y0 = self.f(x0, u0), self.y(x0, u0)
        for name, v in (("f", f0), ("y", y0)):
            if not np.all(np.isfinite(v)):
                raise RuntimeError(f"{self.what}: {self.system.GetSystemPathname()} evaluates to non-finite {name} "
                                   f"= {v} at the operating point")
        A, B = np.zeros((n, n)), np.zeros((n, m))
        C, D = np.zeros((y0.shape[0], n)), np.zeros((y0.shape[0], m))
        for j in range(n):
            h = _kStep * max(1.0, abs(x0[j]))
            xp, xm = x0.copy(), x0.copy()
            xp[j] += h
            xm[j] -= h
            dx = xp[j] - xm[j]
            A[:, j] = (self.f(xp, u0) - self.f(xm, u0)) / dx
            C[:, j] = (self.y(xp, u0) - self.y(xm, u0)) / dx
        for j in range(m):
            h = _kStep * max(1.0, abs(u0[j]))
            up, um = u0.copy(), u0.copy()
            up[j] += h
            um[j] -= h
            du = up[j] - um[j]
            B[:, j] = (self.f(x0, up) - self.f(x0, um)) / du
            D[:, j] = (self.y(x0, up) - self.y(x0, um)) / du
        return f0, y0, A, B, C, D


def Linearize(system, context, input_port_index=InputPortSelection.kUseFirstInputIfItExists,
              output_port_index=OutputPortSelection.kUseFirstOutputIfItExists,
              equilibrium_check_tolerance: float = 1e-6) -> LinearSystem:
    """The LinearSystem in deviation coordinates (x - x0, u - u0, y - y0) about the equilibrium in `context`.

    Raises RuntimeError if the operating point is not an equilibrium: |xdot| (continuous) or |x[n+1] - x|
    (discrete) above `equilibrium_check_tolerance`, or if the system mixes continuous and discrete state.
    """
    ev = _Evaluator(system, context, input_port_index, output_port_index, "Linearize")
    f0, y0, A, B, C, D = ev.jacobians()
    residual = f0 - ev.x0 if ev.nd else f0
    if residual.size and float(np.max(np.abs(residual))) > equilibrium_check_tolerance:
        what = "x[n+1] - x" if ev.nd else "xdot"
        raise RuntimeError(
            f"Linearize: the nominal operating point of {system.GetSystemPathname()} ({type(system).__name__}) is not "
            f"an equilibrium point: max |{what}| = {float(np.max(np.abs(residual))):.6g} > "
            f"equilibrium_check_tolerance = {equilibrium_check_tolerance:g} ({what} = {residual}). Without "
            "additional information a time-invariant linearization is not well defined; use "
            "FirstOrderTaylorApproximation for an affine model about a non-equilibrium point.")
    return LinearSystem(A, B, C, D, ev.time_period)


def FirstOrderTaylorApproximation(system, context, input_port_index=InputPortSelection.kUseFirstInputIfItExists,
                                  output_port_index=OutputPortSelection.kUseFirstOutputIfItExists) -> AffineSystem:
    """The AffineSystem xdot (or x[n+1]) = A x + B u + f0, y = C x + D u + y0 about the point in `context`."""
    ev = _Evaluator(system, context, input_port_index, output_port_index, "FirstOrderTaylorApproximation")
    f0, y0, A, B, C, D = ev.jacobians()
    x0, u0 = ev.x0, ev.u0
    return AffineSystem(A, B, f0 - A @ x0 - B @ u0, C, D, y0 - C @ x0 - D @ u0, ev.time_period)
