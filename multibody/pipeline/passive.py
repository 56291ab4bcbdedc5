"""Passive forces of the discrete step: joint springs τ = −k·(q − q₀) on single-dof joints (Drake's RevoluteSpring
and PrismaticSpring, MJCF hinge / slide `stiffness`), explicit joint damping τ = −d·v (MJCF Euler with
`eulerdamp` disabled, ExplicitJointDamping), the MJCF tendons' springs and dampers (MuJoCo's mj_springdamper:
f = −k·x − b·V along the tendon, x the length beyond the dead band lengthspring, τ = Jᵀ f; the parameters are in
m.ten, the lengths in d.ten_*) and fluid forces (fluid.py). The joints' own damping is implicit in M̂ (smooth.py)."""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..tree.explicit_damping import ExplicitJointDamping
from ..tree.fluid_forces import FluidForces
from ..tree.force_element import PrismaticSpring, RevoluteSpring
from .fluid import fluid
from .structs import F1, I1, declare, floats, ints


@structref.register
class PassiveModelType(types.StructRef):
    """numba type of PassiveModel."""


class PassiveModel(structref.StructRefProxy):
    """Joint springs, one row each: q index, v index, nominal position q₀ [rad, m], stiffness k [N m/rad, N/m];
    explicit dampers, one row per dof: v index, damping d [N m s/rad, N s/m]."""


PASSIVE_MODEL = declare(PassiveModelType, PassiveModel, [
    ("spring_q", I1), ("spring_v", I1), ("spring_q0", F1), ("spring_k", F1),
    ("damper_v", I1), ("damper_d", F1),
])


@njit(cache=True)
def new_passive_model(spring_q, spring_v, spring_q0, spring_k, damper_v, damper_d):
    p = structref.new(PASSIVE_MODEL)
    p.spring_q, p.spring_v, p.spring_q0, p.spring_k = spring_q, spring_v, spring_q0, spring_k
    p.damper_v, p.damper_d = damper_v, damper_d
    return p


#: The force element types this stage computes (the plant's other force elements are not compiled).
COMPILED_FORCE_ELEMENTS = (RevoluteSpring, PrismaticSpring, FluidForces, ExplicitJointDamping)


def CompilePassive(plant) -> PassiveModel:
    """The joint springs and explicit dampers among the plant's force elements, in registration order."""
    springs = [fe for fe in plant._force_elements[1:] if isinstance(fe, (RevoluteSpring, PrismaticSpring))]
    dampers = [fe.dofs_and_damping() for fe in plant._force_elements[1:] if isinstance(fe, ExplicitJointDamping)]
    q0 = [fe.nominal_angle() if isinstance(fe, RevoluteSpring) else fe.nominal_position() for fe in springs]
    return new_passive_model(ints([fe.joint().position_start() for fe in springs]),
                             ints([fe.joint().velocity_start() for fe in springs]), floats(q0),
                             floats([fe.stiffness() for fe in springs]),
                             ints(np.concatenate([d[0] for d in dampers]) if dampers else []),
                             floats(np.concatenate([d[1] for d in dampers]) if dampers else []))


@njit(cache=True)
def passive(m, d):
    """Add the joint springs', the explicit joint dampers' and the tendons' spring / damper torques and forces to
    d.tau and the fluid wrenches to d.F."""
    p = m.passive
    tau, q, v = d.tau, d.q, d.v
    for i in range(p.spring_q.shape[0]):
        tau[p.spring_v[i]] -= p.spring_k[i] * (q[p.spring_q[i]] - p.spring_q0[i])
    for i in range(p.damper_v.shape[0]):
        tau[p.damper_v[i]] -= p.damper_d[i] * v[p.damper_v[i]]
    ten = m.ten
    for t in range(ten.stiffness.shape[0]):
        k, b = ten.stiffness[t], ten.damping[t]
        if k == 0.0 and b == 0.0:
            continue
        L, f = d.ten_length[t], 0.0
        if k != 0.0:
            lo, hi = ten.lengthspring[t, 0], ten.lengthspring[t, 1]
            if L < lo:
                f += k * (lo - L)
            elif L > hi:
                f += k * (hi - L)
        if b != 0.0:
            f -= b * d.ten_velocity[t]
        for i in range(tau.shape[0]):
            tau[i] += d.ten_J[t, i] * f
    fluid(m, d)
