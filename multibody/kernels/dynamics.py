"""Rigid-body dynamics kernels over the compiled arrays: CRBA, RNEA and forward dynamics.

All spatial quantities are world Plücker vectors at Wo (see `kinematics`).  Generalized forces
follow Drake: M(q)·v̇ + C(q,v)·v = τ, with reflected (rotor) inertia on the diagonal of M.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .kinematics import force_cross_into


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
    out = np.empty((bp.shape[0], 6))
    gravity_forces_into(bp, R_WB, g_W, gravity_enabled, out)
    return out


@njit(cache=True, _nrt=False)
def gravity_forces_into(bp, R_WB, g_W, gravity_enabled, out):
    """gravity_forces_at_body_origins written into a preallocated (nb, 6) `out` (overwritten whole)."""
    out[:] = 0.0
    gx, gy, gz = g_W[0], g_W[1], g_W[2]
    for b in range(1, bp.shape[0]):
        if not gravity_enabled[b]:
            continue
        R = R_WB[b]
        cx, cy, cz = bp[b, 1], bp[b, 2], bp[b, 3]
        c0 = R[0, 0] * cx + R[0, 1] * cy + R[0, 2] * cz
        c1 = R[1, 0] * cx + R[1, 1] * cy + R[1, 2] * cz
        c2 = R[2, 0] * cx + R[2, 1] * cy + R[2, 2] * cz
        m = bp[b, 0]
        f0, f1, f2 = m * gx, m * gy, m * gz
        out[b, 0] = c1 * f2 - c2 * f1
        out[b, 1] = c2 * f0 - c0 * f2
        out[b, 2] = c0 * f1 - c1 * f0
        out[b, 3], out[b, 4], out[b, 5] = f0, f1, f2


@njit(cache=True)
def solve_spd(M, b):
    """Solve M x = b for a symmetric positive-definite M by Cholesky; raises on a non-SPD M."""
    if M.shape[0] == 0:
        return np.zeros(0)
    return cholesky_solve(np.linalg.cholesky(M), b)


@njit(cache=True)
def cholesky_solve(L, b):
    """Solve (L Lᵀ) x = b for a lower-triangular Cholesky factor L (forward, then back substitution)."""
    x = b.copy()
    cholesky_solve_in_place(L, x)
    return x


@njit(cache=True, _nrt=False)
def cholesky_solve_in_place(L, b):
    """b ← (L Lᵀ)⁻¹ b for a lower-triangular Cholesky factor L: the forward substitution overwrites b with y, the
    back substitution y with x (each entry is read before it is written)."""
    n = b.shape[0]
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * b[k]
        b[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= L[k, i] * b[k]
        b[i] = s / L[i, i]


@njit(cache=True)
def mass_matrix_into(order, ji, refl, S, Iw, M):
    """M(q) (nv × nv) into M by the composite-rigid-body algorithm, reflected inertia on the diagonal.

    order: bodies parents-first (world excluded); ji: per-body joint ints (parent, type, q0, nq, v0, nv);
    S: joint columns (nv × 6); Iw: world spatial inertias at Wo (nb × 6 × 6).  Composite inertias are
    accumulated in their 10 independent numbers (m, m·p_WoCm, the symmetric rotational block at Wo).
    """
    mass_matrix_scratch_into(order, ji, refl, S, Iw, M, np.empty((Iw.shape[0], 10)))


@njit(cache=True, _nrt=False)
def mass_matrix_scratch_into(order, ji, refl, S, Iw, M, Ic):
    """mass_matrix_into with its composite inertias in the caller's (nb, 10) scratch Ic (overwritten whole): no
    allocation (compiled without numba's runtime: no reference counting, see contact/linalg.py)."""
    nv = M.shape[0]
    for i in range(nv):
        for j in range(nv):
            M[i, j] = 0.0
    mass_matrix_tree_into(order, ji, refl, S, Iw, M, Ic)


@njit(cache=True, _nrt=False)
def mass_matrix_tree_into(order, ji, refl, S, Iw, M, Ic):
    """mass_matrix_scratch_into writing only M's entries of the tree sparsity (dof pairs on one root-to-leaf path),
    every one of them assigned: for an M whose other entries are zero already and stay so (the compiled step's
    M̂, zeroed when allocated; no stage writes outside that sparsity), which then needs no zero-fill per step
    (nv² stores: most of this stage for 27 free bodies)."""
    nv = M.shape[0]
    nb = Iw.shape[0]
    # Ic rows: [Ixx, Iyy, Izz, Ixy, Ixz, Iyz, m·cx, m·cy, m·cz, m]
    for b in range(nb):
        I = Iw[b]
        Ic[b, 0], Ic[b, 1], Ic[b, 2] = I[0, 0], I[1, 1], I[2, 2]
        Ic[b, 3], Ic[b, 4], Ic[b, 5] = I[0, 1], I[0, 2], I[1, 2]
        Ic[b, 6], Ic[b, 7], Ic[b, 8], Ic[b, 9] = -I[1, 5], I[0, 5], -I[0, 4], I[3, 3]
    for k in range(order.shape[0] - 1, -1, -1):
        b = order[k]
        P = ji[b, 0]
        if P > 0:
            for r in range(10):
                Ic[P, r] += Ic[b, r]
        ixx, iyy, izz, ixy, ixz, iyz = Ic[b, 0], Ic[b, 1], Ic[b, 2], Ic[b, 3], Ic[b, 4], Ic[b, 5]
        hx, hy, hz, m = Ic[b, 6], Ic[b, 7], Ic[b, 8], Ic[b, 9]
        for j in range(ji[b, 5]):
            col = ji[b, 4] + j
            w0, w1, w2, v0, v1, v2 = S[col, 0], S[col, 1], S[col, 2], S[col, 3], S[col, 4], S[col, 5]
            # F = Ic·S: [Ī·w + h × v; w × h + m·v] with h = m·p_WoCm.
            f0 = ixx * w0 + ixy * w1 + ixz * w2 + hy * v2 - hz * v1
            f1 = ixy * w0 + iyy * w1 + iyz * w2 + hz * v0 - hx * v2
            f2 = ixz * w0 + iyz * w1 + izz * w2 + hx * v1 - hy * v0
            f3 = w1 * hz - w2 * hy + m * v0
            f4 = w2 * hx - w0 * hz + m * v1
            f5 = w0 * hy - w1 * hx + m * v2
            a = b
            while a > 0:  # rows of every joint on the path from b to the world
                for i in range(ji[a, 5]):
                    row = ji[a, 4] + i
                    val = (S[row, 0] * f0 + S[row, 1] * f1 + S[row, 2] * f2 + S[row, 3] * f3 + S[row, 4] * f4
                           + S[row, 5] * f5)
                    M[row, col] = val
                    M[col, row] = val
                a = ji[a, 0]
    for i in range(nv):
        M[i, i] += refl[i]


@njit(cache=True)
def inverse_dynamics_into(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app, tau):
    """τ = M v̇ + C v − τ_app − Σ J_WBᵀ·F_Bo_W into tau, by recursive Newton–Euler.

    F_Bo_W (nb × 6): applied spatial forces at the body origins, in W; V, c: body velocities and velocity-product
    terms (nb × 6, at Wo); p_WB (nb × 3): body origins.  Scalars are hoisted out of the 6-vector loops: numba
    then keeps them in registers (about twice as fast as indexing rows).
    """
    nb = Iw.shape[0]
    inverse_dynamics_scratch_into(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app, tau, np.empty((nb, 6)),
                                  np.empty((nb, 6)))


@njit(cache=True, _nrt=False)
def inverse_dynamics_scratch_into(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app, tau, A, f):
    """inverse_dynamics_into with the body accelerations and forces in the caller's (nb, 6) scratch A and f
    (zeroed here): no allocation (compiled without numba's runtime). tau may be vdot (each v̇ is read before its
    τ is written: the forward pass reads them all)."""
    A[:] = 0.0
    f[:] = 0.0
    newton_euler_into(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app, tau, A, f)


@njit(inline="always", _nrt=False)
def newton_euler_into(order, ji, refl, S, Iw, p_WB, V, c, vdot, F_Bo_W, tau_app, tau, A, f):
    """inverse_dynamics_scratch_into without its fills: writes the rows of A and f of the bodies in `order` whole
    before reading them and reads the world's row of A (zero) as the caller left it. Inlined into its callers."""
    for k in range(order.shape[0]):
        b = order[k]
        P = ji[b, 0]
        vs = ji[b, 4]
        a0, a1, a2 = A[P, 0] + c[b, 0], A[P, 1] + c[b, 1], A[P, 2] + c[b, 2]
        a3, a4, a5 = A[P, 3] + c[b, 3], A[P, 4] + c[b, 4], A[P, 5] + c[b, 5]
        for j in range(ji[b, 5]):
            i = vs + j
            vd = vdot[i]
            a0 += S[i, 0] * vd
            a1 += S[i, 1] * vd
            a2 += S[i, 2] * vd
            a3 += S[i, 3] * vd
            a4 += S[i, 4] * vd
            a5 += S[i, 5] * vd
        A[b, 0], A[b, 1], A[b, 2], A[b, 3], A[b, 4], A[b, 5] = a0, a1, a2, a3, a4, a5
        w0, w1, w2, v0, v1, v2 = V[b, 0], V[b, 1], V[b, 2], V[b, 3], V[b, 4], V[b, 5]
        I = Iw[b]
        h0 = I[0, 0] * w0 + I[0, 1] * w1 + I[0, 2] * w2 + I[0, 3] * v0 + I[0, 4] * v1 + I[0, 5] * v2
        h1 = I[1, 0] * w0 + I[1, 1] * w1 + I[1, 2] * w2 + I[1, 3] * v0 + I[1, 4] * v1 + I[1, 5] * v2
        h2 = I[2, 0] * w0 + I[2, 1] * w1 + I[2, 2] * w2 + I[2, 3] * v0 + I[2, 4] * v1 + I[2, 5] * v2
        h3 = I[3, 0] * w0 + I[3, 1] * w1 + I[3, 2] * w2 + I[3, 3] * v0 + I[3, 4] * v1 + I[3, 5] * v2
        h4 = I[4, 0] * w0 + I[4, 1] * w1 + I[4, 2] * w2 + I[4, 3] * v0 + I[4, 4] * v1 + I[4, 5] * v2
        h5 = I[5, 0] * w0 + I[5, 1] * w1 + I[5, 2] * w2 + I[5, 3] * v0 + I[5, 4] * v1 + I[5, 5] * v2
        for r in range(6):
            f[b, r] = I[r, 0] * a0 + I[r, 1] * a1 + I[r, 2] * a2 + I[r, 3] * a3 + I[r, 4] * a4 + I[r, 5] * a5
        # f = I·A + V ×* (I·V) − F_ext, with F_ext = [τ + p_WBo × f; f] shifted from Bo to Wo.
        px, py, pz = p_WB[b, 0], p_WB[b, 1], p_WB[b, 2]
        fx, fy, fz = F_Bo_W[b, 3], F_Bo_W[b, 4], F_Bo_W[b, 5]
        f[b, 0] += w1 * h2 - w2 * h1 + v1 * h5 - v2 * h4 - (F_Bo_W[b, 0] + py * fz - pz * fy)
        f[b, 1] += w2 * h0 - w0 * h2 + v2 * h3 - v0 * h5 - (F_Bo_W[b, 1] + pz * fx - px * fz)
        f[b, 2] += w0 * h1 - w1 * h0 + v0 * h4 - v1 * h3 - (F_Bo_W[b, 2] + px * fy - py * fx)
        f[b, 3] += w1 * h5 - w2 * h4 - fx
        f[b, 4] += w2 * h3 - w0 * h5 - fy
        f[b, 5] += w0 * h4 - w1 * h3 - fz
    for k in range(order.shape[0] - 1, -1, -1):
        b = order[k]
        vs = ji[b, 4]
        f0, f1, f2, f3, f4, f5 = f[b, 0], f[b, 1], f[b, 2], f[b, 3], f[b, 4], f[b, 5]
        for j in range(ji[b, 5]):
            i = vs + j
            tau[i] = (S[i, 0] * f0 + S[i, 1] * f1 + S[i, 2] * f2 + S[i, 3] * f3 + S[i, 4] * f4 + S[i, 5] * f5
                      + refl[i] * vdot[i] - tau_app[i])
        P = ji[b, 0]
        if P > 0:
            f[P, 0] += f0
            f[P, 1] += f1
            f[P, 2] += f2
            f[P, 3] += f3
            f[P, 4] += f4
            f[P, 5] += f5


@njit(cache=True)
def bias_term_into(order, ji, S, Iw, V, c, tau):
    """C(q, v)·v into tau: the recursive Newton–Euler passes of `inverse_dynamics_into` specialized to v̇ = 0 and
    no applied forces (written out: a call with zero arrays costs more than the 7-DOF math)."""
    nb = Iw.shape[0]
    bias_term_scratch_into(order, ji, S, Iw, V, c, tau, np.empty((nb, 6)), np.empty((nb, 6)))


@njit(cache=True, _nrt=False)
def bias_term_scratch_into(order, ji, S, Iw, V, c, tau, A, f):
    """bias_term_into with the body accelerations and forces in the caller's (nb, 6) scratch A and f (zeroed
    here): no allocation (compiled without numba's runtime)."""
    A[:] = 0.0
    f[:] = 0.0
    for k in range(order.shape[0]):
        b = order[k]
        P = ji[b, 0]
        a0, a1, a2 = A[P, 0] + c[b, 0], A[P, 1] + c[b, 1], A[P, 2] + c[b, 2]
        a3, a4, a5 = A[P, 3] + c[b, 3], A[P, 4] + c[b, 4], A[P, 5] + c[b, 5]
        A[b, 0], A[b, 1], A[b, 2], A[b, 3], A[b, 4], A[b, 5] = a0, a1, a2, a3, a4, a5
        w0, w1, w2, v0, v1, v2 = V[b, 0], V[b, 1], V[b, 2], V[b, 3], V[b, 4], V[b, 5]
        I = Iw[b]
        h0 = I[0, 0] * w0 + I[0, 1] * w1 + I[0, 2] * w2 + I[0, 3] * v0 + I[0, 4] * v1 + I[0, 5] * v2
        h1 = I[1, 0] * w0 + I[1, 1] * w1 + I[1, 2] * w2 + I[1, 3] * v0 + I[1, 4] * v1 + I[1, 5] * v2
        h2 = I[2, 0] * w0 + I[2, 1] * w1 + I[2, 2] * w2 + I[2, 3] * v0 + I[2, 4] * v1 + I[2, 5] * v2
        h3 = I[3, 0] * w0 + I[3, 1] * w1 + I[3, 2] * w2 + I[3, 3] * v0 + I[3, 4] * v1 + I[3, 5] * v2
        h4 = I[4, 0] * w0 + I[4, 1] * w1 + I[4, 2] * w2 + I[4, 3] * v0 + I[4, 4] * v1 + I[4, 5] * v2
        h5 = I[5, 0] * w0 + I[5, 1] * w1 + I[5, 2] * w2 + I[5, 3] * v0 + I[5, 4] * v1 + I[5, 5] * v2
        for r in range(6):
            f[b, r] = I[r, 0] * a0 + I[r, 1] * a1 + I[r, 2] * a2 + I[r, 3] * a3 + I[r, 4] * a4 + I[r, 5] * a5
        f[b, 0] += w1 * h2 - w2 * h1 + v1 * h5 - v2 * h4
        f[b, 1] += w2 * h0 - w0 * h2 + v2 * h3 - v0 * h5
        f[b, 2] += w0 * h1 - w1 * h0 + v0 * h4 - v1 * h3
        f[b, 3] += w1 * h5 - w2 * h4
        f[b, 4] += w2 * h3 - w0 * h5
        f[b, 5] += w0 * h4 - w1 * h3
    for k in range(order.shape[0] - 1, -1, -1):
        b = order[k]
        vs = ji[b, 4]
        f0, f1, f2, f3, f4, f5 = f[b, 0], f[b, 1], f[b, 2], f[b, 3], f[b, 4], f[b, 5]
        for j in range(ji[b, 5]):
            i = vs + j
            tau[i] = S[i, 0] * f0 + S[i, 1] * f1 + S[i, 2] * f2 + S[i, 3] * f3 + S[i, 4] * f4 + S[i, 5] * f5
        P = ji[b, 0]
        if P > 0:
            f[P, 0] += f0
            f[P, 1] += f1
            f[P, 2] += f2
            f[P, 3] += f3
            f[P, 4] += f4
            f[P, 5] += f5
