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

from .elimination import (EliminationOrderInto, OrderScratchSize, PermutedSolveInto, PermutedSymMatVecInto,
                          TreeBlocks)
from .linalg import (EnvelopeCholeskyInPlace, MatVec, RowSupport, SparseMatTVec, SparseMatVecInto,
                     SparseMatVecMinus)
from .islands import IslandDofsInto, IslandRowLists, IslandSizesInto, Islands
from .newton_hessian import NewtonHessianInto, UpdateFactor
from .parameters import (CONTACT_ELLIPTIC, MINVAL, STATE_CONE, STATE_LINEARNEG, STATE_LINEARPOS, STATE_QUADRATIC,
                         STATE_SATISFIED)
from .primal_search import PrimalSearch
from .tree_sparse import BlockCopyInto, PermutedEnvelopeInto


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def _dot(a, b):
    acc = 0.0
    for k in range(a.shape[0]):
        acc += a[k] * b[k]
    return acc


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
    return 0, (qacc_smooth if c_w > c_0 else qacc_warmstart)


@njit(cache=True)
def _island_scratch(n, m):
    """Scratch of _solve_island for islands of up to n dofs and m rows: (floats, ints, n x n blocks, a cone
    block)."""
    return (np.empty(13 * n + 6 * m), np.empty(6 * n + 2 * m + OrderScratchSize(n, n), np.int64), np.empty(4 * n * n),
            np.empty((8, 6)))


@njit(cache=True)
def _island_outputs(wf, wi, nv, nefc):
    """The arrays _solve_island left in its scratch for an island of nv dofs and nefc rows: (qacc, efc_force,
    efc_state, qfrc_constraint), views of the scratch (valid until its next use)."""
    o = 13 * nv
    return wf[:nv], wf[o + nefc:o + 2 * nefc], wi[6 * nv:6 * nv + nefc], wf[3 * nv:4 * nv]


@njit(cache=True, _nrt=False)
def _solve_island(M, a0, a_start, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                  con_fric, newton, iterations, tolerance, ls_iterations, ls_tolerance, bstart, scale, wf, wi, wm, hc):
    """MuJoCo's mj_solPrimal on one island (M, J restricted to its dofs and rows) from the start point a_start:
    returns (converged, iterations, residual, cost) and leaves qacc, efc_force, efc_state and qfrc_constraint in
    the scratch (_island_outputs). Allocates nothing and returns no array: compiled without reference counting
    (linalg.py).

    Exits as MuJoCo: no iteration when the duality gap ½·scale·g'M⁻¹g (and, for Newton, scale·|g|) is below
    `tolerance` at the start; after an iteration when the scaled improvement, the scaled gradient norm or
    (Newton) the scaled Newton decrement is below it; when the line search finds no decrease; after
    `iterations`. scale: MuJoCo's tolerance scale (1 / trace of M for an island). idx/start: J's row supports
    (linalg.RowSupport). wf, wi, wm, hc: scratch from _island_scratch."""
    nv = M.shape[0]
    nefc = J.shape[0]
    # the scratch, carved
    a, qfrc_smooth, Ma, JTf = wf[:nv], wf[nv:2 * nv], wf[2 * nv:3 * nv], wf[3 * nv:4 * nv]
    grad, Mgrad, search, xbuf = wf[4 * nv:5 * nv], wf[5 * nv:6 * nv], wf[6 * nv:7 * nv], wf[7 * nv:8 * nv]
    grad_old, Mgrad_old, Mv, gp, rv = (wf[8 * nv:9 * nv], wf[9 * nv:10 * nv], wf[10 * nv:11 * nv],
                                       wf[11 * nv:12 * nv], wf[12 * nv:13 * nv])
    o = 13 * nv
    jar, force, Jv, quad = wf[o:o + nefc], wf[o + nefc:o + 2 * nefc], wf[o + 2 * nefc:o + 3 * nefc], \
        wf[o + 3 * nefc:o + 6 * nefc]
    order, pos, first_m, first_h, rp, perm = (wi[:nv], wi[nv:2 * nv], wi[2 * nv:3 * nv], wi[3 * nv:4 * nv],
                                              wi[4 * nv:5 * nv], wi[5 * nv:6 * nv])
    state, state_f = wi[6 * nv:6 * nv + nefc], wi[6 * nv + nefc:6 * nv + 2 * nefc]  # state_f: H's row states
    wk = wi[6 * nv + 2 * nefc:]  # EliminationOrderInto's
    n2 = nv * nv
    Mp = wm[:n2].reshape((nv, nv))
    Lm = wm[n2:2 * n2].reshape((nv, nv))
    H = wm[2 * n2:3 * n2].reshape((nv, nv))  # Newton's Hessian and, in place, its factor
    B = wm[3 * n2:4 * n2].reshape((nv, nv))
    EliminationOrderInto(nv, idx, start, bstart, order, wk)
    for k in range(nv):
        pos[order[k]] = k
    PermutedEnvelopeInto(M, order, pos, bstart, Mp, first_m)  # M's trees only (Mp is zero outside first_m)
    for k in range(nv):
        a[k] = a_start[k]
    PermutedSymMatVecInto(Mp, first_m, order, a0, qfrc_smooth)
    PermutedSymMatVecInto(Mp, first_m, order, a, Ma)
    SparseMatVecMinus(J, idx, start, a, aref, jar)
    force[:] = 0.0
    state[:] = 0
    s = ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force, state)
    SparseMatTVec(J, idx, start, force, JTf)
    for k in range(nv):
        grad[k] = Ma[k] - qfrc_smooth[k] - JTf[k]
    gradient = scale * np.sqrt(_dot(grad, grad))
    flg_gradient = gradient < tolerance
    done = False
    if not newton or flg_gradient:  # Newton exits at the start on M⁻¹·grad only when the gradient is small
        for i in range(nv):
            for j in range(first_m[i], i + 1):
                Lm[i, j] = Mp[i, j]
        EnvelopeCholeskyInPlace(Lm, first_m)
        PermutedSolveInto(Lm, first_m, order, grad, gp, Mgrad)
        done = max(0.0, 0.5 * scale * _dot(grad, Mgrad)) < tolerance
    first = first_m
    if not done and newton:
        NewtonHessianInto(H, first_h, Mp, first_m, pos, J, idx, start, D, jar, state, efc_type, efc_id, con_dim,
                          con_mu, con_fric, rp, perm, rv, B, hc)
        first = first_h
        EnvelopeCholeskyInPlace(H, first)
        for i in range(nefc):
            state_f[i] = state[i]
        PermutedSolveInto(H, first, order, grad, gp, Mgrad)
        done = flg_gradient and max(0.0, 0.5 * scale * _dot(grad, Mgrad)) < tolerance
    converged = done
    for k in range(nv):
        search[k] = -Mgrad[k]
    it = 0
    while not done and it < iterations:
        PermutedSymMatVecInto(Mp, first_m, order, search, Mv)
        SparseMatVecInto(J, idx, start, search, Jv)
        alpha, ls_improvement = PrimalSearch(search, Mv, Ma, qfrc_smooth, jar, Jv, D, R, floss, efc_type, efc_id,
                                             ne, nf, con_dim, con_mu, con_fric, quad, scale,
                                             tolerance * ls_tolerance, ls_iterations)
        if alpha == 0.0:  # no decrease along the search direction: as far as rounding lets the solver go
            converged = gradient < np.sqrt(tolerance) or newton
            break
        for k in range(nv):
            a[k] += alpha * search[k]
            Ma[k] += alpha * Mv[k]
        for i in range(nefc):
            jar[i] += alpha * Jv[i]
        if not newton:
            for k in range(nv):
                grad_old[k] = grad[k]
                Mgrad_old[k] = Mgrad[k]
        s = ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force, state)
        SparseMatTVec(J, idx, start, force, JTf)
        for k in range(nv):
            grad[k] = Ma[k] - qfrc_smooth[k] - JTf[k]
        if newton:
            # rank-one updates / downdates for the rows whose state changed (MuJoCo's HessianIncremental),
            # else H built and factored anew
            if not UpdateFactor(H, first, pos, J, idx, start, D, state, state_f, efc_type, xbuf, rp):
                NewtonHessianInto(H, first_h, Mp, first_m, pos, J, idx, start, D, jar, state, efc_type, efc_id,
                                  con_dim, con_mu, con_fric, rp, perm, rv, B, hc)
                first = first_h
                EnvelopeCholeskyInPlace(H, first)
            for i in range(nefc):
                state_f[i] = state[i]
            PermutedSolveInto(H, first, order, grad, gp, Mgrad)
        else:
            PermutedSolveInto(Lm, first_m, order, grad, gp, Mgrad)
        improvement = scale * ls_improvement
        gradient = scale * np.sqrt(_dot(grad, grad))
        decrement = max(0.0, 0.5 * scale * _dot(grad, Mgrad)) if newton else 0.0
        it += 1
        if (0.0 < improvement < tolerance) or gradient < tolerance or (newton and decrement < tolerance):
            converged = True
            break
        if newton:
            for k in range(nv):
                search[k] = -Mgrad[k]
        else:  # Hager-Zhang conjugate direction (MuJoCo's default), restarted when conjugacy is lost
            beta = 0.0
            y, My = xbuf, gp  # (free here: UpdateFactor's and the solves' scratch)
            for k in range(nv):
                y[k] = grad[k] - grad_old[k]
                My[k] = Mgrad[k] - Mgrad_old[k]
            d_y = _dot(search, y)
            if d_y >= MINVAL:
                beta_hz = (_dot(y, Mgrad) - 2.0 * (_dot(y, My) / d_y) * _dot(search, grad)) / d_y
                eta_k = -1.0 / max(MINVAL, np.sqrt(_dot(search, search)) * min(0.01, np.sqrt(_dot(grad, grad))))
                beta = max(eta_k, beta_hz)
            for k in range(nv):
                search[k] = -Mgrad[k] + beta * search[k]
    cost = s
    for k in range(nv):
        cost += 0.5 * (Ma[k] - qfrc_smooth[k]) * (a[k] - a0[k])
    return converged, it, gradient, cost


@njit(cache=True, _nrt=False)
def SolveIslandRows(M, a0, a, J, idx, start, aref, D, R, floss, efc_type, efc_id, con_dim, con_mu, con_fric, newton,
                    iterations, tolerance, ls_iterations, ls_tolerance, dofs, lb, rows, ne, nf, loc, scale, Mi_buf,
                    Ji_buf, vec_buf, ivec_buf, idx_buf, start_buf, wf, wi, wm, hc, qacc, JTf, force, state):
    """One island of a multi-island solve: gathers its M block, start point, rows and their supports (dofs: its
    dofs ascending, loc[dof] = its column there, lb: its trees' local offsets, rows: its rows, the first ne
    equality then nf friction rows), runs _solve_island on them with the tolerance scale `scale` and writes its
    qacc and J'f at its dofs and its forces and states at its rows; returns (converged, iterations, residual,
    cost). Only the trees' diagonal blocks of the island's M and the row supports of its J are copied (all that
    _solve_island reads). Scratch: Mi_buf (n²), Ji_buf (m·n), vec_buf (2n + 4m), ivec_buf (2m, int), idx_buf
    (J's support entries), start_buf (m + 1) and _island_scratch's wf, wi, wm, hc for islands of up to n dofs
    and m rows.
    Allocates nothing: compiled without reference counting (linalg.py)."""
    ni = dofs.shape[0]
    nr = rows.shape[0]
    Mi = Mi_buf[:ni * ni].reshape((ni, ni))
    BlockCopyInto(M, dofs, lb, Mi)  # its trees' blocks: the solve reads no other entry
    Ji = Ji_buf[:nr * ni].reshape((nr, ni))
    a0_i, a_i = vec_buf[:ni], vec_buf[ni:2 * ni]
    o = 2 * ni
    aref_i, D_i, R_i, fl_i = (vec_buf[o:o + nr], vec_buf[o + nr:o + 2 * nr], vec_buf[o + 2 * nr:o + 3 * nr],
                              vec_buf[o + 3 * nr:o + 4 * nr])
    type_i, id_i = ivec_buf[:nr], ivec_buf[nr:2 * nr]
    for c in range(ni):
        a0_i[c] = a0[dofs[c]]
        a_i[c] = a[dofs[c]]
    k = 0
    for r in range(nr):
        i = rows[r]
        aref_i[r], D_i[r], R_i[r], fl_i[r], type_i[r], id_i[r] = aref[i], D[i], R[i], floss[i], efc_type[i], efc_id[i]
        start_buf[r] = k  # J's row support in the island's columns (ascending, as RowSupport(Ji))
        for p in range(start[i], start[i + 1]):  # the solve reads Ji at its rows' supports only
            col = loc[idx[p]]
            idx_buf[k] = col
            Ji[r, col] = J[i, idx[p]]
            k += 1
    start_buf[nr] = k
    conv, it, res, cost = _solve_island(Mi, a0_i, a_i, Ji, idx_buf[:k], start_buf[:nr + 1], aref_i, D_i, R_i, fl_i,
                                        type_i, id_i, ne, nf, con_dim, con_mu, con_fric, newton, iterations, tolerance,
                                        ls_iterations, ls_tolerance, lb, scale, wf, wi, wm, hc)
    o = 13 * ni  # the outputs in the scratch, as _island_outputs reads them
    for c in range(ni):
        qacc[dofs[c]] = wf[c]
        JTf[dofs[c]] = wf[3 * ni + c]
    for r in range(nr):
        force[rows[r]] = wf[o + nr + r]
        state[rows[r]] = wi[6 * ni + r]
    return conv, it, res, cost


@njit(cache=True, _nrt=False)
def _sparse_cost(M, mb, qacc_smooth, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                 con_fric, qacc, jar, force, state, quadratic):
    """PrimalCost over J's row supports (idx/start) and dof ranges mb no M entry crosses (TreeBlocks, or the trees),
    into the scratch jar, force, state: the same sums in the same order without the products by zeros (a finite
    qacc). With
    quadratic False (qacc is qacc_smooth) only the constraint cost s is computed."""
    SparseMatVecMinus(J, idx, start, qacc, aref, jar)
    s = ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force, state)
    if not quadratic:
        return s
    quad = 0.0
    for b in range(mb.shape[0] - 1):
        for i in range(mb[b], mb[b + 1]):
            acc = 0.0
            for j in range(mb[b], mb[b + 1]):
                acc += M[i, j] * (qacc[j] - qacc_smooth[j])
            quad += (qacc[i] - qacc_smooth[i]) * acc
    return 0.5 * quad + s


@njit(cache=True)
def _warm_start(M, qacc_smooth, qacc_init, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim,
                con_mu, con_fric, mb):
    """MuJoCo's warmstart: qacc_init (finite) unless its cost exceeds that of qacc_smooth. idx/start: J's row
    supports; mb: dof ranges no M entry crosses (its trees, or TreeBlocks(M))."""
    if qacc_init.shape[0] != qacc_smooth.shape[0]:
        return qacc_smooth.copy()
    nefc = J.shape[0]
    jar = np.empty(nefc)
    force = np.empty(nefc)
    state = np.empty(nefc, dtype=np.int64)
    c_w = _sparse_cost(M, mb, qacc_smooth, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim,
                       con_mu, con_fric, qacc_init, jar, force, state, True)
    c_0 = _sparse_cost(M, mb, qacc_smooth, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim,
                       con_mu, con_fric, qacc_smooth, jar, force, state, False)
    return qacc_smooth.copy() if c_w > c_0 else qacc_init.copy()


@njit(cache=True)
def PrimalSolve(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                con_fric, qacc_init, newton, iterations, tolerance, ls_iterations, ls_tolerance, scale,
                tree_blocks):
    """PrimalSolveRows over J's row supports found by scanning J (linalg.RowSupport)."""
    idx, start = RowSupport(J)
    return PrimalSolveRows(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
                           qacc_init, newton, iterations, tolerance, ls_iterations, ls_tolerance, scale, tree_blocks,
                           idx, start)


@njit(cache=True)
def PrimalSolveRows(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                    con_fric, qacc_init, newton, iterations, tolerance, ls_iterations, ls_tolerance, scale,
                    tree_blocks, idx, start):
    """Newton (newton=True) or Hager-Zhang nonlinear CG preconditioned by M on the primal cost, as MuJoCo's
    mj_solPrimal: per constraint island (islands.py; the trees of tree_blocks coupled by rows), from the warm
    start qacc_init (finite) when its cost is not above that of qacc_smooth, with MuJoCo's line search
    (primal_search.py) and exits (see _solve_island; each island's tolerance scale is 1 / trace of its M). Dofs
    without rows keep qacc_smooth.

    tree_blocks: start offsets of the dof ranges of the plant's trees; an empty array (trees unknown) solves
    all rows as one problem with the tolerance scale `scale` (MuJoCo's monolithic solve, 1/(meaninertia·nv)),
    its sparse factorization ordered by M's independent blocks (TreeBlocks). idx/start: J's row supports
    (linalg.RowSupport, or RowSupportIn for contact rows). Returns qacc, efc_force, efc_state,
    converged (every island), iterations (the largest island count), residual (the largest island's scaled
    |grad|), cost and qfrc_constraint = J' efc_force.
    """
    nv = M.shape[0]
    nefc = J.shape[0]
    force = np.zeros(nefc)
    state = np.zeros(nefc, dtype=np.int64)
    JTf = np.zeros(nv)
    if nefc == 0:
        return qacc_smooth.copy(), force, state, True, 0, 0.0, 0.0, JTf
    a = _warm_start(M, qacc_smooth, qacc_init, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim,
                    con_mu, con_fric, TreeBlocks(M) if tree_blocks.shape[0] < 2 else tree_blocks)
    if tree_blocks.shape[0] < 2:
        wf, wi, wm, hc = _island_scratch(nv, nefc)
        conv, it, res, c = _solve_island(M, qacc_smooth, a, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf,
                                         con_dim, con_mu, con_fric, newton, iterations, tolerance, ls_iterations,
                                         ls_tolerance, TreeBlocks(M), scale, wf, wi, wm, hc)
        qa, f, st, jtf = _island_outputs(wf, wi, nv, nefc)
        return qa, f, st, conv, it, res, c, jtf
    bstart = tree_blocks
    nisland, tree_island, efc_island = Islands(bstart, idx, start, efc_type, efc_id)
    ntree = bstart.shape[0] - 1
    # scratch for the largest island
    nmax, mmax, _ = IslandSizesInto(nisland, tree_island, efc_island, bstart, np.empty(3 * nisland, np.int64))
    wf, wi, wm, hc = _island_scratch(nmax, mmax)
    Mi_buf = np.empty(nmax * nmax)
    Ji_buf = np.empty(mmax * nmax)
    vec_buf = np.empty(2 * nmax + 4 * mmax)  # an island's qacc_smooth, start, aref, D, R, floss
    ivec_buf = np.empty(2 * mmax, np.int64)  # its efc_type, efc_id
    qacc = qacc_smooth.copy()
    converged = True
    it_max = 0
    residual = 0.0
    cost = 0.0
    # scratch of every island: its dofs (ascending), local tree offsets, rows, local columns of its row supports
    dofs_buf = np.empty(nv, np.int64)
    loc = np.empty(nv, np.int64)  # dof -> column in its island
    lb_buf = np.empty(ntree + 1, np.int64)
    rows_all, rows_ptr, n_eq, n_fr = IslandRowLists(efc_island, nisland, ne, nf)  # each island's rows
    idx_buf = np.empty(idx.shape[0], np.int64)
    start_buf = np.empty(nefc + 1, np.int64)
    for isl in range(-1, nisland):
        ni, nb = IslandDofsInto(isl, tree_island, bstart, dofs_buf, loc, lb_buf)
        r0, r1 = rows_ptr[isl + 1], rows_ptr[isl + 2]
        nr, ne_i, nf_i = r1 - r0, n_eq[isl + 1], n_fr[isl + 1]
        if nr == 0:
            continue
        rows = rows_all[r0:r1]
        if isl < 0:  # constraints with a zero Jacobian: their forces at J·a = 0
            jar0 = np.empty(nr)
            for r in range(nr):
                jar0[r] = -aref[rows[r]]
            f0 = np.zeros(nr)
            s0 = np.zeros(nr, np.int64)
            cost += ConstraintUpdate(jar0, D[rows], R[rows], floss[rows], efc_type[rows], efc_id[rows], ne_i, nf_i,
                                     con_dim, con_mu, con_fric, f0, s0)
            force[rows] = f0
            state[rows] = s0
            continue
        dofs = dofs_buf[:ni]
        trace = 0.0
        for k in dofs:
            trace += M[k, k]
        if ni == nv and nr == nefc:  # one island holds everything: no copies
            conv, it, res, c = _solve_island(M, qacc_smooth, a, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne,
                                             nf, con_dim, con_mu, con_fric, newton, iterations, tolerance,
                                             ls_iterations, ls_tolerance, bstart, 1.0 / trace, wf, wi, wm, hc)
            qa, f, st, jtf = _island_outputs(wf, wi, nv, nefc)
            return qa, f, st, conv, it, res, c, jtf
        conv, it, res, c = SolveIslandRows(
            M, qacc_smooth, a, J, idx, start, aref, D, R, floss, efc_type, efc_id, con_dim, con_mu, con_fric, newton,
            iterations, tolerance, ls_iterations, ls_tolerance, dofs, lb_buf[:nb + 1], rows, ne_i, nf_i, loc,
            1.0 / trace, Mi_buf, Ji_buf, vec_buf, ivec_buf, idx_buf, start_buf, wf, wi, wm, hc, qacc, JTf, force,
            state)
        converged = converged and conv
        it_max = max(it_max, it)
        residual = max(residual, res)
        cost += c
    return qacc, force, state, converged, it_max, residual, cost, JTf


@njit(cache=True, _nrt=False)
def _all_finite(x):
    """True when every entry of the vector x is finite."""
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
    idx, start = RowSupport(J)
    return CheckedPrimalSolveRows(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                                  con_fric, qacc_warmstart, newton, iterations, tolerance, ls_iterations,
                                  ls_tolerance, scale, tree_blocks, idx, start)


@njit(cache=True)
def CheckedPrimalSolveRows(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                           con_fric, qacc_warmstart, newton, iterations, tolerance, ls_iterations, ls_tolerance,
                           scale, tree_blocks, idx, start):
    """CheckedPrimalSolve over J's row supports idx/start (linalg.RowSupport or RowSupportIn)."""
    if not (_all_finite(qacc_smooth) and _all_finite(aref)):
        z = np.zeros(0)
        return 1, qacc_smooth.copy(), z, np.zeros(0, np.int64), False, 0, 0.0, 0.0, z
    a = qacc_warmstart
    if a.shape[0] != qacc_smooth.shape[0] or not _all_finite(a):
        a = qacc_smooth
    qacc, force, state, converged, it, residual, cost, qfrc = PrimalSolveRows(
        M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, a, newton,
        iterations, tolerance, ls_iterations, ls_tolerance, scale, tree_blocks, idx, start)
    status = 0 if _all_finite(qacc) else 4
    return status, qacc, force, state, converged, it, residual, cost, qfrc
