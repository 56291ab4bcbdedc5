"""MJCF tendon kinematics on the plant: length and moment arm (d length / d v) of fixed and spatial tendons.

Fixed tendon: L = Σ coef·q over hinge/slide joints; constant moment row. Spatial tendon made of sites and
pulleys (straight segments, no geom wrapping): L = Σ over branches of (Σ |p_k+1 − p_k|) / divisor, where a
pulley starts a new branch with its divisor; moment = Σ u_kᵀ (J_k+1 − J_k) / divisor with u_k the unit
segment direction and J the sites' translational Jacobians (plant velocity coordinates).

MjcfTendonRows adds the tendons' limit and dry-friction rows to the discrete plant's constraint problem
(_constraint_rows.ConstraintRowModel), computed from the step's kinematics cache.
"""
from __future__ import annotations

import numpy as np

__all__ = ["TendonSupported", "MjcfTendonKinematics", "MjcfTendonRows"]


def TendonSupported(tendon) -> bool:
    """Whether the plant computes this tendon's length and moment (fixed, or spatial with sites/pulleys)."""
    return tendon.kind == "fixed" or all(w.type in ("site", "pulley") for w in tendon.wraps)


class MjcfTendonKinematics:
    """Length and moment of one MJCF tendon of a loaded model (pm: MjcfPlantMap)."""

    def __init__(self, pm, tendon_id: int, spring: bool = False, damper: bool = False):
        self.tendon = pm.model.tendons[tendon_id]
        self.pm = pm
        self.spring, self.damper = spring, damper
        self.fixed = self.tendon.kind == "fixed"
        if self.fixed:
            self.qcoef = [(pm.joints[w.objid].position_start(), w.prm) for w in self.tendon.wraps]
            self.vcoef = [(pm.joints[w.objid].velocity_start(), w.prm) for w in self.tendon.wraps]
            return
        self.segments = []  # (site a, site b, divisor)
        divisor, prev = 1.0, None
        for w in self.tendon.wraps:
            if w.type == "pulley":
                divisor, prev = max(float(w.prm), 1e-15), None
                continue
            if prev is not None:
                self.segments.append((prev, w.objid, divisor))
            prev = w.objid

    def _site(self, plant, context, s: int):
        site = self.pm.model.sites[s]
        body = self.pm.bodies[site.body]
        p_BS = np.asarray(site.pos, float)
        X = body.EvalPoseInWorld(context)
        return body, p_BS, X.translation() + X.rotation().matrix() @ p_BS

    def CalcLength(self, plant, context, q: np.ndarray) -> float:
        """Tendon length [m or rad]."""
        if self.fixed:
            return float(sum(c * q[i] for i, c in self.qcoef))
        total = 0.0
        for a, b, div in self.segments:
            total += np.linalg.norm(self._site(plant, context, b)[2] - self._site(plant, context, a)[2]) / div
        return float(total)

    def CalcMoment(self, plant, context) -> np.ndarray:
        """d length / d v (plant nv)."""
        moment = np.zeros(plant.num_velocities())
        if self.fixed:
            for i, c in self.vcoef:
                moment[i] += c
            return moment
        from ..tree.indices import JacobianWrtVariable
        world = plant.world_frame()
        for a, b, div in self.segments:
            (ba, pa, wa), (bb, pb, wb) = self._site(plant, context, a), self._site(plant, context, b)
            d = wb - wa
            n = np.linalg.norm(d)
            if n < 1e-15:
                continue
            Ja = plant.CalcJacobianTranslationalVelocity(context, JacobianWrtVariable.kV, ba.body_frame(), pa,
                                                          world, world)
            Jb = plant.CalcJacobianTranslationalVelocity(context, JacobianWrtVariable.kV, bb.body_frame(), pb,
                                                          world, world)
            moment += (d / n) @ (Jb - Ja) / div
        return moment


    def CalcPassiveGeneralizedForces(self, plant, context, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """MuJoCo's tendon passive force mapped to the dofs: spring k·(l_lo − L) below / k·(l_hi − L) above the
        dead band lengthspring = [l_lo, l_hi] (zero inside), damper −b·V; τ = momentᵀ f."""
        moment = self.CalcMoment(plant, context)
        f = 0.0
        if self.spring:
            L = self.CalcLength(plant, context, q)
            lo, hi = (float(x) for x in self.tendon.lengthspring)
            if L < lo:
                f += self.tendon.stiffness * (lo - L)
            elif L > hi:
                f += self.tendon.stiffness * (hi - L)
        if self.damper:
            f -= self.tendon.damping * float(moment @ v)
        return moment * f


class MjcfTendonRows:
    """Limit and dry-friction constraint rows of the MJCF tendons of a discrete plant (MuJoCo's tendon
    `limited`/`range`/`margin`/`solreflimit`/`solimplimit` and `frictionloss`/`solreffriction`/`solimpfriction`).

    The Jacobian of a tendon row is its moment arm d length / d v (±, as MuJoCo's mj_instantiateLimit), the
    regularizer scale is tendon_invweight0 = J M⁻¹ Jᵀ at qpos0. Lengths and moments come from the step's
    kinematics cache (`kin`: world poses and joint columns), so nothing is recomputed through the context.
    """

    def __init__(self, entries: list):
        # entry: dict(name, fixed, q/v coefficient arrays or segments (body a, p_a, body b, p_b, divisor),
        #             limited, lo, hi, margin, solreflimit, solimplimit, frictionloss, solreffriction,
        #             solimpfriction, invweight0)
        self.entries = entries

    @staticmethod
    def FromPlant(plant, ji: np.ndarray, M0: np.ndarray, kin0) -> "MjcfTendonRows | None":
        """The rows of every limited or frictional tendon of the MJCF models loaded into `plant`, or None."""
        entries, nv = [], M0.shape[0]
        for pm in getattr(plant, "_mjcf_maps", []):
            for t, ten in enumerate(pm.model.tendons):
                if not (ten.limited or ten.frictionloss > 0) or not TendonSupported(ten):
                    continue
                e = dict(name=ten.name or f"tendon{t}", fixed=ten.kind == "fixed", limited=bool(ten.limited),
                         lo=float(ten.range[0]), hi=float(ten.range[1]), margin=max(float(ten.margin), 0.0),
                         solreflimit=tuple(ten.solref_limit), solimplimit=tuple(ten.solimp_limit),
                         frictionloss=float(ten.frictionloss), solreffriction=tuple(ten.solref_friction),
                         solimpfriction=tuple(ten.solimp_friction))
                if e["fixed"]:
                    e["qi"] = np.array([pm.joints[w.objid].position_start() for w in ten.wraps], np.int64)
                    e["coef"] = np.array([float(w.prm) for w in ten.wraps])
                    J = np.zeros(nv)
                    for w in ten.wraps:
                        J[pm.joints[w.objid].velocity_start()] += float(w.prm)
                    e["J"] = J
                else:
                    segs, divisor, prev = [], 1.0, None
                    for w in ten.wraps:
                        if w.type == "pulley":
                            divisor, prev = max(float(w.prm), 1e-15), None
                            continue
                        site = pm.model.sites[w.objid]
                        cur = (int(pm.bodies[site.body].index()), np.asarray(site.pos, float))
                        if prev is not None:
                            segs.append((prev[0], prev[1], cur[0], cur[1], divisor))
                        prev = cur
                    e["segments"] = segs
                iw = ten.invweight0
                if iw is None:
                    _, J0 = MjcfTendonRows._LengthMoment(e, kin0, ji)
                    iw = float(J0 @ np.linalg.solve(M0, J0)) if nv else 0.0
                e["invweight0"] = max(float(iw), 1e-15)
                entries.append(e)
        return MjcfTendonRows(entries) if entries else None

    @staticmethod
    def _LengthMoment(e: dict, kin, ji: np.ndarray) -> tuple[float, np.ndarray]:
        """Tendon length [m or rad] and moment d length / d v (nv) at the kinematics `kin`."""
        if e["fixed"]:
            return float(e["coef"] @ kin.q[e["qi"]]), e["J"]
        from ._contact_kernels import PointJacobians
        L, J = 0.0, np.zeros(kin.S.shape[0])
        for ba, pa, bb, pb, div in e["segments"]:
            wa = kin.p_WB[ba] + kin.R_WB[ba] @ pa
            wb = kin.p_WB[bb] + kin.R_WB[bb] @ pb
            d = wb - wa
            n = float(np.linalg.norm(d))
            L += n / div
            if n < 1e-15:
                continue
            Ja = PointJacobians(ji, kin.S, ba, wa)[0]
            Jb = PointJacobians(ji, kin.S, bb, wb)[0]
            J += (d / n) @ (Jb - Ja) / div
        return L, J

    def AddFriction(self, asm, kin, ji) -> None:
        """Tendon dry-friction rows (after the dofs' rows, as MuJoCo orders them)."""
        for e in self.entries:
            if e["frictionloss"] > 0:
                _, J = self._LengthMoment(e, kin, ji)
                asm.AddFrictionLoss(J[None, :], e["frictionloss"], e["invweight0"], e["solreffriction"],
                                    e["solimpfriction"], name=e["name"], tendon=True)

    def AddLimits(self, asm, kin, ji) -> None:
        """Tendon limit rows for each side within `margin` of its range end (after the joints' limit rows)."""
        for e in self.entries:
            if not e["limited"]:
                continue
            L, J = self._LengthMoment(e, kin, ji)
            for dist, sign in ((L - e["lo"], 1.0), (e["hi"] - L, -1.0)):
                if dist < e["margin"]:
                    asm.AddLimit(sign * J[None, :], dist, e["margin"], e["invweight0"], e["solreflimit"],
                                 e["solimplimit"], name=e["name"], tendon=True)
