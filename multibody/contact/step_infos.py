"""ContactResults infos of the compiled step (multibody/pipeline): the point contacts and hydroelastic surfaces of a
step (pipeline/step_contacts.py's arrays, read from its Data) turned into pydrake's PointPairContactInfo and
HydroelasticContactInfo values."""
from __future__ import annotations

import numpy as np

from ...geometry import PenetrationAsPointPair
from ...geometry.hydroelastic.contact_surface import MakeContactSurfaces
from ..math import SpatialForce
from ..pipeline.drake_contact import DK_DEPTH, DK_WA
from ..pipeline.step_contacts import step_contact_arrays
from .contact_results import HydroelasticContactInfo, PointPairContactInfo

__all__ = ["ContactInfosFromArrays", "ContactInfosFromData"]


def ContactInfosFromData(plant, d, ids: list, mujoco: bool) -> list:
    """ContactInfosFromArrays of the compiled step whose Data is `d`."""
    return ContactInfosFromArrays(plant, step_contact_arrays(d), ids, mujoco)


def ContactInfosFromArrays(plant, arrays: tuple, ids: list, mujoco: bool) -> list:
    """PointPairContactInfo (and HydroelasticContactInfo) of every contact of a compiled step (`arrays`:
    step_contacts.step_contact_arrays; force on B at the contact point); `ids` are the GeometryIds of the Model's
    geometry rows, `mujoco` whether the Model uses MuJoCo's contact (speeds at the step's starting v), else Drake's
    discrete approximations (speeds at v⁺)."""
    body, geom, dist, pos, frame, force, J, v, par, vel, surf_arrays, con_hyd = arrays[:12]
    out = []
    if dist.shape[0] == 0:
        return out
    if not mujoco:
        return _DrakeContactInfos(plant, par, vel, surf_arrays, con_hyd, ids, body, geom, pos, frame, force)
    vrel = J @ v  # (ncon, 3) [separation speed, slip components] in the contact frame
    for c in range(dist.shape[0]):
        f_W = frame[c].T @ force[c, :3]
        n, depth = frame[c, 0], -float(dist[c])  # n from A to B; the pair's points straddle pos
        pair = PenetrationAsPointPair(ids[int(geom[c, 0])], ids[int(geom[c, 1])], pos[c] + 0.5 * depth * n,
                                      pos[c] - 0.5 * depth * n, -n.copy(), depth)
        out.append(PointPairContactInfo(plant._bodies[int(body[c, 0])].index(), plant._bodies[int(body[c, 1])].index(),
                                        f_W, pos[c].copy(), float(vrel[c, 0]), float(np.hypot(vrel[c, 1], vrel[c, 2])),
                                        pair))
    return out


def _DrakeContactInfos(plant, par, vel, surf_arrays, con_hyd, ids, body, geom, pos, frame, force) -> list:
    """PointPairContactInfo of Drake's point contacts (DiscreteUpdateManager's results): A is the geometry of
    smaller id, the force is the one on B at p_WC, the speeds are those at the next step's velocities."""
    out = []
    for c in range(pos.shape[0]):
        if con_hyd.shape[0] == pos.shape[0] and con_hyd[c, 0] >= 0:
            continue
        n_AB = frame[c, 0]
        depth, wA = float(par[c, DK_DEPTH]), float(par[c, DK_WA])
        p_WCa = pos[c] + (1.0 - wA) * depth * n_AB
        p_WCb = pos[c] - wA * depth * n_AB
        pair = PenetrationAsPointPair(ids[int(geom[c, 0])], ids[int(geom[c, 1])], p_WCa, p_WCb, -n_AB.copy(),
                                      depth)
        out.append(PointPairContactInfo(plant._bodies[int(body[c, 0])].index(), plant._bodies[int(body[c, 1])].index(),
                                        frame[c].T @ force[c, :3], pos[c].copy(), float(vel[c, 0]),
                                        float(np.hypot(vel[c, 1], vel[c, 2])), pair))
    if surf_arrays[0].shape[0]:
        out += _HydroelasticContactInfos(plant, ids, surf_arrays, con_hyd, pos, frame, force)
    return out


def _HydroelasticContactInfos(plant, ids, surf_arrays, con_hyd, pos, frame, force) -> list:
    """HydroelasticContactInfo of each contact surface: F_Ac_W, the force on body A (M's) of the surface's
    quadrature points shifted to the surface's centroid (DiscreteUpdateManager's results)."""
    triangles = plant.get_contact_surface_representation().name == "kTriangle"
    surfaces = MakeContactSurfaces(surf_arrays, ids, triangles)
    F = np.zeros((len(surfaces), 6))
    for c in range(pos.shape[0]):
        s = int(con_hyd[c, 0])
        if s < 0:
            continue
        f_A = -(frame[c].T @ force[c, :3])
        F[s, 3:] += f_A
        F[s, :3] += np.cross(pos[c] - surfaces[s].centroid(), f_A)
    return [HydroelasticContactInfo(sf, SpatialForce(F[k, :3], F[k, 3:])) for k, sf in enumerate(surfaces)]
