"""MJCF tendon kinematics on the plant: length and moment arm (d length / d v) of fixed and spatial tendons.

Fixed tendon: L = Σ coef·q over hinge/slide joints; constant moment row. Spatial tendon made of sites and
pulleys (straight segments, no geom wrapping): L = Σ over branches of (Σ |p_k+1 − p_k|) / divisor, where a
pulley starts a new branch with its divisor; moment = Σ u_kᵀ (J_k+1 − J_k) / divisor with u_k the unit
segment direction and J the sites' translational Jacobians (plant velocity coordinates).
"""
from __future__ import annotations

import numpy as np

__all__ = ["TendonSupported", "MjcfTendonKinematics"]


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
