"""Drake's PD-controlled joint actuators (JointActuator.set_controller_gains) and actuator effort limits.

A PD-controlled actuator applies u = clamp(−Kp·(q − qd) − Kd·(v − vd) + u_ff, ±e), with (qd, vd) from its model
instance's desired-state input port (its controllers are disarmed while that port has no value) and u_ff from the
actuation input. A continuous plant evaluates it explicitly at the current state (MultibodyPlant::
CalcNetActuationContinuous). A discrete plant evaluates it implicitly as Drake's SAP PD constraint does
(SapPdControllerConstraint): at the next state, q = q₀ + h·v⁺, which makes an unsaturated controller an extra joint
damping Kd + h·Kp in the step's M + h·D plus the force −Kp·(q₀ − qd) + Kd·vd + u_ff; a saturated one applies ±e.
The saturated set is found by re-solving the step until it is consistent (the clamped cost is convex, so the
consistent set is the solution). Gains in the near-rigid regime are limited as SAP does (R ≥ β²/(4π²)·w with
β = 0.1 and w = 1/(M + h·D)ₖₖ). Other actuators' inputs are clamped to their effort limits; in a discrete plant a
PD-controlled actuator's u_ff acts only through its armed controller (SAP leaves it out of the free motion, while
the net actuation output reports a disarmed one's clamped u_ff, as Drake).
"""
from __future__ import annotations

import numpy as np

__all__ = ["PdControllers"]

_NEAR_RIGID = 0.1 ** 2 / (4.0 * np.pi ** 2)  # β²/(4π²), SAP's near-rigid factor (β = 0.1)
_MAX_ACTIVE_SET_PASSES = 8


class PdControllers:
    """The plant's PD-controlled actuators (fixed at Finalize) and effort limits (SetEffortLimits)."""

    def __init__(self, plant) -> None:
        acts = plant._actuators
        self.scratch = np.zeros(len(acts))
        rows = [k for k, a in enumerate(acts) if a.has_controller()]
        self.u_index = np.array(rows, dtype=np.int64)
        self.joints = [acts[k]._joint for k in rows]
        self.dof = np.array([j.velocity_start() for j in self.joints], dtype=np.int64)
        self.q_index = np.array([j.position_start() for j in self.joints], dtype=np.int64)
        self.Kp = np.array([acts[k].get_controller_gains().p for k in rows], dtype=float)
        self.Kd = np.array([acts[k].get_controller_gains().d for k in rows], dtype=float)
        # per model instance with controllers: (desired-state port, rows of this table, place in the instance's u)
        self.instances = []
        for i, port in enumerate(plant._instance_desired_state_ports):
            u_idx = list(plant._instance_u_indices(i))
            mine = [r for r, k in enumerate(rows) if k in u_idx]
            if mine:
                self.instances.append((i, port, np.array(mine, np.int64),
                                       np.array([u_idx.index(rows[r]) for r in mine], np.int64), len(u_idx)))
        # the rules apply to Drake's actuators (MJCF models actuate through their own ctrl and force ranges)
        self._mjcf = bool(plant._mjcf_maps)
        self.version = 0
        self.SetEffortLimits([a.effort_limit() for a in acts])
        for j in self.joints:
            if j.num_velocities() != 1:
                raise ValueError(f"PD-controlled actuator on joint '{j.name()}': Drake supports PD control of "
                                 "single-dof joints only")

    def SetEffortLimits(self, limits) -> None:
        """The clamps from the actuators' effort limits (by input index). Drake reads the limits whenever it
        evaluates actuation, so a limit set after Finalize applies from the next evaluation; `version` counts the
        changes for the plans cached from `active`."""
        self.limits = np.array(limits, dtype=float)
        self.limited = np.flatnonzero(np.isfinite(self.limits))
        self.lower, self.upper = -self.limits, self.limits.copy()
        self.e = self.limits[self.u_index] if self.u_index.size else np.zeros(0)
        self.active = bool(self.u_index.size or self.limited.size) and not self._mjcf
        self.version += 1

    def __bool__(self) -> bool:
        return bool(self.u_index.size)

    def Armed(self, plant, context):
        """(rows, qd, vd) of the armed controllers in `context` (instance port has a value, joint not locked)."""
        rows, qd, vd = [], [], []
        for i, port, mine, local, nu in self.instances:
            if not port.HasValue(context):
                continue
            xd = np.asarray(port.Eval(context), dtype=float)
            for r, a in zip(mine, local):
                if self.joints[r].is_locked(context):
                    continue
                if np.isnan(xd[a]) or np.isnan(xd[nu + a]):
                    raise RuntimeError(f"Desired state input port for model instance "
                                       f"{plant._instance_names[i]} contains NaN.")
                rows.append(r)
                qd.append(xd[a])
                vd.append(xd[nu + a])
        return np.array(rows, np.int64), np.array(qd), np.array(vd)

    def ClampEffort(self, u: np.ndarray) -> np.ndarray:
        """u with every actuator with a finite effort limit clamped to it (a new array)."""
        u = np.array(u, dtype=float)
        lim = self.limited
        if lim.size:
            u[lim] = np.clip(u[lim], -self.limits[lim], self.limits[lim])
        return u

    def ContinuousActuation(self, plant, context, u_ff: np.ndarray, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Drake's continuous net actuation: u_ff plus the armed controllers' explicit PD terms, clamped."""
        u = np.array(u_ff, dtype=float)
        if self:
            rows, qd, vd = self.Armed(plant, context)
            if rows.size:
                k = self.u_index[rows]
                u[k] += -self.Kp[rows] * (q[self.q_index[rows]] - qd) - self.Kd[rows] * (v[self.dof[rows]] - vd)
        return self.ClampEffort(u)

    def EffectiveGains(self, rows, h: float, A_diag: np.ndarray):
        """(Kp, Kd) of `rows` after SAP's near-rigid limit (SapPdControllerConstraint::DoMakeData); `A_diag` the
        diagonal of M + h·D at their dofs."""
        Kp, Kd = self.Kp[rows].copy(), self.Kd[rows].copy()
        R = 1.0 / (h * (h * Kp + Kd))
        R_nr = _NEAR_RIGID / A_diag
        for n in np.flatnonzero(R < R_nr):
            if h * Kp[n] > Kd[n]:
                tau = Kd[n] / Kp[n]
                Kp[n] = 1.0 / (h * (h + tau) * R_nr[n])
                Kd[n] = tau * Kp[n]
            else:
                tau_inv = Kp[n] / Kd[n]
                Kd[n] = 1.0 / (h * (1.0 + h * tau_inv) * R_nr[n])
                Kp[n] = tau_inv * Kd[n]
        return Kp, Kd

    def ImplicitStep(self, plant, context, step):
        """Drake's discrete step with implicit PD: `step(u, extra_damping)` runs the plant's step with actuation u
        and extra joint damping (nv, or None) and returns v⁺; returns (u, extra damping, applied actuation) of the
        consistent saturated set, the last step having been run with them."""
        u_ff = plant._ReadActuationInput(context)
        reported = self.ClampEffort(u_ff)
        u = reported.copy()
        u[self.u_index] = 0.0  # SAP: a PD-controlled actuator's u_ff acts only through its armed controller
        rows, qd, vd = self.Armed(plant, context)
        if rows.size == 0:
            step(u, None)
            return reported  # (Drake reports a disarmed controller's clamped u_ff as its net actuation)
        if plant.get_discrete_contact_approximation().name == "kTamsi":
            raise RuntimeError(f"MultibodyPlant '{plant.get_name()}': PD-controlled actuators are not supported with "
                               "the TAMSI discrete solver (DiscreteContactApproximation.kTamsi), as in Drake; use kSap, "
                               "kLagged or kSimilar")
        m = plant._ModelFor(context)
        h = plant.time_step()
        q0, v0 = plant._qv_view(context)[:m.nq], plant._qv_view(context)[m.nq:m.nq + m.nv]
        dof, uk = self.dof[rows], self.u_index[rows]
        M = plant.CalcMassMatrix(context)
        Kp, Kd = self.EffectiveGains(rows, h, np.diag(M)[dof] + h * m.damping[dof])
        e = self.e[rows]
        ff = u_ff[uk]
        y_lin = -Kp * (q0[self.q_index[rows]] - qd) + Kd * vd + ff  # the controller's force minus (h·Kp + Kd)·v⁺
        sat = np.zeros(rows.size)  # 0: linear, ±1: saturated at ±e
        for _ in range(_MAX_ACTIVE_SET_PASSES):
            extra = np.zeros(m.nv)
            lin = sat == 0
            np.add.at(extra, dof[lin], (Kd + h * Kp)[lin])
            u[uk] = np.where(lin, y_lin, sat * e)
            v_next = step(u, extra)
            y = y_lin - (h * Kp + Kd) * v_next[dof]
            new = np.where(y > e, 1.0, np.where(y < -e, -1.0, 0.0))
            if np.array_equal(new, sat):
                break
            sat = new
        reported[uk] = np.clip(y, -e, e)
        return reported
