"""Non-contact constraint rows of the discrete plant: joint limits, dry friction and the plant's
coupler / distance / ball / weld constraints, added to a ConstraintAssembler each step.

`ConstraintRowModel` is built once at Finalize: it resolves the plant's joints and constraint specs
into arrays and computes MuJoCo's setConst quantities (body_invweight0, dof_invweight0, meaninertia)
at the default configuration, which scale the rows' regularizers as in MuJoCo.
"""
from __future__ import annotations

import numpy as np

from ..contact import ConnectRows, DistanceRow, JointCouplerRow
from ..contact.parameters import ValidateSolimp, ValidateSolref
from ..kernels import pipeline as pl
from ..kernels.joint_kernels import BALL_QUATERNION, BALL_RPY, QUATERNION_FLOATING, RPY_FLOATING
from ..kernels.kinematics import acceleration_to_point
from ._contact_kernels import InverseWeights, PointJacobians
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
        self._lim_q, self._lim_lo, self._lim_hi, self._lim_margin = lim[:, 0].astype(np.int64), lim[:, 1], lim[:, 2], \
            lim[:, 3]
        self._lim_checked: dict[int, tuple] = {}  # limit index -> validated (solref, solimp)
        self.friction.sort(key=lambda r: r[0])
        from ._mjcf_tendons import MjcfTendonRows  # MJCF tendon limit / frictionloss rows (None without)
        self.tendons = MjcfTendonRows.FromPlant(plant, m.ji, M0, kin0)
        # ---- equality constraints ------------------------------------------------------------------------
        self.equalities = []
        for k, spec in enumerate(plant._constraints):
            par = GetConstraintMujocoParameters(plant, k)
            name = f"{spec['kind']} constraint {k}"
            kind = spec["kind"]
            if kind == "Coupler":
                j0, j1 = spec["joint0"], spec["joint1"]
                self.equalities.append(dict(kind="coupler", name=name, q0=j0.position_start(),
                                            q1=j1.position_start(), v0=j0.velocity_start(), v1=j1.velocity_start(),
                                            poly=(spec["offset"], spec["gear_ratio"]), par=par))
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
        for e in self.equalities:
            ref, imp = e["par"]["solref"], e["par"]["solimp"]
            if e["kind"] == "coupler":
                J, r = JointCouplerRow(kin.q[e["q0"]], kin.q[e["q1"]], e["poly"], e["v0"], e["v1"], nv)
                asm.AddEquality("coupler", J, r, iw_d[e["v0"]] + iw_d[e["v1"]], ref, imp, name=e["name"])
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
            q = kin.q[self._lim_q]
            d_lo, d_hi = q - self._lim_lo, self._lim_hi - q
            for k in np.flatnonzero((d_lo < self._lim_margin) | (d_hi < self._lim_margin)).tolist():
                qi, dof, lo, hi, margin, ref, imp, name = self.limits[k]
                checked = self._lim_checked.get(k)
                if checked is None:  # validated the first time the limit is active (ValueError naming it)
                    checked = self._lim_checked[k] = (ValidateSolref(ref, "limit", name),
                                                      ValidateSolimp(imp, "limit", name))
                for dist, sign in ((float(d_lo[k]), 1.0), (float(d_hi[k]), -1.0)):
                    if dist < margin:
                        asm.AddValidatedLimit(dof, sign, dist, float(margin), float(iw_d[dof]), checked[0], checked[1],
                                              name)
        if self.tendons is not None:
            self.tendons.AddLimits(asm, kin, model.ji)
