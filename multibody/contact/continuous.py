"""The continuous plant's contact (time_step == 0): Drake's compliant point contact with Hunt–Crossley
dissipation and Stribeck friction, added through the plant's force-contributor hook.

Each penetrating pair (QueryObject.ComputePointPairPenetration) gets a normal force
k·x·(1 + d·ẋ) (clamped at 0) and a regularized friction force, with pair materials combined as
Drake does (spec/multibody_plant.md §4); the forces enter as generalized forces J'f.

Under kHydroelastic / kHydroelasticWithFallback the pairs with a contact surface get Drake's hydroelastic
tractions instead (contact/hydroelastic_traction.py; Hunt–Crossley dissipation combined over the moduli, the
dynamic friction combined), as spatial forces at the body origins; the other penetrating pairs keep point contact
(kHydroelastic raises for them, as Drake's ComputeContactSurfaces).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mallard.systems.framework.portable import PortableAttributes
from mallard.systems.framework.weak_owner import WeakAttribute

from . import CalcCompliantPointContactForces, GeneralizedContactForces, PointPairContactInfo
from .contact_results import HydroelasticContactInfo
from .hydroelastic_traction import HydroelasticSurfaceForces, ShiftToBodyOrigins
from .point_contact import CombineFrictionCoefficients
from ...geometry.hydroelastic.contact_surface import MakeContactSurfaces
from ..math import SpatialForce
from .geometry_table import ContactGeometryTable
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
    hydro: "HydroState | None" = None


@dataclass
class HydroState:
    """Contact surfaces of one evaluation: contact_surfaces()'s arrays, the proximity ids their rows index, the
    bodies of M and N per surface, and each surface's resultant on A at its centroid."""
    arrays: tuple
    ids: list
    body_A: np.ndarray
    body_B: np.ndarray
    F_Ac_W: np.ndarray
    p_WC: np.ndarray


class ContinuousContactModel(PortableAttributes):
    """callable(plant, context, kin, F_Bo_W, tau): adds point-contact generalized forces to tau in place."""

    _plant = WeakAttribute()  # its plant holds it: no reference cycle (systems/framework/weak_owner.py)

    def __init__(self, plant):
        self._plant = plant
        self.geometry = ContactGeometryTable(plant)
        self._surface_version, self._surface_params = None, {}  # (M row, N row) → (body M, body N, d, μ)

    def Calc(self, context, kin) -> PointContactState:
        plant = self._plant
        m = plant._model
        port = plant.get_geometry_query_input_port()
        empty = PointContactState(np.zeros(0, np.int64), np.zeros(0, np.int64), [], np.zeros((0, 3)),
                                  np.zeros((0, 3)), np.zeros(0), np.zeros(0), np.zeros(m.nv))
        if plant.num_collision_geometries() == 0 or not port.HasValue(context):
            return empty
        query = port.Eval(context)
        inspector = query.inspector()
        hydro = None
        model = plant.get_contact_model().name
        if model == "kPoint" or (model == "kHydroelasticWithFallback"
                                 and query._prox_poses()[1].hydroelastic().pairs.shape[0] == 0):
            pairs = query.ComputePointPairPenetration()
        else:
            self.geometry.Sync(inspector)
            hydro, pairs = self._Hydro(query, inspector, kin)
        if not pairs:
            empty.hydro = hydro
            return empty
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
        return PointContactState(bA, bB, pairs, p_WC, f_B, sep, slip, tau, hydro)

    def _Hydro(self, query, inspector, kin) -> tuple["HydroState", list]:
        """(the contact surfaces and their forces, the point pairs of the penetrating pairs without a surface)."""
        plant = self._plant
        strict = plant.get_contact_model().name == "kHydroelastic"
        triangles = plant.get_contact_surface_representation().name == "kTriangle"
        who = "ComputeContactSurfaces" if strict else "ComputeContactSurfacesWithFallback"
        arrays, points = query._surface_arrays(triangles, who, fallback=not strict)
        ids = query._prox_poses()[1].proximity_ids
        surf, sface, V, vp, fi, fs, fn, fc, fa, fp = arrays[:10]
        ns = surf.shape[0]
        bA, bB = np.zeros(ns, np.int64), np.zeros(ns, np.int64)
        d, mu = np.zeros(ns), np.zeros(ns)
        for s in range(ns):
            bA[s], bB[s], d[s], mu[s] = self._SurfaceParams(inspector, ids, (int(surf[s, 0]), int(surf[s, 1])))
        F, C = HydroelasticSurfaceForces(sface, V, vp, fi, fs, fn, fc, fa, fp, bA, bB, kin.V, d, mu,
                                         float(plant.stiction_tolerance()), triangles)
        return HydroState(arrays, ids, bA, bB, F, C), points

    def _SurfaceParams(self, inspector, ids, key: tuple) -> tuple:
        """(body of M, body of N, combined dissipation, dynamic friction) of the surface between the proximity rows
        key = (M, N), cached per geometry version."""
        version = inspector.geometry_version()
        if self._surface_version != version:  # the pairs' bodies and materials, per geometry version
            self._surface_version, self._surface_params = version, {}
        got = self._surface_params.get(key)
        if got is None:
            gM, gN = ids[key[0]], ids[key[1]]
            rM, rN = self.geometry.ById(inspector, gM), self.geometry.ById(inspector, gN)
            got = self._surface_params[key] = (rM.body, rN.body, self._CombinedDissipation(inspector, gM, gN),
                                               CombineFrictionCoefficients(rM.mu_dynamic, rN.mu_dynamic))
        return got

    def _CombinedDissipation(self, inspector, gM, gN) -> float:
        """Drake's HydroelasticEngine::CalcCombinedDissipation: (E*/E_M)·d_M + (E*/E_N)·d_N, E* the combined
        modulus (rigid: E = ∞), or the mean when both are rigid; d = ('material', 'hunt_crossley_dissipation'), 0
        when unset."""
        E, dd = [], []
        default_d = self._plant._scene_graph.get_config().default_proximity_properties.hunt_crossley_dissipation \
            if self._plant._scene_graph is not None else None
        for g in (gM, gN):
            props = inspector.GetProximityProperties(g)
            rigid = props.GetPropertyOrDefault("hydroelastic", "compliance_type", "undefined") == "rigid"
            E.append(np.inf if rigid else float(props.GetPropertyOrDefault("hydroelastic", "hydroelastic_modulus",
                                                                           np.inf)))
            dd.append(float(props.GetPropertyOrDefault("material", "hunt_crossley_dissipation",
                                                       0.0 if default_d is None else default_d)))
        if np.isinf(E[0]) and np.isinf(E[1]):
            return 0.5 * (dd[0] + dd[1])
        Es = E[1] if np.isinf(E[0]) else E[0] if np.isinf(E[1]) else E[0] * E[1] / (E[0] + E[1])
        return sum(Es / e * x for e, x in zip(E, dd) if not np.isinf(e))

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
        st = self.Calc(context, kin)
        tau += st.tau
        if st.hydro is not None:
            h = st.hydro
            ShiftToBodyOrigins(h.F_Ac_W, h.p_WC, h.body_A, h.body_B, kin.p_WB, F_Bo_W)

    def ContactInfos(self, context, kin) -> list[PointPairContactInfo]:
        plant = self._plant
        st = self.Calc(context, kin)
        out = [PointPairContactInfo(plant._bodies[int(st.body_A[c])].index(), plant._bodies[int(st.body_B[c])].index(),
                                    st.f_Bc_W[c], st.p_WC[c], float(st.separation_speed[c]),
                                    float(st.slip_speed[c]), st.pairs[c]) for c in range(len(st.pairs))]
        if st.hydro is not None:
            h = st.hydro
            triangles = plant.get_contact_surface_representation().name == "kTriangle"
            surfaces = MakeContactSurfaces(h.arrays, h.ids, triangles)
            out += [HydroelasticContactInfo(sf, SpatialForce(h.F_Ac_W[k, :3], h.F_Ac_W[k, 3:]))
                    for k, sf in enumerate(surfaces)]
        return out
