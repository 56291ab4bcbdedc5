"""3 × 3 matrix products in scalars, rounded as the BLAS call numba makes for `A @ B` (dgemm) rounds them here: per
entry one product then two fused multiply-adds over k = 0, 1, 2 (checked against those calls on 200k random pairs,
as geometry/collision/blas_rounding.py checks its ddot / gemv helpers). Small kernels that build frames per body or
per site per step (fluid items, site transmissions) use them instead of `@` on 3 × 3 arrays, whose calls and
temporaries cost more than the arithmetic, and keep their results bit for bit."""
from __future__ import annotations

from numba import njit

from mallard.geometry.collision.blas_rounding import _fma

__all__ = ["matmul33_into"]


@njit(cache=True, error_model="numpy", inline="always")
def matmul33_into(A, B, out):
    """out = A @ B for 3 × 3 A and B (out must not alias them), rounded as numba's BLAS dgemm call rounds it here."""
    for i in range(3):
        for j in range(3):
            out[i, j] = _fma(A[i, 2], B[2, j], _fma(A[i, 1], B[1, j], A[i, 0] * B[0, j]))
