"""Compiled kernels of the plant's contact pipeline: contact-frame Jacobians, MuJoCo's inverse weights
(setConst's body_invweight0 / dof_invweight0) and MuJoCo's position integration (exact quaternion
exponential map for quaternion joints)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .joint_kernels import BALL_QUATERNION, QUATERNION_FLOATING
from .pipeline import map_velocity_to_qdot

_QUAT_JOINTS = (QUATERNION_FLOATING, BALL_QUATERNION)


@njit(cache=True, _nrt=False)
def _add_point_jacobian(ji, S, body, p, sign, Jw, Jv):
    """Jw/Jv (3, nv) += sign * [w; v] Jacobian of the point of `body` at p_W (S Plücker at Wo)."""
    a = body
    while a > 0:
        vs = ji[a, 4]
        for j in range(ji[a, 5]):
            col = vs + j
            w0, w1, w2 = S[col, 0], S[col, 1], S[col, 2]
            Jw[0, col] += sign * w0
            Jw[1, col] += sign * w1
            Jw[2, col] += sign * w2
            Jv[0, col] += sign * (S[col, 3] + w1 * p[2] - w2 * p[1])
            Jv[1, col] += sign * (S[col, 4] + w2 * p[0] - w0 * p[2])
            Jv[2, col] += sign * (S[col, 5] + w0 * p[1] - w1 * p[0])
        a = ji[a, 0]


@njit(cache=True, _nrt=False)
def _chain_insert(buf, k0, k, body, ji):
    """Insert the dofs of `body`'s chain to the root into the ascending, repeat-free buf[k0:k]; returns the new k."""
    a = body
    while a > 0:
        vs = ji[a, 4]
        for j in range(ji[a, 5]):
            x = vs + j
            p = k
            while p > k0 and buf[p - 1] > x:
                p -= 1
            if p > k0 and buf[p - 1] == x:
                continue
            for r in range(k, p, -1):
                buf[r] = buf[r - 1]
            buf[p] = x
            k += 1
        a = ji[a, 0]
    return k


@njit(cache=True)
def ContactChains(ji, body_A, body_B):
    """(chain, adr): each contact's dofs chain[adr[c]:adr[c + 1]], ascending without repeats, the union of its two
    bodies' chains to the root (MuJoCo's merged chain). A contact's Jacobian is zero outside them."""
    n = body_A.shape[0]
    total = 0
    for c in range(n):
        for b in (body_A[c], body_B[c]):
            a = b
            while a > 0:
                total += ji[a, 5]
                a = ji[a, 0]
    buf = np.empty(total, np.int64)
    adr = np.empty(n + 1, np.int64)
    k = 0
    for c in range(n):
        adr[c] = k
        k = _chain_insert(buf, adr[c], k, body_A[c], ji)
        k = _chain_insert(buf, adr[c], k, body_B[c], ji)
    adr[n] = k
    return buf[:k].copy(), adr


@njit(cache=True)
def ContactJacobians(ji, S, body_A, body_B, pos_W, frame_W, rotational=True):
    """J_contact (ncon, 6, nv): rows [normal, t1, t2, spin, roll1, roll2] of V_B - V_A at each contact
    point, in the contact frame (frame_W[c] rows = normal from A to B, tangents); (ncon, 3, nv), the
    translational rows only, when `rotational` is False (every contact has condim <= 3). Only the columns of the
    two bodies' chains (ContactChains) are computed: the others are zero."""
    ncon = pos_W.shape[0]
    nv = S.shape[0]
    nr = 6 if rotational else 3
    out = np.zeros((ncon, nr, nv))
    chain, adr = ContactChains(ji, body_A, body_B)
    ContactJacobiansInto(ji, S, body_A, body_B, pos_W, frame_W, rotational, chain, adr, out)
    return out


@njit(cache=True)
def ContactJacobiansInto(ji, S, body_A, body_B, pos_W, frame_W, rotational, chain, adr, out):
    """ContactJacobians into `out` (ncon, 6 or 3, nv), writing only the columns of each contact's chain
    chain[adr[c]:adr[c + 1]] (ContactChains): its other entries must be zero already (efc_rows.contact_jacobians
    keeps them so)."""
    ncon = pos_W.shape[0]
    nv = S.shape[0]
    Jw = np.zeros((3, nv))
    Jv = np.zeros((3, nv))
    for c in range(ncon):
        _add_point_jacobian(ji, S, body_B[c], pos_W[c], 1.0, Jw, Jv)
        _add_point_jacobian(ji, S, body_A[c], pos_W[c], -1.0, Jw, Jv)
        F = frame_W[c]
        for p in range(adr[c], adr[c + 1]):
            q = chain[p]
            for r in range(3):
                out[c, r, q] = F[r, 0] * Jv[0, q] + F[r, 1] * Jv[1, q] + F[r, 2] * Jv[2, q]
                if rotational:
                    out[c, 3 + r, q] = F[r, 0] * Jw[0, q] + F[r, 1] * Jw[1, q] + F[r, 2] * Jw[2, q]
            for r in range(3):
                Jw[r, q] = 0.0
                Jv[r, q] = 0.0


@njit(cache=True)
def PointJacobians(ji, S, body, p_W):
    """(3, nv) translational and (3, nv) rotational Jacobians of the point p_W of `body`, in W."""
    nv = S.shape[0]
    Jw = np.zeros((3, nv))
    Jv = np.zeros((3, nv))
    _add_point_jacobian(ji, S, body, p_W, 1.0, Jw, Jv)
    return Jv, Jw


def InverseWeights(ji, S, M, p_WBcm, dof_groups, minval: float = 1e-15):
    """MuJoCo's setConst inverse weights at the reference configuration.

    body_invweight0 (nb, 2): mean diagonal of the translational / rotational blocks of J M^-1 J' with J the
    body's Jacobian at its center of mass (0 for the world); dof_invweight0 (nv,): M^-1 diagonal averaged
    over each group in `dof_groups` (a free joint's 3 rotational and 3 translational dofs, a ball's 3).
    """
    nb = p_WBcm.shape[0]
    nv = M.shape[0]
    try:
        Minv = np.linalg.inv(M) if nv else np.zeros((0, 0))
    except np.linalg.LinAlgError:  # a massless body on a joint: Drake accepts it at Finalize, fails when stepping
        Minv = np.linalg.pinv(M)
    body = np.zeros((nb, 2))
    for b in range(1, nb):
        Jv, Jw = PointJacobians(ji, S, b, p_WBcm[b])
        if not np.any(Jv) and not np.any(Jw):
            continue
        idx = np.flatnonzero(np.any(Jv, axis=0) | np.any(Jw, axis=0))  # the body's ancestor dofs: J is zero elsewhere
        Mi = Minv[np.ix_(idx, idx)]
        A_v = np.einsum("in,nm,im->i", Jv[:, idx], Mi, Jv[:, idx])
        A_w = np.einsum("in,nm,im->i", Jw[:, idx], Mi, Jw[:, idx])
        body[b, 0] = max(minval, A_v.mean())
        body[b, 1] = max(minval, A_w.mean())
    dof = np.diag(Minv).copy()
    for grp in dof_groups:
        dof[grp] = dof[grp].mean()
    return body, dof


@njit(cache=True)
def IntegratePositions(order, ji, q, v, h, qdot_other):
    """q + h*qdot, with quaternion joints ([qw, qx, qy, qz] first, angular velocity w in the parent frame
    first in v) advanced by the exact rotation exp(h w) and renormalized, as MuJoCo's mj_integratePos.
    `qdot_other` holds N(q) v for all other joints."""
    out = q + h * qdot_other
    for k in range(order.shape[0]):
        b = order[k]
        jt = ji[b, 1]
        if jt != QUATERNION_FLOATING and jt != BALL_QUATERNION:
            continue
        qs = ji[b, 2]
        vs = ji[b, 4]
        wx, wy, wz = v[vs], v[vs + 1], v[vs + 2]
        qw, qx, qy, qz = q[qs], q[qs + 1], q[qs + 2], q[qs + 3]
        nrm = np.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
        qw, qx, qy, qz = qw / nrm, qx / nrm, qy / nrm, qz / nrm
        speed = np.sqrt(wx * wx + wy * wy + wz * wz)
        if speed > 1e-300:
            half = 0.5 * speed * h
            s = np.sin(half) / speed
            rw, rx, ry, rz = np.cos(half), wx * s, wy * s, wz * s
            # r (x) q: rotation in the parent frame applied after q
            nw = rw * qw - rx * qx - ry * qy - rz * qz
            nx = rw * qx + rx * qw + ry * qz - rz * qy
            ny = rw * qy - rx * qz + ry * qw + rz * qx
            nz = rw * qz + rx * qy - ry * qx + rz * qw
            qw, qx, qy, qz = nw, nx, ny, nz
            nrm = np.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
            qw, qx, qy, qz = qw / nrm, qx / nrm, qy / nrm, qz / nrm
        out[qs], out[qs + 1], out[qs + 2], out[qs + 3] = qw, qx, qy, qz
        if jt == QUATERNION_FLOATING:
            for i in range(3):
                out[qs + 4 + i] = q[qs + 4 + i] + h * v[vs + 3 + i]
    return out


@njit(cache=True)
def MujocoContactArrays(i1, i2, body, is_mujoco, known, slot_table, slot_ok, cd_s, fr_s, ref_s, imp_s, mar_s, ji, S,
                        pos_W, frame_W):
    """The per-contact arrays of a step whose contacts are all MuJoCo pairs seen (and validated) before, in one
    call: from the proximity rows i1, i2 and the geometry table's per-row body / is-MuJoCo arrays and per-pair
    parameter slots (slot_table[i1, i2]; slot_ok: validated), the bodies, condim, friction (5), solref, solimp,
    includemargin and contact Jacobians (ContactJacobians; 6 rows if some condim > 3).
    Returns (ok, body_A, body_B, condim, friction, solref, solimp, includemargin, J); ok False (and empty
    arrays) when some contact is not such a pair: the caller takes its general path."""
    n = i1.shape[0]
    nt = slot_table.shape[0]
    nk = known.shape[0]
    slots = np.empty(n, np.int64)
    rotational = False
    ok = True
    for c in range(n):
        a, b = i1[c], i2[c]
        if a >= nk or b >= nk or a >= nt or b >= nt or not (known[a] and known[b]) or \
                not (is_mujoco[a] or is_mujoco[b]):
            ok = False
            break
        s = slot_table[a, b]
        if s < 0 or s >= slot_ok.shape[0] or s >= cd_s.shape[0] or not slot_ok[s]:
            ok = False
            break
        slots[c] = s
        if cd_s[s] > 3:
            rotational = True
    if not ok:
        n = 0
    bA = np.empty(n, np.int64)
    bB = np.empty(n, np.int64)
    cd = np.empty(n, np.int64)
    fr = np.empty((n, 5))
    ref = np.empty((n, 2))
    imp = np.empty((n, 5))
    mar = np.empty(n)
    for c in range(n):
        s = slots[c]
        bA[c], bB[c], cd[c], mar[c] = body[i1[c]], body[i2[c]], cd_s[s], mar_s[s]
        for k in range(5):
            fr[c, k] = fr_s[s, k]
            imp[c, k] = imp_s[s, k]
        ref[c, 0], ref[c, 1] = ref_s[s, 0], ref_s[s, 1]
    J = ContactJacobians(ji, S, bA, bB, pos_W[:n], frame_W[:n], rotational)
    return ok, bA, bB, cd, fr, ref, imp, mar, J


@njit(cache=True)
def NextState(order, ji, q, v, a, h, mujoco):
    """x⁺ = [q⁺; v⁺] of the constrained discrete step: v⁺ = v + h a, then q⁺ by MuJoCo's integration
    (IntegratePositions, mujoco=True) or Drake's q + h N(q) v⁺."""
    x = np.empty(q.shape[0] + v.shape[0])
    next_state_into(order, ji, q, v, a, h, mujoco, x)
    return x


@njit(cache=True)
def next_state_into(order, ji, q, v, a, h, mujoco, x):
    """NextState written into x[:nq + nv] (v⁺ first, in place; Drake's q⁺ without temporaries but q̇)."""
    nq = q.shape[0]
    nv = v.shape[0]
    v_next = x[nq:nq + nv]
    for i in range(nv):
        v_next[i] = v[i] + h * a[i]
    qdot = map_velocity_to_qdot(order, ji, q, v_next)
    if mujoco:
        x[:nq] = IntegratePositions(order, ji, q, v_next, h, qdot)
    else:
        for i in range(nq):
            x[i] = q[i] + h * qdot[i]
