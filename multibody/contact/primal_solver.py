"""Primal soft-constraint solver (MuJoCo's formulation): Newton or nonlinear CG with exact line search.

Minimizes over accelerations a (nv,)
    cost(a) = 1/2 (a - a0)' M (a - a0) + s(J a - aref),
where s is the convex, piecewise-quadratic constraint cost of each row kind (equality: quadratic;
dry friction: Huber; limits and pyramidal/frictionless contacts: one-sided; elliptic contacts:
three zones of the regularized second-order cone). The constraint force is f = -ds/d(jar).
All kernels are compiled; inputs are the arrays of a `ConstraintProblem`. Newton's Hessian is built
and factored sparsely, inside its row envelope in a tree-aware order, and updated by rank-one steps
between iterations (newton_hessian.py); M products use the same envelope, so free bodies and sparse
contact rows cost little.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .elimination import EliminationOrder, Permuted, PermutedSolve, PermutedSymMatVec, TreeBlocks
from .linalg import (EnvelopeCholesky, EnvelopeCholeskyInPlace, EnvelopeFirst, MatVec, RowSupport, SparseMatTVec,
                     SparseMatVec)
from .newton_hessian import NewtonHessian, UpdateFactor
from .parameters import (CONTACT_ELLIPTIC, STATE_CONE, STATE_LINEARNEG, STATE_LINEARPOS, STATE_QUADRATIC,
                         STATE_SATISFIED)


@njit(cache=True)
def ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force, state):
    """Fill force = -ds/djar and row states at jar = J a - aref; returns the constraint cost s."""
    nefc = jar.shape[0]
    s = 0.0
    i = 0
    while i < nefc:
        x = jar[i]
        if i < ne:
            force[i] = -D[i] * x
            s += 0.5 * D[i] * x * x
            state[i] = STATE_QUADRATIC
            i += 1
        elif i < ne + nf:
            f = floss[i]
            if x <= -R[i] * f:
                s += -0.5 * R[i] * f * f - f * x
                force[i] = f
                state[i] = STATE_LINEARNEG
            elif x >= R[i] * f:
                s += -0.5 * R[i] * f * f + f * x
                force[i] = -f
                state[i] = STATE_LINEARPOS
            else:
                s += 0.5 * D[i] * x * x
                force[i] = -D[i] * x
                state[i] = STATE_QUADRATIC
            i += 1
        elif efc_type[i] != CONTACT_ELLIPTIC:
            if x >= 0.0:
                force[i] = 0.0
                state[i] = STATE_SATISFIED
            else:
                s += 0.5 * D[i] * x * x
                force[i] = -D[i] * x
                state[i] = STATE_QUADRATIC
            i += 1
        else:
            c = efc_id[i]
            dim = con_dim[c]
            mu = con_mu[c]
            N = x * mu
            T2 = 0.0
            for j in range(1, dim):
                u = jar[i + j] * con_fric[c, j - 1]
                T2 += u * u
            T = np.sqrt(T2)
            if N >= mu * T or (T <= 0.0 and N >= 0.0):
                st = STATE_SATISFIED
                for j in range(dim):
                    force[i + j] = 0.0
            elif mu * N + T <= 0.0 or (T <= 0.0 and N < 0.0):
                st = STATE_QUADRATIC
                for j in range(dim):
                    s += 0.5 * D[i + j] * jar[i + j] * jar[i + j]
                    force[i + j] = -D[i + j] * jar[i + j]
            else:
                st = STATE_CONE
                Dm = D[i] / (mu * mu * (1.0 + mu * mu))
                NmT = N - mu * T
                s += 0.5 * Dm * NmT * NmT
                force[i] = -Dm * NmT * mu
                for j in range(1, dim):
                    fr = con_fric[c, j - 1]
                    force[i + j] = -force[i] / T * jar[i + j] * fr * fr
            for j in range(dim):
                state[i + j] = st
            i += dim
    return s


@njit(cache=True)
def _dot(a, b):
    acc = 0.0
    for k in range(a.shape[0]):
        acc += a[k] * b[k]
    return acc


@njit(cache=True)
def _line_eval(alpha, jar, Jp, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
               q0, q1, q2):
    """cost, d cost/d alpha and d^2 cost/d alpha^2 at a + alpha*p (q0 + q1 a + q2 a^2/2 is the M part)."""
    f = q0 + alpha * q1 + 0.5 * alpha * alpha * q2
    g = q1 + alpha * q2
    h = q2
    nefc = jar.shape[0]
    i = 0
    while i < nefc:
        x = jar[i] + alpha * Jp[i]
        v = Jp[i]
        if i < ne:
            f += 0.5 * D[i] * x * x
            g += D[i] * x * v
            h += D[i] * v * v
            i += 1
        elif i < ne + nf:
            fl = floss[i]
            if x <= -R[i] * fl:
                f += -0.5 * R[i] * fl * fl - fl * x
                g += -fl * v
            elif x >= R[i] * fl:
                f += -0.5 * R[i] * fl * fl + fl * x
                g += fl * v
            else:
                f += 0.5 * D[i] * x * x
                g += D[i] * x * v
                h += D[i] * v * v
            i += 1
        elif efc_type[i] != CONTACT_ELLIPTIC:
            if x < 0.0:
                f += 0.5 * D[i] * x * x
                g += D[i] * x * v
                h += D[i] * v * v
            i += 1
        else:
            c = efc_id[i]
            dim = con_dim[c]
            mu = con_mu[c]
            N = mu * x
            Np = mu * v
            T2 = 0.0
            uw = 0.0
            w2 = 0.0
            for j in range(1, dim):
                fr = con_fric[c, j - 1]
                u = fr * (jar[i + j] + alpha * Jp[i + j])
                w = fr * Jp[i + j]
                T2 += u * u
                uw += u * w
                w2 += w * w
            T = np.sqrt(T2)
            if N >= mu * T or (T <= 0.0 and N >= 0.0):
                pass
            elif mu * N + T <= 0.0 or (T <= 0.0 and N < 0.0):
                for j in range(dim):
                    xj = jar[i + j] + alpha * Jp[i + j]
                    f += 0.5 * D[i + j] * xj * xj
                    g += D[i + j] * xj * Jp[i + j]
                    h += D[i + j] * Jp[i + j] * Jp[i + j]
            else:
                Dm = D[i] / (mu * mu * (1.0 + mu * mu))
                Tp = uw / T
                Tpp = (w2 - Tp * Tp) / T
                gg = N - mu * T
                gp = Np - mu * Tp
                f += 0.5 * Dm * gg * gg
                g += Dm * gg * gp
                h += Dm * (gp * gp - gg * mu * Tpp)
            i += dim
    return f, g, h


@njit(cache=True)
def _line_search(jar, Jp, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, q0, q1, q2,
                 ls_iterations, ls_tolerance):
    """Exact 1-D minimization of the convex cost along p: safeguarded Newton inside a bracket.

    Returns (alpha, cost decrease, iterations); alpha = 0 when p is not a descent direction.
    """
    f0, g0, h0 = _line_eval(0.0, jar, Jp, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                            con_fric, q0, q1, q2)
    if not (g0 < 0.0):
        return 0.0, 0.0, 0
    gtol = ls_tolerance * abs(g0)
    lo, hi = 0.0, np.inf
    alpha, g, h = 0.0, g0, h0
    f = f0
    it = 0
    while it < ls_iterations:
        it += 1
        cand = alpha - g / h if h > 0.0 else np.nan
        if hi < np.inf:
            if not (lo < cand < hi):
                cand = 0.5 * (lo + hi)
        elif not (cand > lo):
            cand = 2.0 * lo if lo > 0.0 else 1.0
        alpha = cand
        f, g, h = _line_eval(alpha, jar, Jp, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                             con_fric, q0, q1, q2)
        if g < 0.0:
            lo = alpha
        else:
            hi = alpha
        if abs(g) <= gtol or (hi < np.inf and hi - lo <= 1e-15 * hi):
            break
    if f > f0:  # cannot happen for a convex cost unless rounding; keep the start point
        return 0.0, 0.0, it
    return alpha, f0 - f, it


@njit(cache=True)
def PrimalCost(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
               qacc):
    """The primal cost 1/2 (a - a0)' M (a - a0) + s(J a - aref) at a = qacc (no outputs kept)."""
    nv = M.shape[0]
    nefc = J.shape[0]
    e = qacc - qacc_smooth
    jar = MatVec(J, qacc) - aref
    force = np.empty(nefc)
    state = np.empty(nefc, dtype=np.int64)
    s = ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force, state)
    quad = 0.0
    for i in range(nv):
        acc = 0.0
        for j in range(nv):
            acc += M[i, j] * e[j]
        quad += e[i] * acc
    return 0.5 * quad + s


@njit(cache=True)
def MassMatrixIsValid(M, rtol, atol_rel):
    """True when M is finite, symmetric (|M - M'| <= atol + rtol |M'| with atol = atol_rel max|M|, as
    np.allclose) and has a positive diagonal."""
    n = M.shape[0]
    mx = 0.0
    for i in range(n):
        for j in range(n):
            x = M[i, j]
            if not np.isfinite(x):
                return False
            if abs(x) > mx:
                mx = abs(x)
    atol = atol_rel * mx
    for i in range(n):
        if not M[i, i] > 0.0:
            return False
        for j in range(i):
            if abs(M[i, j] - M[j, i]) > atol + rtol * abs(M[j, i]) or \
                    abs(M[j, i] - M[i, j]) > atol + rtol * abs(M[i, j]):
                return False
    return True


@njit(cache=True)
def StartPoint(M, qacc_smooth, qacc_warmstart, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
               con_fric, check_M):
    """Checks and warm start in one call: (status, start). status 0: ok, start = the warm start if it is
    finite and its primal cost is below that of qacc_smooth (as MuJoCo), else qacc_smooth; 1: qacc_smooth or
    aref not finite; 2: M not finite; 3: M not symmetric with a positive diagonal (see MassMatrixIsValid;
    checked only when check_M). Pass an empty qacc_warmstart for none."""
    for k in range(qacc_smooth.shape[0]):
        if not np.isfinite(qacc_smooth[k]):
            return 1, qacc_smooth
    for k in range(aref.shape[0]):
        if not np.isfinite(aref[k]):
            return 1, qacc_smooth
    if check_M and not MassMatrixIsValid(M, 1e-10, 1e-12):
        for i in range(M.shape[0]):
            for j in range(M.shape[1]):
                if not np.isfinite(M[i, j]):
                    return 2, qacc_smooth
        return 3, qacc_smooth
    if qacc_warmstart.shape[0] != qacc_smooth.shape[0]:
        return 0, qacc_smooth
    for k in range(qacc_warmstart.shape[0]):
        if not np.isfinite(qacc_warmstart[k]):
            return 0, qacc_smooth
    c_w = PrimalCost(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
                     qacc_warmstart)
    c_0 = PrimalCost(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
                     qacc_smooth)
    return 0, (qacc_warmstart if c_w < c_0 else qacc_smooth)


@njit(cache=True)
def PrimalSolve(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                con_fric, qacc_init, newton, iterations, tolerance, ls_iterations, ls_tolerance, scale,
                tree_blocks):
    """Newton (newton=True) or Polak-Ribiere nonlinear CG preconditioned by M on the primal cost.

    Stops when scale*improvement < tolerance, scale*|grad| < tolerance or (Newton) the scaled
    Newton decrement 0.5*scale*grad' H^-1 grad < tolerance; scale = 1/(meaninertia * max(1, nv)).
    qacc_init is the warm start: used if its cost is below that of qacc_smooth (as MuJoCo), else qacc_smooth.
    tree_blocks: start offsets of M's independent dof ranges (see TreeBlocks), or an empty array to find
    them from M; they only steer the elimination order of the sparse factorization.
    Returns qacc, efc_force, efc_state, converged, iterations, residual (= scale*|grad|), cost and
    qfrc_constraint = J' efc_force.
    """
    nv = M.shape[0]
    nefc = J.shape[0]
    idx, start = RowSupport(J)
    a = qacc_init.copy()
    force = np.zeros(nefc)
    state = np.zeros(nefc, dtype=np.int64)
    e = a - qacc_smooth
    bstart = tree_blocks if tree_blocks.shape[0] >= 2 else TreeBlocks(M)
    order = EliminationOrder(M, idx, start, bstart)
    pos = np.empty(nv, dtype=np.int64)
    for k in range(nv):
        pos[order[k]] = k
    Mp = Permuted(M, order)
    first_m = EnvelopeFirst(Mp)
    Me = PermutedSymMatVec(Mp, first_m, order, e)
    jar = SparseMatVec(J, idx, start, a) - aref
    s = ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force,
                         state)
    cost = 0.5 * _dot(e, Me) + s
    # MuJoCo's warm start rule: keep qacc_init only when its cost is below that of qacc_smooth
    jar0 = SparseMatVec(J, idx, start, qacc_smooth) - aref
    force0 = np.zeros(nefc)
    state0 = np.zeros(nefc, dtype=np.int64)
    s0 = ConstraintUpdate(jar0, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force0,
                          state0)
    if not cost < s0:
        a = qacc_smooth.copy()
        e = np.zeros(nv)
        Me = np.zeros(nv)
        jar, force, state, cost = jar0, force0, state0, s0
    JTf = np.zeros(nv)
    SparseMatTVec(J, idx, start, force, JTf)
    grad = Me - JTf
    Lm = np.zeros((0, 0))
    H = np.empty((nv, nv)) if newton else Lm  # Hessian and, in place, its factor
    first = first_m
    state_f = np.empty(nefc, dtype=np.int64)  # the row states H was factored at
    xbuf = np.empty(nv)
    factored = False
    if not newton:
        Lm = EnvelopeCholesky(Mp, first_m)
    p = np.zeros(nv)
    Mgrad_old = np.zeros(nv)
    grad_old = np.zeros(nv)
    converged = False
    it = 0
    while True:
        gradient = scale * np.sqrt(_dot(grad, grad))
        if gradient < tolerance and it > 0:  # MuJoCo always takes one line-search step (from the warm start)
            converged = True
            break
        if newton:
            # the factor of H = M + J' diag(D_active) J: rank-one updates / downdates for the rows whose state
            # changed since it was factored (MuJoCo's incremental Hessian), else built and factored anew
            if not factored or not UpdateFactor(H, first, pos, J, idx, start, D, state, state_f, efc_type, xbuf):
                first = NewtonHessian(H, Mp, first_m, pos, J, idx, start, D, jar, state, efc_type, efc_id, con_dim,
                                 con_mu, con_fric)
                EnvelopeCholeskyInPlace(H, first)
            state_f[:] = state
            factored = True
            Hg = PermutedSolve(H, first, order, grad)
            if 0.5 * scale * _dot(grad, Hg) < tolerance and it > 0:
                converged = True
                break
            p = -Hg
        else:
            Mgrad = PermutedSolve(Lm, first_m, order, grad)
            beta = 0.0
            if it > 0:
                beta = _dot(grad, Mgrad - Mgrad_old) / max(1e-15, _dot(grad_old, Mgrad_old))
                beta = max(0.0, beta)
            p = -Mgrad + beta * p
            if _dot(grad, p) >= 0.0:
                p = -Mgrad
            Mgrad_old = Mgrad
            grad_old = grad.copy()
        if it >= iterations:
            break
        Mdp = PermutedSymMatVec(Mp, first_m, order, p)
        Jp = SparseMatVec(J, idx, start, p)
        alpha, improvement, _ = _line_search(jar, Jp, D, R, floss, efc_type, efc_id, ne, nf, con_dim,
                                             con_mu, con_fric, 0.5 * _dot(e, Me), _dot(p, Me), _dot(p, Mdp),
                                             ls_iterations, ls_tolerance)
        if alpha == 0.0:
            converged = gradient < np.sqrt(tolerance) or newton
            break
        a += alpha * p
        e += alpha * p
        Me += alpha * Mdp
        jar += alpha * Jp
        s = ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
                             force, state)
        cost = 0.5 * _dot(e, Me) + s
        SparseMatTVec(J, idx, start, force, JTf)
        grad = Me - JTf
        it += 1
        if 0.0 < scale * improvement < tolerance:
            converged = True
            break
    residual = scale * np.sqrt(_dot(grad, grad))
    return a, force, state, converged, it, residual, cost, JTf


@njit(cache=True)
def _all_finite(x):
    for k in range(x.shape[0]):
        if not np.isfinite(x[k]):
            return False
    return True


@njit(cache=True)
def CheckedPrimalSolve(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
                       qacc_warmstart, newton, iterations, tolerance, ls_iterations, ls_tolerance, scale, tree_blocks):
    """PrimalSolve with StartPoint's input checks (M not checked) and the output check in the same call:
    returns (status, PrimalSolve's outputs...). status 0 ok; 1 qacc_smooth or aref not finite (nothing solved);
    4 the solution is not finite. An empty or non-finite qacc_warmstart starts from qacc_smooth."""
    if not (_all_finite(qacc_smooth) and _all_finite(aref)):
        z = np.zeros(0)
        return 1, qacc_smooth.copy(), z, np.zeros(0, np.int64), False, 0, 0.0, 0.0, z
    start = qacc_warmstart
    if start.shape[0] != qacc_smooth.shape[0] or not _all_finite(start):
        start = qacc_smooth
    qacc, force, state, converged, it, residual, cost, qfrc = PrimalSolve(
        M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, start, newton,
        iterations, tolerance, ls_iterations, ls_tolerance, scale, tree_blocks)
    status = 0 if _all_finite(qacc) else 4
    return status, qacc, force, state, converged, it, residual, cost, qfrc
