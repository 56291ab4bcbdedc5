"""Contact half of MultibodyPlant: contact-model settings (enums, MultibodyPlantConfig), constraint solver options
and statistics, the contact_results output port, and the wiring of the discrete constraint solver / continuous
point-contact forces at Finalize()."""
from __future__ import annotations

import enum

from pydantic import BaseModel, ConfigDict, field_validator

from mallard.geometry.query_results import HydroelasticContactRepresentation  # one enum, as in pydrake
import numpy as np
from dataclasses import replace
from ..contact import ContactResults
from ..contact.continuous import ContinuousContactModel
from ..contact.geometry_table import ContactGeometryTable
from ..contact.mujoco_parameters import ConstraintSolverOptions
from ..contact.step_infos import ContactInfosFromArrays, ContactInfosFromData
from ..pipeline.drake_contact import APPROX_MUJOCO
from ..contact.plant_solver import ContactInfosFromSolution, PlantConstraintSolver


class ContactModel(enum.Enum):
    """Which contact model the plant uses."""
    kHydroelastic = 0
    kPoint = 1
    kHydroelasticWithFallback = 2
    kHydroelasticsOnly = 0
    kPointContactOnly = 1


class DiscreteContactApproximation(enum.Enum):
    """Discrete contact formulation: TAMSI, SAP, similar or lagged (Drake's convex approximations)."""
    kTamsi = 0
    kSap = 1
    kSimilar = 2
    kLagged = 3


class DiscreteContactSolver(enum.Enum):
    """Discrete contact solver family (older Drake API)."""
    kTamsi = 0
    kSap = 1


_CONTACT_MODELS = {"hydroelastic": ContactModel.kHydroelastic, "point": ContactModel.kPoint,
                   "hydroelastic_with_fallback": ContactModel.kHydroelasticWithFallback}
_APPROXIMATIONS = {"tamsi": DiscreteContactApproximation.kTamsi, "sap": DiscreteContactApproximation.kSap,
                   "similar": DiscreteContactApproximation.kSimilar, "lagged": DiscreteContactApproximation.kLagged}
_REPRESENTATIONS = {"triangle": HydroelasticContactRepresentation.kTriangle,
                    "polygon": HydroelasticContactRepresentation.kPolygon}


class MultibodyPlantConfig(BaseModel):
    """pydrake's MultibodyPlantConfig: plant settings that can be loaded from YAML / dicts."""
    model_config = ConfigDict(validate_assignment=True, extra="forbid")

    time_step: float = 0.001
    use_sampled_output_ports: bool = True
    penetration_allowance: float = 0.001
    stiction_tolerance: float = 0.0001
    contact_model: str = "hydroelastic_with_fallback"
    discrete_contact_approximation: str = "lagged"
    sap_near_rigid_threshold: float = 1.0
    contact_surface_representation: str = "polygon"
    adjacent_bodies_collision_filters: bool = True

    @field_validator("time_step")
    @classmethod
    def _time_step(cls, v: float) -> float:
        if v < 0:
            raise ValueError(f"time_step must be >= 0, got {v}")
        return v

    @field_validator("penetration_allowance", "stiction_tolerance")
    @classmethod
    def _positive(cls, v: float) -> float:
        if not v > 0:
            raise ValueError(f"must be positive, got {v}")
        return v

    @field_validator("contact_model")
    @classmethod
    def _model(cls, v: str) -> str:
        if v not in _CONTACT_MODELS:
            raise ValueError(f"contact_model must be one of {sorted(_CONTACT_MODELS)}, got '{v}'")
        return v

    @field_validator("discrete_contact_approximation")
    @classmethod
    def _approx(cls, v: str) -> str:
        if v not in _APPROXIMATIONS and v != "":
            raise ValueError(f"discrete_contact_approximation must be one of {sorted(_APPROXIMATIONS)}, got '{v}'")
        return v

    @field_validator("contact_surface_representation")
    @classmethod
    def _repr(cls, v: str) -> str:
        if v not in _REPRESENTATIONS:
            raise ValueError(f"contact_surface_representation must be one of {sorted(_REPRESENTATIONS)}, got '{v}'")
        return v


class _ContactSettingsMixin:
    """Contact-model setters/getters; the values are read by the contact solver (multibody/contact)."""

    def _init_contact_settings(self) -> None:
        self._contact_model = ContactModel.kHydroelasticWithFallback
        self._discrete_approximation = DiscreteContactApproximation.kLagged
        self._surface_representation = (HydroelasticContactRepresentation.kPolygon if self._time_step > 0
                                         else HydroelasticContactRepresentation.kTriangle)
        self._penetration_allowance = 0.001
        self._stiction_tolerance = 0.0001
        self._sap_near_rigid_threshold = 1.0
        self._adjacent_bodies_collision_filters = True
        self._constraint_solver_options = None  # ConstraintSolverOptions (None: the defaults, made when first read)
        self._mujoco_joint_params: dict = {}  # joint index → MuJoCo limit / friction parameters (mujoco_parameters.py)
        self._mujoco_constraint_params: dict = {}  # constraint index → solref / solimp / torquescale
        self._contact_solver = None  # set at Finalize (_FinalizeContact)
        self._continuous_contact = None
        self._has_mujoco_parameters = False
        self._hydroelastic_warned = False
        self._contact_capture = None  # a list while a solve's StepSolutions are kept (contact results, sensors)

    def set_contact_model(self, model: ContactModel) -> None:
        self._ThrowIfFinalized("set_contact_model")
        if not isinstance(model, ContactModel):
            raise ValueError(f"set_contact_model: expected a ContactModel, got {model!r}")
        self._contact_model = model

    def get_contact_model(self) -> ContactModel:
        return self._contact_model

    def set_discrete_contact_approximation(self, approximation: DiscreteContactApproximation) -> None:
        """Drake's rules: only a discrete plant has one, and TAMSI (kTamsi) takes no constraints."""
        self._ThrowIfFinalized("set_discrete_contact_approximation")
        if not isinstance(approximation, DiscreteContactApproximation):
            raise ValueError(f"expected a DiscreteContactApproximation, got {approximation!r}")
        if not self._time_step > 0:
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}': set_discrete_contact_approximation() on a "
                               "continuous plant (time_step == 0); only a discrete plant has a contact "
                               "approximation, as in Drake")
        if approximation == DiscreteContactApproximation.kTamsi and self.num_constraints() > 0:
            raise RuntimeError("You selected TAMSI as the contact approximation, but you have constraints registered "
                               f"with this model (num_constraints() == {self.num_constraints()}). TAMSI does not "
                               "support constraints.")
        self._discrete_approximation = approximation

    def get_discrete_contact_approximation(self) -> DiscreteContactApproximation:
        return self._discrete_approximation

    def set_discrete_contact_solver(self, contact_solver: DiscreteContactSolver) -> None:
        self._ThrowIfFinalized("set_discrete_contact_solver")
        if not isinstance(contact_solver, DiscreteContactSolver):
            raise ValueError(f"expected a DiscreteContactSolver, got {contact_solver!r}")
        self.set_discrete_contact_approximation(DiscreteContactApproximation.kTamsi
                                                if contact_solver == DiscreteContactSolver.kTamsi
                                                else DiscreteContactApproximation.kSap)

    def get_discrete_contact_solver(self) -> DiscreteContactSolver:
        return (DiscreteContactSolver.kTamsi if self._discrete_approximation == DiscreteContactApproximation.kTamsi
                else DiscreteContactSolver.kSap)

    def set_contact_surface_representation(self, surface_representation: HydroelasticContactRepresentation) -> None:
        self._ThrowIfFinalized("set_contact_surface_representation")
        self._surface_representation = surface_representation

    def get_contact_surface_representation(self) -> HydroelasticContactRepresentation:
        return self._surface_representation

    @staticmethod
    def GetDefaultContactSurfaceRepresentation(time_step: float) -> HydroelasticContactRepresentation:
        return (HydroelasticContactRepresentation.kPolygon if time_step > 0
                else HydroelasticContactRepresentation.kTriangle)

    def set_penetration_allowance(self, penetration_allowance: float = 0.001) -> None:
        """Penetration allowance δ [m] used to estimate default point-contact stiffness and damping."""
        if not float(penetration_allowance) > 0:
            raise ValueError(f"set_penetration_allowance: must be positive, got {penetration_allowance}")
        self._penetration_allowance = float(penetration_allowance)

    def get_penetration_allowance(self) -> float:
        return self._penetration_allowance

    def get_contact_penalty_method_time_scale(self) -> float:
        """tc = 1/ω with ω = √(g/δ) (Drake's heuristic; g = |gravity|, 9.81 if zero)."""
        g = float(np.linalg.norm(self.gravity_field().gravity_vector())) or 9.81
        return float(np.sqrt(self._penetration_allowance / g))

    def set_stiction_tolerance(self, v_stiction: float = 0.0001) -> None:
        """Stribeck stiction tolerance [m/s]."""
        if not float(v_stiction) > 0:
            raise ValueError(f"set_stiction_tolerance: must be positive, got {v_stiction}")
        self._stiction_tolerance = float(v_stiction)

    def stiction_tolerance(self) -> float:
        return self._stiction_tolerance

    def set_sap_near_rigid_threshold(self, near_rigid_threshold: float = 1.0) -> None:
        self._ThrowIfFinalized("set_sap_near_rigid_threshold")
        if not float(near_rigid_threshold) >= 0:
            raise ValueError(f"set_sap_near_rigid_threshold: must be >= 0, got {near_rigid_threshold}")
        self._sap_near_rigid_threshold = float(near_rigid_threshold)

    def get_sap_near_rigid_threshold(self) -> float:
        return self._sap_near_rigid_threshold

    def set_adjacent_bodies_collision_filters(self, value: bool) -> None:
        self._ThrowIfFinalized("set_adjacent_bodies_collision_filters")
        self._adjacent_bodies_collision_filters = bool(value)

    def get_adjacent_bodies_collision_filters(self) -> bool:
        return self._adjacent_bodies_collision_filters


def ApplyMultibodyPlantConfig(config: MultibodyPlantConfig, plant) -> None:
    """Apply every setting of `config` except time_step (fixed at construction) to a pre-Finalize plant."""
    plant.SetUseSampledOutputPorts(config.use_sampled_output_ports)
    plant.set_penetration_allowance(config.penetration_allowance)
    plant.set_stiction_tolerance(config.stiction_tolerance)
    plant.set_contact_model(_CONTACT_MODELS[config.contact_model])
    if plant.time_step() > 0:  # an empty name means Drake's recommended approximation (the config's default)
        plant.set_discrete_contact_approximation(
            _APPROXIMATIONS[config.discrete_contact_approximation or MultibodyPlantConfig().discrete_contact_approximation])
    plant.set_sap_near_rigid_threshold(config.sap_near_rigid_threshold)
    plant.set_contact_surface_representation(_REPRESENTATIONS[config.contact_surface_representation])
    plant.set_adjacent_bodies_collision_filters(config.adjacent_bodies_collision_filters)


class _ContactMixin:
    """get_contact_results_output_port, constraint solver options and statistics."""

    # ---- options -----------------------------------------------------------------------------------------
    def get_constraint_solver_options(self) -> ConstraintSolverOptions:
        """The discrete constraint solver's options (MJCF <option>: cone, impratio, solver, iterations, ...)."""
        opts = self._constraint_solver_options
        if opts is None:
            opts = self._constraint_solver_options = ConstraintSolverOptions()
        return opts

    def set_constraint_solver_options(self, options: ConstraintSolverOptions | None = None, **changes) -> None:
        """Replace the options (a ConstraintSolverOptions) and/or change fields by keyword, e.g.
        set_constraint_solver_options(cone="elliptic", impratio=10). Raises ValueError on bad values."""
        base = options if options is not None else self.get_constraint_solver_options()
        if not isinstance(base, ConstraintSolverOptions):
            raise ValueError(f"set_constraint_solver_options: expected ConstraintSolverOptions, got "
                             f"{type(base).__name__}")
        bad = set(changes) - set(ConstraintSolverOptions.__dataclass_fields__)
        if bad:
            raise ValueError(f"set_constraint_solver_options: unknown options {sorted(bad)}; valid: "
                             f"{sorted(ConstraintSolverOptions.__dataclass_fields__)}")
        self._constraint_solver_options = replace(base, **changes).Validate()

    def get_constraint_solver_statistics(self) -> dict:
        """Last discrete solve: converged, iterations, residual; and the number of non-converged solves."""
        solver = self._contact_solver
        failures = self._pipeline_failures + (solver.failures if solver is not None else 0)
        last = self._pipeline_last
        if solver is not None and last is not None:  # the compiled step's (pipeline/data.py StepResults)
            k = 3 * self._model.nv + self._model.nu
            row = last.data
            return {"converged": bool(row[k + 1]), "iterations": int(row[k + 2]), "residual": float(row[k + 3]),
                    "failures": failures}
        if solver is None or solver.last_report is None:
            return {"converged": True, "iterations": 0, "residual": 0.0, "failures": failures}
        conv, it, res = solver.last_report
        return {"converged": conv, "iterations": it, "residual": res, "failures": failures}

    # ---- finalize and ports ------------------------------------------------------------------------------
    def _FinalizeContact(self) -> None:
        """Install the discrete constraint solver or the continuous contact forces; declare contact_results."""
        self._contact_solver = None
        self._continuous_contact = None
        self._has_mujoco_parameters = bool(self._mujoco_joint_params or self._mujoco_constraint_params)
        if self.num_collision_geometries() and self._scene_graph is not None:
            rows = ContactGeometryTable(self).ValidateAll(self._scene_graph.model_inspector())
            self._has_mujoco_parameters |= any(r.mujoco is not None for r in rows)
        if self._time_step > 0:
            solver = PlantConstraintSolver(self)
            rows = solver.rows
            if (self.num_collision_geometries() or rows.limits or rows.friction or rows.equalities
                    or rows.tendons is not None):
                self._contact_solver = solver
                self._SetDiscreteConstraintSolver(solver)
        elif self.num_collision_geometries():
            self._continuous_contact = ContinuousContactModel(self)
            self._RegisterForceContributor(self._continuous_contact)

    def get_contact_results_output_port(self):
        """ContactResults: for a discrete plant with sampled output ports (the default), the contacts and forces
        of its last step (empty before the first step, unchanged by SetPositions), as Drake's; without sampling,
        those of the step that starts at the current state; for a continuous plant, the compliant contact forces."""
        self._ThrowIfNotFinalized("get_contact_results_output_port")
        return self._contact_results_port

    def _CalcContactResults(self, context, value) -> None:
        results = ContactResults()
        results.set_plant(self)
        mujoco = self._PipelineApproximation() == APPROX_MUJOCO
        if self.has_sampled_output_ports():  # the last step's (pipeline/step_contacts.py; a list on the Python path)
            contacts = context.get_abstract_state(self._sampled_index).get_value().contacts
            if contacts is None or isinstance(contacts, list):
                infos = contacts or []
            else:
                infos = ContactInfosFromArrays(self, contacts.Arrays(), contacts.geom_ids, mujoco)
        elif self._contact_solver is not None and (dry := self._PipelineDryStep(context, contacts=True)) is not None:
            infos = ContactInfosFromData(self, dry[2], self._PipelineModel(context).geom_ids, mujoco)
        elif self._contact_solver is not None:
            kin = self._eval_kinematics(context)
            self._contact_capture = []
            try:
                self._CalcDiscreteStep(context)
                sol = self._contact_capture[-1]
            finally:
                self._contact_capture = None
            infos = ContactInfosFromSolution(self, sol, kin)
        elif self._continuous_contact is not None:
            infos = self._continuous_contact.ContactInfos(context, self._eval_kinematics(context))
        else:
            infos = []
        for info in infos:
            results.AddContactInfo(info)
        value.set_value(results)
