"""Drake's SAP holonomic constraints for the plant's coupler, distance, ball and weld constraints, as Drake 1.51's
SapDriver adds them to the discrete step of its SAP-based approximations (kSap, kSimilar, kLagged), in its order
(all couplers, then distances, balls, welds).

Each constraint is g(q) → 0 with velocity rows J (g's time derivative is J·v) and per-row stiffness k and
relaxation time τ (SapHolonomicConstraint):

* coupler (SapCouplerConstraint): g = q₀ − ρ·q₁ − offset, J = e₀ − ρ·e₁; rigid (k = ∞, τ = 0);
* distance (SapDistanceConstraint): g = |p_WQ − p_WP| − ℓ, J = p̂ᵀ(J_Bq − J_Ap) with p̂ the unit vector from P to Q;
  k = stiffness, τ = damping / stiffness (rigid by default);
* ball (SapBallConstraint): g = p_WQ − p_WP, J = J_Bq − J_Ap (3 rows); rigid;
* weld (SapWeldConstraint): g = [a_PQ_W; p_WQ − p_WP] with a_PQ_W = R_WP·(θ·λ) the rotation vector of R_PQ, J the
  spatial velocity of Bm minus Am ([angular; translational], both at the midpoint M of Po and Qo); rigid.

With the constraint's Delassus estimate w = ‖J·diag(A)⁻¹·Jᵀ‖_F / rows, a row gets R = max(β²/(4π²)·w,
1/(h·(h + τ)·k)) (β = 0.1; near-rigid rows, where the first wins, take τ = h) and bias v̂ = −g/(h + τ); its impulse
γ = (v̂ − vc)/R is unbounded. The impulses act on the bodies as Drake's DoAccumulateSpatialImpulses: −γ on A and +γ on
B at P and Q (ball, distance along p̂) or at the midpoints Am, Bm (weld).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..kernels.contact_kernels import PointJacobians
from ..math.functions import angle_axis_from_quaternion, quaternion_from_rotation_matrix, \
    rotation_matrix_from_quaternion
from .equality import EQ_CONNECT, EQ_DISTANCE, EQ_JOINT, EQ_WELD

__all__ = ["SAP_HOLONOMIC_BETA", "drake_constraint_rows", "holonomic_parameters", "constraint_body_forces"]

SAP_HOLONOMIC_BETA = 0.1  #: β of Drake's coupler, distance, ball and weld constraints (near-rigid regularization)


@njit(cache=True)
def _kind_rows(kind):
    if kind == EQ_CONNECT:
        return 3
    if kind == EQ_WELD:
        return 6
    return 1


@njit(cache=True)
def _points(e, k, R_WB, p_WB):
    """(p_WP, p_WQ, p_AP_W, p_BQ_W) of equality k's points P on A and Q on B."""
    a, b = e.eq_obj[k, 0], e.eq_obj[k, 1]
    p_AP_W = R_WB[a] @ e.eq_data[k, 0:3]
    p_BQ_W = R_WB[b] @ e.eq_data[k, 3:6]
    return p_WB[a] + p_AP_W, p_WB[b] + p_BQ_W, p_AP_W, p_BQ_W


@njit(cache=True)
def drake_constraint_rows(e, ji, S, R_WB, p_WB, q):
    """The rows of the plant's coupler, distance, ball and weld equalities in SapDriver's order: (J (n × nv), g (n),
    k (n) [∞: rigid], τ (n) [s], con (ncons, 2): [equality index, first row], bad: the first distance constraint
    whose points coincide (its direction is undefined), −1 if none). Equalities of other kinds (MJCF tendon
    equalities) have no rows here."""
    nv = S.shape[0]
    neq = e.eq_type.shape[0]
    n = 0
    ncons = 0
    for k in range(neq):
        tp = e.eq_type[k]
        if tp == EQ_JOINT or tp == EQ_DISTANCE or tp == EQ_CONNECT or tp == EQ_WELD:
            n += _kind_rows(tp)
            ncons += 1
    J = np.zeros((n, nv))
    g = np.zeros(n)
    stiff = np.full(n, np.inf)
    tau = np.zeros(n)
    con = np.zeros((ncons, 2), np.int64)
    bad = -1
    r = 0
    c = 0
    for kind in (EQ_JOINT, EQ_DISTANCE, EQ_CONNECT, EQ_WELD):
        for k in range(neq):
            if e.eq_type[k] != kind:
                continue
            con[c, 0], con[c, 1] = k, r
            c += 1
            if kind == EQ_JOINT:  # q0 − ρ·q1 − offset (eq_data: [offset, ρ, ...])
                offset, rho = e.eq_data[k, 0], e.eq_data[k, 1]
                q1 = 0.0 if e.eq_obj[k, 1] < 0 else q[e.eq_obj[k, 1]]
                g[r] = q[e.eq_obj[k, 0]] - rho * q1 - offset
                J[r, e.eq_dof[k, 0]] += 1.0
                if e.eq_dof[k, 1] >= 0:
                    J[r, e.eq_dof[k, 1]] -= rho
                r += 1
                continue
            a, b = e.eq_obj[k, 0], e.eq_obj[k, 1]
            p_WP, p_WQ, _pA, _pB = _points(e, k, R_WB, p_WB)
            if kind == EQ_WELD:
                R_WP = R_WB[a] @ rotation_matrix_from_quaternion(e.eq_data[k, 6:10])
                R_WQ = R_WB[b] @ rotation_matrix_from_quaternion(e.eq_data[k, 10:14])
                angle, axis = angle_axis_from_quaternion(quaternion_from_rotation_matrix(R_WP.T @ R_WQ))
                g[r:r + 3] = R_WP @ (angle * axis)
                g[r + 3:r + 6] = p_WQ - p_WP
                p_WM = 0.5 * (p_WP + p_WQ)
                JvA, JwA = PointJacobians(ji, S, a, p_WM)
                JvB, JwB = PointJacobians(ji, S, b, p_WM)
                J[r:r + 3] = JwB - JwA
                J[r + 3:r + 6] = JvB - JvA
                r += 6
                continue
            JvA, _JwA = PointJacobians(ji, S, a, p_WP)
            JvB, _JwB = PointJacobians(ji, S, b, p_WQ)
            if kind == EQ_CONNECT:
                g[r:r + 3] = p_WQ - p_WP
                J[r:r + 3] = JvB - JvA
                r += 3
            else:  # distance (eq_data[6:9]: ℓ, stiffness, damping)
                d = p_WQ - p_WP
                length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
                if length < 1e-12:  # (as the MuJoCo rows, equality.py)
                    if bad < 0:
                        bad = k
                    r += 1
                    continue
                p_hat = d / length
                g[r] = length - e.eq_data[k, 6]
                J[r] = p_hat @ (JvB - JvA)
                stiff[r] = e.eq_data[k, 7]
                if np.isfinite(stiff[r]):
                    tau[r] = e.eq_data[k, 8] / stiff[r]
                r += 1
    return J, g, stiff, tau, con, bad


@njit(cache=True)
def holonomic_parameters(J, g, stiff, tau, con, dinv, h):
    """(R (n), v̂ (n)) of the rows (SapHolonomicConstraint::DoMakeData) with each constraint's Delassus estimate
    ‖J·diag(A)⁻¹·Jᵀ‖_F / rows; `dinv` = 1 / diag(A)."""
    n = J.shape[0]
    nv = J.shape[1]
    R = np.empty(n)
    vhat = np.empty(n)
    beta_factor = SAP_HOLONOMIC_BETA * SAP_HOLONOMIC_BETA / (4.0 * math.pi * math.pi)
    for c in range(con.shape[0]):
        r0 = con[c, 1]
        r1 = con[c + 1, 1] if c + 1 < con.shape[0] else n
        s = 0.0
        for i in range(r0, r1):
            for j in range(r0, r1):
                acc = 0.0
                for p in range(nv):
                    acc += J[i, p] * dinv[p] * J[j, p]
                s += acc * acc
        w = math.sqrt(s) / (r1 - r0)
        for i in range(r0, r1):
            near_rigid = beta_factor * w
            compliant = 1.0 / (h * (h + tau[i]) * stiff[i]) if np.isfinite(stiff[i]) else 0.0
            t = tau[i]
            if compliant < near_rigid:
                t = h
            R[i] = max(compliant, near_rigid)
            vhat[i] = -g[i] / (h + t)
    return R, vhat


@njit(cache=True)
def constraint_body_forces(e, con, f, R_WB, p_WB, nb):
    """The constraints' forces f (n, the rows' γ/h) on the bodies, F_Bo_W (nb × 6, [torque; force] at body
    origins, in W), as SapConstraint::CalcConstraintMultibodyForces reports them."""
    F = np.zeros((nb, 6))
    for c in range(con.shape[0]):
        k, r = con[c, 0], con[c, 1]
        kind = e.eq_type[k]
        if kind == EQ_JOINT:
            continue
        a, b = e.eq_obj[k, 0], e.eq_obj[k, 1]
        p_WP, p_WQ, p_AP_W, p_BQ_W = _points(e, k, R_WB, p_WB)
        torque = np.zeros(3)
        force = np.zeros(3)
        if kind == EQ_WELD:
            torque[:] = f[r:r + 3]
            force[:] = f[r + 3:r + 6]
            half = 0.5 * (p_WQ - p_WP)
            arm_A = p_AP_W + half  # Ao to Am
            arm_B = p_BQ_W - half  # Bo to Bm
        else:
            if kind == EQ_CONNECT:
                force[:] = f[r:r + 3]
            else:
                d = p_WQ - p_WP
                force[:] = f[r] * d / math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
            arm_A = p_AP_W
            arm_B = p_BQ_W
        for side in range(2):
            body = a if side == 0 else b
            s = -1.0 if side == 0 else 1.0
            arm = arm_A if side == 0 else arm_B
            F[body, 0:3] += s * (torque + np.cross(arm, force))
            F[body, 3:6] += s * force
    return F
