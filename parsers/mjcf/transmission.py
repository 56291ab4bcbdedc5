"""Actuator moment arms at qpos0 (joint, fixed tendon, site and site+refsite transmissions).

Used at compile time only, for `dampratio`: MuJoCo converts a damping ratio into damping with
the transmission's effective inertia 1 / (m M⁻¹ mᵀ) at qpos0, m being the moment row.
"""
from __future__ import annotations

import numpy as np

from .bodies import body_world_poses
from .model import JOINT_NV, MjcfActuator, MjcfBody, MjcfJoint, MjcfSite, MjcfTendon
from .reference_inertia import ancestors, dof_axes
from .rotations import quat_to_mat


def _site_jac(bodies, sites, sid, s, dof_body, xpos, xmat):
    site = sites[sid]
    anc = ancestors(bodies, site.body)
    p = xpos[site.body] + xmat[site.body] @ site.pos
    rot = xmat[site.body] @ quat_to_mat(site.quat)
    jp = np.zeros((3, len(s)))
    jr = np.zeros((3, len(s)))
    for k in range(len(s)):
        if int(dof_body[k]) in anc:
            jr[:, k] = s[k, :3]
            jp[:, k] = s[k, 3:] + np.cross(s[k, :3], p)
    return jp, jr, rot, anc


def tendon_jacobian0(t: MjcfTendon, bodies: list[MjcfBody], joints: list[MjcfJoint], sites: list[MjcfSite],
                     geoms: list | None = None, poses: tuple | None = None, axes: tuple | None = None
                     ) -> np.ndarray | None:
    """d length / d qvel (nv,) of a tendon at qpos0; None for a tendon that wraps geoms when `geoms` is not given.

    `poses`, `axes`: body_world_poses(bodies) and dof_axes(bodies, joints) when the caller has them."""
    s, dof_body = axes if axes is not None else dof_axes(bodies, joints, poses)
    row = np.zeros(len(s))
    if t.kind == "fixed":
        for w in t.wraps:
            row[joints[w.objid].dofadr] += w.prm
        return row
    if any(w.type == "geom" for w in t.wraps) and geoms is None:
        return None
    from .tendon_wrap import spatial_path
    xpos, xmat = poses if poses is not None else body_world_poses(bodies)
    for pa, ba, pb, bb, divisor in spatial_path(t, sites, geoms or [], xpos, xmat)[1]:
        d = pb - pa
        n = float(np.linalg.norm(d))
        u = d / n if n >= 1e-15 else np.array([1.0, 0.0, 0.0])
        row += u @ (_point_jac(bodies, bb, pb, s, dof_body) - _point_jac(bodies, ba, pa, s, dof_body)) / divisor
    return row


def _point_jac(bodies, body: int, p: np.ndarray, s: np.ndarray, dof_body) -> np.ndarray:
    """Translational Jacobian (3, nv) of the world point p moving with `body` (s: dof axes Plücker at the origin)."""
    anc = ancestors(bodies, body)
    jp = np.zeros((3, len(s)))
    for k in range(len(s)):
        if int(dof_body[k]) in anc:
            jp[:, k] = s[k, 3:] + np.cross(s[k, :3], p)
    return jp


def actuator_moment0(act: MjcfActuator, bodies: list[MjcfBody], joints: list[MjcfJoint],
                     tendons: list[MjcfTendon], sites: list[MjcfSite]) -> np.ndarray | None:
    """Moment row (nv,) of an actuator at qpos0, or None for transmissions not handled here."""
    tid, tid2 = act.trnid
    g = act.gear
    if act.trntype in ("joint", "jointinparent"):  # no dof axes needed: one gear entry
        j = joints[tid]
        if j.type in ("hinge", "slide"):
            row = np.zeros(sum(JOINT_NV[jj.type] for jj in joints))
            row[j.dofadr] = g[0]
            return row
        return None
    if act.trntype == "tendon":
        jac = tendons[tid].jacobian0  # computed before (with wrapping geoms) by the compiler's constants
        if jac is None:
            jac = tendon_jacobian0(tendons[tid], bodies, joints, sites)
        return None if jac is None else jac * g[0]
    if act.trntype == "site":
        s, dof_body = dof_axes(bodies, joints)
        nv = len(s)
        row = np.zeros(nv)
        xpos, xmat = body_world_poses(bodies)
        jp, jr, rot, anc = _site_jac(bodies, sites, tid, s, dof_body, xpos, xmat)
        if tid2 < 0:
            return jp.T @ (rot @ g[:3]) + jr.T @ (rot @ g[3:])
        jp2, jr2, rot2, anc2 = _site_jac(bodies, sites, tid2, s, dof_body, xpos, xmat)
        common = [k for k in range(nv) if int(dof_body[k]) in anc and int(dof_body[k]) in anc2]
        dp, dr = jp - jp2, jr - jr2
        dp[:, common] = 0
        dr[:, common] = 0
        if np.any(g[:3]):
            row += dp.T @ (rot2 @ g[:3])
        if np.any(g[3:]):
            row += dr.T @ (rot2 @ g[3:])
        return row
    return None
