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
from ..kernels.joint_kernels import QUATERNION_FLOATING
from ..kernels.kinematics import calc_velocity_kinematics
from ..kernels.contact_kernels import NextState
from ._mjcf_fluid import MjcfFluidForces
from ._mjcf_muscle import MuscleGain
from ._mjcf_tendon_armature import _tree_pattern

__all__ = ["CalcActuatorVelocityDerivative", "CalcPassiveVelocityDerivative",
           "CalcBiasVelocityDerivative", "CalcFluidVelocityDerivative", "ImplicitStep"]

_MINVAL = 1e-15


def _muscle_gain_velocity(length: float, velocity: float, lengthrange, acc0: float, prm) -> float:
    """∂gain/∂velocity of MuJoCo's muscle gain −F0·FL(L)·FV(V) [N·s/m per unit activation]."""
    L0 = (lengthrange[1] - lengthrange[0]) / max(_MINVAL, prm[1] - prm[0])
    scale = max(_MINVAL, L0 * prm[6])
    V = velocity / scale
    y = prm[8] - 1.0
    if V <= -1.0 or V > y:
        dFV = 0.0
    elif V <= 0.0:
        dFV = 2.0 * V + 2.0
    else:
        dFV = (2.0 * y - 2.0 * V) / max(_MINVAL, y)
    # MuscleGain at V = 0 is −F0·FL (FV(0) = 1)
    return MuscleGain(length, 0.0, lengthrange, acc0, prm) * dFV / scale


def CalcActuatorVelocityDerivative(plant, context) -> np.ndarray:
    """∂qfrc_actuator/∂v (nv × nv) as MuJoCo's mjd_actuator_vel: Σ_i momentᵢᵀ·bias_velᵢ·momentᵢ with bias_vel =
    biasprm[2] (affine / so3) + gain_vel·(ctrl or act), skipping actuators saturated at their forcerange."""
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
            g = _muscle_gain_velocity(L[i], V[i], act.lengthrange[i], act.acc0[i], act.gainprm[i])
        if g:
            k = act.actadr[i]
            b += g * (ctrl[act.row_ctrl[i]] if k < 0 else (nxt[k] if act.actearly[i] else acts[k]))
        bias_vel[i] = b
    rows = np.flatnonzero(bias_vel)
    if not rows.size:
        return D
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


def _standalone_free_bodies(plant) -> list:
    """(body, velocity start) of the free joints whose body is a standalone tree (6 dofs, no massive
    descendants): MuJoCo's mj_isFreeBody."""
    cached = getattr(plant, "_mjcf_free_blocks", None)
    if cached is not None and cached[0] is plant._model:
        return cached[1]
    m = plant._model
    parent = m.ji[:, 0]
    mass = m.body_params[:, 0]
    found = []
    for b in range(1, m.nb):
        if m.ji[b, 1] != QUATERNION_FLOATING or parent[b] != 0:
            continue
        descendants_massive, dofs = False, 0
        for c in range(1, m.nb):
            a = c
            while a > 0 and a != b:
                a = parent[a]
            if a == b and c != b:
                descendants_massive |= mass[c] > 0
                dofs += m.ji[c, 5]
        if not descendants_massive and dofs == 0:
            found.append((b, int(m.ji[b, 4])))
    plant._mjcf_free_blocks = (m, found)
    return found


def _skew(a: np.ndarray) -> np.ndarray:
    """[a]×: the matrix of a × (·)."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def _box_jacobian(w: np.ndarray, v: np.ndarray, box: np.ndarray, density: float, viscosity: float) -> np.ndarray:
    """∂f/∂[w; v] (6 × 6, diagonal) of the inertia-box fluid model's local [torque; force]."""
    d = np.zeros(6)
    if viscosity > 0:
        diam = (box[0] + box[1] + box[2]) / 3.0
        d[:3] -= np.pi * diam ** 3 * viscosity
        d[3:] -= 3.0 * np.pi * diam * viscosity
    if density > 0:
        b4 = box ** 4
        for i in range(3):
            j, k = (i + 1) % 3, (i + 2) % 3
            d[i] -= 2.0 * density * box[i] * (b4[j] + b4[k]) * abs(w[i]) / 64.0
            d[3 + i] -= density * box[j] * box[k] * abs(v[i])
    return np.diag(d)


def _ellipsoid_jacobian(w: np.ndarray, v: np.ndarray, s: np.ndarray, coef: np.ndarray, density: float,
                        viscosity: float) -> np.ndarray:
    """∂f/∂[w; v] (6 × 6) of the fluid-ellipsoid model's local [torque; force] (added mass, Magnus, Kutta lift,
    viscous drag and torque; coef as `_mjcf_fluid._ellipsoid_force`), zero-speed limits as MuJoCo's guards."""
    B = np.zeros((6, 6))
    if coef[0] == 0.0:
        return B
    rho = density
    # added mass: f_ang += p_lin × v + p_ang × w, f_lin += p_lin × w (p = ρ·diag(m)·velocity)
    Vm, Vi = rho * coef[6:9], rho * coef[9:12]
    p_lin, p_ang = Vm * v, Vi * w
    B[:3, :3] += _skew(p_ang) - _skew(w) * Vi
    B[:3, 3:] += _skew(p_lin) - _skew(v) * Vm
    B[3:, :3] += _skew(p_lin)
    B[3:, 3:] -= _skew(w) * Vm
    # Magnus: f_lin += c·(w × v)
    c_m = coef[5] * rho * 4.0 / 3.0 * np.pi * s[0] * s[1] * s[2]
    B[3:, :3] -= c_m * _skew(v)
    B[3:, 3:] += c_m * _skew(w)
    N = np.array([(s[1] * s[2]) ** 2, (s[2] * s[0]) ** 2, (s[0] * s[1]) ** 2])
    Nv = N * v
    pn, pd, vv = float(v @ Nv), float(Nv @ Nv), float(v @ v)
    speed = np.sqrt(vv)
    # Kutta lift: f_lin += c_k·ρ·g(v)·u(v), g = cosα·A_proj = π·sqrt(pn/pd)/|v|, u = (Nv × v) × v = v·pn − Nv·|v|²
    if pn > _MINVAL and pd > _MINVAL and vv > _MINVAL:
        g = np.pi * np.sqrt(pn / pd) / speed
        u = v * pn - Nv * vv
        du = pn * np.eye(3) + np.outer(v, 2.0 * Nv) - vv * np.diag(N) - np.outer(Nv, 2.0 * v)
        dg = g * (Nv / pn - N * Nv / pd - v / vv)
        B[3:, 3:] += coef[4] * rho * (np.outer(u, dg) + g * du)
    # viscous drag: f_lin −= (μ·3π·d_eq + ρ·|v|·(c_b·A_proj + c_s·(A_max − A_proj)))·v
    d_max, d_min = max(s), min(s)
    d_mid = s[0] + s[1] + s[2] - d_max - d_min
    d_eq = 2.0 / 3.0 * (s[0] + s[1] + s[2])
    a_max = np.pi * d_max * d_mid
    a_proj = np.pi * np.sqrt(pd / max(_MINVAL, pn))
    quad = rho * (a_proj * coef[1] + coef[2] * (a_max - a_proj))
    drag = viscosity * 3.0 * np.pi * d_eq + speed * quad
    grad = quad * v / max(_MINVAL, speed)
    if pn > _MINVAL and pd > _MINVAL:
        grad = grad + rho * speed * (coef[1] - coef[2]) * a_proj * (N * Nv / pd - Nv / pn)
    B[3:, 3:] -= drag * np.eye(3) + np.outer(v, grad)
    # viscous torque: f_ang −= (μ·π·d_eq³ + ρ·|mc ∘ w|)·w
    i_max = 8.0 / 15.0 * np.pi * d_mid * d_max ** 4
    ii = np.array([8.0 / 15.0 * np.pi * s[i] * max(s[(i + 1) % 3], s[(i + 2) % 3]) ** 4 for i in range(3)])
    mc = coef[3] * ii + coef[2] * (i_max - ii)
    mom = float(np.linalg.norm(mc * w))
    drag_ang = viscosity * np.pi * d_eq ** 3 + rho * mom
    B[:3, :3] -= drag_ang * np.eye(3) + np.outer(w, rho * mc * mc * w / max(_MINVAL, mom))
    return B * coef[0]


def _fluid_local_jacobian(fluid, i: int, w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """∂f/∂[w; v] (6 × 6) of fluid item i's local [torque; force]."""
    params = fluid._params[i]
    if fluid._kind[i] == 0:
        return _box_jacobian(w, v, params[:3], fluid._density, fluid._viscosity)
    return _ellipsoid_jacobian(w, v, params[:3], params[3:15], fluid._density, fluid._viscosity)


def CalcFluidVelocityDerivative(plant, kin, symmetrize: bool) -> np.ndarray:
    """∂(fluid generalized forces)/∂v (nv × nv) as MuJoCo's mjd_passive_vel: Σ J_Oᵀ B J_O per inertia box / fluid
    ellipsoid, J_O the item's [angular; linear] Jacobian in its local frame O and B its local force Jacobian,
    symmetrized (B + Bᵀ)/2 for implicitfast except on standalone free bodies."""
    m = plant._model
    D = np.zeros((m.nv, m.nv))
    free = {b for b, _ in _standalone_free_bodies(plant)}
    for fluid in plant._force_elements:
        if not isinstance(fluid, MjcfFluidForces) or not fluid.num_items():
            continue
        if fluid._body is None:
            fluid._body = np.array([int(fluid._plant_bodies[it[0]].index()) for it in fluid._mj_bodies], np.int64)
        for i, b in enumerate(fluid._body.tolist()):
            R_WO = kin.R_WB[b] @ fluid._R_BO[i]
            p_WO = kin.p_WB[b] + kin.R_WB[b] @ fluid._p_BO[i]
            J = pl.point_jacobian(m.ji, kin.S, b, p_WO)
            J[:3] = R_WO.T @ J[:3]
            J[3:] = R_WO.T @ J[3:]
            w_W = kin.V[b, :3]
            v_W = kin.V[b, 3:] + np.cross(w_W, p_WO) - fluid._wind
            B = _fluid_local_jacobian(fluid, i, R_WO.T @ w_W, R_WO.T @ v_W)
            if symmetrize and b not in free:
                B = 0.5 * (B + B.T)
            D += J.T @ B @ J
    return D


def _mass_matrix_hat(plant, kin, h: float) -> np.ndarray:
    """M̂ = M + h·diag(joint damping) + tendon armature: the matrix of MuJoCo's Euler step (eulerdamp)."""
    m = plant._model
    M = pl.mass_matrix_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw)
    M[np.diag_indices(m.nv)] += h * m.damping
    if getattr(plant, "_tendon_inertia", None) is not None:
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
    pattern = getattr(plant, "_mjcf_tree_pattern", None)
    if pattern is None or pattern.shape[0] != m.nv:
        pattern = plant._mjcf_tree_pattern = _tree_pattern(m.ji, m.nv)
    if scheme == "implicit":
        D -= CalcBiasVelocityDerivative(plant, kin)
        a = np.linalg.solve(M_hat - h * np.where(pattern, D, 0.0), qfrc)
    else:
        lower = np.tril(np.where(pattern, D, 0.0))
        D_sym = lower + np.tril(lower, -1).T
        a = np.linalg.solve(M_hat - h * D_sym, qfrc)
        for _b, s in _standalone_free_bodies(plant):  # the block's own LU with the gyroscopic derivative
            blk = slice(s, s + 6)
            dC = CalcBiasVelocityDerivative(plant, kin, np.arange(s, s + 6))[blk]
            A = M_hat[blk, blk] - h * D[blk, blk] + h * dC
            a[blk] = np.linalg.solve(A, qfrc[blk])
    a = np.ascontiguousarray(a, dtype=np.float64)
    x_next = NextState(m.order, m.ji, kin.q, kin.v, a, h,
                       plant.get_constraint_solver_options().position_integration_is_mujoco(plant))
    return x_next, a
