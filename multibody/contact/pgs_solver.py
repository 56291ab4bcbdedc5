"""Dual solver: projected Gauss-Seidel on the constraint forces.

Minimizes 1/2 f'(A + R) f + f'(J a0 - aref) over f in the constraint sets, A = J M^-1 J':
equality rows free, dry-friction rows |f| <= frictionloss, limits and pyramidal/frictionless
contact rows f >= 0, elliptic contacts f in {f_n >= 0, |f_t,j / mu_j| <= f_n}. Scalar rows are
updated exactly; an elliptic contact block is minimized exactly over its cone by projected
(accelerated) gradient in coordinates where the cone is the standard second-order cone. The
solution equals the primal solvers' (same convex problem): qacc = a0 + M^-1 J' f.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .linalg import Cholesky, CholeskySolve, LowerSolveRows, MatTVec, MatVec
from .parameters import CONTACT_ELLIPTIC
from .primal_solver import ConstraintUpdate


@njit(cache=True)
def _project_soc(x):
    """Euclidean projection onto {x : |x[1:]| <= x[0]}, in place."""
    t = np.sqrt(np.sum(x[1:] * x[1:]))
    if t <= x[0]:
        return
    if t <= -x[0]:
        x[:] = 0.0
        return
    a = 0.5 * (x[0] + t)
    x[0] = a
    for j in range(1, x.shape[0]):
        x[j] *= a / t


@njit(cache=True)
def _cone_block(Q, g, f, scl, inner_iterations):
    """Minimize 1/2 f'Q f + g'f over the scaled cone (f = scl * x, x in the second-order cone)."""
    dim = f.shape[0]
    Qx = np.empty((dim, dim))
    for k in range(dim):
        for j in range(dim):
            Qx[k, j] = scl[k] * Q[k, j] * scl[j]
    gx = scl * g
    L = np.max(np.linalg.eigvalsh(Qx))
    if L <= 0.0:
        return
    x = np.zeros(dim)
    for j in range(dim):
        x[j] = f[j] / scl[j] if scl[j] > 0.0 else 0.0
    y = x.copy()
    t = 1.0
    for _ in range(inner_iterations):
        xn = y - (MatVec(Qx, y) + gx) / L
        _project_soc(xn)
        tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        y = xn + ((t - 1.0) / tn) * (xn - x)
        if np.max(np.abs(xn - x)) <= 1e-15 * (1.0 + np.max(np.abs(xn))):
            x = xn
            break
        x = xn
        t = tn
    for j in range(dim):
        f[j] = scl[j] * x[j]


@njit(cache=True)
def PGSSolve(M, qacc_smooth, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_fric, force_init,
             iterations, tolerance, scale):
    """Projected Gauss-Seidel sweeps from `force_init` until the scaled cost decrease < tolerance.

    Returns qacc, efc_force, converged, iterations, residual (scaled cost decrease of the last sweep).
    """
    nv = M.shape[0]
    nefc = J.shape[0]
    L = Cholesky(M)
    # Y = L^-1 J' column by column, AR = Y'Y + diag(R) = J M^-1 J' + R
    Y = LowerSolveRows(L, J)
    AR = np.zeros((nefc, nefc))
    for i in range(nefc):
        for j in range(i, nefc):
            acc = 0.0
            for k in range(nv):
                acc += Y[i, k] * Y[j, k]
            AR[i, j] = acc
            AR[j, i] = acc
        AR[i, i] += R[i]
    b = MatVec(J, qacc_smooth) - aref
    f = force_init.copy()
    converged = nefc == 0
    it = 0
    residual = 0.0
    cost = 0.5 * np.sum(f * MatVec(AR, f)) + np.sum(b * f)
    while it < iterations and not converged:
        i = 0
        while i < nefc:
            if efc_type[i] == CONTACT_ELLIPTIC and i >= ne + nf:
                c = efc_id[i]
                dim = con_dim[c]
                Q = np.ascontiguousarray(AR[i:i + dim, i:i + dim])
                g = b[i:i + dim] + MatVec(np.ascontiguousarray(AR[i:i + dim]), f) - MatVec(Q, f[i:i + dim].copy())
                scl = np.empty(dim)
                scl[0] = 1.0
                for j in range(1, dim):
                    scl[j] = con_fric[c, j - 1]
                blk = f[i:i + dim].copy()
                _cone_block(Q, g, blk, scl, 200)
                f[i:i + dim] = blk
                i += dim
                continue
            acc = 0.0  # np.sum(AR[i] * f)'s sum in its order, without the temporary
            for k in range(nefc):
                acc += AR[i, k] * f[k]
            res = b[i] + acc
            fi = f[i] - res / AR[i, i]
            if i < ne:
                pass
            elif i < ne + nf:
                fi = min(floss[i], max(-floss[i], fi))
            else:
                fi = max(0.0, fi)
            f[i] = fi
            i += 1
        it += 1
        new_cost = 0.5 * np.sum(f * MatVec(AR, f)) + np.sum(b * f)
        residual = scale * (cost - new_cost)
        cost = new_cost
        if residual < tolerance:
            converged = True
    qacc = qacc_smooth + CholeskySolve(L, MatTVec(J, f))
    return qacc, f, converged, it, residual


@njit(cache=True)
def ForceFromAcceleration(qacc, J, aref, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric):
    """Constraint forces implied by an acceleration guess (a feasible dual warm start)."""
    nefc = J.shape[0]
    force = np.zeros(nefc)
    state = np.zeros(nefc, dtype=np.int64)
    jar = MatVec(J, qacc) - aref
    ConstraintUpdate(jar, D, R, floss, efc_type, efc_id, ne, nf, con_dim, con_mu, con_fric, force, state)
    return force
