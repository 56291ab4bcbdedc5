"""Per-row solver parameters of assembled constraint rows: R, D, KBIP, adjusted A_diag, aref.

Kernels over the row arrays built by `ConstraintAssembler` (rows ordered equality, dry friction,
limits, contacts as in MuJoCo). Rows are processed in groups: one group is a connect (3 rows) or
weld (6 rows) equality whose impedance uses the norm of its residual, or one contact (all its rows
share the normal distance), or a single scalar row.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .parameters import (CONTACT_ELLIPTIC, CONTACT_PYRAMIDAL, FRICTION_DOF, FRICTION_TENDON, MINVAL,
                         Impedance, SolrefStiffnessDamping)


@njit(cache=True)
def MakeImpedance(efc_type, efc_id, efc_margin, efc_diagA, grp_adr, grp_dim, grp_pos, grp_solref,
                  grp_solreffriction, grp_solimp, ne, nf, con_dim, con_friction, timestep, refsafe,
                  impratio):
    """Regularizer R, D = 1/R, KBIP = (k, b, d, d') per row, MuJoCo's rules (mj_makeImpedance).

    R = max(1e-15, (1-d)/d * A_diag); friction rows of a contact get R[1] = R[0]/impratio,
    elliptic rows j >= 2 get R[1]*mu1^2/mu_j^2, pyramidal rows all get 2*mu_reg^2*R[0] where
    mu_reg = mu1*sqrt(R[1]/R[0]) is the regularized cone coefficient (returned per contact).
    A_diag is returned adjusted so that R = (1-d)/d * A_diag holds for every row.
    `grp_solimp` must already be clamped (ClampSolimp). Units: R in 1/kg (or 1/(kg m^2)).
    """
    nefc = efc_type.shape[0]
    R = np.empty(nefc)
    KBIP = np.zeros((nefc, 4))
    ncon = con_dim.shape[0]
    con_mu = np.zeros(ncon)
    GroupImpedancesInto(efc_type, efc_margin, efc_diagA, grp_adr, grp_dim, grp_pos, grp_solref, grp_solreffriction,
                        grp_solimp, timestep, refsafe, R, KBIP)
    ContactRegularizersInto(efc_type, efc_id, ne + nf, con_dim, con_friction, impratio, R, con_mu)
    D = 1.0 / R
    diagA = np.empty(nefc)
    for r in range(nefc):
        diagA[r] = R[r] * KBIP[r, 2] / (1.0 - KBIP[r, 2])
    return R, D, KBIP, diagA, con_mu


@njit(cache=True)
def GroupImpedancesInto(efc_type, efc_margin, efc_diagA, grp_adr, grp_dim, grp_pos, grp_solref, grp_solreffriction,
                        grp_solimp, timestep, refsafe, R, KBIP):
    """Each group's impedance d = clamp(solimp's d at the group's position, 1e-4, 0.9999) and its rows'
    R = max(1e-15, (1 − d)/d · A_diag) and KBIP = (k, b, d, d') (k = 0 for dry friction and for an elliptic
    contact's friction rows, whose k, b come from solreffriction when it is set) into R and KBIP (rows of the
    groups only). `grp_solimp` must already be clamped (ClampSolimp)."""
    for g in range(grp_adr.shape[0]):
        i = grp_adr[g]
        dim = grp_dim[g]
        solimp = grp_solimp[g]
        imp, impP = Impedance(solimp, grp_pos[g], efc_margin[i])
        imp = min(0.9999, max(0.0001, imp))
        has_fric_ref = grp_solreffriction[g, 0] != 0.0 or grp_solreffriction[g, 1] != 0.0
        for j in range(dim):
            r = i + j
            R[r] = max(MINVAL, (1.0 - imp) * efc_diagA[r] / imp)
            tp = efc_type[r]
            elliptic_friction = tp == CONTACT_ELLIPTIC and j > 0
            if elliptic_friction and has_fric_ref:
                k, b = SolrefStiffnessDamping(grp_solreffriction[g], solimp[1], timestep, refsafe)
            else:
                k, b = SolrefStiffnessDamping(grp_solref[g], solimp[1], timestep, refsafe)
            if tp == FRICTION_DOF or tp == FRICTION_TENDON or elliptic_friction:
                k = 0.0
            KBIP[r, 0] = k
            KBIP[r, 1] = b
            KBIP[r, 2] = imp
            KBIP[r, 3] = impP


@njit(cache=True)
def ContactRegularizersInto(efc_type, efc_id, first, con_dim, con_friction, impratio, R, con_mu):
    """The frictional contacts' rows from row `first` on (the rows before: equalities, dry friction): friction
    directions' regularizers from the normal's R[i] (elliptic: R[i]/impratio, then scaled by mu1²/mu_j²;
    pyramidal: every row 2·mu_reg²·R[i]) into R, and the regularized cone coefficient mu_reg = mu1·sqrt(R1/R[i])
    into con_mu (entries of the frictional contacts only). MuJoCo's mj_makeImpedance."""
    nefc = R.shape[0]
    i = first
    while i < nefc:
        tp = efc_type[i]
        if tp == CONTACT_PYRAMIDAL or tp == CONTACT_ELLIPTIC:
            c = efc_id[i]
            dim = con_dim[c]
            fr = con_friction[c]
            R1 = R[i] / max(MINVAL, impratio)
            con_mu[c] = fr[0] * np.sqrt(R1 / R[i])
            if tp == CONTACT_ELLIPTIC:
                R[i + 1] = R1
                for j in range(1, dim - 1):
                    R[i + j + 1] = R1 * fr[0] * fr[0] / (fr[j] * fr[j])
                i += dim
            else:
                Rpy = 2.0 * con_mu[c] * con_mu[c] * R[i]
                for j in range(2 * (dim - 1)):
                    R[i + j] = Rpy
                i += 2 * (dim - 1)
        else:
            i += 1


@njit(cache=True)
def ReferenceAcceleration(KBIP, efc_vel, efc_pos, efc_margin):
    """aref = -b*vel - k*d*(pos - margin) per row (1/s^2 units of the row's coordinate)."""
    n = efc_vel.shape[0]
    aref = np.empty(n)
    for i in range(n):
        aref[i] = -KBIP[i, 1] * efc_vel[i] - KBIP[i, 0] * KBIP[i, 2] * (efc_pos[i] - efc_margin[i])
    return aref
