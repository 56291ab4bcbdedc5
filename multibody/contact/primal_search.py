"""MuJoCo's line search of the primal solvers (engine_solver.c PrimalPrepare / PrimalEval / PrimalSearch): the
exact minimization of the convex, piecewise-quadratic cost along a search direction p by Newton steps from
alpha = 0, a one-sided search until the derivative changes sign, then a bracketed search over the Newton points
of both ends and the midpoint. Costs are shifted (cost(alpha) - cost(0)), so a negative cost is an improvement.

It is reproduced step for step, tolerances and early exits included, because with small iteration limits
(`iterations="1" ls_iterations="4"`, as in MJX scenes) the answer is the iterate, not the optimum.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .parameters import CONTACT_ELLIPTIC, MINVAL


@njit(cache=True, _nrt=False)
def PrimalPrepare(jar, Jv, D, efc_type, efc_id, con_dim, con_mu, con_fric, quad):
    """The per-row quadratics of the cost along v (quad, 3 per row; an elliptic contact also keeps its cone
    terms U0 V0 UU UV VV Dm in the slots of its next rows, as MuJoCo): quad = (½ jar·D·jar, Jv·D·jar, ½ Jv·D·Jv)."""
    nefc = jar.shape[0]
    i = 0
    while i < nefc:
        b = 3 * i
        dj0 = D[i] * jar[i]
        quad[b] = jar[i] * dj0
        quad[b + 1] = Jv[i] * dj0
        quad[b + 2] = Jv[i] * D[i] * Jv[i]
        step = 1
        if efc_type[i] == CONTACT_ELLIPTIC:
            c = efc_id[i]
            dim = con_dim[c]
            mu = con_mu[c]
            for j in range(1, dim):
                djj = D[i + j] * jar[i + j]
                quad[b] += jar[i + j] * djj
                quad[b + 1] += Jv[i + j] * djj
                quad[b + 2] += Jv[i + j] * D[i + j] * Jv[i + j]
            uu = 0.0
            uv = 0.0
            vv = 0.0
            for j in range(1, dim):
                fr = con_fric[c, j - 1]
                u = jar[i + j] * fr
                v = Jv[i + j] * fr
                uu += u * u
                uv += u * v
                vv += v * v
            quad[b + 3] = jar[i] * mu
            quad[b + 4] = Jv[i] * mu
            quad[b + 5] = uu
            quad[b + 6] = uv
            quad[b + 7] = vv
            quad[b + 8] = D[i] / ((mu * mu) * (1 + (mu * mu)))
            step = dim
        quad[b] *= 0.5
        quad[b + 2] *= 0.5
        i += step


@njit(cache=True, _nrt=False)
def _friction_cost(x, f, rf, d):
    if -rf < x < rf:
        return 0.5 * d * x * x
    if x <= -rf:
        return f * (-0.5 * rf - x)
    return f * (-0.5 * rf + x)


@njit(cache=True, _nrt=False)
def _friction_cost_dif(start, x, f, rf, d):
    s0 = 0 if -rf < start < rf else (-1 if start <= -rf else 1)
    s1 = 0 if -rf < x < rf else (-1 if x <= -rf else 1)
    if s0 == 0 and s1 == 0:
        return 0.5 * d * (x - start) * (x + start)
    if s0 == -1 and s1 == -1:
        return f * (start - x)
    if s0 == 1 and s1 == 1:
        return f * (x - start)
    return _friction_cost(x, f, rf, d) - _friction_cost(start, f, rf, d)


@njit(cache=True, _nrt=False)
def _zone(n, tsqr, mu):
    """1 top (satisfied), 2 bottom (quadratic), 3 middle (cone) zone of an elliptic contact; and T."""
    if tsqr <= 0.0:
        return (2 if n < 0.0 else 1), 0.0
    t = np.sqrt(tsqr)
    if n >= mu * t:
        return 1, t
    if mu * n + t <= 0.0:
        return 2, t
    return 3, t


@njit(cache=True, _nrt=False)
def _elliptic_cost_dif(quad, b, alpha, mu, dm):
    """cost(alpha) - cost(0) of an elliptic contact, each zone change by its own formula (no cancellation)."""
    u0, v0, uu, uv, vv = quad[b + 3], quad[b + 4], quad[b + 5], quad[b + 6], quad[b + 7]
    z0, t0 = _zone(u0, uu, mu)
    n = u0 + alpha * v0
    za, t = _zone(n, uu + alpha * (2 * uv + alpha * vv), mu)
    if z0 == 1 and za == 1:
        return 0.0
    if z0 == 2 and za == 2:
        return alpha * alpha * quad[b + 2] + alpha * quad[b + 1]
    if z0 == 3 and za == 3:
        t_delta = alpha * (2 * uv + alpha * vv) / (t + t0)
        r_delta = alpha * v0 - mu * t_delta
        return 0.5 * dm * r_delta * (2 * (u0 - mu * t0) + r_delta)
    if z0 == 3 and za == 2:
        bd = mu * u0 + t0
        return alpha * (alpha * quad[b + 2] + quad[b + 1]) + 0.5 * dm * bd * bd
    if z0 == 2 and za == 3:
        bd = mu * n + t
        return alpha * (alpha * quad[b + 2] + quad[b + 1]) - 0.5 * dm * bd * bd
    if z0 == 1 and za == 2:
        return alpha * alpha * quad[b + 2] + alpha * quad[b + 1] + quad[b]
    if z0 == 1 and za == 3:
        r = n - mu * t
        return 0.5 * dm * r * r
    if z0 == 3 and za == 1:
        r0 = u0 - mu * t0
        return -0.5 * dm * r0 * r0
    if z0 == 2 and za == 1:
        return -quad[b]
    return 0.0


@njit(cache=True, _nrt=False)
def PrimalEval(alpha, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, quad, g1, g2):
    """(cost(alpha) - cost(0), d cost/d alpha, d² cost/d alpha²) along the prepared direction; g1, g2 are the
    Gauss term's linear and quadratic coefficients."""
    nefc = jar.shape[0]
    cost = 0.0
    d0 = 0.0
    d1 = 0.0
    q0 = 0.0
    q1 = g1
    q2 = g2
    i = 0
    while i < nefc:
        b = 3 * i
        if i < ne:
            q1 += quad[b + 1]
            q2 += quad[b + 2]
            i += 1
            continue
        if i < ne + nf:
            start = jar[i]
            v = Jv[i]
            x = start + alpha * v
            f = floss[i]
            rf = R[i] * f
            cost += _friction_cost_dif(start, x, f, rf, D[i])
            if -rf < x < rf:
                d0 += D[i] * x * v
                d1 += D[i] * v * v
            elif x <= -rf:
                d0 += -f * v
            else:
                d0 += f * v
            i += 1
            continue
        if efc_type[i] == CONTACT_ELLIPTIC:
            c = efc_id[i]
            mu = con_mu[c]
            u0, v0, uu, uv, vv, dm = quad[b + 3], quad[b + 4], quad[b + 5], quad[b + 6], quad[b + 7], quad[b + 8]
            cost += _elliptic_cost_dif(quad, b, alpha, mu, dm)
            n = u0 + alpha * v0
            tsqr = uu + alpha * (2 * uv + alpha * vv)
            if tsqr <= 0.0:
                if n < 0.0:
                    d0 += 2 * alpha * quad[b + 2] + quad[b + 1]
                    d1 += 2 * quad[b + 2]
            else:
                t = np.sqrt(tsqr)
                if n >= mu * t:
                    pass
                elif mu * n + t <= 0.0:
                    d0 += 2 * alpha * quad[b + 2] + quad[b + 1]
                    d1 += 2 * quad[b + 2]
                else:
                    n1 = v0
                    t1 = (uv + alpha * vv) / t
                    t2 = vv / t - (uv + alpha * vv) * t1 / (t * t)
                    d0 += dm * (n - mu * t) * (n1 - mu * t1)
                    d1 += dm * ((n1 - mu * t1) * (n1 - mu * t1) + (n - mu * t) * (-mu * t2))
            i += con_dim[c]
            continue
        start = jar[i]
        x = start + alpha * Jv[i]
        cost0 = quad[b] if start < 0.0 else 0.0
        if x < 0.0:
            q0 += quad[b] - cost0
            q1 += quad[b + 1]
            q2 += quad[b + 2]
        else:
            cost -= cost0
        i += 1
    cost += alpha * alpha * q2 + alpha * q1 + q0
    d0 += 2 * alpha * q2 + q1
    d1 += 2 * q2
    if d1 <= 0.0:  # not convex: cannot happen but for rounding (MuJoCo warns and floors it)
        d1 = MINVAL
    return cost, d0, d1


@njit(cache=True, _nrt=False)
def _update_bracket(p, c0, c1, c2):
    """MuJoCo's updateBracket: replace the bracket end p (alpha, cost, d0, d1) by the candidate of the same
    derivative sign closest to zero derivative; returns (flag, new p)."""
    flag = 0
    for c in (c0, c1, c2):
        if p[2] < 0.0 and c[2] < 0.0 and p[2] < c[2]:
            p = c
            flag = 1
        elif p[2] > 0.0 and c[2] > 0.0 and p[2] > c[2]:
            p = c
            flag = 2
    return flag, p


# PrimalSearch's per-point evaluations inlined into it by numba: called 3 to 50 times per search with 15 arguments,
# the calls cost more than the sums over a small island's rows (-13 µs per step of benchmarks/contact.py's 27-body
# pile, whose 14 islands search 1 to 5 times each); the same operations in the same order, so the same results.
_prepare_inlined = njit(inline="always")(PrimalPrepare.py_func)
_eval_inlined = njit(inline="always")(PrimalEval.py_func)
_bracket_inlined = njit(inline="always")(_update_bracket.py_func)


@njit(cache=True, _nrt=False)
def PrimalSearch(search, Mv, Ma, qfrc_smooth, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                 con_fric, quad, scale, tolerance, ls_iterations):
    """MuJoCo's PrimalSearch along `search` (Mv = M·search, Jv = J·search already computed): returns
    (alpha, improvement = cost(0) - cost(alpha) >= 0). alpha = 0: no step (direction too small or no decrease).
    `tolerance` is opt.tolerance·opt.ls_tolerance; the derivative tolerance is tolerance·|search|/scale."""
    nv = search.shape[0]
    snorm = 0.0
    for k in range(nv):
        snorm += search[k] * search[k]
    snorm = np.sqrt(snorm)
    if snorm < MINVAL:
        return 0.0, 0.0
    gtol = tolerance * snorm / scale
    g1 = 0.0
    g2 = 0.0
    for k in range(nv):
        g1 += search[k] * Ma[k]
    s_f = 0.0
    for k in range(nv):
        s_f += qfrc_smooth[k] * search[k]
    g1 -= s_f
    for k in range(nv):
        g2 += search[k] * Mv[k]
    g2 *= 0.5
    _prepare_inlined(jar, Jv, D, efc_type, efc_id, con_dim, con_mu, con_fric, quad)
    c, d0, d1 = _eval_inlined(0.0, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                              quad, g1, g2)
    p0 = (0.0, c, d0, d1)
    n_eval = 1
    a1 = p0[0] - p0[2] / p0[3]
    c, d0, d1 = _eval_inlined(a1, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                              quad, g1, g2)
    p1 = (a1, c, d0, d1)
    n_eval += 1
    if abs(p1[2]) < gtol and (p1[0] == 0.0 or p1[1] < 0.0):
        return p1[0], -p1[1]
    direction = 1.0 if p1[2] < 0.0 else -1.0
    p2 = p0
    while p1[2] * direction <= -gtol and n_eval < ls_iterations:
        p2 = p1
        a1 = p1[0] - p1[2] / p1[3]
        c, d0, d1 = _eval_inlined(a1, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                                  quad, g1, g2)
        p1 = (a1, c, d0, d1)
        n_eval += 1
        if abs(p1[2]) < gtol and p1[1] < 0.0:
            return p1[0], -p1[1]
    if n_eval >= ls_iterations:  # could not bracket
        return p1[0], -p1[1]
    p2next = p1
    a1 = p1[0] - p1[2] / p1[3]
    c, d0, d1 = _eval_inlined(a1, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                              quad, g1, g2)
    p1next = (a1, c, d0, d1)
    n_eval += 1
    while n_eval < ls_iterations:
        am = 0.5 * (p1[0] + p2[0])
        c, d0, d1 = _eval_inlined(am, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                                  quad, g1, g2)
        pmid = (am, c, d0, d1)
        n_eval += 1
        best = -1
        bestcost = 0.0
        cands = (p1next, p2next, pmid)
        for k in range(3):
            if abs(cands[k][2]) < gtol and (best == -1 or cands[k][1] < bestcost):
                bestcost = cands[k][1]
                best = k
        if best >= 0:
            return cands[best][0], -cands[best][1]
        b1, p1 = _bracket_inlined(p1, cands[0], cands[1], cands[2])
        if b1:
            a1 = p1[0] - p1[2] / p1[3]
            c, d0, d1 = _eval_inlined(a1, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                                      quad, g1, g2)
            p1next = (a1, c, d0, d1)
            n_eval += 1
        b2, p2 = _bracket_inlined(p2, cands[0], cands[1], cands[2])
        if b2:
            a1 = p2[0] - p2[2] / p2[3]
            c, d0, d1 = _eval_inlined(a1, jar, Jv, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                                      quad, g1, g2)
            p2next = (a1, c, d0, d1)
            n_eval += 1
        if not b1 and not b2:
            return pmid[0], -pmid[1]
    if p1[1] <= p2[1] and p1[1] < 0.0:
        return p1[0], -p1[1]
    if p2[1] <= p1[1] and p2[1] < 0.0:
        return p2[0], -p2[1]
    return 0.0, 0.0
