"""Smooth dynamics of the discrete step (MuJoCo's mj_fwdPosition / mj_fwdVelocity part, MJX's smooth.py):
kinematics, gravity, the mass matrix with implicit joint damping M̂ = M + h·D and the unconstrained acceleration
a₀ = M̂⁻¹(τ − D·v − C(q, v)·v), all over the tree arrays of `TreeModel`.

The tree arrays keep the layout of kernels/compiled_model.py (rows of `ji` / `jf` per body: parent, joint type,
q and v ranges; joint frames and axis), so the stages reuse the tree kernels of multibody/kernels.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.experimental import structref
from numba.core import types
from numba.np.linalg import _LAPACK

from ..contact.elimination import ReverseTreeSolve
from ..kernels.dynamics import (cholesky_solve_in_place, gravity_forces_into, inverse_dynamics_scratch_into,
                                mass_matrix_tree_into)
from ..kernels.kinematics import (motion_subspace_into, position_kinematics_into, spatial_inertias_into,
                                  velocity_kinematics_into)
from ..kernels.pipeline import inverse_dynamics_from_inertias
from .structs import B1, BOOL, F1, F2, FLOAT, I1, I2, INT, bools, declare, floats, ints
from .tendon import tendon_armature, tendon_bias

BODY_PARAM_COLUMNS = 13  # mass, p_BoBcm_B (3), I_BBo_B (9, row-major): a body's row of the context parameter


@structref.register
class TreeModelType(types.StructRef):
    """numba type of TreeModel."""


class TreeModel(structref.StructRefProxy):
    """The multibody tree of a Model: sizes, topology, joint frames, rotor inertia, damping, gravity mask, the
    dof ranges of independent trees and MuJoCo's inverse weights at the reference configuration."""


TREE_MODEL = declare(TreeModelType, TreeModel, [
    ("nq", INT), ("nv", INT), ("nb", INT),
    ("h", FLOAT),                   # time step [s]
    ("order", I1),                  # bodies, parents first (the world excluded)
    ("ji", I2),                     # (nb, 6): parent, joint type, q start, nq, v start, nv (kernels/compiled_model.py)
    ("jf", F2),                     # (nb, 28): X_PF, X_MB, axis, pitch per joint
    ("refl", F1),                   # (nv,) reflected rotor inertia / armature on the diagonal of M [kg m², kg]
    ("damping", F1),                # (nv,) joint viscous damping D [N m s, N s/m]
    ("has_damping", BOOL),
    ("gravity_mask", B1),           # (nb,) bodies gravity acts on
    ("mass_blocks", I1),            # dof range starts of M's independent trees (first 0, last nv)
    ("solver_blocks", I1),          # the same for the constraint solver's factorization; empty: found from M
    ("dof_invweight0", F1),         # (nv,) MuJoCo's dof_invweight0
    ("body_invweight0", F2),        # (nb, 2) MuJoCo's body_invweight0 (translation, rotation)
    ("meaninertia", FLOAT),         # mean of diag(M) at the reference configuration (solver tolerance scale)
    ("mocap_body", I1),             # (nmocap,) bodies welded to the world whose X_PF is the step's mocap input
])


@njit(cache=True)
def new_tree_model(nq, nv, nb, h, order, ji, jf, refl, damping, has_damping, gravity_mask, mass_blocks,
                   solver_blocks, dof_invweight0, body_invweight0, meaninertia, mocap_body):
    t = structref.new(TREE_MODEL)
    t.nq, t.nv, t.nb, t.h = nq, nv, nb, h
    t.order, t.ji, t.jf = order, ji, jf
    t.refl, t.damping, t.has_damping, t.gravity_mask = refl, damping, has_damping, gravity_mask
    t.mass_blocks, t.solver_blocks = mass_blocks, solver_blocks
    t.dof_invweight0, t.body_invweight0, t.meaninertia = dof_invweight0, body_invweight0, meaninertia
    t.mocap_body = mocap_body
    return t


def CompileTree(plant, rows, tree_blocks, model=None) -> TreeModel:
    """The TreeModel of a finalized discrete plant. `rows` (contact/constraint_rows.py ConstraintRowModel, or None)
    gives MuJoCo's inverse weights; `tree_blocks` the dof ranges of the plant's trees (None: unknown); `model` the
    plant's CompiledModel with a Context's damping and reflected inertia (None: the plant's own). MJCF mocap
    bodies (plant._mjcf_mocap) are the welds the step poses from its mocap input."""
    m = plant._model if model is None else model
    blocks = tree_blocks
    mass_blocks = np.array([0, m.nv]) if blocks is None or blocks.shape[0] < 2 or blocks[-1] != m.nv else blocks
    if rows is not None:
        dof_iw, body_iw, meaninertia = rows.dof_invweight0, rows.body_invweight0, rows.meaninertia
    else:
        dof_iw, body_iw, meaninertia = np.zeros(m.nv), np.zeros((m.nb, 2)), 1.0
    return new_tree_model(
        int(m.nq), int(m.nv), int(m.nb), float(plant.time_step()), ints(m.order), ints(m.ji), floats(m.jf),
        floats(m.reflected_inertia), floats(m.damping), bool(np.any(m.damping)), bools(plant._gravity_mask),
        ints(mass_blocks), ints(blocks if blocks is not None else np.zeros(0)), floats(dof_iw),
        floats(body_iw, (m.nb, 2)), float(meaninertia),
        ints(plant._mjcf_mocap.bodies if plant._mjcf_mocap is not None else np.zeros(0)))


# ---- mocap welds ----------------------------------------------------------------------------------------------
MOCAP_POSE_SIZE = 7  # [x y z qw qx qy qz] per mocap body (MuJoCo's mocap_pos, mocap_quat)
#: Status codes of `CheckMocapPoses` / `kinematics` (d.bad_index: the mocap body).
MOCAP_OK, MOCAP_NOT_FINITE, MOCAP_ZERO_QUATERNION = 0, 1, 2


@njit(cache=True)
def CheckMocapPoses(poses):
    """(MOCAP_OK, -1), or the first problem of the flat mocap poses (nmocap·7) and its mocap body."""
    n = poses.shape[0] // MOCAP_POSE_SIZE
    for i in range(n):
        for k in range(MOCAP_POSE_SIZE):
            if not np.isfinite(poses[MOCAP_POSE_SIZE * i + k]):
                return MOCAP_NOT_FINITE, i
    for i in range(n):
        o = MOCAP_POSE_SIZE * i + 3
        if poses[o] ** 2 + poses[o + 1] ** 2 + poses[o + 2] ** 2 + poses[o + 3] ** 2 == 0.0:
            return MOCAP_ZERO_QUATERNION, i
    return MOCAP_OK, -1


@njit(cache=True)
def MocapJointFrames(jf, mocap_body, poses):
    """A copy of the joint-frame table jf (nb × 28) with the mocap welds' X_PF (the world is the parent) set from
    the flat poses [x y z qw qx qy qz]·nmocap (the quaternion normalized first, as MuJoCo's mocap_quat)."""
    out = jf.copy()
    for i in range(mocap_body.shape[0]):
        b, o = mocap_body[i], MOCAP_POSE_SIZE * i
        n = np.sqrt(poses[o + 3] ** 2 + poses[o + 4] ** 2 + poses[o + 5] ** 2 + poses[o + 6] ** 2)
        w, x, y, z = poses[o + 3] / n, poses[o + 4] / n, poses[o + 5] / n, poses[o + 6] / n
        R = out[b]
        R[0], R[1], R[2] = 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)
        R[3], R[4], R[5] = 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)
        R[6], R[7], R[8] = 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)
        R[9], R[10], R[11] = poses[o], poses[o + 1], poses[o + 2]
    return out


# ---- stages ----------------------------------------------------------------------------------------------------
# The tree kernels these stages call (kernels/kinematics.py, kernels/dynamics.py) allocate nothing and are compiled
# without numba's runtime (no reference counting of the arrays they are passed), so a call costs its jump: the same
# kernels serve the plant's queries and pipeline/tree_step.py's batched plain-tree step.
# numba's LAPACK binding, as np.linalg.cholesky calls it (the classmethod: _LAPACK() would import scipy now, which
# `import mallard.all` must not; numba's helper library loads scipy's LAPACK at the first call, as for np.linalg)
_potrf = _LAPACK.numba_xxpotrf(types.float64)


@njit(cache=True)
def kinematics(m, d, x, bp_flat, mocap):
    """q, v from the state x = [q; v; ...]; world poses, joint frames, motion subspace S, velocities V, bias
    terms c and world inertias Iw from the body parameters (the context's nb × 13 mass properties), with the mocap
    welds posed by `mocap` (nmocap·7: [x y z qw qx qy qz] each). Returns MOCAP_OK or a mocap pose error
    (d.bad_index: the mocap body)."""
    t = m.tree
    jf = t.jf
    if t.mocap_body.shape[0]:
        st, bad = CheckMocapPoses(mocap)
        if st != MOCAP_OK:
            d.bad_index = bad
            return st
        jf = MocapJointFrames(t.jf, t.mocap_body, mocap)
    nq, nv, nb = t.nq, t.nv, t.nb
    if d.q.shape[0] != nq or d.v.shape[0] != nv or d.R_WB.shape[0] != nb or d.S.shape[0] != nv:
        d.q, d.v = np.empty(nq), np.empty(nv)  # the Data's first step: its arrays, written in place from now on
        d.R_WB, d.p_WB, d.R_WF = np.empty((nb, 3, 3)), np.empty((nb, 3)), np.empty((nb, 3, 3))
        d.p_WF, d.p_WM, d.S = np.empty((nb, 3)), np.empty((nb, 3)), np.empty((nv, 6))
        d.V, d.c, d.Iw = np.empty((nb, 6)), np.empty((nb, 6)), np.empty((nb, 6, 6))
    q, v = d.q, d.v
    for i in range(nq):
        q[i] = x[i]
    for i in range(nv):
        v[i] = x[nq + i]
    bp = d.bp = bp_flat.reshape((nb, BODY_PARAM_COLUMNS))
    order, ji = t.order, t.ji
    R_WB, p_WB, R_WF, p_WF, p_WM, S = d.R_WB, d.p_WB, d.R_WF, d.p_WF, d.p_WM, d.S
    position_kinematics_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM)  # kernels/pipeline.kinematics_into
    motion_subspace_into(order, ji, jf, q, R_WF, p_WM, S)
    velocity_kinematics_into(order, ji, q, v, S, R_WF, p_WF, p_WM, d.V, d.c)
    spatial_inertias_into(bp, R_WB, p_WB, d.Iw)
    return MOCAP_OK


@njit(cache=True)
def gravity(m, d, g_W):
    """Body weights F_Bo_W (nb × 6) into d.F; d.tau starts at zero."""
    t = m.tree
    if d.F.shape[0] != t.nb or d.F.shape[1] != 6 or d.tau.shape[0] != t.nv:
        d.F, d.tau = np.empty((t.nb, 6)), np.empty(t.nv)
    gravity_forces_into(d.bp, d.R_WB, g_W, t.gravity_mask, d.F)
    d.tau[:] = 0.0


@njit(cache=True)
def applied_forces(m, d, tau_in, F_in):
    """Add the applied generalized forces (nv) and body spatial forces F_Bo_W (nb × 6) of the plant's inputs."""
    for i in range(tau_in.shape[0]):
        d.tau[i] += tau_in[i]
    F = d.F
    for b in range(F_in.shape[0]):
        for k in range(6):
            F[b, k] += F_in[b, k]


@njit(cache=True, inline="always")
def _mass_matrix_arrays(t, d):
    """d.M (nv × nv; allocated zero, then only its tree sparsity written: kernels/dynamics.mass_matrix_tree_into)
    and the dynamics' scratch d.sm_Ic (nb × 10) and d.sm_Af (2·nb × 6), sized for TreeModel t."""
    nv, nb = t.nv, t.nb
    if d.M.shape[0] != nv or d.M.shape[1] != nv:
        d.M = np.zeros((nv, nv))
    if d.sm_Ic.shape[0] != nb:
        d.sm_Ic, d.sm_Af = np.empty((nb, 10)), np.empty((2 * nb, 6))


@njit(cache=True)
def mass_matrix(m, d):
    """M̂ = M(q) + h·D by the composite-rigid-body algorithm (joint damping implicit, as MuJoCo and Drake), plus the
    tendons' armature a·JᵀJ (tendon.py)."""
    t = m.tree
    _mass_matrix_arrays(t, d)
    M = d.M
    mass_matrix_tree_into(t.order, t.ji, t.refl, d.S, d.Iw, M, d.sm_Ic)
    if t.has_damping:
        for i in range(t.nv):
            M[i, i] += t.h * t.damping[i]
    tendon_armature(m, d, M)


@njit(cache=True)
def smooth_acceleration(m, d):
    """a₀ = M̂⁻¹(τ − D·v − C(q, v)·v + Σ J_WBᵀ F_Bo_W): bias by RNEA at v̇ = 0 (plus the tendon armature's, tendon.py),
    solve by a tree-ordered envelope Cholesky of M̂ (raises np.linalg.LinAlgError when M̂ is not positive definite)."""
    t = m.tree
    tau = d.tau
    if t.has_damping:
        tau = tau - t.damping * d.v
    minus_rhs = inverse_dynamics_from_inertias(t.order, t.ji, t.refl, d.S, d.Iw, d.p_WB, d.V, d.c, np.zeros(t.nv),
                                               d.F, tau)
    tendon_bias(m, d, minus_rhs)
    d.qacc_smooth = ReverseTreeSolve(d.M, t.mass_blocks, -minus_rhs)


@njit(cache=True)
def unconstrained_step(m, d):
    """v̇ of a step without constraint rows: (M + h·D)·v̇ = τ − D·v − C·v + Σ J_WBᵀ F_Bo_W, one dense solve; d.qacc,
    with M̂ = M + h·D left in d.M. The arithmetic of kernels/pipeline.discrete_step (its bits), in Data's arrays
    (allocated on the first step): the bias is computed into d.qacc, which then holds the right-hand side and v̇."""
    t = m.tree
    nv = t.nv
    _mass_matrix_arrays(t, d)
    if d.qacc.shape[0] != nv or d.sm_tau.shape[0] != nv or d.sm_L.shape[0] != nv:
        d.qacc, d.sm_tau, d.sm_L = np.empty(nv), np.empty(nv), np.empty((nv, nv))
    M, a, tau, Af = d.M, d.qacc, d.sm_tau, d.sm_Af
    order, ji, refl, S, Iw = t.order, t.ji, t.refl, d.S, d.Iw
    mass_matrix_tree_into(order, ji, refl, S, Iw, M, d.sm_Ic)
    for i in range(nv):
        tau[i] = d.tau[i] - t.damping[i] * d.v[i]
        a[i] = 0.0  # v̇ = 0 for the bias C·v, then −rhs, then v̇
    inverse_dynamics_scratch_into(order, ji, refl, S, Iw, d.p_WB, d.V, d.c, a, d.F, tau, a, Af[:t.nb], Af[t.nb:])
    for i in range(nv):
        M[i, i] += t.h * t.damping[i]
        a[i] = -a[i]
    solve_spd_in_place(M, d.sm_L, a)


@njit(cache=True, _nrt=False)
def solve_spd_in_place(M, L, b):
    """b ← M⁻¹·b by Cholesky (M symmetric positive definite, its lower triangle read; raises np.linalg.LinAlgError
    as np.linalg.cholesky when a pivot is not positive), with the (n, n) scratch L. More than two dofs: LAPACK's
    potrf of a copy of M in L, as numba's np.linalg.cholesky calls it (its factor: upper in C order is lower in
    Fortran's), then cholesky_solve_in_place's substitutions, which read L's lower triangle only. One and two dofs
    (a cart-pole, a double pendulum) factor in scalars: LAPACK's potrf of a 1×1 or 2×2 matrix is a square root, a
    product by its reciprocal and a square root of the Schur complement, the same operations in the same order, so
    these bits are LAPACK's, without its call. No allocation (compiled without numba's runtime)."""
    n = b.shape[0]
    if n > 2:
        for i in range(n):
            for j in range(n):
                L[i, j] = M[i, j]
        if _potrf(ord("d"), ord("U"), n, L.ctypes, n) != 0:
            raise np.linalg.LinAlgError("Matrix is not positive definite.")
        cholesky_solve_in_place(L, b)
        return
    if n == 0:
        return
    d0 = M[0, 0]
    if d0 <= 0.0:
        raise np.linalg.LinAlgError("Matrix is not positive definite.")
    l00 = np.sqrt(d0)
    if n == 1:
        b[0] = b[0] / l00 / l00
        return
    l10 = M[1, 0] * (1.0 / l00)
    d1 = M[1, 1] - l10 * l10
    if d1 <= 0.0:
        raise np.linalg.LinAlgError("Matrix is not positive definite.")
    l11 = np.sqrt(d1)
    y0 = b[0] / l00
    y1 = (b[1] - l10 * y0) / l11
    b[1] = y1 / l11
    b[0] = (y0 - l10 * b[1]) / l00
