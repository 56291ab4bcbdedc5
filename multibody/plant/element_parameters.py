"""Per-context parameters of frames and force elements (Drake keeps them as Context parameters).

One abstract parameter of the plant holds, for a Context, the values that differ from the elements' defaults:
FixedOffsetFrame poses X_PF (SetPoseInParentFrame) and force-element constants (a RevoluteSpring's stiffness,
a bushing's gains, ...). An empty ElementParameters means every element uses its defaults.
"""
from __future__ import annotations

import copy

import numpy as np

from ._model_check import ThrowIfNaNMassProperties

__all__ = ["ElementParameters"]


class ElementParameters:
    """The per-context values that differ from the defaults.

    frames: frame index → (R_PF, p_PF); force_elements: (force element index, name) → value;
    joints: (joint index, name) → value (damping); actuators: (actuator index, name) → value (rotor inertia,
    gear ratio); locked: the indices of the locked joints.
    """

    __slots__ = ("frames", "force_elements", "joints", "actuators", "locked", "inactive_constraints",
                 "distance_params")

    def __init__(self) -> None:
        self.frames: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.force_elements: dict[tuple[int, str], object] = {}
        self.joints: dict[tuple[int, str], np.ndarray] = {}
        self.actuators: dict[tuple[int, str], float] = {}
        self.locked: set[int] = set()
        self.inactive_constraints: set[int] = set()
        self.distance_params: dict[int, object] = {}

    def changes_dynamics(self) -> bool:
        """True when the context changes a value the compiled dynamics take from the model's defaults."""
        return bool(self.joints or self.actuators or self.locked or self.inactive_constraints
                    or self.distance_params)

    def __deepcopy__(self, memo) -> "ElementParameters":
        out = ElementParameters()
        out.frames = {k: (R.copy(), p.copy()) for k, (R, p) in self.frames.items()}
        out.force_elements = {k: copy.deepcopy(v, memo) for k, v in self.force_elements.items()}
        out.joints = {k: np.array(v) for k, v in self.joints.items()}
        out.actuators = dict(self.actuators)
        out.locked = set(self.locked)
        out.inactive_constraints = set(self.inactive_constraints)
        out.distance_params = dict(self.distance_params)  # DistanceConstraintParams are not mutated in place
        return out

    def __repr__(self) -> str:
        return (f"ElementParameters(frames={sorted(self.frames)}, force_elements={sorted(self.force_elements)}, "
                f"joints={sorted(self.joints)}, actuators={sorted(self.actuators)}, locked={sorted(self.locked)})")


class _ElementParametersMixin:
    """The plant's access to ElementParameters: per-context element values, and the guard that keeps the
    compiled dynamics (which use the defaults) from running silently with changed ones."""

    def _element_parameters(self, context) -> ElementParameters:
        """The per-context element values of `context` (read only)."""
        self.ValidateContext(context)
        return context.get_abstract_parameter(self._element_params_index).get_value()

    def _mutable_element_parameters(self, context) -> ElementParameters:
        self.ValidateContext(context)
        return context.get_mutable_abstract_parameter(self._element_params_index).get_mutable_value()

    def _joint_parameter(self, context, joint, name: str, default):
        self._ThrowIfNotFinalized(f"joint '{joint.name()}' {name} in a context")
        return self._element_parameters(context).joints.get((int(joint.index()), name), default)

    def _set_joint_parameter(self, context, joint, name: str, value, default) -> None:
        self._ThrowIfNotFinalized(f"joint '{joint.name()}' {name} in a context")
        params = self._mutable_element_parameters(context)
        key = (int(joint.index()), name)
        if np.array_equal(value, default):
            params.joints.pop(key, None)
        else:
            params.joints[key] = np.array(value, dtype=float)

    def _actuator_parameter(self, context, actuator, name: str, default: float) -> float:
        self._ThrowIfNotFinalized(f"actuator '{actuator.name()}' {name} in a context")
        return float(self._element_parameters(context).actuators.get((int(actuator.index()), name), default))

    def _set_actuator_parameter(self, context, actuator, name: str, value: float, default: float) -> None:
        self._ThrowIfNotFinalized(f"actuator '{actuator.name()}' {name} in a context")
        params = self._mutable_element_parameters(context)
        key = (int(actuator.index()), name)
        if float(value) == float(default):
            params.actuators.pop(key, None)
        else:
            params.actuators[key] = float(value)

    def _force_element_parameter(self, context, element, name: str, default):
        """A force element's value in `context` (its default before Finalize or when unchanged)."""
        if not self._finalized:
            return default
        return self._element_parameters(context).force_elements.get((int(element.index()), name), default)

    def _set_force_element_parameter(self, context, element, name: str, value) -> None:
        self._ThrowIfNotFinalized(f"{type(element).__name__} {name} in a context")
        self._mutable_element_parameters(context).force_elements[(int(element.index()), name)] = value

    def _set_joint_locked(self, context, joint, locked: bool) -> None:
        self._ThrowIfNotFinalized("Lock")
        if self.time_step() == 0 and locked:
            raise RuntimeError(f"joint '{joint.name()}': joint locking is only supported for discrete "
                               "MultibodyPlant models (time_step > 0), as in Drake")
        params = self._mutable_element_parameters(context)
        (params.locked.add if locked else params.locked.discard)(int(joint.index()))

    def _is_joint_locked(self, context, joint) -> bool:
        self._ThrowIfNotFinalized("is_locked")
        return int(joint.index()) in self._element_parameters(context).locked

    def _ThrowIfElementParametersChangeDynamics(self, context, what: str, simulating: bool = False) -> None:
        """Dynamics computations use the damping, rotor inertias, gear ratios and (absent) locks compiled at
        Finalize: refuse to compute them for a context that changed those, rather than ignore the change.
        `simulating`: the computation also applies actuation (steps, accelerations), so PD-controlled actuators,
        which mallard's solver does not model, are refused too."""
        if not self._finalized:
            return
        if simulating and self._nan_mass_bodies.size:
            ThrowIfNaNMassProperties(self, context, what)
        if simulating and self._pd_controlled:
            raise RuntimeError(f"{what}: actuators {self._pd_controlled} have PD controllers (set_controller_gains); "
                               "mallard's solver does not simulate Drake's implicit PD-controlled actuators yet. "
                               "Control them with a PidController system wired to the actuation input instead.")
        params = context.get_abstract_parameter(self._element_params_index).get_value()
        if params.changes_dynamics():
            changed = [f"joint {self.get_joint(k).name()} {n}" for k, n in sorted(params.joints)]
            changed += [f"actuator {self.get_joint_actuator(k).name()} {n}" for k, n in sorted(params.actuators)]
            changed += [f"joint {self.get_joint(k).name()} locked" for k in sorted(params.locked)]
            changed += [f"constraint {k} inactive" for k in sorted(params.inactive_constraints)]
            changed += [f"distance constraint {k} parameters" for k in sorted(params.distance_params)]
            raise RuntimeError(f"{what}: this Context changes {changed}; mallard's dynamics use the values compiled "
                               "at Finalize and cannot honor per-Context joint damping, rotor inertia, gear ratio, "
                               "joint locking or constraint parameters yet. Set the defaults before Finalize (set_default_damping_vector, "
                               "set_default_rotor_inertia, set_default_gear_ratio) or use a Context that keeps them.")
