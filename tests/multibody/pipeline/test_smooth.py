"""smooth.solve_spd_in_place: one- and two-dof systems factor in scalars with LAPACK's bits; larger ones call LAPACK's
potrf on the scratch as numba's np.linalg.cholesky does (its bits)."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from mallard.multibody.kernels.dynamics import cholesky_solve_in_place
from mallard.multibody.pipeline.smooth import solve_spd_in_place


@njit(cache=True)
def _numba_cholesky(M):
    return np.linalg.cholesky(M)


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_small_systems_give_lapacks_bits(n):
    """One and two dofs: LAPACK's factor (numpy's), then the same substitutions, bit for bit; more: numba's
    np.linalg.cholesky (the same LAPACK binding), then the same substitutions, bit for bit."""
    rng = np.random.default_rng(n)
    L = np.full((n, n), np.nan)  # the scratch's old contents do not matter
    for _ in range(200):
        A = rng.normal(size=(n, n)) * rng.uniform(0.01, 10.0)
        M = A @ A.T + np.diag(rng.uniform(1e-3, 1.0, n))
        M_in = M.copy()
        b = rng.normal(size=n)
        x = b.copy()
        solve_spd_in_place(M, L, x)
        np.testing.assert_array_equal(M, M_in)
        np.testing.assert_allclose(M @ x, b, rtol=1e-8, atol=1e-8)
        expected = b.copy()
        cholesky_solve_in_place.py_func(np.linalg.cholesky(M) if n <= 2 else _numba_cholesky(M), expected)
        np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize("M", [np.array([[0.0]]), np.array([[-1.0]]), np.array([[1.0, 2.0], [2.0, 1.0]]),
                               np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 2.0], [0.0, 2.0, 1.0]])])
def test_not_positive_definite_raises_as_lapack(M):
    n = M.shape[0]
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        solve_spd_in_place(M, np.empty((n, n)), np.ones(n))
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(M)
