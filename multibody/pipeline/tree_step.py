"""The discrete step of a plain tree, for batches: a plant whose compiled Model has no constraint rows or contact
geometry (`m.opt.use_solver` off), no tendons, force elements, fluid, gravity compensation, MuJoCo actuators (joint
actuation only), sensors or mocap bodies, only weld, revolute and prismatic joints, and integrates by Euler with
Drake's positions (a cart-pole, an acrobot, a bare arm without joint limits). For such a Model `forward.step` runs
kinematics, gravity, actuation, one dense solve (smooth.unconstrained_step) and the Euler update; `tree_steps` runs
the same arithmetic in the same order (the same bits: tests/multibody/pipeline/test_batch.py), and only it.

What it saves is the general step's fixed cost, most of a two-dof step: the stages of absent features, the Data's
bookkeeping (field stores, zero-fills, size checks) and numba's reference counting, which increments and decrements
an atomic count per array argument, per view and per struct field read (across a batch's threads, on the shared
Model's arrays, the counts' cache lines move between cores). The members' work allocates nothing (a `TreeScratch`
per thread, sized once) and reads no struct, so `_tree_steps` is compiled without numba's runtime (`_nrt=False`, as
contact/linalg.py's solver kernels): no counts at all. It calls the general step's own kernels (kernels/kinematics.py,
kernels/dynamics.py, smooth.solve_spd_in_place), which allocate nothing and are compiled without the runtime too;
of the kinematics and Newton-Euler stages, their loops over the bodies (body_poses_into, joint_columns_into,
body_velocities_into, body_inertias_into, newton_euler_into: inlined) without the fills the stages begin with. Each
of those loops writes its rows of the bodies in the tree's order whole before any is read, and the rows it does not
write (the world's: identity pose, zero velocity, inertia and acceleration) are those a fresh scratch holds: the fills
would store the same values again per member (~20% of a cart-pole's step, with the calls they take).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.experimental import structref

from ..kernels.dynamics import gravity_forces_into, mass_matrix_tree_into, newton_euler_into
from ..kernels.joint_kernels import PRISMATIC, REVOLUTE, WELD
from ..kernels.kinematics import body_inertias_into, body_poses_into, body_velocities_into, joint_columns_into
from .forward import STEP_NOT_FINITE, STEP_OK
from .integrate import EULER
from .smooth import solve_spd_in_place
from .structs import F1, F2, F3, declare

__all__ = ["TreeScratch", "new_tree_scratch", "plain_tree", "tree_steps", "STEP_BAD_INPUT"]

STEP_BAD_INPUT = 15  # (tree_steps only) a member's state or actuation is not finite: it is not stepped


@structref.register
class TreeScratchType(types.StructRef):
    """numba type of TreeScratch."""


class TreeScratch(structref.StructRefProxy):
    """One thread's scratch of `tree_steps`: the kinematics, forces, M̂ and v̇ of the member it steps (Data's
    fields of those names), the CRBA / RNEA temporaries and M̂'s Cholesky factor."""


TREE_SCRATCH = declare(TreeScratchType, TreeScratch, [
    ("q", F1), ("v", F1), ("R_WB", F3), ("p_WB", F2), ("R_WF", F3), ("p_WF", F2), ("p_WM", F2), ("S", F2),
    ("V", F2), ("c", F2), ("Iw", F3), ("F", F2), ("tau", F1), ("M", F2), ("qacc", F1), ("tau_damped", F1),
    ("Ic", F2), ("A", F2), ("f", F2), ("L", F2),
])


@njit(cache=True)
def new_tree_scratch(m):
    """A TreeScratch sized for Model m."""
    t = m.tree
    nq, nv, nb = t.nq, t.nv, t.nb
    s = structref.new(TREE_SCRATCH)
    s.q, s.v = np.zeros(nq), np.zeros(nv)
    s.R_WB, s.p_WB, s.R_WF = np.zeros((nb, 3, 3)), np.zeros((nb, 3)), np.zeros((nb, 3, 3))
    s.p_WF, s.p_WM, s.S = np.zeros((nb, 3)), np.zeros((nb, 3)), np.zeros((nv, 6))
    s.V, s.c, s.Iw, s.F = np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nb, 6, 6)), np.zeros((nb, 6))
    s.tau, s.M, s.qacc, s.tau_damped = np.zeros(nv), np.zeros((nv, nv)), np.zeros(nv), np.zeros(nv)
    s.Ic, s.A, s.f, s.L = np.zeros((nb, 10)), np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nv, nv))
    for i in range(3):  # the world's pose (the stages' fills, done once: _tree_steps' module docstring)
        s.R_WB[0, i, i] = 1.0
        s.R_WF[0, i, i] = 1.0
    return s


@njit(cache=True)
def plain_tree(m):
    """Whether Model m is a plain tree (module docstring): `forward.step` would run exactly `tree_steps`' arithmetic."""
    p, a, ten, t = m.passive, m.act, m.ten, m.tree
    for k in range(t.order.shape[0]):
        jt = t.ji[t.order[k], 1]
        if jt != WELD and jt != REVOLUTE and jt != PRISMATIC:
            return False
    return (not m.opt.use_solver and not m.opt.mujoco_positions and m.integ.integrator == EULER
            and t.mocap_body.shape[0] == 0 and m.sens.nsensordata == 0 and ten.ten_adr.shape[0] == 0
            and ten.arm_ten.shape[0] == 0 and ten.stiffness.shape[0] == 0 and p.spring_q.shape[0] == 0
            and p.damper_v.shape[0] == 0 and p.bf_kind.shape[0] == 0 and p.sd_body.shape[0] == 0
            and p.bu_body.shape[0] == 0 and m.fluid.body.shape[0] == 0 and a.gc.body.shape[0] == 0
            and a.row_ctrl.shape[0] == 0 and a.actadr.shape[0] == 0 and a.nctrl == 0 and a.na == 0)


@njit(cache=True, _nrt=False)
def _tree_steps(order, ji, jf, refl, damping, gravity_mask, dofs, h, q, v, R_WB, p_WB, R_WF, p_WF, p_WM, S, V, c, Iw,
                F, tau, M, acc, tau_d, Ic, A, f, L, X, bp, U, g_W, X_next, results, status, lo, hi):
    """forward.step of members lo..hi-1 of a plain tree (the Model's arrays first, then the scratch's) from the
    states X[b] = [q; v] (body parameters bp (nb, 13), joint actuation U[b], gravity g_W) into X_next[b], with
    their results rows (data.StepResults: v̇, u, zero contact forces, no warm start, converged in 0 iterations, the
    sensors flag) and status[b]: STEP_OK, STEP_NOT_FINITE, or STEP_BAD_INPUT (a state or actuation that is not
    finite: not stepped)."""
    nq, nv, nu = q.shape[0], v.shape[0], U.shape[1]
    for b in range(lo, hi):
        x, u, x_next, res = X[b], U[b], X_next[b], results[b]
        ok = True
        for i in range(nq + nv):
            ok = ok and np.isfinite(x[i])
        for i in range(nu):
            ok = ok and np.isfinite(u[i])
        if not ok:
            status[b] = STEP_BAD_INPUT
            continue
        # smooth.kinematics
        for i in range(nq):
            q[i] = x[i]
        for i in range(nv):
            v[i] = x[nq + i]
        body_poses_into(order, ji, jf, q, R_WB, p_WB, R_WF, p_WF, p_WM)
        joint_columns_into(order, ji, jf, q, R_WF, p_WM, S)
        body_velocities_into(order, ji, q, v, S, R_WF, p_WF, p_WM, V, c)
        body_inertias_into(bp, R_WB, p_WB, Iw)
        # smooth.gravity, actuation.actuation
        gravity_forces_into(bp, R_WB, g_W, gravity_mask, F)
        tau[:] = 0.0
        for i in range(nu):
            tau[dofs[i]] += u[i]
        # smooth.unconstrained_step
        mass_matrix_tree_into(order, ji, refl, S, Iw, M, Ic)  # (M zero outside the tree sparsity: made so)
        for i in range(nv):
            tau_d[i] = tau[i] - damping[i] * v[i]
            acc[i] = 0.0
        newton_euler_into(order, ji, refl, S, Iw, p_WB, V, c, acc, F, tau_d, acc, A, f)
        for i in range(nv):
            M[i, i] += h * damping[i]
            acc[i] = -acc[i]
        solve_spd_in_place(M, L, acc)
        # integrate.euler: v⁺ = v + h·v̇, Drake's q⁺ = q + h·v⁺ (q̇ = v for these joints)
        for i in range(nv):
            x_next[nq + i] = v[i] + h * acc[i]
        for k in range(order.shape[0]):
            j = order[k]
            qs, vs = ji[j, 2], ji[j, 4]
            for i in range(ji[j, 3]):
                x_next[qs + i] = q[qs + i] + h * x_next[nq + vs + i]
        finite = True
        for i in range(nq + nv):
            finite = finite and np.isfinite(x_next[i])
        # forward.step's results row
        for i in range(nv):
            res[i] = acc[i]
            res[nv + nu + i] = 0.0
        for i in range(nu):
            res[nv + i] = u[i]
        res[3 * nv + nu] = 0.0
        res[3 * nv + nu + 1] = 1.0
        res[3 * nv + nu + 2] = 0.0
        res[3 * nv + nu + 3] = 0.0
        res[3 * nv + nu + 4] = 1.0
        status[b] = STEP_OK if finite else STEP_NOT_FINITE


@njit(cache=True)
def tree_steps(m, s, X, bp, U, g_W, X_next, results, status, lo, hi):
    """`_tree_steps` of members lo..hi-1 of a plain-tree Model m (plain_tree(m)) with the scratch s."""
    t = m.tree
    _tree_steps(t.order, t.ji, t.jf, t.refl, t.damping, t.gravity_mask, m.act.dofs, t.h, s.q, s.v, s.R_WB, s.p_WB,
                s.R_WF, s.p_WF, s.p_WM, s.S, s.V, s.c, s.Iw, s.F, s.tau, s.M, s.qacc, s.tau_damped, s.Ic, s.A, s.f,
                s.L, X, bp, U, g_W, X_next, results, status, lo, hi)
