"""Fused pipeline stages: one compiled call per plant query, over the compiled model arrays.

Each function strings together the small kernels of `kinematics` and `dynamics` so the plant
pays the Python→numba call overhead once per query instead of once per stage.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .joint_kernels import joint_n_matrix, joint_nplus_matrix
from .dynamics import (bias_term_scratch_into, inverse_dynamics_into, inverse_dynamics_scratch_into, mass_matrix_into,
                       mass_matrix_scratch_into, solve_spd)
from .kinematics import (calc_accelerations, cross3, motion_subspace_into, position_kinematics_into,
                         spatial_inertias_into, velocity_kinematics_into)


@njit(cache=True)
def kinematics_stage(order, ji, jf, bp, q, v, nv):
    """Everything the dynamics needs from (q, v): poses, joint frames, S, V, c and world inertias Iw."""
    nb = ji.shape[0]
    R_WB, p_WB, R_WF, p_WF, p_WM = (np.empty((nb, 3, 3)), np.empty((nb, 3)), np.empty((nb, 3, 3)),
                                    np.empty((nb, 3)), np.empty((nb, 3)))
    S, V, c, Iw = np.empty((nv, 6)), np.empty((nb, 6)), np.empty((nb, 6)), np.empty((nb, 6, 6))
    kinematics_into(order, ji, jf, bp, q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw)
    return R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw


@njit(cache=True, _nrt=False)
def kinematics_into(order, ji, jf, bp, q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw):
    """kinematics_stage writing into preallocated arrays (nb bodies, nv = S.shape[0]): no allocation per call (the
    stages keep their temporaries in scalars or in the rows they fill next), so a context's kinematics cache and
    the compiled step's Data keep their arrays from call to call. Compiled without numba's runtime, as its stages."""
    position_kinematics_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM)
    motion_subspace_into(order, ji, jf, q, R_WF, p_WM, S)
    velocity_kinematics_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c)
    spatial_inertias_into(bp, R_WB, p_WB, Iw)


def kinematics_layout(nq: int, nv: int, nb: int) -> dict:
    """{name: (offset, shape)} of the kinematics arrays in one flat float64 buffer (kinematics_flat's `buf`), in
    the buffer's order: q, v, R_WB, R_WF, p_WB, p_WF, p_WM, S, V, c, Iw (arrays of one row shape are adjacent, so
    kinematics_flat views each group with one reshape), then the dynamics' scratch (kinematics_mass_matrix_flat's
    composite inertias (nb, 10) and body accelerations and forces (2·nb, 6): not kinematics)."""
    shapes = [("q", (nq,)), ("v", (nv,)), ("R_WB", (nb, 3, 3)), ("R_WF", (nb, 3, 3)), ("p_WB", (nb, 3)),
              ("p_WF", (nb, 3)), ("p_WM", (nb, 3)), ("S", (nv, 6)), ("V", (nb, 6)), ("c", (nb, 6)), ("Iw", (nb, 6, 6)),
              ("scratch", (22 * nb,))]
    out, offset = {}, 0
    for name, shape in shapes:
        out[name] = (offset, shape)
        offset += int(np.prod(shape))
    out["size"] = (offset, ())
    return out


@njit(cache=True)
def kinematics_views(buf, nq, nv, nb):
    """(q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw): views of a buffer laid out as kinematics_layout (arrays of
    one row shape are adjacent: four reshapes, each about as costly as a body's math, view all eleven; the
    stages run faster on these C-contiguous views than on as_strided's cheaper, any-layout ones)."""
    q, v, o = buf[0:nq], buf[nq:nq + nv], nq + nv
    R, o = buf[o:o + 18 * nb].reshape((2 * nb, 3, 3)), o + 18 * nb
    p, o = buf[o:o + 9 * nb].reshape((3 * nb, 3)), o + 9 * nb
    rows, o = buf[o:o + 6 * (nv + 2 * nb)].reshape((nv + 2 * nb, 6)), o + 6 * (nv + 2 * nb)
    Iw = buf[o:o + 36 * nb].reshape((nb, 6, 6))
    return (q, v, R[:nb], p[:nb], R[nb:], p[nb:2 * nb], p[2 * nb:], rows[:nv], rows[nv:nv + nb], rows[nv + nb:],
            Iw)


# The plant's entries below allocate nothing and are compiled without numba's runtime (`_nrt=False`, see
# contact/linalg.py): no reference counting of their arguments (unboxed from Python: ~0.3 us of an 11-argument
# call) or of the buffer's views, which their inlined copy of kinematics_views makes in the entry's own code.
_kinematics_views_inlined = njit(inline="always")(kinematics_views.py_func)


@njit(cache=True, _nrt=False)
def kinematics_flat(order, ji, jf, bp, x, nq, nv, buf):
    """kinematics_into at q = x[:nq], v = x[nq:nq + nv] over one flat buffer laid out as kinematics_layout: one
    array argument for all outputs keeps a call from Python cheap (each array argument costs its unboxing)."""
    q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw = _kinematics_views_inlined(buf, nq, nv, ji.shape[0])
    for i in range(nq):
        q[i] = x[i]
    for i in range(nv):
        v[i] = x[nq + i]
    kinematics_into(order, ji, jf, bp, q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw)


@njit(cache=True, _nrt=False)
def kinematics_mass_matrix_flat(order, ji, jf, bp, x, nq, nv, buf, refl, M, Cv):
    """kinematics_flat, then M(q) into M (nv × nv) and, when Cv has nv entries (else none), C(q, v)·v into Cv: a
    state change followed by CalcMassMatrix (and CalcBiasTerm) in one call, the dynamics' temporaries in the
    buffer's scratch rows (kinematics_layout)."""
    nb = ji.shape[0]
    q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw = _kinematics_views_inlined(buf, nq, nv, nb)
    for i in range(nq):
        q[i] = x[i]
    for i in range(nv):
        v[i] = x[nq + i]
    position_kinematics_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM)
    motion_subspace_into(order, ji, jf, q, R_WF, p_WM, S)
    velocity_kinematics_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c)
    spatial_inertias_into(bp, R_WB, p_WB, Iw)
    o = nq + 7 * nv + 75 * nb  # the scratch (kinematics_layout)
    mass_matrix_scratch_into(order, ji, refl, S, Iw, M, buf[o:o + 10 * nb].reshape((nb, 10)))
    if Cv.shape[0] > 0:
        Af = buf[o + 10 * nb:o + 22 * nb].reshape((2 * nb, 6))
        bias_term_scratch_into(order, ji, S, Iw, V, c, Cv, Af[:nb], Af[nb:])


@njit(cache=True, _nrt=False)
def mass_matrix_flat(order, ji, nq, nv, buf, refl, M):
    """M(q) into M (nv × nv) from the kinematics in buf (kinematics_layout), its scratch rows holding the composite
    inertias: CalcMassMatrix of a context whose kinematics are up to date."""
    nb = ji.shape[0]
    q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw = _kinematics_views_inlined(buf, nq, nv, nb)
    o = nq + 7 * nv + 75 * nb
    mass_matrix_scratch_into(order, ji, refl, S, Iw, M, buf[o:o + 10 * nb].reshape((nb, 10)))


@njit(cache=True, _nrt=False)
def bias_term_flat(order, ji, nq, nv, buf, Cv):
    """C(q, v)·v into Cv (nv) from the kinematics in buf (kinematics_layout), its scratch rows holding the body
    accelerations and forces."""
    nb = ji.shape[0]
    q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw = _kinematics_views_inlined(buf, nq, nv, nb)
    o = nq + 7 * nv + 75 * nb + 10 * nb
    Af = buf[o:o + 12 * nb].reshape((2 * nb, 6))
    bias_term_scratch_into(order, ji, S, Iw, V, c, Cv, Af[:nb], Af[nb:])


@njit(cache=True, _nrt=False)
def inverse_dynamics_flat(order, ji, nq, nv, buf, refl, vdot, F_Bo_W, tau_app, tau):
    """τ = M v̇ + C v − τ_app − Σ J_WBᵀ·F_Bo_W into tau (nv) from the kinematics in buf (kinematics_layout), its
    scratch rows holding the body accelerations and forces (kernels/dynamics.inverse_dynamics_scratch_into)."""
    nb = ji.shape[0]
    q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw = _kinematics_views_inlined(buf, nq, nv, nb)
    o = nq + 7 * nv + 75 * nb + 10 * nb
    Af = buf[o:o + 12 * nb].reshape((2 * nb, 6))
    inverse_dynamics_scratch_into(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app, tau, Af[:nb], Af[nb:])


@njit(cache=True)
def mass_matrix_from_inertias(order, ji, refl, S, Iw):
    """M(q) by the composite-rigid-body algorithm, from precomputed world inertias."""
    nv = S.shape[0]
    M = np.empty((nv, nv))
    mass_matrix_into(order, ji, refl, S, Iw, M)
    return M


@njit(cache=True)
def inverse_dynamics_from_inertias(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app):
    """τ = M v̇ + C v − τ_app − Σ J_WBᵀ F_Bo_W by recursive Newton–Euler, from precomputed inertias."""
    tau = np.empty(S.shape[0])
    inverse_dynamics_into(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app, tau)
    return tau


@njit(cache=True)
def forward_dynamics_from_inertias(order, ji, refl, S, Iw, p_WB, V, c, F_Bo_W, tau_app, extra_diag):
    """v̇ solving (M + diag(extra_diag)) v̇ + C v = τ_app + Σ J_WBᵀ F_Bo_W, from precomputed inertias."""
    nv = S.shape[0]
    M = np.empty((nv, nv))
    mass_matrix_into(order, ji, refl, S, Iw, M)
    rhs = np.empty(nv)
    inverse_dynamics_into(order, ji, refl, S, Iw, p_WB, V, c, np.zeros(nv), F_Bo_W, tau_app, rhs)
    for i in range(nv):
        M[i, i] += extra_diag[i]
        rhs[i] = -rhs[i]
    return solve_spd(M, rhs)


@njit(cache=True)
def discrete_step(order, ji, refl, S, Iw, p_WB, V, c, F_Bo_W, tau_app, damping, h, q, v):
    """Semi-implicit Euler with implicit joint damping D:

    (M + h·D)·a = τ_app + Σ J_WBᵀ F_Bo_W − C v − D v,  v⁺ = v + h·a,  q⁺ = q + h·N(q)·v⁺.
    Returns (x⁺ = [q⁺; v⁺], a).
    """
    nq = q.shape[0]
    nv = v.shape[0]
    tau = tau_app.copy()
    hd = np.empty(nv)
    for i in range(nv):
        tau[i] -= damping[i] * v[i]
        hd[i] = h * damping[i]
    a = forward_dynamics_from_inertias(order, ji, refl, S, Iw, p_WB, V, c, F_Bo_W, tau, hd)
    x = np.empty(nq + nv)
    for i in range(nv):
        x[nq + i] = v[i] + h * a[i]
    qdot = map_velocity_to_qdot(order, ji, q, x[nq:])
    for i in range(nq):
        x[i] = q[i] + h * qdot[i]
    return x, a


@njit(cache=True)
def spatial_accelerations_stage(order, ji, S, c, vdot):
    """Body spatial accelerations (nb × 6, Plücker at Wo) for a given v̇."""
    return calc_accelerations(order, ji, S, c, vdot)


@njit(cache=True)
def point_jacobian(ji, S, body, p_WP):
    """J_V_WP (6 × nv): rows [w_WB; v_WP] of the body point P (at p_WP) per unit generalized velocity, in W."""
    nv = S.shape[0]
    J = np.zeros((6, nv))
    a = body
    while a > 0:
        vs = ji[a, 4]
        for j in range(ji[a, 5]):
            col = vs + j
            w = S[col, 0:3]
            J[0:3, col] = w
            J[3:6, col] = S[col, 3:6] + cross3(w, p_WP)
        a = ji[a, 0]
    return J


@njit(cache=True)
def points_jacobian(ji, S, body, p_WP):
    """Translational Jacobians of many points of one body, stacked (3·np × nv), expressed in W."""
    npnt = p_WP.shape[0]
    nv = S.shape[0]
    J = np.zeros((3 * npnt, nv))
    a = body
    while a > 0:
        vs = ji[a, 4]
        for j in range(ji[a, 5]):
            col = vs + j
            w = S[col, 0:3]
            for i in range(npnt):
                J[3 * i:3 * i + 3, col] = S[col, 3:6] + cross3(w, p_WP[i])
        a = ji[a, 0]
    return J


@njit(cache=True)
def n_matrix(order, ji, q, nq, nv):
    """The block-diagonal N(q) (nq × nv) with q̇ = N(q)·v."""
    N = np.zeros((nq, nv))
    for k in range(order.shape[0]):
        b = order[k]
        qs, nqb, vs, nvb = ji[b, 2], ji[b, 3], ji[b, 4], ji[b, 5]
        if nqb == 0:
            continue
        blk = np.zeros((nqb, nvb))
        joint_n_matrix(ji[b, 1], q[qs:qs + nqb], blk)
        N[qs:qs + nqb, vs:vs + nvb] = blk
    return N


@njit(cache=True)
def nplus_matrix(order, ji, q, nq, nv):
    """The block-diagonal N⁺(q) (nv × nq) with v = N⁺(q)·q̇."""
    Np = np.zeros((nv, nq))
    for k in range(order.shape[0]):
        b = order[k]
        qs, nqb, vs, nvb = ji[b, 2], ji[b, 3], ji[b, 4], ji[b, 5]
        if nqb == 0:
            continue
        blk = np.zeros((nvb, nqb))
        joint_nplus_matrix(ji[b, 1], q[qs:qs + nqb], blk)
        Np[vs:vs + nvb, qs:qs + nqb] = blk
    return Np


@njit(cache=True)
def map_velocity_to_qdot(order, ji, q, v):
    """q̇ = N(q)·v without forming N."""
    qdot = np.zeros(q.shape[0])
    for k in range(order.shape[0]):
        b = order[k]
        qs, nqb, vs, nvb = ji[b, 2], ji[b, 3], ji[b, 4], ji[b, 5]
        if nqb == 0:
            continue
        jt = ji[b, 1]
        if jt == 5 or jt == 7 or jt == 8 or jt == 9:
            blk = np.zeros((nqb, nvb))
            joint_n_matrix(jt, q[qs:qs + nqb], blk)
            for i in range(nqb):
                acc = 0.0
                for j in range(nvb):
                    acc += blk[i, j] * v[vs + j]
                qdot[qs + i] = acc
        else:
            for i in range(nqb):
                qdot[qs + i] = v[vs + i]
    return qdot
