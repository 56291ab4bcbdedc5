"""Time integration of the discrete step (MuJoCo's mj_Euler, mj_implicit, mj_RungeKutta over mj_advance):

* Euler: semi-implicit v⁺ = v + h·v̇ (joint damping implicit in M̂), then q⁺ by Drake's q + h·N(q)·v⁺ or MuJoCo's
  mj_integratePos (quaternion joints advanced by the exact exponential map and renormalized).
* implicit / implicitfast: the constraints are solved as for Euler; the velocity update is then re-solved with the
  smooth forces' velocity derivative qDeriv (derivative.py): v̇ = (M̂ − h·qDeriv)⁻¹·(qfrc_smooth +
  qfrc_constraint), that force being M̂·qacc_smooth + Jᵀf (not M̂·v̇_Euler, which differs when the solver stops
  early, as MuJoCo's Newton does with few iterations or dry friction). implicitfast drops the bias derivative
  and symmetrizes qDeriv from its lower triangle (a Cholesky of the tree-sparse matrix), then re-solves each
  standalone free body's 6 × 6 block with its gyroscopic derivative and unsymmetrized fluid Jacobian (MuJoCo 4);
  implicit keeps the full derivative (LU per independent tree).
* RK4: the classic tableau over forward evaluations at stage states (forward.step runs them): stage velocities
  and accelerations combined in MuJoCo's coordinates (ball and free joints' angular velocity in the child frame),
  positions q₀ ⊕ h·Σ aⱼ·kⱼ with each quaternion joint's stage velocity pulled back to q₀'s tangent space by
  dexp⁻¹ (MuJoCo 4.0's Lie-group RK4). Stage accelerations are MuJoCo's forward qacc, damping explicit.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..contact.elimination import ReverseTreeSolve
from ..kernels.contact_kernels import NextState, next_state_into
from ..kernels.joint_kernels import BALL_QUATERNION, QUATERNION_FLOATING
from .derivative import free_body_bias_vel, smooth_vel
from .smooth import mass_matrix
from .structs import B1, B2, I1, INT, bools, declare, ints

EULER, IMPLICIT, IMPLICITFAST, RK4 = 0, 1, 2, 3
#: The plant's integrator names (MJCF `<option integrator>`, lower case but RK4) → codes; None: Euler.
INTEGRATOR_CODES = {None: EULER, "euler": EULER, "implicit": IMPLICIT, "implicitfast": IMPLICITFAST, "RK4": RK4}
#: The classic RK4 tableau (MuJoCo's RK4_A rows, RK4_B).
RK4_A = np.array([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
RK4_B = np.array([1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0])


@structref.register
class IntegratorModelType(types.StructRef):
    """numba type of IntegratorModel."""


class IntegratorModel(structref.StructRefProxy):
    """The integration scheme and the structure it needs (empty arrays where the scheme does not use them)."""


INTEGRATOR_MODEL = declare(IntegratorModelType, IntegratorModel, [
    ("integrator", INT),     # EULER, IMPLICIT, IMPLICITFAST or RK4
    ("pattern", B2),         # (nv, nv) dofs on one root-to-leaf path: qDeriv's sparsity (implicit schemes)
    ("free_body", I1),       # standalone free bodies (mj_isFreeBody; implicitfast)
    ("free_dof", I1),        # their first velocity index
    ("body_free", B1),       # (nb,) body is a standalone free body
    ("quat_q", I1),          # ball and free joints: q start of the quaternion (RK4)
    ("quat_v", I1),          # and v start of the angular velocity
])


@njit(cache=True)
def new_integrator_model(integrator, pattern, free_body, free_dof, body_free, quat_q, quat_v):
    g = structref.new(INTEGRATOR_MODEL)
    g.integrator, g.pattern, g.free_body, g.free_dof, g.body_free = integrator, pattern, free_body, free_dof, body_free
    g.quat_q, g.quat_v = quat_q, quat_v
    return g


def TreePattern(ji: np.ndarray, nv: int) -> np.ndarray:
    """pattern[i, k]: dofs i and k lie on one root-to-leaf path (where M has structural entries)."""
    pattern = np.zeros((nv, nv), bool)
    for b in range(1, ji.shape[0]):
        mine = range(ji[b, 4], ji[b, 4] + ji[b, 5])
        a = b
        while a > 0 and len(mine):
            for k in range(ji[a, 4], ji[a, 4] + ji[a, 5]):
                for i in mine:
                    pattern[i, k] = pattern[k, i] = True
            a = ji[a, 0]
    return pattern


def StandaloneFreeBodies(ji: np.ndarray, mass: np.ndarray) -> list[tuple[int, int]]:
    """(body, velocity start) of the free joints whose body is a standalone tree (6 dofs, no massive
    descendants): MuJoCo's mj_isFreeBody."""
    parent = ji[:, 0]
    found = []
    for b in range(1, ji.shape[0]):
        if ji[b, 1] != QUATERNION_FLOATING or parent[b] != 0:
            continue
        massive, dofs = False, 0
        for c in range(1, ji.shape[0]):
            a = c
            while a > 0 and a != b:
                a = parent[a]
            if a == b and c != b:
                massive |= mass[c] > 0
                dofs += ji[c, 5]
        if not massive and dofs == 0:
            found.append((b, int(ji[b, 4])))
    return found


def QuaternionJoints(ji: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q starts, v starts) of the ball and free joints, whose angular velocity the plant keeps in the parent
    frame F and MuJoCo in the child frame M (v_F = R_FM·v_M)."""
    rows = np.flatnonzero((ji[:, 1] == QUATERNION_FLOATING) | (ji[:, 1] == BALL_QUATERNION))
    return ints(ji[rows, 2]), ints(ji[rows, 4])


def IntegratorCode(plant) -> int:
    """The plant's integration scheme (`plant._mjcf_integrator`, set by the MJCF mapping; None: Euler) as a code."""
    return INTEGRATOR_CODES[plant._mjcf_integrator]


def CompileIntegrator(plant) -> IntegratorModel:
    """The plant's integration scheme and the structure it needs."""
    m = plant._model
    code = IntegratorCode(plant)
    implicit = code in (IMPLICIT, IMPLICITFAST)
    pattern = TreePattern(m.ji, m.nv) if implicit else np.zeros((0, 0), bool)
    free = StandaloneFreeBodies(m.ji, m.body_params[:, 0]) if code == IMPLICITFAST else []
    body_free = np.zeros(m.nb, bool)
    for b, _ in free:
        body_free[b] = True
    quat_q, quat_v = QuaternionJoints(m.ji) if code == RK4 else (ints(np.zeros(0)), ints(np.zeros(0)))
    return new_integrator_model(code, np.ascontiguousarray(pattern), ints([b for b, _ in free]),
                                ints([s for _, s in free]), bools(body_free), quat_q, quat_v)


def EulerIntegrator(plant) -> IntegratorModel:
    """The Euler IntegratorModel of the plant (whatever its own scheme)."""
    z = ints(np.zeros(0))
    return new_integrator_model(EULER, np.zeros((0, 0), bool), z, z, bools(np.zeros(plant._model.nb)), z, z)


# ---- Euler -----------------------------------------------------------------------------------------------------
@njit(cache=True)
def advance(m, q, v, a, x_next):
    """[q⁺; v⁺] of v⁺ = v + h·a and q⁺ from q, v⁺ into x_next[:nq + nv]. Returns True when every entry is finite."""
    t = m.tree
    next_state_into(t.order, t.ji, q, v, a, t.h, m.opt.mujoco_positions, x_next)
    finite = True
    for i in range(t.nq + t.nv):
        if not np.isfinite(x_next[i]):
            finite = False
    return finite


@njit(cache=True)
def euler(m, d, x_next):
    """[q⁺; v⁺] into x_next[:nq + nv]. Returns True when every entry is finite."""
    return advance(m, d.q, d.v, d.qacc, x_next)


# ---- implicit / implicitfast -----------------------------------------------------------------------------------
@njit(cache=True)
def _solve_blocks(A, blocks, b):
    """x = A⁻¹·b for A block diagonal over the dof ranges `blocks` (LU per block)."""
    x = np.empty(b.shape[0])
    for k in range(blocks.shape[0] - 1):
        s, e = blocks[k], blocks[k + 1]
        if e > s:
            x[s:e] = np.linalg.solve(np.ascontiguousarray(A[s:e, s:e]), np.ascontiguousarray(b[s:e]))
    return x


@njit(cache=True)
def implicit(m, d, ctrl, x_next):
    """MuJoCo's implicit / implicitfast velocity update of the force qfrc_smooth + qfrc_constraint (M̂·qacc_smooth +
    Jᵀf: a solve that stops before convergence, as MuJoCo's Newton with few iterations or dry friction, leaves
    M̂·qacc ≠ that force, and MuJoCo integrates the force); d.qacc becomes the step's acceleration. Returns True
    when x⁺ is finite.
    Raises np.linalg.LinAlgError when M̂ − h·qDeriv is singular (implicitfast: not positive definite)."""
    t = m.tree
    g = m.integ
    nv, h = t.nv, t.h
    if not m.opt.use_solver:  # the dense unconstrained step does not keep M̂
        mass_matrix(m, d)
    Mh = d.M
    qfrc = Mh @ d.qacc_smooth + d.qfrc_constraint if m.opt.use_solver else Mh @ d.qacc
    fast = g.integrator == IMPLICITFAST
    smooth_vel(m, d, ctrl, not fast, fast)
    D = d.qDeriv
    if fast:  # symmetric from the lower triangle: A[i, k] = M̂[i, k] − h·D[k, i] for i <= k, the entries of each
        # tree's upper triangle, all that ReverseTreeSolve reads
        nfree = g.free_body.shape[0]
        if 6 * nfree == nv:  # only standalone free bodies: each one's 6 × 6 solve below gives its accelerations
            a = np.empty(nv)
        else:
            A = np.empty((nv, nv))
            blocks = t.mass_blocks
            for blk in range(blocks.shape[0] - 1):
                e = blocks[blk + 1]
                for i in range(blocks[blk], e):
                    for k in range(i, e):
                        A[i, k] = Mh[i, k] - h * D[k, i]
            a = ReverseTreeSolve(A, t.mass_blocks, qfrc)
        if nfree:
            dC = np.empty((6, 6))
            scale = 1.0  # the central differences' step (derivative.bias_vel_columns)
            for i in range(nv):
                scale = max(scale, abs(d.v[i]))
            vs = d.v.copy()
            for f in range(nfree):
                s = g.free_dof[f]
                free_body_bias_vel(m, d, g.free_body[f], scale, vs, dC)
                A6 = np.empty((6, 6))
                for i in range(6):
                    for k in range(6):
                        A6[i, k] = Mh[s + i, s + k] - h * D[s + i, s + k] + h * dC[i, k]
                a[s:s + 6] = np.linalg.solve(A6, np.ascontiguousarray(qfrc[s:s + 6]))
    else:
        A = np.empty((nv, nv))
        for i in range(nv):
            for k in range(nv):
                A[i, k] = Mh[i, k] - h * D[i, k]
        a = _solve_blocks(A, t.mass_blocks, qfrc)
    d.qacc = a
    return euler(m, d, x_next)


# ---- RK4 -------------------------------------------------------------------------------------------------------
@njit(cache=True)
def rotate_quaternion_blocks(q, x, qs, vs, transpose):
    """x with each quaternion joint's angular block mapped by R_FM(q) (or its transpose), q blocks [w x y z]."""
    out = x.copy()
    for k in range(qs.shape[0]):
        a = qs[k]
        n = math.sqrt(q[a] ** 2 + q[a + 1] ** 2 + q[a + 2] ** 2 + q[a + 3] ** 2)
        w, i, j, l = q[a] / n, q[a + 1] / n, q[a + 2] / n, q[a + 3] / n
        R = np.empty((3, 3))
        R[0, 0], R[0, 1], R[0, 2] = 1 - 2 * (j * j + l * l), 2 * (i * j - w * l), 2 * (i * l + w * j)
        R[1, 0], R[1, 1], R[1, 2] = 2 * (i * j + w * l), 1 - 2 * (i * i + l * l), 2 * (j * l - w * i)
        R[2, 0], R[2, 1], R[2, 2] = 2 * (i * l - w * j), 2 * (j * l + w * i), 1 - 2 * (i * i + j * j)
        b = vs[k]
        for r in range(3):
            acc = 0.0
            for c in range(3):
                acc += (R[c, r] if transpose else R[r, c]) * x[b + c]
            out[b + r] = acc
    return out


@njit(cache=True)
def dexpinv_quaternion_blocks(q0, q, w, qs, vs):
    """w with each quaternion joint's angular block (child frame) mapped to the tangent at q₀ of the curve through
    q = q₀ ⊗ exp(Ω): dexp⁻¹_{−Ω}(w) = w + ½ Ω × w + (1/θ² − (1 + cos θ)/(2θ sin θ)) Ω × (Ω × w), θ = |Ω|."""
    out = w.copy()
    for k in range(qs.shape[0]):
        a = qs[k]
        aw, ax, ay, az = q0[a], q0[a + 1], q0[a + 2], q0[a + 3]
        bw, bx, by, bz = q[a], q[a + 1], q[a + 2], q[a + 3]
        # rel = conj(q₀) ⊗ q
        rw = aw * bw + ax * bx + ay * by + az * bz
        rx = aw * bx - bw * ax - (ay * bz - az * by)
        ry = aw * by - bw * ay - (az * bx - ax * bz)
        rz = aw * bz - bw * az - (ax * by - ay * bx)
        if rw < 0.0:
            rw, rx, ry, rz = -rw, -rx, -ry, -rz
        s = math.sqrt(rx * rx + ry * ry + rz * rz)
        if s == 0.0:
            continue
        theta = 2.0 * math.atan2(s, rw)
        ox, oy, oz = rx * theta / s, ry * theta / s, rz * theta / s
        if theta < 1e-3:
            c = 1.0 / 12.0 + theta ** 2 / 720.0 + theta ** 4 / 30240.0
        else:
            c = 1.0 / theta ** 2 - (1.0 + math.cos(theta)) / (2.0 * theta * math.sin(theta))
        b = vs[k]
        wx, wy, wz = w[b], w[b + 1], w[b + 2]
        px, py, pz = oy * wz - oz * wy, oz * wx - ox * wz, ox * wy - oy * wx  # Ω × w
        qx, qy, qz = oy * pz - oz * py, oz * px - ox * pz, ox * py - oy * px  # Ω × (Ω × w)
        out[b], out[b + 1], out[b + 2] = wx + 0.5 * px + c * qx, wy + 0.5 * py + c * qy, wz + 0.5 * pz + c * qz
    return out


@njit(cache=True)
def forward_qacc(m, d):
    """MuJoCo's forward qacc = M⁻¹·(qfrc_smooth + qfrc_constraint) (damping explicit) from the Euler step's d.qacc:
    (M̂ − h·diag(damping))⁻¹·M̂·qacc. Raises np.linalg.LinAlgError when M is not positive definite."""
    t = m.tree
    if not t.has_damping:
        return d.qacc.copy()
    if not m.opt.use_solver:
        mass_matrix(m, d)
    M = d.M.copy()
    for i in range(t.nv):
        M[i, i] -= t.h * t.damping[i]
    return ReverseTreeSolve(M, t.mass_blocks, d.M @ d.qacc)


@njit(cache=True)
def rk4_position(m, q0, tangent, x):
    """x[:nq] = q₀ ⊕ h·tangent (mj_integratePos; tangent in MuJoCo's coordinates)."""
    t = m.tree
    g = m.integ
    v = rotate_quaternion_blocks(q0, tangent, g.quat_q, g.quat_v, False)
    qn = NextState(t.order, t.ji, q0, v, np.zeros(t.nv), t.h, m.opt.mujoco_positions)
    x[:t.nq] = qn[:t.nq]


@njit(cache=True)
def rk4_stage_state(m, q0, w0, K, Acc, i, x):
    """The state of RK4 stage i (1..3) into x[:nq + nv]: q₀ ⊕ h·Σⱼ A_ij·kⱼ, velocity w₀ + h·Σⱼ A_ij·aⱼ (rotated to
    the plant's coordinates at the stage's q); K, Acc rows: the stages' tangents and accelerations so far."""
    t = m.tree
    g = m.integ
    nq, nv = t.nq, t.nv
    tangent = np.zeros(nv)
    acc = np.zeros(nv)
    for j in range(i):
        wij = RK4_A[i - 1, j]
        if wij != 0.0:
            tangent += wij * K[j]
            acc += wij * Acc[j]
    rk4_position(m, q0, tangent, x)
    w = w0 + t.h * acc
    x[nq:nq + nv] = rotate_quaternion_blocks(x[:nq], w, g.quat_q, g.quat_v, False)
    return w


@njit(cache=True)
def rk4_record(m, d, q0, w, i, K, Acc):
    """Stage i's tangent (its velocity pulled back to q₀'s tangent space) and forward acceleration (MuJoCo's
    coordinates), from Data after the stage's forward."""
    g = m.integ
    K[i] = dexpinv_quaternion_blocks(q0, d.q, w, g.quat_q, g.quat_v)
    Acc[i] = rotate_quaternion_blocks(d.q, forward_qacc(m, d), g.quat_q, g.quat_v, True)


@njit(cache=True)
def rk4_finish(m, q0, v0, w0, K, Acc, x_next):
    """x⁺ = [q₀ ⊕ h·Σ Bⱼ·kⱼ; w₀ + h·Σ Bⱼ·aⱼ] (velocity in the plant's coordinates at q⁺) into x_next; returns
    (v̇ = (v⁺ − v₀)/h, x⁺ finite)."""
    t = m.tree
    g = m.integ
    nq, nv = t.nq, t.nv
    tangent = np.zeros(nv)
    acc = np.zeros(nv)
    for j in range(4):
        tangent += RK4_B[j] * K[j]
        acc += RK4_B[j] * Acc[j]
    rk4_position(m, q0, tangent, x_next)
    x_next[nq:nq + nv] = rotate_quaternion_blocks(x_next[:nq], w0 + t.h * acc, g.quat_q, g.quat_v, False)
    vdot = (x_next[nq:nq + nv] - v0) / t.h
    finite = True
    for i in range(nq + nv):
        if not np.isfinite(x_next[i]):
            finite = False
    return vdot, finite
