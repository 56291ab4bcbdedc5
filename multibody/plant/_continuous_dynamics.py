"""Continuous-time half of MultibodyPlant's system: the acceleration cache (shared with the discrete step's
sampled outputs), time derivatives ẋ = [N(q)v; v̇; ȧ], the implicit residual and the q̇ ↔ v maps."""
from __future__ import annotations

import numpy as np

from ..kernels import pipeline as pl


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
        generalized_velocity.SetFromVector(self.MakeQDotToVelocityMap(context) @ qd)

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
