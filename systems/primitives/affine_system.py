"""Linear and affine state-space systems: AffineSystem, LinearSystem, MatrixGain (pydrake.systems.primitives).

Continuous (time_period == 0):  xdot = A x + B u + f0,        y = C x + D u + y0.
Discrete  (time_period  > 0):  x[n+1] = A x[n] + B u[n] + f0 (periodic update, offset 0), y = C x + D u + y0.
Ports: input u0 when there are inputs, output y0 when there are outputs; y0 is direct feedthrough only
when D has a non-zero entry.
"""
from __future__ import annotations

import numpy as np

from ._util import as_matrix, as_vector
from .time_varying_affine_system import TimeVaryingAffineSystem


def _dims(A, B, f0, C, D, y0) -> tuple[int, int, int]:
    """(num_states, num_inputs, num_outputs) implied by the non-empty coefficients; ValueError if they disagree."""
    def pick(what: str, candidates: list[tuple[str, int]]) -> int:
        vals = {v for _, v in candidates}
        if len(vals) > 1:
            listing = ", ".join(f"{n}={v}" for n, v in candidates)
            raise ValueError(f"AffineSystem: inconsistent {what}: {listing}")
        return vals.pop() if vals else 0

    def given(M) -> bool:
        return M.shape != (0, 0)

    n = pick("number of states", [(k, v) for k, v, ok in (
        ("A.rows", A.shape[0], given(A)), ("A.cols", A.shape[1], given(A)), ("B.rows", B.shape[0], given(B)),
        ("f0.size", f0.size, f0.size > 0), ("C.cols", C.shape[1], given(C))) if ok])
    m = pick("number of inputs", [(k, v) for k, v, ok in (
        ("B.cols", B.shape[1], given(B)), ("D.cols", D.shape[1], given(D))) if ok])
    p = pick("number of outputs", [(k, v) for k, v, ok in (
        ("C.rows", C.shape[0], given(C)), ("D.rows", D.shape[0], given(D)), ("y0.size", y0.size, y0.size > 0))
        if ok])
    return n, m, p


def _fill(M: np.ndarray, rows: int, cols: int) -> np.ndarray:
    return M if M.shape == (rows, cols) else np.zeros((rows, cols))


class AffineSystem(TimeVaryingAffineSystem):
    """x' = A x + B u + f0 (or x[n+1] = ... when time_period > 0), y = C x + D u + y0; empty = zero."""

    def __init__(self, A=None, B=None, f0=None, C=None, D=None, y0=None, time_period: float = 0.0) -> None:
        mats = [as_matrix(np.zeros((0, 0)) if M is None else M, f"AffineSystem: {name}")
                for M, name in ((A, "A"), (B, "B"), (C, "C"), (D, "D"))]
        vecs = [as_vector(np.zeros(0) if v is None else v, f"AffineSystem: {name}") for v, name in ((f0, "f0"),
                                                                                                   (y0, "y0"))]
        A_, B_, C_, D_ = mats
        f0_, y0_ = vecs
        n, m, p = _dims(A_, B_, f0_, C_, D_, y0_)
        self._A, self._B, self._f0 = _fill(A_, n, n), _fill(B_, n, m), f0_ if f0_.size else np.zeros(n)
        self._C, self._D, self._y0 = _fill(C_, p, n), _fill(D_, p, m), y0_ if y0_.size else np.zeros(p)
        # y0 is direct feedthrough only when D has a non-zero entry.
        super().__init__(n, m, p, time_period, direct_feedthrough=bool(np.any(self._D != 0.0)))

    def _coefficients(self, t: float) -> tuple:
        return self._A, self._B, self._f0, self._C, self._D, self._y0

    # ---- coefficients -----------------------------------------------------------------------------
    def A(self) -> np.ndarray:
        return self._A.copy()

    def B(self) -> np.ndarray:
        return self._B.copy()

    def f0(self) -> np.ndarray:
        return self._f0.copy()

    def C(self) -> np.ndarray:
        return self._C.copy()

    def D(self) -> np.ndarray:
        return self._D.copy()

    def y0(self) -> np.ndarray:
        return self._y0.copy()

    def UpdateCoefficients(self, A, B, f0, C, D, y0) -> None:
        """Replace all coefficients by ones of the same sizes (the feedthrough structure is kept)."""
        new = []
        for name, value, ref in (("A", A, self._A), ("B", B, self._B), ("C", C, self._C), ("D", D, self._D)):
            M = as_matrix(value, f"UpdateCoefficients: {name}")
            M = _fill(M, *ref.shape) if M.size == 0 else M
            if M.shape != ref.shape:
                raise ValueError(f"UpdateCoefficients: {name} must be {ref.shape}, got {M.shape}")
            new.append(M)
        vecs = []
        for name, value, ref in (("f0", f0, self._f0), ("y0", y0, self._y0)):
            v = as_vector(value, f"UpdateCoefficients: {name}")
            v = np.zeros(ref.size) if v.size == 0 else v
            if v.shape != ref.shape:
                raise ValueError(f"UpdateCoefficients: {name} must have size {ref.size}, got {v.size}")
            vecs.append(v)
        if not np.any(self._D != 0.0) and np.any(new[3] != 0.0):
            raise ValueError("UpdateCoefficients: D was zero (no direct feedthrough declared); it must stay zero")
        self._A, self._B, self._C, self._D = new
        self._f0, self._y0 = vecs


class LinearSystem(AffineSystem):
    """x' = A x + B u (or x[n+1] = A x + B u when time_period > 0), y = C x + D u."""

    def __init__(self, A=None, B=None, C=None, D=None, time_period: float = 0.0) -> None:
        super().__init__(A, B, None, C, D, None, time_period)


class MatrixGain(LinearSystem):
    """y0 = D u0 (a stateless LinearSystem); `MatrixGain(D)` or `MatrixGain(size)` for the identity."""

    def __init__(self, D) -> None:
        if isinstance(D, (int, np.integer)) and not isinstance(D, bool):
            if D <= 0:
                raise ValueError(f"MatrixGain: size must be positive, got {D}")
            D = np.eye(int(D))
        Dm = as_matrix(D, "MatrixGain: D")
        if Dm.size == 0:
            raise ValueError("MatrixGain: D must not be empty")
        super().__init__(np.zeros((0, 0)), np.zeros((0, Dm.shape[1])), np.zeros((Dm.shape[0], 0)), Dm)
