"""Contact constraint rows: Jacobians in the contact frame turned into pyramidal/elliptic rows.

One compiled kernel builds all contact rows of a step from per-contact arrays, with MuJoCo's
diagonal approximation A_ii of J M^-1 J^T (from the bodies' inverse weights `tran`, `rot`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .parameters import CONTACT_ELLIPTIC, CONTACT_FRICTIONLESS, CONTACT_PYRAMIDAL


@njit(cache=True)
def CountContactRows(condim, pyramidal):
    """Number of constraint rows of each contact: 1 (condim 1), 2(condim-1) pyramidal, condim elliptic."""
    n = condim.shape[0]
    rows = np.empty(n, dtype=np.int64)
    for c in range(n):
        dim = condim[c]
        if dim == 1:
            rows[c] = 1
        elif pyramidal:
            rows[c] = 2 * (dim - 1)
        else:
            rows[c] = dim
    return rows


@njit(cache=True)
def AllColumns(n, nv):
    """(chain, adr) naming every one of nv columns for each of n contacts (ContactRows' chains when unknown)."""
    chain = np.empty(n * nv, np.int64)
    adr = np.empty(n + 1, np.int64)
    for c in range(n):
        adr[c] = c * nv
        for q in range(nv):
            chain[c * nv + q] = q
    adr[n] = n * nv
    return chain, adr


@njit(cache=True)
def ContactRows(J, J_contact, dist, condim, friction, includemargin, tran, rot, pyramidal, row0, con0, chain,
                chain_adr):
    """Rows of all contacts, their Jacobians written into the zero rows J[row0:] (J: (row0 + rows, nv)).

    J_contact: (ncon, 6, nv) relative Jacobian of body B w.r.t. body A at the contact point, rows
    [normal, tangent1, tangent2, spin(normal), roll(t1), roll(t2)] in the contact frame (the normal
    points from A to B, so J_contact[c, 0] @ v is the separation speed). dist: signed distance (m,
    negative in penetration); friction (ncon, 5); includemargin: distance below which the rows act
    (MuJoCo 4: the summed geom margins); tran / rot: sum over
    both bodies of their translational / rotational inverse weights (MuJoCo body_invweight0).
    `row0` and `con0` offset efc_id / group addresses when contacts follow other rows. chain[chain_adr[c]:
    chain_adr[c + 1]]: the columns where contact c's Jacobian may be nonzero (ascending; ContactChains), the only
    ones written. Returns pos, margin, diagA, type, id, grp_adr, grp_dim, con_efc_address.
    """
    ncon = J_contact.shape[0]
    nrow = CountContactRows(condim, pyramidal)
    nefc = 0
    for c in range(ncon):
        nefc += nrow[c]
    pos = np.zeros(nefc)
    margin = np.zeros(nefc)
    diagA = np.zeros(nefc)
    tp = np.zeros(nefc, dtype=np.int64)
    ident = np.zeros(nefc, dtype=np.int64)
    grp_adr = np.zeros(ncon, dtype=np.int64)
    grp_dim = np.zeros(ncon, dtype=np.int64)
    efc_address = np.zeros(ncon, dtype=np.int64)
    i = 0
    for c in range(ncon):
        dim = condim[c]
        grp_adr[c] = row0 + i
        grp_dim[c] = nrow[c]
        efc_address[c] = row0 + i
        c0, c1 = chain_adr[c], chain_adr[c + 1]
        if dim == 1:
            for p in range(c0, c1):
                J[row0 + i, chain[p]] = J_contact[c, 0, chain[p]]
            pos[i] = dist[c]
            margin[i] = includemargin[c]
            diagA[i] = tran[c]
            tp[i] = CONTACT_FRICTIONLESS
            ident[i] = con0 + c
            i += 1
        elif pyramidal:
            for k in range(1, dim):
                mu = friction[c, k - 1]
                for p in range(c0, c1):
                    q = chain[p]
                    J[row0 + i, q] = J_contact[c, 0, q] + mu * J_contact[c, k, q]
                    J[row0 + i + 1, q] = J_contact[c, 0, q] - mu * J_contact[c, k, q]
                a = tran[c] + mu * mu * (tran[c] if k - 1 < 2 else rot[c])
                for s in range(2):
                    pos[i + s] = dist[c]
                    margin[i + s] = includemargin[c]
                    diagA[i + s] = a
                    tp[i + s] = CONTACT_PYRAMIDAL
                    ident[i + s] = con0 + c
                i += 2
        else:
            for k in range(dim):
                for p in range(c0, c1):
                    J[row0 + i + k, chain[p]] = J_contact[c, k, chain[p]]
                tp[i + k] = CONTACT_ELLIPTIC
                ident[i + k] = con0 + c
                diagA[i + k] = tran[c] if k < 3 else rot[c]
            pos[i] = dist[c]
            margin[i] = includemargin[c]
            i += dim
    return pos, margin, diagA, tp, ident, grp_adr, grp_dim, efc_address
