"""Contact half of MultibodyPlant: solver options, the contact_results output port, and the wiring of
the discrete constraint solver / continuous point-contact forces at Finalize()."""
from __future__ import annotations

from dataclasses import replace

from ..contact import ContactResults
from ..contact.continuous import ContinuousContactModel
from ..contact.geometry_table import ContactGeometryTable
from ..contact.mujoco_parameters import ConstraintSolverOptions
from ..contact.plant_solver import ContactInfosFromSolution, DiscreteContactSolver


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
            solver = DiscreteContactSolver(self)
            rows = solver.rows
            if (self.num_collision_geometries() or rows.limits or rows.friction or rows.equalities
                    or rows.tendons is not None):
                self._contact_solver = solver
                self._SetDiscreteConstraintSolver(solver)
        elif self.num_collision_geometries():
            self._continuous_contact = ContinuousContactModel(self)
            self._RegisterForceContributor(self._continuous_contact)

    def get_contact_results_output_port(self):
        """ContactResults of the current state: for a discrete plant, the contacts and forces of the step
        that starts at this state; for a continuous plant, the compliant point-contact forces."""
        self._ThrowIfNotFinalized("get_contact_results_output_port")
        return self._contact_results_port

    def _CalcContactResults(self, context, value) -> None:
        results = ContactResults()
        results.set_plant(self)
        kin = self._eval_kinematics(context)
        dry = self._PipelineDryStep(context, contacts=True) if self._contact_solver is not None else None
        if dry is not None:
            infos = self._PipelineContactInfos(context, dry[2])
        elif self._contact_solver is not None:
            self._contact_capture = []
            try:
                self._CalcDiscreteStep(context)
                sol = self._contact_capture[-1]
            finally:
                self._contact_capture = None
            infos = ContactInfosFromSolution(self, sol, kin)
        elif self._continuous_contact is not None:
            infos = self._continuous_contact.ContactInfos(context, kin)
        else:
            infos = []
        for info in infos:
            results.AddContactInfo(info)
        value.set_value(results)
