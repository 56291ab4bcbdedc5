"""Drake's TAMSI solver (Castro et al. 2019, "A Transition-Aware Method for the Simulation of Compliant Contact
with Regularized Friction") over dense arrays, with TamsiDriver's substepping.

Each (sub)step solves the nonlinear momentum balance for the next velocities v,

    M·v − p* − h·Jnᵀ·fn(v) − h·Jtᵀ·ft(v) = 0,
    fn = (fn0 − h·k·vn)₊·(1 − d·vn)₊ (Hunt–Crossley),  ft = −μ(‖vt‖ₛ/vs)·fn·vt/‖vt‖ₛ,

with μ(x) = μ·x·(2 − x) below the stiction tolerance vs (x < 1), by Newton–Raphson with TAMSI's limit on the
change of direction of each contact's tangential velocity (TalsLimiter, θ_max = π/3). It converges when the
Newton updates of vn and vt are below 1e-2·vs; TamsiDriver retries with 2, 3, … 20 substeps of 20 iterations
each when a solve fails. Contacts' rows come in the order (normal, tangent 1, tangent 2), the normal from A to B.
"""
from __future__ import annotations

import numpy as np
from numba import njit

TAMSI_RELATIVE_TOLERANCE = 1e-2
TAMSI_THETA_MAX = np.pi / 3.0
TAMSI_MAX_ITERATIONS = 20          # TamsiDriver's iterations per substep
TAMSI_MAX_SUBSTEPS = 20
TAMSI_OK, TAMSI_MAX_ITERATIONS_REACHED, TAMSI_ALPHA_FAILED = 0, 1, 2


@njit(cache=True)
def _smallest_positive_root(a, b, c):
    """TalsLimiter's smallest positive root of a·α² + b·α + c (-1: none)."""
    eps = 2.220446049250313e-16
    if abs(a) < eps:
        return -c / b
    delta = b * b - 4.0 * a * c
    if not delta > 0.0:
        return -1.0
    sq = np.sqrt(delta)
    num = -0.5 * (b + (sq if b > 0.0 else -sq))
    a1, a2 = num / a, c / num
    if a1 > 0.0 and a2 > 0.0:
        return min(a1, a2)
    return max(a1, a2)


@njit(cache=True)
def TalsAlpha(v0, v1, dv0, dv1, cos_theta_max, vs, rel_tol):
    """TAMSI's step limit α ∈ (0, 1] for one contact's tangential velocity v and its update dv (-1: failed)."""
    eps_v = vs * rel_tol
    dv_norm2 = dv0 * dv0 + dv1 * dv1
    if dv_norm2 < eps_v * eps_v:
        return 1.0
    w0, w1 = v0 + dv0, v1 + dv1
    v_norm = np.sqrt(v0 * v0 + v1 * v1)
    w_norm = np.sqrt(w0 * w0 + w1 * w1)
    x, x1 = v_norm / vs, w_norm / vs
    dv_norm = np.sqrt(dv_norm2)
    if x < rel_tol and x1 > 1.0:
        return vs / dv_norm / 2.0
    if x > 1.0 and x1 < rel_tol:
        return 1.0 - vs / 2.0 / dv_norm
    if x < 1.0 or x1 < 1.0:
        return 1.0
    v_dot_dv = v0 * dv0 + v1 * dv1
    if v_dot_dv < 0.0:  # moving towards the origin: does the update cross the stiction region?
        alpha = -v_dot_dv / dv_norm2
        if alpha < 1.0:
            a0, a1 = v0 + alpha * dv0, v1 + alpha * dv1
            va = np.sqrt(a0 * a0 + a1 * a1)
            if va < eps_v:
                return alpha - vs / 2.0 / dv_norm
            if va < vs:
                return alpha
    cos1 = (v0 * w0 + v1 * w1) / v_norm / w_norm
    if cos1 > cos_theta_max:
        return 1.0
    x_dot_dx = v_dot_dv / (vs * vs)
    dx = dv_norm / vs
    x2 = x * x
    c2 = cos_theta_max * cos_theta_max
    return _smallest_positive_root(x2 * dx * dx * c2 - x_dot_dx * x_dot_dx, 2.0 * x2 * x_dot_dx * (c2 - 1.0),
                                   x2 * x2 * (c2 - 1.0))


@njit(cache=True)
def _lu_solve(A, b, x, piv):
    """x = A⁻¹·b by LU with partial pivoting, in place in A (n × n; a small dense Newton matrix: no LAPACK call). A
    zero pivot leaves inf / nan in x, which the step's finiteness checks report."""
    n = A.shape[0]
    for i in range(n):
        piv[i] = i
    for c in range(n):
        p, best = c, abs(A[c, c])
        for r in range(c + 1, n):
            if abs(A[r, c]) > best:
                p, best = r, abs(A[r, c])
        if p != c:
            for j in range(n):
                A[c, j], A[p, j] = A[p, j], A[c, j]
            piv[c], piv[p] = piv[p], piv[c]
        inv = 1.0 / A[c, c] if A[c, c] != 0.0 else np.inf
        for r in range(c + 1, n):
            f = A[r, c] * inv
            A[r, c] = f
            if f != 0.0:
                for j in range(c + 1, n):
                    A[r, j] -= f * A[c, j]
    for i in range(n):
        s = b[piv[i]]
        for j in range(i):
            s -= A[i, j] * x[j]
        x[i] = s
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]


@njit(cache=True)
def _tamsi(M, p_star, v_guess, Jn, Jt, fn0, k, d, mu, h, vs):
    """One TAMSI solve. Returns (status, v, fn (nc), ft (nc, 2))."""
    nv, nc = M.shape[0], fn0.shape[0]
    v = v_guess.copy()
    fn = np.zeros(nc)
    ft = np.zeros((nc, 2))
    if nc == 0:
        return TAMSI_OK, np.linalg.solve(M, p_star), fn, ft
    tol = TAMSI_RELATIVE_TOLERANCE * vs
    eps_v = vs * TAMSI_RELATIVE_TOLERANCE
    cos_max = np.cos(TAMSI_THETA_MAX)
    vt_error, vn_error = 2.0 * tol, 2.0 * tol
    dfn = np.zeros(nc)
    that = np.zeros((nc, 2))
    mu_vt = np.zeros(nc)
    v_slip = np.zeros(nc)
    vn = np.zeros(nc)
    vt = np.zeros((nc, 2))
    residual = np.zeros(nv)
    Jac = np.zeros((nv, nv))
    Gt = np.zeros((2, nv))
    D = np.zeros((2, 2))
    dv = np.zeros(nv)
    rhs = np.zeros(nv)
    piv = np.zeros(nv, np.int64)
    dvt = np.zeros(2 * nc)
    for _ in range(TAMSI_MAX_ITERATIONS):
        for c in range(nc):
            sn = s0 = s1 = 0.0
            for p in range(nv):
                sn += Jn[c, p] * v[p]
                s0 += Jt[2 * c, p] * v[p]
                s1 += Jt[2 * c + 1, p] * v[p]
            vn[c], vt[c, 0], vt[c, 1] = sn, s0, s1
            damp = 1.0 - d[c] * vn[c]
            und = fn0[c] - h * k[c] * vn[c]
            fn[c] = max(0.0, damp) * max(0.0, und)
            dfn[c] = -(d[c] * (1.0 if damp >= 0 else 0.0) * max(0.0, und)
                       + h * k[c] * max(0.0, damp) * (1.0 if und >= 0 else 0.0))
            v_slip[c] = np.sqrt(vt[c, 0] ** 2 + vt[c, 1] ** 2 + eps_v * eps_v)
            that[c, 0], that[c, 1] = vt[c, 0] / v_slip[c], vt[c, 1] / v_slip[c]
            x = v_slip[c] / vs
            mu_vt[c] = mu[c] if x >= 1.0 else mu[c] * x * (2.0 - x)
            ft[c, 0], ft[c, 1] = -mu_vt[c] * that[c, 0] * fn[c], -mu_vt[c] * that[c, 1] * fn[c]
        if max(vt_error, vn_error) < tol:
            return TAMSI_OK, v, fn, ft
        for p in range(nv):
            s = -p_star[p]
            for q in range(nv):
                s += M[p, q] * v[q]
                Jac[p, q] = M[p, q]
            residual[p] = s
        for c in range(nc):
            for p in range(nv):
                residual[p] -= h * (Jn[c, p] * fn[c] + Jt[2 * c, p] * ft[c, 0] + Jt[2 * c + 1, p] * ft[c, 1])
        for c in range(nc):
            x = v_slip[c] / vs
            dmudv = (0.0 if x >= 1.0 else mu[c] * 2.0 * (1.0 - x)) / vs
            for i in range(2):  # dft/dvt (its negative, as Drake's dft_dvt)
                for j in range(2):
                    P = that[c, i] * that[c, j]
                    D[i, j] = (((1.0 if i == j else 0.0) - P) * mu_vt[c] / v_slip[c] + P * dmudv) * fn[c]
            for i in range(2):
                for p in range(nv):
                    Gt[i, p] = -(D[i, 0] * Jt[2 * c, p] + D[i, 1] * Jt[2 * c + 1, p]) \
                        - mu_vt[c] * that[c, i] * dfn[c] * Jn[c, p]
            for p in range(nv):
                a0, a1, an = Jt[2 * c, p], Jt[2 * c + 1, p], Jn[c, p] * dfn[c]
                if a0 == 0.0 and a1 == 0.0 and an == 0.0:
                    continue
                for q in range(nv):
                    Jac[p, q] -= h * (a0 * Gt[0, q] + a1 * Gt[1, q] + an * Jn[c, q])
        for p in range(nv):
            rhs[p] = -residual[p]
        _lu_solve(Jac, rhs, dv, piv)
        en = et = 0.0
        for c in range(nc):
            sn = s0 = s1 = 0.0
            for p in range(nv):
                sn += Jn[c, p] * dv[p]
                s0 += Jt[2 * c, p] * dv[p]
                s1 += Jt[2 * c + 1, p] * dv[p]
            dvt[2 * c], dvt[2 * c + 1] = s0, s1
            en += sn * sn
            et += s0 * s0 + s1 * s1
        vn_error = np.sqrt(en)
        vt_error = np.sqrt(et)
        alpha = 1.0
        for c in range(nc):
            a = TalsAlpha(vt[c, 0], vt[c, 1], dvt[2 * c], dvt[2 * c + 1], cos_max, vs, TAMSI_RELATIVE_TOLERANCE)
            if not a > 0.0:
                return TAMSI_ALPHA_FAILED, v, fn, ft
            alpha = min(alpha, a)
        for p in range(nv):
            v[p] += alpha * dv[p]
    return TAMSI_MAX_ITERATIONS_REACHED, v, fn, ft


@njit(cache=True)
def TamsiSolve(M, minus_tau, v0, Jn, Jt, fn0, k, d, mu, h, vs):
    """TamsiDriver's solve with substepping: M the mass matrix, minus_tau the non-contact forces' negative
    (C·v − τ + D·v, explicit), v0 the current velocities. Returns (converged, v, fn (nc), ft (nc, 2), vn, vt
    (nc, 2) at v, substeps)."""
    nc = fn0.shape[0]
    v = v0.copy()
    fn = np.zeros(nc)
    ft = np.zeros((nc, 2))
    status = TAMSI_MAX_ITERATIONS_REACHED
    n = 0
    nv = M.shape[0]
    p_star = np.empty(nv)
    f0 = np.empty(nc)
    for n in range(1, TAMSI_MAX_SUBSTEPS + 1):
        hs = h / n
        v = v0.copy()
        f0[:] = fn0
        for _ in range(n):
            for p in range(nv):
                s = 0.0
                for q in range(nv):
                    s += M[p, q] * v[q]
                p_star[p] = s - hs * minus_tau[p]
            status, v, fn, ft = _tamsi(M, p_star, v, Jn, Jt, f0, k, d, mu, hs, vs)
            if status != TAMSI_OK:
                break
            for c in range(nc):
                s = 0.0
                for p in range(nv):
                    s += Jn[c, p] * v[p]
                f0[c] = max(0.0, f0[c] - hs * k[c] * s)
        if status == TAMSI_OK:
            break
    vn = np.zeros(nc)
    vt = np.zeros((nc, 2))
    for c in range(nc):
        for p in range(nv):
            vn[c] += Jn[c, p] * v[p]
            vt[c, 0] += Jt[2 * c, p] * v[p]
            vt[c, 1] += Jt[2 * c + 1, p] * v[p]
    return status == TAMSI_OK, v, fn, ft, vn, vt, n
