"""Per-joint-type kinematics kernels: X_FM(q), hinge map H, bias term and q̇ = N(q)·v maps.

Every joint connects a frame F fixed on the parent body to a frame M fixed on the child body.
The hinge map H (6 × nv, rows [angular; translational]) gives the spatial velocity of M in F,
measured at Mo and expressed in F: V_FM_F = H(q)·v.  Joint types are small integer codes so the
numba pipeline can dispatch on them without Python objects. The rotation kernels write into their caller's array
and are compiled without numba's runtime (no reference counting of it: see contact/linalg.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

WELD = 0
REVOLUTE = 1
PRISMATIC = 2
SCREW = 3
UNIVERSAL = 4
BALL_RPY = 5
PLANAR = 6
RPY_FLOATING = 7
QUATERNION_FLOATING = 8
BALL_QUATERNION = 9

#: (nq, nv) per joint type code.
JOINT_SIZES = {WELD: (0, 0), REVOLUTE: (1, 1), PRISMATIC: (1, 1), SCREW: (1, 1), UNIVERSAL: (2, 2),
               BALL_RPY: (3, 3), PLANAR: (3, 3), RPY_FLOATING: (6, 6), QUATERNION_FLOATING: (7, 6),
               BALL_QUATERNION: (4, 3)}


@njit(cache=True, _nrt=False)
def axis_rotation_into(x, y, z, theta, R):
    """R = rotation of `theta` radians about the unit axis (x, y, z) (Rodrigues)."""
    c = np.cos(theta)
    s = np.sin(theta)
    t = 1.0 - c
    R[0, 0] = t * x * x + c
    R[0, 1] = t * x * y - s * z
    R[0, 2] = t * x * z + s * y
    R[1, 0] = t * x * y + s * z
    R[1, 1] = t * y * y + c
    R[1, 2] = t * y * z - s * x
    R[2, 0] = t * x * z - s * y
    R[2, 1] = t * y * z + s * x
    R[2, 2] = t * z * z + c


@njit(cache=True, _nrt=False)
def rpy_into(r, p, y, R):
    """R = Rz(y)·Ry(p)·Rx(r), Drake's RollPitchYaw convention (space-fixed X-Y-Z)."""
    cr, sr = np.cos(r), np.sin(r)
    cp, sp = np.cos(p), np.sin(p)
    cy, sy = np.cos(y), np.sin(y)
    R[0, 0] = cy * cp
    R[0, 1] = cy * sp * sr - sy * cr
    R[0, 2] = cy * sp * cr + sy * sr
    R[1, 0] = sy * cp
    R[1, 1] = sy * sp * sr + cy * cr
    R[1, 2] = sy * sp * cr - cy * sr
    R[2, 0] = -sp
    R[2, 1] = cp * sr
    R[2, 2] = cp * cr


@njit(cache=True, _nrt=False)
def quaternion_into(w, x, y, z, R):
    """R of quaternion [w, x, y, z]; a non-unit quaternion is normalized."""
    s = 2.0 / (w * w + x * x + y * y + z * z)
    R[0, 0] = 1.0 - s * (y * y + z * z)
    R[0, 1] = s * (x * y - w * z)
    R[0, 2] = s * (x * z + w * y)
    R[1, 0] = s * (x * y + w * z)
    R[1, 1] = 1.0 - s * (x * x + z * z)
    R[1, 2] = s * (y * z - w * x)
    R[2, 0] = s * (x * z - w * y)
    R[2, 1] = s * (y * z + w * x)
    R[2, 2] = 1.0 - s * (x * x + y * y)


def quaternion_to_rotation(w, x, y, z):
    """Rotation matrix (new 3 × 3 array) of quaternion [w, x, y, z]."""
    R = np.empty((3, 3))
    quaternion_into(w, x, y, z, R)
    return R


def rpy_to_rotation(r, p, y):
    """Rotation matrix (new 3 × 3 array) of roll-pitch-yaw angles."""
    R = np.empty((3, 3))
    rpy_into(r, p, y, R)
    return R


@njit(cache=True)
def joint_pose(jtype, q, q0, jrow, R, p):
    """X_FM(q) into (R, p) for one joint; its positions start at q[q0], jrow is its packed float row."""
    for i in range(3):
        p[i] = 0.0
        for j in range(3):
            R[i, j] = 1.0 if i == j else 0.0
    if jtype == REVOLUTE:
        axis_rotation_into(jrow[24], jrow[25], jrow[26], q[q0], R)
    elif jtype == PRISMATIC:
        for i in range(3):
            p[i] = jrow[24 + i] * q[q0]
    elif jtype == SCREW:
        axis_rotation_into(jrow[24], jrow[25], jrow[26], q[q0], R)
        d = jrow[27] * q[q0] / (2.0 * np.pi)
        for i in range(3):
            p[i] = jrow[24 + i] * d
    elif jtype == UNIVERSAL:
        c0, s0 = np.cos(q[q0]), np.sin(q[q0])
        c1, s1 = np.cos(q[q0 + 1]), np.sin(q[q0 + 1])
        R[0, 0], R[0, 1], R[0, 2] = c1, 0.0, s1
        R[1, 0], R[1, 1], R[1, 2] = s0 * s1, c0, -s0 * c1
        R[2, 0], R[2, 1], R[2, 2] = -c0 * s1, s0, c0 * c1
    elif jtype == BALL_RPY:
        rpy_into(q[q0], q[q0 + 1], q[q0 + 2], R)
    elif jtype == PLANAR:
        c, s = np.cos(q[q0 + 2]), np.sin(q[q0 + 2])
        R[0, 0], R[0, 1], R[1, 0], R[1, 1] = c, -s, s, c
        p[0], p[1] = q[q0], q[q0 + 1]
    elif jtype == RPY_FLOATING:
        rpy_into(q[q0], q[q0 + 1], q[q0 + 2], R)
        for i in range(3):
            p[i] = q[q0 + 3 + i]
    elif jtype == QUATERNION_FLOATING:
        quaternion_into(q[q0], q[q0 + 1], q[q0 + 2], q[q0 + 3], R)
        for i in range(3):
            p[i] = q[q0 + 4 + i]
    elif jtype == BALL_QUATERNION:
        quaternion_into(q[q0], q[q0 + 1], q[q0 + 2], q[q0 + 3], R)


@njit(cache=True)
def joint_hinge(jtype, q, q0, jrow, H):
    """Fill H (6 × nv): V_FM_F = H·v, measured at Mo, expressed in F, rows [angular; translational]."""
    H[:, :] = 0.0
    if jtype == REVOLUTE:
        for i in range(3):
            H[i, 0] = jrow[24 + i]
    elif jtype == PRISMATIC:
        for i in range(3):
            H[3 + i, 0] = jrow[24 + i]
    elif jtype == SCREW:
        k = jrow[27] / (2.0 * np.pi)
        for i in range(3):
            H[i, 0] = jrow[24 + i]
            H[3 + i, 0] = jrow[24 + i] * k
    elif jtype == UNIVERSAL:
        H[0, 0] = 1.0
        H[1, 1] = np.cos(q[q0])
        H[2, 1] = np.sin(q[q0])
    elif jtype == BALL_RPY or jtype == BALL_QUATERNION:
        for k in range(3):
            H[k, k] = 1.0
    elif jtype == PLANAR:
        H[3, 0] = 1.0
        H[4, 1] = 1.0
        H[2, 2] = 1.0
    elif jtype == RPY_FLOATING or jtype == QUATERNION_FLOATING:
        for k in range(6):
            H[k, k] = 1.0


@njit(cache=True)
def joint_hinge_rate_angular(jtype, q, q0, v, v0, c):
    """c = (d/dt H_w)·v at fixed v, in F: the angular hinge-rate term (nonzero only for universal joints)."""
    c[0] = 0.0
    c[1] = 0.0
    c[2] = 0.0
    if jtype == UNIVERSAL:
        c[1] = -np.sin(q[q0]) * v[v0] * v[v0 + 1]
        c[2] = np.cos(q[q0]) * v[v0] * v[v0 + 1]


@njit(cache=True)
def joint_n_matrix(jtype, q, N):
    """Fill N (nq × nv) with q̇ = N(q)·v for one joint."""
    N[:, :] = 0.0
    if jtype == BALL_RPY or jtype == RPY_FLOATING:
        p = q[1]
        y = q[2]
        cp = np.cos(p)
        if abs(cp) < 1e-12:
            raise ValueError("roll-pitch-yaw joint is at gimbal lock (|pitch| = pi/2): q̇ = N(q)v is singular")
        sy, cy, tp = np.sin(y), np.cos(y), np.tan(p)
        N[0, 0] = cy / cp
        N[0, 1] = sy / cp
        N[1, 0] = -sy
        N[1, 1] = cy
        N[2, 0] = cy * tp
        N[2, 1] = sy * tp
        N[2, 2] = 1.0
        if jtype == RPY_FLOATING:
            for k in range(3):
                N[3 + k, 3 + k] = 1.0
    elif jtype == QUATERNION_FLOATING or jtype == BALL_QUATERNION:
        # q̇_quat = ½ [0, w_F] ⊗ q  (w expressed in the parent frame F).
        w, x, y, z = q[0], q[1], q[2], q[3]
        N[0, 0] = -0.5 * x
        N[0, 1] = -0.5 * y
        N[0, 2] = -0.5 * z
        N[1, 0] = 0.5 * w
        N[1, 1] = 0.5 * z
        N[1, 2] = -0.5 * y
        N[2, 0] = -0.5 * z
        N[2, 1] = 0.5 * w
        N[2, 2] = 0.5 * x
        N[3, 0] = 0.5 * y
        N[3, 1] = -0.5 * x
        N[3, 2] = 0.5 * w
        if jtype == QUATERNION_FLOATING:
            for k in range(3):
                N[4 + k, 3 + k] = 1.0
    else:
        for k in range(N.shape[0]):
            N[k, k] = 1.0


@njit(cache=True)
def joint_nplus_matrix(jtype, q, Np):
    """Fill N⁺ (nv × nq), the left pseudo-inverse of N, with v = N⁺(q)·q̇."""
    Np[:, :] = 0.0
    if jtype == BALL_RPY or jtype == RPY_FLOATING:
        p = q[1]
        y = q[2]
        sp, cp, sy, cy = np.sin(p), np.cos(p), np.sin(y), np.cos(y)
        # w_F = [cy·cp·ṙ − sy·ṗ,  sy·cp·ṙ + cy·ṗ,  −sp·ṙ + ẏ]
        Np[0, 0] = cy * cp
        Np[0, 1] = -sy
        Np[1, 0] = sy * cp
        Np[1, 1] = cy
        Np[2, 0] = -sp
        Np[2, 2] = 1.0
        if jtype == RPY_FLOATING:
            for k in range(3):
                Np[3 + k, 3 + k] = 1.0
    elif jtype == QUATERNION_FLOATING or jtype == BALL_QUATERNION:
        # [0, w_F] = 2 q̇ ⊗ conj(q) / |q|²
        w, x, y, z = q[0], q[1], q[2], q[3]
        s = 2.0 / (w * w + x * x + y * y + z * z)
        Np[0, 0] = -x * s
        Np[0, 1] = w * s
        Np[0, 2] = -z * s
        Np[0, 3] = y * s
        Np[1, 0] = -y * s
        Np[1, 1] = z * s
        Np[1, 2] = w * s
        Np[1, 3] = -x * s
        Np[2, 0] = -z * s
        Np[2, 1] = -y * s
        Np[2, 2] = x * s
        Np[2, 3] = w * s
        if jtype == QUATERNION_FLOATING:
            for k in range(3):
                Np[3 + k, 4 + k] = 1.0
    else:
        for k in range(Np.shape[0]):
            Np[k, k] = 1.0
