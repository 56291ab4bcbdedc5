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

from ..contact.linalg import MatVec
from ..contact.parameters import CONTACT_ELLIPTIC, ValidateSolimp, ValidateSolref
from ..contact.sap import SAP_SIGMA
from .efc_rows import mujoco_rows
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
    if d.efc_bJ.shape[0] > 0 and d.efc_bJ.shape[1] == nv and d.con_bf.shape[1] > 0:  # empty views of the buffers
        F, I = d.efc_bf, d.efc_bi
        d.efc_J, d.efc_type, d.efc_id, d.efc_pos, d.efc_margin = d.efc_bJ[:0], I[0, :0], I[1, :0], F[0, :0], F[1, :0]
        d.efc_floss, d.efc_diagA, d.efc_R, d.efc_D, d.efc_KBIP = F[2, :0], F[3, :0], F[4, :0], F[5, :0], d.efc_bK[:0]
        d.efc_vel, d.efc_aref, d.efc_limit = F[6, :0], F[7, :0], I[2, :0]
        d.con_dim, d.con_fric, d.con_mu, d.con_efc_address = d.con_condim, d.con_friction, d.con_bf[0, :0], d.con_bi[0, :0]
        return
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
def assemble(m, d):
    """The constraint problem of the step into d.efc_* / d.con_* (MuJoCo rows in Data's row buffers, efc_rows.py;
    then SAP rows). Returns ROWS_OK, ROWS_BAD_LIMIT (d.bad_index: the joint limit, or the number of joint limits +
    the tendon limit) or ROWS_BAD_SAP (d.bad_index: contact, d.bad_what: SAP_BAD_*)."""
    nlim = _num_active_limits(m, d)
    nf = _num_friction_rows(m)
    if d.ncon == 0 and nlim == 0 and m.eq.ne == 0 and nf == 0:
        _no_rows(d, m.tree.nv)
        return ROWS_OK
    bad = mujoco_rows(m, d, nf, nlim)
    if bad >= 0:
        d.bad_index = bad
        return ROWS_BAD_LIMIT
    if d.ncon == d.ncon_mujoco:
        return ROWS_OK
    return _append_sap_rows(m, d, d.efc_J, d.efc_type, d.efc_id, d.efc_pos, d.efc_margin, d.efc_floss, d.efc_diagA,
                            d.efc_R, d.efc_D, d.efc_KBIP, d.efc_vel, d.efc_aref, d.con_mu, d.con_efc_address)


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
