"""Constraint bookkeeping (coupler, distance, ball, weld) kept for the discrete contact/constraint solver."""
from __future__ import annotations

import numpy as np

from ..tree.element import stored
from ..tree.indices import BodyIndex, MultibodyConstraintId
from ...common.overloads import bind
from ..tree._convert import pose_to_arrays

ConstraintIndex = MultibodyConstraintId  # the type every Add*Constraint returns


class DistanceConstraintParams:
    """The parameters of a distance constraint: |p_PQ| = distance between point P of body A (p_AP, m) and point Q
    of body B (p_BQ, m), with stiffness (N/m, +∞ = rigid) and damping (N·s/m)."""

    __slots__ = ("_bodyA", "_p_AP", "_bodyB", "_p_BQ", "_distance", "_stiffness", "_damping")

    def __init__(self, bodyA=None, p_AP=None, bodyB=None, p_BQ=None, distance: float = 0.0,
                 stiffness: float = np.inf, damping: float = 0.0) -> None:
        if distance is not None and bodyA is not None and not distance > 0:
            raise ValueError(f"DistanceConstraintParams: distance must be positive, got {distance}")
        self._bodyA = None if bodyA is None else BodyIndex(int(bodyA))
        self._bodyB = None if bodyB is None else BodyIndex(int(bodyB))
        self._p_AP = np.zeros(3) if p_AP is None else np.array(p_AP, dtype=float).reshape(3)
        self._p_BQ = np.zeros(3) if p_BQ is None else np.array(p_BQ, dtype=float).reshape(3)
        self._distance, self._stiffness, self._damping = float(distance), float(stiffness), float(damping)

    def bodyA(self):
        return self._bodyA

    def bodyB(self):
        return self._bodyB

    def p_AP(self) -> np.ndarray:
        return self._p_AP.copy()

    def p_BQ(self) -> np.ndarray:
        return self._p_BQ.copy()

    def distance(self) -> float:
        return self._distance

    def stiffness(self) -> float:
        return self._stiffness

    def damping(self) -> float:
        return self._damping

    def __repr__(self) -> str:
        return (f"DistanceConstraintParams(bodyA={self._bodyA!r}, p_AP={self._p_AP.tolist()}, bodyB={self._bodyB!r}, "
                f"p_BQ={self._p_BQ.tolist()}, distance={self._distance}, stiffness={self._stiffness}, "
                f"damping={self._damping})")


class _ConstraintsMixin:
    """Stores constraint specifications; multibody/contact's solver enforces them in the discrete step. As in pydrake, a
    continuous plant accepts them and raises when its dynamics are evaluated."""

    def _add_constraint(self, kind: str, **spec) -> MultibodyConstraintId:
        self._ThrowIfFinalized(f"Add{kind}Constraint")
        spec = {key: stored(value) for key, value in spec.items()}  # elements, not users' handles (no cycle)
        spec["kind"] = kind
        spec["id"] = MultibodyConstraintId(self._next_constraint_id)
        self._next_constraint_id = int(spec["id"]) + 1
        self._constraints.append(spec)
        return spec["id"]

    def _ThrowUnlessConstraintsAccepted(self, method: str, kind: str) -> None:
        """Drake's checks before any argument's: not finalized, and not a discrete plant on the TAMSI solver
        (kTamsi takes no constraint of any kind)."""
        self._ThrowIfFinalized(method)
        if self._time_step > 0 and self.get_discrete_contact_solver().name == "kTamsi":
            raise RuntimeError("Currently this MultibodyPlant is set to use the TAMSI solver. TAMSI does not support "
                               f"{kind} constraints. Use set_discrete_contact_approximation() to set a model "
                               "approximation that uses the SAP solver instead (kSap, kSimilar, or kLagged).")

    def num_constraints(self) -> int:
        return len(self._constraints)

    def GetConstraintIds(self) -> list:
        """The ids of the plant's constraints, in the order they were added."""
        return [spec["id"] for spec in self._constraints]

    def _constraint_spec(self, id) -> dict:
        for spec in self._constraints:
            if int(spec["id"]) == int(id):
                return spec
        raise ValueError(f"MultibodyPlant '{self.get_name()}': there is no constraint with id {int(id)}; ids: "
                         f"{[int(s['id']) for s in self._constraints]}")

    def RemoveConstraint(self, id) -> None:
        """Remove a constraint before Finalize (its id is not reused)."""
        self._ThrowIfFinalized("RemoveConstraint")
        self._constraints.remove(self._constraint_spec(id))

    def GetConstraintActiveStatus(self, context, id) -> bool:
        """Whether the constraint is active in `context` (all are, by default)."""
        self._constraint_spec(id)
        return bool(self._constraint_status_map(context).get(int(id), True))

    def SetConstraintActiveStatus(self, context, id, status: bool) -> None:
        """Activate or deactivate a constraint in `context` only."""
        self._constraint_spec(id)
        self._constraint_status_map(context, mutable=True)[int(id)] = bool(status)

    def _default_distance_params(self, spec) -> DistanceConstraintParams:
        return DistanceConstraintParams(spec["body_A"].index(), spec["p_AP"], spec["body_B"].index(), spec["p_BQ"],
                                        spec["distance"], spec["stiffness"], spec["damping"])

    def GetDefaultDistanceConstraintParams(self) -> dict:
        """id → DistanceConstraintParams of every distance constraint, as added."""
        return {spec["id"]: self._default_distance_params(spec) for spec in self._constraints
                if spec["kind"] == "Distance"}

    def GetDistanceConstraintParams(self, context, *args, **kwargs):
        """GetDistanceConstraintParams(context) → {id: params} or (context, id) → the params in `context`."""
        b = bind("GetDistanceConstraintParams", args, kwargs, (), ("id",))
        overrides = self._distance_params_map(context)
        if "id" not in b:
            return {k: overrides.get(int(k), v) for k, v in self.GetDefaultDistanceConstraintParams().items()}
        spec = self._constraint_spec(b["id"])
        if spec["kind"] != "Distance":
            raise ValueError(f"constraint {int(b['id'])} is a {spec['kind']} constraint, not a distance constraint")
        return overrides.get(int(b["id"]), self._default_distance_params(spec))

    def SetDistanceConstraintParams(self, context, id, params: DistanceConstraintParams) -> None:
        """Set a distance constraint's parameters in `context` only (its bodies must stay the same)."""
        default = self.GetDistanceConstraintParams(context, id)
        if (params.bodyA(), params.bodyB()) != (default.bodyA(), default.bodyB()):
            raise ValueError("SetDistanceConstraintParams: the bodies of a distance constraint cannot change")
        if not params.distance() > 0:
            raise ValueError(f"SetDistanceConstraintParams: distance must be positive, got {params.distance()}")
        self._distance_params_map(context, mutable=True)[int(id)] = params

    def constraint_specs(self) -> list[dict]:
        """The stored constraint specifications (dicts with 'kind' and the element parameters)."""
        return [dict(c) for c in self._constraints]

    def AddCouplerConstraint(self, joint0, joint1, gear_ratio: float, offset: float = 0.0) -> ConstraintIndex:
        """q₀ = ρ·q₁ + Δq between two single-dof joints."""
        self._ThrowUnlessConstraintsAccepted("AddCouplerConstraint", "coupler")
        for j in (joint0, joint1):
            self._check_element(j, "joint", self._joints)
            if j.num_positions() != 1 or j.num_velocities() != 1:
                raise ValueError(f"AddCouplerConstraint: joint '{j.name()}' is not a single-dof joint")
        return self._add_constraint("Coupler", joint0=joint0, joint1=joint1, gear_ratio=float(gear_ratio),
                                    offset=float(offset))

    def AddDistanceConstraint(self, body_A, p_AP, body_B, p_BQ, distance: float, stiffness: float = np.inf,
                              damping: float = 0.0) -> ConstraintIndex:
        """|p_PQ| = distance between point P of A and point Q of B."""
        self._ThrowUnlessConstraintsAccepted("AddDistanceConstraint", "distance")
        if not distance > 0:
            raise ValueError(f"AddDistanceConstraint: distance must be positive, got {distance}")
        if body_A == body_B:
            raise ValueError(f"AddDistanceConstraint: body_A and body_B are the same body '{body_A.name()}'")
        return self._add_constraint("Distance", body_A=body_A, p_AP=np.asarray(p_AP, float), body_B=body_B,
                                    p_BQ=np.asarray(p_BQ, float), distance=float(distance),
                                    stiffness=float(stiffness), damping=float(damping))

    def AddBallConstraint(self, body_A, p_AP, body_B, p_BQ=None) -> ConstraintIndex:
        """Point P of A coincides with point Q of B (Q defaults to P's initial location)."""
        self._ThrowUnlessConstraintsAccepted("AddBallConstraint", "ball")
        if body_A == body_B:
            raise ValueError(f"AddBallConstraint: body_A and body_B are the same body '{body_A.name()}'")
        return self._add_constraint("Ball", body_A=body_A, p_AP=np.asarray(p_AP, float), body_B=body_B,
                                    p_BQ=None if p_BQ is None else np.asarray(p_BQ, float))

    def AddWeldConstraint(self, body_A, X_AP, body_B, X_BQ) -> ConstraintIndex:
        """Frame P on A coincides with frame Q on B."""
        self._ThrowUnlessConstraintsAccepted("AddWeldConstraint", "weld")
        if body_A == body_B:
            raise ValueError(f"AddWeldConstraint: body_A and body_B are the same body '{body_A.name()}'")
        return self._add_constraint("Weld", body_A=body_A, X_AP=pose_to_arrays(X_AP), body_B=body_B,
                                    X_BQ=pose_to_arrays(X_BQ))
