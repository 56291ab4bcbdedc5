"""Dedicated compiled entry points for the plant's hot queries (mass matrix, inverse dynamics, bias term).

At 7 DOF a Python→numba call costs as much as the math: ~0.1 µs of type dispatch, ~0.03–0.07 µs per array
argument and ~0.35 µs to box a returned array.  The kernels used here therefore write into caller-allocated
outputs (allocating in Python is cheaper than boxing a result), and `compiled_entry` hands the plant the
machine-code entry of one specialization so each call skips the dispatcher.
"""
from __future__ import annotations

import numpy as np
from numba import typeof, types

from .dynamics import bias_term_into, inverse_dynamics_into, mass_matrix_into
from .pipeline import (bias_term_flat, inverse_dynamics_flat, kinematics_flat, kinematics_mass_matrix_flat,
                       mass_matrix_flat)
from .small import copy_head_into


def _mutable(t):
    """The writable twin of a read-only array type: an entry is compiled once for both (a read-only input port
    value and a writable one pass the same machine code, which only reads them), not twice."""
    return t.copy(readonly=False) if isinstance(t, types.Array) and not t.mutable else t


def compiled_entry(dispatcher, *example_args):
    """The compiled entry of `dispatcher` for the numba types of `example_args` (loaded from the cache or compiled).

    The entry does no type dispatch: every later call must pass arguments of exactly these types (same dtype,
    ndim and C-contiguity; scalars of the same kind).  The plant guarantees that for its own arrays and checks
    user-supplied ones before calling.
    """
    sig = tuple(_mutable(typeof(a)) for a in example_args)
    dispatcher.compile(sig)
    # numba keeps each specialization's machine-code entry here; should a numba release move it, fall back on
    # the dispatcher (correct, only slower).
    entry = getattr(dispatcher.overloads.get(sig), "entry_point", None)
    return entry if entry is not None else dispatcher


class Entries:
    """The compiled entries of this module for the plant's array types (C-contiguous int64 topology arrays,
    float64 state/kinematics arrays)."""

    __slots__ = ("mass_matrix", "inverse_dynamics", "bias_term", "kinematics", "kinematics_mass_matrix", "copy_head",
                 "mass_matrix_flat", "bias_term_flat", "inverse_dynamics_flat")

    def __init__(self):
        i1, i2 = np.zeros(1, np.int64), np.zeros((1, 6), np.int64)
        f1, f2, f3 = np.zeros(1), np.zeros((1, 6)), np.zeros((1, 6, 6))
        self.mass_matrix = compiled_entry(mass_matrix_into, i1, i2, f1, f2, f3, f2)
        self.inverse_dynamics = compiled_entry(inverse_dynamics_into, i1, i2, f1, f2, f3, f2, f2, f2, f1, f2, f1, f1)
        self.bias_term = compiled_entry(bias_term_into, i1, i2, f2, f3, f2, f2, f1)
        self.kinematics = compiled_entry(kinematics_flat, i1, i2, f2, f2, f1, 1, 1, f1)
        self.kinematics_mass_matrix = compiled_entry(kinematics_mass_matrix_flat, i1, i2, f2, f2, f1, 1, 1, f1, f1, f2,
                                                     f1)
        self.copy_head = compiled_entry(copy_head_into, np.zeros(4)[::2], f1, 1)  # (src: any stride)
        # the queries of a context whose kinematics are up to date, from its kinematics buffer
        self.mass_matrix_flat = compiled_entry(mass_matrix_flat, i1, i2, 1, 1, f1, f1, f2)
        self.bias_term_flat = compiled_entry(bias_term_flat, i1, i2, 1, 1, f1, f1)
        self.inverse_dynamics_flat = compiled_entry(inverse_dynamics_flat, i1, i2, 1, 1, f1, f1, f1, f2, f1, f1)


_entries: list = []


def plant_entries() -> Entries:
    """The process-wide `Entries` (loaded from numba's cache, or compiled, on first use)."""
    if not _entries:
        _entries.append(Entries())
    return _entries[0]


class FastModel:
    """A CompiledModel's arrays as the compiled entries need them (C-contiguous, fixed dtypes), with the entries
    themselves: what the plant's hot queries read, in one attribute (and the gravity vector the step reads)."""

    __slots__ = ("entries", "mass_matrix", "inverse_dynamics", "bias_term", "kinematics", "kinematics_mass_matrix",
                 "copy_head", "mass_matrix_flat", "bias_term_flat", "inverse_dynamics_flat", "order", "ji", "jf", "refl",
                 "damping", "gravity_mask", "actuator_dofs", "nq", "nv", "nu",
                 "F_shape", "q_shape", "v_shape", "M_shape", "bp_shape", "checked_forces", "g_source", "g_W")

    _TRANSIENT = ("entries", "mass_matrix", "inverse_dynamics", "bias_term", "kinematics", "kinematics_mass_matrix",
                  "copy_head", "mass_matrix_flat", "bias_term_flat", "inverse_dynamics_flat", "checked_forces", "g_source",
                  "g_W")

    def __init__(self, m, gravity_mask: np.ndarray):
        self._bind()
        as_int = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
        as_float = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
        self.order, self.ji, self.actuator_dofs = as_int(m.order), as_int(m.ji), as_int(m.actuator_dofs)
        self.jf, self.refl, self.damping = as_float(m.jf), as_float(m.reflected_inertia), as_float(m.damping)
        self.gravity_mask = np.ascontiguousarray(gravity_mask, dtype=np.bool_)
        self.nq, self.nv, self.nu = m.nq, m.nv, m.nu
        self.F_shape, self.q_shape, self.v_shape, self.M_shape = (m.nb, 6), (m.nq,), (m.nv,), (m.nv, m.nv)
        self.bp_shape = m.body_params.shape

    def _bind(self) -> None:
        """Attach the process's compiled entries (not picklable: rebound after unpickling)."""
        self.entries = e = plant_entries()
        self.mass_matrix, self.inverse_dynamics, self.bias_term = e.mass_matrix, e.inverse_dynamics, e.bias_term
        self.kinematics, self.kinematics_mass_matrix = e.kinematics, e.kinematics_mass_matrix
        self.copy_head = e.copy_head
        self.mass_matrix_flat, self.bias_term_flat = e.mass_matrix_flat, e.bias_term_flat
        self.inverse_dynamics_flat = e.inverse_dynamics_flat
        self.checked_forces = None  # the last MultibodyForces that passed _check_forces
        self.g_source = self.g_W = None  # the gravity vector last seen, and its C-contiguous float64 copy

    def __getstate__(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__ if k not in self._TRANSIENT}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self._bind()
