"""Eigen-decomposition of a symmetric 3x3 matrix with the sign conventions of Eigen's SelfAdjointEigenSolver.

Drake computes principal axes of inertia with Eigen's solver, whose eigenvector signs are a by-product of
its algorithm (scale, Householder tridiagonalization, implicit symmetric QR steps with a Wilkinson shift,
then a selection sort of the eigenvalues). Any eigen-solver gives the same lines; this one follows those
steps so the returned unit vectors also point the same way as pydrake's.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["symmetric_eigen3"]

_TINY = np.finfo(float).tiny
_EPS = np.finfo(float).eps
_MAX_ITERATIONS = 30


def _givens(p: float, q: float) -> tuple[float, float]:
    """(c, s) of the plane rotation G with Gᵀ [p; q] = [r; 0] (Eigen's makeGivens convention)."""
    if q == 0.0:
        return (-1.0 if p < 0.0 else 1.0), 0.0
    if p == 0.0:
        return 0.0, (1.0 if q < 0.0 else -1.0)
    if abs(p) > abs(q):
        t = q / p
        u = math.sqrt(1.0 + t * t)
        if p < 0.0:
            u = -u
        c = 1.0 / u
        return c, -t * c
    t = p / q
    u = math.sqrt(1.0 + t * t)
    if q < 0.0:
        u = -u
    s = -1.0 / u
    return -t * s, s


def _tridiagonalize(A: np.ndarray):
    """(diag, subdiag, Q) with A = Q T Qᵀ, T tridiagonal; one Householder reflection for 3x3."""
    diag = np.array([A[0, 0], 0.0, 0.0])
    sub = np.zeros(2)
    v1norm2 = A[2, 0] * A[2, 0]
    if v1norm2 <= _TINY:
        diag[1], diag[2] = A[1, 1], A[2, 2]
        sub[0], sub[1] = A[1, 0], A[2, 1]
        return diag, sub, np.eye(3)
    beta = math.sqrt(A[1, 0] * A[1, 0] + v1norm2)
    m01, m02 = A[1, 0] / beta, A[2, 0] / beta
    q = 2.0 * m01 * A[2, 1] + m02 * (A[2, 2] - A[1, 1])
    diag[1] = A[1, 1] + m02 * q
    diag[2] = A[2, 2] - m02 * q
    sub[0] = beta
    sub[1] = A[2, 1] - m01 * q
    Q = np.array([[1.0, 0.0, 0.0], [0.0, m01, m02], [0.0, m02, -m01]])
    return diag, sub, Q


def _qr_step(diag: np.ndarray, sub: np.ndarray, start: int, end: int, Q: np.ndarray) -> None:
    """One implicit symmetric QR step with Wilkinson shift on rows start..end, accumulating into Q."""
    td = 0.5 * (diag[end - 1] - diag[end])
    e = sub[end - 1]
    mu = diag[end]
    if td == 0.0:
        mu -= abs(e)
    elif e != 0.0:
        e2 = e * e
        h = math.hypot(td, e)
        if e2 == 0.0:
            mu -= e / ((td + (h if td > 0.0 else -h)) / e)
        else:
            mu -= e2 / (td + (h if td > 0.0 else -h))
    x = diag[start] - mu
    z = sub[start]
    k = start
    while k < end and z != 0.0:
        c, s = _givens(x, z)
        sdk = s * diag[k] + c * sub[k]
        dkp1 = s * sub[k] + c * diag[k + 1]
        diag[k] = c * (c * diag[k] - s * sub[k]) - s * (c * sub[k] - s * diag[k + 1])
        diag[k + 1] = s * sdk + c * dkp1
        sub[k] = c * sdk - s * dkp1
        if k > start:
            sub[k - 1] = c * sub[k - 1] - s * z
        x = sub[k]
        if k < end - 1:
            z = -s * sub[k + 1]
            sub[k + 1] = c * sub[k + 1]
        qk, qk1 = Q[:, k].copy(), Q[:, k + 1].copy()
        Q[:, k] = c * qk - s * qk1
        Q[:, k + 1] = s * qk + c * qk1
        k += 1


def symmetric_eigen3(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues ascending, eigenvectors as columns) of the symmetric 3x3 matrix M (lower triangle used).

    Raises RuntimeError if the QR iteration does not converge (it does for any finite input).
    """
    A = np.tril(np.asarray(M, dtype=np.float64))
    scale = float(np.max(np.abs(A)))
    if scale == 0.0:
        scale = 1.0
    A = A / scale
    diag, sub, Q = _tridiagonalize(A)
    end, iterations = 2, 0
    while end > 0:
        for i in range(end):
            if abs(sub[i]) < _TINY:
                sub[i] = 0.0
            else:
                scaled = sub[i] / _EPS
                if scaled * scaled <= abs(diag[i]) + abs(diag[i + 1]):
                    sub[i] = 0.0
        while end > 0 and sub[end - 1] == 0.0:
            end -= 1
        if end <= 0:
            break
        iterations += 1
        if iterations > _MAX_ITERATIONS * 3:
            raise RuntimeError("symmetric_eigen3(): the QR iteration did not converge; is the matrix finite?")
        start = end - 1
        while start > 0 and sub[start - 1] != 0.0:
            start -= 1
        _qr_step(diag, sub, start, end, Q)
    for i in range(2):
        k = int(np.argmin(diag[i:]))
        if k > 0:
            diag[i], diag[i + k] = diag[i + k], diag[i]
            Q[:, [i, i + k]] = Q[:, [i + k, i]]
    return diag * scale, Q
