"""The discrete plant's step: semi-implicit Euler with implicit joint damping, one compiled call in the
common actuated case, the constraint solver otherwise (a mixin of MultibodyPlant)."""
from __future__ import annotations

import numpy as np

from ..contact.elimination import ReverseTreeSolve
from ..kernels import pipeline as pl
from ..kernels.entry_points import STEP_BAD_SIZES, STEP_NAN_ACTUATION, STEP_OK
from ._contact_kernels import NextState
from ._system import _F64, _STRIDE_1D, SampledResults


class _DiscreteStepMixin:
    """x⁺ = f(x, u) for time_step > 0 (periodic unrestricted update, sampled output ports)."""

    def _CalcDiscreteStep(self, context):
        """Semi-implicit Euler: (M + hD)(v⁺ − v)/h = τ − C v − D v;  q⁺ = q + h·N(q)·v⁺."""
        fast = self._CalcActuatedDiscreteStep(context)
        if fast is not None:
            return fast
        kin = self._eval_kinematics(context)
        m = self._model
        if getattr(self, "_step_arrays_model", None) is not m:
            self._InitDiscreteStepArrays()
        u, tau, F, tau_c = self._AssembleForces(context, kin, include_damping=False)
        if self._discrete_solver is None:
            try:
                x_next, a = pl.discrete_step(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw, kin.p_WB, kin.V,
                                             kin.c, F, tau, m.damping, self._time_step, kin.q, kin.v)
            except np.linalg.LinAlgError:
                self._ThrowSingularMassMatrix(context)
            if getattr(self, "_mjcf_maps", None):  # MJCF models: MuJoCo's q update (exact quaternion exponential)
                from ._contact_kernels import IntegrateDiscretePositions
                v_next = x_next[m.nq:]
                x_next[:m.nq] = IntegrateDiscretePositions(self, kin.q, v_next, self._time_step,
                                                          pl.map_velocity_to_qdot(m.order, m.ji, kin.q, v_next))
        else:
            h = self._time_step
            M_hat = pl.mass_matrix_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw)
            if self._has_damping:
                M_hat[self._diag_rows, self._diag_rows] += h * m.damping
                tau = tau - m.damping * kin.v
            # a_free = (M + hD)^-1 (τ − D v − C v): the bias by RNEA at v̇ = 0, the solve by a tree-ordered
            # envelope Cholesky of M̂ (sparse per tree, no second mass matrix)
            minus_rhs = pl.inverse_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw, kin.p_WB,
                                                          kin.V, kin.c, self._zero_vdot, F, tau)
            if self._tendon_inertia is not None:  # MJCF tendon armature (_mjcf_tendon_armature.py)
                self._tendon_inertia.AddToMassMatrixAndBias(kin, M_hat, minus_rhs)
            try:
                a_free = ReverseTreeSolve(M_hat, self._mass_blocks, -minus_rhs)
            except np.linalg.LinAlgError:
                self._ThrowSingularMassMatrix(context)
            out = self._discrete_solver(self, context, kin, M_hat, a_free, h)
            if isinstance(out, tuple):  # (a, generalized contact forces of the constraint solve)
                out, tau_extra = out
                tau_c = tau_c + tau_extra
            a = np.ascontiguousarray(out, dtype=np.float64)
            # v⁺ = v + h a and MuJoCo's or Drake's q update, in one compiled call
            x_next = NextState(m.order, m.ji, kin.q, kin.v, a, h,
                               self.get_constraint_solver_options().position_integration_is_mujoco(self))
        scheme = getattr(self, "_mjcf_integrator", None)
        if scheme == "RK4":  # MJCF RK4 (_mjcf_rk4.py); its stages are Euler steps in a scratch context
            from ._mjcf_rk4 import IsRungeKuttaStageContext, RungeKuttaStep
            if not IsRungeKuttaStageContext(context):
                x_next, a = RungeKuttaStep(self, context, kin, a)
        elif scheme is not None:  # MJCF implicit / implicitfast (_mjcf_implicit.py)
            from ._mjcf_implicit import ImplicitStep
            x_next, a = ImplicitStep(self, context, kin, a)
        self._check_finite(context, x_next, "state after the discrete step")
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

    def _actuated_step_applies(self, context) -> bool:
        """True when only gravity and actuation act (no contact, constraints, other force elements, MJCF actuators
        or applied-force inputs): the common robot-under-control case, stepped in one compiled call."""
        static = self._only_actuation_forces
        if static is None:  # the model part, fixed after Finalize except through the two registration hooks
            static = self._only_actuation_forces = not (
                self._force_contributors or self._discrete_solver is not None or len(self._force_elements) != 1
                or getattr(self, "_mjcf_actuation", None) is not None
                or getattr(self, "_mjcf_act_group", None) is not None
                or getattr(self, "_mjcf_integrator", None) is not None)
        if not static:
            return False
        _whole, _connected, has_tau, has_F = self._input_wiring(context)
        return not (has_tau or has_F)

    def _ActuatedStepInto(self, context, x_next: np.ndarray) -> np.ndarray:
        """Write the actuated step's [q⁺; v⁺] into x_next and return the sampled [v̇; u; τ_contact = 0]."""
        f = self._fast
        whole, connected, _tau, _F = self._input_wiring(context)
        if whole and not connected:  # the usual wiring: read the actuation input without copying it
            u = self._eval_input_raw(context, self._actuation_port._index)._data
            if u.dtype is not _F64 or u.strides != _STRIDE_1D:
                u = np.ascontiguousarray(u, dtype=np.float64)
        else:
            u = self._EvalActuation(context)
        g_W = self.gravity_field()._g
        if g_W is not f.g_source:  # the gravity vector was set: refresh the contiguous copy the kernel reads
            f.g_source, f.g_W = g_W, np.ascontiguousarray(g_W, dtype=np.float64)
        sampled = np.empty(f.sampled_size)
        try:
            status = f.actuated_step(f.order, f.ji, f.jf,
                                     context.get_numeric_parameter(self._param_index)._data.reshape(f.bp_shape),
                                     self._qv_vector(context)._data, f.refl, f.damping, self._time_step, f.g_W,
                                     f.gravity_mask, f.actuator_dofs, u, x_next, sampled)
        except np.linalg.LinAlgError:
            self._ThrowSingularMassMatrix(context)
        if status != STEP_OK:
            if status == STEP_NAN_ACTUATION:
                raise RuntimeError(f"MultibodyPlant '{self.get_name()}': NaN in the actuation input")
            if status == STEP_BAD_SIZES:
                raise ValueError(f"MultibodyPlant '{self.get_name()}': the discrete step got a state of size "
                                 f"{x_next.shape[0]} or an actuation of size {u.shape[0]}; expected "
                                 f"{f.nq + f.nv} and {f.nu}")
            self._check_finite(context, x_next, "state after the discrete step")
        return sampled

    def _CalcActuatedDiscreteStep(self, context):
        """(x⁺, v̇, u, τ_contact) of the one-call actuated step (see `_actuated_step_applies`); None otherwise."""
        if not self._actuated_step_applies(context):
            return None
        m = self._model
        x_next = np.empty(m.nq + m.nv)
        s = self._ActuatedStepInto(context, x_next)
        return x_next, s[:m.nv], s[m.nv:m.nv + m.nu], s[m.nv + m.nu:]

    def _DiscreteStepUpdate(self, context, state) -> None:
        if self._use_sampled_output_ports and self._actuated_step_applies(context):
            # Fast path: the kernel writes x⁺ straight into the update's state and returns the sampled results.
            s = self._ActuatedStepInto(context, state.get_mutable_discrete_state(0)._data)
            state.get_mutable_abstract_state(self._sampled_index).set_value(SampledResults(s))
            return
        x_next, vdot, u, tau_c = self._CalcDiscreteStep(context)
        state.get_mutable_discrete_state(0).SetFromVector(x_next)
        if getattr(self, "_mjcf_act_group", None) is not None:  # MJCF activations, from the pre-step context
            act = self._mjcf_actuation
            if getattr(self, "_mjcf_integrator", None) == "RK4":  # the RK4 step's averaged rates (_mjcf_rk4.py)
                from ._mjcf_rk4 import RungeKuttaNextActivations
                act_next = RungeKuttaNextActivations(self, context)
            else:
                lengths = act.CalcLengths(self, context, self.GetPositions(context)) if act.wraps_setpoints else None
                act_next = act.CalcNextActivations(act.EvalCtrl(self, context), act.GetActivations(self, context),
                                                   lengths)
            state.get_mutable_discrete_state(self._mjcf_act_group).SetFromVector(act_next)
        if self._use_sampled_output_ports:
            state.get_mutable_abstract_state(self._sampled_index).set_value(
                SampledResults(np.concatenate([vdot, u, tau_c])))

    def SetUseSampledOutputPorts(self, use_sampled_output_ports: bool) -> None:
        """Discrete plants: report v̇, net actuation and contact forces of the last step (default) or of the next."""
        self._ThrowIfFinalized("SetUseSampledOutputPorts")
        self._use_sampled_output_ports = bool(use_sampled_output_ports)

    def has_sampled_output_ports(self) -> bool:
        """True for a discrete plant reporting the results of its last step."""
        return self._time_step > 0 and self._use_sampled_output_ports

