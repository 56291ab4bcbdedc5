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


def check_finite_bodies(bodies: list[MjcfBody], geoms: list) -> None:
    """Raise a located MjcfError for a body whose pose, mass or inertia is not finite (MuJoCo compiles such a
    model and simulates NaN): at the geom whose non-finite size or pose gave it that mass, else at the body."""
    for i, b in enumerate(bodies[1:], start=1):
        values = np.concatenate([[b.mass], b.inertia, b.ipos, b.iquat, b.pos, b.quat]).astype(float)
        if np.all(np.isfinite(values)):
            continue
        label = f"body '{b.name}'" if b.name else f"body #{i}"
        for g in geoms:
            if g.body == i and not (np.all(np.isfinite(g.size)) and np.all(np.isfinite(g.pos))):
                raise error_at(g.where, f"geom size {np.asarray(g.size).tolist()} or position "
                                        f"{np.asarray(g.pos).tolist()} is not finite, which gives {label} a "
                                        "non-finite mass or inertia; give the geom finite dimensions")
        raise error_at(b.where, f"{label}: its pose, mass or inertia is not finite (mass {b.mass}, inertia "
                                f"{np.asarray(b.inertia).tolist()}, pos {np.asarray(b.pos).tolist()}); give it "
                                "finite values")


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
            if not np.all(np.isfinite(I_Wcm)):
                label = f"body '{b.name}'" if b.name else f"body #{i}"
                raise error_at(b.where, f"{label}: its rotational inertia about its center of mass is not finite "
                                        "(an inertial or geom position too far out, e.g. 1e308); give the body's "
                                        "mass distribution a physically meaningful extent")
            ok = float(np.linalg.eigvalsh(0.5 * (I_Wcm + I_Wcm.T))[0]) > MJ_MINVAL
        if not ok:
            label = f"body '{b.name}'" if b.name else f"body #{i}"
            raise error_at(b.where, f"{label}: mass and inertia of moving bodies must be larger than "
                                    f"mjMINVAL (the body and the bodies welded to it have mass {m:g} or a zero "
                                    "principal moment); give it an <inertial> or a geom with mass")


def check_mass_matrix(mass_matrix: np.ndarray, joints: list, bodies: list) -> None:
    """Raise a located MjcfError at the first joint whose degrees of freedom make the joint-space inertia at
    qpos0 singular (e.g. a repeated hinge with the same axis: MuJoCo warns "inertia matrix is too close to
    singular" and simulates garbage; the inverse weights of setconst cannot be computed)."""
    nv = mass_matrix.shape[0]
    if nv == 0:
        return
    if not np.all(np.isfinite(mass_matrix)):  # overflow: a body (or its inertia) too far from the origin
        dof = int(np.flatnonzero(~np.all(np.isfinite(mass_matrix), axis=1))[0])
        j = next(j for j in joints if j.dofadr <= dof < j.dofadr + (6 if j.type == "free" else 3 if j.type == "ball"
                                                                   else 1))
        b = bodies[j.body]
        label = f"body '{b.name}'" if b.name else f"body #{j.body}"
        raise error_at(b.where, f"{label}: the joint-space inertia at qpos0 is not finite; the body or its mass is too "
                                "far from the origin (e.g. at 1e308 m); give it a position within a physically "
                                "meaningful range")
    try:
        pivots = np.diag(np.linalg.cholesky(mass_matrix)) ** 2  # MuJoCo's LDL diagonal, in dof order
        small = np.flatnonzero(~(pivots > 1e-12 * np.diag(mass_matrix)))  # lost to round-off against its diagonal
        if small.size == 0:
            return
        bad = int(small[0])
    except np.linalg.LinAlgError:
        bad = nv - 1
        for k in range(1, nv + 1):  # the first leading block that is not positive definite ends at the culprit
            try:
                np.linalg.cholesky(mass_matrix[:k, :k])
            except np.linalg.LinAlgError:
                bad = k - 1
                break
    for i, j in enumerate(joints):
        if j.dofadr <= bad < j.dofadr + (6 if j.type == "free" else 3 if j.type == "ball" else 1):
            label = f"joint '{j.name}'" if j.name else f"joint #{i}"
            raise error_at(j.where, f"{label}: its degree of freedom {bad - j.dofadr} repeats motion that other "
                                    "joints of the tree already allow (the joint-space inertia at qpos0 is singular), "
                                    "e.g. a second joint with the same axis; remove it or give it armature")
    raise error_at(None, "the joint-space inertia at qpos0 is singular; check for repeated joints")
