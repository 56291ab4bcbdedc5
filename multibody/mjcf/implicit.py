"""MuJoCo's implicit-in-velocity integrators (`<option integrator="implicitfast">` / `"implicit"`) for the
discrete plant of MJCF models.

MuJoCo first solves the constraints with the ordinary mass matrix M (its Euler step's inputs), then replaces the
Euler velocity update by  qacc = (M − h·D)⁻¹ (qfrc_smooth + qfrc_constraint),  D = ∂qfrc_smooth/∂v:

* implicitfast: D = ∂(qfrc_actuator + qfrc_passive)/∂v (joint and tendon damping, actuator velocity gains and
  biases through their moment arms, muscles, fluid forces with each item's local Jacobian symmetrized), taken
  symmetric from its lower triangle, so M − hD is factored like M. A standalone free body (one free joint, no
  massive children) is then re-solved on its own 6 × 6 block with the gyroscopic derivative of the bias forces
  added and its fluid Jacobian unsymmetrized (MuJoCo 4).
* implicit: D also holds −∂(C(q,v)·v)/∂v (the Coriolis / centrifugal derivative), not symmetrized (LU).
Both keep D on M's tree pattern, as MuJoCo's sparse qDeriv does (a tendon spanning two trees couples them only
explicitly).

The plant selects the scheme with `plant._mjcf_integrator` ("implicit" | "implicitfast" | None), which the MJCF
mapping (parsers/mjcf/to_plant.py) sets from the model's option. The step's total force is recovered from its
result as M̂·a (M̂ = M + h·diag(joint damping) + tendon armature, the matrix of MuJoCo's Euler step), so the
constraint forces are exactly those MuJoCo's solver computes with M. Fluid forces (`<option density / viscosity>`,
inertia boxes and fluid ellipsoids) enter D through their local force Jacobians, as in MuJoCo's mjd_passive_vel.
"""
from __future__ import annotations

import numpy as np

from ..kernels import pipeline as pl
from ..kernels.contact_kernels import NextState
from ..kernels.fluid import FluidVelocityDerivative
from ..kernels.kinematics import calc_velocity_kinematics
from ..pipeline.integrate import StandaloneFreeBodies, TreePattern
from ..pipeline.muscle import MuscleGainVelocity
from ..tree.fluid_forces import FluidForces

__all__ = ["CalcActuatorVelocityDerivative", "CalcPassiveVelocityDerivative",
           "CalcBiasVelocityDerivative", "CalcFluidVelocityDerivative", "FinalizeImplicit", "ImplicitStep"]


def CalcActuatorVelocityDerivative(plant, context) -> np.ndarray:
    """∂qfrc_actuator/∂v (nv × nv) as MuJoCo's mjd_actuator_vel: Σ_i momentᵢᵀ·bias_velᵢ·momentᵢ with bias_vel =
    biasprm[2] (affine / so3) + gain_vel·(ctrl or act), skipping actuators saturated at their forcerange and those
    whose transmission joint's actuator torque is clamped by its actuatorfrcrange (as MuJoCo 4.0's)."""
    act = plant._mjcf_actuation
    nv = plant.num_velocities()
    D = np.zeros((nv, nv))
    if act is None or not act.enabled.any():
        return D
    q, v = plant.GetPositions(context), plant.GetVelocities(context)
    ctrl = act.EvalCtrl(plant, context)  # clamped to ctrlrange, as the installed MuJoCo differentiates
    acts = act.GetActivations(plant, context)
    nxt = act.CalcNextActivations(ctrl, acts) if act.na else acts
    so3 = np.zeros(act.enabled.shape[0], bool)
    for servo in act.so3:
        so3[servo.rows] = True
    moment = L = V = None  # the transmissions are evaluated only when needed (site ones are costly)
    bias_vel = np.zeros(act.enabled.shape[0])
    for i in np.flatnonzero(act.enabled):
        if so3[i]:
            bias_vel[i] = act.bias[i, 2]
            continue
        b = act.bias[i, 2] if act.biastype[i] == 1 else 0.0
        g = 0.0
        if act.gaintype[i] == 1:
            g = act.gain[i, 2]
        elif act.gaintype[i] == 2:
            if L is None:
                moment = act.CalcMomentArms(plant, context)
                L, V = act.CalcLengths(plant, context, q), moment @ v
            g = MuscleGainVelocity(L[i], V[i], act.lengthrange[i], act.acc0[i], act.gainprm[i])
        if g:
            k = act.actadr[i]
            b += g * (ctrl[act.row_ctrl[i]] if k < 0 else (nxt[k] if act.actearly[i] else acts[k]))
        bias_vel[i] = b
    rows = np.flatnonzero(bias_vel)
    if not rows.size:
        return D
    if act.jlim and (act.out_jlim[rows] >= 0).any():  # joint transmissions whose joint's actuator torque is clamped
        tau = act.CalcActuatorGeneralizedForces(plant, context, q, v)
        for i in rows[act.out_jlim[rows] >= 0]:
            k, lo, hi = act.jlim[act.out_jlim[i]]
            if tau[k] <= lo or tau[k] >= hi:
                bias_vel[i] = 0.0
        rows = np.flatnonzero(bias_vel)
    limited = np.isfinite(act.force_lo[rows]) | np.isfinite(act.force_hi[rows])
    limited |= np.array([so3[i] and any(i in sv.rows and np.isfinite(sv.fmax) for sv in act.so3) for i in rows],
                        dtype=bool)
    if limited.any():  # no derivative where the force is saturated (so3: norm-clamped)
        force = act.CalcActuatorForces(plant, context, q, v)
        for i in rows[limited]:
            servo = next((sv for sv in act.so3 if i in sv.rows), None) if so3[i] else None
            if servo is not None:
                saturated = float(np.linalg.norm(force[servo.rows])) >= servo.fmax
            else:
                saturated = force[i] <= act.force_lo[i] or force[i] >= act.force_hi[i]
            if saturated:
                bias_vel[i] = 0.0
        rows = np.flatnonzero(bias_vel)
    if moment is None:
        moment = act.CalcMomentArms(plant, context)
    D += moment[rows].T @ (bias_vel[rows, None] * moment[rows])
    return D


def CalcPassiveVelocityDerivative(plant, context, joint_damping: bool = False) -> np.ndarray:
    """∂qfrc_passive/∂v (nv × nv) of the MJCF tendon dampers (−b·JᵀJ), plus −diag(joint damping) when asked."""
    nv = plant.num_velocities()
    D = np.zeros((nv, nv))
    if joint_damping:
        D[np.diag_indices(nv)] -= plant._model.damping
    act = plant._mjcf_actuation
    for tendon in (act.passive if act is not None else ()):
        if tendon.damper and tendon.tendon.damping:
            J = tendon.CalcMoment(plant, context)
            D -= float(tendon.tendon.damping) * np.outer(J, J)
    return D


def CalcBiasVelocityDerivative(plant, kin, dofs: np.ndarray | None = None) -> np.ndarray:
    """∂(C(q,v)·v)/∂v (nv × len(dofs)) by recursive Newton–Euler. C(q,v)·v is quadratic in v, so the central
    difference with a unit step is exact up to rounding."""
    m = plant._model
    nv = m.nv
    cols = np.arange(nv) if dofs is None else np.asarray(dofs)
    out = np.empty((nv, cols.size))
    zero, F0 = np.zeros(nv), np.zeros((m.nb, 6))

    def bias(v):
        V, c = calc_velocity_kinematics(m.order, m.ji, kin.q, v, kin.S, kin.R_WF, kin.p_WF, kin.p_WM)
        return pl.inverse_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw, kin.p_WB, V, c,
                                                 zero, F0, zero)

    scale = max(1.0, float(np.max(np.abs(kin.v))) if nv else 1.0)
    for k, j in enumerate(cols):
        vp, vm = kin.v.copy(), kin.v.copy()
        vp[j] += scale
        vm[j] -= scale
        out[:, k] = (bias(vp) - bias(vm)) / (2.0 * scale)
    return out


def FinalizeImplicit(plant) -> None:
    """The structure MuJoCo's implicit / implicitfast step needs, made at Finalize (empty for other schemes):
    `plant._mjcf_free_blocks`, the (body, velocity start) of the standalone free bodies (pipeline/integrate.py
    StandaloneFreeBodies), and `plant._mjcf_tree_pattern`, the dofs that share a root-to-leaf path (TreePattern)."""
    m = plant._model
    implicit = plant._mjcf_integrator in ("implicit", "implicitfast")
    plant._mjcf_free_blocks = StandaloneFreeBodies(m.ji, m.body_params[:, 0]) if implicit else []
    plant._mjcf_tree_pattern = TreePattern(m.ji, m.nv) if implicit else np.zeros((0, 0), bool)


def CalcFluidVelocityDerivative(plant, kin, symmetrize: bool) -> np.ndarray:
    """∂(fluid generalized forces)/∂v (nv × nv) as MuJoCo's mjd_passive_vel (kernels/fluid.py), local Jacobians
    symmetrized for implicitfast except on standalone free bodies."""
    m = plant._model
    D = np.zeros((m.nv, m.nv))
    body_free = np.zeros(m.nb, bool)
    for b, _ in plant._mjcf_free_blocks:
        body_free[b] = True
    for fluid in plant._force_elements:
        if isinstance(fluid, FluidForces) and fluid.num_items():
            FluidVelocityDerivative(m.ji, kin.S, kin.R_WB, kin.p_WB, kin.V, fluid.body_indices(), fluid.kind,
                                    fluid.R_BO, fluid.p_BO, fluid.params, fluid.medium, symmetrize, body_free, D)
    return D


def _mass_matrix_hat(plant, kin, h: float) -> np.ndarray:
    """M̂ = M + h·diag(joint damping) + tendon armature: the matrix of MuJoCo's Euler step (eulerdamp)."""
    m = plant._model
    M = pl.mass_matrix_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw)
    M[np.diag_indices(m.nv)] += h * m.damping
    if plant._tendon_inertia is not None:
        plant._tendon_inertia.AddToMassMatrix(kin, M)
    return M


def ImplicitStep(plant, context, kin, a_euler: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x⁺, qacc) of MuJoCo's implicit / implicitfast step from the Euler step's acceleration `a_euler` (whose
    M̂·a_euler = qfrc_smooth + qfrc_constraint, the constraints solved with M as MuJoCo does)."""
    m = plant._model
    h = plant._time_step
    scheme = plant._mjcf_integrator
    M_hat = _mass_matrix_hat(plant, kin, h)
    qfrc = M_hat @ a_euler
    # D without joint damping: M̂ already holds h·diag(damping) = −h·D_damping
    D = CalcActuatorVelocityDerivative(plant, context) + CalcPassiveVelocityDerivative(plant, context)
    D += CalcFluidVelocityDerivative(plant, kin, symmetrize=scheme == "implicitfast")
    # MuJoCo keeps D on M's tree pattern (dofs on one root-to-leaf path): cross-tree couplings are dropped
    pattern = plant._mjcf_tree_pattern
    if scheme == "implicit":
        D -= CalcBiasVelocityDerivative(plant, kin)
        a = np.linalg.solve(M_hat - h * np.where(pattern, D, 0.0), qfrc)
    else:
        lower = np.tril(np.where(pattern, D, 0.0))
        D_sym = lower + np.tril(lower, -1).T
        a = np.linalg.solve(M_hat - h * D_sym, qfrc)
        for _b, s in plant._mjcf_free_blocks:  # the block's own LU with the gyroscopic derivative
            blk = slice(s, s + 6)
            dC = CalcBiasVelocityDerivative(plant, kin, np.arange(s, s + 6))[blk]
            A = M_hat[blk, blk] - h * D[blk, blk] + h * dC
            a[blk] = np.linalg.solve(A, qfrc[blk])
    a = np.ascontiguousarray(a, dtype=np.float64)
    x_next = NextState(m.order, m.ji, kin.q, kin.v, a, h,
                       plant.get_constraint_solver_options().position_integration_is_mujoco(plant))
    return x_next, a
