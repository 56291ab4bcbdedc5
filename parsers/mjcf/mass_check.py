"""MuJoCo's compile-time check that every moving body can be accelerated: the body with its welded descendants
(children attached without joints) needs mass and all three principal moments above mjMINVAL. Without it a
massless jointed body makes the joint-space inertia singular (a bare LinAlgError deep in the compiler)."""
from __future__ import annotations

import numpy as np

from .bodies import body_world_poses
from .errors import error_at
from .model import MjcfBody
from .rotations import quat_to_mat

MJ_MINVAL = 1e-15  #: MuJoCo's mjMINVAL


def check_moving_bodies(bodies: list[MjcfBody]) -> None:
    """Raise a located MjcfError, as MuJoCo does, for a jointed body whose welded group is massless or has a zero
    principal moment of inertia (e.g. a point mass on a hinge)."""
    xpos, xmat = body_world_poses(bodies)
    mass = np.zeros(len(bodies))
    first = np.zeros((len(bodies), 3))  # Σ m p_WBcm
    second = np.zeros((len(bodies), 3, 3))  # Σ R I Rᵀ + m((p·p)E − p pᵀ): inertia about Wo
    for i, b in enumerate(bodies[1:], start=1):
        w = b.weldid
        R = xmat[i] @ quat_to_mat(b.iquat)
        p = xpos[i] + xmat[i] @ np.asarray(b.ipos, float) - xpos[w]  # about the weld body's origin
        mass[w] += b.mass
        first[w] += b.mass * p
        second[w] += R @ np.diag(np.asarray(b.inertia, float)) @ R.T - b.mass * (np.outer(p, p) - (p @ p) * np.eye(3))
    for i, b in enumerate(bodies[1:], start=1):
        if b.jntnum == 0 or b.weldid != i:
            continue
        m = mass[i]
        ok = m > MJ_MINVAL
        if ok:
            c = first[i] / m
            I_Wcm = second[i] + m * (np.outer(c, c) - (c @ c) * np.eye(3))  # parallel-axis shift to the COM
            ok = float(np.linalg.eigvalsh(0.5 * (I_Wcm + I_Wcm.T))[0]) > MJ_MINVAL
        if not ok:
            label = f"body '{b.name}'" if b.name else f"body #{i}"
            raise error_at(b.where, f"{label}: mass and inertia of moving bodies must be larger than "
                                    f"mjMINVAL (the body and the bodies welded to it have mass {m:g} or a zero "
                                    "principal moment); give it an <inertial> or a geom with mass")
