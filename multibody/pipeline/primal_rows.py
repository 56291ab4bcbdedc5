"""The Newton / CG solve of the step's rows over Data's solver workspace (solver.py): contact/primal_solver's
CheckedPrimalSolveRows for a plant whose trees are known (per constraint island, MuJoCo's warm start and exits),
with every scratch array carved from d.sol_f / d.sol_i (grown only when a step's rows or row supports exceed them)
instead of the ~25 arrays a solve would allocate. Same kernels (primal_solver._solve_island, SolveIslandRows,
_sparse_cost, islands.IslandsInto), same order and arithmetic.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..contact.islands import IslandDofsInto, IslandRowListsInto, IslandSizesInto, IslandsInto
from ..contact.linalg import RowSupportInInto, RowSupportInSize
from ..contact.elimination import OrderScratchSize
from ..contact.primal_solver import ConstraintUpdate, SolveIslandRows, _all_finite, _solve_island, _sparse_cost

#: status of `primal_solve`: solved; qacc_smooth or aref not finite; the solution not finite (primal_solver's codes)
PRIMAL_OK, PRIMAL_BAD_INPUT, PRIMAL_NOT_FINITE = 0, 1, 4


@njit(cache=True)
def _reserve(d, nf, ni):
    """d.sol_f / d.sol_i with at least nf floats and ni ints."""
    if d.sol_f.shape[0] < nf:
        d.sol_f = np.empty(max(nf, 2 * d.sol_f.shape[0]))
    if d.sol_i.shape[0] < ni:
        d.sol_i = np.empty(max(ni, 2 * d.sol_i.shape[0]), np.int64)


@njit(cache=True)
def primal_solve(m, d, M, a0, w, newton, force_out, qacc_out, qfrc_out):
    """Newton (newton) or CG on d.efc_* from the warm start w (nv; not finite: a0), M̂ = M, unconstrained a₀ = a0:
    the rows' forces into force_out (nefc), the accelerations into qacc_out and J'f into qfrc_out (nv). The rows'
    supports are found on the contacts' chains (d.con_chain, efc_rows.contact_chains). Returns (status
    PRIMAL_*, converged, iterations, residual); m.tree.solver_blocks must name the trees (>= 2 entries)."""
    t, o = m.tree, m.opt
    nv = t.nv
    J = d.efc_J
    nefc = J.shape[0]
    aref, D, R, floss, efc_type, efc_id = d.efc_aref, d.efc_D, d.efc_R, d.efc_floss, d.efc_type, d.efc_id
    ne, nf, con_dim, con_mu, con_fric = d.ne, d.nf, d.con_dim, d.con_mu, d.con_fric
    bstart = t.solver_blocks
    ntree = bstart.shape[0] - 1
    first = d.ne + d.nf + d.nl
    nidx = RowSupportInSize(J, first, efc_id, d.con_chain_adr)
    # the workspace: ints sized by the rows and trees, floats by the largest island (found first)
    nin = (2 * nefc + nidx + nefc + 1 + nv + ntree + nefc + ntree + nefc + 3 * ntree + 2 * nefc + nv + nv + ntree + 1
           + nefc + 3 * (ntree + 2) + ntree + 2 + nidx + nefc + 1)
    _reserve(d, 0, nin)
    I = d.sol_i
    o_i = 0
    state, state_w = I[o_i:o_i + nefc], I[o_i + nefc:o_i + 2 * nefc]
    o_i += 2 * nefc
    idx, start = I[o_i:o_i + nidx], I[o_i + nidx:o_i + nidx + nefc + 1]
    o_i += nidx + nefc + 1
    tree_of_dof, parent, efc_tree = I[o_i:o_i + nv], I[o_i + nv:o_i + nv + ntree], \
        I[o_i + nv + ntree:o_i + nv + ntree + nefc]
    o_i += nv + ntree + nefc
    tree_island, efc_island = I[o_i:o_i + ntree], I[o_i + ntree:o_i + ntree + nefc]
    o_i += ntree + nefc
    size = I[o_i:o_i + 3 * ntree]  # per island: dofs, rows, trees
    o_i += 3 * ntree
    ivec_buf = I[o_i:o_i + 2 * nefc]
    o_i += 2 * nefc
    dofs_buf, loc, lb_buf = I[o_i:o_i + nv], I[o_i + nv:o_i + 2 * nv], I[o_i + 2 * nv:o_i + 2 * nv + ntree + 1]
    o_i += 2 * nv + ntree + 1
    rows_all = I[o_i:o_i + nefc]
    o_i += nefc
    rows_ptr, n_eq, n_fr = I[o_i:o_i + ntree + 2], I[o_i + ntree + 2:o_i + 2 * ntree + 3], \
        I[o_i + 2 * ntree + 3:o_i + 3 * ntree + 4]
    o_i += 3 * (ntree + 2)
    fill = I[o_i:o_i + ntree + 2]
    o_i += ntree + 2
    idx_buf = I[o_i:o_i + nidx]
    o_i += nidx
    start_buf = I[o_i:o_i + nefc + 1]
    o_i += nefc + 1
    # CheckedPrimalSolveRows
    if not (_all_finite(a0) and _all_finite(aref)):
        return PRIMAL_BAD_INPUT, False, 0, 0.0
    k_idx = RowSupportInInto(J, first, efc_id, d.con_chain, d.con_chain_adr, idx, start)
    idx = idx[:k_idx]
    init = w if _all_finite(w) else a0
    nisland = IslandsInto(bstart, idx, start, efc_type, efc_id, tree_of_dof, parent, efc_tree, tree_island,
                          efc_island)
    nmax, mmax, bmax = IslandSizesInto(nisland, tree_island, efc_island, bstart, size)
    nfl = (2 * nefc + 3 * nv + (13 * nmax + 6 * mmax) + 5 * nmax * nmax + mmax * nmax + (2 * nmax + 4 * mmax) + nefc
           + 48)
    nwi = 6 * nmax + 2 * mmax + OrderScratchSize(nmax, bmax)
    # the island's int scratch after the views above; should d.sol_i grow here, those views keep the old buffer
    _reserve(d, nfl, o_i + nwi)
    wi_i = d.sol_i[o_i:o_i + nwi]  # primal_solver._island_scratch(nmax, mmax)'s ints
    F = d.sol_f
    o_f = 0
    jar, force_w = F[o_f:o_f + nefc], F[o_f + nefc:o_f + 2 * nefc]
    o_f += 2 * nefc
    a, JTf, qacc = F[o_f:o_f + nv], F[o_f + nv:o_f + 2 * nv], F[o_f + 2 * nv:o_f + 3 * nv]
    o_f += 3 * nv
    wf_i = F[o_f:o_f + 13 * nmax + 6 * mmax]  # the island scratch of primal_solver._island_scratch(nmax, mmax)
    o_f += 13 * nmax + 6 * mmax
    wm_i = F[o_f:o_f + 4 * nmax * nmax]
    o_f += 4 * nmax * nmax
    Mi_buf = F[o_f:o_f + nmax * nmax]
    o_f += nmax * nmax
    Ji_buf = F[o_f:o_f + mmax * nmax]
    o_f += mmax * nmax
    vec_buf = F[o_f:o_f + 2 * nmax + 4 * mmax]
    o_f += 2 * nmax + 4 * mmax
    f0 = F[o_f:o_f + nefc]
    o_f += nefc
    hc = F[o_f:o_f + 48].reshape((8, 6))  # its cone block
    # PrimalSolveRows: outputs zero, MuJoCo's warm start (primal_solver._warm_start)
    for i in range(nefc):
        force_out[i] = 0.0
        state[i] = 0
    for k in range(nv):
        JTf[k] = 0.0
    c_w = _sparse_cost(M, bstart, a0, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                       con_fric, init, jar, force_w, state_w, True)
    c_0 = _sparse_cost(M, bstart, a0, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu,
                       con_fric, a0, jar, force_w, state_w, False)
    src = a0 if c_w > c_0 else init
    for k in range(nv):
        a[k] = src[k]
    for k in range(nv):
        qacc[k] = a0[k]
    converged = True
    it_max = 0
    residual = 0.0
    IslandRowListsInto(efc_island, nisland, ne, nf, rows_all, rows_ptr, n_eq, n_fr, fill)
    for isl in range(-1, nisland):
        ni, nb = IslandDofsInto(isl, tree_island, bstart, dofs_buf, loc, lb_buf)
        r0, r1 = rows_ptr[isl + 1], rows_ptr[isl + 2]
        nr, ne_i, nf_i = r1 - r0, n_eq[isl + 1], n_fr[isl + 1]
        if nr == 0:
            continue
        rows = rows_all[r0:r1]
        if isl < 0:  # constraints with a zero Jacobian: their forces at J·a = 0 (rare: allocates)
            jar0 = np.empty(nr)
            for r in range(nr):
                jar0[r] = -aref[rows[r]]
            s0 = np.zeros(nr, np.int64)
            fz = f0[:nr]
            fz[:] = 0.0
            ConstraintUpdate(jar0, D[rows], R[rows], floss[rows], efc_type[rows], efc_id[rows], ne_i, nf_i, con_dim,
                             con_mu, con_fric, fz, s0)
            for r in range(nr):
                force_out[rows[r]] = fz[r]
            continue
        dofs = dofs_buf[:ni]
        trace = 0.0
        for k in dofs:
            trace += M[k, k]
        if ni == nv and nr == nefc:  # one island holds everything: no copies
            conv, it, res, _c = _solve_island(
                M, a0, a, J, idx, start, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric,
                newton, o.iterations, o.tolerance, o.ls_iterations, o.ls_tolerance, bstart, 1.0 / trace, wf_i, wi_i,
                wm_i, hc)
            for k in range(nv):  # primal_solver._island_outputs
                qacc_out[k] = wf_i[k]
                qfrc_out[k] = wf_i[3 * nv + k]
            for i in range(nefc):
                force_out[i] = wf_i[13 * nv + nefc + i]
            if not _all_finite(qacc_out):
                return PRIMAL_NOT_FINITE, conv, it, res
            return PRIMAL_OK, conv, it, res
        conv, it, res, _c = SolveIslandRows(
            M, a0, a, J, idx, start, aref, D, R, floss, efc_type, efc_id, con_dim, con_mu, con_fric, newton,
            o.iterations, o.tolerance, o.ls_iterations, o.ls_tolerance, dofs, lb_buf[:nb + 1], rows, ne_i, nf_i, loc,
            1.0 / trace, Mi_buf, Ji_buf, vec_buf, ivec_buf, idx_buf, start_buf, wf_i, wi_i, wm_i, hc, qacc, JTf,
            force_out, state)
        converged = converged and conv
        it_max = max(it_max, it)
        residual = max(residual, res)
    for k in range(nv):
        qacc_out[k] = qacc[k]
        qfrc_out[k] = JTf[k]
    if not _all_finite(qacc_out):
        return PRIMAL_NOT_FINITE, converged, it_max, residual
    return PRIMAL_OK, converged, it_max, residual
