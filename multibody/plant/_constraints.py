"""Constraint bookkeeping (coupler, distance, ball, weld) kept for the discrete contact/constraint solver."""
from __future__ import annotations

import numpy as np

from ..tree.indices import ConstraintIndex


class _ConstraintsMixin:
    """Stores constraint specifications; multibody/contact's solver enforces them in the discrete step. As in pydrake, a
    continuous plant accepts them and raises when its dynamics are evaluated."""

    def _add_constraint(self, kind: str, **spec) -> ConstraintIndex:
        self._ThrowIfFinalized(f"Add{kind}Constraint")
        spec["kind"] = kind
        self._constraints.append(spec)
        return ConstraintIndex(len(self._constraints) - 1)

    def num_constraints(self) -> int:
        return len(self._constraints)

    def constraint_specs(self) -> list[dict]:
        """The stored constraint specifications (dicts with 'kind' and the element parameters)."""
        return [dict(c) for c in self._constraints]

    def AddCouplerConstraint(self, joint0, joint1, gear_ratio: float, offset: float = 0.0) -> ConstraintIndex:
        """q₀ = ρ·q₁ + Δq between two single-dof joints."""
        for j in (joint0, joint1):
            self._check_element(j, "joint", self._joints)
            if j.num_positions() != 1 or j.num_velocities() != 1:
                raise ValueError(f"AddCouplerConstraint: joint '{j.name()}' is not a single-dof joint")
        return self._add_constraint("Coupler", joint0=joint0, joint1=joint1, gear_ratio=float(gear_ratio),
                                    offset=float(offset))

    def AddDistanceConstraint(self, body_A, p_AP, body_B, p_BQ, distance: float, stiffness: float = np.inf,
                              damping: float = 0.0) -> ConstraintIndex:
        """|p_PQ| = distance between point P of A and point Q of B."""
        if not distance > 0:
            raise ValueError(f"AddDistanceConstraint: distance must be positive, got {distance}")
        if body_A is body_B:
            raise ValueError(f"AddDistanceConstraint: body_A and body_B are the same body '{body_A.name()}'")
        return self._add_constraint("Distance", body_A=body_A, p_AP=np.asarray(p_AP, float), body_B=body_B,
                                    p_BQ=np.asarray(p_BQ, float), distance=float(distance),
                                    stiffness=float(stiffness), damping=float(damping))

    def AddBallConstraint(self, body_A, p_AP, body_B, p_BQ=None) -> ConstraintIndex:
        """Point P of A coincides with point Q of B (Q defaults to P's initial location)."""
        if body_A is body_B:
            raise ValueError(f"AddBallConstraint: body_A and body_B are the same body '{body_A.name()}'")
        return self._add_constraint("Ball", body_A=body_A, p_AP=np.asarray(p_AP, float), body_B=body_B,
                                    p_BQ=None if p_BQ is None else np.asarray(p_BQ, float))

    def AddWeldConstraint(self, body_A, X_AP, body_B, X_BQ) -> ConstraintIndex:
        """Frame P on A coincides with frame Q on B."""
        from ..tree._convert import pose_to_arrays
        if body_A is body_B:
            raise ValueError(f"AddWeldConstraint: body_A and body_B are the same body '{body_A.name()}'")
        return self._add_constraint("Weld", body_A=body_A, X_AP=pose_to_arrays(X_AP), body_B=body_B,
                                    X_BQ=pose_to_arrays(X_BQ))
