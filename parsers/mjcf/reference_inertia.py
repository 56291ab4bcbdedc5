"""Joint-space inertia diagonal at qpos0 (MuJoCo's dof_M0), used for actuator `dampratio`.

At qpos0 every joint transform is the identity, so body world poses are the composition of the
compiled body poses. Each dof's diagonal entry is sᵀ I_c s + armature, where s is the dof's
spatial motion axis and I_c the composite spatial inertia of the subtree it moves (both about the
world origin, world frame, [angular; linear]).
"""
from __future__ import annotations

import numpy as np

from .bodies import body_world_poses
from .model import MjcfBody, MjcfJoint
from .rotations import quat_to_mat


def _skew(v) -> np.ndarray:
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def cross3(a, b) -> np.ndarray:
    """Cross product of two 3-vectors (much cheaper than np.cross for single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def ancestor_matrix(bodies: list[MjcfBody]) -> np.ndarray:
    """Boolean (n, n): [b, a] is True when body a is b or one of its ancestors (world excluded)."""
    n = len(bodies)
    out = np.zeros((n, n), dtype=bool)
    for b in range(1, n):
        out[b] = out[bodies[b].parent]
        out[b, b] = True
    return out


def dof_axes(bodies: list[MjcfBody], joints: list[MjcfJoint], poses: tuple | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """Spatial motion axes S (nv, 6) about the world origin and the body of each dof (nv,).

    `poses`: body_world_poses(bodies) when the caller already has them."""
    xpos, xmat = poses if poses is not None else body_world_poses(bodies)
    nv = sum(6 if j.type == "free" else 3 if j.type == "ball" else 1 for j in joints)
    rows = np.zeros((nv, 6))
    dof_body = np.zeros(nv, dtype=int)
    k = 0
    for j in joints:
        b = j.body
        anchor = xpos[b] + xmat[b] @ j.pos
        if j.type in ("hinge", "slide"):
            a = xmat[b] @ j.axis
            if j.type == "hinge":
                rows[k, :3] = a
                rows[k, 3:] = cross3(anchor, a)
            else:
                rows[k, 3:] = a
            dof_body[k] = b
            k += 1
            continue
        if j.type == "free":
            for i in range(3):
                rows[k, 3 + i] = 1.0
                dof_body[k] = b
                k += 1
            anchor = xpos[b]
        for i in range(3):
            a = xmat[b][:, i]
            rows[k, :3] = a
            rows[k, 3:] = cross3(anchor, a)
            dof_body[k] = b
            k += 1
    return rows, dof_body


def composite_inertias(bodies: list[MjcfBody], poses: tuple | None = None) -> np.ndarray:
    """Composite spatial inertia (6x6 about the world origin, world frame) of each body's subtree."""
    xpos, xmat = poses if poses is not None else body_world_poses(bodies)
    n = len(bodies)
    out = np.zeros((n, 6, 6))
    for i in range(1, n):
        b = bodies[i]
        rot = xmat[i] @ quat_to_mat(b.iquat)
        com = xpos[i] + xmat[i] @ b.ipos
        ic = rot @ np.diag(b.inertia) @ rot.T
        c = _skew(com)
        out[i, :3, :3] = ic + b.mass * c @ c.T
        out[i, :3, 3:] = b.mass * c
        out[i, 3:, :3] = b.mass * c.T
        out[i, 3:, 3:] = b.mass * np.eye(3)
    for i in range(n - 1, 0, -1):
        out[bodies[i].parent] += out[i]
    return out


def ancestors(bodies: list[MjcfBody], b: int) -> set[int]:
    """Body b and its ancestors, world excluded."""
    out = set()
    while b > 0:
        out.add(b)
        b = bodies[b].parent
    return out


def tree_pattern(bodies: list[MjcfBody], joints: list[MjcfJoint], axes: tuple | None = None) -> np.ndarray:
    """(nv, nv) 0/1 mask of joint-space entries that can be non-zero: dofs on one root-to-leaf chain.

    `axes`: dof_axes(bodies, joints) when the caller already has them."""
    _, dof_body = axes if axes is not None else dof_axes(bodies, joints)
    anc = ancestor_matrix(bodies)[np.ix_(dof_body, dof_body)]
    return (anc | anc.T).astype(float)


def mass_matrix0(bodies: list[MjcfBody], joints: list[MjcfJoint], axes: tuple | None = None,
                 comp: np.ndarray | None = None) -> np.ndarray:
    """Full joint-space inertia matrix at qpos0 (nv x nv), armature on the diagonal.

    `axes`, `comp`: dof_axes(bodies, joints) and composite_inertias(bodies) when the caller has them."""
    s, dof_body = axes if axes is not None else dof_axes(bodies, joints)
    comp = comp if comp is not None else composite_inertias(bodies)
    anc = ancestor_matrix(bodies)
    nv = len(s)
    m = np.zeros((nv, nv))
    for i in range(nv):
        bi = int(dof_body[i])
        ks = np.nonzero(anc[bi, dof_body])[0]  # dofs of bi and its ancestors
        row = s[ks] @ (comp[bi] @ s[i])
        m[i, ks] = row
        m[ks, i] = row
    arm = []
    for j in joints:
        arm += [j.armature] * {"free": 6, "ball": 3}.get(j.type, 1)
    return m + np.diag(arm) if arm else m


def dof_m0(bodies: list[MjcfBody], joints: list[MjcfJoint], axes: tuple | None = None,
           comp: np.ndarray | None = None) -> np.ndarray:
    """Diagonal of the joint-space inertia matrix at qpos0, including joint armature.

    `axes`, `comp`: dof_axes(bodies, joints) and composite_inertias(bodies) when the caller has them."""
    s, dof_body = axes if axes is not None else dof_axes(bodies, joints)
    comp = comp if comp is not None else composite_inertias(bodies)
    arm = []
    for j in joints:
        arm += [j.armature] * {"free": 6, "ball": 3}.get(j.type, 1)
    diag = np.array([s[k] @ comp[dof_body[k]] @ s[k] for k in range(len(s))])
    return diag + np.array(arm) if len(arm) else diag
