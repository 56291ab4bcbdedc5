"""The discrete plant's compiled step (multibody/pipeline): the plant compiles its Model at the first step (and
again when its SceneGraph's geometry data or its solver options change), keeps one Data per context in a cache
entry, gathers its inputs and makes one compiled call per step. The results row the next step needs (the solver's
warm start) is the plant's abstract state (pipeline/data.py StepResults), so it travels with Clone and pickle.

Until every feature is compiled, a plant using one that is not (see `UncompiledFeatures`) steps on the Python
path of _discrete_step.py; that path and this list shrink as features move into multibody/pipeline.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..contact.parameters import MixContactParameters
from ..kernels.entry_points import compiled_entry
from ..pipeline.actuation import CompileActuation
from ..pipeline.collision import CompileGeometry, EmptyGeomModel
from ..pipeline.constraint import (CompileRows, SAP_BAD_DELASSUS, SAP_BAD_FRICTION, SAP_BAD_RELAXATION,
                                   SAP_BAD_STIFFNESS)
from ..pipeline.contact import CompileContact
from ..pipeline.drake_contact import (APPROX_LAGGED, APPROX_MUJOCO, APPROX_SAP, APPROX_SIMILAR, APPROX_TAMSI,
                                      DRAKE_BAD_DEPTH, DRAKE_NOT_HYDRO)
from ..pipeline.data import StepResults, contact_arrays, error_info, new_data, solver_input_arrays
from ..pipeline.equality import CompileEquality
from ..contact.constraint_rows import TamsiLimitPenalties
from ..pipeline.fluid import CompileFluid
from ..pipeline.hydroelastic import HYDRO_FALLBACK, HYDRO_OFF, HYDRO_STRICT, CompileHydro
from ..pipeline.forward import (STAGE_INTEGRATE, STAGE_SMOOTH, STAGE_SOLVER, STEP_BAD_EQUALITY,
                                STEP_BAD_FORCE_ELEMENT, STEP_BAD_GEOMETRY, STEP_BAD_LIMIT, STEP_BAD_MOCAP,
                                STEP_BAD_SAP, STEP_BAD_SIZES, STEP_NAN_ACTUATION, STEP_NAN_CTRL, STEP_NOT_CONVERGED,
                                STEP_NOT_FINITE, STEP_OK, STEP_RIGID_PAIR, STEP_SOLVER_BAD_INPUT, step)
from ..pipeline.integrate import IMPLICIT, IMPLICITFAST, RK4, CompileIntegrator, EulerIntegrator, IntegratorCode
from ..pipeline.model import new_model
from ..pipeline.passive import COMPILED_FORCE_ELEMENTS, PASSIVE_COINCIDENT_POINTS, CompilePassive
from ..pipeline.sensor import CompileSensors
from ..pipeline.smooth import CompileTree
from ..pipeline.solver import CompileOptions
from ..pipeline.tendon import CompileTendons, RaiseIfBadTendonLimit, TendonOffsets
from ..tree.force_element import GimbalLockError, LinearBushingRollPitchYaw, LinearSpringDamper
from ..mjcf.plant_maps import GetMjcfPlantMaps
from ..mjcf.sensors import SensorSupported
from ..pipeline.model_check import ThrowZeroQuaternion
from .element_parameters import VariantModel

_F64 = np.dtype(np.float64)
_SAP_CONSTRAINTS = ("Ball", "Weld", "Distance", "Coupler")  # the constraints Drake's SAP driver adds
_APPROXIMATIONS = {"kTamsi": APPROX_TAMSI, "kSap": APPROX_SAP, "kSimilar": APPROX_SIMILAR,
                   "kLagged": APPROX_LAGGED}
_HYDRO_MODES = {"kPoint": HYDRO_OFF, "kHydroelasticWithFallback": HYDRO_FALLBACK, "kHydroelastic": HYDRO_STRICT}


_STEP_ENTRY: list = []  # the process's compiled entry of pipeline.forward.step (see kernels/entry_points.py)


def UncompiledFeatures(plant) -> list[str]:
    """The features of a finalized discrete plant the compiled step does not compute yet (empty: it steps
    compiled). Scene-dependent ones (SignedDistanceField geometries) are checked when the Model is compiled."""
    out = []
    if plant._force_contributors:
        out.append("force contributors")
    solver = plant._contact_solver
    if plant._discrete_solver is not solver:
        out.append("a custom discrete constraint solver (_SetDiscreteConstraintSolver)")
    if any(s.type == "plugin" for pm in GetMjcfPlantMaps(plant) for s in pm.model.sensors):
        out.append("MJCF plugin sensors")
    if any(any(s.type in ("force", "torque") for s in pm.model.sensors)
           and any(e.type in ("connect", "weld", "tendon") for e in pm.model.equalities)
           for pm in GetMjcfPlantMaps(plant)):
        out.append("MJCF force / torque sensors with connect / weld / tendon equalities (their forces in cfrc_ext)")
    plugins = plant._mjcf_actuation.plugins
    if plugins and not plugins.in_step:
        out.append("MJCF engine plugins other than mujoco.pid and SDF shapes")
    return out


class _PipelineCache:
    """The plant's compiled pieces (process-local: numba structs do not pickle; rebuilt on demand after loading):
    the uncompiled features it uses (None: not listed yet), the Model of the last step with what built it, the
    parts fixed after Finalize and the force elements the step evaluates in Python (a user's ForceElement
    subclasses)."""

    __slots__ = ("features", "compiled", "tree", "python_forces", "variants")

    def __init__(self):
        self.features, self.compiled, self.tree, self.python_forces = None, None, None, None
        self.variants = {}  # ElementValues.key → the Model of a Context's damping and reflected inertia

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self.__init__()

    def __deepcopy__(self, memo) -> "_PipelineCache":
        return _PipelineCache()


class _CompiledModel:
    """One compiled Model with what built it (the SceneGraph geometry data and solver options it is valid for),
    and `euler`: the same Model with Euler integration (the contacts of the step that starts at a state are those
    of its first forward evaluation; RK4's later stages move Data on)."""

    __slots__ = ("scene", "options", "model", "euler", "geom_rows", "geom_ids", "pairs")

    def __init__(self, scene, options, model, euler, geom_rows, geom_ids, pairs):
        self.scene, self.options, self.model, self.euler = scene, options, model, euler
        self.geom_rows, self.geom_ids, self.pairs = geom_rows, geom_ids, pairs


class _PipelineStepMixin:
    """The compiled discrete step of MultibodyPlant."""

    def _ResetPipeline(self) -> None:
        """Forget the compiled pieces (construction, and a change of the plant's forces or solver)."""
        self._pipeline = _PipelineCache()
        self._step_arrays_model = None  # the Model the Python path's step arrays were made for (_discrete_step.py)

    def _DeclarePipeline(self) -> None:
        """At Finalize (discrete plants): the per-context Data cache entry and the step statistics."""
        self._pipeline_last = None      # the last step's StepResults (for get_constraint_solver_statistics)
        self._pipeline_failures = 0
        self._pipeline_zeros = (np.zeros(0), np.zeros((0, 6)))
        self._pipeline_data = self.DeclareCacheEntry(
            "compiled step data", alloc=_PipelineScratch, calc=lambda context, value: None,
            prerequisites_of_calc={self.nothing_ticket()})

    # ---- the model ------------------------------------------------------------------------------------------
    def _PipelineModel(self, context, extra_damping: np.ndarray | None = None) -> "_CompiledModel | None":
        """The compiled Model for this context (contacts on when `_pipeline_collide`), or None when the plant
        steps on the Python path. `extra_damping` (nv): joint damping added to the context's (implicit PD
        controllers, pipeline/pd_control.py)."""
        cache = self._pipeline
        if cache.features is None:
            cache.features = UncompiledFeatures(self)
            cache.python_forces = [fe for fe in self._force_elements[1:] if not isinstance(fe, COMPILED_FORCE_ELEMENTS)]
        if cache.features:
            return None
        collide = self._pipeline_collide(context)
        scene = query = None
        if collide:
            query = self._geometry_query_port.Eval(context)
            scene = query._sg._state(query._context).compiled()
        options = self.get_constraint_solver_options()
        ev = self._EvalElementValues(context)
        key, variant, forces = ev.key, ev.model, ev.force_elements
        if extra_damping is not None:
            variant, _fast, key = VariantModel(self, ev.model.damping + extra_damping, ev.model.reflected_inertia)
        if forces:  # the context's spring / bushing parameters: a variant with its own force elements
            key = (key or b"") + repr(sorted((k, np.asarray(v).tobytes()) for k, v in forces.items())).encode()
        got = cache.compiled if key is None else cache.variants.get(key)
        if got is None or got.scene is not scene or got.options is not options:
            got = self._CompilePipelineModel(scene, options, query, None if key is None else variant, forces)
            if got is None:
                return None
            if key is None:
                cache.compiled = got
            else:
                if len(cache.variants) > 64:
                    cache.variants.clear()
                cache.variants[key] = got
        return got

    def _pipeline_collide(self, context) -> bool:
        """Whether the step computes contacts: the plant has collision geometry and its geometry query is
        connected (cached with the context's input wiring)."""
        if self._contact_solver is None or not self._contact_solver._has_geometry:
            return False
        version = context._root._wiring_version
        cached = getattr(context, "_mbp_query_wiring", None)
        if cached is None or cached[0] != version:
            cached = context._mbp_query_wiring = (version, self._geometry_query_port.HasValue(context))
        return cached[1]

    def _CompilePipelineModel(self, scene, options, query, model=None, forces=None) -> _CompiledModel | None:
        """The Model for SceneGraph geometry data `scene` (a CompiledScene; None: no contacts) and `options`;
        `model`: the plant's CompiledModel with a Context's damping and reflected inertia (None: the plant's);
        `forces`: a Context's force-element parameters that differ from the defaults (ElementValues.force_elements)."""
        solver = self._contact_solver
        cache = self._pipeline
        if cache.tree is None:
            rows = solver.rows if solver is not None else None
            maps = GetMjcfPlantMaps(self)
            mjcf = self._mjcf_actuation
            cache.tree = (
                CompileTree(self, rows, solver.tree_blocks if solver is not None else None), CompilePassive(self),
                CompileActuation(self, mjcf, maps, TendonOffsets(maps)),
                CompileRows(rows), CompileFluid(self), CompileIntegrator(self), CompileTendons(self, maps),
                CompileSensors(maps, TendonOffsets(maps), mjcf.u_slices, SensorSupported),
                rows.PipelineEqualityModel(maps, TendonOffsets(maps)) if rows is not None
                else CompileEquality([], np.zeros((0, 2)), np.zeros(0)))
        tree, passive, act, rows, fluid, integ, ten, sens, eq = cache.tree
        if forces:
            passive = CompilePassive(self, forces)
        if model is not None:
            tree = CompileTree(self, solver.rows if solver is not None else None,
                               solver.tree_blocks if solver is not None else None, model)
        opt = CompileOptions(self, solver is not None, bool(self._mjcf_maps))
        geom_rows, geom_ids, pairs = [], [], []
        approx = self._PipelineApproximation()
        beta, vs = self.get_sap_near_rigid_threshold(), self.stiction_tolerance()
        if scene is None:
            geom, contact = EmptyGeomModel(), CompileContact([], [], beta, approx, (), vs, TamsiLimitPenalties(self))
            hydro = CompileHydro(None, HYDRO_OFF, False)
        else:
            if scene.model.sdf:
                cache.features = ["SignedDistanceField (MJCF type='sdf') geometries"]
                return None
            table = solver.geometry
            inspector = query.inspector()
            table.Sync(inspector)
            geom_ids = list(scene.proximity_ids)
            geom_rows = [table.Row(inspector, k, gid) for k, gid in enumerate(geom_ids)]
            forced = scene.model.forced
            for i, j in (forced[0].tolist() if forced is not None else []):
                a, b = geom_rows[i], geom_rows[j]
                pairs.append(a.pairs.get(b.gid) or b.pairs.get(a.gid))
            mode = _HYDRO_MODES[self.get_contact_model().name] if approx != APPROX_MUJOCO else HYDRO_OFF
            if approx == APPROX_MUJOCO:
                self._WarnHydroelastic(inspector, geom_ids)
            geom = CompileGeometry(scene, np.array([r.body for r in geom_rows], np.int64))
            contact = CompileContact(geom_rows, pairs, beta, approx, [i.get_value() for i in geom_ids], vs,
                                     TamsiLimitPenalties(self))
            hydro = CompileHydro(scene, mode, self.get_contact_surface_representation().name == "kTriangle")
        model = new_model(tree, passive, act, rows, geom, contact, opt, fluid, integ, ten, sens, hydro, eq)
        euler = model if IntegratorCode(self) != RK4 else new_model(tree, passive, act, rows, geom, contact, opt, fluid,
                                                                EulerIntegrator(self), ten, sens, hydro, eq)
        return _CompiledModel(scene, options, model, euler, geom_rows, geom_ids, pairs)

    def _WarnHydroelastic(self, inspector, geom_ids) -> None:
        """Warn once that geometries with hydroelastic properties in a hydroelastic contact model get point contact
        when the plant uses MuJoCo's contact (MJCF contact parameters)."""
        if self._hydroelastic_warned or self.get_contact_model().name == "kPoint":
            return
        names = []
        for gid in geom_ids:
            props = inspector.GetProximityProperties(gid)
            if props is not None and props.HasProperty("hydroelastic", "compliance_type"):
                names.append(inspector.GetName(gid))
        if names:
            self._hydroelastic_warned = True
            warnings.warn(f"MultibodyPlant '{self.get_name()}': contact model {self.get_contact_model().name} but "
                          f"mallard computes MuJoCo's contact for this model; geometries {names[:5]}"
                          f"{' ...' if len(names) > 5 else ''} with hydroelastic properties use point contact "
                          "(call set_contact_model(ContactModel.kPoint) to silence this)", stacklevel=2)

    def _PipelineApproximation(self) -> int:
        """The Model's contact formulation (drake_contact.APPROX_*): Drake's discrete approximation for a model
        without MuJoCo parameters, its ball, weld, distance and coupler constraints as Drake's SAP constraints
        (pipeline/drake_constraints.py; a kTamsi plant has none: Add*Constraint refuses them as Drake does); else
        MuJoCo's soft constraints (the equality rows are MuJoCo rows, as on the Python path)."""
        if self._has_mujoco_parameters:
            return APPROX_MUJOCO
        if any(s["kind"] not in _SAP_CONSTRAINTS for s in self._constraints):
            return APPROX_MUJOCO
        return _APPROXIMATIONS.get(self.get_discrete_contact_approximation().name, APPROX_MUJOCO)

    # ---- one step ---------------------------------------------------------------------------------------------
    def _PipelineActuatedStep(self, context, compiled, euler: bool, x_next: np.ndarray, warm: np.ndarray,
                              results: np.ndarray, act_next: np.ndarray | None = None, dry: bool = False):
        """The compiled step (`compiled`: the context's _CompiledModel; its Euler Model when `euler`) with Drake's
        actuation rules when the plant has PD-controlled or effort-limited actuators (pipeline/pd_control.py: clamped
        inputs, implicit PD controllers re-solved until their saturation is consistent, the applied actuation in the
        results row). Returns the context's Data (`dry`: its dry-step Data, which keeps the last step's intact)."""
        collide = self._pipeline_collide(context)
        pd = self._pd
        if not pd.active:
            return self._PipelineStep(context, compiled.euler if euler else compiled.model, collide, x_next, warm,
                                      results, act_next, dry=dry)
        m = self._model
        whole, connected, _tau, _F = self._input_wiring(context)
        if not pd and whole and not connected:  # effort limits only, one input port: clamp it (no allocation)
            raw = self._eval_input_raw(context, self._actuation_port._index)._data
            u = np.clip(raw, pd.lower, pd.upper, out=pd.scratch)
            return self._PipelineStep(context, compiled.euler if euler else compiled.model, collide, x_next, warm,
                                      results, act_next, u=u, dry=dry)
        datas = []

        def run(u, extra_damping):
            got = compiled if extra_damping is None else self._PipelineModel(context, extra_damping)
            datas.append(self._PipelineStep(context, got.euler if euler else got.model, collide, x_next, warm, results,
                                            act_next, u=u, dry=dry))
            return x_next[m.nq:m.nq + m.nv]

        applied = pd.ImplicitStep(self, context, run)
        results[m.nv:m.nv + m.nu] = applied
        return datas[-1]

    def _PipelineStep(self, context, model, collide: bool, x_next: np.ndarray, warm: np.ndarray,
                      results: np.ndarray, act_next: np.ndarray | None = None, u: np.ndarray | None = None,
                      dry: bool = False):
        """One compiled step from `context` into x_next, the MJCF activations' discrete state `act_next` (None: a
        scratch array) and the results row `results` (the previous row `warm`); raises the plant's errors. Returns
        the context's Data. `u`: the actuation to apply (None: the actuation input). `dry`: a step whose results are
        not kept (on the context's second Data). Allocates no Python object in the usual wiring."""
        # the inputs: the actuation input read without copying it, the MJCF ctrl ports, the applied forces
        whole, connected, has_tau, has_F = self._input_wiring(context)
        if u is not None:
            pass
        elif self._model.nu == 0:
            u = self._pipeline_zeros[0]
        elif whole and not connected:
            u = self._eval_input_raw(context, self._actuation_port._index)._data
            if u.dtype is not _F64 or not u.flags.c_contiguous:
                u = np.ascontiguousarray(u, dtype=np.float64)
        else:
            u = self._EvalActuation(context)
        act = self._mjcf_actuation
        if act.nu == 0:
            ctrl = self._pipeline_zeros[0]
        else:
            ctrl = np.zeros(act.nu)
            for port, sl in zip(act.ports, act.ctrl_slices):
                if port.HasValue(context):
                    ctrl[sl] = port.Eval(context)
        a0 = a1 = self._pipeline_zeros[0]
        if act.na:  # MuJoCo's act: the plant's activation state group
            a0 = context.get_discrete_state(self._mjcf_act_group)._data
            a1 = np.empty(act.na) if act_next is None else act_next
        tau_in, F_in = self._pipeline_zeros
        if has_tau or has_F:
            tau_in, F_in = self._EvalAppliedForces(context, self._eval_kinematics(context))
        if self._pipeline.python_forces:  # a user's force elements: evaluated here, passed as applied forces
            tau_in, F_in = self._PythonForceElements(context, tau_in, F_in)
        mocap = self._pipeline_zeros[0] if self._mjcf_mocap is None else self._mjcf_mocap.PoseVector(context)
        g_W = self._force_elements[0]._g  # (gravity_field(): the stored element, no handle per step)
        f = self._fast
        if g_W is not f.g_source:  # the gravity vector was set: refresh the contiguous copy the step reads
            f.g_source, f.g_W = g_W, np.ascontiguousarray(g_W, dtype=np.float64)
        scratch = self._pipeline_data._eval(context)._value
        if dry:
            d = scratch.Dry()
        else:
            scratch.fresh = None
            d = scratch.data
        x = self._qv_vector(context)._data
        bp = self._element_cache._eval(context)._value.bp_flat
        time = context.get_time()
        if not _STEP_ENTRY:
            _STEP_ENTRY.append(compiled_entry(step, model, d, x, bp, u, ctrl, a0, a1, tau_in, F_in, f.g_W, mocap,
                                              collide, warm, x_next, results, time))
        try:
            status = _STEP_ENTRY[0](model, d, x, bp, u, ctrl, a0, a1, tau_in, F_in, f.g_W, mocap, collide, warm, x_next,
                                    results, time)
        except np.linalg.LinAlgError:
            stage = error_info(d)[0]
            if stage == STAGE_SOLVER:
                raise ValueError(f"SolveConstraints ({self.get_constraint_solver_options().solver}): the mass matrix M "
                                 "(or M + J'DJ) is not positive definite; check the inertias and armature of the "
                                 "model") from None
            if stage == STAGE_SMOOTH:
                self._ThrowSingularMassMatrix(context)
            if stage == STAGE_INTEGRATE and IntegratorCode(self) in (IMPLICIT, IMPLICITFAST):
                raise RuntimeError(
                    f"MultibodyPlant '{self.get_name()}' at t = {context.get_time()}: the {self._mjcf_integrator} "
                    "integrator's matrix M + h·D − h·∂f/∂v is singular (implicitfast: not positive definite); a "
                    "velocity-dependent force (actuator velocity gain or bias, fluid drag) adds energy faster than the "
                    "mass matrix and damping absorb: check its sign, or reduce the time step") from None
            raise
        except ZeroDivisionError:  # a zero quaternion in the state (compiled kernels raise on division by zero)
            ThrowZeroQuaternion(self, np.asarray(x[:self._model.nq]))
        if status != STEP_OK:
            self._PipelineStatus(context, status, d, x, x_next, results, u, ctrl)
        return d

    def _PythonForceElements(self, context, tau_in: np.ndarray, F_in: np.ndarray) -> tuple:
        """(τ, F_Bo_W) of the applied inputs `tau_in`, `F_in` (possibly empty) plus the force elements the pipeline
        does not compile (a user's ForceElement subclasses), evaluated on the context's kinematics."""
        m = self._model
        kin = self._eval_kinematics(context)
        tau, F = np.zeros(m.nv), np.zeros((m.nb, 6))
        for fe in self._pipeline.python_forces:
            fe._CalcAndAddForceContribution(context, kin, kin.q, kin.v, F, tau)
        if tau_in.shape[0]:
            tau += tau_in
        if F_in.shape[0]:
            F += F_in
        return tau, F

    def _PipelineStatus(self, context, status, d, x, x_next, results, u, ctrl) -> None:
        """Act on a step's non-OK status: count a non-converged solve (raise if asked), else raise the error."""
        name = self.get_name()
        opts = self.get_constraint_solver_options()
        if status == STEP_NOT_CONVERGED:
            self._pipeline_failures += 1
            if opts.throw_on_failure:
                nv, nu = self._model.nv, self._model.nu
                it, res = int(results[3 * nv + nu + 2]), float(results[3 * nv + nu + 3])
                raise RuntimeError(f"MultibodyPlant '{name}' constraint solver at t = {context.get_time()} "
                                   f"({opts.solver}) did not converge: {it} iterations, residual {res:.3e}; raise "
                                   "`iterations` or loosen `tolerance`")
            return
        _stage, bad, what = error_info(d)
        if status == STEP_NAN_ACTUATION:
            raise RuntimeError(f"MultibodyPlant '{name}': NaN in the actuation input")
        if status == STEP_NAN_CTRL:
            raise RuntimeError(f"MultibodyPlant '{name}': NaN in an MJCF ctrl input port")
        if status == STEP_NOT_FINITE:
            self._check_finite(context, x_next[:self._model.nq + self._model.nv], "state after the discrete step")
        if status == STEP_BAD_SIZES:
            raise ValueError(f"MultibodyPlant '{name}': the discrete step got a state of size {x.shape[0]}, an "
                             f"actuation of size {u.shape[0]} or a ctrl of size {ctrl.shape[0]}; expected "
                             f"{self._model.nq + self._model.nv}, {self._model.nu} and {ctrl.shape[0]}")
        if status == STEP_BAD_LIMIT:
            njl = len(self._contact_solver.rows.limits)
            if bad < njl:
                self._contact_solver.rows.RaiseIfBadLimit(int(bad))
            RaiseIfBadTendonLimit(GetMjcfPlantMaps(self), int(bad) - njl)
        if status == STEP_BAD_EQUALITY:
            self._contact_solver.rows.RaiseEqualityError(int(bad))
        if status == STEP_BAD_MOCAP:
            self._mjcf_mocap.EvalPoses(self, context)  # raises the error naming the mocap body
        if status == STEP_BAD_FORCE_ELEMENT:
            kind = LinearSpringDamper if what == PASSIVE_COINCIDENT_POINTS else LinearBushingRollPitchYaw
            fe = [e for e in self._force_elements if isinstance(e, kind)][int(bad)]
            if kind is LinearSpringDamper:
                fe._geometry(self._eval_kinematics(context))  # raises: the attachment points coincide
            raise GimbalLockError()
        compiled = self._pipeline.compiled
        if status == STEP_BAD_GEOMETRY:
            body, geom = contact_arrays(d)[:2]
            a, b = (compiled.geom_rows[int(k)] for k in geom[bad])
            MixContactParameters(a.mujoco or {"name": a.name}, b.mujoco or {"name": b.name})
        if status == STEP_RIGID_PAIR:
            if int(what) == DRAKE_NOT_HYDRO:
                ng = len(compiled.geom_rows)
                a, b = (compiled.geom_rows[int(bad) // ng].name, compiled.geom_rows[int(bad) % ng].name)
                raise RuntimeError(f"MultibodyPlant '{name}': ContactModel.kHydroelastic, but the penetrating geometries "
                                   f"'{a}' and '{b}' cannot have a hydroelastic contact surface (one has no hydroelastic "
                                   "representation, both are rigid, or a compliant half space meets a compliant mesh); "
                                   "use ContactModel.kHydroelasticWithFallback or give them hydroelastic properties")
            raise ValueError("point contact: both geometries are rigid (infinite stiffness)")
        if status == STEP_BAD_SAP:
            key = {SAP_BAD_STIFFNESS: "stiffness", SAP_BAD_RELAXATION: "relaxation_time",
                   SAP_BAD_FRICTION: "mu", SAP_BAD_DELASSUS: "w", DRAKE_BAD_DEPTH: "penetration depth"}[int(what)]
            raise ValueError(f"contact between geometries {[compiled.geom_rows[int(k)].name for k in contact_arrays(d)[1][bad]]}"
                             f": {key} is invalid (stiffness and w must be > 0, relaxation_time and friction >= 0, "
                             "the depth and stiffness·depth finite; check the geometry sizes)")
        nv, nu = self._model.nv, self._model.nu
        cause = ("the constraint solver's input (M, qacc_smooth or aref) contains NaN/inf"
                 if status == STEP_SOLVER_BAD_INPUT else
                 f"the constraint solver ({opts.solver}) produced NaN/inf after {int(results[3 * nv + nu + 2])} "
                 f"iterations (residual {results[3 * nv + nu + 3]})")
        self._RaiseIllPosedSolve(context, cause, *solver_input_arrays(d))

    def _PipelineDryStep(self, context, contacts: bool = False):
        """(x⁺, results row, Data) of the step that starts at `context`, leaving the context unchanged; None on the
        Python path. `contacts`: only the contacts and constraint forces at this state are needed (Data after the
        step's first forward evaluation)."""
        compiled = self._PipelineModel(context)
        if compiled is None:
            return None
        m = self._model
        cur = context.get_abstract_state(self._sampled_index).get_value()
        x_next = np.empty(m.nq + m.nv)
        results = np.empty(cur.data.shape[0])
        d = self._PipelineActuatedStep(context, compiled, contacts, x_next, cur.data, results, dry=True)
        return x_next, results, d

    def _PipelineSensorData(self, context) -> np.ndarray | None:
        """The MJCF sensordata of all models (MuJoCo's layout, models in load order) on the compiled step, None on
        the Python path: a sampled plant's last step's (computed at the state that step started from, as mj_step),
        else — and before the first step — those of the step that starts at this state (as mj_forward)."""
        if self._PipelineModel(context) is None:
            return None
        m = self._model
        k = StepResults.sensors(m.nv, m.nu)
        if self.has_sampled_output_ports():
            row = context.get_abstract_state(self._sampled_index).get_value().data
            if row[k] == 1.0:
                return row[k + 1:]
        return self._PipelineDryStep(context, contacts=True)[1][k + 1:]


class _PipelineScratch:
    """The cache entry value holding one context's native Data (rebuilt, never copied, for a cloned context): `data`
    for the steps, `fresh` the StepContacts of the last one (step_contacts.py; None while a step runs), and a second
    Data for dry steps (the step that starts at a state, for the unsampled ports and MJCF sensors), which leaves the
    last step's contacts, and `lean` the arguments of the lean loop's compiled call for this context."""

    __slots__ = ("data", "fresh", "dry", "lean")

    def __init__(self):
        self.data, self.fresh, self.dry = new_data(), None, None
        self.lean = None  # the lean loop's call arguments (_discrete_step._LeanCall)

    def Dry(self):
        if self.dry is None:
            self.dry = new_data()
        return self.dry

    def __deepcopy__(self, memo) -> "_PipelineScratch":
        return _PipelineScratch()

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self.__init__()
