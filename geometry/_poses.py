"""Conversions between pose objects (RigidTransform) and the (R 3x3, p 3) arrays the kernels use."""
from __future__ import annotations

import numpy as np


def as_Rp(X, what: str = "pose") -> tuple[np.ndarray, np.ndarray]:
    """(R, p) of a RigidTransform-like ``X`` (or a 4x4 homogeneous matrix; None = identity)."""
    if X is None:
        return np.eye(3), np.zeros(3)
    if hasattr(X, "rotation") and hasattr(X, "translation"):
        R = X.rotation()
        R = np.asarray(R.matrix() if hasattr(R, "matrix") else R, dtype=float)
        p = np.asarray(X.translation(), dtype=float).reshape(3)
    else:
        H = np.asarray(X, dtype=float)
        if H.shape != (4, 4):
            raise ValueError(f"{what} must be a RigidTransform or a 4x4 matrix; given {type(X).__name__} "
                             f"with shape {getattr(H, 'shape', None)}")
        R, p = H[:3, :3].copy(), H[:3, 3].copy()
    if R.shape != (3, 3) or not (np.all(np.isfinite(R)) and np.all(np.isfinite(p))):
        raise ValueError(f"{what} holds NaN or inf values")
    return R.copy(), p.copy()


def make_transform(R: np.ndarray, p: np.ndarray):
    """A RigidTransform from (R, p)."""
    from mallard.multibody.math import RigidTransform, RotationMatrix

    return RigidTransform(RotationMatrix(np.asarray(R, dtype=float)), np.asarray(p, dtype=float))
