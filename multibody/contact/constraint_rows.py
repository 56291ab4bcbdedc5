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

from .parameters import ValidateSolimp, ValidateSolref
from ..kernels import pipeline as pl
from ..kernels.joint_kernels import BALL_QUATERNION, BALL_RPY, QUATERNION_FLOATING, RPY_FLOATING
from ..kernels.contact_kernels import InverseWeights
from ..math.functions import rotation_matrix_from_quaternion
from ..mjcf.tendons import MjcfTendonRows, TendonPaths
from ..pipeline.equality import EQ_OK, EQ_ROWS, EqualityArrays, EqualityRows, new_equality_model
from ..pipeline.kinematics_cache import Kinematics
from .mujoco_parameters import GetConstraintMujocoParameters, GetJointMujocoParameters


class ConstraintRowModel:
    """Joint limits, frictionloss and equality constraints of a finalized discrete plant."""

    def __init__(self, plant):
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
        # (dof, frictionloss, solref, solimp, name, q index of the joint's quaternion or -1, first angular dof):
        # a ball or quaternion-floating joint's angular dofs carry ω in the parent frame, MuJoCo's dry friction
        # acts on its child-frame components (R_FMᵀ ω), one row each
        self.friction = []
        self.limits = []     # (q index, dof, lower, upper, margin, solref, solimp, name)
        for j in plant._joints:
            par = GetJointMujocoParameters(plant, j)
            vs, nvj = j.velocity_start(), j.num_velocities()
            if par["frictionloss"] > 0:
                quat = j.type_name() in ("ball_quaternion", "quaternion_floating")
                for k in range(nvj):
                    self.friction.append((vs + k, par["frictionloss"], par["solreffriction"],
                                          par["solimpfriction"], j.name(),
                                          j.position_start() if quat and k < 3 else -1, vs))
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
        self._equality_arrays, self._equality_model = None, None

    @property
    def equality_arrays(self) -> tuple:
        """The equalities' compiled rows (multibody/pipeline/equality.py EqualityArrays), shared by both paths;
        built at the first step, after the plant has set MuJoCo's inverse weights of MJCF models in place
        (_SetDiscreteConstraintSolver)."""
        if self._equality_arrays is None:
            self._equality_arrays = EqualityArrays(self.equalities, self.body_invweight0, self.dof_invweight0,
                                                   None if self._tendon_eq is None else self._tendon_eq.Index)
        return self._equality_arrays

    @property
    def equality_model(self):
        """The equalities' EqualityModel (a numba struct: built on first use, dropped by pickle)."""
        if self._equality_model is None:
            self._equality_model = new_equality_model(*self.equality_arrays)
        return self._equality_model

    def PipelineEqualityModel(self, maps: list, offsets: list):
        """The equalities' EqualityModel for the compiled step: tendon equalities index the Model's tendons (the
        MJCF models `maps` in load order, model k's first tendon at row offsets[k]; pipeline/tendon.py), whose
        lengths and moment arms the tendon stage computes. Without tendon equalities: `equality_model`."""
        te = self._tendon_eq
        if te is None:
            return self.equality_model

        def index(e: dict) -> tuple:
            k1, k2, L1, L2, iw = te.Index(e)
            rows = [offsets[next(i for i, pm in enumerate(maps) if pm is te.items[k][0])] + te.items[k][1]
                    for k in (k1, k2) if k >= 0]
            return rows[0], rows[1] if k2 >= 0 else -1, L1, L2, iw

        return new_equality_model(*EqualityArrays(self.equalities, self.body_invweight0, self.dof_invweight0, index))

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_equality_model": None}

    def _AddEqualities(self, asm, model, kin) -> None:
        """The equality rows (pipeline/equality.py's kernel, tendon lengths from _TendonEqualities) into `asm`."""
        ne, tp, adr, _obj, _dof, _data, iw, ref, imp = self.equality_arrays
        if self._tendon_eq is None:
            ten_L, ten_J = np.zeros(0), np.zeros((0, self.nv))
        else:
            ten_L, ten_J = self._tendon_eq.LengthsMoments(kin, model.ji)
        J, pos, jdv, gpos = np.zeros((ne, self.nv)), np.zeros(ne), np.zeros(ne), np.zeros(tp.shape[0])
        st, bad = EqualityRows(self.equality_model, model.order, model.ji, kin.S, kin.c, kin.V, kin.R_WB, kin.p_WB,
                               kin.q, kin.v, ten_L, ten_J, J, pos, jdv, gpos)
        if st != EQ_OK:
            self.RaiseEqualityError(bad)
        for k, e in enumerate(self.equalities):
            a, n = adr[k], EQ_ROWS[tp[k]]
            dA = iw[k, 0] if n < 6 else np.array([iw[k, 0]] * 3 + [iw[k, 1]] * 3)
            kind = e["kind"]
            asm.AddEquality(kind, J[a:a + n], pos[a:a + n], dA, ref[k], imp[k], name=e["name"],
                            Jdot_v=jdv[a:a + n] if kind in ("connect", "weld", "distance") else None)

    def RaiseEqualityError(self, k: int) -> None:
        """The ValueError of equality k whose rows are undefined (pipeline/equality.py's EQ_COINCIDENT_POINTS)."""
        raise ValueError(f"{self.equalities[k]['name']}: the two points of the distance constraint coincide, so "
                         "its direction is undefined")

    def Add(self, asm, model, kin) -> None:
        """Add the rows active at this state to `asm` (MuJoCo order: equality, friction, limit)."""
        nv, iw_d = self.nv, self.dof_invweight0
        if self.equalities:
            self._AddEqualities(asm, model, kin)
        for dof, floss, ref, imp, name, qa, rot in self.friction:
            J = np.zeros((1, nv))
            if qa < 0:
                J[0, dof] = 1.0
            else:  # MuJoCo's child-frame component of a quaternion joint's ω (pipeline/constraint.py)
                J[0, rot:rot + 3] = rotation_matrix_from_quaternion(kin.q[qa:qa + 4])[:, dof - rot]
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

    def Index(self, e: dict) -> tuple:
        """(path of tendon 1, of tendon 2 or −1, their length0, the tendon_invweight0 sum) of tendon equality e,
        for pipeline/equality.py (the paths index LengthsMoments' arrays)."""
        k1, k2, _c = self.entries[e["tendon_row"]]
        if k2 < 0:
            return k1, -1, float(self.L0[k1]), 0.0, float(self.iw0[k1])
        return k1, k2, float(self.L0[k1]), float(self.L0[k2]), float(self.iw0[k1] + self.iw0[k2])

    def LengthsMoments(self, kin, ji: np.ndarray) -> tuple:
        """(lengths (npath,), moment arms (npath × nv)) of the equalities' tendons at the kinematics cache `kin`."""
        L, Jt = self.paths.CalcLengthsMoments(kin, ji)
        return (np.ascontiguousarray(L, dtype=np.float64),
                np.ascontiguousarray(np.asarray(Jt, dtype=np.float64).reshape(len(self.items), -1)))


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


def TamsiLimitPenalties(plant) -> np.ndarray:
    """(stiffness, damping) of the explicit joint-limit penalty forces a kTamsi plant applies, per limited single-dof
    joint in the ConstraintRowModel's order (MultibodyPlant::SetUpJointLimitsParameters: a critically damped
    oscillator of period 20π·h on the less stiff of the parent's and child's mass or inertia about the axis; 0 for
    joints other than revolute and prismatic)."""
    period = 20.0 * np.pi * plant.time_step()
    omega2 = (2.0 * np.pi / period) ** 2 if period > 0 else 0.0

    def inertia(body, frame, axis):
        if body.index() == plant.world_body().index():
            return np.inf
        M = body.default_spatial_inertia()
        if axis is None:
            return float(M.get_mass())
        m, c = float(M.get_mass()), np.asarray(M.get_com(), float)
        I_Bo = np.asarray(M.CalcRotationalInertia().CopyToFullMatrix3(), float)
        X = frame.GetFixedPoseInBodyFrame()
        r = c - np.asarray(X.translation(), float)
        I_J = I_Bo - m * (c @ c * np.eye(3) - np.outer(c, c)) + m * (r @ r * np.eye(3) - np.outer(r, r))
        a = np.asarray(X.rotation().matrix(), float) @ np.asarray(axis, float)
        return float(a @ I_J @ a)

    out = []
    for j in plant._joints:
        if j.num_positions() != 1 or j.num_velocities() != 1:
            continue
        if not (np.isfinite(j.position_lower_limits()[0]) or np.isfinite(j.position_upper_limits()[0])):
            continue
        name = type(j).__name__
        if name not in ("RevoluteJoint", "PrismaticJoint"):
            out.append((0.0, 0.0))
            continue
        axis = j.revolute_axis() if name == "RevoluteJoint" else None
        best = None
        for body, frame in ((j.parent_body(), j.frame_on_parent()), (j.child_body(), j.frame_on_child())):
            k = inertia(body, frame, axis) * omega2
            pair = (k, 2.0 * np.sqrt(inertia(body, frame, axis) * k) if np.isfinite(k) else np.inf)
            if best is None or pair[0] < best[0]:
                best = pair
        out.append(best)
    return np.array(out, float).reshape(-1, 2)
