"""MuJoCo's fourth-order Runge–Kutta integrator (`<option integrator="RK4">`) for the discrete plant of MJCF
models, as the installed MuJoCo (4.0) steps it.

The state X = (q, v, act) is advanced with the classic tableau (A = [½; 0 ½; 0 0 1], B = [⅙ ⅓ ⅓ ⅙]). Stage i
starts from X₀: positions q₀ ⊕ h·Σⱼ A_ij kⱼ (mj_integratePos), velocities and activations X₀ + h·Σⱼ A_ij (v̇ⱼ, ȧⱼ),
velocities in MuJoCo's coordinates (ball / free joint angular velocity in the child frame). kⱼ is stage j's
velocity, except that each quaternion joint's angular part is pulled back to q₀'s tangent space,
kⱼ = dexp⁻¹_{−Ωⱼ}(ωⱼ) with qⱼ = q₀ ⊗ exp(Ωⱼ) (a Munthe-Kaas Lie-group RK4; for hinges and slides kⱼ = vⱼ, the
textbook scheme). Each stage's v̇ᵢ is a full forward pass at the stage state, the constraint solve included, with
ctrl and applied forces held at their step-start values; ȧᵢ are the activation rates there (actearly actuators
look ahead from the stage's own activations). The step then advances with the B-weighted averages:
v⁺ = v₀ + h·v̄̇, q⁺ = q₀ ⊕ h·k̄ and act⁺ = mj_nextActivation(act₀, ā̇) (filterexact integrated exactly, clamped to
actrange, so3 setpoints re-anchored).

Every stage acceleration is MuJoCo's qacc = M⁻¹(qfrc_smooth + qfrc_constraint), damping explicit: the plant's
Euler step at the stage state gives a with M̂·a = qfrc_smooth + qfrc_constraint (M̂ = M + h·diag(damping) +
tendon armature, constraints solved with M), so qacc = (M̂ − h·diag(damping))⁻¹·M̂·a. The stages are evaluated
in a scratch copy of the root context (the plant's inputs other than geometry_query fixed to their step-start
values, the SceneGraph in the copy seeing the stage poses), so the caller's context and caches are untouched.
The plant selects this scheme with `plant._mjcf_integrator == "RK4"` (parsers/mjcf/to_plant.py); models with
engine plugins keep Euler (plugin state advances once per step in the plant).
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from ..kernels.contact_kernels import NextState
from ..pipeline.integrate import QuaternionJoints, dexpinv_quaternion_blocks, rotate_quaternion_blocks
from .implicit import _mass_matrix_hat

__all__ = ["RungeKuttaScratch", "RungeKuttaStep", "RungeKuttaNextActivations", "IsRungeKuttaStageContext"]

#: the classic RK4 tableau, as MuJoCo's RK4_A (row i: the stage i + 1 weights) and RK4_B
_A = ((0.5,), (0.0, 0.5), (0.0, 0.0, 1.0))
_B = (1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0)
_C = (0.5, 0.5, 1.0)


class RungeKuttaScratch:
    """The RK4 step's per-process scratch, made at Finalize (`plant._mjcf_rk4`): the stage contexts per root context
    and the last step's next activations. Process-local (it holds contexts by identity): a pickled or copied plant
    gets an empty one."""

    def __init__(self):
        self.stages: dict = {}  # id(root) -> (weakref(root), valued input ports, scratch root, its plant context)
        self.act: tuple | None = None  # (weakref(context), q0, v0, act0, ctrl, act⁺) of the last step

    def __reduce__(self):
        return (RungeKuttaScratch, ())


def IsRungeKuttaStageContext(plant, context) -> bool:
    """True for the scratch context in which RK4 evaluates its stages (the plant's Euler step there is a stage)."""
    return any(entry[3] is context for entry in plant._mjcf_rk4.stages.values())


def _ValuedInputs(plant, context) -> tuple:
    """The indices of the plant's input ports (geometry_query excepted) that have a value in `context`."""
    skip = plant.get_geometry_query_input_port().get_index()
    return tuple(i for i in range(plant.num_input_ports())
                 if i != skip and plant.get_input_port(i).HasValue(context))


def _StageContext(plant, context):
    """(root, plant context) of a scratch copy of `context`'s root, synchronized with it (state, parameters,
    time) and with the plant's inputs fixed to their values in `context` (MuJoCo holds ctrl and applied forces
    over the step). Kept per root context and rebuilt when the set of valued inputs changes."""
    root = context._root
    valued = _ValuedInputs(plant, context)
    store = plant._mjcf_rk4.stages
    entry = store.get(id(root))
    if entry is None or entry[0]() is not root or entry[1] != valued:
        for key in [k for k, e in store.items() if e[0]() is None]:
            del store[key]
        clone = root.Clone()
        stage = plant.GetMyContextFromRoot(clone)
        entry = store[id(root)] = (weakref.ref(root), valued, clone, stage)
    _ref, _valued, clone, stage = entry
    clone.SetStateAndParametersFrom(root)
    for i in valued:
        port = plant.get_input_port(i)
        port.FixValue(stage, port.Eval(context))
    return clone, stage


def _Rotate(q: np.ndarray, x: np.ndarray, dofs, transpose: bool) -> np.ndarray:
    """x with each quaternion joint's angular block mapped by R_FM(q) (or its transpose)."""
    return rotate_quaternion_blocks(np.ascontiguousarray(q, dtype=np.float64), np.ascontiguousarray(x, dtype=np.float64),
                          dofs[0], dofs[1], transpose)


def _Qacc(plant, kin, a_euler: np.ndarray) -> np.ndarray:
    """MuJoCo's forward qacc = (M̂ − h·diag(damping))⁻¹·M̂·a from the Euler step's acceleration a."""
    m = plant._model
    if not m.damping.any():
        return a_euler
    h = plant._time_step
    M_hat = _mass_matrix_hat(plant, kin, h)
    M = M_hat.copy()
    M[np.diag_indices(m.nv)] -= h * m.damping
    try:
        return np.linalg.solve(M, M_hat @ a_euler)
    except np.linalg.LinAlgError:
        raise RuntimeError(f"MultibodyPlant '{plant.get_name()}': the mass matrix is singular in an RK4 stage; "
                           "give every moving body mass (or its joints armature)") from None


def _AdvanceActivations(act_model, act0: np.ndarray, adot: np.ndarray) -> np.ndarray:
    """mj_advance's activations from the averaged rates: act₀ + h·ȧ (filterexact: act₀ + ȧ·τ·(1 − e^(−h/τ))),
    clamped to actrange, then an so3 integrator's setpoint re-anchored to angle ≤ π."""
    h = act_model.h
    nxt = act0 + h * adot
    for i in np.flatnonzero((act_model.actadr >= 0) & (act_model.dyn == 3)):
        k, tau = act_model.actadr[i], act_model.tau[i]
        nxt[k] = act0[k] + adot[k] * tau * (1.0 - math.exp(-h / tau))
    for i in np.flatnonzero(act_model.actadr >= 0):
        k = act_model.actadr[i]
        nxt[k] = min(max(nxt[k], act_model.act_lo[i]), act_model.act_hi[i])
    for servo in act_model.so3:
        if act_model.actadr[servo.rows[0]] >= 0:
            k = act_model.actadr[servo.rows]
            angle = float(np.linalg.norm(nxt[k]))
            if angle > math.pi:
                nxt[k] *= (angle - 2.0 * math.pi * math.floor(angle / (2.0 * math.pi) + 0.5)) / angle
    return nxt


def _DexpInvTangents(q0: np.ndarray, q: np.ndarray, w: np.ndarray, dofs) -> np.ndarray:
    """The stage velocity w pulled back to q₀'s tangent space (quaternion blocks; pipeline/integrate.py dexpinv_quaternion_blocks)."""
    return dexpinv_quaternion_blocks(np.ascontiguousarray(q0, dtype=np.float64), np.ascontiguousarray(q, dtype=np.float64),
                           np.ascontiguousarray(w, dtype=np.float64), dofs[0], dofs[1])


def RungeKuttaStep(plant, context, kin, a_euler: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x⁺ = [q⁺; v⁺], v̄̇) of MuJoCo's RK4 step from the context's state, given the plant's Euler-step
    acceleration `a_euler` there (stage 1). Velocities and accelerations are combined in MuJoCo's coordinates
    (ball and free joints' angular velocities in the child frame); positions as q₀ ⊕ h·Σⱼ cⱼ·kⱼ, with kⱼ the
    stage velocity whose quaternion blocks are pulled back to q₀'s tangent space by dexp⁻¹ (Munthe-Kaas), as the
    installed MuJoCo (4.0) does. The next activations are kept for `RungeKuttaNextActivations`."""
    m = plant._model
    h = plant._time_step
    mujoco_q = plant.get_constraint_solver_options().position_integration_is_mujoco(plant)
    dofs = QuaternionJoints(m.ji)
    act_model = plant._mjcf_actuation if plant._mjcf_act_group is not None else None
    q0, v0 = np.array(kin.q, dtype=float), np.array(kin.v, dtype=float)
    zero = np.zeros(m.nv)
    if act_model is not None and act_model.na:
        ctrl = act_model.EvalCtrl(plant, context)
        act0 = np.array(act_model.GetActivations(plant, context), dtype=float)
        rates = [act_model.CalcActivationRates(ctrl, act0)]
    else:
        act_model, ctrl, act0, rates = None, None, np.zeros(0), [np.zeros(0)]

    def advance(tangent):  # q₀ ⊕ h·tangent (MuJoCo's mj_integratePos, tangent in MuJoCo's coordinates)
        v = np.ascontiguousarray(_Rotate(q0, tangent, dofs, transpose=False), dtype=np.float64)
        return NextState(m.order, m.ji, q0, v, zero, h, mujoco_q)[:m.nq]

    w0 = _Rotate(q0, v0, dofs, transpose=True)  # MuJoCo's qvel
    tangents = [w0]
    accs = [_Rotate(q0, _Qacc(plant, kin, np.asarray(a_euler, dtype=float)), dofs, transpose=True)]
    stage_root, stage = _StageContext(plant, context)
    t0 = context.get_time()
    for i, row in enumerate(_A):
        q_i = advance(sum(w * kj for w, kj in zip(row, tangents) if w))
        w_i = w0 + h * sum(w * aj for w, aj in zip(row, accs) if w)
        stage_root.SetTime(t0 + _C[i] * h)
        plant.SetPositionsAndVelocities(stage, np.concatenate([q_i, _Rotate(q_i, w_i, dofs, transpose=False)]))
        if act_model is not None:
            act_i = act0 + h * sum(w * rj for w, rj in zip(row, rates) if w)
            stage.get_mutable_discrete_state(plant._mjcf_act_group).SetFromVector(act_i)
            rates.append(act_model.CalcActivationRates(ctrl, act_i))
        _x, a_i, _u, _tau = plant._CalcDiscreteStep(stage)
        tangents.append(_DexpInvTangents(q0, q_i, w_i, dofs))
        accs.append(_Rotate(q_i, _Qacc(plant, plant._eval_kinematics(stage), a_i), dofs, transpose=True))
    x_next = np.empty(m.nq + m.nv)
    x_next[:m.nq] = advance(sum(w * kj for w, kj in zip(_B, tangents)))
    x_next[m.nq:] = _Rotate(x_next[:m.nq], w0 + h * sum(w * aj for w, aj in zip(_B, accs)), dofs, transpose=False)
    if act_model is not None:
        act_next = _AdvanceActivations(act_model, act0, sum(w * rj for w, rj in zip(_B, rates)))
        plant._mjcf_rk4.act = (weakref.ref(context), q0, v0, act0, ctrl, act_next)
    # the step's mean acceleration in the plant's coordinates: v⁺ = v + h·v̄̇
    return x_next, (x_next[m.nq:] - v0) / h


def RungeKuttaNextActivations(plant, context) -> np.ndarray:
    """MuJoCo's act after the RK4 step from `context` (the averaged activation rates through mj_advance)."""
    act_model = plant._mjcf_actuation
    kept = plant._mjcf_rk4.act
    if kept is not None and kept[0]() is context:
        _ref, q0, v0, act0, ctrl, act_next = kept
        if np.array_equal(q0, plant.GetPositions(context)) and np.array_equal(v0, plant.GetVelocities(context)) \
                and np.array_equal(act0, act_model.GetActivations(plant, context)) \
                and np.array_equal(ctrl, act_model.EvalCtrl(plant, context)):
            return act_next.copy()
    plant._CalcDiscreteStep(context)
    return plant._mjcf_rk4.act[5].copy()
