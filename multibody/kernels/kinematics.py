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

from .joint_kernels import REVOLUTE, joint_hinge, joint_hinge_rate_angular, joint_pose
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


@njit(cache=True)
def position_kinematics_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM):
    """calc_position_kinematics writing into preallocated (nb, 3, 3) / (nb, 3) arrays (overwritten whole)."""
    R_WB[:] = 0.0
    p_WB[:] = 0.0
    R_WF[:] = 0.0
    p_WF[:] = 0.0
    p_WM[:] = 0.0
    for i in range(3):
        R_WB[0, i, i] = 1.0
        R_WF[0, i, i] = 1.0
    R_FM = np.empty((3, 3))
    p_FM = np.empty(3)
    R_WM = np.empty((3, 3))
    tmp = np.empty(3)
    for k in range(order.shape[0]):
        b = order[k]
        P = ji[b, 0]
        row = jf[b]
        joint_pose(ji[b, 1], q, ji[b, 2], row, R_FM, p_FM)
        RP = R_WB[P]
        RF = R_WF[b]
        # R_WF = R_WP·R_PF;  p_WF = p_WP + R_WP·p_PF
        for i in range(3):
            for j in range(3):
                RF[i, j] = RP[i, 0] * row[j] + RP[i, 1] * row[3 + j] + RP[i, 2] * row[6 + j]
            p_WF[b, i] = p_WB[P, i] + RP[i, 0] * row[9] + RP[i, 1] * row[10] + RP[i, 2] * row[11]
        matmul3(RF, R_FM, R_WM)
        matvec3(RF, p_FM, tmp)
        for i in range(3):
            p_WM[b, i] = p_WF[b, i] + tmp[i]
        RB = R_WB[b]
        for i in range(3):
            for j in range(3):
                RB[i, j] = R_WM[i, 0] * row[12 + j] + R_WM[i, 1] * row[15 + j] + R_WM[i, 2] * row[18 + j]
            p_WB[b, i] = p_WM[b, i] + R_WM[i, 0] * row[21] + R_WM[i, 1] * row[22] + R_WM[i, 2] * row[23]


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
    H = np.zeros((6, 6))
    w = np.empty(3)
    hw = np.empty(3)
    hv = np.empty(3)
    for k in range(order.shape[0]):
        b = order[k]
        n = ji[b, 5]
        if n == 0:
            continue
        vs = ji[b, 4]
        R = R_WF[b]
        pM = p_WM[b]
        if ji[b, 1] == REVOLUTE:  # S = [w; p_WMo × w] with w = R_WF·axis: no hinge matrix needed
            ax, ay, az = jf[b, 24], jf[b, 25], jf[b, 26]
            w0 = R[0, 0] * ax + R[0, 1] * ay + R[0, 2] * az
            w1 = R[1, 0] * ax + R[1, 1] * ay + R[1, 2] * az
            w2 = R[2, 0] * ax + R[2, 1] * ay + R[2, 2] * az
            S[vs, 0], S[vs, 1], S[vs, 2] = w0, w1, w2
            S[vs, 3] = pM[1] * w2 - pM[2] * w1
            S[vs, 4] = pM[2] * w0 - pM[0] * w2
            S[vs, 5] = pM[0] * w1 - pM[1] * w0
            continue
        joint_hinge(ji[b, 1], q, ji[b, 2], jf[b], H)
        for j in range(n):
            for i in range(3):
                hw[i] = H[i, j]
                hv[i] = H[3 + i, j]
            matvec3(R, hw, w)
            Sj = S[vs + j]
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
    """calc_velocity_kinematics writing into preallocated (nb, 6) V and c (overwritten whole)."""
    V[:] = 0.0
    c[:] = 0.0
    VJ = np.empty(6)
    cw_F = np.empty(3)
    w_F = np.empty(3)
    pM_F = np.empty(3)
    pdot_F = np.empty(3)
    cv_F = np.empty(3)
    tmp = np.empty(3)
    cw = np.empty(3)
    for k in range(order.shape[0]):
        b = order[k]
        P = ji[b, 0]
        n = ji[b, 5]
        vs = ji[b, 4]
        for i in range(6):
            VJ[i] = 0.0
        for j in range(n):
            vj = v[vs + j]
            for i in range(6):
                VJ[i] += S[vs + j, i] * vj
        for i in range(6):
            V[b, i] = V[P, i] + VJ[i]
        cb = c[b]
        motion_cross_into(V[P], VJ, cb)
        if n > 0 and ji[b, 1] != 2 and ji[b, 1] != 1:
            # Hinge-rate term Ḣ·v about Fo expressed in F, moved to world at Wo (revolute/prismatic: zero).
            R = R_WF[b]
            joint_hinge_rate_angular(ji[b, 1], q, ji[b, 2], v, vs, cw_F)
            matTvec3(R, VJ[0:3], w_F)
            for i in range(3):
                tmp[i] = p_WM[b, i] - p_WF[b, i]
            matTvec3(R, tmp, pM_F)
            cross_into(p_WM[b], VJ[0:3], tmp)
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
            cross_add(p_WF[b], cw, cb[3:6])


@njit(cache=True)
def calc_spatial_inertias(bp, R_WB, p_WB):
    """World spatial inertias at Wo (nb × 6 × 6) from per-body mass, com and inertia about Bo in B."""
    Iw = np.empty((bp.shape[0], 6, 6))
    spatial_inertias_into(bp, R_WB, p_WB, Iw)
    return Iw


@njit(cache=True)
def spatial_inertias_into(bp, R_WB, p_WB, Iw):
    """calc_spatial_inertias writing into a preallocated (nb, 6, 6) Iw (overwritten whole)."""
    nb = bp.shape[0]
    Iw[:] = 0.0
    Icm_B = np.empty((3, 3))
    T = np.empty((3, 3))
    Icm = np.empty((3, 3))
    c = np.empty(3)
    for b in range(1, nb):
        R = R_WB[b]
        m = bp[b, 0]
        cx, cy, cz = bp[b, 1], bp[b, 2], bp[b, 3]
        cc = cx * cx + cy * cy + cz * cz
        for i in range(3):
            for j in range(3):
                Icm_B[i, j] = bp[b, 4 + 3 * i + j] + m * bp[b, 1 + i] * bp[b, 1 + j]
            Icm_B[i, i] -= m * cc
        matmul3(R, Icm_B, T)
        for i in range(3):
            for j in range(3):
                Icm[i, j] = T[i, 0] * R[j, 0] + T[i, 1] * R[j, 1] + T[i, 2] * R[j, 2]
        for i in range(3):
            c[i] = p_WB[b, i] + R[i, 0] * cx + R[i, 1] * cy + R[i, 2] * cz
        n2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2]
        I = Iw[b]
        for i in range(3):
            for j in range(3):
                I[i, j] = Icm[i, j] - m * c[i] * c[j]
            I[i, i] += m * n2
            I[3 + i, 3 + i] = m
        # upper-right m[c]×, lower-left m[c]×ᵀ
        I[0, 4], I[0, 5] = -m * c[2], m * c[1]
        I[1, 3], I[1, 5] = m * c[2], -m * c[0]
        I[2, 3], I[2, 4] = -m * c[1], m * c[0]
        I[4, 0], I[5, 0] = -m * c[2], m * c[1]
        I[3, 1], I[5, 1] = m * c[2], -m * c[0]
        I[3, 2], I[4, 2] = -m * c[1], m * c[0]


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
