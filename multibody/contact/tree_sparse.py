"""Kernels over a tree-sparse mass matrix that touch only its trees' blocks: O(Σ tree size²) instead of O(nv²).

A plant of many small trees (MuJoCo's model/replicate/particle: 1000 bodies of 3 slide dofs, nv = 3000) has a
block-diagonal M whose nv × nv dense form is 99.9 % structural zeros; scanning or copying it whole is what the
step's cost then grows with (MuJoCo keeps M in its tree sparsity). `bstart` is the start offsets of the dof ranges
no M entry crosses (the plant's trees, contact/plant_solver._TreeBlocks, or elimination.TreeBlocks(M)).

- `PermutedEnvelopeInto`: the row envelope of M in an elimination order that keeps each tree's dofs contiguous
  (elimination.EliminationOrderInto) and M permuted inside it, without the nv² copy and scan of
  elimination.PermutedInto + linalg.EnvelopeFirstInto (same `first`, same entries inside the envelope).
- `SkylineCholeskyInPlace` / `SkylineSolveInto`: linalg.EnvelopeCholeskyInPlace / EnvelopeSolveInto on the
  envelope stored row after row (row i's columns first[i]..i at val[ptr[i]:ptr[i + 1]]): the same sums in the same
  order, so the same bits, in O(envelope) memory (elimination.ReverseTreeSolve).

The kernels but ReverseTreeSolveSkyline allocate nothing and return no array: compiled without numba's runtime
(linalg.py's note).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, _nrt=False)
def PermutedEnvelopeInto(M, order, pos, bstart, Mp, first):
    """first[i] = the first column of row i of the lower triangle of Mp = M[order][:, order] holding a nonzero (i if
    none), and Mp[i, first[i]:i + 1] = M[order[i], order[first[i]:i + 1]], for an order (pos[order[k]] = k) that
    keeps each tree of bstart on consecutive positions. Mp's entries outside that envelope are not written (they
    are zero in the permuted M). Reads M only inside its trees' blocks."""
    for t in range(bstart.shape[0] - 1):
        s, e = bstart[t], bstart[t + 1]
        for a in range(s, e):
            i = pos[a]
            f = i
            for c in range(s, e):
                if M[a, c] != 0.0:
                    p = pos[c]
                    if p < f:
                        f = p
            first[i] = f
            for j in range(f, i + 1):
                Mp[i, j] = M[a, order[j]]


@njit(cache=True, _nrt=False)
def BlockCopyInto(M, dofs, lb, out):
    """out[r, c] = M[dofs[r], dofs[c]] for r, c in one block lb[k]:lb[k + 1] (an island's trees in its local dof
    numbering); out's entries between blocks are not written (M has none there)."""
    for k in range(lb.shape[0] - 1):
        for r in range(lb[k], lb[k + 1]):
            dr = dofs[r]
            for c in range(lb[k], lb[k + 1]):
                out[r, c] = M[dr, dofs[c]]


@njit(cache=True, _nrt=False)
def SkylineCholeskyInPlace(val, ptr, first):
    """linalg.EnvelopeCholeskyInPlace on the row envelope stored row after row: A[i, j] (first[i] <= j <= i) at
    val[ptr[i] + j - first[i]]; overwritten with L = chol(A). Returns False when A is not positive definite (a pivot
    not > 0: the caller raises)."""
    n = first.shape[0]
    for i in range(n):
        fi = first[i]
        oi = ptr[i] - fi
        for j in range(fi, i + 1):
            fj = first[j]
            oj = ptr[j] - fj
            k0 = max(fi, fj)
            t = val[oi + j]
            for k in range(k0, j):
                t -= val[oi + k] * val[oj + k]
            if j < i:
                val[oi + j] = t / val[oj + j]
            else:
                if not t > 0.0:
                    return False
                val[oi + i] = np.sqrt(t)
    return True


@njit(cache=True, _nrt=False)
def SkylineSolveInto(val, ptr, first, b, x):
    """linalg.EnvelopeSolveInto (x = (L L')⁻¹ b) for a factor from SkylineCholeskyInPlace; x may be b."""
    n = b.shape[0]
    for r in range(n):
        o = ptr[r] - first[r]
        acc = b[r]
        for k in range(first[r], r):
            acc -= val[o + k] * x[k]
        x[r] = acc / val[o + r]
    for r in range(n - 1, -1, -1):
        o = ptr[r] - first[r]
        x[r] /= val[o + r]
        xr = x[r]
        for k in range(first[r], r):
            x[k] -= val[o + k] * xr


@njit(cache=True)
def ReverseTreeSolveSkyline(M, bstart, b):
    """elimination.ReverseTreeSolve (x = M⁻¹ b by an envelope Cholesky in reverse dof order) with the factor's
    envelope stored row after row: O(Σ tree size²) memory and work instead of an nv × nv factor (72 MB at nv = 3000,
    mapped and unmapped every call); the same sums in the same order, so the same x. Raises
    np.linalg.LinAlgError if M is not positive definite."""
    n = M.shape[0]
    first = np.empty(n, dtype=np.int64)
    ptr = np.empty(n + 1, dtype=np.int64)
    for t in range(bstart.shape[0] - 1):
        s, e = bstart[t], bstart[t + 1]
        for a in range(s, e):
            far = a  # the highest dof coupled to a (its row's first column in the reversed order)
            for c in range(e - 1, a, -1):
                if M[a, c] != 0.0:
                    far = c
                    break
            first[n - 1 - a] = n - 1 - far
    ptr[0] = 0
    for i in range(n):
        ptr[i + 1] = ptr[i] + i - first[i] + 1
    val = np.empty(ptr[n])
    for i in range(n):
        a = n - 1 - i
        o = ptr[i] - first[i]
        for j in range(first[i], i + 1):
            val[o + j] = M[a, n - 1 - j]
    if not SkylineCholeskyInPlace(val, ptr, first):
        raise np.linalg.LinAlgError("matrix is not positive definite")
    bp = np.empty(n)
    for k in range(n):
        bp[k] = b[n - 1 - k]
    xp = np.empty(n)
    SkylineSolveInto(val, ptr, first, bp, xp)
    x = np.empty(n)
    for k in range(n):
        x[n - 1 - k] = xp[k]
    return x

