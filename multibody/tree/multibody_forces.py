"""MultibodyForces: applied body spatial forces F_Bo_W and generalized forces τ for one plant."""
from __future__ import annotations

import numpy as np


class MultibodyForces:
    """Body spatial forces (num_bodies × 6, F_Bo_W at Bo, in W) and generalized forces (nv)."""

    def __init__(self, plant=None, nb: int | None = None, nv: int | None = None):
        """MultibodyForces(plant) sized for a finalized plant, or MultibodyForces(nb, nv)."""
        if plant is not None and not hasattr(plant, "num_bodies"):
            plant, nb, nv = None, plant, nb  # MultibodyForces(nb, nv) by position
        if plant is not None:
            plant._ThrowIfNotFinalized("MultibodyForces")
            nb, nv = plant.num_bodies(), plant.num_velocities()
        if nb is None or nv is None:
            raise TypeError("MultibodyForces: pass a finalized plant, or nb and nv")
        self._F = np.zeros((int(nb), 6))
        self._tau = np.zeros(int(nv))

    def SetZero(self) -> "MultibodyForces":
        self._F[:] = 0.0
        self._tau[:] = 0.0
        return self

    def num_bodies(self) -> int:
        return self._F.shape[0]

    def num_velocities(self) -> int:
        return self._tau.shape[0]

    def generalized_forces(self) -> np.ndarray:
        """τ (read-only view)."""
        v = self._tau.view()
        v.flags.writeable = False
        return v

    def mutable_generalized_forces(self) -> np.ndarray:
        """τ (writable view)."""
        return self._tau

    def body_forces_array(self) -> np.ndarray:
        """F_Bo_W for every body, num_bodies × 6 [torque; force] (read-only view)."""
        v = self._F.view()
        v.flags.writeable = False
        return v

    def mutable_body_forces_array(self) -> np.ndarray:
        """F_Bo_W for every body (writable view)."""
        return self._F

    def AddInForces(self, addend: "MultibodyForces") -> None:
        """Add another MultibodyForces of the same plant into this one."""
        self._check_same_size(addend)
        self._F += addend._F
        self._tau += addend._tau

    def _check_same_size(self, other: "MultibodyForces") -> None:
        if other._F.shape != self._F.shape or other._tau.shape != self._tau.shape:
            raise ValueError("MultibodyForces objects belong to plants of different sizes")

    def CheckHasRightSizeForModel(self, plant) -> bool:
        """True if sized for `plant`."""
        return self._F.shape[0] == plant.num_bodies() and self._tau.shape[0] == plant.num_velocities()
