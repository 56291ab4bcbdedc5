"""One compiled pass from collected constraint rows to the solver's row arrays.

`AssembleRows` lays out the non-contact rows (equality, dry friction, limits: the "head", already in
MuJoCo's order) followed by the contact rows (rows.ContactRows), clamps solimp as MuJoCo does, and
computes the impedance (R, D, KBIP), adjusted A_diag, J v and aref (impedance.py) in the same call, so a
step's assembly costs one dispatch instead of one per stage.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .impedance import MakeImpedance, ReferenceAcceleration
from .parameters import LIMIT_JOINT, MAXIMP, MINIMP
from .rows import AllColumns, ContactRows, CountContactRows


@njit(cache=True)
def AssembleRows(Jh, pos_h, mar_h, fl_h, dA_h, tp_h, gdim_h, gpos_h, gref_h, gimp_h,
                 Jc, dist, condim, friction, includemargin, tran, rot, solref, solreffriction, solimp,
                 pyramidal, ne, nf, timestep, refsafe, impratio, vel, chain, chain_adr):
    """Row arrays of a constraint problem.

    Head rows (nh of them): J (nh, nv), pos, margin, frictionloss, diagA0, type per row; per head group
    (one equality, friction or limit constraint): rows, impedance position, solref (2), solimp (5, validated,
    clamped here). Contacts: as rows.ContactRows plus solref, solreffriction, solimp per contact.
    ne, nf: equality and friction row counts. vel (nv,) the velocities for efc_vel = J v. chain / chain_adr: the
    columns where each contact's Jacobian may be nonzero (kernels/contact_kernels.ContactChains, or every column);
    J v sums over those only (the same sums as the dense product, without the products by zeros).
    Returns J, pos, margin, frictionloss, type, id, R, D, KBIP, diagA, con_mu, efc_vel, aref,
    con_efc_address and the rows of each contact.
    """
    nh, nv = Jh.shape[0], Jh.shape[1]
    ngh = gdim_h.shape[0]
    ncon = Jc.shape[0]
    nrow = CountContactRows(condim, pyramidal)
    nefc = nh
    for c in range(ncon):
        nefc += nrow[c]
    J = np.zeros((nefc, nv))
    pos_c, mar_c, dA_c, tp_c, id_c, gadr_c, gdim_c, con_addr = ContactRows(
        J, Jc, dist, condim, friction, includemargin, tran, rot, pyramidal, nh, 0, chain, chain_adr)
    pos = np.empty(nefc)
    margin = np.empty(nefc)
    fl = np.zeros(nefc)
    dA0 = np.empty(nefc)
    tp = np.empty(nefc, dtype=np.int64)
    ident = np.empty(nefc, dtype=np.int64)
    ng = ngh + ncon
    g_adr = np.empty(ng, dtype=np.int64)
    g_dim = np.empty(ng, dtype=np.int64)
    g_pos = np.empty(ng)
    g_ref = np.empty((ng, 2))
    g_reff = np.zeros((ng, 2))
    g_imp = np.empty((ng, 5))
    r = 0
    for g in range(ngh):
        g_adr[g] = r
        g_dim[g] = gdim_h[g]
        g_pos[g] = gpos_h[g]
        g_ref[g, 0], g_ref[g, 1] = gref_h[g, 0], gref_h[g, 1]
        for k in range(5):
            g_imp[g, k] = gimp_h[g, k]
        for _ in range(gdim_h[g]):
            ident[r] = g
            r += 1
    for i in range(nh):
        for q in range(nv):
            J[i, q] = Jh[i, q]
        pos[i], margin[i], fl[i], dA0[i], tp[i] = pos_h[i], mar_h[i], fl_h[i], dA_h[i], tp_h[i]
    for i in range(nefc - nh):
        r = nh + i
        pos[r], margin[r], dA0[r], tp[r], ident[r] = pos_c[i], mar_c[i], dA_c[i], tp_c[i], id_c[i]
    for c in range(ncon):
        g = ngh + c
        g_adr[g], g_dim[g], g_pos[g] = gadr_c[c], gdim_c[c], dist[c]
        g_ref[g, 0], g_ref[g, 1] = solref[c, 0], solref[c, 1]
        g_reff[g, 0], g_reff[g, 1] = solreffriction[c, 0], solreffriction[c, 1]
        for k in range(5):
            g_imp[g, k] = solimp[c, k]
    for g in range(ng):  # MuJoCo's clamps (the values were validated finite)
        g_imp[g, 0] = min(MAXIMP, max(MINIMP, g_imp[g, 0]))
        g_imp[g, 1] = min(MAXIMP, max(MINIMP, g_imp[g, 1]))
        g_imp[g, 2] = max(g_imp[g, 2], 0.0)
        g_imp[g, 3] = min(MAXIMP, max(MINIMP, g_imp[g, 3]))
        g_imp[g, 4] = max(g_imp[g, 4], 1.0)
    R, D, KBIP, diagA, con_mu = MakeImpedance(tp, ident, margin, dA0, g_adr, g_dim, g_pos, g_ref, g_reff, g_imp,
                                              ne, nf, condim, friction, timestep, refsafe, impratio)
    efc_vel = np.empty(nefc)
    for i in range(nh):
        acc = 0.0
        for q in range(nv):
            acc += J[i, q] * vel[q]
        efc_vel[i] = acc
    for i in range(nefc - nh):
        r = nh + i
        c = id_c[i]
        acc = 0.0
        for p in range(chain_adr[c], chain_adr[c + 1]):
            acc += J[r, chain[p]] * vel[chain[p]]
        efc_vel[r] = acc
    aref = ReferenceAcceleration(KBIP, efc_vel, pos, margin)
    return J, pos, margin, fl, tp, ident, R, D, KBIP, diagA, con_mu, efc_vel, aref, con_addr, gdim_c


@njit(cache=True)
def AssembleLimitContactRows(q, lim_q, lim_lo, lim_hi, lim_margin, lim_dof, lim_ref, lim_imp, lim_bad, iw_d,
                             Jc, dist, condim, friction, includemargin, body_A, body_B, iw_b, solref, solimp,
                             pyramidal, timestep, refsafe, impratio, vel):
    """AssembleRows for the common step whose only non-contact rows are joint limits, with the active limits
    found here (distance below the margin; joint order, lower before upper) and the contacts' inverse weights
    summed from the bodies' (iw_b (nb, 2): translational, rotational), all in one call.

    Limits: q index, lower, upper, margin, dof, validated solref (nl, 2) / solimp (nl, 5), lim_bad (a limit
    whose solref/solimp failed validation), iw_d dof inverse weights. Contacts: as AssembleRows (no
    solreffriction) with body_A / body_B instead of tran / rot.
    Returns J (nefc, nv); F (8, nefc) rows pos, margin, frictionloss, R, D, diagA, efc_vel, aref; I (2, nefc)
    rows type, id; KBIP (nefc, 4); con_mu; C (2, ncon) rows con_efc_address, rows per contact; the active limit
    of each limit row; the first active limit that failed validation (-1: none).
    """
    nlim = lim_q.shape[0]
    nv = vel.shape[0]
    count = 0
    for k in range(nlim):
        x = q[lim_q[k]]
        count += (x - lim_lo[k] < lim_margin[k]) + (lim_hi[k] - x < lim_margin[k])
    Jh = np.zeros((count, nv))
    pos_h = np.empty(count)
    mar_h = np.empty(count)
    fl_h = np.zeros(count)
    dA_h = np.empty(count)
    tp_h = np.full(count, LIMIT_JOINT, np.int64)
    gdim_h = np.ones(count, np.int64)
    gref_h = np.empty((count, 2))
    gimp_h = np.empty((count, 5))
    kk = np.empty(count, np.int64)
    bad = -1
    r = 0
    for k in range(nlim):
        x = q[lim_q[k]]
        for side in range(2):
            d = x - lim_lo[k] if side == 0 else lim_hi[k] - x
            if d < lim_margin[k]:
                if lim_bad[k] and bad < 0:
                    bad = k
                kk[r] = k
                Jh[r, lim_dof[k]] = 1.0 - 2.0 * side
                pos_h[r] = d
                mar_h[r] = lim_margin[k]
                dA_h[r] = iw_d[lim_dof[k]]
                gref_h[r, 0], gref_h[r, 1] = lim_ref[k, 0], lim_ref[k, 1]
                for j in range(5):
                    gimp_h[r, j] = lim_imp[k, j]
                r += 1
    ncon = Jc.shape[0]
    tran = np.empty(ncon)
    rot = np.empty(ncon)
    for c in range(ncon):
        tran[c] = iw_b[body_A[c], 0] + iw_b[body_B[c], 0]
        rot[c] = iw_b[body_A[c], 1] + iw_b[body_B[c], 1]
    (J, pos, margin, fl, tp, ident, R, D, KBIP, diagA, con_mu, efc_vel, aref, con_addr,
     rows_c) = AssembleRows(Jh, pos_h, mar_h, fl_h, dA_h, tp_h, gdim_h, pos_h, gref_h, gimp_h, Jc, dist, condim,
                            friction, includemargin, tran, rot, solref, np.zeros((ncon, 2)), solimp, pyramidal, 0, 0,
                            timestep, refsafe, impratio, vel, *AllColumns(ncon, nv))
    nefc = J.shape[0]
    F = np.empty((8, nefc))
    I = np.empty((2, nefc), np.int64)
    for i in range(nefc):
        F[0, i], F[1, i], F[2, i], F[3, i] = pos[i], margin[i], fl[i], R[i]
        F[4, i], F[5, i], F[6, i], F[7, i] = D[i], diagA[i], efc_vel[i], aref[i]
        I[0, i], I[1, i] = tp[i], ident[i]
    C = np.empty((2, ncon), np.int64)
    for c in range(ncon):
        C[0, c], C[1, c] = con_addr[c], rows_c[c]
    return J, F, I, KBIP, con_mu, C, kk, bad
