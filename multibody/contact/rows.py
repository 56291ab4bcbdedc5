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
def ContactRows(J_contact, dist, condim, friction, includemargin, tran, rot, pyramidal, row0, con0):
    """Rows of all contacts.

    J_contact: (ncon, 6, nv) relative Jacobian of body B w.r.t. body A at the contact point, rows
    [normal, tangent1, tangent2, spin(normal), roll(t1), roll(t2)] in the contact frame (the normal
    points from A to B, so J_contact[c, 0] @ v is the separation speed). dist: signed distance (m,
    negative in penetration); friction (ncon, 5); includemargin: distance below which the rows act
    (MuJoCo 4: the summed geom margins); tran / rot: sum over
    both bodies of their translational / rotational inverse weights (MuJoCo body_invweight0).
    `row0` and `con0` offset efc_id / group addresses when contacts follow other rows.
    Returns J, pos, margin, diagA, type, id, grp_adr, grp_dim, con_efc_address.
    """
    ncon = J_contact.shape[0]
    nv = J_contact.shape[2]
    nrow = CountContactRows(condim, pyramidal)
    nefc = 0
    for c in range(ncon):
        nefc += nrow[c]
    J = np.zeros((nefc, nv))
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
        if dim == 1:
            J[i] = J_contact[c, 0]
            pos[i] = dist[c]
            margin[i] = includemargin[c]
            diagA[i] = tran[c]
            tp[i] = CONTACT_FRICTIONLESS
            ident[i] = con0 + c
            i += 1
        elif pyramidal:
            for k in range(1, dim):
                mu = friction[c, k - 1]
                for q in range(nv):
                    J[i, q] = J_contact[c, 0, q] + mu * J_contact[c, k, q]
                    J[i + 1, q] = J_contact[c, 0, q] - mu * J_contact[c, k, q]
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
                J[i + k] = J_contact[c, k]
                tp[i + k] = CONTACT_ELLIPTIC
                ident[i + k] = con0 + c
                diagA[i + k] = tran[c] if k < 3 else rot[c]
            pos[i] = dist[c]
            margin[i] = includemargin[c]
            i += dim
    return J, pos, margin, diagA, tp, ident, grp_adr, grp_dim, efc_address
