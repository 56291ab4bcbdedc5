"""Argument checks shared by the controllers: gain vectors, cost matrices, multibody plants."""
from __future__ import annotations

import numpy as np

from mallard.systems.primitives._util import as_matrix, as_vector


def gain_vector(value, what: str) -> np.ndarray:
    """A finite gain vector (a scalar becomes size 1)."""
    return as_vector(value, what, finite=True)


def matrix(value, what: str) -> np.ndarray:
    """A finite matrix (a 1-D array is one row, a scalar 1x1, an empty input 0x0)."""
    return as_matrix(value, what, finite=True)


def same_size_gains(kp, ki, kd, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """kp, ki, kd as vectors of one common size (empty for a plant without positions, as Drake allows)."""
    kp_ = gain_vector(kp, f"{what}: kp")
    ki_ = gain_vector(ki, f"{what}: ki")
    kd_ = gain_vector(kd, f"{what}: kd")
    if not (kp_.size == ki_.size == kd_.size):
        raise ValueError(f"{what}: gains must have equal length: |Kp| = {kp_.size}, |Ki| = {ki_.size}, "
                         f"|Kd| = {kd_.size}")
    return kp_, ki_, kd_


def finalized_plant(plant, what: str):
    """`plant` if it is a finalized MultibodyPlant (duck-typed on its API); clear errors otherwise."""
    for name in ("is_finalized", "CalcInverseDynamics", "num_positions", "num_velocities", "num_actuated_dofs"):
        if not hasattr(plant, name):
            raise TypeError(f"{what}: expected a MultibodyPlant, got {type(plant).__name__}")
    if not plant.is_finalized():
        raise RuntimeError(f"{what}: the MultibodyPlant '{plant.get_name()}' is not finalized; call "
                           "plant.Finalize() before building a controller for it")
    return plant


def plant_context_copy(plant, plant_context, what: str):
    """A private copy of `plant_context` (or a default context of `plant` when it is None)."""
    if plant_context is None:
        return plant.CreateDefaultContext()
    try:
        plant.ValidateContext(plant_context)
    except (RuntimeError, ValueError) as err:
        raise ValueError(f"{what}: plant_context is not a context of the MultibodyPlant '{plant.get_name()}' "
                         f"({err})") from None
    return plant_context.Clone()


def require_fully_actuated(plant, what: str) -> None:
    """nq == nv == number of actuated dofs, else a ValueError that says why."""
    nq, nv, nu = plant.num_positions(), plant.num_velocities(), plant.num_actuated_dofs()
    if nq != nv:
        raise ValueError(f"{what}: the plant '{plant.get_name()}' has {nq} positions but {nv} velocities; "
                         "only plants with num_positions == num_velocities (no quaternion floating base) are "
                         "supported")
    if nu != nv:
        raise ValueError(f"{what}: the plant '{plant.get_name()}' has {nv} velocities but only {nu} actuated "
                         "dofs; only fully-actuated robots are supported (add a JointActuator to every joint, "
                         "or use a separate control plant without unactuated objects)")
