"""CompiledModel: the flat arrays Finalize() produces (like mjModel), consumed by the pipeline."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class CompiledModel:
    """Flat, read-only description of a finalized multibody tree.

    Rows of `ji` / `jf` are per body: the joint whose child is that body (row 0, the world, unused).
    `ji` columns: parent body, joint type, q start, nq, v start, nv.  `jf` columns: R_PF (9, row-major),
    p_PF (3), R_MB (9), p_MB (3), axis (3), pitch (1); F is the joint's parent-side frame expressed in
    the parent body P, M its child-side frame, so X_WB = X_WP·X_PF·X_FM(q)·X_MB.
    `body_params` (nb × 13) holds default mass, p_BoBcm_B and I_BBo_B (row-major) per body.
    """

    nb: int
    nq: int
    nv: int
    nu: int
    order: np.ndarray            # body indices, parents before children (depth first), world excluded
    ji: np.ndarray               # (nb, 6) int64
    jf: np.ndarray               # (nb, 28) float64
    body_params: np.ndarray      # (nb, 13) default mass properties
    reflected_inertia: np.ndarray  # (nv,) rotor inertia × gear ratio² on the diagonal of M
    damping: np.ndarray          # (nv,) joint viscous damping
    joint_of_body: np.ndarray    # (nb,) inboard joint index (-1 for the world)
    actuator_dofs: np.ndarray    # (nu,) velocity index driven by each actuator
    q_lower: np.ndarray = field(default=None)
    q_upper: np.ndarray = field(default=None)
    v_lower: np.ndarray = field(default=None)
    v_upper: np.ndarray = field(default=None)
    a_lower: np.ndarray = field(default=None)
    a_upper: np.ndarray = field(default=None)
    quaternion_starts: np.ndarray = field(default=None)  # q index of qw for every quaternion joint

    def __post_init__(self) -> None:
        dofs = np.asarray(self.actuator_dofs)
        self.actuator_dofs_distinct = bool(np.unique(dofs).size == dofs.size)  # no two actuators share a dof

    def AddActuation(self, tau: np.ndarray, u: np.ndarray) -> None:
        """τ += B·u in place (u in N·m or N per actuator, τ per dof), actuators that share a dof added one after
        the other in actuator order, as np.add.at does. Not np.add.at itself: it releases the GIL on every call,
        and in a process with another thread waiting for the GIL (a Dask worker's event loop) each release wakes
        that thread, thousands of times a second, which takes a core from the other workers."""
        if self.actuator_dofs_distinct:
            tau[self.actuator_dofs] += u
        else:
            for dof, u_k in zip(self.actuator_dofs.tolist(), np.asarray(u, dtype=float).tolist()):
                tau[dof] += u_k

    def actuation_matrix(self) -> np.ndarray:
        """B (nv × nu) with τ_u = B·u."""
        B = np.zeros((self.nv, self.nu))
        B[self.actuator_dofs, np.arange(self.nu)] = 1.0
        return B
