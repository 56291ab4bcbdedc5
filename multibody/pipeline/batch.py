"""Batched stepping: B states of one discrete MultibodyPlant advanced in one compiled call (a numba prange over the
batch), with (B, n) states and inputs, for policy rollouts, sweeps of one model and vector environments.

Member b is stepped by the plant's own compiled step (forward.step) with its own Data and warm-start row, so its
trajectory equals a context of the plant stepped from the same state under the same actuation, bit for bit. A plain
tree (tree_step.py: no constraint rows, contacts or MuJoCo features; a cart-pole) is stepped by tree_step's kernel
instead, the same arithmetic without the general step's fixed cost: on the calling thread when the batch is small
(MIN_BODY_STEPS_PER_THREAD), else each thread over a contiguous range of members with one scratch. The members share
the compiled Model, the body parameters and gravity of the context the stepper was made from.
"""
from __future__ import annotations

import os

import numba
import numpy as np
from numba import njit, prange
from numba.typed import List

from .data import new_data
from .forward import STEP_NOT_CONVERGED, STEP_OK, step
from .tree_step import STEP_BAD_INPUT, new_tree_scratch, plain_tree, tree_steps

__all__ = ["BatchedStepper"]

# numba's OpenMP threads (libgomp) spin for a while after each parallel region unless told otherwise: between two
# steps the caller's Python then competes with a spinning thread, and on a shared machine a whole call waits for a
# thread the kernel has descheduled (256 cart-poles at load 8 on 2 cores: 48-83 us per member-step on 2 spinning
# threads vs 9-15 on one; 3.4 on 2 passive threads vs 5.7 on one). Read when numba starts its threads, so set
# before the first batched step; a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# A plain tree's batch is split over numba's threads only when each thread gets at least this many body-steps (members
# × bodies): waking a parked thread and waiting for it at the region's end costs ~40-80 µs on this class of machine
# (2 vCPUs, passive threads), more than a thread's share of a small batch saves. 256 cart-poles (2 bodies, then ~0.4 µs
# a member): 138 µs a step on 2 threads (CPU 166 µs: the threads ran together ~1.2x of the time), ~100 µs on the
# calling thread alone. Per thread, 1024 body-steps (512 cart-poles at ~0.33 µs) are ~170 µs of work.
MIN_BODY_STEPS_PER_THREAD = 1024

_STATUS_TEXT = {2: "NaN actuation", 3: "NaN MJCF ctrl", 4: "a state that is not finite", 5: "inconsistent sizes",
                6: "a bad joint limit", 7: "an unsupported contact geometry", 8: "a rigid contact pair",
                9: "a bad SAP contact", 10: "bad constraint solver input", 11: "a constraint solve that is not finite",
                12: "an undefined equality constraint row", 13: "an undefined force element force",
                14: "a bad mocap pose", STEP_BAD_INPUT: "a state or actuation that is not finite"}


@njit(cache=True)
def step_member(m, datas, X, bp, U, ctrl, tau_in, F_in, g_W, mocap, collide, warm, X_next, results, status, time, b):
    """Steps row b of X (B, nq + nv + na: positions, velocities, MuJoCo activations) under U[b] (B, nu) and ctrl[b]
    (B, nctrl) into X_next[b]; warm[b] is member b's previous results row and results[b] receives this step's (see
    forward.step)."""
    nx = m.tree.nq + m.tree.nv
    status[b] = step(m, datas[b], X[b], bp, U[b], ctrl[b], X[b, nx:], X_next[b, nx:], tau_in, F_in, g_W, mocap,
                     collide, warm[b], X_next[b], results[b], time)


@njit(parallel=True, cache=True)
def step_batch(m, datas, X, bp, U, ctrl, tau_in, F_in, g_W, mocap, collide, warm, X_next, results, status, time):
    """step_member for every row of X, over numba's threads."""
    for i in prange(X.shape[0]):
        b = np.int64(i)  # prange's index is unsigned; the typed List of Data indexes with a signed int
        step_member(m, datas, X, bp, U, ctrl, tau_in, F_in, g_W, mocap, collide, warm, X_next, results, status, time, b)


@njit(cache=True)
def step_batch_serial(m, datas, X, bp, U, ctrl, tau_in, F_in, g_W, mocap, collide, warm, X_next, results, status,
                      time):
    """step_member for every row of X, on the calling thread: no parallel region (numba.get_num_threads() == 1, as
    in mallard's local workers, where a GNU OpenMP region would terminate a process forked from one that used it)."""
    for b in range(X.shape[0]):
        step_member(m, datas, X, bp, U, ctrl, tau_in, F_in, g_W, mocap, collide, warm, X_next, results, status, time, b)


@njit(parallel=True, cache=True)
def step_tree_batch(m, scratch, X, bp, U, g_W, X_next, results, status, threads):
    """Steps every row b of X (B, nq + nv) under U[b] into X_next[b] by tree_step.tree_steps (a plain-tree Model):
    one contiguous range of members per thread (`threads`: numba's), each thread with its own scratch (scratch[c]).
    Returns the first member whose status is not STEP_OK, or -1."""
    B = X.shape[0]
    n = min(threads, B, len(scratch))
    for i in prange(n):
        c = np.int64(i)  # prange's index is unsigned
        tree_steps(m, scratch[c], X, bp, U, g_W, X_next, results, status, c * B // n, (c + 1) * B // n)
    for b in range(B):
        if status[b] != STEP_OK:
            return b
    return -1


@njit(cache=True)
def step_tree_serial(m, s, X, bp, U, g_W, X_next, results, status):
    """step_tree_batch on the calling thread, with the one scratch s: no parallel region to start and join (a small
    batch's members take less time than waking a parked thread). Returns the first member whose status is not
    STEP_OK, or -1."""
    B = X.shape[0]
    tree_steps(m, s, X, bp, U, g_W, X_next, results, status, 0, B)
    for b in range(B):
        if status[b] != STEP_OK:
            return b
    return -1


class BatchedStepper:
    """`BatchedStepper(plant, batch_size, context=None)`: Step(x (B, nq + nv [+ na]), u (B, nu)) -> x after one (or
    num_steps) time steps of the discrete plant, for all B members in one compiled call. `context` (the plant's,
    in its diagram when contacts through SceneGraph are wanted) gives the body parameters, gravity, the MJCF mocap
    bodies' poses and whether contacts are computed; by default a new plant context (no contacts)."""

    def __init__(self, plant, batch_size: int, context=None) -> None:
        if not plant.is_finalized() or plant.time_step() <= 0:
            raise ValueError(f"BatchedStepper: {plant.GetSystemPathname()} must be a finalized discrete plant "
                             f"(time_step > 0), got time_step = {plant.time_step()}")
        self._batch = int(batch_size)
        if self._batch < 1:
            raise ValueError(f"BatchedStepper: batch_size must be >= 1, got {batch_size}")
        context = plant.CreateDefaultContext() if context is None else context
        plant.ValidateContext(context)
        plant._ThrowIfElementParametersChangeDynamics(context, "BatchedStepper", simulating=True)
        compiled = plant._PipelineModel(context)
        if compiled is None:
            raise ValueError(f"BatchedStepper: {plant.GetSystemPathname()} has features the compiled step does not "
                             f"cover ({', '.join(plant._pipeline.features)}); step its contexts one by one")
        if plant._pipeline.python_forces:
            names = sorted({type(fe).__name__ for fe in plant._pipeline.python_forces})
            raise ValueError(f"BatchedStepper: {plant.GetSystemPathname()} has force elements evaluated in Python "
                             f"({', '.join(names)}); step its contexts one by one")
        self._plant, self._model, self._collide = plant, compiled.model, plant._pipeline_collide(context)
        act = plant._mjcf_actuation  # (zero rows without MJCF actuators)
        self._nx = plant.num_positions() + plant.num_velocities() + act.na
        self._nu = plant.num_actuated_dofs()
        self._nctrl = act.nu
        self._bp = np.ascontiguousarray(plant._body_params(context).ravel())
        pd = plant._pd  # Drake's actuation rules: effort limits clamp u; PD controllers have no desired state here
        self._u_bounds = None  # (disarmed: SAP leaves their actuators' u out), so their rows clamp to 0
        if pd.active:
            lo, hi = pd.lower.copy(), pd.upper.copy()
            lo[pd.u_index] = hi[pd.u_index] = 0.0
            self._u_bounds = (lo, hi)
        self._g_W = np.ascontiguousarray(plant.gravity_field().gravity_vector(), dtype=np.float64)
        mocap = plant._mjcf_mocap
        self._mocap = np.zeros(0) if mocap is None else np.array(mocap.PoseVector(context), dtype=np.float64)
        self._datas = List([new_data() for _ in range(self._batch)])
        width = context.get_abstract_state(plant._sampled_index).get_value().data.shape[0]  # StepResults.size
        self._warm, self._results = np.zeros((self._batch, width)), np.zeros((self._batch, width))
        self._status = np.zeros(self._batch, dtype=np.uint64)  # forward.step's status type
        self._no_forces = (np.zeros(0), np.zeros((0, 6)))
        self._zero_u, self._zero_ctrl = np.zeros((self._batch, self._nu)), np.zeros((self._batch, self._nctrl))
        # a plain tree (tree_step.py) steps by tree_steps with a scratch per thread; other Models by forward.step
        self._tree = None
        if plain_tree(self._model):
            scratch = List([new_tree_scratch(self._model) for _ in range(min(numba.config.NUMBA_NUM_THREADS,
                                                                             self._batch))])
            self._tree = (scratch, self._bp.reshape(-1, 13), np.zeros(self._batch, dtype=np.int64))
            # threads only for a batch whose share per thread outweighs starting them (MIN_BODY_STEPS_PER_THREAD)
            self._tree_threads = self._batch * (plant.num_bodies() - 1) // MIN_BODY_STEPS_PER_THREAD
            self._scratch0 = scratch[0]  # (read from the typed List once: each Python read is a compiled call)

    def batch_size(self) -> int:
        return self._batch

    def ResetWarmStarts(self, members=None) -> None:
        """Forget the constraint solver's warm starts (as new contexts would: before unrelated states), of all
        members or of those selected by `members` (a boolean mask or indices)."""
        if members is None:
            self._warm[:] = 0.0
        else:
            self._warm[members] = 0.0

    def _rows(self, value, width: int, what: str, check: bool = True) -> np.ndarray:
        """`value` as a writable C-contiguous float64 (B, width) array of finite numbers (unchecked when `check` is
        False: the kernel checks): the caller's array itself when it already is one (step_batch reads its inputs and
        never writes them), else a copy (broadcast_to gives a read-only view, which would compile a second
        specialization of step_batch)."""
        rows = value
        if not (type(rows) is np.ndarray and rows.dtype == np.float64 and rows.shape == (self._batch, width)
                and rows.flags.c_contiguous and rows.flags.writeable):
            rows = np.require(np.broadcast_to(np.asarray(value, dtype=np.float64), (self._batch, width)),
                              requirements="CW")
        if check and not np.isfinite(rows).all():
            bad = int(np.flatnonzero(~np.isfinite(rows).all(axis=1))[0])
            raise ValueError(f"BatchedStepper.Step: {what} of batch member {bad} is not finite: {rows[bad]}")
        return rows

    def Step(self, x, u=None, num_steps: int = 1, ctrl=None) -> np.ndarray:
        """The (B, nq + nv [+ na: MuJoCo activations]) states after `num_steps` steps from x under actuation u (B, nu;
        a (nu,) row is used for all members) and MJCF ctrl (B, nctrl). x is not modified: the result is a new array."""
        if self._tree is not None and ctrl is None:
            return self._StepTree(x, u, num_steps)
        X = self._rows(x, self._nx, "the state")
        U = self._zero_u if u is None else self._rows(u, self._nu, "the actuation")
        if self._u_bounds is not None:
            U = np.clip(U, *self._u_bounds)
        C = self._zero_ctrl if ctrl is None else self._rows(ctrl, self._nctrl, "ctrl")
        num_steps = int(num_steps)
        if num_steps < 1:
            return X.copy()
        X_next = np.empty((self._batch, self._nx))
        kernel = step_batch if self._batch > 1 and numba.get_num_threads() > 1 else step_batch_serial
        for k in range(num_steps):
            kernel(self._model, self._datas, X, self._bp, U, C, *self._no_forces, self._g_W, self._mocap,
                   self._collide, self._warm, X_next, self._results, self._status, 0.0)  # states carry no time: clocks read 0
            if self._status.max() > STEP_NOT_CONVERGED:  # (STEP_OK, STEP_NOT_CONVERGED: the two successes)
                self._RaiseFailure(X, U)
            if k == 0 and num_steps > 1:
                X = np.empty_like(X_next)  # the next steps write into the state before: not into the caller's x
            X, X_next = X_next, X
            self._warm, self._results = self._results, self._warm
        return X

    def _StepTree(self, x, u, num_steps: int) -> np.ndarray:
        """Step of a plain tree (tree_step.py): the inputs' finiteness is checked by the kernel."""
        X = self._rows(x, self._nx, "the state", check=False)
        if self._u_bounds is not None:  # (checked before the clip, which would make an infinite u finite)
            U = np.clip(self._zero_u if u is None else self._rows(u, self._nu, "the actuation"), *self._u_bounds)
        else:
            U = self._zero_u if u is None else self._rows(u, self._nu, "the actuation", check=False)
        num_steps = int(num_steps)
        if num_steps < 1:
            self._rows(X, self._nx, "the state")  # (raises as a step would)
            self._rows(U, self._nu, "the actuation")
            return X.copy()
        scratch, bp, status = self._tree
        X_next = np.empty((self._batch, self._nx))
        threads = min(self._tree_threads, numba.get_num_threads()) if self._tree_threads > 1 else 1
        for k in range(num_steps):
            if threads > 1:
                bad = step_tree_batch(self._model, scratch, X, bp, U, self._g_W, X_next, self._results, status,
                                      threads)
            else:
                bad = step_tree_serial(self._model, self._scratch0, X, bp, U, self._g_W, X_next, self._results, status)
            if bad >= 0:
                self._rows(X, self._nx, "the state")  # a state or actuation that is not finite raises here
                self._rows(U, self._nu, "the actuation")
                self._status[:] = status
                self._RaiseFailure(X, U)
            if k == 0 and num_steps > 1:
                X = np.empty_like(X_next)  # the next steps write into the state before: not into the caller's x
            X, X_next = X_next, X
            self._warm, self._results = self._results, self._warm
        return X

    def _RaiseFailure(self, X: np.ndarray, U: np.ndarray) -> None:
        bad = np.flatnonzero((self._status != STEP_OK) & (self._status != STEP_NOT_CONVERGED))
        b = int(bad[0])
        raise RuntimeError(f"BatchedStepper.Step: the step of batch member {b} of "
                           f"{self._plant.GetSystemPathname()} failed with "
                           f"{_STATUS_TEXT.get(int(self._status[b]), f'status {self._status[b]}')} "
                           f"(state {X[b]}, actuation {U[b]})")
