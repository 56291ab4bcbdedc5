"""Joint reaction forces as Drake's MultibodyPlant::CalcReactionForces computes them: inverse dynamics at a state
(q, v) with the accelerations v̇ and the body spatial forces the dynamics applied (gravity, force elements, applied
inputs and contact), the joint's force on its child body C at Jc, expressed in Jc.

Only body spatial forces enter: generalized forces (actuation, damping, joint limits, PD) change the inverse
dynamics' residual τ, never the force a mobilizer transmits. A discrete plant reports the step that starts at (q, v)
(its contact forces and v̇ = (v⁺ − v)/h); a sampled one reports its last step's, at the state that step started from.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.dynamics import body_forces_at_origin, calc_inverse_dynamics
from ..kernels.kinematics import calc_accelerations
from .kinematics_cache import Kinematics
from ..tree._convert import make_spatial

__all__ = ["AddContactBodyForces", "AddContactInfoBodyForces", "CalcReactionForces", "ZeroReactionForces"]


@njit(cache=True)
def AddContactBodyForces(body, pos, frame, force, p_WB, F_Bo_W):
    """Add each contact's force to its bodies' F_Bo_W (nb × 6, [torque; force] at the body origin, in W): the
    contact-frame force[c] (rows of frame[c]: [normal, t1, t2]; force columns [fn, ft1, ft2, torques...]) acts on
    body[c, 1] at pos[c], its opposite on body[c, 0]."""
    for c in range(pos.shape[0]):
        f = np.zeros(3)
        t = np.zeros(3)
        for k in range(3):
            for i in range(3):
                f[i] += frame[c, k, i] * force[c, k]
                if force.shape[1] >= 6:
                    t[i] += frame[c, k, i] * force[c, 3 + k]
        for side in range(2):
            b = body[c, side]
            s = 1.0 if side == 1 else -1.0
            r = pos[c] - p_WB[b]
            F_Bo_W[b, 0] += s * (t[0] + r[1] * f[2] - r[2] * f[1])
            F_Bo_W[b, 1] += s * (t[1] + r[2] * f[0] - r[0] * f[2])
            F_Bo_W[b, 2] += s * (t[2] + r[0] * f[1] - r[1] * f[0])
            for i in range(3):
                F_Bo_W[b, 3 + i] += s * f[i]


def AddContactInfoBodyForces(infos: list, p_WB: np.ndarray, F_Bo_W: np.ndarray) -> None:
    """AddContactBodyForces for PointPairContactInfo values (force on B at the contact point, in W)."""
    n = len(infos)
    if not n:
        return
    body = np.array([[int(i.bodyA_index()), int(i.bodyB_index())] for i in infos], np.int64)
    pos = np.array([np.asarray(i.contact_point(), float) for i in infos])
    force = np.array([np.asarray(i.contact_force(), float) for i in infos])
    AddContactBodyForces(body, pos, np.broadcast_to(np.eye(3), (n, 3, 3)).copy(), force, p_WB, F_Bo_W)


def CalcReactionForces(plant, kin: Kinematics, vdot: np.ndarray, F_Bo_W: np.ndarray) -> list:
    """F_CJc_Jc (SpatialForce) of every joint of `plant`, in joint order: inverse dynamics at the kinematics `kin`
    with accelerations v̇ (nv) and the body forces F_Bo_W (nb × 6, at body origins, in W) the dynamics applied."""
    m = plant._model
    A = calc_accelerations(m.order, m.ji, kin.S, kin.c, np.ascontiguousarray(vdot, dtype=np.float64))
    F_O = body_forces_at_origin(kin.p_WB, np.ascontiguousarray(F_Bo_W, dtype=np.float64))
    _, f = calc_inverse_dynamics(m.order, m.ji, kin.S, kin.Iw, kin.V, A, F_O, np.zeros(m.nv), np.zeros(m.nv),
                                 np.zeros(m.nv))
    out = []
    for j in plant._joints:
        b = int(j._frame_on_child._body.index())
        Fc = j._frame_on_child
        R_WJc = kin.R_WB[b] @ Fc._R_BF
        p_WJc = kin.p_WB[b] + kin.R_WB[b] @ Fc._p_BF
        # the force the inboard body transmits to the outboard one's subtree, [torque about Wo; force], in W: on
        # the child body C, unless the tree reversed the joint (then C is inboard and feels the opposite force)
        fb = -f[j._mobilized_body] if j._reversed else f[b]
        tq = fb[:3] - np.cross(p_WJc, fb[3:])
        out.append(make_spatial("SpatialForce", np.concatenate([R_WJc.T @ tq, R_WJc.T @ fb[3:]])))
    return out


def ZeroReactionForces(plant) -> list:
    """A sampled plant's reaction forces before its first step (Drake reports zeros)."""
    return [make_spatial("SpatialForce", np.zeros(6)) for _ in plant._joints]
