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

from .joint_kernels import PRISMATIC, REVOLUTE, joint_hinge, joint_hinge_rate_angular, joint_pose
from .small import cross_add, cross_into, matmul3, matTvec3, matvec3

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


@njit(cache=True)
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


@njit(cache=True)
def motion_subspace_into(order, ji, jf, q, R_WF, p_WM, S):
    """calc_motion_subspace writing into a preallocated (nv, 6) S (overwritten whole)."""
    S[:] = 0.0
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
        if ji[b, 1] == PRISMATIC:  # _hinge_columns_into's arithmetic (its bits) with H = [0; axis], in scalars
            z = 0.0
            ax, ay, az = jf[b, 24], jf[b, 25], jf[b, 26]
            w0 = R_WF[b, 0, 0] * z + R_WF[b, 0, 1] * z + R_WF[b, 0, 2] * z
            w1 = R_WF[b, 1, 0] * z + R_WF[b, 1, 1] * z + R_WF[b, 1, 2] * z
            w2 = R_WF[b, 2, 0] * z + R_WF[b, 2, 1] * z + R_WF[b, 2, 2] * z
            S[vs, 0], S[vs, 1], S[vs, 2] = w0, w1, w2
            S[vs, 3] = (R_WF[b, 0, 0] * ax + R_WF[b, 0, 1] * ay + R_WF[b, 0, 2] * az
                        + (p_WM[b, 1] * w2 - p_WM[b, 2] * w1))
            S[vs, 4] = (R_WF[b, 1, 0] * ax + R_WF[b, 1, 1] * ay + R_WF[b, 1, 2] * az
                        + (p_WM[b, 2] * w0 - p_WM[b, 0] * w2))
            S[vs, 5] = (R_WF[b, 2, 0] * ax + R_WF[b, 2, 1] * ay + R_WF[b, 2, 2] * az
                        + (p_WM[b, 0] * w1 - p_WM[b, 1] * w0))
            continue
        _hinge_columns_into(ji[b, 1], q, ji[b, 2], jf[b], n, R_WF[b], p_WM[b], S[vs:vs + n])


@njit(cache=True)
def _hinge_columns_into(jtype, q, q0, jrow, n, R, pM, S_joint):
    """The n columns of one joint from its hinge map H: S = [R_WF·H_w; R_WF·H_v + p_WMo × R_WF·H_w] (joints
    other than revolute; the temporaries are allocated here, off the revolute path)."""
    H = np.zeros((6, 6))
    w = np.empty(3)
    hw = np.empty(3)
    hv = np.empty(3)
    joint_hinge(jtype, q, q0, jrow, H)
    for j in range(n):
        for i in range(3):
            hw[i] = H[i, j]
            hv[i] = H[3 + i, j]
        matvec3(R, hw, w)
        Sj = S_joint[j]
        for i in range(3):
            Sj[i] = w[i]
            Sj[3 + i] = R[i, 0] * hv[0] + R[i, 1] * hv[1] + R[i, 2] * hv[2]
        Sj[3] += pM[1] * w[2] - pM[2] * w[1]
        Sj[4] += pM[2] * w[0] - pM[0] * w[2]
        Sj[5] += pM[0] * w[1] - pM[1] * w[0]


@njit(cache=True)
def calc_velocity_kinematics(order, ji, q, v, S, R_WF, p_WF, p_WM):
    """Body spatial velocities V (nb × 6, at Wo) and joint velocity-product terms c = Ṡ·v (nb × 6)."""
    nb = ji.shape[0]
    V = np.empty((nb, 6))
    c = np.empty((nb, 6))
    velocity_kinematics_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c)
    return V, c


@njit(cache=True)
def velocity_kinematics_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c):
    """calc_velocity_kinematics writing into preallocated (nb, 6) V and c (overwritten whole). The joint's
    velocity V_J = S·v is held in scalars; c = V_P ×ₘ V_J (+ the hinge-rate term of joints whose H varies)."""
    V[:] = 0.0
    c[:] = 0.0
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


@njit(cache=True)
def _add_hinge_rate_term(jtype, q, q0, v, vs, R, pF, pM, j0, j1, j2, j3, j4, j5, cb):
    """cb += the hinge-rate term Ḣ·v about Fo expressed in F, moved to world at Wo (joints other than revolute and
    prismatic, whose term is zero; the temporaries are allocated here, off their path)."""
    VJ = np.empty(6)
    VJ[0], VJ[1], VJ[2], VJ[3], VJ[4], VJ[5] = j0, j1, j2, j3, j4, j5
    cw_F = np.empty(3)
    w_F = np.empty(3)
    pM_F = np.empty(3)
    pdot_F = np.empty(3)
    cv_F = np.empty(3)
    tmp = np.empty(3)
    cw = np.empty(3)
    joint_hinge_rate_angular(jtype, q, q0, v, vs, cw_F)
    matTvec3(R, VJ[0:3], w_F)
    for i in range(3):
        tmp[i] = pM[i] - pF[i]
    matTvec3(R, tmp, pM_F)
    cross_into(pM, VJ[0:3], tmp)
    for i in range(3):
        tmp[i] = VJ[3 + i] - tmp[i]
    matTvec3(R, tmp, pdot_F)
    cross_into(pM_F, cw_F, cv_F)       # −cw × p = p × cw
    cross_add(pdot_F, w_F, cv_F)       # −w × ṗ = ṗ × w
    matvec3(R, cw_F, cw)
    matvec3(R, cv_F, tmp)
    for i in range(3):
        cb[i] += cw[i]
        cb[3 + i] += tmp[i]
    cross_add(pF, cw, cb[3:6])


@njit(cache=True)
def calc_spatial_inertias(bp, R_WB, p_WB):
    """World spatial inertias at Wo (nb × 6 × 6) from per-body mass, com and inertia about Bo in B."""
    Iw = np.empty((bp.shape[0], 6, 6))
    spatial_inertias_into(bp, R_WB, p_WB, Iw)
    return Iw


@njit(cache=True)
def spatial_inertias_into(bp, R_WB, p_WB, Iw):
    """calc_spatial_inertias writing into a preallocated (nb, 6, 6) Iw (overwritten whole). The temporaries live
    in the body's own 6 × 6 block until its final values replace them: no allocation."""
    nb = bp.shape[0]
    Iw[0] = 0.0
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
