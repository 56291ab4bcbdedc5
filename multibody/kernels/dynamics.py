"""Rigid-body dynamics kernels over the compiled arrays: CRBA, RNEA and forward dynamics.

All spatial quantities are world Plücker vectors at Wo (see `kinematics`).  Generalized forces
follow Drake: M(q)·v̇ + C(q,v)·v = τ, with reflected (rotor) inertia on the diagonal of M.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .kinematics import force_cross_into


@njit(cache=True)
def calc_mass_matrix(order, ji, S, Iw, reflected_inertia):
    """Composite-rigid-body algorithm: the nv × nv mass matrix M (reflected inertia on the diagonal)."""
    nvt = S.shape[0]
    M = np.zeros((nvt, nvt))
    Ic = Iw.copy()
    F = np.empty(6)
    for k in range(order.shape[0] - 1, -1, -1):
        b = order[k]
        P = ji[b, 0]
        if P > 0:
            for r in range(6):
                for s_ in range(6):
                    Ic[P, r, s_] += Ic[b, r, s_]
        for j in range(ji[b, 5]):
            col = ji[b, 4] + j
            Icb = Ic[b]
            Sc = S[col]
            for r in range(6):
                F[r] = (Icb[r, 0] * Sc[0] + Icb[r, 1] * Sc[1] + Icb[r, 2] * Sc[2] + Icb[r, 3] * Sc[3]
                        + Icb[r, 4] * Sc[4] + Icb[r, 5] * Sc[5])
            # Walk to the root: rows of every joint on the path from b to the world.
            a = b
            while a > 0:
                for i in range(ji[a, 5]):
                    row = ji[a, 4] + i
                    Sr = S[row]
                    val = Sr[0] * F[0] + Sr[1] * F[1] + Sr[2] * F[2] + Sr[3] * F[3] + Sr[4] * F[4] + Sr[5] * F[5]
                    M[row, col] = val
                    M[col, row] = val
                a = ji[a, 0]
    for i in range(nvt):
        M[i, i] += reflected_inertia[i]
    return M


@njit(cache=True)
def calc_inverse_dynamics(order, ji, S, Iw, V, A, F_ext, tau_applied, reflected_inertia, vdot):
    """Recursive Newton–Euler: τ = M v̇ + C v − τ_app − Σ Jᵀ F_ext, given body accelerations A.

    F_ext (nb × 6) holds applied body spatial forces at Wo in W; A comes from `calc_accelerations`.
    """
    nb = Iw.shape[0]
    f = np.zeros((nb, 6))
    tau = np.zeros(S.shape[0])
    h = np.empty(6)
    vxh = np.empty(6)
    for k in range(order.shape[0]):
        b = order[k]
        I = Iw[b]
        Vb = V[b]
        Ab = A[b]
        for r in range(6):
            h[r] = I[r, 0] * Vb[0] + I[r, 1] * Vb[1] + I[r, 2] * Vb[2] + I[r, 3] * Vb[3] + I[r, 4] * Vb[4] + I[r, 5] * Vb[5]
        force_cross_into(Vb, h, vxh)
        for r in range(6):
            f[b, r] = (I[r, 0] * Ab[0] + I[r, 1] * Ab[1] + I[r, 2] * Ab[2] + I[r, 3] * Ab[3] + I[r, 4] * Ab[4]
                       + I[r, 5] * Ab[5] + vxh[r] - F_ext[b, r])
    for k in range(order.shape[0] - 1, -1, -1):
        b = order[k]
        for j in range(ji[b, 5]):
            i = ji[b, 4] + j
            Si = S[i]
            fb = f[b]
            tau[i] = (Si[0] * fb[0] + Si[1] * fb[1] + Si[2] * fb[2] + Si[3] * fb[3] + Si[4] * fb[4] + Si[5] * fb[5]
                      + reflected_inertia[i] * vdot[i] - tau_applied[i])
        P = ji[b, 0]
        if P > 0:
            for r in range(6):
                f[P, r] += f[b, r]
    return tau, f


@njit(cache=True)
def body_forces_at_origin(p_WB, F_Bo_W):
    """Shift spatial forces applied at body origins (F_Bo_W, nb × 6) to Wo: τ_Wo = τ_Bo + p_WBo × f."""
    out = np.empty_like(F_Bo_W)
    for b in range(p_WB.shape[0]):
        f = F_Bo_W[b, 3:6]
        p = p_WB[b]
        out[b, 0] = F_Bo_W[b, 0] + p[1] * f[2] - p[2] * f[1]
        out[b, 1] = F_Bo_W[b, 1] + p[2] * f[0] - p[0] * f[2]
        out[b, 2] = F_Bo_W[b, 2] + p[0] * f[1] - p[1] * f[0]
        out[b, 3:6] = f
    return out


@njit(cache=True)
def gravity_forces_at_body_origins(bp, R_WB, g_W, gravity_enabled):
    """Weight of every body as a spatial force at Bo, in W: [p_BoBcm_W × m·g; m·g] (world body gets none)."""
    out = np.zeros((bp.shape[0], 6))
    for b in range(1, bp.shape[0]):
        if not gravity_enabled[b]:
            continue
        R = R_WB[b]
        c = np.empty(3)
        for i in range(3):
            c[i] = R[i, 0] * bp[b, 1] + R[i, 1] * bp[b, 2] + R[i, 2] * bp[b, 3]
        f = bp[b, 0] * g_W
        out[b, 0] = c[1] * f[2] - c[2] * f[1]
        out[b, 1] = c[2] * f[0] - c[0] * f[2]
        out[b, 2] = c[0] * f[1] - c[1] * f[0]
        out[b, 3:6] = f
    return out


@njit(cache=True)
def solve_spd(M, b):
    """Solve M x = b for a symmetric positive-definite M by Cholesky; raises on a non-SPD M."""
    n = M.shape[0]
    if n == 0:
        return np.zeros(0)
    L = np.linalg.cholesky(M)
    y = np.empty(n)
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * y[k]
        y[i] = s / L[i, i]
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    return x
