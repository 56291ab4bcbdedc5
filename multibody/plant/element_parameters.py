"""The plant's Context parameters, laid out as Drake's MultibodyTreeSystem declares them.

Abstract: one `is_locked` bool per mobilizer (one per body, in the tree's mobilizer order), then the plant's
constraint active status map and distance-constraint parameter map. Numeric, in Drake's order: each joint's damping
(nv values), each actuator's rotor inertia and gear ratio (1 value each), each body's spatial inertia (mass,
p_BoBcm_B, G_BBo_B as Gxx Gyy Gzz Gxy Gxz Gyz: 10 values, NaN for the world), each FixedOffsetFrame's X_PF (the
3×4 matrix [R|p] column-major: 12 values), then the force elements' constants (RevoluteSpring [stiffness,
nominal angle], LinearBushingRollPitchYaw's four 3-vectors). The dynamics read the values through one cached
`ElementValues` per Context (the defaults' object itself while nothing differs from them), so a changed damping,
rotor inertia, gear ratio or mass property changes the simulation.
"""
from __future__ import annotations

import dataclasses
from types import MethodType

import numpy as np

from ...systems.framework import Value
from ..kernels.entry_points import FastModel
from ..pipeline.model_check import ThrowIfNaNMassProperties

__all__ = ["ElementValues", "DeclareElementParameters", "VariantModel"]

# force element class → its numeric groups, each a tuple of (name, default attribute, offset, size)
_FORCE_ELEMENT_GROUPS = {
    "RevoluteSpring": ((("stiffness", "_k", 0, 1), ("nominal_angle", "_q0", 1, 1)),),
    "LinearBushingRollPitchYaw": ((("torque_stiffness", "_k012", 0, 3),), (("torque_damping", "_d012", 0, 3),),
                                  (("force_stiffness", "_kxyz", 0, 3),), (("force_damping", "_dxyz", 0, 3),)),
}


def SpatialInertiaToVector(mass: float, com: np.ndarray, I_BBo_B: np.ndarray, G_BBo_B=None) -> np.ndarray:
    """Drake's 10-value spatial inertia parameter [m, p_BoBcm_B, Gxx, Gyy, Gzz, Gxy, Gxz, Gyz] (G = I_BBo_B / m, or
    `G_BBo_B` when given)."""
    if G_BBo_B is not None:
        G = np.asarray(G_BBo_B, float)
    else:
        G = np.asarray(I_BBo_B, float).reshape(3, 3) / mass if mass != 0 else np.zeros((3, 3))
    return np.array([mass, *np.asarray(com, float), G[0, 0], G[1, 1], G[2, 2], G[0, 1], G[0, 2], G[1, 2]])


def _body_row(vec: np.ndarray) -> np.ndarray:
    """The plant's 13-value body row [m, p_BoBcm_B, I_BBo_B row-major] of a 10-value spatial inertia parameter."""
    m, c, g = vec[0], vec[1:4], vec[4:10]
    G = np.array([[g[0], g[3], g[4]], [g[3], g[1], g[5]], [g[4], g[5], g[2]]])
    return np.concatenate([[m], c, (m * G).ravel()])


class ElementValues:
    """What the dynamics read from a Context's parameters: `bp` (nb × 13 mass properties; `bp_flat` the same, flat), `model` / `fast` (the
    compiled model with the Context's damping and reflected inertia: the plant's own while they are the defaults),
    `frames` (frame index → (R_PF, p_PF) that differ from the defaults), `force_elements` ((element index, name) →
    value that differ), `locked` (joint indices), `inactive` (constraint ids), `distance` (id → params that differ),
    `key` (bytes naming the damping and reflected inertia, None at the defaults)."""

    __slots__ = ("bp", "bp_flat", "model", "fast", "frames", "force_elements", "locked", "inactive", "distance", "key",
                 "plain")

    def __init__(self, bp, model, fast, frames, force_elements, locked, inactive, distance, key):
        self.bp = np.ascontiguousarray(bp, dtype=np.float64)
        self.bp_flat = self.bp.reshape(-1)  # the compiled step's argument
        self.model, self.fast, self.frames = model, fast, frames
        self.force_elements, self.locked, self.inactive, self.distance, self.key = (
            force_elements, locked, inactive, distance, key)
        # no locked joint, inactive constraint, changed distance constraint nor damping / rotor inertia variant (the
        # dynamics' quick check: _ThrowIfElementParametersChangeDynamics has nothing to say)
        self.plain = not (locked or inactive or distance or key is not None)


class _Layout:
    """The parameter indices the plant declared (fixed at Finalize)."""

    def __init__(self):
        self.lock: dict[int, int] = {}         # body index (its mobilizer) → abstract index
        self.joints: list = []                 # (joint, numeric index)
        self.actuators: list = []              # (actuator, rotor index, gear index)
        self.bodies: list = []                 # (body index, numeric index)
        self.frames: dict[int, int] = {}       # frame index → numeric index
        self.force_elements: dict = {}         # (element index, name) → (numeric index, offset, size, default)
        self.status = self.distance = None     # abstract indices
        self.numeric: list[int] = []           # every numeric index declared here
        self.defaults: np.ndarray | None = None  # their default values, concatenated


def DeclareElementParameters(plant) -> None:
    """Declare the plant's element parameters (Finalize) in Drake's order and keep the layout on the plant."""
    m = plant._model
    L = _Layout()
    mobod_order = [0] + [int(b) for b in m.order]
    for b in mobod_order:
        L.lock[b] = int(plant.DeclareAbstractParameter(Value(False)))
    L.status = int(plant.DeclareAbstractParameter(Value({int(c["id"]): True for c in plant._constraints})))
    L.distance = int(plant.DeclareAbstractParameter(
        Value({int(k): v for k, v in plant.GetDefaultDistanceConstraintParams().items()})))
    for j in plant._joints:
        L.joints.append((j, int(plant.DeclareNumericParameter(np.array(j._damping, float)))))
    for a in plant._actuators:
        L.actuators.append((a, int(plant.DeclareNumericParameter(np.array([a._rotor_inertia]))),
                            int(plant.DeclareNumericParameter(np.array([a._gear_ratio])))))
    for b, body in enumerate(plant._bodies):
        vec = np.full(10, np.nan) if b == 0 else SpatialInertiaToVector(body._mass, body._com, body._I_BBo_B,
                                                                       getattr(body, "_G_BBo_B", None))
        L.bodies.append((b, int(plant.DeclareNumericParameter(vec))))
    for f in plant._frames:
        if hasattr(f, "_R_PF"):  # FixedOffsetFrame
            X = np.concatenate([np.asarray(f._R_PF, float).ravel(order="F"), np.asarray(f._p_PF, float)])
            L.frames[int(f.index())] = int(plant.DeclareNumericParameter(X))
    for k, fe in enumerate(plant._force_elements):
        for group in _FORCE_ELEMENT_GROUPS.get(type(fe).__name__, ()):
            vec = np.concatenate([np.atleast_1d(np.asarray(getattr(fe, attr), float)) for _, attr, _, _ in group])
            idx = int(plant.DeclareNumericParameter(vec))
            for name, attr, off, size in group:
                L.force_elements[(k, name)] = (idx, off, size, getattr(fe, attr))
    L.numeric = ([i for _, i in L.joints] + [i for _, r, g in L.actuators for i in (r, g)]
                 + [i for _, i in L.bodies] + list(L.frames.values())
                 + sorted({v[0] for v in L.force_elements.values()}))
    plant._element_layout = L
    plant._element_defaults = None
    plant._element_variants = {}
    plant._element_cache = plant.DeclareCacheEntry(
        "element parameters", alloc=lambda: None, calc=MethodType(_CalcElementCache, plant),
        prerequisites_of_calc={plant.all_parameters_ticket()})


def _CalcElementCache(plant, context, value) -> None:
    """The cache entry's calc (bound to the plant as a method, which the entry keeps unbound: no cycle)."""
    value.set_value(_CalcElementValues(plant, context))


def _numeric(context, index: int) -> np.ndarray:
    return context.get_numeric_parameter(index)._data


def _CalcElementValues(plant, context) -> ElementValues:
    L, m = plant._element_layout, plant._model
    if L.defaults is None:
        L.defaults = np.concatenate([plant._numeric_parameter_models[i].get_value() for i in L.numeric] or [[]])
    values = np.concatenate([_numeric(context, i) for i in L.numeric] or [[]])
    locked = [int(j.index()) for j in plant._joints
              if j.num_velocities() and context.get_abstract_parameter(L.lock[j._mobilized_body]).get_value()]
    status = context.get_abstract_parameter(L.status).get_value()
    inactive = sorted(k for k, on in status.items() if not on)
    dist = context.get_abstract_parameter(L.distance).get_value()
    defaults = {int(k): v for k, v in plant.GetDefaultDistanceConstraintParams().items()} if dist else {}
    distance = {k: v for k, v in dist.items() if not _same_distance(v, defaults.get(k))}
    if np.array_equal(values, L.defaults, equal_nan=True):
        if plant._element_defaults is None:
            plant._element_defaults = ElementValues(m.body_params, m, plant._fast, {}, {}, [], [], {}, None)
        base = plant._element_defaults
        if not (locked or inactive or distance):
            return base
        return ElementValues(base.bp, m, plant._fast, {}, {}, locked, inactive, distance, None)
    bp = m.body_params.copy()
    for b, i in L.bodies[1:]:
        vec = _numeric(context, i)
        if not np.array_equal(vec, plant._numeric_parameter_models[i].get_value(), equal_nan=True):
            bp[b] = _body_row(vec)
    damping, refl = m.damping.copy(), m.reflected_inertia.copy()
    for j, i in L.joints:
        damping[j.velocity_start():j.velocity_start() + j.num_velocities()] = _numeric(context, i)
    for a, ri, gi in L.actuators:
        dof = a._joint.velocity_start()
        refl[dof] += _numeric(context, gi)[0] ** 2 * _numeric(context, ri)[0] - a.default_reflected_inertia()
    frames = {}
    for f, i in L.frames.items():
        X = _numeric(context, i)
        if not np.array_equal(X, plant._numeric_parameter_models[i].get_value()):
            frames[f] = (X[:9].reshape(3, 3, order="F").copy(), X[9:12].copy())
    force_elements = {}
    for key, (i, off, size, default) in L.force_elements.items():
        v = _numeric(context, i)[off:off + size]
        if not np.array_equal(v, np.atleast_1d(default)):
            force_elements[key] = float(v[0]) if size == 1 else v.copy()
    model, fast, key = VariantModel(plant, damping, refl)
    return ElementValues(np.ascontiguousarray(bp), model, fast, frames, force_elements, locked, inactive, distance,
                         key)


def VariantModel(plant, damping: np.ndarray, refl: np.ndarray):
    """(model, fast model, key) of the plant's CompiledModel with joint damping `damping` and reflected inertia
    `refl` (nv each): the plant's own with key None when they are its defaults, else a cached variant."""
    m = plant._model
    if np.array_equal(damping, m.damping) and np.array_equal(refl, m.reflected_inertia):
        return m, plant._fast, None
    key = damping.tobytes() + refl.tobytes()
    got = plant._element_variants.get(key)
    if got is None:
        model = dataclasses.replace(m, damping=damping, reflected_inertia=refl)
        if len(plant._element_variants) > 64:
            plant._element_variants.clear()
        got = plant._element_variants[key] = (model, FastModel(model, plant._gravity_mask))
    return got[0], got[1], key


def _same_distance(a, b) -> bool:
    if b is None:
        return False
    return (a.bodyA(), a.bodyB(), a.distance(), a.stiffness(), a.damping()) == \
        (b.bodyA(), b.bodyB(), b.distance(), b.stiffness(), b.damping()) and \
        np.array_equal(a.p_AP(), b.p_AP()) and np.array_equal(a.p_BQ(), b.p_BQ())


class _ElementParametersMixin:
    """The plant's access to its element parameters (per-context damping, rotor inertia, gear ratio, mass
    properties, frame poses, force-element constants, joint locks and constraint parameters)."""

    def _EvalElementValues(self, context) -> ElementValues:
        """The cached ElementValues of `context` (one lookup)."""
        return self._element_cache._eval(context)._value

    def _ModelFor(self, context):
        """The compiled model with `context`'s damping and reflected inertia (the plant's own at the defaults)."""
        return self._EvalElementValues(context).model

    def _mutable_numeric(self, context, index: int) -> np.ndarray:
        return context.get_mutable_numeric_parameter(index).get_mutable_value()

    def _joint_parameter(self, context, joint, name: str, default):
        self._ThrowIfNotFinalized(f"joint '{joint.name()}' {name} in a context")
        self.ValidateContext(context)
        return np.array(_numeric(context, self._element_layout.joints[self._joints.index(joint)][1]))

    def _set_joint_parameter(self, context, joint, name: str, value, default) -> None:
        self._ThrowIfNotFinalized(f"joint '{joint.name()}' {name} in a context")
        self.ValidateContext(context)
        self._mutable_numeric(context, self._element_layout.joints[self._joints.index(joint)][1])[:] = value

    def _actuator_indices(self, actuator):
        return next(e for e in self._element_layout.actuators if e[0] == actuator)

    def _actuator_parameter(self, context, actuator, name: str, default: float) -> float:
        self._ThrowIfNotFinalized(f"actuator '{actuator.name()}' {name} in a context")
        self.ValidateContext(context)
        _, ri, gi = self._actuator_indices(actuator)
        return float(_numeric(context, ri if name == "rotor_inertia" else gi)[0])

    def _set_actuator_parameter(self, context, actuator, name: str, value: float, default: float) -> None:
        self._ThrowIfNotFinalized(f"actuator '{actuator.name()}' {name} in a context")
        self.ValidateContext(context)
        _, ri, gi = self._actuator_indices(actuator)
        self._mutable_numeric(context, ri if name == "rotor_inertia" else gi)[0] = float(value)

    def _body_vector(self, context, body, mutable: bool = False) -> np.ndarray:
        """The body's 10-value spatial inertia parameter in `context`."""
        self._ThrowIfNotFinalized(f"body '{body.name()}' mass properties in a context")
        self.ValidateContext(context)
        i = self._element_layout.bodies[int(body.index())][1]
        return self._mutable_numeric(context, i) if mutable else _numeric(context, i)

    def _force_element_parameter(self, context, element, name: str, default):
        """A force element's value in `context` (its default before Finalize)."""
        if not self._finalized:
            return default
        i, off, size, _ = self._element_layout.force_elements[(int(element.index()), name)]
        v = _numeric(context, i)[off:off + size]
        return float(v[0]) if size == 1 else v.copy()

    def _set_force_element_parameter(self, context, element, name: str, value) -> None:
        self._ThrowIfNotFinalized(f"{type(element).__name__} {name} in a context")
        self.ValidateContext(context)
        i, off, size, _ = self._element_layout.force_elements[(int(element.index()), name)]
        self._mutable_numeric(context, i)[off:off + size] = value

    def _frame_pose_overrides(self, context) -> dict:
        """Frame index → (R_PF, p_PF) set in `context` by SetPoseInParentFrame (empty before Finalize)."""
        if not self._finalized:
            return {}
        return self._EvalElementValues(context).frames

    def _set_frame_pose_parameter(self, context, frame, R_PF, p_PF) -> None:
        i = self._element_layout.frames[int(frame.index())]
        self._mutable_numeric(context, i)[:] = np.concatenate([np.asarray(R_PF, float).ravel(order="F"),
                                                               np.asarray(p_PF, float)])

    def _set_joint_locked(self, context, joint, locked: bool) -> None:
        self._ThrowIfNotFinalized("Lock")
        if self.time_step() == 0 and locked:
            raise RuntimeError(f"joint '{joint.name()}': joint locking is only supported for discrete "
                               "MultibodyPlant models (time_step > 0), as in Drake")
        self.ValidateContext(context)
        index = self._element_layout.lock[joint._mobilized_body]
        context.get_mutable_abstract_parameter(index).set_value(bool(locked))

    def _is_joint_locked(self, context, joint) -> bool:
        self._ThrowIfNotFinalized("is_locked")
        self.ValidateContext(context)
        return bool(context.get_abstract_parameter(
            self._element_layout.lock[joint._mobilized_body]).get_value())

    def _constraint_status_map(self, context, mutable: bool = False) -> dict:
        self.ValidateContext(context)
        i = self._element_layout.status
        if mutable:
            return context.get_mutable_abstract_parameter(i).get_mutable_value()
        return context.get_abstract_parameter(i).get_value()

    def _distance_params_map(self, context, mutable: bool = False) -> dict:
        self.ValidateContext(context)
        i = self._element_layout.distance
        if mutable:
            return context.get_mutable_abstract_parameter(i).get_mutable_value()
        return context.get_abstract_parameter(i).get_value()

    def _ThrowIfElementParametersChangeDynamics(self, context, what: str, simulating: bool = False) -> None:
        """The dynamics honor a Context's damping, rotor inertia, gear ratio and mass properties; they refuse a
        Context with locked joints, deactivated constraints or changed distance-constraint parameters rather than
        ignore them, and MJCF models' own integrators (which use the compiled defaults) refuse changed damping or
        rotor inertia. `simulating`: the computation also applies actuation (steps, accelerations)."""
        if not self._finalized:
            return
        if simulating and self._nan_mass_bodies.size:
            ThrowIfNaNMassProperties(self, context, what)
        ev = self._EvalElementValues(context)
        if ev.plain:  # the usual step: no allocation
            return
        changed = [f"joint {self.get_joint(k).name()} locked" for k in ev.locked]
        changed += [f"constraint {k} inactive" for k in ev.inactive]
        changed += [f"distance constraint {k} parameters" for k in sorted(ev.distance)]
        if ev.key is not None and self._mjcf_maps:
            changed.append("joint damping or rotor inertia of an MJCF model")
        if changed:
            raise RuntimeError(f"{what}: this Context changes {changed}; mallard's dynamics cannot honor "
                               "per-Context constraint parameters or joint locking yet (nor per-Context damping or "
                               "armature of an MJCF model). Set the defaults before Finalize, or use a Context "
                               "that keeps them.")
