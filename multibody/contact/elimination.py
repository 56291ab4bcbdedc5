"""Sparse elimination for the Newton solver's Hessian H = M + J'DJ: the dof order and the envelope
(profile) kernels that work in it.

M is tree-sparse (nonzero only between a dof and its ancestors) and the constraint rows couple few
trees, so H factored in a good order has a narrow row envelope. The order keeps each tree's dofs
child-first (no fill inside a tree, as MuJoCo's LTDL) and orders the trees by reverse Cuthill-McKee
over the rows' coupling; linalg.EnvelopeCholesky then skips everything outside the envelope.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .linalg import EnvelopeSolveInto
from .tree_sparse import ReverseTreeSolveSkyline


@njit(cache=True)
def TreeBlocks(M):
    """Start offsets (nb + 1) of the maximal dof ranges of M that no M entry crosses (its trees, when each
    tree's dofs are contiguous)."""
    n = M.shape[0]
    bstart = np.empty(n + 1, dtype=np.int64)
    nb = 0
    hi = -1  # last dof coupled to any dof so far
    for i in range(n):
        if i > hi:
            bstart[nb] = i
            nb += 1
        for j in range(n - 1, max(i, hi), -1):
            if M[i, j] != 0.0:
                hi = j
                break
        if i > hi:
            hi = i
    bstart[nb] = n
    return bstart[:nb + 1].copy()


@njit(cache=True)
def EliminationOrder(M, idx, start, bstart):
    """Dof elimination order for the envelope Cholesky of H = M + J'DJ: order[k] = dof eliminated k-th.

    Each tree of M (a dof range bstart[t]:bstart[t + 1] no M entry crosses, see TreeBlocks) keeps its dofs
    in reverse order (children before parents: no fill inside a tree); the trees are ordered by reverse
    Cuthill-McKee over the coupling of the constraint rows' supports, which keeps the envelope of H narrow."""
    n = M.shape[0]
    order = np.empty(n, dtype=np.int64)
    EliminationOrderInto(n, idx, start, bstart, order, np.empty(OrderScratchSize(n, bstart.shape[0] - 1), np.int64))
    return order


@njit(cache=True)
def OrderScratchSize(n, nb):
    """Size of EliminationOrderInto's integer scratch for n dofs in nb trees."""
    return n + nb * nb + 4 * nb


@njit(cache=True, _nrt=False)
def EliminationOrderInto(n, idx, start, bstart, order, wk):
    """EliminationOrder of n dofs into order (n,), with the integer scratch wk (OrderScratchSize(n, trees)).
    Allocates nothing: compiled without reference counting (linalg.py)."""
    nb = bstart.shape[0] - 1
    if nb <= 1:  # one tree: its dofs children first, nothing to order
        for k in range(n):
            order[k] = n - 1 - k
        return
    block = wk[:n]
    adj = wk[n:n + nb * nb]  # adj[u * nb + w] != 0: trees u and w share a row
    seen_in = wk[n + nb * nb:n + nb * nb + nb]  # distinct trees of the current row
    deg = wk[n + nb * nb + nb:n + nb * nb + 2 * nb]
    seen = wk[n + nb * nb + 2 * nb:n + nb * nb + 3 * nb]
    cm = wk[n + nb * nb + 3 * nb:n + nb * nb + 4 * nb]
    for t in range(nb):
        for k in range(bstart[t], bstart[t + 1]):
            block[k] = t
    # block adjacency through the rows (dense bit matrix; nb is the number of trees): each row couples the
    # distinct trees of its support (a contact row: one or two), found in one pass over the support
    adj[:] = 0
    m = start.shape[0] - 1
    for r in range(m):
        nd = 0
        for a in range(start[r], start[r + 1]):
            ba = block[idx[a]]
            new = True
            for u in range(nd):
                if seen_in[u] == ba:
                    new = False
                    break
            if new:
                for u in range(nd):
                    adj[ba * nb + seen_in[u]] = 1
                    adj[seen_in[u] * nb + ba] = 1
                seen_in[nd] = ba
                nd += 1
    deg[:] = 0
    for u in range(nb):
        for w in range(nb):
            if adj[u * nb + w] != 0:
                deg[u] += 1
    # Cuthill-McKee per connected component, started at a minimum-degree tree; then reversed
    seen[:] = 0
    head = 0
    tail = 0
    while tail < nb:
        root = -1
        for u in range(nb):
            if seen[u] == 0 and (root < 0 or deg[u] < deg[root]):
                root = u
        seen[root] = 1
        cm[tail] = root
        tail += 1
        while head < tail:
            u = cm[head]
            head += 1
            first_new = tail
            for w in range(nb):
                if adj[u * nb + w] != 0 and seen[w] == 0:
                    seen[w] = 1
                    cm[tail] = w
                    tail += 1
            # neighbours by increasing degree (insertion sort: few per tree)
            for x in range(first_new + 1, tail):
                v = cm[x]
                y = x - 1
                while y >= first_new and deg[cm[y]] > deg[v]:
                    cm[y + 1] = cm[y]
                    y -= 1
                cm[y + 1] = v
    k = 0
    for t in range(nb - 1, -1, -1):
        bb = cm[t]
        for d in range(bstart[bb + 1] - 1, bstart[bb] - 1, -1):
            order[k] = d
            k += 1


@njit(cache=True, _nrt=False)
def PermutedInto(M, order, out):
    """out[i, j] = M[order[i], order[j]] (out (n, n))."""
    n = M.shape[0]
    for i in range(n):
        oi = order[i]
        for j in range(n):
            out[i, j] = M[oi, order[j]]


@njit(cache=True, _nrt=False)
def PermutedSymMatVecInto(Mp, first, order, x, y):
    """y = M x (y (n,) overwritten) for M given by the lower row envelope `first` of its permutation Mp
    (PermutedInto, EnvelopeFirstInto)."""
    n = x.shape[0]
    y[:] = 0.0
    for i in range(n):
        oi = order[i]
        xi = x[oi]
        acc = Mp[i, i] * xi
        for j in range(first[i], i):
            m = Mp[i, j]
            acc += m * x[order[j]]
            y[order[j]] += m * xi
        y[oi] += acc


@njit(cache=True, _nrt=False)
def PermutedSolveInto(L, first, order, g, gp, x):
    """x = H⁻¹ g (x (n,)) from the envelope factor L of the permuted H, with the scratch gp (n,)."""
    n = g.shape[0]
    for k in range(n):
        gp[k] = g[order[k]]
    EnvelopeSolveInto(L, first, gp, gp)
    for k in range(n):
        x[order[k]] = gp[k]


@njit(cache=True)
def ReverseTreeSolve(M, bstart, b):
    """x = M^-1 b for a symmetric positive definite, tree-sparse M (a mass matrix, M + h D) by an envelope
    Cholesky in reverse dof order (children before parents: no fill inside a tree when dofs are numbered
    parents first). bstart (TreeBlocks) bounds each row's scan to its tree; any order is exact, the envelope
    only grows. The factor is stored by its row envelope (tree_sparse.ReverseTreeSolveSkyline), not as an n x n
    array. Raises np.linalg.LinAlgError if M is not positive definite."""
    return ReverseTreeSolveSkyline(M, bstart, b)
