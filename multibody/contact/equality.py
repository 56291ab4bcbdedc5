"""Residuals and Jacobians of equality constraints (inputs to ConstraintAssembler.AddEquality).

The plant supplies kinematics (points, point Jacobians); these helpers form the constraint rows:
joint coupler with MuJoCo's quartic polynomial (and Drake's linear coupler as a special case),
connect (ball), and distance.
"""
from __future__ import annotations

import numpy as np


def JointCouplerRow(q1: float, q2: float | None, polycoef, dof1: int, dof2: int | None, nv: int,
                    q1_ref: float = 0.0, q2_ref: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Row of q1 - q1_ref = c0 + c1 x + c2 x^2 + c3 x^3 + c4 x^4, x = q2 - q2_ref (MuJoCo joint equality).

    Returns (J (1, nv), residual (1,)); with no second joint the residual is q1 - q1_ref - c0.
    Drake's AddCouplerConstraint(q0 = rho*q1 + offset) is polycoef = (offset, rho, 0, 0, 0) with
    zero references.
    """
    c = np.zeros(5)
    pc = np.asarray(polycoef, dtype=np.float64).reshape(-1)
    if pc.size > 5 or not np.all(np.isfinite(pc)):
        raise ValueError(f"JointCouplerRow: polycoef must be up to 5 finite numbers, got {list(pc)}")
    c[:pc.size] = pc
    for dof in (dof1, dof2):
        if dof is not None and not 0 <= int(dof) < nv:
            raise ValueError(f"JointCouplerRow: dof index {dof} out of range [0, {nv})")
    J = np.zeros((1, nv))
    J[0, dof1] = 1.0
    if q2 is None or dof2 is None:
        return J, np.array([q1 - q1_ref - c[0]])
    x = q2 - q2_ref
    res = q1 - q1_ref - c[0] - (c[1] * x + c[2] * x ** 2 + c[3] * x ** 3 + c[4] * x ** 4)
    deriv = c[1] + 2 * c[2] * x + 3 * c[3] * x ** 2 + 4 * c[4] * x ** 3
    J[0, dof2] -= deriv
    return J, np.array([res])


def ConnectRows(p_WP1, p_WP2, Jv_WP1, Jv_WP2) -> tuple[np.ndarray, np.ndarray]:
    """Ball constraint P1 == P2 (MuJoCo connect, Drake AddBallConstraint): rows (3, nv), residual p1 - p2 (m)."""
    r = np.asarray(p_WP1, dtype=np.float64).reshape(3) - np.asarray(p_WP2, dtype=np.float64).reshape(3)
    return np.asarray(Jv_WP1, dtype=np.float64) - np.asarray(Jv_WP2, dtype=np.float64), r


def DistanceRow(p_WP1, p_WP2, Jv_WP1, Jv_WP2, distance: float) -> tuple[np.ndarray, np.ndarray]:
    """|P1 - P2| = distance (Drake AddDistanceConstraint): one row along the unit P2->P1 direction."""
    if not distance > 0:
        raise ValueError(f"DistanceRow: distance must be > 0 m, got {distance}")
    d = np.asarray(p_WP1, dtype=np.float64).reshape(3) - np.asarray(p_WP2, dtype=np.float64).reshape(3)
    n = np.linalg.norm(d)
    if n < 1e-12:
        raise ValueError("DistanceRow: the two points coincide, so the constraint direction is undefined")
    u = d / n
    J = u @ (np.asarray(Jv_WP1, dtype=np.float64) - np.asarray(Jv_WP2, dtype=np.float64))
    return J.reshape(1, -1), np.array([n - distance])
