"""Constraint islands (MuJoCo's mj_island): the kinematic trees coupled by constraint rows, found by union-find
over the trees each row's Jacobian touches. MuJoCo solves each island on its own (its own tolerance scale, line
searches and iteration count); the dofs of trees without constraint rows keep their unconstrained acceleration.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, _nrt=False)
def _root(parent, t):
    r = t
    while parent[r] != r:
        r = parent[r]
    while parent[t] != t:
        nxt = parent[t]
        parent[t] = r
        t = nxt
    return r


@njit(cache=True, _nrt=False)
def _merge(parent, a, b):
    """Activate trees a and b and join their sets (the smaller root becomes the root, as MuJoCo)."""
    if parent[a] == -1:
        parent[a] = a
    if parent[b] == -1:
        parent[b] = b
    ra = _root(parent, a)
    rb = _root(parent, b)
    if ra < rb:
        parent[rb] = ra
    elif rb < ra:
        parent[ra] = rb


@njit(cache=True)
def Islands(bstart, idx, start, efc_type, efc_id):
    """Islands of the constraint rows: (nisland, tree_island (ntree; -1: no rows), efc_island (nefc)).

    bstart: start offsets of the trees' dof ranges (ntree + 1); idx/start: the rows' Jacobian supports
    (linalg.RowSupport). Islands are numbered by their smallest tree. A row whose Jacobian is zero takes the
    island of the other rows of its constraint (same type and id); a constraint with no support at all gets -1."""
    ntree = bstart.shape[0] - 1
    nefc = efc_type.shape[0]
    tree_island = np.empty(ntree, np.int64)
    efc_island = np.empty(nefc, np.int64)
    nisland = IslandsInto(bstart, idx, start, efc_type, efc_id, np.empty(bstart[ntree], np.int64),
                          np.empty(ntree, np.int64), np.empty(nefc, np.int64), tree_island, efc_island)
    return nisland, tree_island, efc_island


@njit(cache=True, _nrt=False)
def IslandsInto(bstart, idx, start, efc_type, efc_id, tree_of_dof, parent, efc_tree, tree_island, efc_island):
    """Islands into tree_island (ntree) and efc_island (nefc), with the scratch tree_of_dof (nv), parent (ntree) and
    efc_tree (nefc); returns the number of islands."""
    ntree = bstart.shape[0] - 1
    nefc = efc_type.shape[0]
    for t in range(ntree):
        for k in range(bstart[t], bstart[t + 1]):
            tree_of_dof[k] = t
        parent[t] = -1
    for i in range(nefc):
        t0 = -1
        for a in range(start[i], start[i + 1]):
            t = tree_of_dof[idx[a]]
            if t0 == -1:
                t0 = t
                _merge(parent, t, t)
            elif t != t0:
                _merge(parent, t0, t)
        efc_tree[i] = t0
    for i in range(1, nefc):  # rows with a zero Jacobian: the tree of their constraint's other rows
        if efc_tree[i] == -1 and efc_type[i] == efc_type[i - 1] and efc_id[i] == efc_id[i - 1]:
            efc_tree[i] = efc_tree[i - 1]
    for i in range(nefc - 2, -1, -1):
        if efc_tree[i] == -1 and efc_type[i] == efc_type[i + 1] and efc_id[i] == efc_id[i + 1]:
            efc_tree[i] = efc_tree[i + 1]
    nisland = 0
    for t in range(ntree):
        tree_island[t] = -1
        if parent[t] == -1:
            continue
        r = _root(parent, t)
        if r == t:
            tree_island[t] = nisland
            nisland += 1
        else:
            tree_island[t] = tree_island[r]
    for i in range(nefc):
        efc_island[i] = tree_island[efc_tree[i]] if efc_tree[i] >= 0 else -1
    return nisland


@njit(cache=True)
def IslandRows(efc_island, isl, ne, nf, rows):
    """The rows of island `isl` (efc_island as Islands returns it; -1: the rows without support) in ascending order
    into rows[:nr]: returns (nr, its equality rows, its dry-friction rows), the first ne rows being equalities and
    the next nf dry friction."""
    nr = 0
    ne_i = 0
    nf_i = 0
    for i in range(efc_island.shape[0]):
        if efc_island[i] == isl:
            rows[nr] = i
            nr += 1
            if i < ne:
                ne_i += 1
            elif i < ne + nf:
                nf_i += 1
    return nr, ne_i, nf_i


@njit(cache=True)
def IslandRowLists(efc_island, nisland, ne, nf):
    """The rows of every island, bucketed in one pass over the rows (efc_island as Islands returns it; -1: the rows
    without support): (rows, ptr, n_eq, n_fr) with island isl's rows ascending in rows[ptr[isl + 1]:ptr[isl + 2]]
    and its equality and dry-friction row counts in n_eq[isl + 1], n_fr[isl + 1], the first ne rows being equalities
    and the next nf dry friction (IslandRows for every island at once)."""
    rows = np.empty(efc_island.shape[0], np.int64)
    ptr = np.empty(nisland + 2, np.int64)
    n_eq = np.empty(nisland + 1, np.int64)
    n_fr = np.empty(nisland + 1, np.int64)
    IslandRowListsInto(efc_island, nisland, ne, nf, rows, ptr, n_eq, n_fr, np.empty(nisland + 1, np.int64))
    return rows, ptr, n_eq, n_fr


@njit(cache=True, _nrt=False)
def IslandRowListsInto(efc_island, nisland, ne, nf, rows, ptr, n_eq, n_fr, fill):
    """IslandRowLists into rows (nefc), ptr (nisland + 2), n_eq, n_fr (nisland + 1), with the scratch fill
    (nisland + 1)."""
    nefc = efc_island.shape[0]
    for g in range(nisland + 2):
        ptr[g] = 0
    for g in range(nisland + 1):
        n_eq[g] = 0
        n_fr[g] = 0
    for i in range(nefc):
        g = efc_island[i] + 1
        ptr[g + 1] += 1
        if i < ne:
            n_eq[g] += 1
        elif i < ne + nf:
            n_fr[g] += 1
    for g in range(nisland + 1):
        ptr[g + 1] += ptr[g]
    for g in range(nisland + 1):
        fill[g] = ptr[g]
    for i in range(nefc):
        g = efc_island[i] + 1
        rows[fill[g]] = i
        fill[g] += 1


@njit(cache=True, inline="always")
def IslandDofsInto(isl, tree_island, bstart, dofs, loc, lb):
    """The dofs of island `isl` (tree_island as Islands returns it; -1: none) into dofs[:ni], ascending, tree by
    tree; loc[k]: the column of dof k in the island (set for its dofs only); lb[:nb + 1]: the island's local tree
    offsets (lb[b] the first column of its b-th tree, lb[nb] = ni). Returns (ni, nb)."""
    ni = 0
    nb = 0
    if isl >= 0:
        for t in range(bstart.shape[0] - 1):
            if tree_island[t] == isl:
                lb[nb] = ni
                nb += 1
                for k in range(bstart[t], bstart[t + 1]):
                    dofs[ni] = k
                    loc[k] = ni
                    ni += 1
    lb[nb] = ni
    return ni, nb


@njit(cache=True, inline="always")
def IslandSizesInto(nisland, tree_island, efc_island, bstart, size):
    """Each island's dofs, rows and trees into size[3 * isl], size[3 * isl + 1], size[3 * isl + 2] (size: at least
    3 * nisland; tree_island, efc_island as Islands returns them; bstart: the trees' dof offsets). Returns the
    largest of each over the islands (nmax dofs, mmax rows, bmax trees): the scratch of the largest island."""
    for isl in range(nisland):
        size[3 * isl], size[3 * isl + 1], size[3 * isl + 2] = 0, 0, 0
    for t in range(bstart.shape[0] - 1):
        if tree_island[t] >= 0:
            size[3 * tree_island[t]] += bstart[t + 1] - bstart[t]
            size[3 * tree_island[t] + 2] += 1
    for i in range(efc_island.shape[0]):
        if efc_island[i] >= 0:
            size[3 * efc_island[i] + 1] += 1
    nmax = 0
    mmax = 0
    bmax = 0
    for isl in range(nisland):
        nmax = max(nmax, size[3 * isl])
        mmax = max(mmax, size[3 * isl + 1])
        bmax = max(bmax, size[3 * isl + 2])
    return nmax, mmax, bmax
