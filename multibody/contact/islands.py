"""Constraint islands (MuJoCo's mj_island): the kinematic trees coupled by constraint rows, found by union-find
over the trees each row's Jacobian touches. MuJoCo solves each island on its own (its own tolerance scale, line
searches and iteration count); the dofs of trees without constraint rows keep their unconstrained acceleration.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _root(parent, t):
    r = t
    while parent[r] != r:
        r = parent[r]
    while parent[t] != t:
        nxt = parent[t]
        parent[t] = r
        t = nxt
    return r


@njit(cache=True)
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
    nv = bstart[ntree]
    tree_of_dof = np.empty(nv, np.int64)
    for t in range(ntree):
        for k in range(bstart[t], bstart[t + 1]):
            tree_of_dof[k] = t
    parent = np.full(ntree, -1, np.int64)
    efc_tree = np.full(nefc, -1, np.int64)
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
    tree_island = np.full(ntree, -1, np.int64)
    nisland = 0
    for t in range(ntree):
        if parent[t] == -1:
            continue
        r = _root(parent, t)
        if r == t:
            tree_island[t] = nisland
            nisland += 1
        else:
            tree_island[t] = tree_island[r]
    efc_island = np.full(nefc, -1, np.int64)
    for i in range(nefc):
        if efc_tree[i] >= 0:
            efc_island[i] = tree_island[efc_tree[i]]
    return nisland, tree_island, efc_island


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
    nefc = efc_island.shape[0]
    ptr = np.zeros(nisland + 2, np.int64)
    n_eq = np.zeros(nisland + 1, np.int64)
    n_fr = np.zeros(nisland + 1, np.int64)
    for i in range(nefc):
        g = efc_island[i] + 1
        ptr[g + 1] += 1
        if i < ne:
            n_eq[g] += 1
        elif i < ne + nf:
            n_fr[g] += 1
    for g in range(nisland + 1):
        ptr[g + 1] += ptr[g]
    fill = ptr[:nisland + 1].copy()
    rows = np.empty(nefc, np.int64)
    for i in range(nefc):
        g = efc_island[i] + 1
        rows[fill[g]] = i
        fill[g] += 1
    return rows, ptr, n_eq, n_fr
