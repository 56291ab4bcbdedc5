"""Conversions between the math types (RigidTransform, SpatialInertia, ...) and raw numpy arrays.

Inputs are duck-typed so the builder accepts mallard or numpy values; outputs are built with
`mallard.multibody.math` (imported when first needed).
"""
from __future__ import annotations

import numpy as np


def pose_to_arrays(X, what: str = "pose") -> tuple[np.ndarray, np.ndarray]:
    """(R, p) from a RigidTransform-like X (GetAsMatrix4 or rotation()/translation()), a 4 × 4 array or None."""
    if X is None:
        return np.eye(3), np.zeros(3)
    if hasattr(X, "GetAsMatrix4"):
        T = np.asarray(X.GetAsMatrix4(), dtype=float)
    else:
        T = np.asarray(X, dtype=float)
        if T.shape != (4, 4):
            raise ValueError(f"{what}: expected a RigidTransform or a 4x4 homogeneous matrix, got shape {T.shape}")
    return T[:3, :3].copy(), T[:3, 3].copy()


def rotation_to_array(R, what: str = "rotation") -> np.ndarray:
    """3 × 3 array from a RotationMatrix-like object (matrix()) or an array."""
    M = np.asarray(R.matrix() if hasattr(R, "matrix") else R, dtype=float)
    if M.shape != (3, 3):
        raise ValueError(f"{what}: expected a RotationMatrix or 3x3 array, got shape {M.shape}")
    return M


def spatial_inertia_to_arrays(M_BBo_B, what: str = "spatial inertia") -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, p_BoBcm_B, I_BBo_B) from a SpatialInertia-like object (get_mass, get_com, CalcRotationalInertia)."""
    try:
        m = float(M_BBo_B.get_mass())
        com = np.asarray(M_BBo_B.get_com(), dtype=float).reshape(3)
        I = M_BBo_B.CalcRotationalInertia()
        I = np.asarray(I.CopyToFullMatrix3() if hasattr(I, "CopyToFullMatrix3") else I, dtype=float)
    except AttributeError as e:
        raise ValueError(f"{what}: expected a SpatialInertia (with get_mass, get_com, CalcRotationalInertia), "
                         f"got {type(M_BBo_B).__name__}") from e
    return m, com, I.reshape(3, 3)


def make_rigid_transform(R: np.ndarray, p: np.ndarray):
    """A mallard RigidTransform from R (3 × 3) and p (3)."""
    from mallard.multibody.math import RigidTransform, RotationMatrix
    return RigidTransform(RotationMatrix(np.array(R, dtype=float)), np.array(p, dtype=float))


def make_rotation_matrix(R: np.ndarray):
    """A mallard RotationMatrix from a 3 × 3 array."""
    from mallard.multibody.math import RotationMatrix
    return RotationMatrix(np.array(R, dtype=float))


def make_spatial(kind: str, V6: np.ndarray):
    """A mallard SpatialVelocity / SpatialAcceleration / SpatialForce / SpatialMomentum from a 6-vector."""
    import mallard.multibody.math as mm
    cls = getattr(mm, kind)
    return cls(np.array(V6[:3], dtype=float), np.array(V6[3:], dtype=float))


def spatial_to_array(F, what: str = "spatial vector") -> np.ndarray:
    """6-vector [angular; translational] from a Spatial* object (get_coeffs) or an array."""
    a = np.asarray(F.get_coeffs() if hasattr(F, "get_coeffs") else F, dtype=float).reshape(-1)
    if a.shape != (6,):
        raise ValueError(f"{what}: expected 6 entries [angular; translational], got {a.shape[0]}")
    return a


def make_spatial_inertia(mass: float, com: np.ndarray, I_BBo_B: np.ndarray):
    """A mallard SpatialInertia about Bo from mass, p_BoBcm_B and the rotational inertia about Bo."""
    from mallard.multibody.tree.spatial_inertia import SpatialInertia
    from mallard.multibody.tree.unit_inertia import UnitInertia
    G = np.asarray(I_BBo_B, dtype=float) / mass if mass != 0 else np.zeros((3, 3))
    U = UnitInertia(G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2])
    return SpatialInertia(mass, np.asarray(com, dtype=float), U, skip_validity_check=True)
