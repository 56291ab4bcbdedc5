"""The Newton solver's Hessian H = M + J' diag(D_active) J (+ elliptic cone blocks) and its envelope factor:
built and factored inside its row envelope in the elimination order (elimination.py), then kept up to date
across Newton iterations by one rank-one update or downdate per row whose state changed, as MuJoCo's
incremental Hessian (mj_cholUpdate), instead of being rebuilt and refactored every iteration.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .parameters import CONTACT_ELLIPTIC, STATE_CONE, STATE_QUADRATIC


@njit(cache=True)
def ConeHessian(jar, i, dim, mu, fric, D0):
    """Hessian of the middle-zone elliptic cost w.r.t. the contact's jar entries (dim x dim)."""
    H = np.empty((dim, dim))
    ConeHessianInto(jar, i, dim, mu, fric, D0, H, np.empty(dim), np.empty(dim))
    return H


@njit(cache=True, _nrt=False)
def ConeHessianInto(jar, i, dim, mu, fric, D0, H, U, scl):
    """ConeHessian into H[:dim, :dim] (H at least dim x dim), with the scratch U, scl (dim each)."""
    U[0] = jar[i] * mu
    scl[0] = mu
    T2 = 0.0
    for j in range(1, dim):
        U[j] = jar[i + j] * fric[j - 1]
        scl[j] = fric[j - 1]
        T2 += U[j] * U[j]
    T = np.sqrt(T2)
    N = U[0]
    Dm = D0 / (mu * mu * (1.0 + mu * mu))
    for k in range(dim):
        for j in range(dim):
            H[k, j] = 0.0
    H[0, 0] = 1.0
    for j in range(1, dim):
        H[0, j] = -mu / T * U[j]
        H[j, 0] = H[0, j]
    for k in range(1, dim):
        for j in range(1, dim):
            H[k, j] = mu * N / (T * T * T) * U[j] * U[k]
        H[k, k] += mu * mu - mu * N / T
    for k in range(dim):
        for j in range(dim):
            H[k, j] *= Dm * scl[k] * scl[j]


@njit(cache=True, _nrt=False)
def _sorted_support(pos, idx, s0, ns, rp, perm):
    """rp[:ns] = elimination positions of the support idx[s0:s0 + ns], ascending; perm[a] = its entry."""
    descending = True
    for a in range(ns):
        rp[a] = pos[idx[s0 + a]]
        perm[a] = a
        if a > 0 and rp[a] > rp[a - 1]:
            descending = False
    if descending:  # a tree's dofs in reverse order (the usual case): reverse
        for a in range(ns // 2):
            b = ns - 1 - a
            rp[a], rp[b] = rp[b], rp[a]
            perm[a], perm[b] = perm[b], perm[a]
        return
    for a in range(1, ns):  # insertion sort
        x, px = rp[a], perm[a]
        b = a - 1
        while b >= 0 and rp[b] > x:
            rp[b + 1] = rp[b]
            perm[b + 1] = perm[b]
            b -= 1
        rp[b + 1] = x
        perm[b + 1] = px


@njit(cache=True, _nrt=False)
def _flush_block(H, B, rp, ns):
    """H[rp[a], rp[b]] += B[a, b] for b <= a < ns (nothing for ns <= 0)."""
    for a in range(ns):
        ra = rp[a]
        for b in range(a + 1):
            H[ra, rp[b]] += B[a, b]


@njit(cache=True, _nrt=False)
def NewtonHessianInto(H, first, Mp, first_m, pos, J, idx, start, D, jar, state, efc_type, efc_id, con_dim, con_mu,
                      con_fric, rp, perm, rv, B, Hc):
    """H = M + J' diag(D_active) J + sum over cone-zone contacts of J_c' H_c J_c (sparse rows), in the
    elimination order (Mp = M permuted, pos[dof] = its position), written into H (n, n) only inside its row
    envelope: sets H[i, first[i]:i + 1] (the rest of H is untouched) and writes first (n,), the envelope of
    H's lower triangle. Scratch: rp, perm (n, int), rv (n), B (n, n), Hc (8, 6: a cone block and two rows of its
    terms). Allocates nothing and returns nothing: compiled without reference counting (linalg.py)."""
    nefc = J.shape[0]
    n = Mp.shape[0]
    for r in range(n):
        first[r] = first_m[r]
    i = 0
    while i < nefc:  # envelope: an active row (or cone contact) couples all dofs of its support
        if efc_type[i] == CONTACT_ELLIPTIC:
            dim = con_dim[efc_id[i]]
            if state[i] == STATE_CONE or state[i] == STATE_QUADRATIC:
                lo = n
                for a in range(start[i], start[i + dim]):
                    lo = min(lo, pos[idx[a]])
                for a in range(start[i], start[i + dim]):
                    r = pos[idx[a]]
                    if lo < first[r]:
                        first[r] = lo
            i += dim
            continue
        if state[i] == STATE_QUADRATIC:
            lo = n
            for a in range(start[i], start[i + 1]):
                lo = min(lo, pos[idx[a]])
            for a in range(start[i], start[i + 1]):
                r = pos[idx[a]]
                if lo < first[r]:
                    first[r] = lo
        i += 1
    for r in range(n):  # Mp is read inside M's envelope only (tree_sparse.PermutedEnvelopeInto writes no more)
        for c in range(first[r], first_m[r]):
            H[r, c] = 0.0
        for c in range(first_m[r], r + 1):
            H[r, c] = Mp[r, c]
    # rp, perm, rv: a row's support: positions (sorted), order in the row, values
    prev_n, prev_s0 = -1, 0
    i = 0
    while i < nefc:
        if efc_type[i] == CONTACT_ELLIPTIC and state[i] == STATE_CONE:
            c = efc_id[i]
            dim = con_dim[c]
            ConeHessianInto(jar, i, dim, con_mu[c], con_fric[c], D[i], Hc, Hc[6], Hc[7])
            for k in range(dim):
                for l in range(dim):
                    w = Hc[k, l]
                    if w == 0.0:
                        continue
                    for a in range(start[i + k], start[i + k + 1]):
                        ra = pos[idx[a]]
                        va = w * J[i + k, idx[a]]
                        for b in range(start[i + l], start[i + l + 1]):
                            rb = pos[idx[b]]
                            if rb <= ra:
                                H[ra, rb] += va * J[i + l, idx[b]]
            i += dim
            continue
        if state[i] == STATE_QUADRATIC:
            # D_i J_i' J_i over the row's support in elimination order (positions ascending), summed in a
            # dense block B over consecutive rows with the same support (a contact's rows) and added to H once
            s0, s1 = start[i], start[i + 1]
            ns = s1 - s0
            same = ns == prev_n
            if same:
                for a in range(ns):
                    if idx[s0 + a] != idx[prev_s0 + a]:
                        same = False
                        break
            if not same:
                _flush_block(H, B, rp, prev_n)
                prev_n, prev_s0 = ns, s0
                _sorted_support(pos, idx, s0, ns, rp, perm)
                for a in range(ns):
                    for b in range(a + 1):
                        B[a, b] = 0.0
            w = D[i]
            for a in range(ns):
                rv[a] = J[i, idx[s0 + perm[a]]]
            for a in range(ns):
                wa = w * rv[a]
                for b in range(a + 1):
                    B[a, b] += wa * rv[b]
        i += 1
    _flush_block(H, B, rp, prev_n)


_MAX_UPDATES = 8  # more changed rows than this: rebuilding and refactoring H is cheaper


@njit(cache=True, _nrt=False)
def ColumnLast(first, last):
    """last[k] = the last row i with first[i] <= k (first: a lower row envelope, first[i] <= i): column k's
    reach below the diagonal. O(n)."""
    n = first.shape[0]
    if n == 0:
        return
    i = n - 1
    lo = first[i]  # min(first[i:])
    for k in range(n - 1, -1, -1):
        while lo > k:
            i -= 1
            lo = min(lo, first[i])
        last[k] = i


@njit(cache=True, _nrt=False)
def CholRankOne(L, first, x, sign, last):
    """L L' + sign x x' (sign +1 update, -1 downdate) in place, for an envelope factor L whose envelope `first`
    already holds the result's (x is destroyed); last: ColumnLast(first) (the rows below last[k] lie outside
    column k: not visited). Returns False if a downdate would lose positive definiteness."""
    n = x.shape[0]
    for k in range(n):
        xk = x[k]
        if xk == 0.0:
            continue
        lkk = L[k, k]
        r2 = lkk * lkk + sign * xk * xk
        if not r2 > 0.0:
            return False
        r = np.sqrt(r2)
        c = r / lkk
        sn = xk / lkk
        L[k, k] = r
        for i in range(k + 1, last[k] + 1):
            if first[i] <= k:
                lik = (L[i, k] + sign * sn * x[i]) / c
                L[i, k] = lik
                x[i] = c * x[i] - sn * lik
    return True


@njit(cache=True, _nrt=False)
def UpdateFactor(L, first, pos, J, idx, start, D, state, state_f, efc_type, x, last):
    """Bring the envelope factor L of H (factored at row states state_f) to the row states `state` by one
    rank-one update per row turned quadratic and one downdate per row turned inactive (scratch: x (n), last (n,
    int)). Returns False when
    that is not possible or not worth it (an elliptic contact in the cone zone, whose block depends on jar;
    a new row reaching outside the envelope; too many changes; a failed downdate): rebuild H then."""
    nefc = state.shape[0]
    nchg = 0
    for i in range(nefc):
        if efc_type[i] == CONTACT_ELLIPTIC and (state[i] == STATE_CONE or state_f[i] == STATE_CONE):
            return False
        if (state[i] == STATE_QUADRATIC) != (state_f[i] == STATE_QUADRATIC):
            nchg += 1
            if state[i] == STATE_QUADRATIC:  # added row: its support must lie inside the envelope
                lo = x.shape[0]
                for a in range(start[i], start[i + 1]):
                    lo = min(lo, pos[idx[a]])
                for a in range(start[i], start[i + 1]):
                    if first[pos[idx[a]]] > lo:
                        return False
    if nchg > _MAX_UPDATES:
        return False
    if nchg:
        ColumnLast(first, last)
    for sign in (1.0, -1.0):  # updates first: H stays positive definite throughout
        for i in range(nefc):
            now = state[i] == STATE_QUADRATIC
            if now == (state_f[i] == STATE_QUADRATIC) or now != (sign > 0.0):
                continue
            x[:] = 0.0
            w = np.sqrt(D[i])
            for a in range(start[i], start[i + 1]):
                x[pos[idx[a]]] = w * J[i, idx[a]]
            if not CholRankOne(L, first, x, sign, last):
                return False
    return True
