"""The MuJoCo constraint rows of the step written in place into Data's row buffers (constraint.py's `assemble`):
the same rows, in the same order and with the same arithmetic as contact/assembly.AssembleRows fed by the head
rows (equalities, dry friction, limits), without the ~30 arrays a step would otherwise allocate.

Data keeps one buffer per kind of row value (data.py: efc_bJ, efc_bf, efc_bi, efc_bK; per group grp_bf / grp_bi;
per contact con_bf / con_bi / con_bforce), grown only when a step's rows exceed its capacity (to twice the old
size, so a model whose contacts come and go stops allocating after a few steps). The d.efc_* / d.con_* fields a
step leaves are views of their first rows; only the rows in use are written. The Jacobian rows are zero outside
a row's columns, as the dense arrays they replace, without a fill of the whole rows each step: a contact's row is
written on its contact's chain only, and the entries the last step wrote are cleared first (`_clear_rows`); the
contacts' Jacobians d.con_J are kept the same way (`contact_jacobians`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..contact.impedance import ContactRegularizersInto, GroupImpedancesInto
from ..contact.parameters import (CONTACT_ELLIPTIC, CONTACT_FRICTIONLESS, CONTACT_PYRAMIDAL, EQUALITY, FRICTION_DOF,
                                  FRICTION_TENDON, LIMIT_JOINT, LIMIT_TENDON, _clamp_solimp)
from ..kernels.contact_kernels import ContactJacobiansInto, _chain_insert
from ..math.functions import rotation_matrix_from_quaternion
from .equality import EQ_ROWS, EQ_WELD

#: rows of d.efc_bf: per constraint row pos, margin, frictionloss, diagA, R, D, J·v, aref, force, A_diag before
#: the impedance (diagApprox)
EF_POS, EF_MARGIN, EF_FLOSS, EF_DIAGA, EF_R, EF_D, EF_VEL, EF_AREF, EF_FORCE, EF_DA0 = range(10)
EFC_NF = 10
#: rows of d.efc_bi: type, id, and the limit of each limit row (efc_limit, first nl entries)
EI_TYPE, EI_ID, EI_LIMIT = range(3)
EFC_NI = 3
#: columns of d.grp_bf: impedance position, solref (2), solreffriction (2), solimp (5, clamped)
G_POS, G_REF, G_REFF, G_IMP = 0, 1, 3, 5
GRP_NF = 10


@njit(cache=True)
def _capacity(old, need):
    return max(need, 2 * old, 8)


@njit(cache=True)
def reserve_rows(d, nefc, ngroup, ncon, nv):
    """Data's row buffers with room for nefc rows (nv columns), ngroup groups and ncon contacts."""
    cap = d.efc_bf.shape[1]
    if cap < nefc or cap == 0 or d.efc_bJ.shape[1] != nv or d.efc_bJ.shape[0] != cap:
        c = _capacity(cap if d.efc_bJ.shape[1] == nv else 0, nefc)
        d.efc_bJ = np.zeros((c, nv))
        d.efc_bJ_nh, d.efc_bJ_n = 0, 0  # nothing written in the new buffer
        d.efc_bf = np.zeros((EFC_NF, c))
        d.efc_bi = np.zeros((EFC_NI, c), np.int64)
        d.efc_bK = np.zeros((c, 4))
    if d.grp_bf.shape[0] < ngroup or d.grp_bf.shape[0] == 0:
        c = _capacity(d.grp_bf.shape[0], ngroup)
        d.grp_bf = np.zeros((c, GRP_NF))
        d.grp_bi = np.zeros((2, c), np.int64)
    if d.con_bf.shape[1] < ncon or d.con_bf.shape[1] == 0:
        c = _capacity(d.con_bf.shape[1], ncon)
        d.con_bf = np.zeros((2, c))
        d.con_bi = np.zeros((2, c), np.int64)
        d.con_bforce = np.zeros((c, 6))


@njit(cache=True)
def contact_chains(m, d):
    """Each contact's dofs into d.con_chain[d.con_chain_adr[c]:d.con_chain_adr[c + 1]] (ascending, no repeats: the
    union of its two bodies' chains to the root, as kernels/contact_kernels.ContactChains), for all d.ncon contacts;
    computed once a step for the rows' Jacobians, J·v and the solver's row supports."""
    ji = m.tree.ji
    n = d.ncon
    body = d.con_body
    total = 0
    for c in range(n):
        for s in range(2):
            a = body[c, s]
            while a > 0:
                total += ji[a, 5]
                a = ji[a, 0]
    if d.con_chain.shape[0] < total:
        d.con_chain = np.empty(_capacity(d.con_chain.shape[0], total), np.int64)
    if d.con_chain_adr.shape[0] < n + 1:
        d.con_chain_adr = np.empty(_capacity(d.con_chain_adr.shape[0], n + 1), np.int64)
    buf, adr = d.con_chain, d.con_chain_adr
    k = 0
    for c in range(n):
        adr[c] = k
        k = _chain_insert(buf, adr[c], k, body[c, 0], ji)
        k = _chain_insert(buf, adr[c], k, body[c, 1], ji)
    adr[n] = k


@njit(cache=True)
def contact_jacobians(m, d, rotational):
    """d.con_J (ncon × 6 × nv, or × 3 when not `rotational`): the contact-frame Jacobians of d.ncon contacts
    (kernels/contact_kernels.ContactJacobians' values), a view of Data's buffer d.con_bJ, and the contacts' chains
    (`contact_chains`). Only the chains' columns are written: the entries the last call wrote (its contacts'
    chains, still in d.con_chain) are cleared first, so the rest of the buffer stays zero without an O(ncon·nv)
    fill per step (96 dominoes, nv = 576: 382 contacts × 3 × 576)."""
    nv = m.tree.nv
    n = d.ncon
    nr = 6 if rotational else 3
    buf = d.con_bJ
    ch, ad = d.con_chain, d.con_chain_adr
    pr = d.con_bJ_nr
    for c in range(d.con_bJ_n):
        for r in range(pr):
            base = (c * pr + r) * nv
            for p in range(ad[c], ad[c + 1]):
                buf[base + ch[p]] = 0.0
    need = n * nr * nv
    if buf.shape[0] < need:
        buf = np.zeros(max(need, buf.shape[0] + buf.shape[0] // 2))
        d.con_bJ = buf
    contact_chains(m, d)
    d.con_bJ_n, d.con_bJ_nr = n, nr
    J = buf[:need].reshape((n, nr, nv))
    ContactJacobiansInto(m.tree.ji, d.S, d.con_body[:, 0], d.con_body[:, 1], d.con_pos, d.con_frame, rotational,
                         d.con_chain, d.con_chain_adr, J)
    d.con_J = J


@njit(cache=True)
def _clear_rows(d, nh, nv):
    """Zero the entries of d.efc_bJ the last `mujoco_rows` wrote in its rows from nh on (the rows before are
    written whole again): head rows whole, contact rows on their contact's chain (kept in d.efc_bJ_chain)."""
    J = d.efc_bJ
    ident = d.efc_bi[EI_ID]
    ch, ad = d.efc_bJ_chain, d.efc_bJ_adr
    for r in range(nh, d.efc_bJ_n):
        if r < d.efc_bJ_nh:
            for q in range(nv):
                J[r, q] = 0.0
        else:
            c = ident[r]
            for p in range(ad[c], ad[c + 1]):
                J[r, ch[p]] = 0.0


@njit(cache=True)
def _record_rows(d, nh, nefc, nmj):
    """Note the rows of d.efc_bJ written this step (nh head rows, contact rows up to nefc) and a copy of the first
    nmj contacts' chains, for the next step's `_clear_rows`."""
    adr = d.con_chain_adr  # (adr[0] is 0 even when no step has had contacts)
    total = adr[nmj]
    if d.efc_bJ_chain.shape[0] < total:
        d.efc_bJ_chain = np.empty(_capacity(d.efc_bJ_chain.shape[0], total), np.int64)
    if d.efc_bJ_adr.shape[0] < nmj + 1:
        d.efc_bJ_adr = np.empty(_capacity(d.efc_bJ_adr.shape[0], nmj + 1), np.int64)
    for k in range(total):
        d.efc_bJ_chain[k] = d.con_chain[k]
    for c in range(nmj + 1):
        d.efc_bJ_adr[c] = adr[c]
    d.efc_bJ_nh, d.efc_bJ_n = nh, nefc


@njit(cache=True)
def _contact_rows(condim, pyramidal):
    """Rows of a contact: 1 (condim 1), 2(condim − 1) pyramidal, condim elliptic (rows.CountContactRows)."""
    if condim == 1:
        return 1
    return 2 * (condim - 1) if pyramidal else condim


@njit(cache=True, inline="always")
def _scalar_row(row, g, p, margin, floss, dA0, typ, solref, solimp, pos, mar, fl, dA, tp, ident, G, gadr, gdim):
    """The values of a one-row group (dry friction, limit) other than its Jacobian row: position p, margin,
    frictionloss, A_diag before the impedance, type, and the group's position, solref (2) and solimp (5)."""
    pos[row], mar[row], fl[row] = p, margin, floss
    dA[row] = dA0
    tp[row], ident[row] = typ, g
    gadr[g], gdim[g] = row, 1
    G[g, G_POS] = p
    G[g, G_REF], G[g, G_REF + 1] = solref[0], solref[1]
    for j in range(5):
        G[g, G_IMP + j] = solimp[j]


@njit(cache=True)
def _head(m, d, nf, J, pos, mar, fl, dA, tp, ident, limit, G, gadr, gdim):
    """The head rows (equalities, dry friction of dofs then tendons, active limits of joints then tendons, lower
    before upper; constraint.py's order) and their groups, into the views. Returns the first active invalid limit
    (-1: none) and the number of head rows."""
    r, t, e, ten = m.rows, m.tree, m.eq, m.ten
    q, nv, L = d.q, t.nv, d.ten_length
    ne, neq, nfd = e.ne, e.eq_type.shape[0], r.fr_dof.shape[0]
    for k in range(neq):
        a, n = e.eq_adr[k], EQ_ROWS[e.eq_type[k]]
        for i in range(n):
            for c in range(nv):
                J[a + i, c] = d.eq_J[a + i, c]
            pos[a + i] = d.eq_pos[a + i]
            mar[a + i] = 0.0
            fl[a + i] = 0.0
            dA[a + i] = e.eq_invweight[k, 1] if (e.eq_type[k] == EQ_WELD and i >= 3) else e.eq_invweight[k, 0]
            tp[a + i] = EQUALITY
            ident[a + i] = k
        gadr[k], gdim[k] = a, n
        G[k, G_POS] = d.eq_gpos[k]
        G[k, G_REF], G[k, G_REF + 1] = e.eq_solref[k, 0], e.eq_solref[k, 1]
        for j in range(5):
            G[k, G_IMP + j] = e.eq_solimp[k, j]
    for i in range(nfd):
        dof, row, g = r.fr_dof[i], ne + i, neq + i
        for c in range(nv):
            J[row, c] = 0.0
        a = r.fr_quat[i]
        if a < 0:
            J[row, dof] = 1.0
        else:  # ω_M's component k = (R_FMᵀ ω_F)_k (MuJoCo's ball / free angular qvel)
            R_FM = rotation_matrix_from_quaternion(q[a:a + 4])
            k = dof - r.fr_rot[i]
            for c in range(3):
                J[row, r.fr_rot[i] + c] = R_FM[c, k]
        _scalar_row(row, g, 0.0, 0.0, r.fr_loss[i], t.dof_invweight0[dof], FRICTION_DOF, r.fr_ref[i], r.fr_imp[i],
                    pos, mar, fl, dA, tp, ident, G, gadr, gdim)
    for k in range(ten.fr_ten.shape[0]):  # MuJoCo's mj_instantiateFriction: J = the tendon's moment arm
        row, g, tk = ne + nfd + k, neq + nfd + k, ten.fr_ten[k]
        for c in range(nv):
            J[row, c] = d.ten_J[tk, c]
        _scalar_row(row, g, 0.0, 0.0, ten.fr_loss[k], max(ten.invweight0[tk], 1e-15), FRICTION_TENDON, ten.fr_ref[k],
                    ten.fr_imp[k], pos, mar, fl, dA, tp, ident, G, gadr, gdim)
    bad = -1
    i = 0
    for k in range(r.lim_q.shape[0]):
        x = q[r.lim_q[k]]
        for side in range(2):
            dist = x - r.lim_lo[k] if side == 0 else r.lim_hi[k] - x
            if dist < r.lim_margin[k]:
                if r.lim_bad[k] and bad < 0:
                    bad = k
                dof = r.lim_dof[k]
                row, g = ne + nf + i, neq + nf + i
                for c in range(nv):
                    J[row, c] = 0.0
                J[row, dof] = 1.0 - 2.0 * side
                _scalar_row(row, g, dist, r.lim_margin[k], 0.0, t.dof_invweight0[dof], LIMIT_JOINT, r.lim_ref[k],
                            r.lim_imp[k], pos, mar, fl, dA, tp, ident, G, gadr, gdim)
                limit[i] = k
                i += 1
    njl = r.lim_q.shape[0]
    for k in range(ten.lim_ten.shape[0]):  # mj_instantiateLimit: J = ± the moment arm, lower before upper
        tk = ten.lim_ten[k]
        x = L[tk]
        for side in range(2):
            dist = x - ten.lim_lo[k] if side == 0 else ten.lim_hi[k] - x
            if dist < ten.lim_margin[k]:
                if ten.lim_bad[k] and bad < 0:
                    bad = njl + k
                sign = 1.0 - 2.0 * side
                row, g = ne + nf + i, neq + nf + i
                for c in range(nv):
                    J[row, c] = sign * d.ten_J[tk, c]
                _scalar_row(row, g, dist, ten.lim_margin[k], 0.0, max(ten.invweight0[tk], 1e-15), LIMIT_TENDON,
                            ten.lim_ref[k], ten.lim_imp[k], pos, mar, fl, dA, tp, ident, G, gadr, gdim)
                limit[i] = njl + k
                i += 1
    return bad, ne + nf + i


@njit(cache=True)
def _contacts(m, d, nh, ngh, pyramidal, J, pos, mar, fl, dA, tp, ident, G, gadr, gdim, con_adr):
    """The MuJoCo contacts' rows after the nh head rows (rows.ContactRows' layout and values; the Jacobian rows
    written on the contacts' chains, zero elsewhere) and their groups after the ngh head groups."""
    iw = m.tree.body_invweight0
    chain, cadr = d.con_chain, d.con_chain_adr
    Jc, fr = d.con_J, d.con_friction
    i = nh
    for c in range(d.ncon_mujoco):
        dim = d.con_condim[c]
        bA, bB = d.con_body[c, 0], d.con_body[c, 1]
        tran = iw[bA, 0] + iw[bB, 0]
        rot = iw[bA, 1] + iw[bB, 1]
        nr = _contact_rows(dim, pyramidal)
        g = ngh + c
        gadr[g], gdim[g] = i, nr
        con_adr[c] = i
        G[g, G_POS] = d.con_dist[c]
        G[g, G_REF], G[g, G_REF + 1] = d.con_solref[c, 0], d.con_solref[c, 1]
        G[g, G_REFF], G[g, G_REFF + 1] = d.con_solreffriction[c, 0], d.con_solreffriction[c, 1]
        for j in range(5):
            G[g, G_IMP + j] = d.con_solimp[c, j]
        for r in range(i, i + nr):  # (J's row is zero outside the chain: efc_bJ's rows are cleared, _clear_rows)
            pos[r], mar[r], fl[r], ident[r] = 0.0, 0.0, 0.0, c
        c0, c1 = cadr[c], cadr[c + 1]
        if dim == 1:
            for p in range(c0, c1):
                J[i, chain[p]] = Jc[c, 0, chain[p]]
            pos[i], mar[i], dA[i], tp[i] = d.con_dist[c], d.con_includemargin[c], tran, CONTACT_FRICTIONLESS
        elif pyramidal:
            for k in range(1, dim):
                mu = fr[c, k - 1]
                r = i + 2 * (k - 1)
                for p in range(c0, c1):
                    q = chain[p]
                    J[r, q] = Jc[c, 0, q] + mu * Jc[c, k, q]
                    J[r + 1, q] = Jc[c, 0, q] - mu * Jc[c, k, q]
                a = tran + mu * mu * (tran if k - 1 < 2 else rot)
                for s in range(2):
                    pos[r + s], mar[r + s], dA[r + s], tp[r + s] = d.con_dist[c], d.con_includemargin[c], a, \
                        CONTACT_PYRAMIDAL
        else:
            for k in range(dim):
                for p in range(c0, c1):
                    J[i + k, chain[p]] = Jc[c, k, chain[p]]
                tp[i + k] = CONTACT_ELLIPTIC
                dA[i + k] = tran if k < 3 else rot
            pos[i], mar[i] = d.con_dist[c], d.con_includemargin[c]
        i += nr
    return i


@njit(cache=True)
def _impedance(d, ne, nf, ng, h, impratio, J, pos, mar, dA0, tp, ident, G, gadr, gdim, R, D, K, diagA, vel, aref,
               con_mu, nh):
    """contact/impedance.MakeImpedance (clamped solimp, R, D, KBIP, adjusted diagA, con_mu) and J·v, aref
    (assembly.AssembleRows, impedance.ReferenceAcceleration) over the views, in their order and arithmetic."""
    nefc = R.shape[0]
    nv = J.shape[1]
    _clamp_solimp(G[:ng, G_IMP:G_IMP + 5])  # MuJoCo's clamps (the values were validated finite)
    GroupImpedancesInto(tp, mar, dA0, gadr[:ng], gdim[:ng], G[:ng, G_POS], G[:ng, G_REF:G_REF + 2],
                        G[:ng, G_REFF:G_REFF + 2], G[:ng, G_IMP:G_IMP + 5], h, True, R, K)
    for c in range(con_mu.shape[0]):
        con_mu[c] = 0.0
    ContactRegularizersInto(tp, ident, ne + nf, d.con_condim, d.con_friction, impratio, R, con_mu)
    for r in range(nefc):
        D[r] = 1.0 / R[r]
        diagA[r] = R[r] * K[r, 2] / (1.0 - K[r, 2])
    v = d.v
    chain, cadr = d.con_chain, d.con_chain_adr
    for r in range(nh):
        acc = 0.0
        for q in range(nv):
            acc += J[r, q] * v[q]
        vel[r] = acc
    for r in range(nh, nefc):
        c = ident[r]
        acc = 0.0
        for p in range(cadr[c], cadr[c + 1]):
            acc += J[r, chain[p]] * v[chain[p]]
        vel[r] = acc
    for r in range(nefc):
        aref[r] = -K[r, 1] * vel[r] - K[r, 0] * K[r, 2] * (pos[r] - mar[r])
    for r in range(ne):  # J̇·v of connect, weld and distance rows (MuJoCo's mj_Jdotv)
        aref[r] -= d.eq_jdv[r]


@njit(cache=True)
def mujoco_rows(m, d, nf, nlim):
    """The MuJoCo rows of the step (equality, friction, limits, then the first d.ncon_mujoco contacts) into Data's
    buffers, with d.efc_* and d.con_dim / con_fric / con_mu / con_efc_address the views of them (con_dim and
    con_fric are d.con_condim and d.con_friction themselves). nf: dry-friction rows, nlim: active limits. Returns
    the first active invalid limit (-1: none; then no row is kept)."""
    t, o = m.tree, m.opt
    nv = t.nv
    neq = m.eq.eq_type.shape[0]
    ne = m.eq.ne
    nmj = d.ncon_mujoco
    pyramidal = o.cone == 0
    nefc = ne + nf + nlim
    for c in range(nmj):
        nefc += _contact_rows(d.con_condim[c], pyramidal)
    ngh = neq + nf + nlim
    ng = ngh + nmj
    reserve_rows(d, nefc, ng, nmj, nv)
    _clear_rows(d, ne + nf + nlim, nv)  # (before the head writes over the ids of the last step's rows)
    J = d.efc_bJ[:nefc]
    F, I = d.efc_bf, d.efc_bi
    pos, mar, fl, dA0 = F[EF_POS, :nefc], F[EF_MARGIN, :nefc], F[EF_FLOSS, :nefc], F[EF_DA0, :nefc]
    tp, ident, limit = I[EI_TYPE, :nefc], I[EI_ID, :nefc], I[EI_LIMIT, :nlim]
    G, gadr, gdim = d.grp_bf, d.grp_bi[0], d.grp_bi[1]
    con_adr, con_mu = d.con_bi[0, :nmj], d.con_bf[0, :nmj]
    for g in range(ngh):  # no solreffriction in the head groups
        G[g, G_REFF], G[g, G_REFF + 1] = 0.0, 0.0
    bad, nh = _head(m, d, nf, J, pos, mar, fl, dA0, tp, ident, limit, G, gadr, gdim)
    if bad >= 0:
        _record_rows(d, nh, nh, 0)
        d.efc_limit = limit
        return bad
    _contacts(m, d, nh, ngh, pyramidal, J, pos, mar, fl, dA0, tp, ident, G, gadr, gdim, con_adr)
    _record_rows(d, nh, nefc, nmj)
    R, D, diagA = F[EF_R, :nefc], F[EF_D, :nefc], F[EF_DIAGA, :nefc]
    vel, aref = F[EF_VEL, :nefc], F[EF_AREF, :nefc]
    K = d.efc_bK[:nefc]
    _impedance(d, ne, nf, ng, t.h, o.impratio, J, pos, mar, dA0, tp, ident, G, gadr, gdim, R, D, K, diagA, vel, aref,
               con_mu, nh)
    d.ne, d.nf, d.nl = ne, nf, nlim
    d.efc_J, d.efc_type, d.efc_id, d.efc_pos, d.efc_margin, d.efc_floss = J, tp, ident, pos, mar, fl
    d.efc_diagA, d.efc_R, d.efc_D, d.efc_KBIP, d.efc_vel, d.efc_aref = diagA, R, D, K, vel, aref
    d.efc_limit = limit
    d.con_dim, d.con_fric, d.con_mu, d.con_efc_address = d.con_condim, d.con_friction, con_mu, con_adr
    return -1
