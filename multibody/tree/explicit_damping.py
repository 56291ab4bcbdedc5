"""An explicit joint damper: τ = −d·v on chosen joint dofs, a force element (not the joints' implicit damping)."""
from __future__ import annotations

import numpy as np

from .force_element import ForceElement


class ExplicitJointDamping(ForceElement):
    """Joint damping τ = −d·v applied as an explicit force: [(Joint, damping per dof [N m s, N s/m])]. The joints'
    own damping is implicit in the discrete step (M + h·D); MJCF models that turn MuJoCo's implicit Euler damping
    off (`<option><flag eulerdamp="disable"/>`) carry their damping here instead."""

    def __init__(self, dampers: list, model_instance=None):
        super().__init__(model_instance, "explicit_joint_damping")
        self._joints = [j for j, _ in dampers]
        self._per_joint = [np.asarray(dv, float) for _, dv in dampers]
        self._dofs = None

    def dofs_and_damping(self) -> tuple[np.ndarray, np.ndarray]:
        """(velocity indices, damping per index) of the damped dofs."""
        if self._dofs is None:
            dofs, damp = [], []
            for j, dv in zip(self._joints, self._per_joint):
                dofs += range(j.velocity_start(), j.velocity_start() + j.num_velocities())
                damp += list(dv)
            self._dofs, self._damp = np.array(dofs, np.int64), np.array(damp, float)
        return self._dofs, self._damp

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        dofs, damp = self.dofs_and_damping()
        tau[dofs] -= damp * np.asarray(v)[dofs]

    def _CalcNonConservativePower(self, context, kin, q, v) -> float:
        dofs, damp = self.dofs_and_damping()
        vd = np.asarray(v)[dofs]
        return float(-np.sum(damp * vd * vd))
