"""The continuous plant's contact (time_step == 0): Drake's compliant point contact with Hunt–Crossley
dissipation and Stribeck friction, added through the plant's force-contributor hook.

Each penetrating pair (QueryObject.ComputePointPairPenetration) gets a normal force
k·x·(1 + d·ẋ) (clamped at 0) and a regularized friction force, with pair materials combined as
Drake does (spec/multibody_plant.md §4); the forces enter as generalized forces J'f.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..contact import CalcCompliantPointContactForces, GeneralizedContactForces, PointPairContactInfo
from ._contact_geometry import ContactGeometryTable
from ..kernels.contact_kernels import ContactJacobians


@dataclass
class PointContactState:
    """Point contacts of one evaluation: bodies, ids, contact points, forces on B and speeds."""
    body_A: np.ndarray
    body_B: np.ndarray
    pairs: list
    p_WC: np.ndarray
    f_Bc_W: np.ndarray
    separation_speed: np.ndarray
    slip_speed: np.ndarray
    tau: np.ndarray


class ContinuousContactModel:
    """callable(plant, context, kin, F_Bo_W, tau): adds point-contact generalized forces to tau in place."""

    def __init__(self, plant):
        self._plant = plant
        self.geometry = ContactGeometryTable(plant)

    def Calc(self, context, kin) -> PointContactState:
        plant = self._plant
        m = plant._model
        port = plant.get_geometry_query_input_port()
        empty = PointContactState(np.zeros(0, np.int64), np.zeros(0, np.int64), [], np.zeros((0, 3)),
                                  np.zeros((0, 3)), np.zeros(0), np.zeros(0), np.zeros(m.nv))
        if plant.num_collision_geometries() == 0 or not port.HasValue(context):
            return empty
        query = port.Eval(context)
        pairs = query.ComputePointPairPenetration()
        if not pairs:
            return empty
        inspector = query.inspector()
        self.geometry.Sync(inspector)
        n = len(pairs)
        rowsA = [self.geometry.ById(inspector, p.id_A) for p in pairs]
        rowsB = [self.geometry.ById(inspector, p.id_B) for p in pairs]
        par = np.array([self.geometry.DrakePairById(a, b) for a, b in zip(rowsA, rowsB)]).reshape(n, 5)
        bA = np.array([r.body for r in rowsA], np.int64)
        bB = np.array([r.body for r in rowsB], np.int64)
        p_WCa = np.array([p.p_WCa for p in pairs], float).reshape(n, 3)
        p_WCb = np.array([p.p_WCb for p in pairs], float).reshape(n, 3)
        nhat = np.array([p.nhat_BA_W for p in pairs], float).reshape(n, 3)
        depth = np.array([p.depth for p in pairs], float)
        p_WC = 0.5 * (p_WCa + p_WCb)
        eye = np.ascontiguousarray(np.broadcast_to(np.eye(3), (n, 3, 3)))
        J = np.ascontiguousarray(ContactJacobians(m.ji, kin.S, bA, bB, p_WC, eye)[:, :3, :])
        v_rel = J @ kin.v
        f_B, p_WC, _, slip, sep = CalcCompliantPointContactForces(
            p_WCa, p_WCb, nhat, depth, v_rel, par[:, 0].copy(), par[:, 1].copy(), par[:, 3].copy(),
            par[:, 4].copy(), float(plant.stiction_tolerance()))
        tau = GeneralizedContactForces(J, f_B)
        return PointContactState(bA, bB, pairs, p_WC, f_B, sep, slip, tau)

    def DescribePenetrations(self, context, count: int = 3) -> str | None:
        """The `count` deepest penetrations, `'body' (geometry 'g') into 'body' (geometry 'h') by 0.42 m`, for
        error messages (a plant started deep inside the ground makes the contact forces very stiff)."""
        plant = self._plant
        port = plant.get_geometry_query_input_port()
        if plant.num_collision_geometries() == 0 or not port.HasValue(context):
            return None
        query = port.Eval(context)
        pairs = sorted(query.ComputePointPairPenetration(), key=lambda p: -p.depth)[:count]
        if not pairs:
            return None
        inspector = query.inspector()
        self.geometry.Sync(inspector)

        def name(gid) -> str:
            body = plant._bodies[self.geometry.ById(inspector, gid).body]
            return f"'{body.name()}' (geometry '{inspector.GetName(gid)}')"

        return "deepest contact penetrations: " + ", ".join(
            f"{name(p.id_A)} and {name(p.id_B)} by {p.depth:.3g} m" for p in pairs)

    def __call__(self, plant, context, kin, F_Bo_W, tau) -> None:
        tau += self.Calc(context, kin).tau

    def ContactInfos(self, context, kin) -> list[PointPairContactInfo]:
        plant = self._plant
        st = self.Calc(context, kin)
        return [PointPairContactInfo(plant._bodies[int(st.body_A[c])].index(), plant._bodies[int(st.body_B[c])].index(),
                                     st.f_Bc_W[c], st.p_WC[c], float(st.separation_speed[c]),
                                     float(st.slip_speed[c]), st.pairs[c]) for c in range(len(st.pairs))]
