"""pydrake.math's algebraic Riccati and Lyapunov equation solvers, and ComputeNumericalGradient.

The equations are Drake's (continuous ARE SA + AᵀS − SBR⁻¹BᵀS + Q = 0, discrete ARE with optional cross term N,
AᵀX + XA + Q = 0, AᵀXA − X + Q = 0); the solutions come from scipy.linalg, with Drake's preconditions checked.
"""
from __future__ import annotations

import enum
import math
from typing import Callable

import numpy as np

from mallard.common.lazy_import import LazyModule
from ._validation import MathValueError

scipy_linalg = LazyModule("scipy.linalg")  # loaded on first use (import time)

__all__ = ["ComputeNumericalGradient", "ContinuousAlgebraicRiccatiEquation", "DiscreteAlgebraicRiccatiEquation",
           "NumericalGradientMethod", "NumericalGradientOption", "RealContinuousLyapunovEquation",
           "RealDiscreteLyapunovEquation"]

_EPS = 1e-10  # Drake's tolerance for the uniqueness checks of the Lyapunov solvers


def _square(M, name: str, what: str, n: int | None = None) -> np.ndarray:
    A = np.atleast_2d(np.asarray(M, dtype=float))
    if A.ndim != 2 or A.shape[0] != A.shape[1] or (n is not None and A.shape[0] != n):
        size = f" {n}x{n}" if n is not None else ""
        raise MathValueError(f"{what}: {name} must be a square{size} matrix, got shape {A.shape}")
    return A


def _check_pd(R: np.ndarray, what: str) -> None:
    if not np.allclose(R, R.T) or np.linalg.eigvalsh(0.5 * (R + R.T)).min() <= 0:
        raise MathValueError(f"{what}: R must be symmetric positive definite")


def ContinuousAlgebraicRiccatiEquation(A, B, Q, R) -> np.ndarray:
    """The stabilizing S of S A + Aᵀ S − S B R⁻¹ Bᵀ S + Q = 0."""
    what = "ContinuousAlgebraicRiccatiEquation"
    A = _square(A, "A", what)
    B = np.asarray(B, dtype=float).reshape(A.shape[0], -1)
    Q, R = _square(Q, "Q", what, A.shape[0]), _square(R, "R", what, B.shape[1])
    _check_pd(R, what)
    try:
        S = scipy_linalg.solve_continuous_are(A, B, Q, R)
    except (np.linalg.LinAlgError, ValueError) as err:
        raise MathValueError(f"{what}: no stabilizing solution ({err}); (A, B) must be stabilizable and (Q, A) "
                             "detectable") from None
    return 0.5 * (S + S.T)


def DiscreteAlgebraicRiccatiEquation(A, B, Q, R, N=None) -> np.ndarray:
    """The stabilizing X of AᵀXA − X − (AᵀXB + N)(BᵀXB + R)⁻¹(BᵀXA + Nᵀ) + Q = 0."""
    what = "DiscreteAlgebraicRiccatiEquation"
    A = _square(A, "A", what)
    B = np.asarray(B, dtype=float).reshape(A.shape[0], -1)
    Q, R = _square(Q, "Q", what, A.shape[0]), _square(R, "R", what, B.shape[1])
    _check_pd(R, what)
    if N is not None:
        N = np.asarray(N, dtype=float).reshape(A.shape[0], B.shape[1])
    try:
        X = scipy_linalg.solve_discrete_are(A, B, Q, R, None, N)
    except (np.linalg.LinAlgError, ValueError) as err:
        raise MathValueError(f"{what}: no stabilizing solution ({err}); (A, B) must be stabilizable and (A, C) "
                             "detectable with Q = CᵀC") from None
    return 0.5 * (X + X.T)


def RealContinuousLyapunovEquation(A, Q) -> np.ndarray:
    """The unique X of AᵀX + XA + Q = 0 (requires λᵢ + conj(λⱼ) ≠ 0 for all eigenvalues of A)."""
    what = "RealContinuousLyapunovEquation"
    A = _square(A, "A", what)
    Q = _square(Q, "Q", what, A.shape[0])
    lam = np.linalg.eigvals(A)
    if np.any(np.abs(lam[:, None] + np.conj(lam)[None, :]) < _EPS):
        raise MathValueError(f"{what}: the solution is not unique (A has eigenvalues with λᵢ + conj(λⱼ) = 0)")
    return scipy_linalg.solve_continuous_lyapunov(A.T, -Q)


def RealDiscreteLyapunovEquation(A, Q) -> np.ndarray:
    """The unique X of AᵀXA − X + Q = 0 (requires λᵢ λⱼ ≠ 1 for all eigenvalues of A)."""
    what = "RealDiscreteLyapunovEquation"
    A = _square(A, "A", what)
    Q = _square(Q, "Q", what, A.shape[0])
    lam = np.linalg.eigvals(A)
    if np.any(np.abs(lam[:, None] * lam[None, :] - 1.0) < _EPS):
        raise MathValueError(f"{what}: the solution is not unique (A has eigenvalues with λᵢ λⱼ = 1)")
    return scipy_linalg.solve_discrete_lyapunov(A.T, Q)


class NumericalGradientMethod(enum.IntEnum):
    """Finite-difference scheme of ComputeNumericalGradient."""
    kForward = 0   # (f(x + Δx) − f(x)) / Δx
    kBackward = 1  # (f(x) − f(x − Δx)) / Δx
    kCentral = 2   # (f(x + Δx) − f(x − Δx)) / 2Δx

    def __repr__(self) -> str:
        return f"<NumericalGradientMethod.{self.name}: {int(self)}>"


class NumericalGradientOption:
    """The scheme and step of ComputeNumericalGradient: Δxᵢ = max(|xᵢ|, 1) · perturbation_size, with
    perturbation_size = ∛accuracy for central differences and √accuracy otherwise."""

    NumericalGradientMethod = NumericalGradientMethod

    def __init__(self, method: NumericalGradientMethod, function_accuracy: float = 1e-15) -> None:
        self._method = NumericalGradientMethod(method)
        self._h = (math.pow(function_accuracy, 1.0 / 3.0) if self._method == NumericalGradientMethod.kCentral
                   else math.sqrt(function_accuracy))

    def method(self) -> NumericalGradientMethod:
        return self._method

    def perturbation_size(self) -> float:
        return self._h

    def __repr__(self) -> str:
        return f"<NumericalGradientOption({self._method!r})>"


def ComputeNumericalGradient(calc_func: Callable[[np.ndarray], np.ndarray], x,
                             option: NumericalGradientOption | None = None) -> np.ndarray:
    """The (len(f(x)), len(x)) Jacobian ∂f/∂x of calc_func at x by finite differences."""
    option = option or NumericalGradientOption(NumericalGradientMethod.kForward)
    x = np.asarray(x, dtype=float).reshape(-1)
    method, h0 = option.method(), option.perturbation_size()

    def f(z: np.ndarray) -> np.ndarray:
        return np.asarray(calc_func(z.copy()), dtype=float).reshape(-1)

    y0 = f(x) if method != NumericalGradientMethod.kCentral else None
    columns = []
    for i in range(x.size):
        h = max(h0, abs(x[i]) * h0)
        x_plus, x_minus = x.copy(), x.copy()
        if method != NumericalGradientMethod.kBackward:
            x_plus[i] += h
        if method != NumericalGradientMethod.kForward:
            x_minus[i] -= h
        y_plus = f(x_plus) if method != NumericalGradientMethod.kBackward else y0
        y_minus = f(x_minus) if method != NumericalGradientMethod.kForward else y0
        columns.append((y_plus - y_minus) / (x_plus[i] - x_minus[i]))
    return np.column_stack(columns) if columns else np.zeros((0 if y0 is None else y0.size, 0))
