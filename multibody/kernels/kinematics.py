"""Forward kinematics over the compiled model arrays.

Spatial vectors inside the pipeline are Plücker vectors expressed in the world frame W and
measured at the world origin Wo: a spatial velocity is [w_WB; v_WBo'] where Bo' is the point of B
instantaneously at Wo.  That makes composition pure addition (V_WB = V_WP + S·v), and shifting to
a body origin happens only at the API boundary (see `spatial_to_point`).  The loops are written
over scalars: numba then emits allocation-free code, which matters at 3 × 3 sizes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .joint_kernels import PLANAR, PRISMATIC, REVOLUTE, SCREW, UNIVERSAL, joint_pose

# Column layout of the packed per-body joint arrays (row b describes the joint whose child is body b).
PARENT, JTYPE, QSTART, NQ, VSTART, NV = 0, 1, 2, 3, 4, 5
# Packed float row: R_PF (0:9, row-major), p_PF (9:12), R_MB (12:21), p_MB (21:24), axis (24:27), pitch (27).
# Packed body parameters: mass (0), p_BoBcm_B (1:4), I_BBo_B (4:13, row-major).


@njit(cache=True)
def cross3(a, b):
    """a × b for 3-vectors (allocates; for API-side helpers)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def motion_cross_into(V, m, out):
    """out = V ×ₘ m for 6-vectors [angular; translational]."""
    out[0] = V[1] * m[2] - V[2] * m[1]
    out[1] = V[2] * m[0] - V[0] * m[2]
    out[2] = V[0] * m[1] - V[1] * m[0]
    out[3] = V[1] * m[5] - V[2] * m[4] + V[4] * m[2] - V[5] * m[1]
    out[4] = V[2] * m[3] - V[0] * m[5] + V[5] * m[0] - V[3] * m[2]
    out[5] = V[0] * m[4] - V[1] * m[3] + V[3] * m[1] - V[4] * m[0]


@njit(cache=True)
def force_cross_into(V, f, out):
    """out = V ×* f for 6-vectors [angular; translational]."""
    out[0] = V[1] * f[2] - V[2] * f[1] + V[4] * f[5] - V[5] * f[4]
    out[1] = V[2] * f[0] - V[0] * f[2] + V[5] * f[3] - V[3] * f[5]
    out[2] = V[0] * f[1] - V[1] * f[0] + V[3] * f[4] - V[4] * f[3]
    out[3] = V[1] * f[5] - V[2] * f[4]
    out[4] = V[2] * f[3] - V[0] * f[5]
    out[5] = V[0] * f[4] - V[1] * f[3]


@njit(cache=True)
def calc_position_kinematics(order, ji, jf, q):
    """Poses of every body (R_WB, p_WB), joint frames F (R_WF, p_WF) and child joint origins p_WMo."""
    nb = ji.shape[0]
    R_WB = np.empty((nb, 3, 3))
    p_WB = np.empty((nb, 3))
    R_WF = np.empty((nb, 3, 3))
    p_WF = np.empty((nb, 3))
    p_WM = np.empty((nb, 3))
    position_kinematics_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM)
    return R_WB, p_WB, R_WF, p_WF, p_WM


# joint_pose inlined into position_kinematics_into: with the arrays indexed in place of per-body views, the 7-DOF
# arm's pose stage runs 0.95 -> 0.67 us (a call taking views pays their reference counting; neither change alone
# gained anything)
_joint_pose_inlined = njit(inline="always")(joint_pose.py_func)


@njit(cache=True, _nrt=False)
def position_kinematics_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM):
    """calc_position_kinematics writing into preallocated (nb, 3, 3) / (nb, 3) arrays (overwritten whole).
    X_FM is built in body B's rows (overwritten by X_WB at the end) and R_WM is held in scalars: no allocation."""
    R_WB[:] = 0.0
    p_WB[:] = 0.0
    R_WF[:] = 0.0
    p_WF[:] = 0.0
    p_WM[:] = 0.0
    for i in range(3):
        R_WB[0, i, i] = 1.0
        R_WF[0, i, i] = 1.0
    body_poses_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM)


@njit(inline="always", _nrt=False)
def body_poses_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM):
    """position_kinematics_into without its fills: writes the rows of the bodies in `order` whole and reads the
    world's rows (identity, zero) as the caller left them: a caller whose other rows stay as last written (a scratch
    of tree_step.py's batches) fills them once. Inlined into its callers (no call per stage)."""
    for k in range(order.shape[0]):
        b = order[k]
        P = ji[b, 0]
        _joint_pose_inlined(ji[b, 1], q, ji[b, 2], jf[b], R_WB[b], p_WB[b])  # (R_FM, p_FM) until X_WB overwrites them
        # R_WF = R_WP·R_PF;  p_WF = p_WP + R_WP·p_PF
        for i in range(3):
            for j in range(3):
                R_WF[b, i, j] = R_WB[P, i, 0] * jf[b, j] + R_WB[P, i, 1] * jf[b, 3 + j] + R_WB[P, i, 2] * jf[b, 6 + j]
            p_WF[b, i] = p_WB[P, i] + R_WB[P, i, 0] * jf[b, 9] + R_WB[P, i, 1] * jf[b, 10] + R_WB[P, i, 2] * jf[b, 11]
        # R_WM = R_WF·R_FM;  p_WM = p_WF + R_WF·p_FM
        m00 = R_WF[b, 0, 0] * R_WB[b, 0, 0] + R_WF[b, 0, 1] * R_WB[b, 1, 0] + R_WF[b, 0, 2] * R_WB[b, 2, 0]
        m01 = R_WF[b, 0, 0] * R_WB[b, 0, 1] + R_WF[b, 0, 1] * R_WB[b, 1, 1] + R_WF[b, 0, 2] * R_WB[b, 2, 1]
        m02 = R_WF[b, 0, 0] * R_WB[b, 0, 2] + R_WF[b, 0, 1] * R_WB[b, 1, 2] + R_WF[b, 0, 2] * R_WB[b, 2, 2]
        m10 = R_WF[b, 1, 0] * R_WB[b, 0, 0] + R_WF[b, 1, 1] * R_WB[b, 1, 0] + R_WF[b, 1, 2] * R_WB[b, 2, 0]
        m11 = R_WF[b, 1, 0] * R_WB[b, 0, 1] + R_WF[b, 1, 1] * R_WB[b, 1, 1] + R_WF[b, 1, 2] * R_WB[b, 2, 1]
        m12 = R_WF[b, 1, 0] * R_WB[b, 0, 2] + R_WF[b, 1, 1] * R_WB[b, 1, 2] + R_WF[b, 1, 2] * R_WB[b, 2, 2]
        m20 = R_WF[b, 2, 0] * R_WB[b, 0, 0] + R_WF[b, 2, 1] * R_WB[b, 1, 0] + R_WF[b, 2, 2] * R_WB[b, 2, 0]
        m21 = R_WF[b, 2, 0] * R_WB[b, 0, 1] + R_WF[b, 2, 1] * R_WB[b, 1, 1] + R_WF[b, 2, 2] * R_WB[b, 2, 1]
        m22 = R_WF[b, 2, 0] * R_WB[b, 0, 2] + R_WF[b, 2, 1] * R_WB[b, 1, 2] + R_WF[b, 2, 2] * R_WB[b, 2, 2]
        for i in range(3):
            p_WM[b, i] = p_WF[b, i] + (R_WF[b, i, 0] * p_WB[b, 0] + R_WF[b, i, 1] * p_WB[b, 1]
                                       + R_WF[b, i, 2] * p_WB[b, 2])
        # R_WB = R_WM·R_MB;  p_WB = p_WM + R_WM·p_MB
        for j in range(3):
            r0, r1, r2 = jf[b, 12 + j], jf[b, 15 + j], jf[b, 18 + j]
            R_WB[b, 0, j] = m00 * r0 + m01 * r1 + m02 * r2
            R_WB[b, 1, j] = m10 * r0 + m11 * r1 + m12 * r2
            R_WB[b, 2, j] = m20 * r0 + m21 * r1 + m22 * r2
        p_WB[b, 0] = p_WM[b, 0] + m00 * jf[b, 21] + m01 * jf[b, 22] + m02 * jf[b, 23]
        p_WB[b, 1] = p_WM[b, 1] + m10 * jf[b, 21] + m11 * jf[b, 22] + m12 * jf[b, 23]
        p_WB[b, 2] = p_WM[b, 2] + m20 * jf[b, 21] + m21 * jf[b, 22] + m22 * jf[b, 23]


@njit(cache=True)
def calc_motion_subspace(order, ji, jf, q, nv_total, R_WF, p_WM):
    """Joint columns S (nv × 6) in world Plücker coordinates at Wo: V_WB − V_WP = Σ S[k]·v[k]."""
    S = np.empty((nv_total, 6))
    motion_subspace_into(order, ji, jf, q, R_WF, p_WM, S)
    return S


@njit(cache=True, _nrt=False)
def motion_subspace_into(order, ji, jf, q, R_WF, p_WM, S):
    """calc_motion_subspace writing into a preallocated (nv, 6) S (overwritten whole). Allocates nothing (compiled
    without numba's runtime: no reference counting of its arrays, see contact/linalg.py)."""
    S[:] = 0.0
    joint_columns_into(order, ji, jf, q, R_WF, p_WM, S)


@njit(inline="always", _nrt=False)
def joint_columns_into(order, ji, jf, q, R_WF, p_WM, S):
    """motion_subspace_into without its fill: writes the rows of S of the joints in `order` whole (every dof's).
    Inlined into its callers."""
    for k in range(order.shape[0]):
        b = order[k]
        n = ji[b, 5]
        if n == 0:
            continue
        vs = ji[b, 4]
        # (R_WF and p_WM indexed, not viewed per body: 0.28 -> 0.12 us on the 7-DOF arm)
        if ji[b, 1] == REVOLUTE:  # S = [w; p_WMo × w] with w = R_WF·axis: no hinge matrix needed
            ax, ay, az = jf[b, 24], jf[b, 25], jf[b, 26]
            w0 = R_WF[b, 0, 0] * ax + R_WF[b, 0, 1] * ay + R_WF[b, 0, 2] * az
            w1 = R_WF[b, 1, 0] * ax + R_WF[b, 1, 1] * ay + R_WF[b, 1, 2] * az
            w2 = R_WF[b, 2, 0] * ax + R_WF[b, 2, 1] * ay + R_WF[b, 2, 2] * az
            S[vs, 0], S[vs, 1], S[vs, 2] = w0, w1, w2
            S[vs, 3] = p_WM[b, 1] * w2 - p_WM[b, 2] * w1
            S[vs, 4] = p_WM[b, 2] * w0 - p_WM[b, 0] * w2
            S[vs, 5] = p_WM[b, 0] * w1 - p_WM[b, 1] * w0
            continue
        # other joints: S = [R_WF·H_w; R_WF·H_v + p_WMo × R_WF·H_w] column by column from the hinge map H
        # (joint_kernels.joint_hinge; a prismatic joint's column is H = [0; axis]), in scalars
        for j in range(n):
            h0, h1, h2, h3, h4, h5 = _hinge_column(ji[b, 1], q, ji[b, 2], jf, b, j)
            w0 = R_WF[b, 0, 0] * h0 + R_WF[b, 0, 1] * h1 + R_WF[b, 0, 2] * h2
            w1 = R_WF[b, 1, 0] * h0 + R_WF[b, 1, 1] * h1 + R_WF[b, 1, 2] * h2
            w2 = R_WF[b, 2, 0] * h0 + R_WF[b, 2, 1] * h1 + R_WF[b, 2, 2] * h2
            S[vs + j, 0], S[vs + j, 1], S[vs + j, 2] = w0, w1, w2
            S[vs + j, 3] = (R_WF[b, 0, 0] * h3 + R_WF[b, 0, 1] * h4 + R_WF[b, 0, 2] * h5
                            + (p_WM[b, 1] * w2 - p_WM[b, 2] * w1))
            S[vs + j, 4] = (R_WF[b, 1, 0] * h3 + R_WF[b, 1, 1] * h4 + R_WF[b, 1, 2] * h5
                            + (p_WM[b, 2] * w0 - p_WM[b, 0] * w2))
            S[vs + j, 5] = (R_WF[b, 2, 0] * h3 + R_WF[b, 2, 1] * h4 + R_WF[b, 2, 2] * h5
                            + (p_WM[b, 0] * w1 - p_WM[b, 1] * w0))


@njit(cache=True, inline="always")
def _hinge_column(jtype, q, q0, jf, b, j):
    """Column j of joint_kernels.joint_hinge's H (6 × nv) for body b's joint, as six scalars [angular; translational]
    (the same entries, so the same products follow)."""
    z = 0.0
    if jtype == PRISMATIC:
        return z, z, z, jf[b, 24], jf[b, 25], jf[b, 26]
    if jtype == REVOLUTE:
        return jf[b, 24], jf[b, 25], jf[b, 26], z, z, z
    if jtype == SCREW:
        k = jf[b, 27] / (2.0 * np.pi)
        return jf[b, 24], jf[b, 25], jf[b, 26], jf[b, 24] * k, jf[b, 25] * k, jf[b, 26] * k
    if jtype == UNIVERSAL:
        if j == 0:
            return 1.0, z, z, z, z, z
        return z, np.cos(q[q0]), np.sin(q[q0]), z, z, z
    if jtype == PLANAR:  # [x, y, θ]: translations along Fx, Fy, rotation about Fz
        if j == 2:
            return z, z, 1.0, z, z, z
        return z, z, z, 1.0 if j == 0 else z, 1.0 if j == 1 else z, z
    # ball joints (three angular columns) and floating joints (six): the identity's columns
    return (1.0 if j == 0 else z, 1.0 if j == 1 else z, 1.0 if j == 2 else z, 1.0 if j == 3 else z,
            1.0 if j == 4 else z, 1.0 if j == 5 else z)


@njit(cache=True)
def calc_velocity_kinematics(order, ji, q, v, S, R_WF, p_WF, p_WM):
    """Body spatial velocities V (nb × 6, at Wo) and joint velocity-product terms c = Ṡ·v (nb × 6)."""
    nb = ji.shape[0]
    V = np.empty((nb, 6))
    c = np.empty((nb, 6))
    velocity_kinematics_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c)
    return V, c


@njit(cache=True, _nrt=False)
def velocity_kinematics_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c):
    """calc_velocity_kinematics writing into preallocated (nb, 6) V and c (overwritten whole). The joint's
    velocity V_J = S·v is held in scalars; c = V_P ×ₘ V_J (+ the hinge-rate term of joints whose H varies).
    Allocates nothing (compiled without numba's runtime)."""
    V[:] = 0.0
    c[:] = 0.0
    body_velocities_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c)


@njit(inline="always", _nrt=False)
def body_velocities_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c):
    """velocity_kinematics_into without its fills: writes the rows of V and c of the bodies in `order` whole and
    reads the world's (zero) as the caller left them. Inlined into its callers."""
    for k in range(order.shape[0]):
        b = order[k]
        P = ji[b, 0]
        n = ji[b, 5]
        vs = ji[b, 4]
        j0 = j1 = j2 = j3 = j4 = j5 = 0.0
        for j in range(n):
            vj = v[vs + j]
            j0 += S[vs + j, 0] * vj
            j1 += S[vs + j, 1] * vj
            j2 += S[vs + j, 2] * vj
            j3 += S[vs + j, 3] * vj
            j4 += S[vs + j, 4] * vj
            j5 += S[vs + j, 5] * vj
        # (V, S and c indexed, not viewed per body: 0.27 -> 0.20 us on the 7-DOF arm)
        V[b, 0], V[b, 1], V[b, 2] = V[P, 0] + j0, V[P, 1] + j1, V[P, 2] + j2
        V[b, 3], V[b, 4], V[b, 5] = V[P, 3] + j3, V[P, 4] + j4, V[P, 5] + j5
        # c = V_P ×ₘ V_J (motion_cross_into)
        c[b, 0] = V[P, 1] * j2 - V[P, 2] * j1
        c[b, 1] = V[P, 2] * j0 - V[P, 0] * j2
        c[b, 2] = V[P, 0] * j1 - V[P, 1] * j0
        c[b, 3] = V[P, 1] * j5 - V[P, 2] * j4 + V[P, 4] * j2 - V[P, 5] * j1
        c[b, 4] = V[P, 2] * j3 - V[P, 0] * j5 + V[P, 5] * j0 - V[P, 3] * j2
        c[b, 5] = V[P, 0] * j4 - V[P, 1] * j3 + V[P, 3] * j1 - V[P, 4] * j0
        if n > 0 and ji[b, 1] != 2 and ji[b, 1] != 1:
            _add_hinge_rate_term(ji[b, 1], q, ji[b, 2], v, vs, R_WF[b], p_WF[b], p_WM[b], j0, j1, j2, j3, j4, j5,
                                 c[b])


@njit(cache=True, inline="always")
def _add_hinge_rate_term(jtype, q, q0, v, vs, R, pF, pM, j0, j1, j2, j3, j4, j5, cb):
    """cb += the hinge-rate term Ḣ·v about Fo expressed in F, moved to world at Wo (joints other than revolute and
    prismatic, whose term is zero), with R = R_WF, pF = p_WFo, pM = p_WMo and V_J = (j0, ..., j5) = S·v. In scalars:
    no allocation. cw_F: the angular term of joint_kernels.joint_hinge_rate_angular (nonzero for universal joints)."""
    cw0 = cw1 = cw2 = 0.0
    if jtype == UNIVERSAL:
        cw1 = -np.sin(q[q0]) * v[vs] * v[vs + 1]
        cw2 = np.cos(q[q0]) * v[vs] * v[vs + 1]
    # w_F = R_WFᵀ·w_J, p_FoMo_F = R_WFᵀ·(p_WMo − p_WFo), ṗ_F = R_WFᵀ·(v_J − p_WMo × w_J) (at Mo)
    wf0 = R[0, 0] * j0 + R[1, 0] * j1 + R[2, 0] * j2
    wf1 = R[0, 1] * j0 + R[1, 1] * j1 + R[2, 1] * j2
    wf2 = R[0, 2] * j0 + R[1, 2] * j1 + R[2, 2] * j2
    t0, t1, t2 = pM[0] - pF[0], pM[1] - pF[1], pM[2] - pF[2]
    pm0 = R[0, 0] * t0 + R[1, 0] * t1 + R[2, 0] * t2
    pm1 = R[0, 1] * t0 + R[1, 1] * t1 + R[2, 1] * t2
    pm2 = R[0, 2] * t0 + R[1, 2] * t1 + R[2, 2] * t2
    t0 = j3 - (pM[1] * j2 - pM[2] * j1)
    t1 = j4 - (pM[2] * j0 - pM[0] * j2)
    t2 = j5 - (pM[0] * j1 - pM[1] * j0)
    pd0 = R[0, 0] * t0 + R[1, 0] * t1 + R[2, 0] * t2
    pd1 = R[0, 1] * t0 + R[1, 1] * t1 + R[2, 1] * t2
    pd2 = R[0, 2] * t0 + R[1, 2] * t1 + R[2, 2] * t2
    # cv_F = p × cw + ṗ × w  (−cw × p − w × ṗ)
    cv0 = (pm1 * cw2 - pm2 * cw1) + (pd1 * wf2 - pd2 * wf1)
    cv1 = (pm2 * cw0 - pm0 * cw2) + (pd2 * wf0 - pd0 * wf2)
    cv2 = (pm0 * cw1 - pm1 * cw0) + (pd0 * wf1 - pd1 * wf0)
    # into W: cw = R_WF·cw_F, then cb += [cw; R_WF·cv_F + p_WFo × cw]
    c0 = R[0, 0] * cw0 + R[0, 1] * cw1 + R[0, 2] * cw2
    c1 = R[1, 0] * cw0 + R[1, 1] * cw1 + R[1, 2] * cw2
    c2 = R[2, 0] * cw0 + R[2, 1] * cw1 + R[2, 2] * cw2
    cb[0] += c0
    cb[1] += c1
    cb[2] += c2
    cb[3] += R[0, 0] * cv0 + R[0, 1] * cv1 + R[0, 2] * cv2
    cb[4] += R[1, 0] * cv0 + R[1, 1] * cv1 + R[1, 2] * cv2
    cb[5] += R[2, 0] * cv0 + R[2, 1] * cv1 + R[2, 2] * cv2
    cb[3] += pF[1] * c2 - pF[2] * c1
    cb[4] += pF[2] * c0 - pF[0] * c2
    cb[5] += pF[0] * c1 - pF[1] * c0


@njit(cache=True)
def calc_spatial_inertias(bp, R_WB, p_WB):
    """World spatial inertias at Wo (nb × 6 × 6) from per-body mass, com and inertia about Bo in B."""
    Iw = np.empty((bp.shape[0], 6, 6))
    spatial_inertias_into(bp, R_WB, p_WB, Iw)
    return Iw


@njit(cache=True, _nrt=False)
def spatial_inertias_into(bp, R_WB, p_WB, Iw):
    """calc_spatial_inertias writing into a preallocated (nb, 6, 6) Iw (overwritten whole). The temporaries live
    in the body's own 6 × 6 block until its final values replace them: no allocation."""
    Iw[0] = 0.0
    body_inertias_into(bp, R_WB, p_WB, Iw)


@njit(inline="always", _nrt=False)
def body_inertias_into(bp, R_WB, p_WB, Iw):
    """spatial_inertias_into without its fill of the world's (zero) block. Inlined into its callers."""
    nb = bp.shape[0]
    for b in range(1, nb):
        R = R_WB[b]
        I = Iw[b]
        m = bp[b, 0]
        cx, cy, cz = bp[b, 1], bp[b, 2], bp[b, 3]
        cc = cx * cx + cy * cy + cz * cz
        for i in range(3):  # I_BBcm_B (about the com) in the lower-left block
            for j in range(3):
                I[3 + i, j] = bp[b, 4 + 3 * i + j] + m * bp[b, 1 + i] * bp[b, 1 + j]
            I[3 + i, i] -= m * cc
        for i in range(3):  # T = R·I_BBcm_B in the lower-right block
            for j in range(3):
                I[3 + i, 3 + j] = R[i, 0] * I[3, j] + R[i, 1] * I[4, j] + R[i, 2] * I[5, j]
        for i in range(3):  # I_BBcm_W = T·Rᵀ in the upper-left block
            for j in range(3):
                I[i, j] = I[3 + i, 3] * R[j, 0] + I[3 + i, 4] * R[j, 1] + I[3 + i, 5] * R[j, 2]
        c0 = p_WB[b, 0] + R[0, 0] * cx + R[0, 1] * cy + R[0, 2] * cz  # p_WoBcm
        c1 = p_WB[b, 1] + R[1, 0] * cx + R[1, 1] * cy + R[1, 2] * cz
        c2 = p_WB[b, 2] + R[2, 0] * cx + R[2, 1] * cy + R[2, 2] * cz
        n2 = c0 * c0 + c1 * c1 + c2 * c2
        I[0, 0] = I[0, 0] - m * c0 * c0
        I[0, 1] = I[0, 1] - m * c0 * c1
        I[0, 2] = I[0, 2] - m * c0 * c2
        I[1, 0] = I[1, 0] - m * c1 * c0
        I[1, 1] = I[1, 1] - m * c1 * c1
        I[1, 2] = I[1, 2] - m * c1 * c2
        I[2, 0] = I[2, 0] - m * c2 * c0
        I[2, 1] = I[2, 1] - m * c2 * c1
        I[2, 2] = I[2, 2] - m * c2 * c2
        for i in range(3):
            I[i, i] += m * n2
            for j in range(3):
                I[3 + i, 3 + j] = m if i == j else 0.0
        # upper-right m[c]×, lower-left m[c]×ᵀ
        I[0, 3], I[1, 4], I[2, 5] = 0.0, 0.0, 0.0
        I[3, 0], I[4, 1], I[5, 2] = 0.0, 0.0, 0.0
        I[0, 4], I[0, 5] = -m * c2, m * c1
        I[1, 3], I[1, 5] = m * c2, -m * c0
        I[2, 3], I[2, 4] = -m * c1, m * c0
        I[4, 0], I[5, 0] = -m * c2, m * c1
        I[3, 1], I[5, 1] = m * c2, -m * c0
        I[3, 2], I[4, 2] = -m * c1, m * c0


@njit(cache=True)
def calc_accelerations(order, ji, S, c, vdot):
    """Body spatial accelerations A (nb × 6, Plücker at Wo) from v̇ (world acceleration zero)."""
    A = np.zeros((ji.shape[0], 6))
    for k in range(order.shape[0]):
        b = order[k]
        P = ji[b, 0]
        vs = ji[b, 4]
        for i in range(6):
            A[b, i] = A[P, i] + c[b, i]
        for j in range(ji[b, 5]):
            a = vdot[vs + j]
            for i in range(6):
                A[b, i] += S[vs + j, i] * a
    return A


@njit(cache=True)
def spatial_to_point(V, p):
    """Shift a Plücker motion vector at Wo to a point P at p_WP: returns [w; v_P]."""
    out = np.empty(6)
    out[0:3] = V[0:3]
    out[3:6] = V[3:6] + cross3(V[0:3], p)
    return out


@njit(cache=True)
def acceleration_to_point(V, A, p):
    """Classical spatial acceleration [ẇ; a_P] of the body point at p_WP from Plücker V, A at Wo."""
    out = np.empty(6)
    out[0:3] = A[0:3]
    v_P = V[3:6] + cross3(V[0:3], p)
    out[3:6] = A[3:6] + cross3(A[0:3], p) + cross3(V[0:3], v_P)
    return out
