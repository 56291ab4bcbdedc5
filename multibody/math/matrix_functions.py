"""pydrake.math's matrix utilities: symmetry and definiteness tests, lower-triangular packing, principal
submatrices, PSD / quadratic-form decompositions and smooth max/min (Drake's math/matrix_util.h,
quadratic_form.h and soft_min_max.h, same conventions and tolerances)."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from ._validation import MathValueError

__all__ = ["BalanceQuadraticForms", "DecomposePSDmatrixIntoXtransposeTimesX", "DecomposePositiveQuadraticForm",
           "ExtractPrincipalSubmatrix", "IsPositiveDefinite", "IsSymmetric", "SoftOverMax", "SoftOverMin",
           "SoftUnderMax", "SoftUnderMin", "ToLowerTriangularColumnsFromMatrix",
           "ToSymmetricMatrixFromLowerTriangularColumns"]


def _matrix(M, what: str) -> np.ndarray:
    A = np.asarray(M, dtype=float)
    if A.ndim != 2:
        raise MathValueError(f"{what}: expected a matrix, got an array of shape {A.shape}")
    return A


def IsSymmetric(matrix, precision: float | None = None) -> bool:
    """True for a square matrix with M[i, j] == M[j, i] (or |M[i, j] − M[j, i]| ≤ precision when given)."""
    A = _matrix(matrix, "IsSymmetric")
    if A.shape[0] != A.shape[1]:
        return False
    if precision is None:
        return bool(np.array_equal(A, A.T))
    if not math.isfinite(precision) or not np.all(np.isfinite(A)):
        raise MathValueError("Cannot accept nans or inf is IsSymmetric")
    return bool(np.all(np.abs(A - A.T) <= precision))


def IsPositiveDefinite(matrix, tolerance: float = 0.0) -> bool:
    """True for an exactly symmetric matrix whose smallest eigenvalue ≥ tolerance · max(1, max |eigenvalue|)."""
    if tolerance < 0:
        raise MathValueError(f"IsPositiveDefinite: tolerance must be >= 0, got {tolerance}")
    A = _matrix(matrix, "IsPositiveDefinite")
    if not IsSymmetric(A, 0.0):
        return False
    eig = np.linalg.eigvalsh(A)
    return bool(eig.min() >= tolerance * max(1.0, float(np.abs(eig).max())))


def ToSymmetricMatrixFromLowerTriangularColumns(lower_triangular_columns) -> np.ndarray:
    """The symmetric matrix whose lower triangle, stacked column by column, is `lower_triangular_columns`."""
    v = np.asarray(lower_triangular_columns, dtype=float).reshape(-1)
    n = int((-1 + math.sqrt(1 + 8 * v.size)) / 2)
    if n * (n + 1) // 2 != v.size:
        raise MathValueError(f"ToSymmetricMatrixFromLowerTriangularColumns: {v.size} entries is not a triangular number")
    M, k = np.empty((n, n)), 0
    for j in range(n):
        M[j:, j] = v[k:k + n - j]
        M[j, j:] = v[k:k + n - j]
        k += n - j
    return M


def ToLowerTriangularColumnsFromMatrix(matrix) -> np.ndarray:
    """The lower triangle of a square matrix stacked column by column."""
    A = _matrix(matrix, "ToLowerTriangularColumnsFromMatrix")
    if A.shape[0] != A.shape[1]:
        raise MathValueError(f"ToLowerTriangularColumnsFromMatrix: expected a square matrix, got shape {A.shape}")
    return np.concatenate([A[c:, c] for c in range(A.shape[1])]) if A.size else np.zeros(0)


def ExtractPrincipalSubmatrix(matrix, indices: Iterable[int]) -> np.ndarray:
    """The submatrix of rows and columns `indices` (a non-empty set, used in increasing order)."""
    A = _matrix(matrix, "ExtractPrincipalSubmatrix")
    idx = sorted({int(i) for i in indices})
    if not idx or idx[0] < 0 or idx[-1] >= min(A.shape):
        raise MathValueError(f"ExtractPrincipalSubmatrix: indices {idx} must be non-empty and valid for a matrix of "
                         f"shape {A.shape}")
    return A[np.ix_(idx, idx)].copy()


def DecomposePSDmatrixIntoXtransposeTimesX(Y, zero_tol: float, return_empty_if_not_psd: bool = False) -> np.ndarray:
    """X with XᵀX = Y and rank(Y) rows: the Cholesky factor when Y > 0, else √λ·eigenvectorᵀ rows."""
    A = _matrix(Y, "DecomposePSDmatrixIntoXtransposeTimesX")
    if A.shape[0] != A.shape[1]:
        raise MathValueError("Y is not square.")
    if zero_tol < 0:
        raise MathValueError("zero_tol should be non-negative.")
    lower = np.tril(A) + np.tril(A, -1).T  # Drake reads only the lower triangle
    try:
        return np.linalg.cholesky(lower).T
    except np.linalg.LinAlgError:
        pass
    eig, vec = np.linalg.eigh(lower)
    rows = []
    for lam, v in zip(eig, vec.T):
        if lam < -zero_tol:
            if return_empty_if_not_psd:
                return np.zeros((0, A.shape[1]))
            raise MathValueError(f"Y is not positive semidefinite. It has an eigenvalue {lam} that is less than the "
                             f"tolerance {-zero_tol}.")
        if lam > zero_tol:
            rows.append(math.sqrt(lam) * v)
    return np.array(rows).reshape(len(rows), A.shape[1])


def DecomposePositiveQuadraticForm(Q, b, c: float, tol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(R, d) with (Rx + d)ᵀ(Rx + d) = xᵀQx + bᵀx + c, with as few rows as the rank of [Q b/2; bᵀ/2 c]."""
    Q = _matrix(Q, "DecomposePositiveQuadraticForm")
    b = np.asarray(b, dtype=float).reshape(-1)
    if Q.shape[0] != Q.shape[1]:
        raise MathValueError("Q should be a square matrix.")
    if b.size != Q.shape[0]:
        raise MathValueError("b does not have the right size.")
    n = Q.shape[0]
    M = np.empty((n + 1, n + 1))
    M[:n, :n] = 0.5 * (Q + Q.T)
    M[:n, n] = M[n, :n] = 0.5 * b
    M[n, n] = c
    A = DecomposePSDmatrixIntoXtransposeTimesX(M, tol)
    return A[:, :n], A[:, n:]


def BalanceQuadraticForms(S, P) -> np.ndarray:
    """T such that x = Ty makes TᵀST = D and |TᵀPT| = D⁻¹ diagonal (S > 0, P symmetric full rank)."""
    S, P = _matrix(S, "BalanceQuadraticForms"), _matrix(P, "BalanceQuadraticForms")
    tol = 1e-8
    if P.shape[0] != S.shape[0] or not IsPositiveDefinite(S, tol) or not IsSymmetric(P, tol):
        raise MathValueError("BalanceQuadraticForms: S must be positive definite and P symmetric, of the same size")
    R = np.linalg.inv(np.linalg.cholesky(S))
    U, sigma, _ = np.linalg.svd(R @ P @ R.T)
    if sigma[-1] < tol * max(1.0, sigma[0]):
        raise MathValueError("BalanceQuadraticForms: P must be full rank")
    return R.T @ U @ np.diag(sigma ** -0.25)


def _soft_args(x: Sequence[float], alpha: float, what: str) -> np.ndarray:
    v = np.asarray(x, dtype=float).reshape(-1)
    if v.size == 0:
        raise MathValueError(f"{what}: x must not be empty")
    if not (alpha > 0 and math.isfinite(alpha)):
        raise MathValueError(f"{what}: alpha must be positive and finite, got {alpha}")
    return v


def _log_sum_exp(v: np.ndarray, tare: float, a: float) -> float:
    return float(math.log(np.sum(np.exp(a * (v - tare)))) / a + tare)


def _weighted_mean(v: np.ndarray, tare: float, a: float) -> float:
    w = np.exp(a * (v - tare))
    return float(np.sum(w * v) / np.sum(w))


def SoftOverMax(x: Sequence[float], alpha: float = 1.0) -> float:
    """log(Σ exp(α xᵢ)) / α ≥ max(x)."""
    v = _soft_args(x, alpha, "SoftOverMax")
    return _log_sum_exp(v, float(v.max()), alpha)


def SoftUnderMax(x: Sequence[float], alpha: float = 1.0) -> float:
    """Σ exp(α xᵢ) xᵢ / Σ exp(α xᵢ) ≤ max(x)."""
    v = _soft_args(x, alpha, "SoftUnderMax")
    return _weighted_mean(v, float(v.max()), alpha)


def SoftOverMin(x: Sequence[float], alpha: float = 1.0) -> float:
    """Σ exp(−α xᵢ) xᵢ / Σ exp(−α xᵢ) ≥ min(x)."""
    v = _soft_args(x, alpha, "SoftOverMin")
    return _weighted_mean(v, float(v.min()), -alpha)


def SoftUnderMin(x: Sequence[float], alpha: float = 1.0) -> float:
    """−log(Σ exp(−α xᵢ)) / α ≤ min(x)."""
    v = _soft_args(x, alpha, "SoftUnderMin")
    return _log_sum_exp(v, float(v.min()), -alpha)
