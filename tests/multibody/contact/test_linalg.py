"""The PGS / noslip factorization kernels of contact/linalg.py skip the structural zeros of a tree-sparse mass
matrix: their results equal the dense column-by-column Cholesky and substitutions (written out here) bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.multibody.contact.linalg import Cholesky, CholeskySolve, LowerSolveRows


def _tree_spd(rng):
    """Free-body blocks (6), a 3-dof chain, and one coupling far from the diagonal: an SPD matrix with zeros."""
    n = 21
    M = np.zeros((n, n))
    for s, e in ((0, 6), (6, 12), (12, 15), (15, 21)):
        A = rng.normal(size=(e - s, e - s))
        M[s:e, s:e] = A @ A.T + (e - s) * np.eye(e - s)
    M[19, 3] = M[3, 19] = 0.25
    return M


def _dense_cholesky(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    return L


def test_cholesky_and_solves_equal_the_dense_algorithm_bit_for_bit():
    rng = np.random.default_rng(7)
    M = _tree_spd(rng)
    L = Cholesky(M)
    ref = _dense_cholesky(M)
    assert np.array_equal(L, ref)
    J = rng.normal(size=(4, 21)) * (rng.random((4, 21)) < 0.4)
    Y = LowerSolveRows(L, J)
    Yref = np.zeros_like(J)
    for i in range(J.shape[0]):
        for r in range(21):
            acc = J[i, r]
            for k in range(r):
                acc -= ref[r, k] * Yref[i, k]
            Yref[i, r] = acc / ref[r, r]
    assert np.array_equal(Y, Yref)
    b = rng.normal(size=21)
    x = b.copy()
    for i in range(21):
        s = x[i]
        for k in range(i):
            s -= ref[i, k] * x[k]
        x[i] = s / ref[i, i]
    for i in range(20, -1, -1):
        s = x[i]
        for k in range(i + 1, 21):
            s -= ref[k, i] * x[k]
        x[i] = s / ref[i, i]
    assert np.array_equal(CholeskySolve(L, b), x)
    np.testing.assert_allclose(CholeskySolve(L, b), np.linalg.solve(M, b), rtol=1e-10)
    bad = M.copy()
    bad[13, 13] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        Cholesky(bad)
