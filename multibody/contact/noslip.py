"""MuJoCo's noslip post-processing (mj_solNoSlip, option noslip_iterations > 0): after the main solve, Gauss-Seidel
sweeps over the dry-friction rows and the friction rows of the contacts, with the normal forces held, on the
constraint problem without its regularizer R, which removes the slip that R's softness allows.

A = J·M⁻¹·Jᵀ (rows without R), b = J·a₀ − aref. A dry-friction row is minimized exactly and clamped to
±frictionloss; a pyramidal contact's opposing edge pairs keep their sum and split it optimally; an elliptic
contact's friction block is the QCQP min ½xᵀA x + xᵀb s.t. Σ(x_j/μ_j)² ≤ f_n² (MuJoCo's mju_QCQP2/3/n). A step
that raises the cost is undone. The sweeps stop after `iterations` or when a sweep's scaled cost decrease is below
`tolerance`; with constraint islands (tree_blocks given) each island sweeps and stops on its own, as MuJoCo's
per-island noslip. The result: efc_force, qfrc_constraint = Jᵀf and qacc = a₀ + M⁻¹Jᵀf.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .islands import IslandRows, Islands
from .linalg import Cholesky, CholeskySolve, LowerSolveRows, MatTVec, MatVec, RowSupport
from .parameters import CONTACT_ELLIPTIC, CONTACT_PYRAMIDAL, MINVAL


@njit(cache=True)
def _qcqp(A, b, mu, r):
    """argmin ½xᵀA x + xᵀb s.t. Σ(x_j/mu_j)² ≤ r² (MuJoCo's mju_QCQP, n ≤ 5) and whether the constraint is
    active: Newton on the multiplier λ of the scaled problem, 20 iterations at most; (0, False) when A + λ is
    not positive definite."""
    n = b.shape[0]
    As = np.empty((n, n))
    bs = np.empty(n)
    for i in range(n):
        bs[i] = b[i] * mu[i]
        for j in range(n):
            As[i, j] = A[i, j] * mu[i] * mu[j]
    la = 0.0
    v = np.zeros(n)
    for _ in range(20):
        if n == 2:  # mju_QCQP2's closed form
            det = (As[0, 0] + la) * (As[1, 1] + la) - As[0, 1] * As[0, 1]
            if det < 1e-10:
                return np.zeros(n), False
            p11, p22, p12 = (As[1, 1] + la) / det, (As[0, 0] + la) / det, -As[0, 1] / det
            v[0] = -p11 * bs[0] - p12 * bs[1]
            v[1] = -p12 * bs[0] - p22 * bs[1]
            val = v[0] * v[0] + v[1] * v[1] - r * r
            if val < 1e-10:
                break
            deriv = -2.0 * (p11 * v[0] * v[0] + 2.0 * p12 * v[0] * v[1] + p22 * v[1] * v[1])
        elif n == 3:  # mju_QCQP3's adjugate
            a11, a22, a33 = As[0, 0] + la, As[1, 1] + la, As[2, 2] + la
            a12, a13, a23 = As[0, 1], As[0, 2], As[1, 2]
            p11, p22, p33 = a22 * a33 - a23 * a23, a11 * a33 - a13 * a13, a11 * a22 - a12 * a12
            p12, p13, p23 = a13 * a23 - a12 * a33, a12 * a23 - a13 * a22, a12 * a13 - a23 * a11
            det = a11 * p11 + a12 * p12 + a13 * p13
            if det < 1e-10:
                return np.zeros(n), False
            inv = 1.0 / det
            p11, p22, p33, p12, p13, p23 = p11 * inv, p22 * inv, p33 * inv, p12 * inv, p13 * inv, p23 * inv
            v[0] = -p11 * bs[0] - p12 * bs[1] - p13 * bs[2]
            v[1] = -p12 * bs[0] - p22 * bs[1] - p23 * bs[2]
            v[2] = -p13 * bs[0] - p23 * bs[1] - p33 * bs[2]
            val = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - r * r
            if val < 1e-10:
                break
            deriv = (-2.0 * (p11 * v[0] * v[0] + p22 * v[1] * v[1] + p33 * v[2] * v[2])
                     - 4.0 * (p12 * v[0] * v[1] + p13 * v[0] * v[2] + p23 * v[1] * v[2]))
        else:  # mju_QCQP: Cholesky of A + λ with MuJoCo's 1e-10 rank threshold
            L = As.copy()
            for i in range(n):
                L[i, i] += la
            rank = n
            for j in range(n):
                t = L[j, j]
                for k in range(j):
                    t -= L[j, k] * L[j, k]
                deficient = t < 1e-10
                if deficient:
                    t = 1e-10
                    rank -= 1
                L[j, j] = np.sqrt(t)
                for i in range(j + 1, n):
                    if deficient:
                        L[i, j] = 0.0
                    else:
                        s = L[i, j]
                        for k in range(j):
                            s -= L[i, k] * L[j, k]
                        L[i, j] = s / L[j, j]
            if rank < n:
                return np.zeros(n), False
            v = -_chol_solve_lower(L, bs)
            val = np.sum(v * v) - r * r
            if val < 1e-10:
                break
            deriv = -2.0 * np.sum(v * _chol_solve_lower(L, v))
        delta = -val / deriv
        if delta < 1e-10:
            break
        la += delta
    out = np.empty(n)
    for i in range(n):
        out[i] = v[i] * mu[i]
    return out, la != 0.0


@njit(cache=True)
def _chol_solve_lower(L, b):
    """(L Lᵀ)⁻¹ b for a lower-triangular L whose strict upper part is ignored."""
    n = b.shape[0]
    x = b.copy()
    for i in range(n):
        for k in range(i):
            x[i] -= L[i, k] * x[k]
        x[i] /= L[i, i]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            x[i] -= L[k, i] * x[k]
        x[i] /= L[i, i]
    return x


@njit(cache=True)
def _residual(A, b, f, i, n):
    """b + A·f over rows i..i+n (A holds no R)."""
    res = np.empty(n)
    for j in range(n):
        res[j] = b[i + j] + np.dot(A[i + j], f)
    return res


@njit(cache=True)
def _block(A, i, n):
    """A[i:i+n, i:i+n] with its diagonal clamped to 1e-10 from below (MuJoCo's extractBlock)."""
    Ac = np.empty((n, n))
    for r in range(n):
        for c in range(n):
            Ac[r, c] = A[i + r, i + c]
        Ac[r, r] = max(1e-10, Ac[r, r])
    return Ac


@njit(cache=True)
def _cost_change(Ac, f, i, old, res):
    """The cost change of f[i:i+n] from `old`; a rise above 1e-10 restores `old` and counts 0."""
    n = old.shape[0]
    change = 0.0
    for r in range(n):
        dr = f[i + r] - old[r]
        change += dr * res[r]
        for c in range(n):
            change += 0.5 * dr * Ac[r, c] * (f[i + c] - old[c])
    if change > 1e-10:
        f[i:i + n] = old
        return 0.0
    return change


@njit(cache=True)
def _sweeps(A, b, R, floss, efc_type, efc_id, con_dim, con_fric, f, rows, ne, nf, iterations, tolerance, scale):
    """MuJoCo's solNoSlip over one island's rows (global indices, ascending: equality, dry friction, the rest)."""
    nr = rows.shape[0]
    ainv = np.empty(nr)
    for c in range(nr):
        ainv[c] = 1.0 / max(MINVAL, A[rows[c], rows[c]])
    it = 0
    while it < iterations:
        improvement = 0.0
        if it == 0:
            for c in range(nr):
                improvement += 0.5 * f[rows[c]] * f[rows[c]] * R[rows[c]]
        for c in range(ne, ne + nf):  # dry friction
            i = rows[c]
            res = b[i] + np.dot(A[i], f)
            old = f[i]
            fi = old - res * ainv[c]
            if fi < -floss[i]:
                fi = -floss[i]
            elif fi > floss[i]:
                fi = floss[i]
            f[i] = fi
            delta = fi - old
            improvement -= 0.5 * delta * delta / ainv[c] + delta * res
        c = ne + nf
        while c < nr:
            i = rows[c]
            if efc_type[i] == CONTACT_PYRAMIDAL:
                dim = con_dim[efc_id[i]]
                for j in range(i, i + 2 * (dim - 1), 2):  # opposing pyramid edges: keep their sum
                    res = _residual(A, b, f, j, 2)
                    old = f[j:j + 2].copy()
                    Ac = _block(A, j, 2)
                    bc0 = res[0] - (Ac[0, 0] * old[0] + Ac[0, 1] * old[1])
                    bc1 = res[1] - (Ac[1, 0] * old[0] + Ac[1, 1] * old[1])
                    mid = 0.5 * (f[j] + f[j + 1])
                    k1 = Ac[0, 0] + Ac[1, 1] - Ac[0, 1] - Ac[1, 0]
                    k0 = mid * (Ac[0, 0] - Ac[1, 1]) + bc0 - bc1
                    if k1 < MINVAL:
                        f[j] = mid
                        f[j + 1] = mid
                    else:
                        y = -k0 / k1
                        if y < -mid:
                            f[j], f[j + 1] = 0.0, 2.0 * mid
                        elif y > mid:
                            f[j], f[j + 1] = 2.0 * mid, 0.0
                        else:
                            f[j], f[j + 1] = mid + y, mid - y
                    improvement -= _cost_change(Ac, f, j, old, res)
                c += 2 * (dim - 1)
            elif efc_type[i] == CONTACT_ELLIPTIC:
                con = efc_id[i]
                dim = con_dim[con]
                n = dim - 1
                res = _residual(A, b, f, i + 1, n)
                old = f[i + 1:i + dim].copy()
                Ac = _block(A, i + 1, n)
                bc = res - MatVec(Ac, old)
                if f[i] < MINVAL:
                    f[i + 1:i + dim] = 0.0
                else:
                    mu = con_fric[con, :n].copy()
                    v, active = _qcqp(Ac, bc, mu, f[i])
                    if active:  # on the ellipsoid: put v exactly on it
                        s = 0.0
                        for j in range(n):
                            s += v[j] * v[j] / (mu[j] * mu[j])
                        scl = np.sqrt(f[i] * f[i] / max(MINVAL, s))
                        v *= scl
                    f[i + 1:i + dim] = v
                improvement -= _cost_change(Ac, f, i + 1, old, res)
                c += dim
            else:
                c += 1
        improvement *= scale
        it += 1
        if improvement < tolerance:
            break


@njit(cache=True)
def NoSlip(M, qacc_smooth, J, aref, R, floss, efc_type, efc_id, ne, nf, con_dim, con_fric, force, iterations,
           tolerance, scale, tree_blocks):
    """MuJoCo's noslip sweeps (module docstring) from the main solver's `force`: (qacc, efc_force,
    qfrc_constraint). tree_blocks: start offsets of the plant's trees' dof ranges (islands, as the primal
    solver's); empty: one problem over all rows."""
    nefc = J.shape[0]
    f = force.copy()
    L = Cholesky(M)
    Y = LowerSolveRows(L, J)  # rows of L⁻¹Jᵀ: A = Y Yᵀ
    A = np.dot(Y, Y.T)
    b = MatVec(J, qacc_smooth) - aref
    if tree_blocks.shape[0] < 2:
        _sweeps(A, b, R, floss, efc_type, efc_id, con_dim, con_fric, f, np.arange(nefc), ne, nf, iterations,
                tolerance, scale)
    else:
        idx, start = RowSupport(J)
        nisland, _tree_island, efc_island = Islands(tree_blocks, idx, start, efc_type, efc_id)
        rows = np.empty(nefc, np.int64)
        for isl in range(nisland):
            nr, ne_i, nf_i = IslandRows(efc_island, isl, ne, nf, rows)
            if nr:
                _sweeps(A, b, R, floss, efc_type, efc_id, con_dim, con_fric, f, rows[:nr], ne_i, nf_i, iterations,
                        tolerance, scale)
    qfrc = MatTVec(J, f)
    qacc = qacc_smooth + CholeskySolve(L, qfrc)
    return qacc, f, qfrc
