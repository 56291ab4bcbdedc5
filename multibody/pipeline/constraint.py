"""Constraint rows of the discrete step (MuJoCo's mj_makeConstraint + mj_makeImpedance, MJX's constraint.py): the
equality rows (equality.py), dry friction of joint dofs and tendons, active joint and tendon limits and the
contacts' rows, laid out as MuJoCo does (equality, friction, limits, contacts) with their impedance, regularizer and reference acceleration; Drake point contacts follow as SAP rows
(contact/sap.py's parameterization: R_n = max(β²w/4π², 1/(h k (h + τ))), R_t = σw, v̂ = −φ₀/(h + τ)).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..contact.assembly import AssembleRows
from ..contact.linalg import MatVec
from ..kernels.contact_kernels import ContactChains
from ..contact.parameters import (CONTACT_ELLIPTIC, EQUALITY, FRICTION_DOF, FRICTION_TENDON, LIMIT_JOINT, LIMIT_TENDON,
                                  ValidateSolimp, ValidateSolref)
from ..contact.sap import SAP_SIGMA
from ..math.functions import rotation_matrix_from_quaternion
from .equality import EQ_ROWS, EQ_WELD
from .structs import B1, F1, F2, I1, declare, floats, ints

#: Status codes of `assemble` (d.bad_index: the limit or contact).
ROWS_OK, ROWS_BAD_LIMIT, ROWS_BAD_SAP = 0, 1, 2
SAP_BAD_STIFFNESS, SAP_BAD_RELAXATION, SAP_BAD_FRICTION, SAP_BAD_DELASSUS = 0, 1, 2, 3


@structref.register
class RowModelType(types.StructRef):
    """numba type of RowModel."""


class RowModel(structref.StructRefProxy):
    """Joint limits (single-dof joints) and dof dry friction with their validated MuJoCo parameters."""


ROW_MODEL = declare(RowModelType, RowModel, [
    ("lim_q", I1), ("lim_dof", I1),                   # q and v index of each limited joint
    ("lim_lo", F1), ("lim_hi", F1), ("lim_margin", F1),
    ("lim_ref", F2), ("lim_imp", F2),                 # (nl, 2) solreflimit, (nl, 5) solimplimit
    ("lim_bad", B1),                                  # invalid solref / solimp: raised when the limit activates
    ("fr_dof", I1), ("fr_loss", F1), ("fr_ref", F2), ("fr_imp", F2),   # dof frictionloss rows, by dof
    # per friction row: q index of its joint's quaternion (-1: a scalar dof's row, J = e_dof) and the joint's first
    # angular dof; a quaternion joint's row k is MuJoCo's child-frame component: J = R_FM[:, k]ᵀ on ω_F
    ("fr_quat", I1), ("fr_rot", I1),
])


@njit(cache=True)
def new_row_model(lim_q, lim_dof, lim_lo, lim_hi, lim_margin, lim_ref, lim_imp, lim_bad, fr_dof, fr_loss, fr_ref,
                  fr_imp, fr_quat, fr_rot):
    r = structref.new(ROW_MODEL)
    r.lim_q, r.lim_dof, r.lim_lo, r.lim_hi, r.lim_margin = lim_q, lim_dof, lim_lo, lim_hi, lim_margin
    r.lim_ref, r.lim_imp, r.lim_bad = lim_ref, lim_imp, lim_bad
    r.fr_dof, r.fr_loss, r.fr_ref, r.fr_imp = fr_dof, fr_loss, fr_ref, fr_imp
    r.fr_quat, r.fr_rot = fr_quat, fr_rot
    return r


def CompileRows(rows) -> RowModel:
    """The RowModel of a plant's ConstraintRowModel (contact/constraint_rows.py; None: no rows). Dry friction
    parameters are validated here (ValueError naming the joint, as every step would raise)."""
    if rows is None:
        zi, z = np.zeros(0, np.int64), np.zeros(0)
        return new_row_model(zi, zi, z, z, z, np.zeros((0, 2)), np.zeros((0, 5)), np.zeros(0, np.bool_), zi, z,
                             np.zeros((0, 2)), np.zeros((0, 5)), zi, zi)
    lq, llo, lhi, lmar, ldof, lref, limp, lbad = rows.LimitArrays()
    fr = rows.friction
    ref = [ValidateSolref(r[2], "frictionloss", r[4]) for r in fr]
    imp = [ValidateSolimp(r[3], "frictionloss", r[4]) for r in fr]
    return new_row_model(ints(lq), ints(ldof), floats(llo), floats(lhi), floats(lmar), floats(lref, (-1, 2)),
                         floats(limp, (-1, 5)), np.ascontiguousarray(lbad, np.bool_), ints([r[0] for r in fr]),
                         floats([r[1] for r in fr]), floats(ref, (-1, 2)), floats(imp, (-1, 5)),
                         ints([r[5] for r in fr]), ints([r[6] for r in fr]))


@njit(cache=True)
def _num_friction_rows(m):
    """Dry-friction rows: the dofs', then the tendons' (tendon.py)."""
    return m.rows.fr_dof.shape[0] + m.ten.fr_ten.shape[0]


@njit(cache=True)
def _num_active_limits(m, d):
    """Limit rows of the step: joint limits, then tendon limits, each side whose distance is below its margin."""
    r, ten = m.rows, m.ten
    q, L = d.q, d.ten_length
    nlim = 0
    for k in range(r.lim_q.shape[0]):
        x = q[r.lim_q[k]]
        nlim += (x - r.lim_lo[k] < r.lim_margin[k]) + (r.lim_hi[k] - x < r.lim_margin[k])
    for k in range(ten.lim_ten.shape[0]):
        x = L[ten.lim_ten[k]]
        nlim += (x - ten.lim_lo[k] < ten.lim_margin[k]) + (ten.lim_hi[k] - x < ten.lim_margin[k])
    return nlim


@njit(cache=True)
def _no_rows(d, nv):
    """d.efc_* / d.con_* of a step without rows (no contacts, equalities, dry friction or active limits): the
    empty arrays `assemble` would make, kept when the Data already holds them (no allocation per step)."""
    d.ne, d.nf, d.nl = 0, 0, 0
    if (d.efc_J.shape[0] == 0 and d.efc_J.shape[1] == nv and d.efc_type.shape[0] == 0 and d.efc_id.shape[0] == 0
            and d.efc_pos.shape[0] == 0 and d.efc_margin.shape[0] == 0 and d.efc_floss.shape[0] == 0
            and d.efc_diagA.shape[0] == 0 and d.efc_R.shape[0] == 0 and d.efc_D.shape[0] == 0
            and d.efc_KBIP.shape[0] == 0 and d.efc_KBIP.shape[1] == 4 and d.efc_vel.shape[0] == 0
            and d.efc_aref.shape[0] == 0 and d.efc_limit.shape[0] == 0 and d.con_dim.shape[0] == 0
            and d.con_fric.shape[0] == 0 and d.con_fric.shape[1] == 5 and d.con_mu.shape[0] == 0
            and d.con_efc_address.shape[0] == 0):
        return
    z, zi = np.zeros(0), np.zeros(0, np.int64)
    d.efc_J, d.efc_type, d.efc_id, d.efc_pos, d.efc_margin, d.efc_floss = np.zeros((0, nv)), zi, zi, z, z, z
    d.efc_diagA, d.efc_R, d.efc_D, d.efc_KBIP, d.efc_vel, d.efc_aref = z, z, z, np.zeros((0, 4)), z, z
    d.efc_limit = zi
    d.con_dim, d.con_fric, d.con_mu, d.con_efc_address = zi, np.zeros((0, 5)), z, zi


@njit(cache=True)
def _head_rows(m, d):
    """The non-contact rows (equalities, dry friction of dofs then tendons, then the active limits: joints then
    tendons, in order, lower before upper) in AssembleRows' head layout: per-row J, pos, margin, frictionloss,
    diagA, type and per-group rows, impedance position, solref, solimp (one group per equality, friction row or
    limit row). d.efc_limit holds each limit row's limit (joint limits first, then the limited tendons). Returns the
    first active invalid limit (-1: none) and the head arrays."""
    r, t, e, ten = m.rows, m.tree, m.eq, m.ten
    q, nv = d.q, t.nv
    ne, neq, nfd = e.ne, e.eq_type.shape[0], r.fr_dof.shape[0]
    nf = _num_friction_rows(m)
    nlim = _num_active_limits(m, d)
    L = d.ten_length
    count = ne + nf + nlim
    ngroup = neq + nf + nlim
    Jh = np.zeros((count, nv))
    pos = np.zeros(count)
    mar = np.zeros(count)
    fl = np.zeros(count)
    dA = np.empty(count)
    tp = np.empty(count, np.int64)
    gdim = np.ones(ngroup, np.int64)
    gpos = np.zeros(ngroup)
    ref = np.empty((ngroup, 2))
    imp = np.empty((ngroup, 5))
    limit = np.empty(nlim, np.int64)
    for k in range(neq):
        a, n = e.eq_adr[k], EQ_ROWS[e.eq_type[k]]
        for i in range(n):
            Jh[a + i] = d.eq_J[a + i]
            pos[a + i] = d.eq_pos[a + i]
            dA[a + i] = e.eq_invweight[k, 1] if (e.eq_type[k] == EQ_WELD and i >= 3) else e.eq_invweight[k, 0]
            tp[a + i] = EQUALITY
        gdim[k] = n
        gpos[k] = d.eq_gpos[k]
        ref[k] = e.eq_solref[k]
        imp[k] = e.eq_solimp[k]
    for i in range(nfd):
        dof = r.fr_dof[i]
        a = r.fr_quat[i]
        if a < 0:
            Jh[ne + i, dof] = 1.0
        else:  # ω_M's component k = (R_FMᵀ ω_F)_k (MuJoCo's ball / free angular qvel)
            R_FM = rotation_matrix_from_quaternion(q[a:a + 4])
            k = dof - r.fr_rot[i]
            for c in range(3):
                Jh[ne + i, r.fr_rot[i] + c] = R_FM[c, k]
        fl[ne + i] = r.fr_loss[i]
        dA[ne + i] = t.dof_invweight0[dof]
        tp[ne + i] = FRICTION_DOF
        ref[neq + i] = r.fr_ref[i]
        imp[neq + i] = r.fr_imp[i]
    for k in range(ten.fr_ten.shape[0]):  # MuJoCo's mj_instantiateFriction: J = the tendon's moment arm
        row, g, tk = ne + nfd + k, neq + nfd + k, ten.fr_ten[k]
        for c in range(nv):
            Jh[row, c] = d.ten_J[tk, c]
        fl[row] = ten.fr_loss[k]
        dA[row] = max(ten.invweight0[tk], 1e-15)
        tp[row] = FRICTION_TENDON
        ref[g] = ten.fr_ref[k]
        imp[g] = ten.fr_imp[k]
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
                Jh[row, dof] = 1.0 - 2.0 * side
                pos[row] = dist
                mar[row] = r.lim_margin[k]
                dA[row] = t.dof_invweight0[dof]
                tp[row] = LIMIT_JOINT
                gpos[g] = dist
                ref[g] = r.lim_ref[k]
                imp[g] = r.lim_imp[k]
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
                    Jh[row, c] = sign * d.ten_J[tk, c]
                pos[row] = dist
                mar[row] = ten.lim_margin[k]
                dA[row] = max(ten.invweight0[tk], 1e-15)
                tp[row] = LIMIT_TENDON
                gpos[g] = dist
                ref[g] = ten.lim_ref[k]
                imp[g] = ten.lim_imp[k]
                limit[i] = njl + k
                i += 1
    d.efc_limit = limit
    return bad, Jh, pos, mar, fl, dA, tp, gdim, gpos, ref, imp


@njit(cache=True)
def assemble(m, d):
    """The constraint problem of the step into d.efc_* / d.con_* (MuJoCo rows, then SAP rows). Returns ROWS_OK,
    ROWS_BAD_LIMIT (d.bad_index: the joint limit, or the number of joint limits + the tendon limit) or ROWS_BAD_SAP
    (d.bad_index: contact, d.bad_what: SAP_BAD_*)."""
    t, o = m.tree, m.opt
    if d.ncon == 0 and _num_active_limits(m, d) == 0 and m.eq.ne == 0 and _num_friction_rows(m) == 0:
        _no_rows(d, t.nv)
        return ROWS_OK
    bad, Jh, pos_h, mar_h, fl_h, dA_h, tp_h, gdim_h, gpos_h, ref_h, imp_h = _head_rows(m, d)
    if bad >= 0:
        d.bad_index = bad
        return ROWS_BAD_LIMIT
    nmj, ncon = d.ncon_mujoco, d.ncon
    bA, bB = d.con_body[:nmj, 0], d.con_body[:nmj, 1]
    iw = t.body_invweight0
    tran = np.empty(nmj)
    rot = np.empty(nmj)
    for c in range(nmj):
        tran[c] = iw[bA[c], 0] + iw[bB[c], 0]
        rot[c] = iw[bA[c], 1] + iw[bB[c], 1]
    ne, nf = m.eq.ne, _num_friction_rows(m)
    (J, pos, margin, fl, tp, ident, R, D, KBIP, diagA, con_mu, efc_vel, aref, con_addr,
     _rows_c) = AssembleRows(Jh, pos_h, mar_h, fl_h, dA_h, tp_h, gdim_h, gpos_h, ref_h, imp_h, d.con_J[:nmj],
                             d.con_dist[:nmj], d.con_condim, d.con_friction, d.con_includemargin, tran, rot,
                             d.con_solref, d.con_solreffriction, d.con_solimp, o.cone == 0, ne, nf, t.h, True,
                             o.impratio, d.v, *ContactChains(t.ji, np.ascontiguousarray(bA), np.ascontiguousarray(bB)))
    for i in range(ne):  # J̇·v of connect, weld and distance rows (MuJoCo's mj_Jdotv)
        aref[i] -= d.eq_jdv[i]
    d.ne, d.nf, d.nl = ne, nf, Jh.shape[0] - ne - nf
    ndk = ncon - nmj
    if ndk == 0:
        d.efc_J, d.efc_type, d.efc_id, d.efc_pos, d.efc_margin, d.efc_floss = J, tp, ident, pos, margin, fl
        d.efc_diagA, d.efc_R, d.efc_D, d.efc_KBIP, d.efc_vel, d.efc_aref = diagA, R, D, KBIP, efc_vel, aref
        d.con_dim, d.con_fric, d.con_mu, d.con_efc_address = d.con_condim.copy(), d.con_friction.copy(), con_mu, con_addr
        return ROWS_OK
    return _append_sap_rows(m, d, J, tp, ident, pos, margin, fl, diagA, R, D, KBIP, efc_vel, aref, con_mu, con_addr)


@njit(cache=True)
def _append_sap_rows(m, d, J0, tp0, id0, pos0, mar0, fl0, dA0, R0, D0, KBIP0, vel0, aref0, mu0, adr0):
    """The MuJoCo problem's rows followed by the Drake contacts' SAP rows (elliptic, 3 per contact)."""
    t, cm = m.tree, m.contact
    nmj, ncon = d.ncon_mujoco, d.ncon
    nc = ncon - nmj
    nv, h = t.nv, t.h
    Jc = np.ascontiguousarray(d.con_J[nmj:, :3, :])
    Jrows = Jc.reshape((3 * nc, nv))
    # Delassus diagonal w = |W_cc|_F / 3 with W_cc = J_c M̂⁻¹ J_cᵀ (Drake's rms scaling)
    X = np.linalg.solve(d.M, np.ascontiguousarray(Jrows.T))
    w = np.empty(nc)
    for c in range(nc):
        s = 0.0
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for k in range(nv):
                    acc += Jc[c, i, k] * X[k, 3 * c + j]
                s += acc * acc
        w[c] = np.sqrt(s) / 3.0
    beta = cm.sap_beta
    n0 = J0.shape[0]
    nefc = n0 + 3 * nc
    J = np.empty((nefc, nv))
    J[:n0] = J0
    J[n0:] = Jrows
    vel_c = MatVec(Jrows, d.v)
    tp = np.empty(nefc, np.int64)
    ident = np.empty(nefc, np.int64)
    pos = np.empty(nefc)
    margin = np.zeros(nefc)
    fl = np.zeros(nefc)
    diagA = np.empty(nefc)
    R = np.empty(nefc)
    D = np.empty(nefc)
    KBIP = np.zeros((nefc, 4))
    vel = np.empty(nefc)
    aref = np.empty(nefc)
    tp[:n0], ident[:n0], pos[:n0], margin[:n0], fl[:n0] = tp0, id0, pos0, mar0, fl0
    diagA[:n0], R[:n0], D[:n0], KBIP[:n0], vel[:n0], aref[:n0] = dA0, R0, D0, KBIP0, vel0, aref0
    con_dim = np.empty(ncon, np.int64)
    con_fric = np.zeros((ncon, 5))
    con_mu = np.empty(ncon)
    con_adr = np.empty(ncon, np.int64)
    con_dim[:nmj], con_fric[:nmj], con_mu[:nmj], con_adr[:nmj] = d.con_condim, d.con_friction, mu0, adr0
    for c in range(nc):
        k, tau, mu = d.con_drake[c, 0], d.con_drake[c, 1], d.con_drake[c, 2]
        what = -1
        if not (k > 0 and np.isfinite(k)):
            what = SAP_BAD_STIFFNESS
        elif not (tau >= 0 and np.isfinite(tau)):
            what = SAP_BAD_RELAXATION
        elif not (mu >= 0 and np.isfinite(mu)):
            what = SAP_BAD_FRICTION
        elif not (w[c] > 0 and np.isfinite(w[c])):
            what = SAP_BAD_DELASSUS
        if what >= 0:
            d.bad_index, d.bad_what = nmj + c, what
            return ROWS_BAD_SAP
        phi0 = d.con_dist[nmj + c]
        Rn = max(beta * beta / (4.0 * np.pi ** 2) * w[c], 1.0 / (h * k * (h + tau)))
        Rt = SAP_SIGMA * w[c]
        vhat = -phi0 / (h + tau)
        r = n0 + 3 * c
        for j in range(3):
            tp[r + j] = CONTACT_ELLIPTIC
            ident[r + j] = nmj + c
            pos[r + j] = phi0
            diagA[r + j] = w[c]
            vel[r + j] = vel_c[3 * c + j]
            aref[r + j] = ((vhat if j == 0 else 0.0) - vel_c[3 * c + j]) / h
        R[r], R[r + 1], R[r + 2] = Rn, Rt, Rt
        D[r], D[r + 1], D[r + 2] = 1.0 / Rn, 1.0 / Rt, 1.0 / Rt
        con_dim[nmj + c] = 3
        con_fric[nmj + c, 0], con_fric[nmj + c, 1] = mu, mu
        con_mu[nmj + c] = mu * np.sqrt(Rt / Rn)
        con_adr[nmj + c] = r
    d.efc_J, d.efc_type, d.efc_id, d.efc_pos, d.efc_margin, d.efc_floss = J, tp, ident, pos, margin, fl
    d.efc_diagA, d.efc_R, d.efc_D, d.efc_KBIP, d.efc_vel, d.efc_aref = diagA, R, D, KBIP, vel, aref
    d.con_dim, d.con_fric, d.con_mu, d.con_efc_address = con_dim, con_fric, con_mu, con_adr
    return ROWS_OK
