"""Hydroelastic forces of the continuous plant (Drake's HydroelasticTractionCalculator and
MultibodyPlant::CalcHydroelasticContactForcesContinuous), over the arrays of the compiled contact surfaces
(geometry/hydroelastic/surface_kernels.contact_surfaces).

At a point Q of a face with unit normal n (out of N into M, so toward body A = M's body) and pressure e, with
v = v_BqAq_W the velocity of A's point Q relative to B's and vn = v·n:

    t_n = max(e − vn·d·e, 0)                          (Hunt–Crossley, d the combined dissipation [s/m])
    t_t = −(2/π)·μ·t_n·atan(|v_t|/v_s)/|v_t| · v_t     (regularized friction, v_s the stiction tolerance [m/s])

A polygon face contributes area·traction at its centroid; a triangle face integrates the traction with the
3-point Gauss rule (barycentric (1/6, 1/6, 2/3) and its permutations, weights 1/3). F_Ac_W [torque, force] is the
resultant on A at the surface's centroid C (area-weighted mean of the face centroids).
"""
from __future__ import annotations

import numpy as np
from numba import njit

# Drake's order-2 Gaussian rule: (b0, b1) per point, b2 = 1 − b0 − b1
_GAUSS2 = np.array([[1.0 / 6.0, 1.0 / 6.0], [1.0 / 6.0, 2.0 / 3.0], [2.0 / 3.0, 1.0 / 6.0]])


@njit(cache=True)
def atan_x_over_x_from_x_squared(x2):
    """atan(x)/x from x², by its Taylor series below x = 0.12 (Drake's CalcAtanXOverXFromXSquared)."""
    if x2 <= 0.12 * 0.12:
        return 1.0 - x2 * (1.0 / 3.0 - x2 * (1.0 / 5.0 - x2 * (1.0 / 7.0 - x2 * (1.0 / 9.0 - x2 * (
            1.0 / 11.0 - x2 * (1.0 / 13.0 - x2 * (1.0 / 15.0 - x2 / 17.0)))))))
    x = np.sqrt(x2)
    return np.arctan(x) / x


@njit(cache=True)
def _traction(p, e, n, VA, VB, d, mu, vs, out):
    """Traction [Pa] on A at point p (3) into out (3): normal Hunt–Crossley plus regularized friction. VA, VB are
    the bodies' Plücker velocities at Wo ([ω, v_Wo]). (Scalars, no temporary arrays: this runs per face.)"""
    w0, w1, w2 = VA[0] - VB[0], VA[1] - VB[1], VA[2] - VB[2]
    v0 = VA[3] - VB[3] + (w1 * p[2] - w2 * p[1])
    v1 = VA[4] - VB[4] + (w2 * p[0] - w0 * p[2])
    v2 = VA[5] - VB[5] + (w0 * p[1] - w1 * p[0])
    vn = v0 * n[0] + v1 * n[1] + v2 * n[2]
    tn = max(e - vn * d * e, 0.0)
    v0, v1, v2 = v0 - n[0] * vn, v1 - n[1] * vn, v2 - n[2] * vn
    vt2 = v0 * v0 + v1 * v1 + v2 * v2
    ft = (2.0 / np.pi) * mu * tn * atan_x_over_x_from_x_squared(vt2 / (vs * vs)) / vs
    out[0] = n[0] * tn - ft * v0
    out[1] = n[1] * tn - ft * v1
    out[2] = n[2] * tn - ft * v2


@njit(cache=True)
def HydroelasticSurfaceForces(sface, V, vp, fi, fs, fn, fc, fa, fp, body_A, body_B, V_WB, dissipation, mu, vs,
                              triangles):
    """(F_Ac_W (ns, 6) as [torque, force], p_WC (ns, 3)): the resultant on body A of each contact surface at its
    centroid C. Surfaces are rows of sface (face offsets); body_A / body_B, dissipation and mu are per surface."""
    ns = sface.shape[0] - 1
    F = np.zeros((ns, 6))
    C = np.zeros((ns, 3))
    t = np.empty(3)
    p = np.empty(3)
    for s in range(ns):
        f0, f1 = sface[s], sface[s + 1]
        area = 0.0
        for f in range(f0, f1):
            area += fa[f]
            for k in range(3):
                C[s, k] += fa[f] * fc[f, k]
        if area > 0.0:
            for k in range(3):
                C[s, k] /= area
        VA, VB = V_WB[body_A[s]], V_WB[body_B[s]]
        for f in range(f0, f1):
            n = fn[f]
            if triangles:
                i0 = fs[f]
                a, b, c = fi[i0], fi[i0 + 1], fi[i0 + 2]
                for q in range(3):
                    b0, b1 = _GAUSS2[q, 0], _GAUSS2[q, 1]
                    b2 = 1.0 - b0 - b1
                    for k in range(3):
                        p[k] = b0 * V[a, k] + b1 * V[b, k] + b2 * V[c, k]
                    e = b0 * vp[a] + b1 * vp[b] + b2 * vp[c]
                    _traction(p, e, n, VA, VB, dissipation[s], mu[s], vs, t)
                    _accumulate(F[s], C[s], p, t, fa[f] / 3.0)
            else:
                for k in range(3):
                    p[k] = fc[f, k]
                _traction(p, fp[f], n, VA, VB, dissipation[s], mu[s], vs, t)
                _accumulate(F[s], C[s], p, t, fa[f])
    return F, C


@njit(cache=True)
def _accumulate(F, c, p, t, w):
    """F += w·(traction t at p shifted to c) as [torque about c, force]."""
    r0, r1, r2 = p[0] - c[0], p[1] - c[1], p[2] - c[2]
    F[0] += w * (r1 * t[2] - r2 * t[1])
    F[1] += w * (r2 * t[0] - r0 * t[2])
    F[2] += w * (r0 * t[1] - r1 * t[0])
    for k in range(3):
        F[3 + k] += w * t[k]


@njit(cache=True)
def ShiftToBodyOrigins(F_Ac_W, p_WC, body_A, body_B, p_WB, F_Bo_W):
    """Add each surface's F_Ac_W to body A at Ao and its opposite to body B at Bo (F_Bo_W (nb, 6) [torque, force];
    the world, body 0, takes nothing)."""
    for s in range(F_Ac_W.shape[0]):
        for body, sign in ((body_A[s], 1.0), (body_B[s], -1.0)):
            if body == 0:
                continue
            r = p_WC[s] - p_WB[body]  # from the body origin to C
            f = F_Ac_W[s, 3:]
            F_Bo_W[body, 0] += sign * (F_Ac_W[s, 0] + r[1] * f[2] - r[2] * f[1])
            F_Bo_W[body, 1] += sign * (F_Ac_W[s, 1] + r[2] * f[0] - r[0] * f[2])
            F_Bo_W[body, 2] += sign * (F_Ac_W[s, 2] + r[0] * f[1] - r[1] * f[0])
            for k in range(3):
                F_Bo_W[body, 3 + k] += sign * f[k]
