"""Non-contact constraint rows of the discrete plant: joint limits, dry friction and the plant's
coupler / distance / ball / weld constraints (and MJCF joint and tendon equalities: a fixed joint / tendon
or a quartic coupling), added to a ConstraintAssembler each step.

`ConstraintRowModel` is built once at Finalize: it resolves the plant's joints and constraint specs
into arrays and computes MuJoCo's setConst quantities (body_invweight0, dof_invweight0, meaninertia)
at the default configuration, which scale the rows' regularizers as in MuJoCo.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..contact import ConnectRows, DistanceRow, JointCouplerRow
from ..contact.parameters import ValidateSolimp, ValidateSolref
from ..kernels import pipeline as pl
from ..kernels.joint_kernels import BALL_QUATERNION, BALL_RPY, QUATERNION_FLOATING, RPY_FLOATING
from ..kernels.kinematics import acceleration_to_point
from ..kernels.contact_kernels import InverseWeights, PointJacobians
from .mujoco_parameters import GetConstraintMujocoParameters, GetJointMujocoParameters


def _quat_from_R(R: np.ndarray) -> np.ndarray:
    from ..math.functions import quaternion_from_rotation_matrix
    return quaternion_from_rotation_matrix(R)


def _qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a (x) b of [w, x, y, z] quaternions (b may be a pure vector: [0, v])."""
    w1, v1, w2, v2 = a[0], a[1:], b[0], b[1:]
    return np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])


def _conj(q: np.ndarray) -> np.ndarray:
    return np.array([q[0], -q[1], -q[2], -q[3]])


def _pure(v: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], v])


class ConstraintRowModel:
    """Joint limits, frictionloss and equality constraints of a finalized discrete plant."""

    def __init__(self, plant):
        from ._kinematics import Kinematics
        m = plant._model
        self.nv = m.nv
        q0 = plant._default_state_vector()[:m.nq]
        kin0 = Kinematics(m, q0, np.zeros(m.nv), m.body_params)
        M0 = pl.mass_matrix_from_inertias(m.order, m.ji, m.reflected_inertia, kin0.S, kin0.Iw)
        groups = []
        for b in m.order:
            jt, vs, nvb = m.ji[b, 1], m.ji[b, 4], m.ji[b, 5]
            if jt in (QUATERNION_FLOATING, RPY_FLOATING):
                groups += [np.arange(vs, vs + 3), np.arange(vs + 3, vs + 6)]
            elif jt in (BALL_QUATERNION, BALL_RPY):
                groups.append(np.arange(vs, vs + nvb))
        p_cm = kin0.p_WB + np.einsum("bij,bj->bi", kin0.R_WB, m.body_params[:, 1:4])
        self.body_invweight0, self.dof_invweight0 = InverseWeights(m.ji, kin0.S, M0, p_cm, groups)
        self.meaninertia = float(np.mean(np.diag(M0))) if m.nv else 1.0
        # ---- joints: frictionloss per dof, limits of single-dof joints ---------------------------------
        self.friction = []   # (dof, frictionloss, solref, solimp, name)
        self.limits = []     # (q index, dof, lower, upper, margin, solref, solimp, name)
        for j in plant._joints:
            par = GetJointMujocoParameters(plant, j)
            vs, nvj = j.velocity_start(), j.num_velocities()
            if par["frictionloss"] > 0:
                for k in range(nvj):
                    self.friction.append((vs + k, par["frictionloss"], par["solreffriction"],
                                          par["solimpfriction"], j.name()))
            if j.num_positions() == 1 and nvj == 1:
                lo, hi = float(j.position_lower_limits()[0]), float(j.position_upper_limits()[0])
                if np.isfinite(lo) or np.isfinite(hi):
                    self.limits.append((j.position_start(), vs, lo, hi, par["margin"], par["solreflimit"],
                                        par["solimplimit"], j.name()))
        lim = np.array([(r[0], r[2], r[3], r[4]) for r in self.limits], float).reshape(-1, 4)
        self._lim_q = lim[:, 0].astype(np.int64)
        self._lim_lo, self._lim_hi, self._lim_margin = (np.ascontiguousarray(lim[:, c]) for c in (1, 2, 3))
        nlim = len(self.limits)
        self._lim_dof = np.array([r[1] for r in self.limits], np.int64)
        self._lim_ref = np.zeros((nlim, 2))   # validated solref / solimp per limit; an invalid one is flagged
        self._lim_imp = np.zeros((nlim, 5))   # in _lim_bad and raises (ValueError naming the joint) when active
        self._lim_bad = np.zeros(nlim, bool)
        for k, (_qi, _dof, _lo, _hi, _margin, ref, imp, name) in enumerate(self.limits):
            try:
                self._lim_ref[k] = ValidateSolref(ref, "limit", name)
                self._lim_imp[k] = ValidateSolimp(imp, "limit", name)
            except Exception:  # raised again, by the same validators, if the limit becomes active
                self._lim_bad[k] = True
        self._lim_names = [r[7] for r in self.limits]
        self.friction.sort(key=lambda r: r[0])
        from ._mjcf_tendons import MjcfTendonRows  # MJCF tendon limit / frictionloss rows (None without)
        self.tendons = MjcfTendonRows.FromPlant(plant, m.ji, M0, kin0)
        # ---- equality constraints ------------------------------------------------------------------------
        self.equalities = []
        for k, spec in enumerate(plant._constraints):
            par = GetConstraintMujocoParameters(plant, spec["id"])
            name = f"{spec['kind']} constraint {k}"
            kind = spec["kind"]
            if kind == "Coupler":
                j0, j1 = spec["joint0"], spec["joint1"]
                self.equalities.append(dict(kind="coupler", name=name, q0=j0.position_start(),
                                            q1=j1.position_start(), v0=j0.velocity_start(), v1=j1.velocity_start(),
                                            poly=(spec["offset"], spec["gear_ratio"]), par=par))
            elif kind == "MjcfJoint":  # MuJoCo joint equality: one joint fixed, or a quartic coupling
                j0, j1 = spec["joint0"], spec["joint1"]
                self.equalities.append(dict(kind="coupler", name=name, q0=j0.position_start(),
                                            q1=None if j1 is None else j1.position_start(), v0=j0.velocity_start(),
                                            v1=None if j1 is None else j1.velocity_start(), poly=spec["polycoef"],
                                            refs=(spec["q0_ref"], spec["q1_ref"]), par=par))
            elif kind == "MjcfTendon":  # MuJoCo tendon equality: rows from one compiled call (see _tendon_eq)
                self.equalities.append(dict(kind="tendon", name=name, spec=spec, par=par))
            elif kind in ("Ball", "Distance"):
                a, b = int(spec["body_A"].index()), int(spec["body_B"].index())
                p_BQ = spec.get("p_BQ")
                if p_BQ is None:  # Q = P's location at the default configuration, in B
                    p_WP = kin0.p_WB[a] + kin0.R_WB[a] @ spec["p_AP"]
                    p_BQ = kin0.R_WB[b].T @ (p_WP - kin0.p_WB[b])
                eq = dict(kind="connect" if kind == "Ball" else "distance", name=name, a=a, b=b,
                          p_AP=np.asarray(spec["p_AP"], float), p_BQ=np.asarray(p_BQ, float), par=par)
                if kind == "Distance":
                    eq["distance"] = spec["distance"]
                    eq["stiffness"], eq["damping"] = spec["stiffness"], spec["damping"]
                self.equalities.append(eq)
            elif kind == "Weld":
                a, b = int(spec["body_A"].index()), int(spec["body_B"].index())
                (R_AP, p_AP), (R_BQ, p_BQ) = spec["X_AP"], spec["X_BQ"]
                self.equalities.append(dict(kind="weld", name=name, a=a, b=b, R_AP=np.asarray(R_AP, float),
                                            p_AP=np.asarray(p_AP, float), R_BQ=np.asarray(R_BQ, float),
                                            p_BQ=np.asarray(p_BQ, float), par=par))
            else:
                raise ValueError(f"MultibodyPlant '{plant.get_name()}': constraint {k} has unknown kind '{kind}'")
        self._tendon_eq = _TendonEqualities.FromRows(self.equalities, m.ji, M0, kin0)
        self._needs_bias = any(e["kind"] in ("connect", "weld", "distance") for e in self.equalities)

    def _AddWeld(self, asm, e, kin, A0, p_WP, p_WQ, Jv, Jw, bias, tran, ref, imp) -> None:
        """Weld rows as MuJoCo's weld equality: position p_WP - p_WQ and orientation error
        vec(conj(q_WQ) (x) q_WP)·torquescale, with the rotational Jacobian 0.5·conj(q_WQ) (x) (w_A - w_B) (x) q_WP
        and the product-rule J̇v of the three quaternion factors subtracted from aref."""
        a, b = e["a"], e["b"]
        ts = e["par"]["torquescale"]
        q_WA, q_WB = _quat_from_R(kin.R_WB[a]), _quat_from_R(kin.R_WB[b])
        q_WP = _qmul(q_WA, _quat_from_R(e["R_AP"]))
        q_WQ = _qmul(q_WB, _quat_from_R(e["R_BQ"]))
        nq1 = _conj(q_WQ)
        Jr = np.empty((3, self.nv))
        for j in range(self.nv):
            Jr[:, j] = 0.5 * ts * _qmul(_qmul(nq1, _pure(Jw[:, j])), q_WP)[1:]
        w_A, w_B = kin.V[a, :3], kin.V[b, :3]
        dw = w_A - w_B
        qdot_P = _qmul(0.5 * _qmul(q_WA, _pure(w_A)), _quat_from_R(e["R_AP"]))
        nqdot_Q = _conj(_qmul(0.5 * _qmul(q_WB, _pure(w_B)), _quat_from_R(e["R_BQ"])))
        djrdv = A0[a, :3] - A0[b, :3]
        t = (_qmul(_qmul(nqdot_Q, _pure(dw)), q_WP) + _qmul(_qmul(nq1, _pure(djrdv)), q_WP)
             + _qmul(_qmul(nq1, _pure(dw)), qdot_P))
        r = np.concatenate([p_WP - p_WQ, ts * _qmul(nq1, q_WP)[1:]])
        rot = self.body_invweight0[a, 1] + self.body_invweight0[b, 1]
        asm.AddEquality("weld", np.vstack([Jv, Jr]), r, np.array([tran] * 3 + [rot] * 3), ref, imp,
                        name=e["name"], Jdot_v=np.concatenate([bias, 0.5 * ts * t[1:]]))

    def Add(self, asm, model, kin) -> None:
        """Add the rows active at this state to `asm` (MuJoCo order: equality, friction, limit)."""
        nv = self.nv
        iw_b, iw_d = self.body_invweight0, self.dof_invweight0
        A0 = (pl.spatial_accelerations_stage(model.order, model.ji, kin.S, kin.c, np.zeros(nv))
              if self._needs_bias and self.equalities else None)
        ten_rows = None if self._tendon_eq is None else self._tendon_eq.Rows(kin, model.ji)
        for e in self.equalities:
            ref, imp = e["par"]["solref"], e["par"]["solimp"]
            if e["kind"] == "tendon":
                J, r, iw = ten_rows[e["tendon_row"]]
                asm.AddEquality("tendon", J, r, iw, ref, imp, name=e["name"])
                continue
            if e["kind"] == "coupler":
                q1 = None if e["q1"] is None else kin.q[e["q1"]]
                J, r = JointCouplerRow(kin.q[e["q0"]], q1, e["poly"], e["v0"], e["v1"], nv, *e.get("refs", (0.0, 0.0)))
                iw = iw_d[e["v0"]] + (0.0 if e["v1"] is None else iw_d[e["v1"]])
                asm.AddEquality("coupler", J, r, iw, ref, imp, name=e["name"])
                continue
            a, b = e["a"], e["b"]
            p_WP = kin.p_WB[a] + kin.R_WB[a] @ e["p_AP"]
            p_WQ = kin.p_WB[b] + kin.R_WB[b] @ e["p_BQ"]
            JvP, JwP = PointJacobians(model.ji, kin.S, a, p_WP)
            JvQ, JwQ = PointJacobians(model.ji, kin.S, b, p_WQ)
            bias = (acceleration_to_point(kin.V[a], A0[a], p_WP)[3:] - acceleration_to_point(kin.V[b], A0[b], p_WQ)[3:])
            tran = iw_b[a, 0] + iw_b[b, 0]
            if e["kind"] == "connect":
                J, r = ConnectRows(p_WP, p_WQ, JvP, JvQ)
                asm.AddEquality("connect", J, r, tran, ref, imp, name=e["name"], Jdot_v=bias)
            elif e["kind"] == "distance":
                J, r = DistanceRow(p_WP, p_WQ, JvP, JvQ, e["distance"])
                u = (p_WP - p_WQ) / max(np.linalg.norm(p_WP - p_WQ), 1e-300)
                if np.isfinite(e["stiffness"]):  # Drake's compliant distance constraint: direct solref form
                    ref = (-e["stiffness"] * tran, -e["damping"] * tran)
                dv = (JvP - JvQ) @ kin.v  # d/dt of u adds |dv_perp|^2 / |p_WP - p_WQ| to J̇v
                jdv = u @ bias + (dv @ dv - (u @ dv) ** 2) / max(np.linalg.norm(p_WP - p_WQ), 1e-300)
                asm.AddEquality("distance", J, r, tran, ref, imp, name=e["name"], Jdot_v=np.array([jdv]))
            else:
                self._AddWeld(asm, e, kin, A0, p_WP, p_WQ, JvP - JvQ, JwP - JwQ, bias, tran, ref, imp)
        for dof, floss, ref, imp, name in self.friction:
            J = np.zeros((1, nv))
            J[0, dof] = 1.0
            asm.AddFrictionLoss(J, floss, iw_d[dof], ref, imp, name=name)
        if self.tendons is not None:
            self.tendons.AddFriction(asm, kin, model.ji)
        if self.limits:  # the active ones found at once; rows added in joint order, lower before upper
            self._AddLimits(asm, kin.q, iw_d)
        if self.tendons is not None:
            self.tendons.AddLimits(asm, kin, model.ji)

    def RaiseIfBadLimit(self, k: int) -> None:
        """Raise the ValueError (naming the joint) of limit k's invalid solref / solimp; nothing for k < 0."""
        if k >= 0:
            _qi, _dof, _lo, _hi, _margin, ref, imp, name = self.limits[k]
            ValidateSolref(ref, "limit", name)
            ValidateSolimp(imp, "limit", name)

    def TendonEqualityForces(self, kin, ji: np.ndarray, efc_force_eq: np.ndarray) -> list:
        """(MjcfPlantMap, tendon id, force along the tendon) for each tendon of every MJCF tendon equality, from
        the equality rows' forces `efc_force_eq` (the ne equality rows, in the order Add adds them): f on tendon1
        and −P'(x)·f on tendon2, as J = J1 − P'(x)·J2 maps the row force. Empty without tendon equalities."""
        if self._tendon_eq is None:
            return []
        sizes = {"connect": 3, "weld": 6}
        f_rows, adr = {}, 0
        for e in self.equalities:
            if e["kind"] == "tendon":
                f_rows[e["tendon_row"]] = float(efc_force_eq[adr])
            adr += sizes.get(e["kind"], 1)
        if adr != len(efc_force_eq):  # not laid out as this model's equality rows: nothing reliable
            return []
        return self._tendon_eq.Forces(kin, ji, f_rows)

    @property
    def only_limits(self) -> bool:
        """True when the only non-contact rows are joint limits (no equality, dry friction or tendon rows)."""
        return not self.equalities and not self.friction and self.tendons is None

    def LimitArrays(self) -> tuple:
        """(q index, lower, upper, margin, dof, solref, solimp, invalid) per limit, for AssembleLimitContactRows."""
        return (self._lim_q, self._lim_lo, self._lim_hi, self._lim_margin, self._lim_dof, self._lim_ref,
                self._lim_imp, self._lim_bad)

    def LimitNames(self, kk) -> list:
        names = self._lim_names
        return [names[k] for k in kk.tolist()]

    def _AddLimits(self, asm, q_all: np.ndarray, iw_d: np.ndarray) -> None:
        """The active joint limit rows as one block (joint order, lower before upper)."""
        kk, dofs, signs, dists, margins, diagA = _ActiveLimitRows(q_all, self._lim_q, self._lim_lo, self._lim_hi,
                                                                  self._lim_margin, self._lim_dof, iw_d)
        if kk.shape[0] == 0:
            return
        if self._lim_bad.any():
            self.RaiseIfBadLimit(int(kk[self._lim_bad[kk]][0]) if self._lim_bad[kk].any() else -1)
        names = self._lim_names
        asm.AddValidatedLimits(dofs, signs, dists, margins, diagA, self._lim_ref[kk], self._lim_imp[kk],
                               [names[k] for k in kk.tolist()])


class _TendonEqualities:
    """MuJoCo tendon equalities (plant constraints of kind "MjcfTendon") of a discrete plant: the residual
    r = (L1 − L1₀) − c0 − P(x), x = L2 − L2₀, P(x) = c1·x + … + c4·x⁴ (r = L1 − L1₀ − c0 without tendon2), its
    Jacobian J1 − P'(x)·J2 (J: tendon moment arms ∂L/∂v) and diagApprox tendon_invweight0 of both tendons, as
    MuJoCo's mj_instantiateEquality. All the tendons' lengths and moments come from one compiled call."""

    def __init__(self, entries: list, items: list, paths, L0: np.ndarray, iw0: np.ndarray):
        self.entries = entries  # (path index of tendon1, of tendon2 or -1, polycoef[5])
        self.items = items  # (MjcfPlantMap, tendon id) of each path
        self.paths, self.L0, self.iw0 = paths, L0, iw0

    @staticmethod
    def FromRows(equalities: list, ji: np.ndarray, M0: np.ndarray, kin0) -> "_TendonEqualities | None":
        """Collect the "tendon" equalities of `equalities` (each gets its `tendon_row` index), or None."""
        from ._mjcf_tendons import TendonPaths
        items, entries, given_L0, given_iw = [], [], [], []
        for e in equalities:
            if e["kind"] != "tendon":
                continue
            spec = e["spec"]
            pm, ids = spec["mjcf_map"], [spec["tendon0"]] + ([] if spec["tendon1"] is None else [spec["tendon1"]])
            k0 = len(items)
            for t in ids:
                ten = pm.model.tendons[t]
                items.append((pm, t))
                given_L0.append(ten.length0)
                given_iw.append(ten.invweight0)
            e["tendon_row"] = len(entries)
            entries.append((k0, k0 + 1 if len(ids) == 2 else -1, np.asarray(spec["polycoef"], float)))
        if not entries:
            return None
        paths = TendonPaths(items)
        L_at0, J_at0 = paths.CalcLengthsMoments(kin0, ji)  # qpos0 (tendons whose length0 the compiler left out)
        L0 = np.array([L_at0[k] if x is None else float(x) for k, x in enumerate(given_L0)])
        iw0 = np.array([(float(J_at0[k] @ np.linalg.solve(M0, J_at0[k])) if M0.shape[0] else 0.0) if x is None
                        else float(x) for k, x in enumerate(given_iw)])
        return _TendonEqualities(entries, items, paths, L0, iw0)

    def _Slopes(self, dL: np.ndarray) -> list:
        """P'(x) of every equality at the length changes dL (1 for a single tendon, unused)."""
        out = []
        for _k1, k2, c in self.entries:
            x = dL[k2] if k2 >= 0 else 0.0
            out.append(c[1] + 2.0 * c[2] * x + 3.0 * c[3] * x ** 2 + 4.0 * c[4] * x ** 3)
        return out

    def Forces(self, kin, ji: np.ndarray, f_rows: dict) -> list:
        """(MjcfPlantMap, tendon id, force) of both tendons of each equality with row force f_rows[row]."""
        L, _ = self.paths.CalcLengthsMoments(kin, ji)
        slopes = self._Slopes(L - self.L0)
        out = []
        for row, (k1, k2, _c) in enumerate(self.entries):
            f = f_rows.get(row, 0.0)
            out.append((*self.items[k1], f))
            if k2 >= 0:
                out.append((*self.items[k2], -slopes[row] * f))
        return out

    def Rows(self, kin, ji: np.ndarray) -> list:
        """(J (1 × nv), residual (1,), diagApprox) of every tendon equality at the kinematics cache `kin`."""
        L, Jt = self.paths.CalcLengthsMoments(kin, ji)
        dL = L - self.L0
        slopes = self._Slopes(dL)
        out = []
        for (k1, k2, c), dP in zip(self.entries, slopes):
            if k2 < 0:
                out.append((Jt[k1][None, :], np.array([dL[k1] - c[0]]), self.iw0[k1]))
                continue
            x = dL[k2]
            P = c[1] * x + c[2] * x ** 2 + c[3] * x ** 3 + c[4] * x ** 4
            out.append(((Jt[k1] - dP * Jt[k2])[None, :], np.array([dL[k1] - c[0] - P]),
                        self.iw0[k1] + self.iw0[k2]))
        return out


@njit(cache=True)
def _ActiveLimitRows(q, lim_q, lo, hi, margin, dof, iw_d):
    """Rows of the active joint limits (distance below the margin), in joint order, lower before upper:
    (limit index, dof, sign (+1 lower, -1 upper), distance, margin, dof_invweight0) per row."""
    n = lim_q.shape[0]
    count = 0
    for k in range(n):
        x = q[lim_q[k]]
        count += (x - lo[k] < margin[k]) + (hi[k] - x < margin[k])
    kk = np.empty(count, np.int64)
    dofs = np.empty(count, np.int64)
    signs = np.empty(count)
    dists = np.empty(count)
    mar = np.empty(count)
    dA = np.empty(count)
    r = 0
    for k in range(n):
        x = q[lim_q[k]]
        for side in range(2):
            d = x - lo[k] if side == 0 else hi[k] - x
            if d < margin[k]:
                kk[r], dofs[r], signs[r], dists[r], mar[r] = k, dof[k], 1.0 - 2.0 * side, d, margin[k]
                dA[r] = iw_d[dof[k]]
                r += 1
    return kk, dofs, signs, dists, mar, dA
