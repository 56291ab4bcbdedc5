"""Dynamics half of MultibodyPlant: M(q), C(q,v)v, inverse/forward dynamics, forces, energy, gravity; and the
continuous-time system: the acceleration cache (shared with the discrete step's sampled outputs), time derivatives
ẋ = [N(q)v; v̇; ȧ], the implicit residual and the q̇ ↔ v maps."""
from __future__ import annotations

import numpy as np

from ..kernels import pipeline as pl
from ..kernels.dynamics import gravity_forces_at_body_origins
from ..tree.force_element import UniformGravityFieldElement
from ..tree.multibody_forces import MultibodyForces
from ..tree.indices import JointIndex
from ..pipeline.lean_continuous import AdvanceContinuous
from ..pipeline.kinematics_cache import KINEMATICS_TOKENS, Kinematics
from ..pipeline.model_check import ThrowZeroQuaternion
from ...systems.framework.dependency import K_P
from ...common.lazy_import import LazyModule

scipy_sparse = LazyModule("scipy.sparse")  # loaded on first use (pydrake.all imports no scipy)


_F64 = np.dtype(np.float64)
_STRIDE_1D = (8,)
_NO_CV = np.zeros(0)  # the compiled kinematics-and-M call's Cv argument when the bias term is not wanted


class _DynamicsMixin:
    """CRBA / RNEA based dynamics over the cached Kinematics of a context."""

    #: MJCF tendon armature terms of M and the bias (mjcf/tendon_armature.py), set at Finalize when present
    _tendon_inertia = None

    def _check_size(self, x, n: int, what: str) -> np.ndarray:
        """x as a C-contiguous float64 vector of n entries (x itself when it already is one)."""
        if type(x) is np.ndarray and x.dtype is _F64 and x.strides == _STRIDE_1D and x.shape[0] == n:
            return x
        a = np.ascontiguousarray(np.asarray(x, dtype=float).reshape(-1))
        if a.size != n:
            raise ValueError(f"MultibodyPlant '{self.get_name()}': {what} must have {n} entries, got {a.size}")
        return a

    def _check_forces(self, forces, what: str) -> MultibodyForces:
        """forces, when it is a MultibodyForces sized for this plant (its arrays are C-contiguous float64).

        The last object that passed is remembered (a MultibodyForces never resizes), so a loop reusing one
        MultibodyForces pays for the check once."""
        f = self._fast
        if forces is f.checked_forces:
            return forces
        if (not isinstance(forces, MultibodyForces) or forces._F.shape != f.F_shape
                or forces._tau.shape != f.v_shape):
            raise ValueError(f"{what}: expected a MultibodyForces sized for this plant (MultibodyForces(plant))")
        f.checked_forces = forces
        return forces

    # ---- mass matrix and bias ------------------------------------------------------------------------
    def CalcMassMatrix(self, context) -> np.ndarray:
        """M(q) (nv × nv) by the composite-rigid-body algorithm, reflected inertia included. On a plant without
        mocap bodies, kinematics out of date are recomputed with M into M in one compiled call, and with C(q, v)·v
        into the kinematics' `Cv` (`has_Cv`) when the previous state's bias term was read, so SetPositions,
        CalcMassMatrix and CalcBiasTerm cost one compiled call. The kinematics cache entry's freshness check
        (CachedSlot._eval) is written out here: each Python layer on this path cost ~3% of the arm's loop."""
        try:
            ours = context._system_id == self._system_id and self._finalized
        except AttributeError:  # not a Context
            ours = False
        if not ours:
            self._ThrowIfNotKinematicsContext(context)
        f = self._fast
        M = np.empty(f.M_shape)
        if self._mjcf_mocap is not None:  # the joint frames depend on the mocap input
            return self._MassMatrixFromKinematics(context, self._kin_cache._eval(context)._value, M)
        entry = self._kin_cache
        slot = context._cache[entry._slot]
        root = context._root
        versions = root._versions
        pair = entry._pair  # (the two prerequisite kinds: [q; v] and the parameters)
        stamp = versions[pair[0]] + versions[pair[1]] if pair is not None else entry._stamp(root)
        value = slot[1]
        if value is None:
            value = slot[1] = entry._alloc()
        elif slot[0] == stamp and root._caching and not slot[2]:
            return self._MassMatrixFromKinematics(context, value._value, M)
        elif root._frozen:
            raise RuntimeError(f"{entry._describe()} is out of date but the cache is frozen")
        kin = value._value
        if kin is None:
            value.set_value(kin := Kinematics.Cached(f, self._model.nb))
        # The element values depend on the parameters alone: those kept with the kinematics serve while the
        # parameters' version stands (a state change then costs no second cache lookup), as _LeanCall's.
        p_version = versions[K_P]
        ev = kin.ev
        if kin.ev_version != p_version or not root._caching:
            ev = self._element_cache._eval(context)._value
            kin.ev_version = p_version
        kin.token = next(KINEMATICS_TOKENS)
        kin.ev, kin.bp = ev, ev.bp
        want_Cv = kin.Cv_read
        kin.has_Cv, kin.Cv_read = want_Cv, False
        x = (context._discrete._groups[0] if self._time_step > 0 else context._continuous._vector)._data  # _qv_vector
        try:
            f.kinematics_mass_matrix(f.order, f.ji, f.jf, ev.bp, x, f.nq, f.nv, kin._buf, ev.fast.refl, M,
                                     kin.Cv if want_Cv else _NO_CV)
        except ZeroDivisionError:  # a zero quaternion (compiled kernels raise on division by zero)
            ThrowZeroQuaternion(self, np.asarray(x[:self._model.nq]))
        slot[0] = stamp
        if not ev.plain:
            self._ThrowIfElementParametersChangeDynamics(context, "CalcMassMatrix")
        if self._tendon_inertia is not None:
            self._tendon_inertia.AddToMassMatrix(kin, M)
        return M

    def _MassMatrixFromKinematics(self, context, kin, M: np.ndarray) -> np.ndarray:
        """M (nv × nv, filled and returned) from up-to-date kinematics `kin` of `context`."""
        ev = kin.ev  # the context's element values (the kinematics depend on the same parameters)
        if not ev.plain:
            self._ThrowIfElementParametersChangeDynamics(context, "CalcMassMatrix")
        f = ev.fast  # the context's reflected inertia
        f.mass_matrix_flat(f.order, f.ji, f.nq, f.nv, kin._buf, f.refl, M)
        if self._tendon_inertia is not None:
            self._tendon_inertia.AddToMassMatrix(kin, M)
        return M

    def CalcMassMatrixViaInverseDynamics(self, context) -> np.ndarray:
        """M(q) column by column: inverse dynamics with v = 0 and v̇ = eᵢ."""
        self._ThrowIfNotFinalized("CalcMassMatrixViaInverseDynamics")
        self._ThrowIfElementParametersChangeDynamics(context, "CalcMassMatrixViaInverseDynamics")
        m = self._model
        M = np.zeros((m.nv, m.nv))
        for i in range(m.nv):
            e = np.zeros(m.nv)
            e[i] = 1.0
            M[:, i] = self._rnea(context, e, with_velocity=False)
        return M

    def _rnea(self, context, vdot, F_Bo_W=None, tau_app=None, with_velocity=True) -> np.ndarray:
        kin = self._eval_kinematics(context)
        m = self._ModelFor(context)  # the context's reflected inertia
        zeros6 = self._zeros_b6
        V, c = (kin.V, kin.c) if with_velocity else (zeros6, zeros6)
        tau = pl.inverse_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw, kin.p_WB, V, c,
                                                vdot, zeros6 if F_Bo_W is None else F_Bo_W,
                                                self._zeros_v if tau_app is None else tau_app)
        if self._tendon_inertia is not None:
            tau += self._tendon_inertia.CalcInverseDynamics(kin, vdot, with_velocity)
        return tau

    def CalcBiasTerm(self, context) -> np.ndarray:
        """C(q, v)·v: Coriolis, centripetal and gyroscopic terms."""
        try:  # (_eval_kinematics, inlined: this query is often one of a few per state change)
            ours = context._system_id == self._system_id and self._finalized
        except AttributeError:  # not a Context
            ours = False
        if not ours:
            self._ThrowIfNotKinematicsContext(context)
        # the kinematics cache entry's freshness check (CachedSlot._eval), written out for the usual case of kinematics
        # that are up to date (a CalcMassMatrix just computed them): the call layer cost ~3% of the arm's
        # SetPositions + CalcMassMatrix + CalcBiasTerm
        entry = self._kin_cache
        slot = context._cache[entry._slot]
        root = context._root
        pair = entry._pair
        value = slot[1]
        if (value is not None and pair is not None and root._caching and not slot[2]
                and slot[0] == root._versions[pair[0]] + root._versions[pair[1]]):
            kin = value._value
        else:
            kin = entry._eval(context)._value
        kin.Cv_read = True  # (the next CalcMassMatrix after a state change computes it along)
        if kin.has_Cv:
            Cv = kin.Cv.copy()
        else:
            f = self._fast
            Cv = np.empty(f.nv)
            f.bias_term_flat(f.order, f.ji, f.nq, f.nv, kin._buf, Cv)
        if self._tendon_inertia is not None:
            Cv += self._tendon_inertia.CalcBias(kin)
        return Cv

    def CalcInverseDynamics(self, context, known_vdot, external_forces: MultibodyForces) -> np.ndarray:
        """τ = M(q)v̇ + C(q,v)v − τ_app − Σ J_WBᵀ·Fapp_Bo_W (recursive Newton–Euler)."""
        kin = self._eval_kinematics(context)  # (validates the context)
        ev = kin.ev  # the context's element values (the kinematics depend on the same parameters)
        if not ev.plain:
            self._ThrowIfElementParametersChangeDynamics(context, "CalcInverseDynamics")
        f = ev.fast  # the context's reflected inertia
        vdot = self._check_size(known_vdot, f.nv, "known_vdot")
        forces = self._check_forces(external_forces, "CalcInverseDynamics")
        tau = np.empty(f.nv)
        f.inverse_dynamics_flat(f.order, f.ji, f.nq, f.nv, kin._buf, f.refl, vdot, forces._F, forces._tau, tau)
        if self._tendon_inertia is not None:
            tau += self._tendon_inertia.CalcInverseDynamics(kin, vdot)
        return tau

    def CalcGravityGeneralizedForces(self, context) -> np.ndarray:
        """τ_g(q), with M v̇ + C v = τ_g + τ_app (v·τ_g is the power gravity delivers)."""
        self._ThrowIfNotFinalized("CalcGravityGeneralizedForces")
        kin = self._eval_kinematics(context)
        F = self._gravity_body_forces(context, kin)
        return -self._rnea(context, np.zeros(self._model.nv), F, None, with_velocity=False)

    def CalcGeneralizedForces(self, context, forces: MultibodyForces) -> np.ndarray:
        """τ = τ_app + Σ J_WBᵀ·F_Bo_W: the generalized forces equivalent to `forces`."""
        self._ThrowIfNotFinalized("CalcGeneralizedForces")
        f = self._check_forces(forces, "CalcGeneralizedForces")
        return -self._rnea(context, np.zeros(self._model.nv), f._F, f._tau, with_velocity=False)

    # ---- forces -----------------------------------------------------------------------------------------
    def _gravity_body_forces(self, context, kin) -> np.ndarray:
        """Weights as F_Bo_W (nb × 6)."""
        return gravity_forces_at_body_origins(kin.bp, kin.R_WB, self._force_elements[0]._g, self._gravity_mask)

    def CalcForceElementsContribution(self, context, forces: MultibodyForces) -> None:
        """Fill `forces` with gravity, every other force element and joint damping (state/time only)."""
        self._ThrowIfNotFinalized("CalcForceElementsContribution")
        f = self._check_forces(forces, "CalcForceElementsContribution")
        F, tau = self._force_element_forces(context)
        f._F[:] = F
        f._tau[:] = tau

    def _force_element_forces(self, context, include_damping: bool = True):
        self._ThrowIfElementParametersChangeDynamics(context, "force elements")
        kin = self._eval_kinematics(context)
        F = self._gravity_body_forces(context, kin)
        tau = np.zeros(self._model.nv)
        q, v = kin.q, kin.v
        for fe in self._force_elements[1:]:
            fe._CalcAndAddForceContribution(context, kin, q, v, F, tau)
        if include_damping:
            tau -= self._ModelFor(context).damping * v
        return F, tau

    # ---- energy and power -------------------------------------------------------------------------------
    def CalcKineticEnergy(self, context) -> float:
        """½·vᵀM(q)v (bodies plus reflected rotor inertia)."""
        self._ThrowIfNotFinalized("CalcKineticEnergy")
        v = np.asarray(self.GetVelocities(context), dtype=float)
        return float(0.5 * v @ self.CalcMassMatrix(context) @ v)

    def CalcPotentialEnergy(self, context) -> float:
        """Gravity and force-element potential energy."""
        self._ThrowIfNotFinalized("CalcPotentialEnergy")
        kin = self._eval_kinematics(context)
        return float(sum(fe._CalcPotentialEnergy(context, kin, kin.q) for fe in self._force_elements))

    def CalcConservativePower(self, context) -> float:
        """Power of gravity and the conservative parts of force elements."""
        self._ThrowIfNotFinalized("CalcConservativePower")
        kin = self._eval_kinematics(context)
        return float(sum(fe._CalcConservativePower(context, kin, kin.q, kin.v) for fe in self._force_elements))

    def CalcNonConservativePower(self, context) -> float:
        """Power of the dissipative parts of force elements (joint damping, actuation and inputs excluded)."""
        self._ThrowIfNotFinalized("CalcNonConservativePower")
        kin = self._eval_kinematics(context)
        return float(sum(fe._CalcNonConservativePower(context, kin, kin.q, kin.v) for fe in self._force_elements))

    # ---- selector / actuation matrices ---------------------------------------------------------------------
    def MakeActuationMatrix(self) -> np.ndarray:
        """B (nv × nu) with τ_u = B·u."""
        self._ThrowIfNotFinalized("MakeActuationMatrix")
        return self._model.actuation_matrix()

    def MakeActuationMatrixPseudoinverse(self):
        """B⁺ (nu × nv) as a scipy.sparse CSC matrix, as pydrake returns it (B selects dofs, so B⁺ = Bᵀ)."""
        return scipy_sparse.csc_matrix(self.MakeActuationMatrix().T)

    def MakeStateSelectorMatrix(self, user_to_joint_index_map) -> np.ndarray:
        """Sx with x_s = Sx·x, x_s = [q_s; v_s] ordered by the listed joints."""
        self._ThrowIfNotFinalized("MakeStateSelectorMatrix")
        idx = [int(i) for i in user_to_joint_index_map]
        if len(set(idx)) != len(idx):
            raise ValueError(f"MakeStateSelectorMatrix: repeated joint indices in {idx}")
        joints = [self.get_joint(i) for i in idx]
        qi = [j.position_start() + k for j in joints for k in range(j.num_positions())]
        vi = [self._model.nq + j.velocity_start() + k for j in joints for k in range(j.num_velocities())]
        rows = qi + vi
        Sx = np.zeros((len(rows), self._model.nq + self._model.nv))
        Sx[np.arange(len(rows)), rows] = 1.0
        return Sx

    def MakeActuatorSelectorMatrix(self, user_to_actuator_index_map=None, user_to_joint_index_map=None) -> np.ndarray:
        """Su with u = Su·u_s, for a list of JointActuatorIndex (user_to_actuator_index_map) or of actuated
        JointIndex (user_to_joint_index_map)."""
        self._ThrowIfNotFinalized("MakeActuatorSelectorMatrix")
        if (user_to_actuator_index_map is None) == (user_to_joint_index_map is None):
            raise TypeError("MakeActuatorSelectorMatrix: pass one of user_to_actuator_index_map or "
                            "user_to_joint_index_map")
        items = list(user_to_joint_index_map if user_to_actuator_index_map is None else user_to_actuator_index_map)
        if user_to_joint_index_map is not None or (items and all(isinstance(i, JointIndex) for i in items)):
            by_joint = {int(a._joint.index()): k for k, a in enumerate(self._actuators)}
            acts = []
            for i in items:
                if int(i) not in by_joint:
                    raise ValueError(f"MakeActuatorSelectorMatrix: joint '{self.get_joint(i).name()}' has no actuator")
                acts.append(by_joint[int(i)])
        else:
            acts = [self.get_joint_actuator(i).input_start() for i in items]
        Su = np.zeros((self._model.nu, len(acts)))
        Su[acts, np.arange(len(acts))] = 1.0
        return Su

    # ---- gravity --------------------------------------------------------------------------------------------
    def gravity_field(self) -> UniformGravityFieldElement:
        return self._force_elements[0]

    mutable_gravity_field = gravity_field

    def set_gravity_enabled(self, model_instance, is_enabled: bool) -> None:
        """Enable/disable gravity on one model instance (pre-Finalize)."""
        self._ThrowIfFinalized("set_gravity_enabled")
        self.gravity_field().set_enabled(model_instance, is_enabled)

    def is_gravity_enabled(self, model_instance) -> bool:
        return self.gravity_field().is_enabled(self._CheckModelInstance(model_instance))

    def _gravity_enabled_mask(self) -> np.ndarray:
        g = self.gravity_field()
        return np.array([0.0 if i == 0 else float(g.is_enabled(b.model_instance()))
                         for i, b in enumerate(self._bodies)])


class _ContinuousDynamicsMixin:
    """v̇ from forward dynamics with all applied, actuation and compliant-contact forces (time_step = 0)."""

    def _CalcAccelerationCache(self, context, value) -> None:
        """(v̇, net actuation u, generalized contact forces) for the current state and inputs."""
        self._ThrowIfElementParametersChangeDynamics(context, "MultibodyPlant generalized accelerations", simulating=True)
        if self._time_step > 0:
            nv, nu = self._model.nv, self._model.nu
            if self._use_sampled_output_ports:
                s = context.get_abstract_state(self._sampled_index).get_value().data
            else:  # the step that starts at this state
                dry = self._PipelineDryStep(context)
                if dry is None:
                    value.set_value(self._CalcDiscreteStep(context)[1:])
                    return
                s = dry[1]
            value.set_value((s[:nv].copy(), s[nv:nv + nu].copy(), s[nv + nu:2 * nv + nu].copy()))
            return
        if self._constraints:  # kept at build time as pydrake does; only the discrete solver enforces them
            raise RuntimeError(
                f"MultibodyPlant '{self.get_name()}' uses continuous time (time_step = 0), which does not support "
                f"its {len(self._constraints)} constraint(s) (e.g. {self._constraints[0]['kind']}); construct the "
                "plant with time_step > 0 so the discrete constraint solver enforces them")
        kin = self._eval_kinematics(context)
        m = self._ModelFor(context)  # the context's damping and reflected inertia
        u, tau, F, tau_c = self._AssembleForces(context, kin, include_damping=True)
        try:
            if self._tendon_inertia is None:
                vdot = pl.forward_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw, kin.p_WB,
                                                         kin.V, kin.c, F, tau, self._zeros_v)
            else:  # MJCF tendon armature (mjcf/tendon_armature.py)
                vdot = self._tendon_inertia.CalcForwardDynamics(m, kin, F, tau)
        except np.linalg.LinAlgError:
            self._ThrowSingularMassMatrix(context)
        if not np.isfinite(vdot).all():
            self._ThrowNonFiniteAccelerations(context, kin, vdot, u, tau_c)
        value.set_value((vdot, u, tau_c))

    def _LeanIntegrate(self, context, integrator, boundary: float) -> int:
        """The Simulator's steps towards `boundary` by the compiled RK3 (lean_continuous.py); 0 when it does not apply
        (systems/analysis/lean_loop.py AdvanceLeanContinuous)."""
        return AdvanceContinuous(self, context, integrator, boundary)

    def _ThrowNonFiniteAccelerations(self, context, kin, vdot, u, tau_c) -> None:
        """RuntimeError saying where non-finite accelerations come from: the state, the actuation, a contact
        (named by its geometries), or else the joints whose accelerations are not finite."""
        where = f"MultibodyPlant '{self.get_name()}' at t = {context.get_time()}: non-finite generalized accelerations"
        names = self.GetStateNames(False)
        x = np.concatenate([kin.q, kin.v])
        if not np.isfinite(x).all():
            raise RuntimeError(f"{where}: the state is not finite ('{names[int(np.flatnonzero(~np.isfinite(x))[0])]}')")
        if not np.isfinite(u).all():
            raise RuntimeError(f"{where}: the actuation input is not finite ({np.asarray(u).tolist()})")
        if self._continuous_contact is not None and not (np.abs(tau_c) < 1e100).all():  # absurd contact forces
            st = self._continuous_contact.Calc(context, kin)
            with np.errstate(over="ignore", invalid="ignore"):  # else the largest force, whose sum overflowed
                size = np.where(np.all(np.isfinite(st.f_Bc_W), axis=1), np.abs(st.f_Bc_W).max(axis=1, initial=0), np.inf)
            bad = np.argsort(-size)[:1]
            if bad.size and not size[bad[0]] < 1e100:
                inspector = self.get_geometry_query_input_port().Eval(context).inspector()
                pair = st.pairs[int(bad[0])]
                label = " and ".join(f"geometry '{inspector.GetName(g)}' of body '{self._bodies[int(b)].name()}'"
                                     for g, b in ((pair.id_A, st.body_A[bad[0]]), (pair.id_B, st.body_B[bad[0]])))
                raise RuntimeError(f"{where}: the contact forces overflow, the largest between {label} (depth "
                                   f"{pair.depth} m); a geometry's size or pose is too large (e.g. 1e308) or not finite")
        far = np.abs(kin.p_WB).max(axis=1) if kin.p_WB.size else np.zeros(1)
        if far.max() > 1e5:
            b = int(np.argmax(far))
            raise RuntimeError(f"{where}: body '{self._bodies[b].name()}' is {far[b]:.3g} m from the world origin; the "
                               "simulation diverged (check contact stiffness, geometry sizes, initial penetrations, "
                               "inputs and the time step)")
        bad = [j.name() for j in self._joints_in_q_order()
               if not np.isfinite(vdot[j.velocity_start():j.velocity_start() + j.num_velocities()]).all()]
        raise RuntimeError(f"{where} along joints {bad}; the simulation diverged — check inputs, gains, parameters "
                           "and time step")

    def _DescribeStiffness(self, context) -> str | None:
        """Deep contact penetrations, for the integrator's error when it crawls (see IntegratorBase)."""
        contact = self._continuous_contact if self._time_step == 0 else None
        return contact.DescribePenetrations(context) if contact is not None else None

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        if self._time_step > 0:
            return
        self._ThrowIfElementParametersChangeDynamics(context, "MultibodyPlant time derivatives", simulating=True)
        kin = self._eval_kinematics(context)
        m = self._model
        qdot = pl.map_velocity_to_qdot(m.order, m.ji, kin.q, kin.v)
        vdot = self._accel_cache.Eval(context)[0]
        if self._xc_nz:  # MJCF actuator activations (mjcf/actuation.py) and plugin act_dot (mjcf/plugins.py)
            vdot = np.concatenate([vdot, self._ActivationRates(context)])
        derivatives.get_mutable_vector().SetFromVector(np.concatenate([qdot, vdot]))

    def CalcImplicitTimeDerivativesResidual(self, context, proposed_derivatives) -> np.ndarray:
        """[q̇_p − N(q)v; ID(v̇_p) with all applied and actuation forces] (zero for the true derivatives)."""
        self._ThrowIfNotFinalized("CalcImplicitTimeDerivativesResidual")
        self._ThrowIfElementParametersChangeDynamics(context, "CalcImplicitTimeDerivativesResidual", simulating=True)
        m = self._model
        xdot = np.asarray(getattr(proposed_derivatives, "CopyToVector", lambda: proposed_derivatives)(), dtype=float)
        xdot = self._check_size(xdot, m.nq + m.nv + self._xc_nz, "proposed_derivatives")
        kin = self._eval_kinematics(context)
        _, tau, F, _ = self._AssembleForces(context, kin, include_damping=True)
        r_q = xdot[:m.nq] - pl.map_velocity_to_qdot(m.order, m.ji, kin.q, kin.v)
        r = [r_q, self._rnea(context, xdot[m.nq:m.nq + m.nv], F, tau)]
        if self._xc_nz:  # MJCF actuator activations: ȧ_p − ȧ
            r.append(xdot[m.nq + m.nv:] - self._ActivationRates(context))
        return np.concatenate(r)

    def DoMapVelocityToQDot(self, context, generalized_velocity, qdot) -> None:
        m = self._model
        v = np.asarray(getattr(generalized_velocity, "CopyToVector", lambda: generalized_velocity)(), dtype=float)
        qd = pl.map_velocity_to_qdot(m.order, m.ji, np.asarray(self.GetPositions(context), dtype=float), v)
        qdot.SetFromVector(qd)

    def DoMapQDotToVelocity(self, context, qdot, generalized_velocity) -> None:
        qd = np.asarray(getattr(qdot, "CopyToVector", lambda: qdot)(), dtype=float)
        generalized_velocity.SetFromVector(self._QDotToVelocityDense(context) @ qd)

    def _ThrowSingularMassMatrix(self, context) -> None:
        x = self.GetPositionsAndVelocities(context)
        if not np.isfinite(x).all():  # e.g. an integrator's trial state after a blow-up
            self._check_finite(context, x, "state (the mass matrix cannot be factored)")
        kin = self._eval_kinematics(context)
        far = np.abs(kin.p_WB).max(axis=1) if kin.p_WB.size else np.zeros(1)
        if far.max() > 1e5:  # inertias about the world origin lose the bodies' own rotational inertia to round-off
            b = int(np.argmax(far))
            raise RuntimeError(
                f"MultibodyPlant '{self.get_name()}' at t = {context.get_time()}: body '{self._bodies[b].name()}' is "
                f"{far[b]:.3g} m from the world origin, too far for the mass matrix to keep its rotational inertia; "
                "the simulation diverged (check contact stiffness, initial penetrations, inputs and the time step)")
        M = self.CalcMassMatrix(context)
        bad = [j.name() for j in self._joints_in_q_order()
               if any(M[k, k] <= 0 for k in range(j.velocity_start(), j.velocity_start() + j.num_velocities()))]
        why = f" (zero inertia along joints {bad})" if bad else ""
        for k in range(1, M.shape[0] + 1 if not bad else 0):  # the joint whose dofs end the first singular block
            try:
                np.linalg.cholesky(M[:k, :k])
            except np.linalg.LinAlgError:
                bad = [j.name() for j in self._joints_in_q_order()
                       if j.velocity_start() <= k - 1 < j.velocity_start() + j.num_velocities()]
                why = f" (joint {bad} adds no inertia the joints before it do not already have)"
                break
        raise RuntimeError(
            f"MultibodyPlant '{self.get_name()}' at t = {context.get_time()}: the mass matrix is not positive definite"
            + why + "; give every body that can move a positive mass and inertia (or add armature / rotor inertia)")

    def _ActivationRates(self, context) -> np.ndarray:
        """ȧ of the MJCF actuator activations (mjcf/actuation.py) plus the plugins' act_dot (mjcf/plugins.py)."""
        act = self._mjcf_actuation
        adot = act.CalcActivationRates(act.EvalCtrl(self, context), act.GetActivations(self, context))
        if act.plugins and act.plugins.has_slots:
            adot = adot + act.plugins.ActivationRates(self, context)
        return adot
