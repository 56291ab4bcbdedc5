"""The discrete step in one compiled call (MuJoCo's mj_step, MJX's forward.py):

    smooth (kinematics with the mocap poses, tendons, gravity, passive, applied, actuation; M̂ and a₀)
    → collision → contacts → constraint rows (equalities, friction, limits, contacts) → solve → integration (Euler,
    implicit, implicitfast or RK4, whose stages run `forward` again at their states),

over a Model (model.py) and one context's Data (data.py). A plant without constraint rows or contact geometry
takes one dense solve of (M + h·D)·v̇ = τ − D·v − C·v instead of the constraint stages.

`step` returns a status (STEP_*); everything the caller needs to word an error is in Data (stage, bad_index,
bad_what; read with data.error_info). Exceptions raised inside (np.linalg.LinAlgError: M̂ or the solver's Hessian
not positive definite) leave Data.stage at the stage that raised.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .actuation import ACTUATION_NAN_CTRL, ACTUATION_NAN_U, actuation, advance_activations
from .collision import collision
from .constraint import ROWS_BAD_LIMIT, ROWS_OK, assemble
from .contact import CONTACTS_BAD_MUJOCO_GEOMETRY, CONTACTS_OK, no_contacts, select_contacts
from .drake_contact import (APPROX_MUJOCO, DRAKE_SOLVE_BAD_CONTACT, DRAKE_SOLVE_BAD_EQUALITY,
                            DRAKE_SOLVE_NOT_CONVERGED, DRAKE_SOLVE_OK, drake_contacts, drake_solve)
from .equality import EQ_OK, equality
from .integrate import (EULER, RK4, RK4_A, RK4_B, euler, forward_qacc, implicit, rk4_finish, rk4_record, rk4_stage_state,
                        rotate_quaternion_blocks)
from .gravcomp import gravcomp
from .passive import PASSIVE_OK, passive
from .sensor import sensors
from .smooth import (MOCAP_OK, MOCAP_POSE_SIZE, applied_forces, gravity, kinematics, mass_matrix,
                     smooth_acceleration, unconstrained_step)
from .solver import SOLVE_BAD_INPUT, SOLVE_NOT_CONVERGED, SOLVE_OK, solve
from .tendon import tendon

STEP_OK, STEP_NOT_CONVERGED = 0, 1  # success (the second: the constraint solver hit its iteration limit)
STEP_NAN_ACTUATION, STEP_NAN_CTRL, STEP_NOT_FINITE, STEP_BAD_SIZES = 2, 3, 4, 5
STEP_BAD_LIMIT, STEP_BAD_GEOMETRY, STEP_RIGID_PAIR, STEP_BAD_SAP = 6, 7, 8, 9
STEP_SOLVER_BAD_INPUT, STEP_SOLVER_NOT_FINITE = 10, 11
STEP_BAD_EQUALITY = 12  # an equality's rows are undefined (d.bad_index: the equality)
STEP_BAD_FORCE_ELEMENT = 13  # a force element's force is undefined (d.bad_what: passive.PASSIVE_*, d.bad_index: row)
STEP_BAD_MOCAP = 14  # a mocap pose is not finite or has a zero quaternion (d.bad_what: smooth.MOCAP_*)
STAGE_SMOOTH, STAGE_COLLISION, STAGE_CONSTRAINT, STAGE_SOLVER, STAGE_INTEGRATE = 1, 2, 3, 4, 5


@njit(cache=True, inline="always")
def forward(m, d, x, bp, u, ctrl, act, tau_in, F_in, g_W, mocap, collide, warm, warm_valid, time):
    """d.qacc (v̇) of the step from state x with activations act at `time` [s] (see `step`). Returns STEP_OK,
    STEP_NOT_CONVERGED or an error."""
    d.stage = STAGE_SMOOTH
    d.act = act
    st = kinematics(m, d, x, bp, mocap)
    if st != MOCAP_OK:
        d.bad_what = st
        return STEP_BAD_MOCAP
    tendon(m, d)
    gravity(m, d, g_W)
    st = passive(m, d)
    if st != PASSIVE_OK:
        d.bad_what = st
        return STEP_BAD_FORCE_ELEMENT
    gravcomp(m, d, g_W)
    applied_forces(m, d, tau_in, F_in)
    st = actuation(m, d, u, ctrl, time)
    if st == ACTUATION_NAN_U:
        return STEP_NAN_ACTUATION
    if st == ACTUATION_NAN_CTRL:
        return STEP_NAN_CTRL
    if not m.opt.use_solver:
        if m.ten.arm_ten.shape[0] == 0:
            unconstrained_step(m, d)
        else:  # tendon armature: M̂ and the bias with its terms (smooth.py), no constraint rows
            mass_matrix(m, d)
            smooth_acceleration(m, d)
            d.qacc = d.qacc_smooth.copy()
        no_contacts(m, d)
        if d.tau_contact.shape[0] != m.tree.nv:
            d.tau_contact = np.empty(m.tree.nv)
        d.tau_contact[:] = 0.0
        d.warm_valid = False
        d.solver_converged, d.solver_iterations, d.solver_residual = True, 0, 0.0
        return STEP_OK
    mass_matrix(m, d)
    smooth_acceleration(m, d)
    d.stage = STAGE_COLLISION
    if m.contact.approx != APPROX_MUJOCO:  # Drake's discrete contact (point pairs, SAP / similar / lagged)
        if collide and m.geom.ngeom > 1:
            collision(m, d)
            if drake_contacts(m, d) >= 0:
                return STEP_RIGID_PAIR
        else:
            no_contacts(m, d)
        d.stage = STAGE_SOLVER
        st = drake_solve(m, d)
        if st == DRAKE_SOLVE_OK:
            return STEP_OK
        if st == DRAKE_SOLVE_BAD_CONTACT:
            return STEP_BAD_SAP
        if st == DRAKE_SOLVE_BAD_EQUALITY:
            return STEP_BAD_EQUALITY
        return STEP_NOT_CONVERGED if st == DRAKE_SOLVE_NOT_CONVERGED else STEP_SOLVER_NOT_FINITE
    if collide and m.geom.ngeom > 1:
        collision(m, d)
        if d.col_dist.shape[0] == 0:  # no candidates: select_contacts' empty arrays, kept from the last step
            no_contacts(m, d)
        else:
            st = select_contacts(m, d)
            if st != CONTACTS_OK:
                return STEP_BAD_GEOMETRY if st == CONTACTS_BAD_MUJOCO_GEOMETRY else STEP_RIGID_PAIR
    else:
        no_contacts(m, d)
    d.stage = STAGE_CONSTRAINT
    if equality(m, d) != EQ_OK:
        return STEP_BAD_EQUALITY
    st = assemble(m, d)
    if st != ROWS_OK:
        return STEP_BAD_LIMIT if st == ROWS_BAD_LIMIT else STEP_BAD_SAP
    d.stage = STAGE_SOLVER
    st = solve(m, d, warm, warm_valid)
    if st == SOLVE_OK:
        return STEP_OK
    if st == SOLVE_NOT_CONVERGED:
        return STEP_NOT_CONVERGED
    return STEP_SOLVER_BAD_INPUT if st == SOLVE_BAD_INPUT else STEP_SOLVER_NOT_FINITE


@njit(cache=True)
def step(m, d, x, bp, u, ctrl, act, act_next, tau_in, F_in, g_W, mocap, collide, warm, x_next, results, time):
    """One discrete step from state x = [q; v; ...] with body parameters bp (nb·13), joint actuation u (nu), MuJoCo
    ctrl and activations act (na), applied generalized forces tau_in (nv or 0) and body forces F_in (nb × 6 or
    0 × 6), gravity g_W, the MJCF mocap bodies' poses (nmocap·7, [x y z qw qx qy qz] each; smooth.kinematics),
    contacts when `collide` (the plant's geometry query is connected) and the previous step's results row `warm`
    (data.StepResults). Writes [q⁺; v⁺] into x_next[:nq + nv], the next activations into act_next and this step's
    results row into `results`, with the MJCF sensors at x (time `time` [s]) computed after the first forward
    evaluation, as mj_step."""
    t = m.tree
    nq, nv, nu = t.nq, t.nv, u.shape[0]
    ns = m.sens.nsensordata
    n = 3 * nv + nu + 5 + ns
    if (x.shape[0] < nq + nv or x_next.shape[0] < nq + nv or warm.shape[0] != n or results.shape[0] != n
            or bp.shape[0] != t.nb * 13 or g_W.shape[0] != 3 or u.shape[0] != m.act.dofs.shape[0]
            or ctrl.shape[0] != m.act.nctrl or not (tau_in.shape[0] == 0 or tau_in.shape[0] == nv)
            or act.shape[0] != m.act.na or act_next.shape[0] != m.act.na or not (F_in.shape[0] == 0 or F_in.shape[0] == t.nb)
            or mocap.shape[0] != MOCAP_POSE_SIZE * t.mocap_body.shape[0]):
        return STEP_BAD_SIZES
    warm_q, warm_valid = warm[2 * nv + nu:3 * nv + nu], warm[3 * nv + nu] != 0.0
    status = forward(m, d, x, bp, u, ctrl, act, tau_in, F_in, g_W, mocap, collide, warm_q, warm_valid, time)
    if status != STEP_OK and status != STEP_NOT_CONVERGED:
        return status
    if ns:
        d.stage = STAGE_SMOOTH
        sensors(m, d, time, g_W, F_in)
        for i in range(ns):
            results[3 * nv + nu + 5 + i] = d.sensordata[i]
    results[3 * nv + nu + 4] = 1.0
    d.stage = STAGE_INTEGRATE
    scheme = m.integ.integrator
    if scheme == RK4:
        status, vdot, tau_contact, finite = runge_kutta(m, d, x, bp, u, ctrl, act, act_next, tau_in, F_in, g_W,
                                                        mocap, collide, warm_q, warm_valid, x_next, status, time)
        if status != STEP_OK and status != STEP_NOT_CONVERGED:
            return status
    else:
        finite = euler(m, d, x_next) if scheme == EULER else implicit(m, d, ctrl, x_next)
        vdot, tau_contact = d.qacc, d.tau_contact
        advance_activations(m, d, act, d.act_dot, act_next)
    for i in range(nv):
        results[i] = vdot[i]
        results[nv + nu + i] = tau_contact[i]
    for i in range(nu):
        results[nv + i] = u[i]
    if d.warm_valid:
        for i in range(nv):
            results[2 * nv + nu + i] = d.qacc_warmstart[i]
    results[3 * nv + nu] = 1.0 if d.warm_valid else 0.0
    results[3 * nv + nu + 1] = 1.0 if d.solver_converged else 0.0
    results[3 * nv + nu + 2] = d.solver_iterations
    results[3 * nv + nu + 3] = d.solver_residual
    return status if finite else STEP_NOT_FINITE


@njit(cache=True, inline="always")
def runge_kutta(m, d, x, bp, u, ctrl, act, act_next, tau_in, F_in, g_W, mocap, collide, warm_q, warm_valid, x_next,
                status, time):
    """MuJoCo's RK4 step from state x whose first forward evaluation is in d: three more forward evaluations at
    the stage states (inputs held at their step-start values, each solve warm-started from the previous step as
    MuJoCo's; activations act₀ + h·Σⱼ A_ij·ȧⱼ), then x⁺ into x_next (integrate.py) and the activations advanced
    with the averaged rates into act_next (mj_advance). Returns (status, mean acceleration v̇ = (v⁺ − v)/h, generalized
    contact forces at x, x⁺ finite); Data ends at the last stage, whose solver solution warm-starts the next step."""
    t, g = m.tree, m.integ
    nv = t.nv
    q0, v0 = d.q.copy(), d.v.copy()
    K, Acc = np.empty((4, nv)), np.empty((4, nv))
    w0 = rotate_quaternion_blocks(q0, v0, g.quat_q, g.quat_v, True)
    K[0] = w0
    Acc[0] = rotate_quaternion_blocks(q0, forward_qacc(m, d), g.quat_q, g.quat_v, True)
    tau_contact = d.tau_contact.copy()
    na = m.act.na
    rates, acts = np.empty((4, na)), np.empty((4, na))
    rates[0] = d.act_dot
    xs = x.copy()
    for i in range(1, 4):
        w = rk4_stage_state(m, q0, w0, K, Acc, i, xs)
        for k in range(na):
            s = 0.0
            for j in range(i):
                if RK4_A[i - 1, j] != 0.0:
                    s += RK4_A[i - 1, j] * rates[j, k]
            acts[i, k] = act[k] + t.h * s
        st = forward(m, d, xs, bp, u, ctrl, acts[i], tau_in, F_in, g_W, mocap, collide, warm_q, warm_valid,
                     time + (1.0 if i == 3 else 0.5) * t.h)  # the stage's time (MuJoCo's RK4 C)
        if st != STEP_OK and st != STEP_NOT_CONVERGED:
            return st, v0, tau_contact, False
        if st == STEP_NOT_CONVERGED:
            status = st
        d.stage = STAGE_INTEGRATE
        rk4_record(m, d, q0, w, i, K, Acc)
        rates[i] = d.act_dot
    vdot, finite = rk4_finish(m, q0, v0, w0, K, Acc, x_next)
    mean = np.zeros(na)
    for j in range(4):
        mean += RK4_B[j] * rates[j]
    advance_activations(m, d, act, mean, act_next)
    return status, vdot, tau_contact, finite
