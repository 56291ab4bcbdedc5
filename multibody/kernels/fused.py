"""One compiled call for a whole discrete step of a plant with no contact, constraints or extra force
elements: kinematics, weights, actuation and the semi-implicit Euler step with implicit damping.

This is the common case of a robot driven through its actuation port; it pays the Python→numba call
overhead once per step instead of once per stage.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .dynamics import calc_inverse_dynamics, gravity_forces_at_body_origins
from .kinematics import calc_accelerations
from .pipeline import discrete_step, kinematics_stage


@njit(cache=True)
def actuated_discrete_step(order, ji, jf, bp, q, v, reflected_inertia, damping, h, g_W, gravity_enabled,
                           actuator_dofs, u):
    """(x⁺ = [q⁺; v⁺], v̇) of one step under gravity and actuation u (applied on `actuator_dofs`)."""
    nv = v.shape[0]
    _R_WB, p_WB, _R_WF, _p_WF, _p_WM, S, V, c, Iw = kinematics_stage(order, ji, jf, bp, q, v, nv)
    F = gravity_forces_at_body_origins(bp, _R_WB, g_W, gravity_enabled)
    tau = np.zeros(nv)
    for i in range(actuator_dofs.shape[0]):
        tau[actuator_dofs[i]] += u[i]
    return discrete_step(order, ji, reflected_inertia, S, Iw, p_WB, V, c, F, tau, damping, h, q, v)


@njit(cache=True)
def bias_term(order, ji, S, Iw, V, c):
    """C(q, v)·v by recursive Newton–Euler with v̇ = 0 and no applied forces (one compiled call)."""
    nv = S.shape[0]
    zero_v = np.zeros(nv)
    A = calc_accelerations(order, ji, S, c, zero_v)
    tau, _ = calc_inverse_dynamics(order, ji, S, Iw, V, A, np.zeros((Iw.shape[0], 6)), zero_v, zero_v, zero_v)
    return tau
