"""The discrete plant's step: the compiled pipeline (_pipeline_step.py) when it computes every feature of the plant,
else this Python path: semi-implicit Euler with implicit joint damping and the constraint solver of contact/plant_solver.py
(a mixin of MultibodyPlant)."""
from __future__ import annotations

import numpy as np

from ..contact.elimination import ReverseTreeSolve
from ..contact.plant_solver import ContactInfosFromSolution
from ..kernels import pipeline as pl
from ..kernels.contact_kernels import IntegratePositions, NextState
from ..kernels.entry_points import compiled_entry
from ..pipeline.multi_step import multi_step, multi_step_packed, new_lean_args
from ..pipeline.multi_step import multi_step as _multi_step_kernel
from ..mjcf.rk4 import IsRungeKuttaStageContext, RungeKuttaNextActivations, RungeKuttaStep
from ..mjcf.implicit import ImplicitStep
from ..pipeline.kinematics_cache import Kinematics
from ..pipeline.step_contacts import AttachStepContacts, StepContacts, step_contact_arrays
from ..pipeline.reaction_forces import AddContactBodyForces, AddContactInfoBodyForces, CalcReactionForces, ZeroReactionForces
from ...systems.framework.dependency import K_P, K_TIME, K_U, K_XA, K_XC, K_XD

_F64 = np.dtype(np.float64)
_NO_CONTACTS: list = []  # never mutated
_MULTI_STEP_ENTRY: list = []  # multi_step_packed's compiled entry for the plant's argument types (no type dispatch)


class _DiscreteStepMixin:
    """x⁺ = f(x, u) for time_step > 0 (periodic unrestricted update, sampled output ports)."""

    def _CalcDiscreteStep(self, context):
        """The Python path's step (x⁺, v̇, u, τ_contact) — semi-implicit Euler: (M + hD)(v⁺ − v)/h = τ − C v − D v;
        q⁺ = q + h·N(q)·v⁺ — for plants with features the compiled step does not compute (UncompiledFeatures)."""
        kin = self._eval_kinematics(context)
        m = self._model
        if self._step_arrays_model is not m:
            self._InitDiscreteStepArrays()
        u, tau, F, tau_c = self._AssembleForces(context, kin, include_damping=False)
        mc = self._ModelFor(context)  # the context's damping and reflected inertia
        has_damping = self._has_damping if mc is m else bool(np.any(mc.damping))
        if self._discrete_solver is None and self._tendon_inertia is None:
            try:
                x_next, a = pl.discrete_step(m.order, m.ji, mc.reflected_inertia, kin.S, kin.Iw, kin.p_WB, kin.V,
                                             kin.c, F, tau, mc.damping, self._time_step, kin.q, kin.v)
            except np.linalg.LinAlgError:
                self._ThrowSingularMassMatrix(context)
            if self._mjcf_maps:  # MJCF models: MuJoCo's q update (exact quaternion exponential)
                v_next = x_next[m.nq:]
                x_next[:m.nq] = IntegrateDiscretePositions(self, kin.q, v_next, self._time_step,
                                                          pl.map_velocity_to_qdot(m.order, m.ji, kin.q, v_next))
        else:
            h = self._time_step
            M_hat = pl.mass_matrix_from_inertias(m.order, m.ji, mc.reflected_inertia, kin.S, kin.Iw)
            if has_damping:
                M_hat[self._diag_rows, self._diag_rows] += h * mc.damping
                tau = tau - mc.damping * kin.v
            # a_free = (M + hD)^-1 (τ − D v − C v): the bias by RNEA at v̇ = 0, the solve by a tree-ordered
            # envelope Cholesky of M̂ (sparse per tree, no second mass matrix)
            minus_rhs = pl.inverse_dynamics_from_inertias(m.order, m.ji, mc.reflected_inertia, kin.S, kin.Iw, kin.p_WB,
                                                          kin.V, kin.c, self._zero_vdot, F, tau)
            if self._tendon_inertia is not None:  # MJCF tendon armature (mjcf/tendon_armature.py)
                self._tendon_inertia.AddToMassMatrixAndBias(kin, M_hat, minus_rhs)
            try:
                a_free = ReverseTreeSolve(M_hat, self._mass_blocks, -minus_rhs)
            except np.linalg.LinAlgError:
                self._ThrowSingularMassMatrix(context)
            if self._discrete_solver is None:  # no constraints (MJCF tendon armature): the free acceleration
                out = a_free
            else:
                out = self._discrete_solver(self, context, kin, M_hat, a_free, h)
            if isinstance(out, tuple):  # (a, generalized contact forces of the constraint solve)
                out, tau_extra = out
                tau_c = tau_c + tau_extra
            a = np.ascontiguousarray(out, dtype=np.float64)
            # v⁺ = v + h a and MuJoCo's or Drake's q update, in one compiled call
            x_next = NextState(m.order, m.ji, kin.q, kin.v, a, h,
                               self.get_constraint_solver_options().position_integration_is_mujoco(self))
        scheme = self._mjcf_integrator
        if scheme == "RK4":  # MJCF RK4 (mjcf/rk4.py); its stages are Euler steps in a scratch context
            if not IsRungeKuttaStageContext(self, context):
                x_next, a = RungeKuttaStep(self, context, kin, a)
        elif scheme is not None:  # MJCF implicit / implicitfast (mjcf/implicit.py)
            x_next, a = ImplicitStep(self, context, kin, a)
        self._check_finite(context, x_next, "state after the discrete step")
        self._step_forces = F  # the body forces of the step (its reaction forces' input, reaction_forces.py)
        return x_next, a, u, tau_c

    def _InitDiscreteStepArrays(self) -> None:
        """Fixed for a compiled model: the mass matrix's tree blocks (dof ranges no M entry crosses, the solver's
        tree_blocks when it found them, else one block), the diagonal index and a zero v̇."""
        m = self._model
        blocks = getattr(self._discrete_solver, "tree_blocks", None)
        if blocks is None or blocks.shape[0] < 2 or blocks[-1] != m.nv:
            blocks = np.array([0, m.nv], np.int64)
        self._diag_rows = np.arange(m.nv)
        self._has_damping = bool(np.any(m.damping))
        self._zero_vdot = np.zeros(m.nv)
        self._mass_blocks = np.ascontiguousarray(blocks, dtype=np.int64)
        self._step_arrays_model = m

    def _DiscreteStepUpdate(self, context, state) -> None:
        """The periodic update: x⁺ into the discrete state, the step's results (pipeline/data.py StepResults: sampled
        outputs and the solver's warm start) into the abstract state, written into its other row (no copy)."""
        self._ThrowIfElementParametersChangeDynamics(context, "MultibodyPlant discrete update", simulating=True)
        view = state.get_mutable_abstract_state(self._sampled_index)
        current = view.get_value()
        nxt = current.other
        compiled = self._PipelineModel(context)
        if compiled is not None:
            group = self._mjcf_act_group
            self._PipelineActuatedStep(context, compiled, False, state.get_mutable_discrete_state(0)._data,
                                       current.data, nxt.data,
                                       None if group is None else state.get_mutable_discrete_state(group)._data)
            AttachStepContacts(nxt, self._pipeline_data._eval(context)._value, compiled.geom_ids)
            view.set_value(nxt)
            self._pipeline_last = nxt
            return
        self._pipeline_last = None
        kin = self._eval_kinematics(context)
        q0, v0 = kin.q.copy(), kin.v.copy()  # (kin is the context's cache: rewritten once the state moves on)
        if self._contact_solver is not None:  # the step's contacts, for the sampled contact_results port
            self._contact_capture = []
            try:
                x_next, vdot, u, tau_c = self._CalcDiscreteStep(context)
                nxt.contacts = (ContactInfosFromSolution(self, self._contact_capture[-1], kin)
                                if self._contact_capture else [])
            finally:
                self._contact_capture = None
        else:
            x_next, vdot, u, tau_c = self._CalcDiscreteStep(context)
            nxt.contacts = _NO_CONTACTS  # a Python-path step (no contacts), not "before the first step"
        F = np.array(self._step_forces, dtype=np.float64)
        AddContactInfoBodyForces(nxt.contacts, kin.p_WB, F)
        nxt.start = (q0, v0, F)
        state.get_mutable_discrete_state(0).SetFromVector(x_next)
        if self._mjcf_act_group is not None:  # MJCF activations, from the pre-step context
            act = self._mjcf_actuation
            if self._mjcf_integrator == "RK4":  # the RK4 step's averaged rates (mjcf/rk4.py)
                act_next = RungeKuttaNextActivations(self, context)
            else:
                lengths = act.CalcLengths(self, context, self.GetPositions(context)) if act.wraps_setpoints else None
                act_next = act.CalcNextActivations(act.EvalCtrl(self, context), act.GetActivations(self, context),
                                                   lengths)
                if act.plugins and act.plugins.in_step:  # MuJoCo's PID: its slots advance in the step
                    act.plugins.AdvanceInStep(self, context, act_next)
            state.get_mutable_discrete_state(self._mjcf_act_group).SetFromVector(act_next)
        nv, nu = self._model.nv, self._model.nu
        row = nxt.data
        row[:nv], row[nv:nv + nu], row[nv + nu:2 * nv + nu] = vdot, u, tau_c
        row[2 * nv + nu:] = 0.0  # the Python path keeps its warm start in its solver (contact/plant_solver.py)
        view.set_value(nxt)

    def _DiscreteReactionForces(self, context) -> list:
        """The reaction_forces port of a discrete plant (reaction_forces.py), as Drake's: with sampled ports, the
        last step's (at the state it started from; zeros before the first step), else the step's that starts at
        the current state."""
        m = self._model
        if self.has_sampled_output_ports():
            row = context.get_abstract_state(self._sampled_index).get_value()
            contacts = row.contacts
            if contacts is None:
                return ZeroReactionForces(self)
            vdot = row.data[:m.nv]
            if isinstance(contacts, list):  # a Python-path step
                q0, v0, F = row.start
                return CalcReactionForces(self, Kinematics(m, q0, v0, self._body_params(context)), vdot, F)
            arrays = contacts.Arrays()  # pipeline/step_contacts.py: the step's start (q, v), forces and contacts
            kin = Kinematics(m, arrays[12], arrays[7], self._body_params(context))
        else:
            dry = self._PipelineDryStep(context)
            kin = self._eval_kinematics(context)
            if dry is None:
                return self._PythonStepReactionForces(context, kin)
            arrays, vdot = step_contact_arrays(dry[2]), dry[1][:m.nv]
        F = arrays[13].copy()
        AddContactBodyForces(arrays[0], arrays[3], arrays[4], arrays[5], kin.p_WB, F)
        return CalcReactionForces(self, kin, vdot, F)

    def _PythonStepReactionForces(self, context, kin) -> list:
        """The reaction forces of the Python path's step that starts at the current state."""
        self._contact_capture = [] if self._contact_solver is not None else None
        try:
            vdot = self._CalcDiscreteStep(context)[1]
            infos = ContactInfosFromSolution(self, self._contact_capture[-1], kin) if self._contact_capture else []
        finally:
            self._contact_capture = None
        F = np.array(self._step_forces, dtype=np.float64)
        AddContactInfoBodyForces(infos, kin.p_WB, F)
        return CalcReactionForces(self, kin, vdot, F)

    def _LeanSteps(self, context, times: np.ndarray, n: int) -> int:
        """The lean loop's fast path (systems/analysis/lean_loop.py): the compiled steps at times[:n] in place, as
        n calls of _DiscreteStepUpdate would make them, when the step reads nothing that may change between steps
        but the whole-plant actuation input (MJCF ctrl and per-instance actuation ports unconnected or fixed, no
        applied-force or mocap input; no PD-controlled or effort-limited actuators, whose actuation is solved per
        step). Returns the steps done (fewer than n: the next one fails, for the ordinary path to redo and report),
        or -1 when the fast path does not apply. What the call reads besides the state is gathered once per context
        (`_LeanCall`) and reused while the context's wiring, parameters and fixed input values and the plant's solver
        options, gravity and compiled pieces stay the same, so a chunk of one step (Simulator.AdvanceTo(t + h))
        costs little more than the compiled step. A connected actuation input (a controller) is evaluated before
        each step, at that step's state and time, as the ordinary update reads it."""
        # (one step per call is the usual chunk, Simulator.AdvanceTo(t + h): the accessors below are read directly,
        # each layer of calls costing a small model's step ~1%)
        holder = self._pipeline_data._eval(context)._value
        call = holder.lean
        root = context._root
        versions = root._versions
        if (call is None or call.wiring != root._wiring_version or call.parameters != versions[K_P]
                or call.inputs != versions[K_U] or call.pipeline is not self._pipeline
                or call.options is not self._constraint_solver_options  # (get_constraint_solver_options)
                or call.gravity is not self._force_elements[0]._g  # (gravity_field())
                or call.limits != self._pd.version):
            call = holder.lean = self._LeanCall(context, holder)
        if call.model is None:
            return -1
        if call.live_u:
            return self._LeanStepsLive(context, holder, call, times, n)
        return self._LeanRun(context, holder, call, call.u, times, n)

    def _LeanStepsLive(self, context, holder, call, times: np.ndarray, n: int) -> int:
        """_LeanSteps with the actuation input connected: one compiled step at a time, the input evaluated before
        each (the context's time and versions moved on between steps, as the lean loop moves them after)."""
        root = context._root
        index = self._actuation_port._index
        done = 0
        while True:
            try:
                u = self._eval_input_raw(context, index)._data  # (as _PipelineStep reads it)
            except Exception:  # noqa: BLE001 - the ordinary path evaluates it again after the steps done and raises
                return done
            if u.dtype is not _F64 or not u.flags.c_contiguous:
                u = np.ascontiguousarray(u, dtype=np.float64)
            k = self._LeanRun(context, holder, call, u, times[done:], 1)
            if k <= 0:
                return -1 if k < 0 and done == 0 else done
            done += 1
            if done == n:
                return done
            versions = root._versions
            versions[K_XC] += 1
            versions[K_XD] += 1
            versions[K_XA] += 1
            versions[K_TIME] += 1
            root._vsum += 4
            root._time = float(times[done])

    def _LeanRun(self, context, holder, call, u: np.ndarray, times: np.ndarray, n: int) -> int:
        """The compiled steps of _LeanSteps with the actuation `u`; returns the steps done, or -1 after an exception
        (the state and warm start put back)."""
        value = context._abstract_values._values[self._sampled_index]  # the lean loop bumps the versions
        current = value._value
        groups = context._discrete._groups
        x = groups[0]._data  # (_qv_vector: a discrete plant's [q; v] is its group 0)
        a0 = groups[self._mjcf_act_group]._data if call.a1.shape[0] else call.z
        buffer = current.buffer
        # A step only reads x, the activations and the warm-start row, and writes the next ones into scratch arrays
        # copied back once it succeeded, and its results into the buffer's other row, which holds nothing the
        # context's value reads (the step before's results) and which the ordinary path then writes again: a step
        # that raises leaves the context as it was, so one step (the usual chunk, Simulator.AdvanceTo(t + h)) backs
        # up nothing. Several steps back up the state, activations and buffer, which the steps done before the
        # raising one moved on.
        if n > 1:
            buffer0 = call.buffer0
            if buffer0.shape != buffer.shape:
                call.buffer0 = buffer0 = np.empty_like(buffer)
            buffer0[...] = buffer
            call.x0[...] = x  # ([...] copies as [:] does, without building a slice: ~0.1 µs less each)
            call.a00[...] = a0
        if call.x_tail:  # (multi_step copies all of scratch into x; the step writes [q; v])
            call.x_scratch[...] = x
        holder.fresh = None  # Data moves on: contacts of earlier steps not yet read become unavailable
        keep = not call.options.throw_on_failure  # (a non-converged solve is counted, or raised by the ordinary path)
        try:
            if multi_step is _multi_step_kernel and u.shape == call.u_pack.shape:
                if u is not call.u_pack:  # (an evaluated actuation input, _LeanStepsLive)
                    call.u_pack[...] = u
                # the arguments packed once (pipeline/multi_step.py LeanArgs) while the arrays are the same objects
                pack = call.pack
                if pack is None or call.pack_x is not x or call.pack_a0 is not a0 or call.pack_buffer is not buffer:
                    pack = self._LeanPack(call, x, a0, buffer)
                run = _MULTI_STEP_ENTRY[0] if _MULTI_STEP_ENTRY else self._MultiStepEntry(pack, times, n)
                k, _status, row, unconverged = run(pack, times, current.row, keep, n)
            else:  # a test's substitute of multi_step, or an actuation of another size (the step reports it)
                k, _status, row, unconverged = multi_step(call.model, call.d, x, call.x_scratch, call.bp, u, call.ctrl,
                                                          a0, call.a1, call.z, call.F0, call.g_W, call.poses,
                                                          call.collide, buffer, current.row, keep, times, n)
        except (ZeroDivisionError, np.linalg.LinAlgError):
            # a step raised (a zero quaternion, a singular matrix) after an unknown number of steps: put the state
            # and warm start back and leave the run to the ordinary path, which redoes the steps and names the error
            if n > 1:
                x[...] = call.x0
                a0[...] = call.a00
                buffer[...] = call.buffer0
            return -1
        if unconverged:
            self._pipeline_failures += unconverged
        if k:
            last = current if row == current.row else current.other
            c = last.contacts  # (AttachStepContacts, written out)
            if type(c) is StepContacts:
                c.scratch, c.geom_ids, c.arrays = holder, call.geom_ids, None
                holder.fresh = c
            else:
                last.contacts = StepContacts(holder, call.geom_ids)
            value._value = last  # (value.set_value: the same StepResults type)
            self._pipeline_last = last
        if k < n:  # Data holds the undone step k, not step k - 1's contacts
            holder.fresh = None
        return k

    @staticmethod
    def _MultiStepEntry(pack, times: np.ndarray, n: int):
        """multi_step_packed's compiled entry for the plant's argument types (found once per process)."""
        _MULTI_STEP_ENTRY.append(compiled_entry(multi_step_packed, pack, times, 0, True, n))
        return _MULTI_STEP_ENTRY[0]

    @staticmethod
    def _LeanPack(call, x, a0, buffer):
        """multi_step_packed's LeanArgs of these arrays and the call's others (kept in the call with them)."""
        ro = lambda a: np.require(a, np.float64, "CW")  # noqa: E731 - read-only inputs (the struct's fields are writeable)
        call.pack = new_lean_args(call.model, call.d, x, call.x_scratch, ro(call.bp), call.u_pack, ro(call.ctrl), a0,
                                  call.a1, call.z, call.F0, ro(call.g_W), ro(call.poses), call.collide, buffer)
        call.pack_x, call.pack_a0, call.pack_buffer = x, a0, buffer
        return call.pack

    def _LeanCall(self, context, holder) -> "_LeanCall":
        """The arguments of _LeanSteps' compiled call for `context` other than the state (model None: the fast path
        does not apply), with the versions and objects they were read from."""
        root = context._root
        call = _LeanCall(root._wiring_version, root._versions[K_P], root._versions[K_U], self._pipeline,
                         self.get_constraint_solver_options(), self.gravity_field()._g, self._pd.version)
        lean = self._LeanPlan(context)
        if lean is None:
            return call
        plan, call.live_u = lean
        compiled = self._PipelineModel(context)
        if compiled is None or self._pipeline.python_forces:  # (a user's force elements are evaluated per step)
            return call
        self._ThrowIfElementParametersChangeDynamics(context, "MultibodyPlant discrete update", simulating=True)
        f = self._fast
        g_W = self.gravity_field()._g
        if g_W is not f.g_source:
            f.g_source, f.g_W = g_W, np.ascontiguousarray(g_W, dtype=np.float64)
        z = self._pipeline_zeros[0]
        whole, connected, _tau, _F = self._input_wiring(context)
        if self._model.nu == 0:  # the actuation as _PipelineStep reads it
            u = z
        elif whole and not connected:
            u = self._eval_input_raw(context, self._actuation_port._index)._data
        else:
            u = self._EvalActuation(context)
        call.u = np.require(u, np.float64, "CW")  # (the compiled entry's type: writeable, C-contiguous)
        call.u_pack = np.empty_like(call.u) if call.live_u else call.u  # (an evaluated input is copied into it)
        call.ctrl = z
        act = self._mjcf_actuation
        if plan:  # the fixed ctrl values (zeros where a port has none), as _PipelineStep reads them
            call.ctrl = np.zeros(act.nu)
            for sl, index in plan:
                if index >= 0:
                    call.ctrl[sl] = self._input_source(context, index)[1]._data
        call.a1 = np.empty(act.na) if act.na else z  # MuJoCo's act: the activation group, advanced in place
        call.a00 = np.empty(act.na) if act.na else z
        x = self._qv_vector(context)._data
        call.x0, call.x_scratch = np.empty_like(x), np.empty_like(x)
        call.x_tail = x.shape[0] != self._model.nq + self._model.nv
        call.z, call.F0 = self._pipeline_zeros
        call.buffer0 = np.empty_like(context._abstract_values.get_value(self._sampled_index).get_value().buffer)
        call.d = holder.data
        call.bp = self._element_cache._eval(context)._value.bp_flat
        mocap = self._mjcf_mocap
        call.poses = z if mocap is None else mocap.PoseVector(context)
        call.collide = self._pipeline_collide(context)
        call.g_W, call.geom_ids, call.model = f.g_W, compiled.geom_ids, compiled.model
        return call

    def _LeanPlan(self, context) -> tuple | None:
        """None when the step reads an input that may change between steps other than the whole-plant actuation
        port (a connected per-instance actuation or MJCF ctrl port, an applied-force or mocap input with a value) or
        solves PD controllers or effort limits, else (((ctrl slice, index of the port if it has a fixed value else
        -1) per MJCF ctrl port), whether the actuation port is connected to an output: evaluated per step): inputs
        with a fixed value (FixValue here or on an exported diagram port) no update can change while the Simulator
        runs. Cached with the context's input wiring."""
        version = (context._root._wiring_version, self._pd.version)  # effort limits may change after Finalize
        cached = getattr(context, "_mbp_lean_plan", None)
        if cached is not None and cached[0] == version:
            return cached[1]
        whole, connected, has_tau, has_F = self._input_wiring(context)
        plan = None
        fixed = lambda port: self._input_source(context, port._index)[0] == 0  # noqa: E731
        mocap = self._mjcf_mocap
        live = (whole and not connected and self._model.nu > 0
                and self._input_source(context, self._actuation_port._index)[0] == 1)
        if not (self._pd.active or has_tau or has_F or (whole and not live and not fixed(self._actuation_port)) or any(
                not fixed(self._instance_actuation_ports[i]) for i in connected) or (
                mocap is not None and mocap.port.HasValue(context))):
            act = self._mjcf_actuation
            plan = []
            for port, sl in zip(act.ports, act.ctrl_slices) if act.nu else ():
                kind = self._input_source(context, port._index)[0]
                if kind == 1:
                    plan = None
                    break
                plan.append((sl, port._index if kind == 0 else -1))
            plan = (tuple(plan), live) if plan is not None else None
        context._mbp_lean_plan = (version, plan)
        return plan

    def SetUseSampledOutputPorts(self, use_sampled_output_ports: bool) -> None:
        """Discrete plants: report v̇, net actuation and contact forces of the last step (default) or of the next."""
        self._ThrowIfFinalized("SetUseSampledOutputPorts")
        self._use_sampled_output_ports = bool(use_sampled_output_ports)

    def has_sampled_output_ports(self) -> bool:
        """True for a discrete plant reporting the results of its last step."""
        return self._time_step > 0 and self._use_sampled_output_ports


def IntegrateDiscretePositions(plant, q, v_next, h, qdot):
    """q⁺ of the discrete plant's constrained step: MuJoCo's exact quaternion update when the plant's
    options select it ('mujoco', the default for models with MuJoCo parameters), else Drake's q + h·N(q)·v⁺."""
    if plant.get_constraint_solver_options().position_integration_is_mujoco(plant):
        m = plant._model
        return IntegratePositions(m.order, m.ji, q, v_next, h, qdot)
    return q + h * qdot


class _LeanCall:
    """What the lean loop's compiled call reads for one context besides its state (MultibodyPlant._LeanSteps), and
    what it was read from: the context's wiring, parameter and input versions, the plant's compiled pieces, solver
    options, gravity vector and effort limits' version. Kept in the context's "compiled step data" cache value (so a cloned context builds its
    own); `model` None: the fast path does not apply."""

    __slots__ = ("wiring", "parameters", "inputs", "pipeline", "options", "gravity", "limits", "model", "d", "bp", "u",
                 "ctrl", "a1", "a00", "x0", "x_scratch", "x_tail", "buffer0", "poses", "collide", "g_W", "geom_ids",
                 "live_u", "z", "F0", "u_pack", "pack", "pack_x", "pack_a0", "pack_buffer")

    def __init__(self, wiring: int, parameters: int, inputs: int, pipeline, options, gravity, limits: int):
        self.wiring, self.parameters, self.inputs = wiring, parameters, inputs
        self.pipeline, self.options, self.gravity, self.limits = pipeline, options, gravity, limits
        self.model = None
        self.pack = None  # multi_step_packed's LeanArgs, built for the arrays pack_x, pack_a0 and pack_buffer
        self.live_u = False  # the actuation input is evaluated per step (_LeanStepsLive), `u` is its first value
