"""System half of MultibodyPlant: state, parameters, cache entries and ports (continuous dynamics in
_dynamics.py, the discrete step in _discrete_step.py)."""
from __future__ import annotations

import copy
from functools import partial

import numpy as np

from ...systems.framework import Value
from ...systems.framework.dependency import K_XC, K_XD
from ..contact import ContactResults
from ..kernels.entry_points import FastModel
from ..pipeline.data import StepResults
from ..pipeline.drake_contact import APPROX_MUJOCO
from ..pipeline.sensor import SensorDataSize
from ..kernels.kinematics import spatial_to_point
from ..tree._convert import make_rigid_transform, make_spatial, spatial_inertia_to_arrays, spatial_to_array
from ..pipeline.kinematics_cache import Kinematics
from ..mjcf.plant_maps import ApplyMujocoInvWeights, GetMjcfPlantMaps
from ..pipeline.model_check import ThrowZeroQuaternion
from .element_parameters import DeclareElementParameters, SpatialInertiaToVector
from ...geometry import GeometryConfigurationVector
from ...geometry.frame_pose_vector import FramePoseVector
from ..mjcf.mocap import DeclareMjcfMocap
from ..pipeline.reaction_forces import CalcReactionForces

def _new_geometry_configuration_vector():
    return GeometryConfigurationVector()


def _new_frame_pose_vector():
    return FramePoseVector()


class _SystemMixin:
    """Declares the plant's state, parameters, caches and ports at Finalize, and steps it."""

    def _DeclareGeometryPorts(self) -> None:
        # Declared in the constructor (as Drake does) so AddMultibodyPlantSceneGraph can wire them early.
        # body index -> SceneGraph FrameId; filled by the geometry registration (RegisterAsSourceForSceneGraph).
        self._geometry_frame_ids: dict[int, object] = {}
        self._geometry_query_port = self.DeclareAbstractInputPort("geometry_query", None, required=False)
        self._geometry_pose_port = self.DeclareAbstractOutputPort(
            "geometry_pose", _new_frame_pose_vector, self._CalcGeometryPoses,
            prerequisites_of_calc={self.all_state_ticket()})
        # Drake's configurations of deformable geometries: mallard models rigid bodies only, so it is always empty.
        self._deformable_configuration_port = self.DeclareAbstractOutputPort(
            "deformable_body_configuration", _new_geometry_configuration_vector,
            lambda context, value: None, prerequisites_of_calc={self.nothing_ticket()})

    def _DeclareSystemResources(self) -> None:
        m = self._model
        nq, nv = m.nq, m.nv
        x0 = self._default_state_vector()
        if self._time_step > 0:
            self._state_index = self.DeclareDiscreteState(x0)
            self._qv_kind = K_XD  # the version a write of [q; v] bumps
            # Results of the last step [v̇; u; generalized contact forces] (Drake's sampled outputs) and the solver's
            # warm start (abstract state, so the discrete state keeps its single [q; v] group as in Drake).
            self._sampled_index = self.DeclareAbstractState(
                Value(StepResults.New(nv, m.nu, SensorDataSize(GetMjcfPlantMaps(self)))))
            self.DeclarePeriodicUnrestrictedUpdateEvent(self._time_step, 0.0, self._DiscreteStepUpdate)
            self.DeclareForcedUnrestrictedUpdateEvent(self._DiscreteStepUpdate)  # ExecuteForcedEvents steps, as Drake
            self._DeclarePipeline()
        else:
            self.DeclareContinuousState(nq, nv, 0)
            self._xc_model[:] = x0
            self._state_index = None
            self._qv_kind = K_XC
        self._fast = FastModel(m, self._gravity_mask)
        DeclareElementParameters(self)  # Drake's per-element parameters (element_parameters.py)
        self._zeros_b6 = np.zeros((m.nb, 6))
        self._zeros_b6.flags.writeable = False
        self._zeros_v = np.zeros(nv)
        self._zeros_v.flags.writeable = False
        # The kinematics read [q; v] (one state group: discrete or continuous) and the parameters, as Drake's
        # position and velocity kinematics (the sampled step's abstract state does not invalidate them).
        qv_ticket = self.xd_ticket() if self._time_step > 0 else self.xc_ticket()
        self._kin_cache = self.DeclareCacheEntry(
            "kinematics", alloc=lambda: None, calc=self._CalcKinematicsCache,
            prerequisites_of_calc={qv_ticket, self.all_parameters_ticket()})
        # A sampled discrete plant reports its last step (abstract state): no direct feedthrough, as in Drake.
        sampled = self.has_sampled_output_ports()
        accel_prereqs = ({self.all_state_ticket(), self.all_parameters_ticket()} if sampled
                         else {self.all_sources_ticket()})
        self._accel_cache = self.DeclareCacheEntry(
            "generalized accelerations", alloc=lambda: None, calc=self._CalcAccelerationCache,
            prerequisites_of_calc=accel_prereqs)
        self._body_accel_cache = self.DeclareCacheEntry(
            "body spatial accelerations", alloc=lambda: None,
            calc=self._CalcBodyAccelerations,
            prerequisites_of_calc={self._accel_cache.ticket()})
        accel_ticket = {self._accel_cache.ticket()}
        # ---- inputs -----------------------------------------------------------------------------------
        # (in Drake's port order, so port indices match pydrake's)
        self._actuation_port = self.DeclareVectorInputPort("actuation", m.nu, required=False)
        self._applied_generalized_force_port = self.DeclareVectorInputPort("applied_generalized_force", nv, required=False)
        self._applied_spatial_force_port = self.DeclareAbstractInputPort("applied_spatial_force", [], required=False)
        self._actuated_instances = [i for i in range(len(self._instance_names)) if len(self._instance_u_indices(i))]
        self._instance_actuation_ports, self._instance_desired_state_ports = [], []
        for i, name in enumerate(self._instance_names):
            self._instance_actuation_ports.append(
                self.DeclareVectorInputPort(f"{name}_actuation", len(self._instance_u_indices(i)), required=False))
            # [q_d; v_d] of the instance's actuators, read by PD-controlled actuators (set_controller_gains)
            self._instance_desired_state_ports.append(
                self.DeclareVectorInputPort(f"{name}_desired_state", 2 * self.num_actuators(i), required=False))
        self._mjcf_mocap = DeclareMjcfMocap(self)
        # ---- outputs ----------------------------------------------------------------------------------
        state_ticket = {self.all_state_ticket()}
        pose_ticket = state_ticket  # body poses and velocities: the kinematics' inputs
        if self._mjcf_mocap is not None:
            self._kin_cache.prerequisites().add(self._mjcf_mocap.port.ticket())
            pose_ticket = {self._kin_cache.ticket()}
            self._geometry_pose_port._prerequisites = pose_ticket
        self._state_port = self.DeclareVectorOutputPort(
            "state", nq + nv, self._CalcStateOutput, prerequisites_of_calc=state_ticket)
        self._body_poses_port = self.DeclareAbstractOutputPort(
            "body_poses", list, self._CalcBodyPosesOutput, prerequisites_of_calc=pose_ticket)
        self._body_velocities_port = self.DeclareAbstractOutputPort(
            "body_spatial_velocities", list, self._CalcBodyVelocitiesOutput, prerequisites_of_calc=pose_ticket)
        self._body_accelerations_port = self.DeclareAbstractOutputPort(
            "body_spatial_accelerations", list, self._CalcBodyAccelerationsOutput,
            prerequisites_of_calc={self._body_accel_cache.ticket()})
        self._accel_port = self.DeclareVectorOutputPort(
            "generalized_acceleration", nv, partial(self._CalcAccelerationsRows, part=0),
            prerequisites_of_calc=accel_ticket)
        self._net_actuation_port = self.DeclareVectorOutputPort(
            "net_actuation", m.nu, partial(self._CalcAccelerationsRows, part=1),
            prerequisites_of_calc=accel_ticket)
        self._reaction_forces_port = self.DeclareAbstractOutputPort(
            "reaction_forces", list, self._CalcReactionForcesOutput)
        self._contact_results_port = self.DeclareAbstractOutputPort(
            "contact_results", ContactResults, self._CalcContactResults,
            prerequisites_of_calc=({self.abstract_state_ticket(self._sampled_index)} if sampled
                                   else {self.all_sources_ticket()}))
        self._instance_state_ports = []
        self._instance_accel_ports = []
        self._instance_contact_ports = []
        self._instance_net_actuation_ports = []
        for i, name in enumerate(self._instance_names):
            qi, vi, ui = self._instance_q_indices(i), self._instance_v_indices(i), self._instance_u_indices(i)
            idx = np.concatenate([qi, nq + vi])
            self._instance_state_ports.append(self.DeclareVectorOutputPort(
                f"{name}_state", idx.size, partial(self._CalcStateRows, rows=idx),
                prerequisites_of_calc=state_ticket))
            self._instance_accel_ports.append(self.DeclareVectorOutputPort(
                f"{name}_generalized_acceleration", vi.size,
                partial(self._CalcAccelerationsRows, part=0, rows=vi),
                prerequisites_of_calc=accel_ticket))
            self._instance_contact_ports.append(self.DeclareVectorOutputPort(
                f"{name}_generalized_contact_forces", vi.size,
                partial(self._CalcAccelerationsRows, part=2, rows=vi),
                prerequisites_of_calc=accel_ticket))
            self._instance_net_actuation_ports.append(self.DeclareVectorOutputPort(
                f"{name}_net_actuation", ui.size,
                partial(self._CalcAccelerationsRows, part=1, rows=ui),
                prerequisites_of_calc=accel_ticket))

    # Output calcs of slices of the state and of the acceleration cache (v̇, u, generalized contact forces), as
    # partials of methods rather than closures over the plant, which the ports would hold strongly (a reference
    # cycle, see systems/framework/weak_owner.py).
    def _CalcStateRows(self, context, out, rows) -> None:
        out.SetFromVector(self._qv_view(context)[rows])

    def _CalcAccelerationsRows(self, context, out, part: int, rows=None) -> None:
        values = self._accel_cache.Eval(context)[part]
        out.SetFromVector(values if rows is None else values[rows])

    # ---- context adapters -------------------------------------------------------------------------------
    def _qv_vector(self, context):
        """The context's state vector that holds [q; v] (its discrete group 0, or its continuous state), read
        without the accessors' checks (the callers validated the context)."""
        if self._time_step > 0:
            return context._discrete._groups[0]
        return context._continuous._vector

    def _qv_view(self, context) -> np.ndarray:
        self._ThrowIfNotFinalized("state access")
        self.ValidateContext(context)
        x = self._qv_vector(context).get_value()
        return x[:self._xc_nq + self._xc_nv] if self._xc_nz else x  # MJCF activations follow [q; v]

    def _mutable_qv(self, context) -> np.ndarray:
        self._ThrowIfNotFinalized("state access")
        self.ValidateContext(context)
        if self._time_step > 0:
            return context.get_mutable_discrete_state(0).get_mutable_value()
        x = context.get_mutable_continuous_state_vector().get_mutable_value()
        return x[:self._xc_nq + self._xc_nv] if self._xc_nz else x

    def _mutable_qv_in_state(self, context, state) -> np.ndarray:
        self._ThrowIfNotFinalized("state access")
        if self._time_step > 0:
            return state.get_mutable_discrete_state(0).get_mutable_value()
        x = state.get_mutable_continuous_state().get_mutable_vector().get_mutable_value()
        return x[:self._xc_nq + self._xc_nv] if self._xc_nz else x

    def _body_params(self, context) -> np.ndarray:
        """(nb × 13) mass, p_BoBcm_B and I_BBo_B (row-major) per body in `context` (read only)."""
        return self._element_cache._eval(context)._value.bp

    def _eval_kinematics(self, context) -> Kinematics:
        """The cached kinematics of `context` (the hot path of every plant query: one check, one lookup)."""
        try:
            ours = context._system_id == self._system_id and self._finalized
        except AttributeError:  # not a Context
            ours = False
        if not ours:
            self._ThrowIfNotKinematicsContext(context)
        return self._kin_cache._eval(context)._value

    def _ThrowIfNotKinematicsContext(self, context) -> None:
        self._ThrowIfNotFinalized("kinematics")
        self._check_context(context, f"MultibodyPlant '{self.get_name()}'")

    def _CalcKinematicsCache(self, context, value) -> None:
        """Kinematics at the context's state (its callers validated the context): the first evaluation allocates
        the context's arrays, later ones write into them."""
        x = self._qv_vector(context)._data
        kin = value._value
        if kin is None:
            value.set_value(kin := Kinematics.Cached(self._fast, self._model.nb))
        try:
            if self._mjcf_mocap is None:
                kin.Update(self._fast, x, self._element_cache._eval(context)._value)
            else:
                kin.Update(self._fast, x, self._element_cache._eval(context)._value,
                           self._mjcf_mocap.JointFrames(self, context, self._model.jf))
        except ZeroDivisionError:  # a zero quaternion (compiled kernels raise on division by zero)
            ThrowZeroQuaternion(self, np.asarray(x[:self._model.nq]))

    def _CalcStateOutput(self, context, output) -> None:
        """The 'state' output [q; v]: one copy from the context's state array (the framework validated context)."""
        x = self._qv_vector(context)._data
        output.get_mutable_value()[:] = x[:self._xc_nq + self._xc_nv] if self._xc_nz else x

    def _eval_body_accelerations(self, context) -> np.ndarray:
        return self._body_accel_cache.Eval(context)

    def _CalcBodyAccelerations(self, context, value) -> None:
        """A_WB of every body from the v̇ of the acceleration cache. A sampled plant with Drake's contact reports its
        last step's, as Drake's: that v̇ at the kinematics of the state the step started from (zero before the
        first step)."""
        vdot = self._accel_cache.Eval(context)[0]
        kin = None
        if self.has_sampled_output_ports() and self._PipelineApproximation() != APPROX_MUJOCO:
            contacts = context.get_abstract_state(self._sampled_index).get_value().contacts
            if contacts is None:
                value.set_value(np.zeros((self._model.nb, 6)))
                return
            if not isinstance(contacts, list):  # a compiled step (Euler): its starting q and v
                arrays = contacts.Arrays()
                kin = Kinematics(self._model, arrays[12], arrays[7], self._body_params(context))
        value.set_value(self._classical_accelerations(context, vdot, kin))

    # ---- parameters ---------------------------------------------------------------------------------------
    def _SetBodyMass(self, context, body, mass: float) -> None:
        """Drake's RigidBody::SetMass: the mass parameter only (the unit inertia G_BBo_B is kept, so I_BBo_B scales)."""
        mass = float(mass)
        if not np.isfinite(mass) or mass < 0:
            raise ValueError(f"body '{body.name()}': mass must be finite and non-negative, got {mass}")
        self._body_vector(context, body, mutable=True)[0] = mass

    def _SetBodyCom(self, context, body, com: np.ndarray, preserve_central_inertia: bool = False) -> None:
        """Set p_BoBcm_B in `context`: keeping G_BBo_B (Drake's SetCenterOfMassInBodyFrame), or the inertia about
        the center of mass (SetCenterOfMassInBodyFrameAndPreserveCentralInertia)."""
        com = np.asarray(com, dtype=float).reshape(3)
        vec = self._body_vector(context, body, mutable=True)
        if preserve_central_inertia:
            row = self._body_params(context)[int(body.index())]
            m, c_old = row[0], row[1:4]
            shift = lambda c: m * (np.dot(c, c) * np.eye(3) - np.outer(c, c))  # noqa: E731
            I_BBo = row[4:13].reshape(3, 3) - shift(c_old) + shift(com)
            vec[:] = SpatialInertiaToVector(m, com, I_BBo)
        else:
            vec[1:4] = com

    def _SetBodySpatialInertia(self, context, body, M_BBo_B) -> None:
        m, com, I = spatial_inertia_to_arrays(M_BBo_B, f"body '{body.name()}' spatial inertia")
        self._body_vector(context, body, mutable=True)[:] = SpatialInertiaToVector(m, com, I)

    # ---- inputs ------------------------------------------------------------------------------------------
    def get_mocap_pose_input_port(self):
        """Mallard extension: the poses of the MJCF mocap bodies, nmocap·7 values [x y z qw qx qy qz] (m, unit
        quaternion of R_WB) per mocap body in MuJoCo's mocap order (MJCF models in load order), as MuJoCo's
        d.mocap_pos / d.mocap_quat. Unconnected, the poses are the context's mocap parameter: the MJCF pose, or a
        keyframe's mpos / mquat (SetMujocoKeyframe)."""
        self._ThrowIfNotFinalized("get_mocap_pose_input_port")
        if self._mjcf_mocap is None:
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}' has no mocap bodies (MJCF <body mocap=\"true\">), "
                               "so it has no mocap_pose input port")
        return self._mjcf_mocap.port

    def _input_wiring(self, context) -> tuple:
        """(whole actuation port has a value, instances whose actuation ports have one, applied generalized
        force has a value, applied spatial force has a value), cached until fixed inputs change."""
        version = context._root._wiring_version  # (copied with the context, as the wiring it describes)
        cached = getattr(context, "_mbp_input_wiring", None)
        if cached is None or cached[0] != version:
            whole = self._actuation_port.HasValue(context)
            connected = [i for i in self._actuated_instances if self._instance_actuation_ports[i].HasValue(context)]
            cached = context._mbp_input_wiring = (
                version, (whole, connected, self._applied_generalized_force_port.HasValue(context),
                          self._applied_spatial_force_port.HasValue(context)))
        return cached[1]

    def _ReadActuationInput(self, context) -> np.ndarray:
        """u_ff (nu): the whole-plant actuation port plus the per-instance ports (additive; an unconnected port is
        zero), as Drake's MultibodyPlant::CalcActuationInputWithoutEffortLimit; NaN raises naming the port."""
        m = self._model
        whole, connected, _tau, _F = self._input_wiring(context)
        u = np.zeros(m.nu)
        for i in connected:
            v = np.asarray(self._instance_actuation_ports[i].Eval(context), dtype=float)
            if np.isnan(v).any():
                raise RuntimeError(f"Actuation input port for model instance {self._instance_names[i]} contains "
                                   "NaN.")
            u[self._instance_u_indices(i)] = v
        if whole:
            v = np.asarray(self._actuation_port.Eval(context), dtype=float)
            if np.isnan(v).any():
                raise RuntimeError(f"MultibodyPlant '{self.get_name()}': NaN in the actuation input (Detected NaN "
                                   "in the actuation input port for all instances)")
            u += v
        return u

    def _EvalActuation(self, context) -> np.ndarray:
        """The actuation the plant applies (nu), Drake's rules (pipeline/pd_control.py): a continuous plant adds the armed PD
        controllers' explicit terms and clamps to the effort limits; the discrete Python path clamps and leaves
        PD-controlled actuators' inputs out as SAP does (it cannot solve implicit PD: an armed controller raises)."""
        u = self._ReadActuationInput(context)
        pd = self._pd
        if not pd.active:
            return u
        if self._time_step == 0:
            x = self._qv_view(context)
            return pd.ContinuousActuation(self, context, u, x[:self._model.nq], x[self._model.nq:])
        if pd and pd.Armed(self, context)[0].size:
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}': PD-controlled actuators with a desired state "
                               f"need the compiled discrete step, but this plant steps on the Python path for "
                               f"{self._pipeline.features}")
        u = pd.ClampEffort(u)
        u[pd.u_index] = 0.0  # SAP: a PD-controlled actuator's u_ff acts only through its armed controller
        return u

    def _EvalAppliedForces(self, context, kin):
        """Generalized and body forces from the two applied-force input ports (zero when unconnected)."""
        m = self._model
        tau = np.zeros(m.nv)
        F = np.zeros((m.nb, 6))
        if self._applied_generalized_force_port.HasValue(context):
            tau += self._applied_generalized_force_port.Eval(context)
            if np.any(np.isnan(tau)):
                raise RuntimeError(f"MultibodyPlant '{self.get_name()}': NaN in the applied_generalized_force input")
        if self._applied_spatial_force_port.HasValue(context):
            for f in self._applied_spatial_force_port.Eval(context):
                b = int(f.body_index)
                if not 0 <= b < m.nb:
                    raise ValueError(f"ExternallyAppliedSpatialForce: body_index {b} is not a body of this plant")
                F_W = spatial_to_array(f.F_Bq_W, "F_Bq_W")
                p_BoBq_W = kin.R_WB[b] @ np.asarray(f.p_BoBq_B, dtype=float).reshape(3)
                p, f_W = p_BoBq_W, F_W[3:]
                # τ_Bo = τ_Bq + p_BoBq_W × f_W, written out: np.cross costs ~20x more on one 3-vector
                F[b, :3] += F_W[:3] + np.array([p[1] * f_W[2] - p[2] * f_W[1], p[2] * f_W[0] - p[0] * f_W[2],
                                                p[0] * f_W[1] - p[1] * f_W[0]])
                F[b, 3:] += f_W
        return tau, F

    # ---- force hooks for contact and constraints --------------------------------------------------------
    def _RegisterForceContributor(self, contributor) -> None:
        """Register `contributor(plant, context, kin, F_Bo_W, tau)` adding contact/constraint forces in place.

        The contact and constraint models (multibody/contact) plug in here; every contributor is called
        inside both the continuous derivatives and the discrete step, after the applied forces.
        """
        if not callable(contributor):
            raise ValueError("force contributor must be callable(plant, context, kin, F_Bo_W, tau)")
        self._force_contributors.append(contributor)
        self._ResetPipeline()  # the compiled step's coverage is listed again

    def _AssembleForces(self, context, kin, include_damping: bool):
        """Total (τ, F_Bo_W) except inertial terms: actuation, inputs, force elements, contributors."""
        m = self._model
        u = self._EvalActuation(context)
        F, tau = self._force_element_forces(context, include_damping=include_damping)
        if self._input_wiring(context)[2:] != (False, False):  # an applied-force input has a value
            tau_in, F_in = self._EvalAppliedForces(context, kin)
            tau += tau_in
            F += F_in
        if m.nu:
            m.AddActuation(tau, u)
        if self._mjcf_actuation.adds_forces:  # MJCF actuators and passive forces (mjcf/actuation.py)
            tau += self._mjcf_actuation.CalcGeneralizedForces(self, context, kin.q, kin.v)
        tau_contact = np.zeros(m.nv)
        if self._force_contributors:
            F_c = np.zeros((m.nb, 6))
            tau_c = np.zeros(m.nv)
            for fn in self._force_contributors:
                fn(self, context, kin, F_c, tau_c)
            tau_contact = tau_c - self._rnea(context, np.zeros(m.nv), F_c, None, with_velocity=False)
            F += F_c
            tau += tau_c
        return u, tau, F, tau_contact

    def _SetDiscreteConstraintSolver(self, solver) -> None:
        """Install `solver(plant, context, kin, M_hat, a_free, h) -> a` for the discrete step.

        M_hat = M + h·D (mass matrix with implicit damping) and a_free is the unconstrained acceleration;
        the solver (multibody/contact) returns the constrained acceleration that includes contact,
        joint-limit and equality-constraint impulses.  None restores the unconstrained step.
        """
        self._ThrowIfNotFinalized("_SetDiscreteConstraintSolver")
        if self._time_step == 0:
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}': a discrete constraint solver needs time_step > 0")
        if solver is not None and not callable(solver):
            raise ValueError("the discrete constraint solver must be callable(plant, context, kin, M_hat, a_free, h)")
        rows = getattr(solver, "rows", None)
        if rows is not None:  # MuJoCo's compile-time weights of MJCF models' bodies and dofs
            ApplyMujocoInvWeights(self._mjcf_maps, rows.body_invweight0, rows.dof_invweight0)
        self._discrete_solver = solver
        self._ResetPipeline()  # the compiled step's coverage is listed again

    def _check_finite(self, context, x, what) -> None:
        if not np.isfinite(x).all():
            bad = np.flatnonzero(~np.isfinite(x))
            m = self._model
            names = (self.GetVelocityNames(False) if x.size == m.nv else
                     self.GetStateNames(False) + [f"activation {i}" for i in range(x.size - m.nq - m.nv)]
                     if x.size >= m.nq + m.nv else None)
            shown = [names[i] for i in bad[:8]] if names else bad.tolist()
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}' at t = {context.get_time()}: non-finite {what} "
                               f"({', '.join(map(repr, shown))}{', ...' if bad.size > 8 else ''}); the simulation "
                               "diverged — check inputs, gains, stiffnesses and time step")

    def _RaiseIllPosedSolve(self, context, cause: str, qacc_smooth, J) -> None:
        """Raises the constraint solver's failure `cause` (NaN/inf in its input or solution) located on the
        velocities it comes from: those whose unconstrained acceleration is non-finite or beyond MuJoCo's 1e10
        (mjMAXVAL: huge gravity, forces or tiny masses), else those the constraint rows act on."""
        a = np.asarray(qacc_smooth, dtype=float)
        bad = np.flatnonzero(~(np.abs(a) <= 1e10))
        J = np.asarray(J, dtype=float)
        rows = bad if bad.size else np.flatnonzero(np.any(J != 0.0, axis=0)) if J.size else np.arange(a.size)
        names = self.GetVelocityNames(False)
        shown = ", ".join(repr(names[i]) for i in rows[:8]) + (", ..." if rows.size > 8 else "")
        why = ("their unconstrained accelerations are NaN/inf or beyond 1e10: check gravity, applied forces and "
               "masses" if bad.size else "the constraints acting on them are ill-posed: check the equality "
               "constraints, limits and contact parameters")
        raise RuntimeError(f"MultibodyPlant '{self.get_name()}' at t = {context.get_time()}: {cause} for the "
                           f"velocities {shown}; {why}")

    # ---- default state ---------------------------------------------------------------------------------
    def SetDefaultState(self, context, state) -> None:
        """[q; v] = (joint default positions, free-body default poses; zero velocities)."""
        self._ThrowIfNotFinalized("SetDefaultState")
        last = copy.copy(state.get_abstract_state(self._sampled_index).get_value()) if self._time_step > 0 else None
        super().SetDefaultState(context, state)
        self._mutable_qv_in_state(context, state)[:] = self._default_state_vector()
        if last is not None:  # as Drake's: the sampled ports keep reporting the last step; no solver warm start
            m = self._model
            last.data[3 * m.nv + m.nu] = 0.0
            state.get_mutable_abstract_state(self._sampled_index).set_value(last)

    def _default_positions_changed(self) -> None:
        x0 = self._default_state_vector()
        if self._time_step > 0:
            self._discrete_models[0]._data[:] = x0
        else:
            self._xc_model[:x0.size] = x0

    # ---- output calcs -----------------------------------------------------------------------------------
    def _CalcGeometryPoses(self, context, value) -> None:
        """X_WB of every body registered with SceneGraph, as a FramePoseVector."""
        poses = value.get_mutable_value()
        if not self._geometry_frame_ids:
            return
        self._ThrowIfNotFinalized("geometry_pose output")
        kin = self._eval_kinematics(context)
        ids, bodies = self._GeometryPoseRows()
        if len(ids) == kin.R_WB.shape[0] - 1 and self._geometry_pose_rows[3]:  # bodies 1..nb-1: views, no gather
            poses.SetFromArrays(ids, kin.R_WB[1:], kin.p_WB[1:])
        else:
            poses.SetFromArrays(ids, kin.R_WB[bodies], kin.p_WB[bodies])

    def _GeometryPoseRows(self) -> tuple:
        """(frame ids, body index array) of the bodies registered with SceneGraph (the world excepted): one
        fixed list, rebuilt only if a body frame was registered since, so SceneGraph's pose gather can match
        it by identity each step."""
        reg = self._geometry_frame_ids
        got = self._geometry_pose_rows
        if got is None or got[2] != len(reg):
            bodies = [b for b in reg if b != 0]
            got = ([reg[b] for b in bodies], np.asarray(bodies, dtype=np.int64), len(reg),
                   bodies == list(range(1, len(bodies) + 1)))
            self._geometry_pose_rows = got
        return got[0], got[1]

    def _CalcBodyPosesOutput(self, context, value) -> None:
        kin = self._eval_kinematics(context)
        value.set_value([make_rigid_transform(kin.R_WB[b], kin.p_WB[b]) for b in range(self._model.nb)])

    def _CalcBodyVelocitiesOutput(self, context, value) -> None:
        kin = self._eval_kinematics(context)
        value.set_value([make_spatial("SpatialVelocity", spatial_to_point(kin.V[b], kin.p_WB[b]))
                         for b in range(self._model.nb)])

    def _CalcBodyAccelerationsOutput(self, context, value) -> None:
        A = self._eval_body_accelerations(context)
        value.set_value([make_spatial("SpatialAcceleration", A[b]) for b in range(self._model.nb)])

    def _CalcReactionForcesOutput(self, context, value) -> None:
        """F_CJc_Jc per joint: the force the joint applies on its child body at Jc, expressed in Jc
        (reaction_forces.py): a continuous plant's at the current state with its compliant contact forces, a
        discrete plant's from its step (_DiscreteReactionForces)."""
        if self._time_step > 0:
            value.set_value(self._DiscreteReactionForces(context))
            return
        kin = self._eval_kinematics(context)
        vdot = self._accel_cache.Eval(context)[0]
        F = self._AssembleForces(context, kin, include_damping=True)[2]
        value.set_value(CalcReactionForces(self, kin, vdot, F))
