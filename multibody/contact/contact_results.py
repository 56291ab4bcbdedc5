"""ContactResults and PointPairContactInfo (pydrake's value classes), and the per-contact force kernel.

`ContactForces` turns solved row forces back into a force per contact in its contact frame
(normal, tangent1, tangent2, spin, roll1, roll2), as MuJoCo's mj_contactForce does: pyramid edge
forces sum to the normal force and their differences, times mu, give the friction.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .parameters import CONTACT_PYRAMIDAL


@njit(cache=True)
def ContactForces(efc_force, efc_type, con_efc_address, con_dim, con_friction):
    """(ncon, 6) contact-frame force of each contact on body B (N, N m); unused entries are 0."""
    out = np.zeros((con_dim.shape[0], 6))
    ContactForcesInto(efc_force, efc_type, con_efc_address, con_dim, con_friction, out)
    return out


@njit(cache=True, _nrt=False)
def ContactForcesInto(efc_force, efc_type, con_efc_address, con_dim, con_friction, out):
    """ContactForces into out (ncon × 6, zero on entry: the entries a contact does not use are left)."""
    for c in range(con_dim.shape[0]):
        adr = con_efc_address[c]
        dim = con_dim[c]
        if adr < 0:
            continue
        if dim > 1 and efc_type[adr] == CONTACT_PYRAMIDAL:
            for k in range(dim - 1):
                fp = efc_force[adr + 2 * k]
                fm = efc_force[adr + 2 * k + 1]
                out[c, 0] += fp + fm
                out[c, k + 1] = con_friction[c, k] * (fp - fm)
        else:
            for k in range(dim):
                out[c, k] = efc_force[adr + k]


@njit(cache=True)
def ContactForcesInWorld(f_contact, R_WC):
    """Force (nc, 3) and moment (nc, 3) in world of contact-frame forces; R_WC[c] has columns
    (normal, tangent1, tangent2) expressed in W (MuJoCo's contact frame is R_WC transposed)."""
    nc = f_contact.shape[0]
    f_W = np.zeros((nc, 3))
    m_W = np.zeros((nc, 3))
    for c in range(nc):
        f_W[c] = R_WC[c] @ f_contact[c, :3]
        m_W[c] = R_WC[c] @ f_contact[c, 3:]
    return f_W, m_W


class PointPairContactInfo:
    """One point contact between bodies A and B (pydrake's PointPairContactInfo).

    f_Bc_W: force on body B at the contact point C, world frame (N); p_WC: contact point (m);
    separation_speed (m/s, > 0 when the bodies separate); slip_speed (m/s, >= 0); point_pair:
    the geometry query's penetration pair.
    """

    def __init__(self, bodyA_index: Any, bodyB_index: Any, f_Bc_W, p_WC, separation_speed: float,
                 slip_speed: float, point_pair: Any):
        self._bodyA = bodyA_index
        self._bodyB = bodyB_index
        self._f = np.array(f_Bc_W, dtype=np.float64).reshape(3)
        self._p = np.array(p_WC, dtype=np.float64).reshape(3)
        self._sep = float(separation_speed)
        self._slip = float(slip_speed)
        if self._slip < 0:
            raise ValueError(f"PointPairContactInfo: slip_speed must be >= 0, got {slip_speed}")
        self._pair = point_pair

    def bodyA_index(self):
        return self._bodyA

    def bodyB_index(self):
        return self._bodyB

    def contact_force(self) -> np.ndarray:
        """Force on body B at the contact point, expressed in W (a copy)."""
        return self._f.copy()

    def contact_point(self) -> np.ndarray:
        """Contact point C in W (a copy)."""
        return self._p.copy()

    def separation_speed(self) -> float:
        return self._sep

    def slip_speed(self) -> float:
        return self._slip

    def point_pair(self):
        return self._pair

    def __repr__(self) -> str:
        return (f"PointPairContactInfo(bodyA={self._bodyA}, bodyB={self._bodyB}, "
                f"f_Bc_W={self._f.tolist()}, p_WC={self._p.tolist()})")


class HydroelasticContactInfo:
    """One hydroelastic contact (pydrake's HydroelasticContactInfo): its ContactSurface and F_Ac_W, the spatial
    force on body A (the body of the surface's geometry M) at the surface's centroid C, expressed in World."""

    def __init__(self, contact_surface: Any, F_Ac_W: Any):
        self._surface = contact_surface
        self._F = F_Ac_W

    def contact_surface(self):
        return self._surface

    def F_Ac_W(self):
        return self._F

    def __repr__(self) -> str:
        return f"HydroelasticContactInfo({self._surface!r}, F_Ac_W={self._F!r})"


class ContactResults:
    """All contacts of one evaluation (pydrake's ContactResults): point pairs and hydroelastic contacts."""

    def __init__(self):
        self._point_pairs: list[PointPairContactInfo] = []
        self._hydro: list[HydroelasticContactInfo] = []
        self._plant = None

    def num_point_pair_contacts(self) -> int:
        return len(self._point_pairs)

    def point_pair_contact_info(self, i: int) -> PointPairContactInfo:
        n = len(self._point_pairs)
        if not 0 <= int(i) < n:
            raise IndexError(f"ContactResults.point_pair_contact_info: index {i} out of range; "
                             f"there are {n} point-pair contacts")
        return self._point_pairs[int(i)]

    def num_hydroelastic_contacts(self) -> int:
        return len(self._hydro)

    def hydroelastic_contact_info(self, i: int) -> HydroelasticContactInfo:
        n = len(self._hydro)
        if not 0 <= int(i) < n:
            raise IndexError(f"ContactResults.hydroelastic_contact_info: index {i} out of range; there are {n} "
                             "hydroelastic contacts")
        return self._hydro[int(i)]

    def SelectHydroelastic(self, selector) -> "ContactResults":
        """A copy keeping the hydroelastic contacts `selector(info)` accepts and every point pair."""
        out = ContactResults()
        out._point_pairs = list(self._point_pairs)
        out._hydro = [h for h in self._hydro if selector(h)]
        out._plant = self._plant
        return out

    def num_deformable_contacts(self) -> int:
        return 0

    def plant(self):
        """The plant that produced these results (None until set by the plant)."""
        return self._plant

    def set_plant(self, plant) -> None:
        self._plant = plant

    def AddContactInfo(self, info) -> None:
        """Append one point-pair or hydroelastic result (used by the plant when it fills its output port)."""
        if isinstance(info, HydroelasticContactInfo):
            self._hydro.append(info)
            return
        if not isinstance(info, PointPairContactInfo):
            raise TypeError(f"ContactResults.AddContactInfo expects a PointPairContactInfo or HydroelasticContactInfo, "
                            f"got {type(info).__name__}")
        self._point_pairs.append(info)

    def Clear(self) -> None:
        self._point_pairs.clear()
        self._hydro.clear()

    def __repr__(self) -> str:
        return f"ContactResults(num_point_pair_contacts={len(self._point_pairs)})"
