"""Dedicated compiled entry points for the plant's hot queries and its actuated discrete step.

At 7 DOF a Python→numba call costs as much as the math: ~0.1 µs of type dispatch, ~0.03–0.07 µs per array
argument and ~0.35 µs to box a returned array.  The kernels used here therefore write into caller-allocated
outputs (allocating in Python is cheaper than boxing a result), and `compiled_entry` hands the plant the
machine-code entry of one specialization so each call skips the dispatcher.
"""
from __future__ import annotations

import numpy as np
from numba import njit, typeof

from .dynamics import bias_term_into, gravity_forces_at_body_origins, inverse_dynamics_into, mass_matrix_into
from .pipeline import discrete_step, kinematics_stage

#: Return codes of `actuated_step_into`.
STEP_OK, STEP_NAN_ACTUATION, STEP_NOT_FINITE, STEP_BAD_SIZES = 0, 1, 2, 3


def compiled_entry(dispatcher, *example_args):
    """The compiled entry of `dispatcher` for the numba types of `example_args` (loaded from the cache or compiled).

    The entry does no type dispatch: every later call must pass arguments of exactly these types (same dtype,
    ndim and C-contiguity; scalars of the same kind).  The plant guarantees that for its own arrays and checks
    user-supplied ones before calling.
    """
    sig = tuple(typeof(a) for a in example_args)
    dispatcher.compile(sig)
    # numba keeps each specialization's machine-code entry here; should a numba release move it, fall back on
    # the dispatcher (correct, only slower).
    entry = getattr(dispatcher.overloads.get(sig), "entry_point", None)
    return entry if entry is not None else dispatcher


@njit(cache=True)
def actuated_step_into(order, ji, jf, bp, x, refl, damping, h, g_W, gravity_enabled, actuator_dofs, u, x_next,
                       sampled):
    """One semi-implicit Euler step (implicit joint damping) of x = [q; v] under gravity and actuation u.

    Writes x⁺ = [q⁺; v⁺] into x_next and the sampled results [v̇; u; τ_contact = 0] into sampled (2·nv + nu).
    Returns STEP_OK, STEP_NAN_ACTUATION (nothing written), STEP_NOT_FINITE (x_next holds the bad state) or
    STEP_BAD_SIZES (nothing written: an array does not match the model).
    """
    nu = u.shape[0]
    nv = refl.shape[0]
    nq = x.shape[0] - nv
    if (x_next.shape[0] != nq + nv or sampled.shape[0] != 2 * nv + nu or actuator_dofs.shape[0] != nu
            or bp.shape[0] != ji.shape[0]):
        return STEP_BAD_SIZES
    for i in range(nu):
        if np.isnan(u[i]):
            return STEP_NAN_ACTUATION
    q = x[:nq]
    v = x[nq:]
    R_WB, p_WB, _R_WF, _p_WF, _p_WM, S, V, c, Iw = kinematics_stage(order, ji, jf, bp, q, v, nv)
    F = gravity_forces_at_body_origins(bp, R_WB, g_W, gravity_enabled)
    tau = np.zeros(nv)
    for i in range(nu):
        tau[actuator_dofs[i]] += u[i]
    xn, a = discrete_step(order, ji, refl, S, Iw, p_WB, V, c, F, tau, damping, h, q, v)
    for i in range(nv):
        sampled[i] = a[i]
        sampled[nv + nu + i] = 0.0
    for i in range(nu):
        sampled[nv + i] = u[i]
    status = STEP_OK
    for i in range(nq + nv):
        x_next[i] = xn[i]
        if not np.isfinite(xn[i]):
            status = STEP_NOT_FINITE
    return status


class Entries:
    """The compiled entries of this module for the plant's array types (C-contiguous int64 topology arrays,
    float64 state/kinematics arrays, a bool gravity mask and a float time step)."""

    __slots__ = ("mass_matrix", "inverse_dynamics", "bias_term", "actuated_step")

    def __init__(self):
        i1, i2 = np.zeros(1, np.int64), np.zeros((1, 6), np.int64)
        f1, f2, f3 = np.zeros(1), np.zeros((1, 6)), np.zeros((1, 6, 6))
        self.mass_matrix = compiled_entry(mass_matrix_into, i1, i2, f1, f2, f3, f2)
        self.inverse_dynamics = compiled_entry(inverse_dynamics_into, i1, i2, f1, f2, f3, f2, f2, f2, f1, f2, f1, f1)
        self.bias_term = compiled_entry(bias_term_into, i1, i2, f2, f3, f2, f2, f1)
        self.actuated_step = compiled_entry(actuated_step_into, i1, i2, f2, f2, f1, f1, f1, 1.0, f1,
                                            np.zeros(1, np.bool_), i1, f1, f1, f1)


_entries: list = []


def plant_entries() -> Entries:
    """The process-wide `Entries` (loaded from numba's cache, or compiled, on first use)."""
    if not _entries:
        _entries.append(Entries())
    return _entries[0]


class FastModel:
    """A CompiledModel's arrays as the compiled entries need them (C-contiguous, fixed dtypes), with the entries
    themselves: what the plant's hot queries and its actuated step read, in one attribute."""

    __slots__ = ("entries", "mass_matrix", "inverse_dynamics", "bias_term", "actuated_step", "order", "ji", "jf",
                 "refl", "damping", "gravity_mask", "actuator_dofs", "nq", "nv", "nu", "F_shape", "v_shape", "M_shape",
                 "bp_shape", "sampled_size", "checked_forces", "g_source", "g_W")

    _TRANSIENT = ("entries", "mass_matrix", "inverse_dynamics", "bias_term", "actuated_step", "checked_forces",
                  "g_source", "g_W")

    def __init__(self, m, gravity_mask: np.ndarray):
        self._bind()
        as_int = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
        as_float = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
        self.order, self.ji, self.actuator_dofs = as_int(m.order), as_int(m.ji), as_int(m.actuator_dofs)
        self.jf, self.refl, self.damping = as_float(m.jf), as_float(m.reflected_inertia), as_float(m.damping)
        self.gravity_mask = np.ascontiguousarray(gravity_mask, dtype=np.bool_)
        self.nq, self.nv, self.nu = m.nq, m.nv, m.nu
        self.F_shape, self.v_shape, self.M_shape = (m.nb, 6), (m.nv,), (m.nv, m.nv)
        self.bp_shape, self.sampled_size = m.body_params.shape, 2 * m.nv + m.nu

    def _bind(self) -> None:
        """Attach the process's compiled entries (not picklable: rebound after unpickling)."""
        self.entries = e = plant_entries()
        self.mass_matrix, self.inverse_dynamics, self.bias_term = e.mass_matrix, e.inverse_dynamics, e.bias_term
        self.actuated_step = e.actuated_step
        self.checked_forces = None  # the last MultibodyForces that passed _check_forces
        self.g_source = self.g_W = None  # the gravity vector last seen, and its C-contiguous float64 copy

    def __getstate__(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__ if k not in self._TRANSIENT}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self._bind()
