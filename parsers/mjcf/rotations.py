"""Quaternion helpers for the MJCF compiler (quaternions are (w, x, y, z), unit, Hamilton product).

These run once per element at load time, so they are small plain-Python/numpy functions; they
reproduce MuJoCo's compile-time conventions (orientation alternatives, principal axes) exactly.
"""
from __future__ import annotations

import math

import numpy as np

MJ_EPS = 1e-14


def quat_mul(a, b) -> np.ndarray:
    """Hamilton product a ⊗ b."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ])


def quat_normalize(q) -> np.ndarray:
    """Normalize q; a (near) zero quaternion becomes the identity, as in MuJoCo."""
    q = np.asarray(q, dtype=float)
    n = math.sqrt(float(q @ q))
    if n < MJ_EPS:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return q / n


def quat_conj(q) -> np.ndarray:
    """Conjugate (inverse rotation of a unit quaternion)."""
    return np.array([q[0], -q[1], -q[2], -q[3]])


def quat_to_mat(q) -> np.ndarray:
    """Rotation matrix R (3x3) of unit quaternion q; columns are the rotated frame's axes."""
    w, x, y, z = q
    return np.array([
        [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z],
    ])


def rotate(q, v) -> np.ndarray:
    """Rotate vector v by quaternion q."""
    return quat_to_mat(q) @ np.asarray(v, dtype=float)


def mat_to_quat(m) -> np.ndarray:
    """Quaternion of rotation matrix m, using the largest-component branch as MuJoCo's frame2quat."""
    m = np.asarray(m, dtype=float)
    q = np.zeros(4)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        q[0] = 0.5 * math.sqrt(1 + tr)
        q[1] = 0.25 * (m[2, 1] - m[1, 2]) / q[0]
        q[2] = 0.25 * (m[0, 2] - m[2, 0]) / q[0]
        q[3] = 0.25 * (m[1, 0] - m[0, 1]) / q[0]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        q[1] = 0.5 * math.sqrt(1 + m[0, 0] - m[1, 1] - m[2, 2])
        q[0] = 0.25 * (m[2, 1] - m[1, 2]) / q[1]
        q[2] = 0.25 * (m[0, 1] + m[1, 0]) / q[1]
        q[3] = 0.25 * (m[0, 2] + m[2, 0]) / q[1]
    elif m[1, 1] > m[2, 2]:
        q[2] = 0.5 * math.sqrt(1 - m[0, 0] + m[1, 1] - m[2, 2])
        q[0] = 0.25 * (m[0, 2] - m[2, 0]) / q[2]
        q[1] = 0.25 * (m[0, 1] + m[1, 0]) / q[2]
        q[3] = 0.25 * (m[1, 2] + m[2, 1]) / q[2]
    else:
        q[3] = 0.5 * math.sqrt(1 - m[0, 0] - m[1, 1] + m[2, 2])
        q[0] = 0.25 * (m[1, 0] - m[0, 1]) / q[3]
        q[1] = 0.25 * (m[0, 2] + m[2, 0]) / q[3]
        q[2] = 0.25 * (m[1, 2] + m[2, 1]) / q[3]
    return quat_normalize(q)


def axis_angle_quat(axis, angle: float) -> np.ndarray:
    """Rotation of `angle` radians about the (normalized) axis."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    s = math.sin(angle / 2)
    return np.array([math.cos(angle / 2), s * a[0], s * a[1], s * a[2]])


def _normvec(v: list[float]) -> tuple[list[float], float]:
    n = 0.0
    for x in v:
        n += x * x
    if n < MJ_EPS:
        return list(v), 0.0
    n = math.sqrt(n)
    return ([x / n for x in v] if abs(n - 1) > MJ_EPS else list(v)), n


def z_to_quat(vec) -> np.ndarray:
    """Minimal rotation taking +Z to the direction of vec (MuJoCo's zaxis rule, same operation order)."""
    v, _ = _normvec([float(x) for x in vec])
    axis = [0.0 * v[2] - 1.0 * v[1], 1.0 * v[0] - 0.0 * v[2], 0.0 * v[1] - 0.0 * v[0]]
    axis, s = _normvec(axis)
    if s < 1e-10:
        axis = [1.0, 0.0, 0.0]
    ang = math.atan2(s, v[2])
    sa = math.sin(ang / 2)
    return np.array([math.cos(ang / 2), axis[0] * sa, axis[1] * sa, axis[2] * sa])


def euler_quat(angles, seq: str) -> np.ndarray:
    """Quaternion of three successive rotations; lowercase axes rotate with the frame, uppercase are fixed.

    Products and normalizations in MuJoCo's compiler order, so that the result is bit-identical to its
    (principal inertia frames of near-symmetric bodies amplify a last-bit difference here).
    """
    q = [1.0, 0.0, 0.0, 0.0]
    for ang, ch in zip(angles, seq):
        r = [math.cos(ang / 2), 0.0, 0.0, 0.0]
        r["xyz".index(ch.lower()) + 1] = math.sin(ang / 2)
        q = _qmul(q, r) if ch.islower() else _qmul(r, q)
    return np.array(_norm4(q))


def frame_accum(pos_parent, quat_parent, pos_child, quat_child) -> tuple[np.ndarray, np.ndarray]:
    """Compose poses: X_AC = X_AB · X_BC, given X_AB=(pos_parent, quat_parent) and X_BC=(pos_child, quat_child)."""
    pos = np.asarray(pos_parent, float) + rotate(quat_parent, pos_child)
    # MuJoCo's product normalizes only when the norm is off by more than 1e-14 (keeps the child's last bits)
    quat = np.array(_qmul([float(v) for v in quat_parent], [float(v) for v in quat_child]))
    return pos, quat


def _q2m(q) -> list[float]:
    if q[0] == 1 and q[1] == 0 and q[2] == 0 and q[3] == 0:
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    q00, q01, q02, q03 = q[0] * q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3]
    q11, q12, q13 = q[1] * q[1], q[1] * q[2], q[1] * q[3]
    q22, q23, q33 = q[2] * q[2], q[2] * q[3], q[3] * q[3]
    return [q00 + q11 - q22 - q33, 2 * (q12 - q03), 2 * (q13 + q02),
            2 * (q12 + q03), q00 - q11 + q22 - q33, 2 * (q23 - q01),
            2 * (q13 - q02), 2 * (q23 + q01), q00 - q11 - q22 + q33]


def _mm(a, b) -> list[float]:
    return [a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c] for r in range(3) for c in range(3)]


def _norm4(q) -> list[float]:
    n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
    if n < MJ_EPS:
        return list(q)
    n = math.sqrt(n)
    return [v / n for v in q] if abs(n - 1) > MJ_EPS else list(q)


def _qmul(a, b) -> list[float]:
    return _norm4([a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]])


def eig3(full: np.ndarray, tol: float = 4e-15) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (decreasing) and frame quaternion of a symmetric 3x3 inertia.

    MuJoCo 4's compiler eigensolver (``mjuu_eig3``): Jacobi rotations accumulated as a quaternion,
    each rotation built from the tangent of its half angle, stopping once the largest off-diagonal
    entry is at most ``max(tol, 4e-15)`` times the largest entry of the matrix; then a sort by
    quaternion quarter-turns that swaps moments more than ``max(1e-12, tol)`` times that scale apart.
    The floating-point operations are ordered as in MuJoCo so that the principal frame (which is
    ill-conditioned for near-equal moments) comes out bit-identical. Body inertias use the default
    ``tol``; MuJoCo's mesh processing passes 1e-7.
    """
    mat = [float(v) for v in np.asarray(full, dtype=float).reshape(9)]
    scale = 0.0
    for v in mat:
        scale = max(abs(v), scale)
    stop = max(tol, 4e-15) * scale
    quat = [1.0, 0.0, 0.0, 0.0]
    eigval = [0.0, 0.0, 0.0]
    for _ in range(500):
        ev = _q2m(quat)
        evt = [ev[0], ev[3], ev[6], ev[1], ev[4], ev[7], ev[2], ev[5], ev[8]]
        d = _mm(_mm(evt, mat), ev)
        eigval = [d[0], d[4], d[8]]
        if abs(d[1]) > abs(d[2]) and abs(d[1]) > abs(d[5]):
            rk, ck, rotk = 0, 1, 2
        elif abs(d[2]) > abs(d[5]):
            rk, ck, rotk = 0, 2, 1
        else:
            rk, ck, rotk = 1, 2, 0
        off = d[3 * rk + ck]
        if abs(off) <= stop:
            break
        # 2x2 symmetric Schur rotation: t = tan(angle), th = tan(angle / 2)
        tau = (d[4 * ck] - d[4 * rk]) / (off + off)
        if tau >= 0:
            t = 1.0 / (tau + math.sqrt(tau * tau + 1.0))
        else:
            t = -1.0 / (math.sqrt(tau * tau + 1.0) - tau)
        th = t / (math.sqrt(t * t + 1.0) + 1.0)
        half_cos = 1.0 / math.sqrt(th * th + 1.0)
        step = [half_cos, 0.0, 0.0, 0.0]
        step[rotk + 1] = (th if rotk == 1 else -th) * half_cos
        quat = _norm4(_qmul(quat, step))
    swap = max(1e-12, tol) * scale
    for j in range(3):
        j1 = j % 2
        if eigval[j1] + swap < eigval[j1 + 1]:
            eigval[j1], eigval[j1 + 1] = eigval[j1 + 1], eigval[j1]
            turn = [0.707106781186548, 0.0, 0.0, 0.0]
            turn[(j1 + 2) % 3 + 1] = 0.707106781186548
            quat = _norm4(_qmul(quat, turn))
    return np.array(eigval), np.array(quat)


def global_inertia6(local, quat) -> list[float]:
    """Full inertia (xx, yy, zz, xy, xz, yz) of principal moments `local` in a frame rotated by `quat`."""
    m = _q2m([float(v) for v in quat])
    tmp = [m[0] * local[0], m[3] * local[0], m[6] * local[0],
           m[1] * local[1], m[4] * local[1], m[7] * local[1],
           m[2] * local[2], m[5] * local[2], m[8] * local[2]]
    return [m[0] * tmp[0] + m[1] * tmp[3] + m[2] * tmp[6],
            m[3] * tmp[1] + m[4] * tmp[4] + m[5] * tmp[7],
            m[6] * tmp[2] + m[7] * tmp[5] + m[8] * tmp[8],
            m[0] * tmp[1] + m[1] * tmp[4] + m[2] * tmp[7],
            m[0] * tmp[2] + m[1] * tmp[5] + m[2] * tmp[8],
            m[3] * tmp[2] + m[4] * tmp[5] + m[5] * tmp[8]]


def offcenter6(mass: float, v) -> list[float]:
    """Parallel-axis term (xx, yy, zz, xy, xz, yz) for a point mass at offset v."""
    return [mass * (v[1] * v[1] + v[2] * v[2]), mass * (v[0] * v[0] + v[2] * v[2]),
            mass * (v[0] * v[0] + v[1] * v[1]), -mass * v[0] * v[1], -mass * v[0] * v[2], -mass * v[1] * v[2]]


def full_from6(t) -> np.ndarray:
    """3x3 symmetric matrix from (xx, yy, zz, xy, xz, yz)."""
    return np.array([[t[0], t[3], t[4]], [t[3], t[1], t[5]], [t[4], t[5], t[2]]])


def global_inertia(diag, quat) -> np.ndarray:
    """Full 3x3 inertia R diag(I) Rᵀ of a principal inertia `diag` in a frame rotated by `quat`."""
    r = quat_to_mat(quat)
    return r @ np.diag(diag) @ r.T


def offcenter(mass: float, d) -> np.ndarray:
    """Parallel-axis term m (|d|² E − d dᵀ)."""
    d = np.asarray(d, dtype=float)
    return mass * (float(d @ d) * np.eye(3) - np.outer(d, d))
