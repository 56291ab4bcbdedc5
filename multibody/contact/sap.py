"""Drake point-contact materials on the discrete soft-constraint solver (SAP's parameterization).

SAP (Castro et al. 2022) regularizes a compliant contact of stiffness k (N/m) and dissipation
time scale tau (s) over a step h with R_n = max(beta^2/(4 pi^2) w, 1/(h k (h + tau))) and bias
velocity v_hat = -phi0/(h + tau); friction rows get R_t = sigma*w, v_hat_t = 0, on the elliptic
cone with the regularized coefficient mu*sqrt(R_t/R_n). Writing the next velocity as
v + h*a turns SAP's velocity-level problem into the acceleration-level problem that
`SolveConstraints` solves, with D = 1/R and aref = (v_hat - J v)/h; the impulse is h*f.
"""
from __future__ import annotations

import numpy as np

from .assembler import ConstraintProblem
from .linalg import MatVec
from .parameters import CONE_ELLIPTIC, CONTACT_ELLIPTIC

DEFAULT_RELAXATION_TIME = 0.1  # s, Drake's per-geometry default dissipation time constant for SAP
SAP_SIGMA = 1e-3  # friction regularization, fraction of w
SAP_BETA = 1.0  # near-rigid threshold factor


def CombineRelaxationTimes(tau1: float, tau2: float) -> float:
    """Drake's combined dissipation time constant of a pair: tau1 + tau2 (s)."""
    if not (tau1 >= 0 and tau2 >= 0):
        raise ValueError(f"relaxation_time must be >= 0 s, got {tau1} and {tau2}")
    return float(tau1 + tau2)


def DelassusDiagonal(J_contact, M) -> np.ndarray:
    """Per-contact scalar w = |W_cc|_F / 3 (1/kg), W_cc = J_c M^-1 J_c' (Drake's |W|_rms scaling).

    Drake forms W_cc from the per-tree diagonal blocks of M; pass the block-diagonal M to match."""
    Jc = np.asarray(J_contact, dtype=np.float64)
    nc, _, nv = Jc.shape
    if nc == 0:
        return np.zeros(0)
    X = np.linalg.solve(np.asarray(M, dtype=np.float64), Jc.reshape(-1, nv).T).T.reshape(nc, 3, nv)
    W = np.einsum("cin,cjn->cij", Jc, X)
    return np.sqrt(np.einsum("cij,cij->c", W, W)) / 3.0


def SapContactProblem(J_contact, phi0, v, stiffness, relaxation_time, mu, w, time_step: float,
                      sigma: float = SAP_SIGMA, beta: float = SAP_BETA, names=None) -> ConstraintProblem:
    """The constraint problem of nc Drake point contacts for one discrete step.

    J_contact (nc, 3, nv): relative velocity Jacobian rows [normal, t1, t2] (normal from A to B,
    so J_contact[c, 0] @ v is the separation speed); phi0 signed distance (m); v (nv,) current
    velocities; stiffness k (N/m), relaxation_time tau (s), mu dynamic friction, w Delassus
    diagonal (1/kg, e.g. DelassusDiagonal). Raises ValueError naming the contact on bad values.
    """
    Jc = np.asarray(J_contact, dtype=np.float64)
    if Jc.ndim != 3 or Jc.shape[1] != 3:
        raise ValueError(f"SapContactProblem: J_contact must be (nc, 3, nv), got {Jc.shape}")
    nc, _, nv = Jc.shape
    h = float(time_step)
    if not h > 0:
        raise ValueError(f"SapContactProblem: time_step must be > 0 s, got {time_step}")
    arr = {k: np.asarray(x, dtype=np.float64).reshape(nc) for k, x in
           (("phi0", phi0), ("stiffness", stiffness), ("relaxation_time", relaxation_time), ("mu", mu),
            ("w", w))}
    for key, lo_ok in (("stiffness", lambda x: x > 0), ("relaxation_time", lambda x: x >= 0),
                       ("mu", lambda x: x >= 0), ("w", lambda x: x > 0)):
        bad = np.flatnonzero(~lo_ok(arr[key]) | ~np.isfinite(arr[key]))
        if bad.size:
            c = int(bad[0])
            label = f"contact '{names[c]}'" if names is not None else f"contact #{c}"
            raise ValueError(f"{label}: {key} = {arr[key][c]} is invalid (stiffness and w must be > 0, "
                             f"relaxation_time and friction >= 0)")
    vel = np.asarray(v, dtype=np.float64).reshape(nv)
    k, tau, wv = arr["stiffness"], arr["relaxation_time"], arr["w"]
    Rn = np.maximum(beta * beta / (4.0 * np.pi ** 2) * wv, 1.0 / (h * k * (h + tau)))
    Rt = sigma * wv
    v_hat = -arr["phi0"] / (h + tau)
    J = Jc.reshape(nc * 3, nv)
    efc_vel = MatVec(np.ascontiguousarray(J), vel)
    vhat_rows = np.zeros(3 * nc)
    vhat_rows[0::3] = v_hat
    aref = (vhat_rows - efc_vel) / h
    R = np.empty(3 * nc)
    R[0::3], R[1::3], R[2::3] = Rn, Rt, Rt
    fric = np.zeros((nc, 5))
    fric[:, 0] = fric[:, 1] = arr["mu"]
    imp = np.zeros((3 * nc, 4))
    return ConstraintProblem(
        J=J, efc_type=np.full(3 * nc, CONTACT_ELLIPTIC, dtype=np.int64),
        efc_id=np.repeat(np.arange(nc, dtype=np.int64), 3), efc_pos=np.repeat(arr["phi0"], 3),
        efc_margin=np.zeros(3 * nc), efc_frictionloss=np.zeros(3 * nc), efc_diagA=np.repeat(wv, 3),
        efc_R=R, efc_D=1.0 / R, efc_KBIP=imp, efc_vel=efc_vel, efc_aref=aref, ne=0, nf=0, nl=0,
        con_dim=np.full(nc, 3, dtype=np.int64), con_friction=fric, con_mu=arr["mu"] * np.sqrt(Rt / Rn),
        con_efc_address=np.arange(0, 3 * nc, 3, dtype=np.int64), cone=CONE_ELLIPTIC,
        names=[(names[c] if names is not None else f"contact #{c}") for c in range(nc) for _ in range(3)])
