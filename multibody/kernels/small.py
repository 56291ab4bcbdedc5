"""Allocation-free 3-vector / 3 × 3 helpers for the compiled kernels (BLAS is slow at this size)."""
from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def matmul3(A, B, C):
    """C = A·B for 3 × 3 arrays (C must not alias A or B)."""
    for i in range(3):
        for j in range(3):
            C[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit(cache=True, inline="always")
def matvec3(A, x, y):
    """y = A·x for a 3 × 3 A (y must not alias x)."""
    for i in range(3):
        y[i] = A[i, 0] * x[0] + A[i, 1] * x[1] + A[i, 2] * x[2]


@njit(cache=True, inline="always")
def matTvec3(A, x, y):
    """y = Aᵀ·x for a 3 × 3 A (y must not alias x)."""
    for i in range(3):
        y[i] = A[0, i] * x[0] + A[1, i] * x[1] + A[2, i] * x[2]


@njit(cache=True, inline="always")
def cross_into(a, b, c):
    """c = a × b (c must not alias a or b)."""
    c[0] = a[1] * b[2] - a[2] * b[1]
    c[1] = a[2] * b[0] - a[0] * b[2]
    c[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True, inline="always")
def cross_add(a, b, c):
    """c += a × b."""
    c[0] += a[1] * b[2] - a[2] * b[1]
    c[1] += a[2] * b[0] - a[0] * b[2]
    c[2] += a[0] * b[1] - a[1] * b[0]


@njit(cache=True, _nrt=False)
def copy_head_into(src, dst, n):
    """dst[:n] = src when the vector src has n entries (True), else False with dst untouched: a state write from
    Python (at 7 entries a compiled entry costs half of numpy's slice assignment; the entry takes any stride and
    checks the length itself, so its caller checks only the type and dtype; compiled without numba's runtime: no
    reference counting of its arguments)."""
    if src.shape[0] != n:
        return False
    for i in range(n):
        dst[i] = src[i]
    return True
