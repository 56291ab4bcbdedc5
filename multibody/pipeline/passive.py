"""Passive forces of the discrete step (MuJoCo's mj_passive): the plant's force elements as rows: joint springs
τ = −k·(q − q₀) on single-dof joints (Drake's RevoluteSpring and PrismaticSpring, MJCF hinge / slide `stiffness`),
explicit joint damping τ = −d·v (MJCF Euler with `eulerdamp` disabled, ExplicitJointDamping), MuJoCo's ball / free
joint springs, Drake's LinearSpringDamper and LinearBushingRollPitchYaw (kernels of kernels/force_elements.py,
shared with the elements' own force methods), the MJCF tendons' springs and dampers (MuJoCo's mj_springdamper:
f = −k·x − b·V along the tendon, x the length beyond the dead band lengthspring, τ = Jᵀ f; the parameters are in
m.ten, the lengths in d.ten_*) and fluid forces (fluid.py). The joints' own damping is implicit in M̂ (smooth.py).

A force element of another type (a user's ForceElement subclass) is not compiled: the plant evaluates it in Python
before the step and passes its forces with the applied forces (plant/_pipeline_step.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..kernels.force_elements import BallFreeSpringForces, BushingForces, SpringDamperForces
from ..tree.explicit_damping import ExplicitJointDamping
from ..tree.fluid_forces import FluidForces
from ..tree.force_element import (LinearBushingRollPitchYaw, LinearSpringDamper, MjcfBallFreeSprings, PrismaticSpring,
                                  RevoluteSpring)
from .fluid import fluid
from .structs import F1, F2, I1, I2, declare, floats, ints

#: Status codes of `passive` (d.bad_index: the spring-damper or bushing row).
PASSIVE_OK, PASSIVE_COINCIDENT_POINTS, PASSIVE_GIMBAL_LOCK = 0, 1, 2


@structref.register
class PassiveModelType(types.StructRef):
    """numba type of PassiveModel."""


class PassiveModel(structref.StructRefProxy):
    """The plant's compiled force elements as rows (see PASSIVE_MODEL)."""


PASSIVE_MODEL = declare(PassiveModelType, PassiveModel, [
    # joint springs: q index, v index, nominal position q₀ [rad, m], stiffness k [N m/rad, N/m]
    ("spring_q", I1), ("spring_v", I1), ("spring_q0", F1), ("spring_k", F1),
    # explicit dampers, one row per dof: v index, damping d [N m s/rad, N s/m]
    ("damper_v", I1), ("damper_d", F1),
    # MuJoCo ball / free joint springs: kind (0 ball, 1 free), q start, v start, k, qpos_spring (n, 7)
    ("bf_kind", I1), ("bf_q", I1), ("bf_v", I1), ("bf_k", F1), ("bf_q_spring", F2),
    # LinearSpringDamper: bodies A, B (n, 2); p_AP, p_BQ (n, 6) [m]; ℓ₀ [m], k [N/m], c [N s/m] (n, 3)
    ("sd_body", I2), ("sd_points", F2), ("sd_params", F2),
    # LinearBushingRollPitchYaw: bodies of A and C (n, 2); R_BA, p_BA, R_BC, p_BC (n, 24); gains (n, 12)
    ("bu_body", I2), ("bu_frames", F2), ("bu_gains", F2),
])


@njit(cache=True)
def new_passive_model(spring_q, spring_v, spring_q0, spring_k, damper_v, damper_d, bf_kind, bf_q, bf_v, bf_k,
                      bf_q_spring, sd_body, sd_points, sd_params, bu_body, bu_frames, bu_gains):
    p = structref.new(PASSIVE_MODEL)
    p.spring_q, p.spring_v, p.spring_q0, p.spring_k = spring_q, spring_v, spring_q0, spring_k
    p.damper_v, p.damper_d = damper_v, damper_d
    p.bf_kind, p.bf_q, p.bf_v, p.bf_k, p.bf_q_spring = bf_kind, bf_q, bf_v, bf_k, bf_q_spring
    p.sd_body, p.sd_points, p.sd_params = sd_body, sd_points, sd_params
    p.bu_body, p.bu_frames, p.bu_gains = bu_body, bu_frames, bu_gains
    return p


#: The force element types this stage computes (the plant's other force elements are evaluated in Python).
COMPILED_FORCE_ELEMENTS = (RevoluteSpring, PrismaticSpring, MjcfBallFreeSprings, LinearSpringDamper,
                           LinearBushingRollPitchYaw, FluidForces, ExplicitJointDamping)


def _stack(rows: list, k: int, width: int, dtype) -> np.ndarray:
    """Column k of each element's `_Rows()` stacked into one C-contiguous (n, width) array (width 0: 1-D)."""
    parts = [r[k] for r in rows]
    shape = (-1, width) if width else (-1,)
    if not parts:
        return np.zeros((0, width) if width else 0, dtype)
    return np.ascontiguousarray(np.concatenate([np.asarray(p, dtype).reshape(shape) for p in parts]))


_BUSHING_GAINS = ("torque_stiffness", "torque_damping", "force_stiffness", "force_damping")  # the row's 12 gains


def CompilePassive(plant, values: dict | None = None) -> PassiveModel:
    """The compiled force elements of the plant (registration order within each type; fluid forces: fluid.py).
    `values`: a Context's force-element parameters that differ from the defaults ((element index, name) → value,
    ElementValues.force_elements: RevoluteSpring stiffness / nominal_angle, the bushing's gains)."""
    values = values or {}
    fes = plant._force_elements
    springs = [k for k in range(1, len(fes)) if isinstance(fes[k], (RevoluteSpring, PrismaticSpring))]
    q0 = [values.get((k, "nominal_angle"), fes[k].nominal_angle()) if isinstance(fes[k], RevoluteSpring)
          else fes[k].nominal_position() for k in springs]
    stiffness = [values.get((k, "stiffness"), fes[k].stiffness()) for k in springs]
    dampers = [fe.dofs_and_damping() for fe in fes[1:] if isinstance(fe, ExplicitJointDamping)]
    bf = [fe._Rows() for fe in fes[1:] if isinstance(fe, MjcfBallFreeSprings)]
    sd = [fe._Rows() for fe in fes[1:] if isinstance(fe, LinearSpringDamper)]
    bu = []
    for k in range(1, len(fes)):
        if isinstance(fes[k], LinearBushingRollPitchYaw):
            bodies, frames, gains = fes[k]._Rows()
            gains = gains.copy()
            for g, name in enumerate(_BUSHING_GAINS):
                if (k, name) in values:
                    gains[0, 3 * g:3 * g + 3] = values[(k, name)]
            bu.append((bodies, frames, gains))
    springs = [fes[k] for k in springs]
    return new_passive_model(
        ints([fe._joint.position_start() for fe in springs]), ints([fe._joint.velocity_start() for fe in springs]),
        floats(q0), floats(stiffness),
        ints(np.concatenate([dp[0] for dp in dampers]) if dampers else []),
        floats(np.concatenate([dp[1] for dp in dampers]) if dampers else []),
        _stack(bf, 0, 0, np.int64), _stack(bf, 1, 0, np.int64), _stack(bf, 2, 0, np.int64), _stack(bf, 3, 0, float),
        _stack(bf, 4, 7, float), _stack(sd, 0, 2, np.int64), _stack(sd, 1, 6, float), _stack(sd, 2, 3, float),
        _stack(bu, 0, 2, np.int64), _stack(bu, 1, 24, float), _stack(bu, 2, 12, float))


@njit(cache=True)
def passive(m, d):
    """Add the force elements' and the tendons' generalized forces to d.tau and body forces (fluid included) to
    d.F. Returns PASSIVE_OK, or PASSIVE_COINCIDENT_POINTS / PASSIVE_GIMBAL_LOCK with d.bad_index the spring-damper /
    bushing row."""
    p = m.passive
    tau, q, v = d.tau, d.q, d.v
    for i in range(p.spring_q.shape[0]):
        tau[p.spring_v[i]] -= p.spring_k[i] * (q[p.spring_q[i]] - p.spring_q0[i])
    for i in range(p.damper_v.shape[0]):
        tau[p.damper_v[i]] -= p.damper_d[i] * v[p.damper_v[i]]
    if p.bf_kind.shape[0]:
        BallFreeSpringForces(p.bf_kind, p.bf_q, p.bf_v, p.bf_k, p.bf_q_spring, q, tau)
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
    if p.sd_body.shape[0]:
        bad = SpringDamperForces(p.sd_body, p.sd_points, p.sd_params, d.R_WB, d.p_WB, d.V, d.F)
        if bad >= 0:
            d.bad_index = bad
            return PASSIVE_COINCIDENT_POINTS
    if p.bu_body.shape[0]:
        bad = BushingForces(p.bu_body, p.bu_frames, p.bu_gains, d.R_WB, d.p_WB, d.V, d.F)
        if bad >= 0:
            d.bad_index = bad
            return PASSIVE_GIMBAL_LOCK
    fluid(m, d)
    return PASSIVE_OK
