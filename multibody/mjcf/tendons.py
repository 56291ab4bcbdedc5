"""MJCF tendon kinematics on the plant: length and moment arm (d length / d v) of fixed and spatial tendons.

Fixed tendon: L = Σ coef·q over hinge/slide joints; constant moment row. Spatial tendon: sites, pulleys and
sphere / cylinder geoms the path wraps around (with optional side sites), exactly as MuJoCo's mj_tendon; the
compiled kernels are in multibody/kernels/tendon_kernels.py and `TendonPaths` holds their path arrays.

MjcfTendonRows adds the tendons' limit and dry-friction rows to the discrete plant's constraint problem
(_constraint_rows.ConstraintRowModel), computed from the step's kinematics cache.
"""
from __future__ import annotations

import numpy as np

from ..kernels.tendon_kernels import tendon_jdot_v, tendon_lengths_moments
from ..pipeline.tendon import TendonPathArrays

__all__ = ["TendonSupported", "HasWrappingGeoms", "TendonPaths", "MjcfTendonKinematics", "MjcfTendonRows"]


def TendonSupported(tendon) -> bool:
    """Whether the plant computes this tendon's length and moment: every fixed and spatial tendon (sites,
    pulleys, sphere / cylinder wrapping geoms)."""
    return tendon.kind == "fixed" or all(w.type in ("site", "pulley", "geom") for w in tendon.wraps)


def HasWrappingGeoms(tendon) -> bool:
    """Whether a spatial tendon wraps around geoms (MuJoCo computes no J̇ for those, so no tendon armature)."""
    return any(w.type == "geom" for w in tendon.wraps)


class TendonPaths:
    """The path arrays of a list of MJCF tendons (pm, tendon id), for the compiled kernels.

    Points are on plant bodies (body index, position in the body frame); wrapping geoms carry their radius,
    orientation in the body frame and side site.
    """

    def __init__(self, items: list):
        (self.ten_adr, self.ten_num, self.wtype, self.wbody, self.wpos, self.wrot, self.wprm, self.wqi, self.wvi,
         self.sbody, self.spos) = TendonPathArrays(items)
        self.nten = len(items)

    def CalcLengthsMoments(self, kin, ji: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lengths (nten) [m or rad] and moments ∂L/∂v (nten × nv) at the kinematics cache `kin` (ji: the
        compiled model's joint table)."""
        nv = kin.S.shape[0]
        L, J = np.empty(self.nten), np.empty((self.nten, nv))
        tendon_lengths_moments(self.ten_adr, self.ten_num, self.wtype, self.wbody, self.wpos, self.wrot, self.wprm,
                               self.wqi, self.wvi, self.sbody, self.spos, kin.R_WB, kin.p_WB, ji,
                               kin.S, kin.q, L, J)
        return L, J

    def CalcJdotV(self, kin, A: np.ndarray) -> np.ndarray:
        """J̇·v (nten) of tendons without wrapping geoms (0 for fixed ones); A: body bias accelerations (v̇ = 0)."""
        out = np.empty(self.nten)
        tendon_jdot_v(self.ten_adr, self.ten_num, self.wtype, self.wbody, self.wpos, self.wprm, kin.R_WB, kin.p_WB,
                      kin.V, A, out)
        return out


class MjcfTendonKinematics:
    """Length and moment of one MJCF tendon of a loaded model (pm: MjcfPlantMap)."""

    def __init__(self, pm, tendon_id: int, spring: bool = False, damper: bool = False):
        self.tendon = pm.model.tendons[tendon_id]
        self.pm, self.tendon_id = pm, tendon_id
        self.spring, self.damper = spring, damper
        self.paths = TendonPaths([(pm, tendon_id)])
        self._last = None  # (kinematics token, length, moment) of the last evaluation

    def _Calc(self, plant, context):
        kin = plant._eval_kinematics(context)
        last = self._last
        if last is not None and last[0] == kin.token:  # length and moment of one state: one kernel call
            return last[1], last[2]
        L, J = self.paths.CalcLengthsMoments(kin, plant._model.ji)
        self._last = (kin.token, float(L[0]), J[0])
        return self._last[1], self._last[2]

    def CalcLength(self, plant, context, q: np.ndarray) -> float:
        """Tendon length [m or rad] at the context's positions."""
        return self._Calc(plant, context)[0]

    def CalcMoment(self, plant, context) -> np.ndarray:
        """d length / d v (plant nv)."""
        return self._Calc(plant, context)[1]

    def CalcPassiveGeneralizedForces(self, plant, context, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """MuJoCo's tendon passive force mapped to the dofs: spring k·(l_lo − L) below / k·(l_hi − L) above the
        dead band lengthspring = [l_lo, l_hi] (zero inside), damper −b·V; τ = momentᵀ f."""
        L, moment = self._Calc(plant, context)
        f = 0.0
        if self.spring:
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
    regularizer scale is tendon_invweight0 = J M⁻¹ Jᵀ at qpos0. Lengths and moments of all these tendons come
    from one compiled call on the step's kinematics cache (`kin`).
    """

    def __init__(self, entries: list, paths: TendonPaths):
        # entry: dict(name, limited, lo, hi, margin, solreflimit, solimplimit, frictionloss, solreffriction,
        #             solimpfriction, invweight0); entry k is tendon k of `paths`
        self.entries = entries
        self.paths = paths
        self._last = None  # (kinematics, lengths, moments) of the last step

    @staticmethod
    def FromPlant(plant, ji: np.ndarray, M0: np.ndarray, kin0) -> "MjcfTendonRows | None":
        """The rows of every limited or frictional tendon of the MJCF models loaded into `plant`, or None."""
        entries, items = [], []
        for pm in plant._mjcf_maps:
            for t, ten in enumerate(pm.model.tendons):
                if not (ten.limited or ten.frictionloss > 0) or not TendonSupported(ten):
                    continue
                entries.append(dict(
                    name=ten.name or f"tendon{t}", limited=bool(ten.limited), lo=float(ten.range[0]),
                    hi=float(ten.range[1]), margin=max(float(ten.margin), 0.0), solreflimit=tuple(ten.solref_limit),
                    solimplimit=tuple(ten.solimp_limit), frictionloss=float(ten.frictionloss),
                    solreffriction=tuple(ten.solref_friction), solimpfriction=tuple(ten.solimp_friction),
                    invweight0=ten.invweight0))
                items.append((pm, t))
        if not entries:
            return None
        paths = TendonPaths(items)
        _, J0 = paths.CalcLengthsMoments(kin0, ji)
        for e, J in zip(entries, J0):
            iw = e["invweight0"]
            if iw is None:
                iw = float(J @ np.linalg.solve(M0, J)) if M0.shape[0] else 0.0
            e["invweight0"] = max(float(iw), 1e-15)
        return MjcfTendonRows(entries, paths)

    def _LengthsMoments(self, kin, ji: np.ndarray):
        """Lengths and moments of all the tendons with rows, once per step (cached on the kinematics object)."""
        cached = self._last
        if cached is not None and cached[0] == kin.token:
            return cached[1], cached[2]
        L, J = self.paths.CalcLengthsMoments(kin, ji)
        self._last = (kin.token, L, J)
        return L, J

    def AddFriction(self, asm, kin, ji) -> None:
        """Tendon dry-friction rows (after the dofs' rows, as MuJoCo orders them)."""
        _, J = self._LengthsMoments(kin, ji)
        for k, e in enumerate(self.entries):
            if e["frictionloss"] > 0:
                asm.AddFrictionLoss(J[k][None, :], e["frictionloss"], e["invweight0"], e["solreffriction"],
                                    e["solimpfriction"], name=e["name"], tendon=True)

    def AddLimits(self, asm, kin, ji) -> None:
        """Tendon limit rows for each side within `margin` of its range end (after the joints' limit rows)."""
        L, J = self._LengthsMoments(kin, ji)
        for k, e in enumerate(self.entries):
            if not e["limited"]:
                continue
            for dist, sign in ((L[k] - e["lo"], 1.0), (e["hi"] - L[k], -1.0)):
                if dist < e["margin"]:
                    asm.AddLimit(sign * J[k][None, :], dist, e["margin"], e["invweight0"], e["solreflimit"],
                                 e["solimplimit"], name=e["name"], tendon=True)
