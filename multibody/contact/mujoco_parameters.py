"""MuJoCo constraint parameters of a plant's joints and constraints, and the discrete solver options.

The MJCF mapping (and users) call these before Finalize():

* ``SetJointMujocoParameters(plant, joint, solreflimit=, solimplimit=, margin=, frictionloss=,
  solreffriction=, solimpfriction=)``: per-joint limit and dry-friction rows (MJCF ``<joint>``).
  Limits themselves come from the joint's position limits (``Joint.set_position_limits``).
* ``SetConstraintMujocoParameters(plant, constraint_index, solref=, solimp=)``: the soft-constraint
  parameters of a constraint added with AddCouplerConstraint / AddBallConstraint / AddWeldConstraint /
  AddDistanceConstraint (MJCF ``<equality>`` solref / solimp; weld also takes ``torquescale``).
* ``ConstraintSolverOptions`` with ``plant.set_constraint_solver_options(options)``: MJCF ``<option>``
  cone, impratio, solver, iterations, tolerance, ls_iterations, ls_tolerance.

Geometry contact parameters (solref, solimp, friction, condim, margin, gap, priority, solmix) live in
each geometry's ProximityProperties ("mujoco" group, geometry.AddMujocoContactParameters).
Values are validated on entry with errors naming the joint or constraint.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .parameters import DEFAULT_SOLIMP, DEFAULT_SOLREF, ValidateSolimp, ValidateSolref

_JOINT_DEFAULTS = {"solreflimit": DEFAULT_SOLREF, "solimplimit": DEFAULT_SOLIMP, "margin": 0.0,
                   "frictionloss": 0.0, "solreffriction": DEFAULT_SOLREF, "solimpfriction": DEFAULT_SOLIMP}
_CONSTRAINT_DEFAULTS = {"solref": DEFAULT_SOLREF, "solimp": DEFAULT_SOLIMP, "torquescale": 1.0}
SOLVERS = ("newton", "cg", "pgs")
CONES = ("pyramidal", "elliptic")


@dataclass
class ConstraintSolverOptions:
    """Options of the discrete plant's constraint solver (MJCF <option> names and defaults).

    cone: 'pyramidal' or 'elliptic' friction cones; impratio: frictional-to-normal impedance ratio
    (elliptic cones); solver: 'newton' (MuJoCo's default), 'cg' or 'pgs'; iterations / tolerance:
    main solver limits; ls_iterations / ls_tolerance: line search limits; noslip_iterations /
    noslip_tolerance: MuJoCo's noslip sweeps after the main solve (0: none; contact/noslip.py); throw_on_failure: raise
    RuntimeError (iterations, residual) when a solve does not converge instead of recording it;
    position_integration: 'mujoco' (quaternions by their exact exponential map, as mj_integratePos),
    'drake' (q + h N(q) v), or 'auto' = 'mujoco' when any geometry, joint or constraint of the plant
    carries MuJoCo parameters.
    """
    cone: str = "pyramidal"
    impratio: float = 1.0
    solver: str = "newton"
    iterations: int = 100
    tolerance: float = 1e-8
    ls_iterations: int = 50
    ls_tolerance: float = 0.01
    noslip_iterations: int = 0
    noslip_tolerance: float = 1e-6
    throw_on_failure: bool = False
    position_integration: str = "auto"

    def position_integration_is_mujoco(self, plant) -> bool:
        """Whether the discrete step integrates positions as MuJoCo does (see position_integration)."""
        if self.position_integration != "auto":
            return self.position_integration == "mujoco"
        return plant._has_mujoco_parameters

    def Validate(self) -> "ConstraintSolverOptions":
        """Raise ValueError naming the bad option; returns self."""
        if self.cone not in CONES:
            raise ValueError(f"ConstraintSolverOptions: cone '{self.cone}' is not one of {CONES}")
        if self.position_integration not in ("auto", "mujoco", "drake"):
            raise ValueError(f"ConstraintSolverOptions: position_integration '{self.position_integration}' is not "
                             f"one of ('auto', 'mujoco', 'drake')")
        if self.solver not in SOLVERS:
            raise ValueError(f"ConstraintSolverOptions: solver '{self.solver}' is not one of {SOLVERS}")
        if not (np.isfinite(self.impratio) and self.impratio > 0):
            raise ValueError(f"ConstraintSolverOptions: impratio must be > 0, got {self.impratio}")
        if int(self.iterations) < 1 or int(self.ls_iterations) < 0:
            raise ValueError(f"ConstraintSolverOptions: iterations must be >= 1 and ls_iterations >= 0, got "
                             f"{self.iterations} and {self.ls_iterations}")
        if int(self.noslip_iterations) < 0 or not self.noslip_tolerance >= 0:
            raise ValueError(f"ConstraintSolverOptions: noslip_iterations and noslip_tolerance must be >= 0, got "
                             f"{self.noslip_iterations} and {self.noslip_tolerance}")
        if not (self.tolerance >= 0 and self.ls_tolerance >= 0):
            raise ValueError(f"ConstraintSolverOptions: tolerance and ls_tolerance must be >= 0, got "
                             f"{self.tolerance} and {self.ls_tolerance}")
        return self


def _store(plant, attr: str) -> dict:
    """The plant's dict `attr` of per-element MuJoCo parameters (made empty with the plant)."""
    return getattr(plant, attr)


def SetJointMujocoParameters(plant, joint, **params) -> None:
    """Set MuJoCo limit / dry-friction parameters of `joint` (keys: solreflimit, solimplimit, margin (m or
    rad), frictionloss (N or N m), solreffriction, solimpfriction). Must precede Finalize()."""
    plant._ThrowIfFinalized("SetJointMujocoParameters")
    plant._check_element(joint, "joint", plant._joints)
    label = f"joint '{joint.name()}'"
    out = dict(GetJointMujocoParameters(plant, joint))
    for key, value in params.items():
        if key not in _JOINT_DEFAULTS:
            raise ValueError(f"{label}: unknown MuJoCo joint parameter '{key}'; valid: {sorted(_JOINT_DEFAULTS)}")
        if key.startswith("solref"):
            value = tuple(ValidateSolref(value, "joint", joint.name()))
        elif key.startswith("solimp"):
            value = tuple(ValidateSolimp(value, "joint", joint.name()))
        else:
            value = float(value)
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"{label}: {key} must be finite and >= 0, got {value}")
        out[key] = value
    _store(plant, "_mujoco_joint_params")[int(joint.index())] = out


def GetJointMujocoParameters(plant, joint) -> dict:
    """The joint's MuJoCo parameters (defaults where unset): a dict with the keys of SetJointMujocoParameters."""
    return dict(_store(plant, "_mujoco_joint_params").get(int(joint.index()), _JOINT_DEFAULTS))


def SetConstraintMujocoParameters(plant, constraint_index, **params) -> None:
    """Set solref (2), solimp (5) and, for welds, torquescale of a constraint added through the plant API."""
    plant._ThrowIfFinalized("SetConstraintMujocoParameters")
    k = int(constraint_index)
    spec = plant._constraint_spec(constraint_index)
    name = f"{spec['kind']} constraint {k}"
    out = dict(GetConstraintMujocoParameters(plant, k))
    for key, value in params.items():
        if key == "solref":
            value = tuple(ValidateSolref(value, "constraint", name))
        elif key == "solimp":
            value = tuple(ValidateSolimp(value, "constraint", name))
        elif key == "torquescale":
            value = float(value)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"constraint '{name}': torquescale must be > 0, got {value}")
        else:
            raise ValueError(f"constraint '{name}': unknown MuJoCo parameter '{key}'; valid: "
                             f"{sorted(_CONSTRAINT_DEFAULTS)}")
        out[key] = value
    _store(plant, "_mujoco_constraint_params")[k] = out


def GetConstraintMujocoParameters(plant, constraint_index) -> dict:
    """solref, solimp and torquescale of a plant constraint (MuJoCo defaults where unset)."""
    return dict(_store(plant, "_mujoco_constraint_params").get(int(constraint_index), _CONSTRAINT_DEFAULTS))
