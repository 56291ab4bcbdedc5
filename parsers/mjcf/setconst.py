"""Model constants MuJoCo derives from the reference configuration (its mj_setConst step).

Forward kinematics at a given qpos, the inverse inertia weights used by the constraint solver's
regularizer (dof_invweight0, body_invweight0, tendon_invweight0), joint `springdamper`, tendon
lengths at qpos0 / qpos_spring, and the equality data (eq_data) that MuJoCo fills in at qpos0.
"""
from __future__ import annotations

import numpy as np

from .model import MjcfBody, MjcfEquality, MjcfJoint, MjcfSite, MjcfTendon
from .reference_inertia import ancestor_matrix, dof_axes
from .rotations import axis_angle_quat, quat_conj, quat_mul, quat_normalize, quat_to_mat

MINVAL = 1e-15


def forward_kinematics(bodies: list[MjcfBody], joints: list[MjcfJoint], qpos: np.ndarray, qpos0: np.ndarray):
    """World body frames (xpos (n,3), xquat (n,4)) at configuration qpos, as MuJoCo's mj_kinematics."""
    n = len(bodies)
    xpos = np.zeros((n, 3))
    xquat = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
    by_body: dict[int, list[MjcfJoint]] = {}
    for j in joints:
        by_body.setdefault(j.body, []).append(j)
    for i in range(1, n):
        b = bodies[i]
        p = b.parent
        pos = xpos[p] + quat_to_mat(xquat[p]) @ b.pos
        quat = quat_normalize(quat_mul(xquat[p], b.quat))
        for j in by_body.get(i, []):
            a = j.qposadr
            if j.type == "free":
                pos, quat = qpos[a:a + 3].copy(), quat_normalize(qpos[a + 3:a + 7])
                continue
            anchor = pos + quat_to_mat(quat) @ j.pos
            if j.type == "slide":
                pos = pos + quat_to_mat(quat) @ j.axis * (qpos[a] - qpos0[a])
                continue
            rot = quat_normalize(qpos[a:a + 4]) if j.type == "ball" else axis_angle_quat(j.axis, qpos[a] - qpos0[a])
            quat = quat_normalize(quat_mul(quat, rot))
            pos = anchor - quat_to_mat(quat) @ j.pos
        xpos[i], xquat[i] = pos, quat
    return xpos, xquat


def site_positions(sites: list[MjcfSite], xpos, xquat) -> np.ndarray:
    """World positions of all sites for the given body frames."""
    return np.array([xpos[s.body] + quat_to_mat(xquat[s.body]) @ s.pos for s in sites]).reshape(-1, 3)


def tendon_length(t: MjcfTendon, qpos: np.ndarray, joints, site_pos, geoms=None, sites=None, xpos=None,
                  xquat=None) -> float | None:
    """Length of a fixed tendon, or of a spatial tendon; one that wraps geoms needs `geoms`, `sites` and the body
    frames (xpos, xquat) at qpos (None without them)."""
    if t.kind == "fixed":
        return float(sum(w.prm * qpos[joints[w.objid].qposadr] for w in t.wraps))
    if any(w.type == "geom" for w in t.wraps):
        if geoms is None or xpos is None:
            return None
        from .tendon_wrap import spatial_path
        xmat = np.array([quat_to_mat(q) for q in xquat]).reshape(-1, 3, 3)
        return spatial_path(t, sites, geoms, xpos, xmat)[0]
    total, divisor, prev = 0.0, 1.0, None
    for w in t.wraps:
        if w.type == "pulley":
            divisor, prev = w.prm, None
            continue
        p = site_pos[w.objid]
        if prev is not None:
            total += float(np.linalg.norm(p - prev)) / divisor
        prev = p
    return total


def body_simple(bodies: list[MjcfBody], joints: list[MjcfJoint], tendons: list[MjcfTendon], sites, geoms) -> list[int]:
    """MuJoCo's body_simple flag: 2 = free-floating slider-only body, 1 = simple, 0 = general."""
    def null_pose(pos, quat=None) -> bool:
        ok = np.allclose(pos, 0, atol=1e-14, rtol=0)
        return ok and (quat is None or np.allclose(quat, [1, 0, 0, 0], atol=1e-14, rtol=0))

    n = len(bodies)
    simple = [0] * n
    for i in range(n):
        b = bodies[i]
        par = b.parent
        root_self = i == 0 or par == 0
        fixed_child = par > 0 and bodies[par].parent == 0 and bodies[par].dofnum == 0
        simple[i] = int(null_pose(b.ipos, b.iquat) and (root_self or fixed_child))
    for i in range(1, n):
        if bodies[i].parent != 0:  # a parent body is never simple, except the world
            simple[bodies[i].parent] = 0
    by_body: dict[int, list[MjcfJoint]] = {}
    for j in joints:
        by_body.setdefault(j.body, []).append(j)
    for i in range(1, n):
        if not simple[i]:
            continue
        rot = False
        for j in by_body.get(i, []):
            aligned = int(np.sum(np.abs(j.axis) > 1e-14)) == 1
            if rot or not null_pose(j.pos) or (j.type in ("hinge", "slide") and not aligned):
                simple[i] = 0
                break
            rot = rot or j.type in ("ball", "hinge")
        if simple[i] and bodies[i].dofnum > 0:
            simple[i] = 2 if all(j.type == "slide" for j in by_body.get(i, [])) else 1
    for t in tendons:
        if t.armature > 0:
            for w in t.wraps:
                if w.type == "site":
                    simple[sites[w.objid].body] = 0
                elif w.type == "geom":
                    simple[geoms[w.objid].body] = 0
    return simple


def _block_inverse(mass_matrix: np.ndarray, dof_root: np.ndarray) -> np.ndarray:
    """Inverse of a joint-space inertia that is block diagonal over kinematic trees."""
    minv = np.zeros_like(mass_matrix)
    for root in np.unique(dof_root):
        idx = np.nonzero(dof_root == root)[0]
        minv[np.ix_(idx, idx)] = np.linalg.inv(mass_matrix[np.ix_(idx, idx)])
    return minv


def invweights(bodies, joints, mass_matrix: np.ndarray, simple: list[int], poses: tuple | None = None,
               axes: tuple | None = None):
    """(dof_invweight0 (nv,), body_invweight0 (nbody, 2)) from the inverse inertia at qpos0.

    `poses`, `axes`: body_world_poses(bodies) and dof_axes(bodies, joints) when the caller has them."""
    s, dof_body = axes if axes is not None else dof_axes(bodies, joints)
    nv = mass_matrix.shape[0]
    dof_root = np.array([bodies[int(b)].rootid for b in dof_body], dtype=int)
    minv = _block_inverse(mass_matrix, dof_root) if nv else np.zeros((0, 0))
    dof = np.zeros(nv)
    for j in joints:
        a = j.dofadr
        if simple[j.body] == 2:
            dof[a] = 1 / max(MINVAL, bodies[j.body].mass)
            continue
        if j.type == "free":
            dof[a:a + 3] = np.trace(minv[a:a + 3, a:a + 3]) / 3
            dof[a + 3:a + 6] = np.trace(minv[a + 3:a + 6, a + 3:a + 6]) / 3
        elif j.type == "ball":
            dof[a:a + 3] = np.trace(minv[a:a + 3, a:a + 3]) / 3
        else:
            dof[a] = minv[a, a]
    from .bodies import body_world_poses

    xpos, xmat = poses if poses is not None else body_world_poses(bodies)
    anc = ancestor_matrix(bodies)
    body = np.zeros((len(bodies), 2))
    for i in range(1, len(bodies)):
        b = bodies[i]
        if bodies[b.weldid].dofnum == 0:
            continue
        if simple[i] == 2:
            body[i] = (1 / max(MINVAL, b.mass), 0.0)
            continue
        ks = np.nonzero(anc[i, dof_body])[0]
        com = xpos[i] + xmat[i] @ b.ipos
        jac = np.zeros((6, len(ks)))
        jac[:3] = (s[ks, 3:] + np.cross(s[ks, :3], com)).T
        jac[3:] = s[ks, :3].T
        a = jac @ minv[np.ix_(ks, ks)] @ jac.T
        body[i] = (np.trace(a[:3, :3]) / 3, np.trace(a[3:, 3:]) / 3)
    return dof, body


def apply_springdamper(joints: list[MjcfJoint], dof_invweight0: np.ndarray) -> None:
    """Joint springdamper (timeconst, dampratio) > 0: set stiffness and damping from the joint inertia."""
    for j in joints:
        tc, dr = j.springdamper
        if tc <= 0 or dr <= 0:
            continue
        nd = {"free": 6, "ball": 3}.get(j.type, 1)
        inertia = nd / max(MINVAL, float(np.sum(dof_invweight0[j.dofadr:j.dofadr + nd])))
        j.stiffness = inertia / max(MINVAL, tc * tc * dr * dr)
        j.damping = 2 * inertia / max(MINVAL, tc)


def equality_data(eq: MjcfEquality, xpos, xquat) -> np.ndarray:
    """mjModel.eq_data (11 numbers) of one equality: the parsed data completed at qpos0 as MuJoCo does."""
    data = eq.data.copy()
    if eq.type == "connect":
        if eq.objtype == "site":
            return np.zeros(11)
        p = xpos[eq.obj1] + quat_to_mat(xquat[eq.obj1]) @ data[:3]
        data[3:6] = quat_to_mat(xquat[eq.obj2]).T @ (p - xpos[eq.obj2])
    elif eq.type == "weld" and eq.objtype == "body":
        if np.any(data[6:10] != 0):
            data[6:10] = quat_normalize(data[6:10])
            return data
        p = xpos[eq.obj2] + quat_to_mat(xquat[eq.obj2]) @ data[:3]
        data[3:6] = quat_to_mat(xquat[eq.obj1]).T @ (p - xpos[eq.obj1])
        data[6:10] = quat_mul(quat_conj(xquat[eq.obj1]), xquat[eq.obj2])
    return data
