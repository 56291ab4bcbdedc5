"""MJCF sensors that need the dynamics of the step starting at a state: force / torque (MuJoCo's cfrc_int, the
interaction wrench between a site's body and its parent) and subtreeangmom.

As MuJoCo's mj_rnePostConstraint, each body's wrench is Iw·(A − A_g) + V ×* Iw·V − F_ext at Wo in W, with
A the body's spatial acceleration from the step's v̇ (contact and constraint forces included), A_g = [0; g]
(the world accelerating by −g), and F_ext the external wrenches: contact forces (on geom 2's body, opposite
on geom 1's), connect / weld constraint forces at MuJoCo's anchor points, applied spatial forces, and (as
MuJoCo 4) the pull of spatial tendons at their path points: the tendon force T (actuators, spring / damper,
limit and friction rows) along each straight segment (sites and wrapping-geom tangent points), divided by its
pulley divisor. Other passive and actuator forces
are generalized forces and stay inside the bodies, as in MuJoCo. Summing over the MJCF
subtree gives the wrench the parent exerts on the subtree.
"""
from __future__ import annotations

import numpy as np

from ..kernels import pipeline as pl
from ..kernels.tendon_kernels import W_CYLINDER, W_PULLEY, W_SPHERE, wrap_geom
from .tendons import TendonPaths, TendonSupported

__all__ = ["StepDynamics", "CalcInteractionWrenches", "SensorWrench", "SubtreeAngularMomentum"]


def _spatial_at_Wo(p: np.ndarray, tau: np.ndarray, f: np.ndarray) -> np.ndarray:
    """[τ + p × f; f]: a wrench (τ about p, force f) moved to the world origin."""
    return np.concatenate([tau + np.cross(p, f), f])


class StepDynamics:
    """v̇ and the per-body external wrenches (nb × 6, at Wo in W) of the step starting at one context.

    For a discrete plant v̇ is MuJoCo's qacc of that step: joint damping explicit (see below)."""

    def __init__(self, plant, context):
        m = plant._model
        self.kin = kin = plant._eval_kinematics(context)
        F_ext = np.zeros((m.nb, 6))
        _tau, F_in = plant._EvalAppliedForces(context, kin)
        for b in np.flatnonzero(np.any(F_in != 0, axis=1)):
            F_ext[b] += _spatial_at_Wo(kin.p_WB[b], F_in[b, :3], F_in[b, 3:])
        self.solution = None
        if plant.time_step() > 0:
            if getattr(plant, "_contact_solver", None) is not None and plant._discrete_solver is not None:
                plant._contact_capture = []
                try:
                    _x, vdot = plant._CalcDiscreteStep(context)[:2]
                    self.solution = plant._contact_capture[-1] if plant._contact_capture else None
                finally:
                    plant._contact_capture = None
            else:
                vdot = plant._CalcDiscreteStep(context)[1]
        else:
            vdot = plant.get_generalized_acceleration_output_port().Eval(context)
            if plant._force_contributors:  # continuous contact: body forces at Bo in W
                F_c, tau_c = np.zeros((m.nb, 6)), np.zeros(m.nv)
                for fn in plant._force_contributors:
                    fn(plant, context, kin, F_c, tau_c)
                for b in np.flatnonzero(np.any(F_c != 0, axis=1)):
                    F_ext[b] += _spatial_at_Wo(kin.p_WB[b], F_c[b, :3], F_c[b, 3:])
        self.vdot = np.asarray(vdot, float)
        if plant.time_step() > 0 and np.any(m.damping):
            # the step treats joint damping implicitly, (M + hD)·v̇ = τ + Jᵀf; MuJoCo's qacc (what its sensors
            # see) is the explicit M·a = τ + Jᵀf with the same τ and f, so a = v̇ + h·M⁻¹·D·v̇
            M = plant.CalcMassMatrix(context)
            self.vdot = self.vdot + plant.time_step() * np.linalg.solve(M, m.damping * self.vdot)
        if self.solution is not None:
            self._AddContacts(F_ext)
        self.F_ext = F_ext
        self._equalities_added = False

    def _AddContacts(self, F_ext: np.ndarray) -> None:
        sol = self.solution
        cs = sol.contacts
        for c in range(cs.size):
            R = cs.frame_W[c]  # rows: normal, tangent 1, tangent 2
            F = _spatial_at_Wo(cs.pos_W[c], R.T @ sol.f_contact[c, 3:6], R.T @ sol.f_contact[c, :3])
            F_ext[int(cs.body_B[c])] += F
            F_ext[int(cs.body_A[c])] -= F

    def AddEqualityForces(self, plant, pm) -> None:
        """Connect / weld forces of MJCF model `pm`'s equalities, at MuJoCo's anchor points (once per model)."""
        sol = self.solution
        if sol is None or sol.result is None:
            return
        rows = plant._contact_solver.rows
        sizes = {"connect": 3, "weld": 6}  # other equalities (coupler, distance, ...) are one row
        start, adr = {}, 0
        for k, e in enumerate(rows.equalities):
            start[k] = adr
            adr += sizes.get(e["kind"], 1)
        if adr != sol.problem.ne:  # rows not laid out as the plant's equalities: nothing reliable to add
            return
        f = sol.result.efc_force
        kin, model = self.kin, pm.model
        for i, eq in enumerate(model.equalities):
            k = pm.constraints[i] if i < len(pm.constraints) else None
            if k is None or eq.type not in ("connect", "weld"):
                continue
            k = int(k)
            e = rows.equalities[k]
            a = start[k]
            force = f[a:a + 3]
            torque = f[a + 3:a + 6] if e["kind"] == "weld" else np.zeros(3)
            d = np.asarray(eq.data, float)
            for side, sign in ((0, 1.0), (1, -1.0)):
                obj = eq.obj1 if side == 0 else eq.obj2
                if eq.objtype == "site":
                    body_mj, offset = model.sites[obj].body, np.asarray(model.sites[obj].pos, float)
                else:
                    body_mj = max(int(obj), 0)
                    first = (eq.type == "weld") if side == 0 else (eq.type == "connect")
                    offset = d[3:6] if first else d[0:3]
                if body_mj == 0:
                    continue
                b = int(pm.bodies[body_mj].index())
                p = kin.p_WB[b] + kin.R_WB[b] @ offset
                self.F_ext[b] += sign * _spatial_at_Wo(p, torque, force)


def _segments(paths, kin):
    """Straight segments (plant body a, p_Wa, plant body b, p_Wb, divisor) of one spatial tendon's path (a
    TendonPaths of one tendon), wrapping geoms inserting their tangent points (on the geom's body), as
    MuJoCo's mj_tendon walks it."""
    adr, num = int(paths.ten_adr[0]), int(paths.ten_num[0])
    wtype, wbody, wpos = paths.wtype, paths.wbody, paths.wpos

    def point(e):
        b = int(wbody[e])
        return b, kin.p_WB[b] + kin.R_WB[b] @ wpos[e]

    out, divisor, j = [], 1.0, 0
    while j < num - 1:
        e0, e1 = adr + j, adr + j + 1
        if wtype[e0] == W_PULLEY or wtype[e1] == W_PULLEY:
            if wtype[e0] == W_PULLEY:
                divisor = float(paths.wprm[e0])
            j += 1
            continue
        b0, p0 = point(e0)
        if wtype[e1] in (W_SPHERE, W_CYLINDER):
            g, e1 = e1, adr + j + 2
            b1, p1 = point(e1)
            gb, p_WG = point(g)
            R_WG = kin.R_WB[gb] @ paths.wrot[g]
            has_side = paths.sbody[g] >= 0
            sb = int(paths.sbody[g])
            p_side = kin.p_WB[sb] + kin.R_WB[sb] @ paths.spos[g] if has_side else p_WG
            w = np.empty((2, 3))
            if wrap_geom(p0, p1, p_WG, R_WG, float(paths.wprm[g]), bool(wtype[g] == W_CYLINDER), p_side,
                         bool(has_side), w) >= 0:
                out += [(b0, p0, gb, w[0].copy(), divisor), (gb, w[1].copy(), b1, p1, divisor)]
            else:
                out.append((b0, p0, b1, p1, divisor))
            j += 2
            continue
        b1, p1 = point(e1)
        out.append((b0, p0, b1, p1, divisor))
        j += 1
    return out


def AddSpatialTendonForces(plant, pm, k: int, dyn: StepDynamics, actuator_forces: np.ndarray) -> None:
    """Add the pull of `pm`'s spatial tendons at their path points to dyn.F_ext (`actuator_forces`: every MJCF
    actuator's force; k: pm's index among the plant's MJCF models)."""
    model = pm.model
    spatial = [t for t, ten in enumerate(model.tendons) if ten.kind != "fixed"]
    if not spatial:
        return
    kin = dyn.kin
    act = plant._mjcf_actuation
    start = act.u_slices[k].start
    flags = model.option.flags
    sol = dyn.solution
    eq_T: dict = {}  # tendon equality forces along this model's tendons (f on tendon1, -P'(x)·f on tendon2)
    if sol is not None and sol.result is not None and sol.problem.ne:
        rows = plant._contact_solver.rows
        for pm_e, t_e, f_e in rows.TendonEqualityForces(kin, plant._model.ji, sol.result.efc_force[:sol.problem.ne]):
            if pm_e is pm:
                eq_T[t_e] = eq_T.get(t_e, 0.0) + f_e
    for t in spatial:
        ten = model.tendons[t]
        if not TendonSupported(ten):
            continue
        memo = plant.__dict__.setdefault("_mjcf_sensor_tendon_paths", {})  # built once per plant and tendon
        paths = memo.get((k, t))
        if paths is None:
            paths = memo[(k, t)] = TendonPaths([(pm, t)])
        T = eq_T.get(t, 0.0)
        out = start  # output row of each actuator (MuJoCo 4's actuator_outadr: an so3 servo has 3)
        for a in model.actuators:
            if a.trntype == "tendon" and a.trnid[0] == t:
                T += float(a.gear[0]) * float(actuator_forces[out])
            out += getattr(a, "outnum", 1)
        L, J = paths.CalcLengthsMoments(kin, plant._model.ji)
        L, J = float(L[0]), J[0]
        if ten.stiffness and flags.get("spring", True):
            lo, hi = (float(x) for x in ten.lengthspring)
            T += ten.stiffness * (lo - L) if L < lo else ten.stiffness * (hi - L) if L > hi else 0.0
        if ten.damping and flags.get("damper", True):
            T -= ten.damping * float(J @ kin.v)
        if sol is not None and sol.result is not None and (ten.limited or ten.frictionloss > 0):
            name, JJ = ten.name or f"tendon{t}", float(J @ J)
            pr = sol.problem
            names = pr.names
            for r in range(pr.ne, pr.ne + pr.nf + pr.nl):  # friction and limit rows
                if names[r] == name and JJ > 0:
                    sign = float(sol.problem.J[r] @ J) / JJ
                    if abs(abs(sign) - 1.0) < 1e-9:
                        T += sign * float(sol.result.efc_force[r])
        if T == 0.0:
            continue
        for ia, p_a, ib, p_b, divisor in _segments(paths, kin):
            d = p_b - p_a
            n = float(np.linalg.norm(d))
            if ia == ib or n < 1e-15:
                continue
            f = (T / divisor / n) * d
            dyn.F_ext[ib] += _spatial_at_Wo(p_b, np.zeros(3), f)
            dyn.F_ext[ia] -= _spatial_at_Wo(p_a, np.zeros(3), f)


def CalcInteractionWrenches(plant, pm, dyn: StepDynamics) -> np.ndarray:
    """cfrc_int of every MJCF body of `pm` (nbody × 6, [torque; force] at Wo in W): the wrench its parent exerts
    on its subtree."""
    m = plant._model
    kin = dyn.kin
    A = pl.spatial_accelerations_stage(m.order, m.ji, kin.S, kin.c, dyn.vdot)
    g = plant.gravity_field().gravity_vector()
    model = pm.model
    out = np.zeros((model.nbody, 6))
    for bm in range(1, model.nbody):
        b = int(pm.bodies[bm].index())
        A_b = A[b].copy()
        A_b[3:] -= g
        I, V = kin.Iw[b], kin.V[b]
        h = I @ V
        f = I @ A_b
        f[:3] += np.cross(V[:3], h[:3]) + np.cross(V[3:], h[3:])
        f[3:] += np.cross(V[:3], h[3:])
        out[bm] = f - dyn.F_ext[b]
    for bm in range(model.nbody - 1, 0, -1):  # children after parents in MuJoCo's body order
        parent = model.bodies[bm].parent
        if parent > 0:
            out[parent] += out[bm]
    return out


def SensorWrench(pm, cfrc_int: np.ndarray, frames, site: int, torque: bool) -> np.ndarray:
    """force / torque sensor: the site body's cfrc_int about the site, in the site frame."""
    R_WS, p_WS, _w, _v = frames.get("site", site)
    F = cfrc_int[pm.model.sites[site].body]
    if torque:
        return R_WS.T @ (F[:3] - np.cross(p_WS, F[3:]))
    return R_WS.T @ F[3:]


def SubtreeAngularMomentum(plant, pm, context, root: int, subtree: list) -> np.ndarray:
    """Angular momentum of the MJCF subtree of body `root` about its center of mass, in W [kg·m²/s]."""
    kin = plant._eval_kinematics(context)
    h = np.zeros(6)
    mass, mc = 0.0, np.zeros(3)
    for bm in subtree:
        if bm == 0:
            continue
        b = int(pm.bodies[bm].index())
        h += kin.Iw[b] @ kin.V[b]
        mb = float(kin.bp[b, 0])
        if mb > 0:
            mass += mb
            mc += mb * (kin.p_WB[b] + kin.R_WB[b] @ kin.bp[b, 1:4])
    if mass <= 0:
        return np.zeros(3)
    return h[:3] - np.cross(mc / mass, h[3:])


def _static_bodies(model) -> np.ndarray:
    """MuJoCo bodies without a dof between them and the world (static or mocap)."""
    static = np.zeros(model.nbody, dtype=bool)
    static[0] = True
    for b in range(1, model.nbody):
        body = model.bodies[b]
        static[b] = static[body.parent] and body.jntnum == 0
    return static


def FrameAcceleration(plant, pm, dyn: StepDynamics, frames, objtype: str, objid: int, angular: bool,
                      cache: dict) -> np.ndarray:
    """framelinacc / frameangacc: the object frame origin's acceleration minus g, or the body's angular
    acceleration, in W (MuJoCo's mj_objectAcceleration; 0 on bodies fixed to the world)."""
    model = pm.model
    if "static" not in cache:
        m = plant._model
        cache["static"] = _static_bodies(model)
        cache["A_Wo"] = pl.spatial_accelerations_stage(m.order, m.ji, dyn.kin.S, dyn.kin.c, dyn.vdot)
    if objtype in ("body", "xbody"):
        body_mj = objid
    else:
        body_mj = (model.sites[objid] if objtype == "site" else model.geoms[objid]).body
    if cache["static"][body_mj]:
        return np.zeros(3)
    b = int(pm.bodies[body_mj].index())
    A, V = cache["A_Wo"][b], dyn.kin.V[b]
    if angular:
        return A[:3].copy()
    _R, p, _w, _v = frames.get(objtype, objid)
    v_p = V[3:] + np.cross(V[:3], p)
    return A[3:] + np.cross(A[:3], p) + np.cross(V[:3], v_p) - plant.gravity_field().gravity_vector()
