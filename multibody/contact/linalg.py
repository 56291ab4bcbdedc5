"""Small dense/sparse linear-algebra kernels for the constraint solvers, in plain compiled loops.

They avoid BLAS/LAPACK on purpose: the matrices here are small (nv ~ 10-200) and constraint rows
are sparse, where a threaded BLAS only adds overhead (and stalls badly on a busy machine).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def MatVec(A, x):
    """A @ x for a dense (m, n) A."""
    m, n = A.shape
    y = np.zeros(m)
    for i in range(m):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * x[j]
        y[i] = acc
    return y


@njit(cache=True)
def MatTVec(A, x):
    """A' @ x for a dense (m, n) A."""
    m, n = A.shape
    y = np.zeros(n)
    for i in range(m):
        xi = x[i]
        if xi != 0.0:
            for j in range(n):
                y[j] += A[i, j] * xi
    return y


@njit(cache=True)
def RowSupport(J):
    """Column indices of the nonzeros of each row: (index array, row start offsets)."""
    m, n = J.shape
    count = 0
    for i in range(m):
        for j in range(n):
            if J[i, j] != 0.0:
                count += 1
    idx = np.empty(count, dtype=np.int64)
    start = np.empty(m + 1, dtype=np.int64)
    k = 0
    for i in range(m):
        start[i] = k
        for j in range(n):
            if J[i, j] != 0.0:
                idx[k] = j
                k += 1
    start[m] = k
    return idx, start


@njit(cache=True)
def SparseMatVec(J, idx, start, x):
    """J @ x using the row supports of J."""
    m = J.shape[0]
    y = np.zeros(m)
    for i in range(m):
        acc = 0.0
        for k in range(start[i], start[i + 1]):
            j = idx[k]
            acc += J[i, j] * x[j]
        y[i] = acc
    return y


@njit(cache=True)
def SparseMatTVec(J, idx, start, x, out):
    """out = J' @ x using the row supports of J (out is overwritten)."""
    out[:] = 0.0
    for i in range(J.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for k in range(start[i], start[i + 1]):
                j = idx[k]
                out[j] += J[i, j] * xi


@njit(cache=True)
def AddRowOuter(H, J, idx, start, i, w):
    """H += w * J[i]' J[i] over the support of row i."""
    for a in range(start[i], start[i + 1]):
        ja = idx[a]
        va = w * J[i, ja]
        for b in range(start[i], start[i + 1]):
            jb = idx[b]
            H[ja, jb] += va * J[i, jb]


@njit(cache=True)
def Cholesky(A):
    """Lower-triangular L with L L' = A; raises np.linalg.LinAlgError if A is not positive definite."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 0.0:
            raise np.linalg.LinAlgError("matrix is not positive definite")
        d = np.sqrt(s)
        L[j, j] = d
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / d
    return L


@njit(cache=True)
def CholSolve(L, b):
    """Solve (L L') x = b for lower-triangular L."""
    n = b.shape[0]
    y = np.empty(n)
    for r in range(n):
        acc = b[r]
        for k in range(r):
            acc -= L[r, k] * y[k]
        y[r] = acc / L[r, r]
    x = np.empty(n)
    for r in range(n - 1, -1, -1):
        acc = y[r]
        for k in range(r + 1, n):
            acc -= L[k, r] * x[k]
        x[r] = acc / L[r, r]
    return x
