"""JointActuator: a scalar actuator on a single-dof joint, with gear ratio and rotor inertia."""
from __future__ import annotations

import numpy as np

from .element import MultibodyElement, hands_out


class PdControllerGains:
    """Proportional and derivative gains of an actuator's PD controller: p (N·m/rad or N/m), d (N·m·s/rad or N·s/m)."""

    __slots__ = ("p", "d")

    def __init__(self, p: float = 0.0, d: float = 0.0) -> None:
        self.p, self.d = float(p), float(d)

    def __repr__(self) -> str:
        return f"PdControllerGains(p={self.p!r}, d={self.d!r})"


class JointActuator(MultibodyElement):
    """Applies u[index()] as a generalized force on its joint's velocity.

    The effort limit is bookkeeping only (the plant does not saturate u).  Rotor inertia Iᵣ and gear
    ratio ρ add the reflected inertia ρ²·Iᵣ to the mass-matrix diagonal.
    """

    _kind = "actuator"

    def __init__(self, name: str, joint, effort_limit: float = np.inf):
        super().__init__(name, joint.model_instance())
        effort_limit = float(effort_limit)
        if not effort_limit > 0:
            raise ValueError(f"actuator '{name}': effort_limit must be strictly positive (inf = unlimited), "
                             f"got {effort_limit}")
        if joint.num_velocities() != 1:
            raise ValueError(f"actuator '{name}': joint '{joint.name()}' has {joint.num_velocities()} velocities; "
                             "only single-dof joints can be actuated")
        self._joint = joint
        self._effort_limit = effort_limit
        self._gear_ratio = 1.0
        self._rotor_inertia = 0.0

    def joint(self):
        """The actuated joint."""
        return self._joint

    def effort_limit(self) -> float:
        return self._effort_limit

    def set_effort_limit(self, effort_limit: float) -> None:
        if not float(effort_limit) > 0:
            raise ValueError(f"actuator '{self._name}': effort_limit must be strictly positive, got {effort_limit}")
        self._effort_limit = float(effort_limit)
        if self._plant is not None:
            self._plant._EffortLimitsChanged()

    def input_start(self) -> int:
        """Start of this actuator's entries in u: its place among the plant's actuators (one input each)."""
        self.index()
        return int(getattr(self, "_pos", self._index))

    def num_inputs(self) -> int:
        return 1

    def default_gear_ratio(self) -> float:
        return self._gear_ratio

    def set_default_gear_ratio(self, gear_ratio: float) -> None:
        self._pre_finalize("set_default_gear_ratio")
        self._gear_ratio = float(gear_ratio)

    def default_rotor_inertia(self) -> float:
        return self._rotor_inertia

    def set_default_rotor_inertia(self, rotor_inertia: float) -> None:
        self._pre_finalize("set_default_rotor_inertia")
        if float(rotor_inertia) < 0:
            raise ValueError(f"actuator '{self._name}': rotor inertia must be non-negative, got {rotor_inertia}")
        self._rotor_inertia = float(rotor_inertia)

    def default_reflected_inertia(self) -> float:
        """ρ²·Iᵣ."""
        return self._gear_ratio * self._gear_ratio * self._rotor_inertia  # (inf on overflow; ** would raise)

    def _pre_finalize(self, what):
        if self._plant is not None and self._plant.is_finalized():
            raise RuntimeError(f"actuator '{self._name}': {what} must be called before Finalize()")

    def get_actuation_vector(self, u: np.ndarray) -> np.ndarray:
        """This actuator's entries of the full actuation vector u."""
        u = np.asarray(u, dtype=float).reshape(-1)
        n = self.GetParentPlant().num_actuated_dofs()
        if u.size != n:
            raise ValueError(f"actuator '{self._name}': u must have num_actuated_dofs() = {n} entries, got {u.size}")
        return u[self.input_start():self.input_start() + 1].copy()

    def set_actuation_vector(self, u_actuator, u: np.ndarray) -> None:
        """Write this actuator's value into the full actuation vector u (in place)."""
        n = self.GetParentPlant().num_actuated_dofs()
        if u.size != n:
            raise ValueError(f"actuator '{self._name}': u must have num_actuated_dofs() = {n} entries, got {u.size}")
        ua = np.asarray(u_actuator, dtype=float).reshape(-1)
        if ua.size != 1:
            raise ValueError(f"actuator '{self._name}': u_actuator must have 1 entry, got {ua.size}")
        u[self.input_start()] = ua[0]

    # ---- per-context values -------------------------------------------------------------------------
    def rotor_inertia(self, context) -> float:
        """The rotor inertia Iᵣ in `context` (kg·m² or kg): the default unless SetRotorInertia changed it."""
        return self.GetParentPlant()._actuator_parameter(context, self, "rotor_inertia", self._rotor_inertia)

    def gear_ratio(self, context) -> float:
        """The gear ratio ρ in `context`: the default unless SetGearRatio changed it."""
        return self.GetParentPlant()._actuator_parameter(context, self, "gear_ratio", self._gear_ratio)

    def SetRotorInertia(self, context, rotor_inertia: float) -> None:
        """Set the rotor inertia in `context` only."""
        if float(rotor_inertia) < 0:
            raise ValueError(f"actuator '{self._name}': rotor inertia must be non-negative, got {rotor_inertia}")
        self.GetParentPlant()._set_actuator_parameter(context, self, "rotor_inertia", rotor_inertia,
                                                      self._rotor_inertia)

    def SetGearRatio(self, context, gear_ratio: float) -> None:
        """Set the gear ratio in `context` only."""
        self.GetParentPlant()._set_actuator_parameter(context, self, "gear_ratio", gear_ratio, self._gear_ratio)

    def calc_reflected_inertia(self, context) -> float:
        """ρ²·Iᵣ with the values in `context`."""
        return self.gear_ratio(context) ** 2 * self.rotor_inertia(context)

    # ---- PD controller -------------------------------------------------------------------------------
    def set_controller_gains(self, gains: PdControllerGains) -> None:
        """Give this actuator Drake's PD controller (before Finalize; pipeline/pd_control.py): u = clamp(−Kp·(q − qd) −
        Kd·(v − vd) + u_ff, ±effort_limit), implicit in a discrete plant as Drake's SAP, explicit in a continuous one;
        (qd, vd) come from the plant's desired-state input port of the actuator's model instance."""
        self._pre_finalize("set_controller_gains")
        if not isinstance(gains, PdControllerGains):
            raise TypeError(f"actuator '{self._name}': gains must be a PdControllerGains, got {type(gains).__name__}")
        if not (np.isfinite(gains.p) and np.isfinite(gains.d)) or gains.p < 0 or gains.d < 0:
            raise ValueError(f"actuator '{self._name}': PD gains must be finite and non-negative, got {gains!r}")
        # both gains zero removes the controller, as Drake
        self._controller_gains = None if gains.p == 0 and gains.d == 0 else PdControllerGains(gains.p, gains.d)

    def has_controller(self) -> bool:
        """Whether set_controller_gains gave this actuator a PD controller."""
        return getattr(self, "_controller_gains", None) is not None

    def get_controller_gains(self) -> PdControllerGains:
        """The PD gains (raises when the actuator has no controller)."""
        if not self.has_controller():
            raise RuntimeError(f"actuator '{self._name}' has no PD controller; see set_controller_gains")
        g = self._controller_gains
        return PdControllerGains(g.p, g.d)


# Element accessors give users handles that keep the plant alive (see MultibodyElement).
hands_out(JointActuator, ("joint",))
