"""Drake's discrete point contact (DiscreteUpdateManager's point pairs, SapDriver / TamsiDriver) for models without
MuJoCo parameters (m.contact.approx >= 0): one point pair per penetrating geometry pair, as Drake's
ComputePointPairPenetration reports it, then the step's velocities from Drake's approximation of contact:

* geometry: A is the geometry of smaller GeometryId; a half space against a box, capsule or cylinder gives FCL's
  single deepest point (a face / side lying on the plane gives its center), other pairs the deepest point of the
  narrow phase; the contact point is p_WC = wA·p_WCa + wB·p_WCb with wA = kA/(kA + kB) (Hertz), the contact frame's
  normal points from A to B; pairs are ordered by (id_A, id_B).
* per pair: stiffness k = kA·kB/(kA + kB), Hunt–Crossley dissipation d = (kB·dA + kA·dB)/(kA + kB), relaxation
  time τ = τA + τB, friction 2μAμB/(μA + μB) (dynamic), fe0 = k·depth, vn0 the normal velocity before the step.
* constraints: kSap SapFrictionConeConstraint (w from J·diag(A)⁻¹·Jᵀ), kSimilar / kLagged
  SapHuntCrossleyConstraint, single-dof joint limits as SapLimitConstraint (k = 1e12, τ = h, β = 0.1) inside
  SapDriver's window; solved by contact/sap_solver.py.
* kTamsi (TamsiDriver): Hunt–Crossley normal forces and regularized friction solved by contact/tamsi_solver.py
  with the mass matrix M (joint damping explicit) and joint limits as explicit penalty forces (MultibodyPlant's
  critically damped estimate with period 20π·h, m.contact.lim_penalty).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.collision.narrowphase import BOX, CAPSULE, CYLINDER, PLANE
from ...geometry.collision.point_pair import HalfSpaceDeepestPoint
from ..contact.sap_solver import (SAP_CONE, SAP_HC_LAGGED, SAP_HC_SIMILAR, SAP_LIMIT, SAP_LIMIT_BETA,
                                  SAP_LIMIT_STIFFNESS, SAP_LIMIT_WINDOW, SAP_SIGMA, SapSolve)
from ..contact.tamsi_solver import TamsiSolve
from ..kernels.contact_kernels import ContactJacobians
from ..kernels.pipeline import inverse_dynamics_from_inertias
from .drake_constraints import constraint_body_forces, drake_constraint_rows, holonomic_parameters
from .hydroelastic import HYDRO_OFF, HYDRO_STRICT, hydro_pairs, hydro_surfaces, is_hydro_pair, no_surfaces

APPROX_MUJOCO, APPROX_TAMSI, APPROX_SAP, APPROX_SIMILAR, APPROX_LAGGED = -1, 0, 1, 2, 3
#: Columns of d.con_drake for Drake contacts.
DK_K, DK_D, DK_TAU, DK_MU, DK_FE0, DK_VN0, DK_WA, DK_DEPTH = range(8)
DRAKE_SOLVE_OK, DRAKE_SOLVE_NOT_CONVERGED, DRAKE_SOLVE_NOT_FINITE, DRAKE_SOLVE_BAD_CONTACT = 0, 1, 2, 3
DRAKE_SOLVE_BAD_EQUALITY = 5  # a constraint's rows are undefined (d.bad_index: the equality; drake_constraints.py)
DRAKE_NOT_HYDRO = 5  # d.bad_what of a penetrating pair without a contact surface under kHydroelastic
DRAKE_BAD_DEPTH = 4  # d.bad_what of DRAKE_SOLVE_BAD_CONTACT: a depth beyond MAX_DEPTH or a non-finite k·depth
MAX_DEPTH = 1e6  # [m] a deeper penetration means an absurd geometry size or pose (the solve would overflow)


@njit(cache=True)
def _frame(n, out):
    """Rows of `out`: the unit normal n and two tangents (a right-handed frame)."""
    out[0] = n
    t = np.array([0.0, 1.0, 0.0]) if abs(n[1]) < 0.5 else np.array([0.0, 0.0, 1.0])
    t -= n * (t @ n)
    t /= np.sqrt(t @ t)
    out[1] = t
    out[2, 0] = n[1] * t[2] - n[2] * t[1]
    out[2, 1] = n[2] * t[0] - n[0] * t[2]
    out[2, 2] = n[0] * t[1] - n[1] * t[0]


@njit(cache=True)
def _combined_stiffness(k1, k2):
    if np.isinf(k1):
        return k2
    if np.isinf(k2):
        return k1
    return 0.0 if k1 + k2 == 0.0 else k1 * k2 / (k1 + k2)


@njit(cache=True)
def drake_contacts(m, d):
    """Drake's point pairs of the step from the collision candidates d.col_* into d.con_* (see the module
    docstring); d.con_drake holds [k, d, τ, μ, fe0, vn0, wA, depth] per contact. Returns -1, or the index of a pair
    whose two geometries are rigid (infinite stiffness)."""
    g, cm = m.geom, m.contact
    dist, g1, g2 = d.col_dist, d.col_g1, d.col_g2
    n = dist.shape[0]
    best = np.empty(n, np.int64)
    npair = 0
    hm = m.hydro
    for c in range(n):  # the deepest penetrating candidate of each geometry pair
        if not dist[c] < 0.0:
            continue
        if hm.mode != HYDRO_OFF:  # a hydroelastic pair gets a contact surface instead
            if is_hydro_pair(hm, g1[c], g2[c], g.ngeom):
                continue
            if hm.mode == HYDRO_STRICT:
                d.bad_index, d.bad_what = min(g1[c], g2[c]) * g.ngeom + max(g1[c], g2[c]), DRAKE_NOT_HYDRO
                return 0
        found = False
        for r in range(npair):
            b = best[r]
            if g1[b] == g1[c] and g2[b] == g2[c]:
                if dist[c] < dist[b]:
                    best[r] = c
                found = True
                break
        if not found:
            best[npair] = c
            npair += 1
    gid = cm.geom_id
    key = np.empty(npair, np.int64)
    for r in range(npair):
        b = best[r]
        key[r] = min(gid[g1[b]], gid[g2[b]]) * (1 << 31) + max(gid[g1[b]], gid[g2[b]])
    order = np.argsort(key, kind="mergesort")
    body = np.empty((npair, 2), np.int64)
    geom = np.empty((npair, 2), np.int64)
    con_dist = np.empty(npair)
    pos = np.empty((npair, 3))
    frame = np.empty((npair, 3, 3))
    par = np.empty((npair, 8))
    rigid = -1
    for k in range(npair):
        c = best[order[k]]
        i, j = g1[c], g2[c]
        nrm = d.col_frame[c, 0].copy()  # from i to j
        depth = -dist[c]
        pi = d.col_pos[c] + nrm * (0.5 * depth)  # i's point deepest inside j
        pj = d.col_pos[c] - nrm * (0.5 * depth)
        ti, tj = g.geom_type[i], g.geom_type[j]
        if (ti == PLANE) != (tj == PLANE):  # a half space: FCL's single deepest point of the other shape
            h, o = (i, j) if ti == PLANE else (j, i)
            to = g.geom_type[o]
            if to == BOX or to == CAPSULE or to == CYLINDER:
                n_h = d.R_WG[h, :, 2].copy()
                po = HalfSpaceDeepestPoint(to, g.geom_size[o], d.R_WG[o], d.p_WG[o], n_h)
                depth = n_h @ (d.p_WG[h] - po)
                pp = po + n_h * depth
                if o == i:
                    pi, pj, nrm = po, pp, -n_h
                else:
                    pi, pj, nrm = pp, po, n_h
        if gid[i] > gid[j]:  # A: the geometry of smaller id
            i, j, pi, pj, nrm = j, i, pj, pi, -nrm
        kA, kB = cm.geom_drake[i, 0], cm.geom_drake[j, 0]
        if np.isinf(kA) and np.isinf(kB):
            rigid = k
        den = kA + kB
        if np.isinf(kA) and not np.isinf(kB):
            wA = 1.0
        elif np.isinf(kB) and not np.isinf(kA):
            wA = 0.0
        else:
            wA = 0.5 if den == 0.0 or not np.isfinite(den) else kA / den
        kp = _combined_stiffness(kA, kB)
        dA, dB = cm.geom_drake[i, 1], cm.geom_drake[j, 1]
        if den == 0.0:
            dp = 0.0
        elif np.isinf(kA):
            dp = dB
        elif np.isinf(kB):
            dp = dA
        else:
            dp = kB / den * dA + kA / den * dB
        muA, muB = cm.geom_drake[i, 4], cm.geom_drake[j, 4]
        geom[k, 0], geom[k, 1] = i, j
        body[k, 0], body[k, 1] = g.geom_body[i], g.geom_body[j]
        con_dist[k] = -depth
        pos[k] = wA * pi + (1.0 - wA) * pj
        _frame(nrm, frame[k])
        par[k, DK_K], par[k, DK_D] = kp, dp
        par[k, DK_TAU] = cm.geom_drake[i, 2] + cm.geom_drake[j, 2]
        par[k, DK_MU] = 0.0 if muA + muB == 0.0 else 2.0 * muA * muB / (muA + muB)
        par[k, DK_FE0] = kp * depth
        par[k, DK_WA], par[k, DK_DEPTH] = wA, depth
    con_hyd = np.full((npair, 2), -1, np.int64)
    if hm.mode != HYDRO_OFF:
        hydro_surfaces(m, d)
        hg, hsf, hpos, hnrm, hpar, hphi = hydro_pairs(m, d)
        nh = hg.shape[0]
        if nh > 0:
            body, geom, con_dist, pos, frame, par, con_hyd = _grow_pairs(body, geom, con_dist, pos, frame, par,
                                                                         con_hyd, nh)
            for e in range(nh):
                k = npair + e
                geom[k, 0], geom[k, 1] = hg[e, 0], hg[e, 1]
                body[k, 0], body[k, 1] = g.geom_body[hg[e, 0]], g.geom_body[hg[e, 1]]
                con_dist[k] = hphi[e]
                pos[k] = hpos[e]
                _frame(hnrm[e], frame[k])
                par[k, DK_K], par[k, DK_D], par[k, DK_TAU], par[k, DK_MU] = hpar[e, 0], hpar[e, 1], hpar[e, 2], \
                    hpar[e, 3]
                par[k, DK_FE0], par[k, DK_WA], par[k, DK_DEPTH] = hpar[e, 4], 0.5, 0.0  # φ0 may be huge (g ≈ 0)
                con_hyd[k, 0], con_hyd[k, 1] = hsf[e, 0], hsf[e, 1]
            npair += nh
    else:
        no_surfaces(d)
    J = ContactJacobians(m.tree.ji, d.S, body[:, 0].copy(), body[:, 1].copy(), pos, frame, False)
    for k in range(npair):
        s = 0.0
        for q in range(m.tree.nv):
            s += J[k, 0, q] * d.v[q]
        par[k, DK_VN0] = s
    d.ncon, d.ncon_mujoco = npair, 0
    d.con_body, d.con_geom, d.con_dist, d.con_pos, d.con_frame = body, geom, con_dist, pos, frame
    d.con_drake, d.con_J, d.con_hyd = par, J, con_hyd
    d.con_condim = np.zeros(0, np.int64)
    return rigid


@njit(cache=True)
def _grow_pairs(body, geom, con_dist, pos, frame, par, con_hyd, nh):
    """The pair arrays with nh more rows (the hydroelastic pairs after the point pairs)."""
    n = body.shape[0]
    b2, g2 = np.empty((n + nh, 2), np.int64), np.empty((n + nh, 2), np.int64)
    d2, p2, f2 = np.empty(n + nh), np.empty((n + nh, 3)), np.empty((n + nh, 3, 3))
    par2, h2 = np.zeros((n + nh, par.shape[1])), np.full((n + nh, 2), -1, np.int64)
    b2[:n], g2[:n], d2[:n], p2[:n], f2[:n], par2[:n], h2[:n] = body, geom, con_dist, pos, frame, par, con_hyd
    return b2, g2, d2, p2, f2, par2, h2


@njit(cache=True)
def _problem(m, d, v_star):
    """Drake's SAP problem of the step: (J, kind, start, par, con, nh) over the contacts, the limits in the window, then
    the coupler, distance, ball and weld constraints' nh rows (drake_constraints.py; `con`: [equality, first row]),
    each holonomic row as two one-sided rows (J, v̂) and (−J, −v̂) whose costs add up to its ½·(v̂ − vc)²/R."""
    t, cm, rows = m.tree, m.contact, m.rows
    nv, h = t.nv, t.h
    nc = d.ncon
    A = d.M
    q, v = d.q, d.v
    lim_side = np.empty(2 * rows.lim_q.shape[0], np.int64)
    nl = 0
    for k in range(rows.lim_q.shape[0]):  # SapDriver's window around q0
        dof = rows.lim_dof[k]
        q0 = q[rows.lim_q[k]]
        dq = h * max(abs(v[dof]), abs(v_star[dof]))
        if rows.lim_lo[k] >= q0 - SAP_LIMIT_WINDOW * dq:
            lim_side[nl] = 2 * k
            nl += 1
        if rows.lim_hi[k] <= q0 + SAP_LIMIT_WINDOW * dq:
            lim_side[nl] = 2 * k + 1
            nl += 1
    Jh, gh, kh, tauh, con, bad = drake_constraint_rows(m.eq, t.ji, d.S, d.R_WB, d.p_WB, q)
    d.bad_index = bad
    nh = gh.shape[0]
    ncons = nc + nl + 2 * nh
    nk = 3 * nc + nl + 2 * nh
    J = np.zeros((nk, nv))
    kind = np.empty(ncons, np.int64)
    start = np.empty(ncons, np.int64)
    par = np.zeros((ncons, 8))
    dinv = np.empty(nv)
    for i in range(nv):
        dinv[i] = 1.0 / A[i, i]
    approx = cm.approx
    for c in range(nc):
        r = 3 * c
        for i in range(3):
            for p in range(nv):
                J[r + i, p] = d.con_J[c, i, p]
        # Delassus estimate w = ‖J·diag(A)⁻¹·Jᵀ‖_F / 3 (SapModel's per-constraint rms norm)
        s = 0.0
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for p in range(nv):
                    acc += J[r + i, p] * dinv[p] * J[r + j, p]
                s += acc * acc
        w = np.sqrt(s) / 3.0
        pc = d.con_drake[c]
        k, dd, tau, mu, fe0, vn0 = pc[DK_K], pc[DK_D], pc[DK_TAU], pc[DK_MU], pc[DK_FE0], pc[DK_VN0]
        start[c] = r
        Rt = SAP_SIGMA * w
        if approx == APPROX_SAP:
            kind[c] = SAP_CONE
            beta = cm.sap_beta
            Rn = max(beta * beta / (4.0 * np.pi * np.pi) * w, 1.0 / (h * k * (h + tau)))
            par[c, 0], par[c, 1], par[c, 2], par[c, 3] = mu, Rn, max(Rt, 1e-12 * Rn), -d.con_dist[c] / (h + tau)
        else:
            kind[c] = SAP_HC_LAGGED if approx == APPROX_LAGGED else SAP_HC_SIMILAR
            n0 = max(0.0, h * fe0) * max(0.0, 1.0 - dd * vn0)
            par[c, 0], par[c, 1], par[c, 2], par[c, 3], par[c, 4] = mu, k, dd, fe0, h
            par[c, 5], par[c, 6] = n0, max(cm.stiction_tolerance, mu * Rt * n0)
    for e in range(nl):
        k, side = lim_side[e] // 2, lim_side[e] % 2
        dof = rows.lim_dof[k]
        q0 = q[rows.lim_q[k]]
        c = nc + e
        r = 3 * nc + e
        J[r, dof] = 1.0 if side == 0 else -1.0
        g0 = q0 - rows.lim_lo[k] if side == 0 else rows.lim_hi[k] - q0
        kind[c], start[c] = SAP_LIMIT, r
        par[c, 0] = max(SAP_LIMIT_BETA * SAP_LIMIT_BETA / (4.0 * np.pi * np.pi) * dinv[dof],
                        1.0 / (h * SAP_LIMIT_STIFFNESS * (2.0 * h)))
        par[c, 1] = -g0 / (2.0 * h)
    if nh:
        Rh, vhat = holonomic_parameters(Jh, gh, kh, tauh, con, dinv, h)
        for i in range(nh):
            for side in range(2):
                c = nc + nl + 2 * i + side
                r = 3 * nc + nl + 2 * i + side
                s = 1.0 if side == 0 else -1.0
                for p in range(nv):
                    J[r, p] = s * Jh[i, p]
                kind[c], start[c] = SAP_LIMIT, r
                par[c, 0], par[c, 1] = Rh[i], s * vhat[i]
    return J, kind, start, par, con, nh


@njit(cache=True)
def drake_solve(m, d):
    """v⁺ of the step by Drake's approximation (m.contact.approx) into d.qacc = (v⁺ − v)/h, with the contact
    forces d.con_force (contact frame, on B: [normal, t1, t2] = γ/h), d.con_vel (contact-frame velocities at v⁺),
    d.tau_contact and the solver statistics. Returns DRAKE_SOLVE_* (BAD_CONTACT: d.bad_index the contact)."""
    t = m.tree
    nv, h = t.nv, t.h
    nc = d.ncon
    v0 = d.v
    v_star = v0 + h * d.qacc_smooth
    for c in range(nc):  # an absurd geometry (a depth of 1e300 m) is named, not left to the solver
        if not (d.con_drake[c, DK_DEPTH] < MAX_DEPTH and np.isfinite(d.con_drake[c, DK_FE0])):
            d.bad_index, d.bad_what = c, DRAKE_BAD_DEPTH
            return DRAKE_SOLVE_BAD_CONTACT
    if m.contact.approx == APPROX_TAMSI:
        return _tamsi_solve(m, d)
    J, kind, start, par, con, nh = _problem(m, d, v_star)
    if d.bad_index >= 0:
        return DRAKE_SOLVE_BAD_EQUALITY
    if J.shape[0] == 0:
        v, gamma, converged, it, residual = v_star.copy(), np.zeros(0), True, 0, 0.0
    else:
        v, gamma, converged, it, residual = SapSolve(d.M, v_star, v0, J, kind, start, par)
    for i in range(nv):
        if not np.isfinite(v[i]):
            return DRAKE_SOLVE_NOT_FINITE
    d.qacc = (v - v0) / h
    force = np.zeros((nc, 6))
    vel = np.zeros((nc, 3))
    tau = np.zeros(nv)
    for c in range(nc):
        for i in range(3):
            force[c, i] = gamma[3 * c + i] / h
            s = 0.0
            for p in range(nv):
                s += d.con_J[c, i, p] * v[p]
                tau[p] += J[3 * c + i, p] * gamma[3 * c + i] / h
            vel[c, i] = s
    d.con_force, d.con_vel, d.tau_contact = force, vel, tau
    d.efc_J, d.efc_force = J, gamma / h
    base = J.shape[0] - 2 * nh  # the holonomic rows' pairs: their forces on the bodies (reaction forces)
    f = np.empty(nh)
    for i in range(nh):
        f[i] = (gamma[base + 2 * i] - gamma[base + 2 * i + 1]) / h
    d.eq_F = constraint_body_forces(m.eq, con, f, d.R_WB, d.p_WB, t.nb)
    d.qacc_warmstart, d.warm_valid = v, False
    d.solver_converged, d.solver_iterations, d.solver_residual = converged, it, residual
    return DRAKE_SOLVE_OK if converged else DRAKE_SOLVE_NOT_CONVERGED


@njit(cache=True)
def _tamsi_solve(m, d):
    """drake_solve for kTamsi (TamsiDriver::CalcContactSolverResults)."""
    t, rows = m.tree, m.rows
    nv, h = t.nv, t.h
    nc = d.ncon
    v0, q = d.v, d.q
    M = d.M.copy()
    tau = d.tau.copy()
    if t.has_damping:
        for i in range(nv):
            M[i, i] -= h * t.damping[i]
            tau[i] -= t.damping[i] * v0[i]
    pen = m.contact.lim_penalty
    for k in range(min(rows.lim_q.shape[0], pen.shape[0])):  # MultibodyPlant::AddJointLimitsPenaltyForces
        dof = rows.lim_dof[k]
        x, w = q[rows.lim_q[k]], v0[dof]
        f = 0.0
        if x > rows.lim_hi[k]:
            f = min(-pen[k, 0] * (x - rows.lim_hi[k]) - pen[k, 1] * w, 0.0)
        elif x < rows.lim_lo[k]:
            f = max(-pen[k, 0] * (x - rows.lim_lo[k]) - pen[k, 1] * w, 0.0)
        tau[dof] += f
    minus_tau = inverse_dynamics_from_inertias(t.order, t.ji, t.refl, d.S, d.Iw, d.p_WB, d.V, d.c, np.zeros(nv), d.F,
                                               tau)
    Jn = np.empty((nc, nv))
    Jt = np.empty((2 * nc, nv))
    fn0 = np.empty(nc)
    k = np.empty(nc)
    dd = np.empty(nc)
    mu = np.empty(nc)
    for c in range(nc):
        for p in range(nv):
            Jn[c, p] = d.con_J[c, 0, p]
            Jt[2 * c, p] = d.con_J[c, 1, p]
            Jt[2 * c + 1, p] = d.con_J[c, 2, p]
        pc = d.con_drake[c]
        fn0[c], k[c], dd[c], mu[c] = pc[DK_FE0], pc[DK_K], pc[DK_D], pc[DK_MU]
    converged, v, fn, ft, vn, vt, substeps = TamsiSolve(M, minus_tau, v0, Jn, Jt, fn0, k, dd, mu, h,
                                                        m.contact.stiction_tolerance)
    for i in range(nv):
        if not np.isfinite(v[i]):
            return DRAKE_SOLVE_NOT_FINITE
    d.qacc = (v - v0) / h
    force = np.zeros((nc, 6))
    vel = np.zeros((nc, 3))
    tc = np.zeros(nv)
    for c in range(nc):
        force[c, 0], force[c, 1], force[c, 2] = fn[c], ft[c, 0], ft[c, 1]
        vel[c, 0], vel[c, 1], vel[c, 2] = vn[c], vt[c, 0], vt[c, 1]
        for p in range(nv):
            tc[p] += Jn[c, p] * fn[c] + Jt[2 * c, p] * ft[c, 0] + Jt[2 * c + 1, p] * ft[c, 1]
    d.con_force, d.con_vel, d.tau_contact = force, vel, tc
    d.efc_J, d.efc_force = np.zeros((0, nv)), np.zeros(0)
    d.qacc_warmstart, d.warm_valid = v, False
    d.solver_converged, d.solver_iterations, d.solver_residual = converged, substeps, 0.0
    return DRAKE_SOLVE_OK if converged else DRAKE_SOLVE_NOT_CONVERGED
