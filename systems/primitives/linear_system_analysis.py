"""Controllability / observability tests of a LinearSystem (pydrake.systems.primitives free functions).

Ranks use QR with column pivoting and Eigen's default threshold (eps * min(rows, cols) relative to the
largest pivot), or the caller's `threshold`, so the answers agree with pydrake on borderline systems.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from mallard.common.lazy_import import LazyModule

scipy_linalg = LazyModule("scipy.linalg")  # loaded on first use (import time)


def _qr_rank(M: np.ndarray, threshold: Optional[float]) -> int:
    if M.size == 0:
        return 0
    R = scipy_linalg.qr(M, mode="r", pivoting=True)[0]
    d = np.abs(np.diag(R))
    if d.size == 0 or d[0] == 0.0:
        return 0
    thr = threshold if threshold is not None else np.finfo(float).eps * min(M.shape)
    return int(np.sum(d > thr * d[0]))


def ControllabilityMatrix(sys) -> np.ndarray:
    """R = [B, AB, ..., A^(n-1) B] of a LinearSystem (n states)."""
    A, B = np.asarray(sys.A(), dtype=float), np.asarray(sys.B(), dtype=float)
    n = A.shape[0]
    blocks, blk = [], B
    for _ in range(n):
        blocks.append(blk)
        blk = A @ blk
    return np.hstack(blocks) if blocks else np.zeros((0, B.shape[1]))


def IsControllable(sys, threshold: Optional[float] = None) -> bool:
    """True iff the controllability matrix has full row rank."""
    return _qr_rank(ControllabilityMatrix(sys), threshold) == np.asarray(sys.A()).shape[0]


def ObservabilityMatrix(sys) -> np.ndarray:
    """O = [C; CA; ...; C A^(n-1)] of a LinearSystem (n states)."""
    A, C = np.asarray(sys.A(), dtype=float), np.asarray(sys.C(), dtype=float)
    n = A.shape[0]
    blocks, blk = [], C
    for _ in range(n):
        blocks.append(blk)
        blk = blk @ A
    return np.vstack(blocks) if blocks else np.zeros((C.shape[0], 0))


def IsObservable(sys, threshold: Optional[float] = None) -> bool:
    """True iff the observability matrix has full column rank."""
    return _qr_rank(ObservabilityMatrix(sys), threshold) == np.asarray(sys.A()).shape[0]


def _pbh_stabilizable(A: np.ndarray, B: np.ndarray, discrete: bool, threshold: Optional[float]) -> bool:
    """Popov-Belevitch-Hautus test: rank [lambda I - A, B] = n for every not-strictly-stable eigenvalue."""
    n = A.shape[0]
    for lam in np.linalg.eigvals(A) if n else []:
        if (not discrete and lam.real < 0.0) or (discrete and abs(lam) < 1.0):
            continue
        M = np.hstack([lam * np.eye(n) - A, B.astype(complex)])
        if _qr_rank(M, threshold) < n:
            return False
    return True


def IsStabilizable(sys, threshold: Optional[float] = None) -> bool:
    """True iff every unstable mode of (A, B) is controllable (continuous: Re >= 0; discrete: |.| >= 1)."""
    return _pbh_stabilizable(np.asarray(sys.A(), dtype=float), np.asarray(sys.B(), dtype=float),
                             sys.time_period() > 0.0, threshold)


def IsDetectable(sys, threshold: Optional[float] = None) -> bool:
    """True iff every unstable mode of (A, C) is observable (the dual of IsStabilizable)."""
    return _pbh_stabilizable(np.asarray(sys.A(), dtype=float).T, np.asarray(sys.C(), dtype=float).T,
                             sys.time_period() > 0.0, threshold)
