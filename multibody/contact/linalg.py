"""Small dense/sparse linear-algebra kernels for the constraint solvers, in plain compiled loops.

They avoid BLAS/LAPACK on purpose: the matrices here are small (nv ~ 10-200) and constraint rows
are sparse, where a threaded BLAS only adds overhead (and stalls badly on a busy machine).

Reference counts. A compiled function increments the reference count of each array it is passed when it starts and
decrements it after the array's last use (numba's NRT_incref / NRT_decref: a call and an atomic update each), and
numba's pruning pass removes these pairs only in simple cases (not when the arrays' last uses fall at different
points, nor around a call to another compiled function or an early return). The kernels the solvers call per
iteration (here, elimination.py, newton_hessian.py, primal_search.py, primal_solver.py) allocate nothing and
return no array, so they are compiled without numba's runtime (`_nrt=False`): no reference counting at all, the
same arithmetic. Those counts were about a quarter of the constraint solve's time on benchmarks/contact.py's pile.
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
    buf = np.empty(m * n, dtype=np.int64)
    start = np.empty(m + 1, dtype=np.int64)
    k = 0
    for i in range(m):  # one pass into a buffer of the dense size, trimmed after
        start[i] = k
        for j in range(n):
            if J[i, j] != 0.0:
                buf[k] = j
                k += 1
    start[m] = k
    return buf[:k].copy(), start


@njit(cache=True)
def RowSupportIn(J, first, ident, chain, adr):
    """RowSupport(J) of a J whose rows i >= first (contact rows) are zero outside the columns
    chain[adr[ident[i]]:adr[ident[i] + 1]] (ascending; kernels/contact_kernels.ContactChains): the same supports,
    searched over those columns only."""
    buf = np.empty(RowSupportInSize(J, first, ident, adr), dtype=np.int64)
    start = np.empty(J.shape[0] + 1, dtype=np.int64)
    k = RowSupportInInto(J, first, ident, chain, adr, buf, start)
    return buf[:k].copy(), start


@njit(cache=True, _nrt=False)
def RowSupportInSize(J, first, ident, adr):
    """The most entries RowSupportIn can find (the size of RowSupportInInto's buf)."""
    size = first * J.shape[1]
    for i in range(first, J.shape[0]):
        size += adr[ident[i] + 1] - adr[ident[i]]
    return size


@njit(cache=True, _nrt=False)
def RowSupportInInto(J, first, ident, chain, adr, buf, start):
    """RowSupportIn into buf (RowSupportInSize entries at least) and start (rows + 1); returns the entries found."""
    m, n = J.shape
    k = 0
    for i in range(m):
        start[i] = k
        if i < first:
            for j in range(n):
                if J[i, j] != 0.0:
                    buf[k] = j
                    k += 1
        else:
            for p in range(adr[ident[i]], adr[ident[i] + 1]):
                j = chain[p]
                if J[i, j] != 0.0:
                    buf[k] = j
                    k += 1
    start[m] = k
    return k


@njit(cache=True, _nrt=False)
def SparseMatVecMinus(J, idx, start, x, b, y):
    """y = J @ x - b using the row supports of J (y is overwritten)."""
    for i in range(J.shape[0]):
        acc = 0.0
        for k in range(start[i], start[i + 1]):
            j = idx[k]
            acc += J[i, j] * x[j]
        y[i] = acc - b[i]


@njit(cache=True, _nrt=False)
def SparseMatVecInto(J, idx, start, x, y):
    """y = J @ x using the row supports of J (y is overwritten)."""
    for i in range(J.shape[0]):
        acc = 0.0
        for k in range(start[i], start[i + 1]):
            j = idx[k]
            acc += J[i, j] * x[j]
        y[i] = acc


@njit(cache=True, _nrt=False)
def SparseMatTVec(J, idx, start, x, out):
    """out = J' @ x using the row supports of J (out is overwritten)."""
    out[:] = 0.0
    for i in range(J.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for k in range(start[i], start[i + 1]):
                j = idx[k]
                out[j] += J[i, j] * xi


@njit(cache=True, _nrt=False)
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
    """Lower-triangular L with L L' = A (zeros outside A's row envelope, where no fill occurs); raises
    np.linalg.LinAlgError if A is not positive definite. The dense factorization with the products by the
    structural zeros left out: row i of L is zero before its first nonzero of A (EnvelopeFirst), so each sum
    L[i, j]·L[j, j] = A[i, j] − Σ L[i, k]·L[j, k] runs over k from max(first[i], first[j]) up, which is
    EnvelopeCholesky's: the dense sums in the same order (the terms dropped are exact zeros at their start), so the
    same L; a tree-sparse mass matrix (block-diagonal for free bodies) costs O(n·b²) instead of O(n³)."""
    return EnvelopeCholesky(A, EnvelopeFirst(A))


@njit(cache=True)
def LowerSolveRows(L, J):
    """Y = (L⁻¹ J')' for a lower-triangular L (nv, nv) and rows J (m, nv): row i of Y solves L y = J[i], so that
    J M⁻¹ J' = Y Y' when L L' = M. Each substitution's sum starts at the first nonzero of L's row (the terms
    before it are exact zeros): the dense sums in the same order."""
    m, n = J.shape
    first = EnvelopeFirst(L)
    Y = np.zeros((m, n))
    for i in range(m):
        for r in range(n):
            acc = J[i, r]
            for k in range(first[r], r):
                acc -= L[r, k] * Y[i, k]
            Y[i, r] = acc / L[r, r]
    return Y


@njit(cache=True)
def CholeskySolve(L, b):
    """x = (L L')⁻¹ b for a Cholesky factor L (Cholesky): forward then back substitution with the dense sums'
    order (kernels/dynamics.cholesky_solve's), the products by L's structural zeros left out (row envelopes:
    the forward sum starts at the row's first nonzero, the backward one skips rows whose envelope starts after
    the column)."""
    n = b.shape[0]
    first = EnvelopeFirst(L)
    x = b.copy()
    for i in range(n):
        s = x[i]
        for k in range(first[i], i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            if first[k] <= i:
                s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    return x


@njit(cache=True)
def EnvelopeFirst(A):
    """first[i] = column of the first nonzero of row i of the lower triangle of A (i if none before it)."""
    first = np.empty(A.shape[0], dtype=np.int64)
    EnvelopeFirstInto(A, first)
    return first


@njit(cache=True, _nrt=False)
def EnvelopeFirstInto(A, first):
    """EnvelopeFirst into `first` (n,)."""
    n = A.shape[0]
    for i in range(n):
        f = i
        for j in range(i):
            if A[i, j] != 0.0:
                f = j
                break
        first[i] = f


@njit(cache=True, _nrt=False)
def EnvelopeCholeskyInPlace(A, first):
    """Overwrite the row envelope of A's lower triangle (A[i, first[i]:i + 1]) with L = chol(A); entries
    outside the envelope are neither read nor written (Cholesky keeps L[i, k] = 0 for k < first[i]), so
    for a tree-ordered or block-diagonal A almost all of the dense work is skipped.
    Raises np.linalg.LinAlgError if A is not positive definite."""
    n = A.shape[0]
    for i in range(n):
        fi = first[i]
        for j in range(fi, i + 1):
            k0 = max(fi, first[j])
            t = A[i, j]
            for k in range(k0, j):
                t -= A[i, k] * A[j, k]
            if j < i:
                A[i, j] = t / A[j, j]
            else:
                if not t > 0.0:
                    raise np.linalg.LinAlgError("matrix is not positive definite")
                A[i, i] = np.sqrt(t)


@njit(cache=True)
def EnvelopeCholesky(A, first):
    """Lower-triangular L = chol(A) (zeros above the diagonal and outside the envelope), computed only
    inside A's row envelope `first` (EnvelopeFirst). Raises np.linalg.LinAlgError if A is not positive
    definite."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for i in range(n):
        for j in range(first[i], i + 1):
            L[i, j] = A[i, j]
    EnvelopeCholeskyInPlace(L, first)
    return L


@njit(cache=True)
def EnvelopeSolve(L, first, b):
    """Solve (L L') x = b for an envelope factor L from EnvelopeCholesky."""
    x = np.empty(b.shape[0])
    EnvelopeSolveInto(L, first, b, x)
    return x


@njit(cache=True, _nrt=False)
def EnvelopeSolveInto(L, first, b, x):
    """EnvelopeSolve into x (n,), which may be b."""
    n = b.shape[0]
    for r in range(n):
        acc = b[r]
        for k in range(first[r], r):
            acc -= L[r, k] * x[k]
        x[r] = acc / L[r, r]
    for r in range(n - 1, -1, -1):
        x[r] /= L[r, r]
        xr = x[r]
        for k in range(first[r], r):
            x[k] -= L[r, k] * xr
