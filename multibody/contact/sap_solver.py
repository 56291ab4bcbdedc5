"""Drake's SAP solver (Castro et al. 2022, "An unconstrained convex formulation of compliant contact") over dense
arrays: the next-step velocities v minimize

    ℓ(v) = ½‖v − v*‖²_A + Σ_c ℓ_c(J_c·v),

with A the dynamics matrix (M + h·D), v* the free-motion velocities and one convex cost ℓ_c per constraint whose
negative gradient is the constraint impulse γ_c. Constraint kinds (rows of `par`):

* SAP_CONE: SAP's regularized friction cone (SapFrictionConeConstraint): par = [μ, Rn, Rt, v̂n].
* SAP_HC_SIMILAR / SAP_HC_LAGGED: the convex Hunt–Crossley approximations (SapHuntCrossleyConstraint):
  par = [μ, k, d, fe0, h, n0, εs].
* SAP_LIMIT: one side of a joint limit (SapLimitConstraint): par = [R, v̂]; one row.

Contact constraints have 3 rows in the order (normal, tangent 1, tangent 2) of the contact frame whose normal
points from body A to body B (v_c = v_B − v_A at the contact point; v_n > 0 separates). Newton iterations with an
exact line search and Drake's stopping criteria (momentum residual scaled by diag(A)^-1/2, εa = 1e-14,
εr = 1e-6; cost decrement), warm-started from the previous velocities as Drake's SapDriver does.
"""
from __future__ import annotations

import numpy as np
from numba import njit

SAP_CONE, SAP_HC_SIMILAR, SAP_HC_LAGGED, SAP_LIMIT = 0, 1, 2, 3
SAP_CONE_SOFT_TOLERANCE = 1e-7     # SapFrictionConeConstraint's soft norm ‖y_t‖ₛ = sqrt(‖y_t‖² + ε²)
SAP_SIGMA = 1e-3                   # SAP's tangential regularization R_t = σ·w
SAP_LIMIT_STIFFNESS = 1e12         # SapDriver's joint-limit stiffness [N/m or N·m/rad], time scale h, β = 0.1
SAP_LIMIT_BETA = 0.1
SAP_LIMIT_WINDOW = 2.0             # SapDriver's kLimitWindowFactor
SAP_ABS_TOLERANCE, SAP_REL_TOLERANCE, SAP_MAX_ITERATIONS = 1e-14, 1e-6, 100
SAP_COST_ABS_TOLERANCE, SAP_COST_REL_TOLERANCE = 1e-30, 1e-15
SAP_ALPHA_MAX = 1.5


@njit(cache=True)
def HuntCrossleyImpulse(h, k, d, fe0, vn):
    """Drake's discrete Hunt–Crossley normal impulse n(vn) = h·(fe0 − h·k·vn)₊·(1 − d·vn)₊ [N·s] and dn/dvn."""
    fe = fe0 - h * k * vn
    damping = 1.0 - d * vn
    if fe <= 0.0 or damping <= 0.0:
        return 0.0, 0.0
    return h * fe * damping, -h * (k * h * damping + d * fe)


@njit(cache=True)
def HuntCrossleyAntiderivative(h, k, d, fe0, vn):
    """N(vn), the antiderivative of n (N(0) = 0), with vn clamped where n vanishes (the cost is flat beyond)."""
    vd = 1.0 / (d + 1e-20)
    vx = fe0 / h / (k + 1e-20)
    v = min(vn, min(vx, vd))
    df = -h * k * v
    return h * (v * (fe0 + 0.5 * df) - d * v * v / 2.0 * (fe0 + 2.0 / 3.0 * df))


@njit(cache=True)
def _cone(p, vc, r, gamma, G):
    """SapFrictionConeConstraint at v_c (rows r..r+2): impulse into gamma, Hessian into G (3×3); returns ℓ."""
    mu, Rn, Rt, vhat = p[0], p[1], p[2], p[3]
    yn = (vhat - vc[r]) / Rn
    y1, y2 = -vc[r + 1] / Rt, -vc[r + 2] / Rt
    yr = np.sqrt(y1 * y1 + y2 * y2 + SAP_CONE_SOFT_TOLERANCE * SAP_CONE_SOFT_TOLERANCE)
    t1, t2 = y1 / yr, y2 / yr
    mu_hat = mu * Rt / Rn
    G[:, :] = 0.0
    if yr <= mu * yn:  # stiction
        gamma[r], gamma[r + 1], gamma[r + 2] = yn, y1, y2
        G[0, 0], G[1, 1], G[2, 2] = 1.0 / Rn, 1.0 / Rt, 1.0 / Rt
    elif -mu_hat * yr < yn and mu * yn < yr:  # sliding
        factor = 1.0 / (1.0 + mu * mu_hat)
        gn = (yn + mu_hat * yr) * factor
        gamma[r], gamma[r + 1], gamma[r + 2] = gn, mu * gn * t1, mu * gn * t2
        t = (t1, t2)
        G[0, 0] = factor / Rn
        for i in range(2):
            G[0, 1 + i] = mu_hat * factor * t[i] / Rt
            G[1 + i, 0] = mu * factor * t[i] / Rn
            for j in range(2):
                P = t[i] * t[j]
                G[1 + i, 1 + j] = mu * (gn / yr * ((1.0 if i == j else 0.0) - P) + mu_hat * factor * P) / Rt
    else:
        gamma[r], gamma[r + 1], gamma[r + 2] = 0.0, 0.0, 0.0
    return 0.5 * (Rn * gamma[r] * gamma[r] + Rt * (gamma[r + 1] * gamma[r + 1] + gamma[r + 2] * gamma[r + 2]))


@njit(cache=True)
def _hunt_crossley(p, lagged, vc, r, gamma, G):
    """SapHuntCrossleyConstraint (similar or lagged) at v_c: impulse, Hessian; returns ℓ."""
    mu, k, d, fe0, h, n0, eps = p[0], p[1], p[2], p[3], p[4], p[5], p[6]
    vn, v1, v2 = vc[r], vc[r + 1], vc[r + 2]
    vt_soft = np.sqrt(v1 * v1 + v2 * v2 + eps * eps) - eps
    s1, s2 = v1 / (vt_soft + eps), v2 / (vt_soft + eps)
    z = vn if lagged else vn - mu * vt_soft
    n, dn = HuntCrossleyImpulse(h, k, d, fe0, z)
    N = HuntCrossleyAntiderivative(h, k, d, fe0, z)
    nf = n0 if lagged else n
    gamma[r], gamma[r + 1], gamma[r + 2] = n, -mu * nf * s1, -mu * nf * s2
    s = (s1, s2)
    G[0, 0] = -dn
    for i in range(2):
        G[0, 1 + i] = 0.0 if lagged else mu * dn * s[i]
        G[1 + i, 0] = G[0, 1 + i]
        for j in range(2):
            P = s[i] * s[j]
            perp = (1.0 if i == j else 0.0) - P
            if lagged:
                G[1 + i, 1 + j] = mu * n0 * perp / (vt_soft + eps)
            else:
                G[1 + i, 1 + j] = -mu * mu * dn * P + mu * n * perp / (vt_soft + eps)
    return -N + mu * vt_soft * n0 if lagged else -N


@njit(cache=True)
def ConstraintImpulses(kind, start, par, vc, gamma, G):
    """Every constraint's impulse (gamma, by row) and Hessian G (per constraint, 3×3; limits use G[c, 0, 0]) at the
    constraint velocities vc. Returns Σ ℓ_c."""
    cost = 0.0
    for c in range(kind.shape[0]):
        r = start[c]
        kc = kind[c]
        if kc == SAP_CONE:
            cost += _cone(par[c], vc, r, gamma, G[c])
        elif kc == SAP_HC_SIMILAR or kc == SAP_HC_LAGGED:
            cost += _hunt_crossley(par[c], kc == SAP_HC_LAGGED, vc, r, gamma, G[c])
        else:
            R, vhat = par[c, 0], par[c, 1]
            y = (vhat - vc[r]) / R
            G[c, :, :] = 0.0
            if y > 0.0:
                gamma[r] = y
                G[c, 0, 0] = 1.0 / R
                cost += 0.5 * R * y * y
            else:
                gamma[r] = 0.0
    return cost


@njit(cache=True)
def _size(kc):
    return 1 if kc == SAP_LIMIT else 3


@njit(cache=True)
def _line_derivatives(alpha, a, b, kind, start, par, vc, dvc, vtmp, gamma, G):
    """dℓ/dα and d²ℓ/dα² along v + α·dv (a = dvᵀA(v − v*), b = dvᵀA·dv, dvc = J·dv)."""
    for i in range(vc.shape[0]):
        vtmp[i] = vc[i] + alpha * dvc[i]
    ConstraintImpulses(kind, start, par, vtmp, gamma, G)
    d1 = a + alpha * b
    d2 = b
    for c in range(kind.shape[0]):
        r, n = start[c], _size(kind[c])
        for i in range(n):
            d1 -= dvc[r + i] * gamma[r + i]
            for j in range(n):
                d2 += dvc[r + i] * G[c, i, j] * dvc[r + j]
    return d1, d2


@njit(cache=True)
def _exact_line_search(a, b, kind, start, par, vc, dvc, vtmp, gamma, G):
    """The minimizer of ℓ(v + α·dv) over [0, α_max] (safeguarded Newton on dℓ/dα, as Drake's exact search)."""
    d1, _ = _line_derivatives(SAP_ALPHA_MAX, a, b, kind, start, par, vc, dvc, vtmp, gamma, G)
    if d1 <= 0.0:
        return SAP_ALPHA_MAX
    lo, hi = 0.0, SAP_ALPHA_MAX
    alpha = 1.0
    for _ in range(100):
        d1, d2 = _line_derivatives(alpha, a, b, kind, start, par, vc, dvc, vtmp, gamma, G)
        if d1 == 0.0:
            return alpha
        if d1 < 0.0:
            lo = alpha
        else:
            hi = alpha
        if hi - lo < 1e-14 * SAP_ALPHA_MAX:
            break
        nxt = alpha - d1 / d2 if d2 > 0.0 else -1.0
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        if abs(nxt - alpha) < 1e-12 * alpha:
            alpha = nxt
            break
        alpha = nxt
    return alpha


@njit(cache=True)
def SapSolve(A, v_star, v_guess, J, kind, start, par):
    """Minimize ℓ(v) from v_guess. Returns (v, γ (impulses by row), converged, iterations, relative residual)."""
    nv, nk, nc = A.shape[0], J.shape[0], kind.shape[0]
    v = v_guess.copy()
    scale = np.empty(nv)
    for i in range(nv):
        scale[i] = 1.0 / np.sqrt(A[i, i])
    Avs = A @ v_star
    gamma = np.zeros(nk)
    G = np.zeros((nc, 3, 3))
    vtmp = np.zeros(nk)
    vc = J @ v
    converged = False
    it = 0
    residual = 0.0
    cost_reached = False
    ell_prev = 0.0
    alpha = 1.0
    for k in range(SAP_MAX_ITERATIONS + 1):
        it = k
        if k > 0:
            vc = J @ v
        ell_c = ConstraintImpulses(kind, start, par, vc, gamma, G)
        Av = A @ v
        jc = J.T @ gamma
        grad = Av - Avs - jc
        rg, rp, rj = 0.0, 0.0, 0.0
        for i in range(nv):
            rg += (scale[i] * grad[i]) ** 2
            rp += (scale[i] * Av[i]) ** 2
            rj += (scale[i] * jc[i]) ** 2
        rg, rp, rj = np.sqrt(rg), np.sqrt(rp), np.sqrt(rj)
        sc = max(rp, rj)
        residual = rg / sc if sc > 0.0 else rg
        ell = 0.0
        for i in range(nv):
            ell += 0.5 * (v[i] - v_star[i]) * (Av[i] - Avs[i])
        ell += ell_c
        if k > 0:
            decrement = abs(ell_prev - ell)
            cost_reached = alpha > 0.5 and decrement < SAP_COST_ABS_TOLERANCE + SAP_COST_REL_TOLERANCE * 0.5 * (
                abs(ell) + abs(ell_prev))
        if rg <= SAP_ABS_TOLERANCE + SAP_REL_TOLERANCE * sc or cost_reached:
            converged = True
            break
        if k == SAP_MAX_ITERATIONS:
            break
        H = A.copy()
        for c in range(nc):
            r, n = start[c], _size(kind[c])
            for i in range(n):
                for j in range(n):
                    g = G[c, i, j]
                    if g != 0.0:
                        for p in range(nv):
                            Jip = J[r + i, p]
                            if Jip != 0.0:
                                for q in range(nv):
                                    H[p, q] += Jip * g * J[r + j, q]
        dv = np.linalg.solve(H, -grad)
        dvc = J @ dv
        a = 0.0
        b = 0.0
        Adv = A @ dv
        for i in range(nv):
            a += dv[i] * (Av[i] - Avs[i])
            b += dv[i] * Adv[i]
        alpha = _exact_line_search(a, b, kind, start, par, vc, dvc, vtmp, gamma, G)
        for i in range(nv):
            v[i] += alpha * dv[i]
        ell_prev = ell
    ConstraintImpulses(kind, start, par, vc, gamma, G)
    return v, gamma, converged, it, residual
