"""Equality constraint rows of the discrete step (MuJoCo's mj_instantiateEquality and mj_Jdotv, MJX's
constraint.py `_instantiate_equality_*`): the plant's ball (MuJoCo connect), weld, distance and coupler constraints
and MJCF joint and tendon equalities, the head rows of the constraint problem (before dry friction and limits).

Per equality k, `rows(k)` rows J (rows × nv), residual `pos` (→ 0), the J̇·v that MuJoCo subtracts from aref
(connect, weld; distance its own), and the impedance position (the residual's norm for connect / weld, the residual
for the one-row kinds). Regularizer inputs (diagApprox, solref, solimp) are fixed per equality:

* connect (Drake's AddBallConstraint): p_WP − p_WQ, P on A, Q on B; J = J_P − J_Q (translational);
* weld (AddWeldConstraint): [p_WP − p_WQ; s·vec(q_WQ⁻¹ ⊗ q_WP)], the rotational rows
  ½·s·vec(q_WQ⁻¹ ⊗ (ω_A − ω_B) ⊗ q_WP) per unit velocity (s: torquescale);
* distance (AddDistanceConstraint): |p_WP − p_WQ| − ℓ along u = (p_WP − p_WQ)/|·|; a finite stiffness k and
  damping c give MuJoCo's direct solref (−k·w, −c·w) with w the bodies' translational inverse weight;
* joint (AddCouplerConstraint, MJCF joint equality): q₀ − q₀ʳ − c₀ − (c₁x + c₂x² + c₃x³ + c₄x⁴), x = q₁ − q₁ʳ;
* tendon (MJCF tendon equality): the same polynomial over tendon lengths L − L₀, read from the tendon stage's
  lengths and moment arms (`ten_length`, `ten_J`: the hook for the tendon stage; the Python path passes its own).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..contact.parameters import ValidateSolimp, ValidateSolref
from ..kernels.contact_kernels import PointJacobians
from ..kernels.kinematics import acceleration_to_point, calc_accelerations
from ..math.functions import quaternion_from_rotation_matrix, quaternion_multiply
from .structs import F2, I1, I2, INT, declare, floats, ints

EQ_CONNECT, EQ_WELD, EQ_JOINT, EQ_DISTANCE, EQ_TENDON = 0, 1, 2, 3, 4
EQ_ROWS = (3, 6, 1, 1, 1)
EQ_DATA = 16  #: columns of eq_data (see EQUALITY_MODEL)
#: Status codes of `EqualityRows` / `equality` (d.bad_index: the equality).
EQ_OK, EQ_COINCIDENT_POINTS = 0, 1


@structref.register
class EqualityModelType(types.StructRef):
    """numba type of EqualityModel."""


class EqualityModel(structref.StructRefProxy):
    """The plant's equality constraints, one row each, in the plant's constraint order."""


EQUALITY_MODEL = declare(EqualityModelType, EqualityModel, [
    ("ne", INT),                # rows of all equalities
    ("eq_type", I1),            # EQ_*
    ("eq_adr", I1),             # first row of each equality
    ("eq_obj", I2),             # (neq, 2): bodies A, B; joint q indices (−1: none); tendon indices (−1: none)
    ("eq_dof", I2),             # (neq, 2): joint v indices (−1: none)
    ("eq_data", F2),            # (neq, EQ_DATA): connect / distance p_AP (3), p_BQ (3), distance ℓ [m],
                                # stiffness [N/m], damping [N·s/m];
                                # weld p_AP, p_BQ, q_AP (4), q_BQ (4), torquescale; joint / tendon polycoef (5),
                                # reference of object 0 and 1 (qpos0 or length0)
    ("eq_invweight", F2),       # (neq, 2): MuJoCo's diagApprox of the translational (or only) and rotational rows
    ("eq_solref", F2), ("eq_solimp", F2),   # validated (neq, 2) and (neq, 5)
])


@njit(cache=True)
def new_equality_model(ne, eq_type, eq_adr, eq_obj, eq_dof, eq_data, eq_invweight, eq_solref, eq_solimp):
    e = structref.new(EQUALITY_MODEL)
    e.ne, e.eq_type, e.eq_adr, e.eq_obj, e.eq_dof = ne, eq_type, eq_adr, eq_obj, eq_dof
    e.eq_data, e.eq_invweight, e.eq_solref, e.eq_solimp = eq_data, eq_invweight, eq_solref, eq_solimp
    return e


def CompileEquality(equalities: list, body_invweight0: np.ndarray, dof_invweight0: np.ndarray,
                    tendon_index=None) -> EqualityModel:
    """The EqualityModel of the plant's equalities (see EqualityArrays)."""
    return new_equality_model(*EqualityArrays(equalities, body_invweight0, dof_invweight0, tendon_index))


def EqualityArrays(equalities: list, body_invweight0: np.ndarray, dof_invweight0: np.ndarray,
                   tendon_index=None) -> tuple:
    """The EqualityModel's fields (in declaration order) of the plant's equalities as resolved at Finalize (dicts
    of contact/constraint_rows.py: kind, name, bodies, points and frames, joints' q / v indices, polycoef,
    parameters `par`). `tendon_index(e)` gives a tendon equality's (index of tendon 1, of tendon 2 or −1, length0
    of each, tendon_invweight0 sum) in the tendon arrays the stage reads. Raises ValueError naming the constraint
    for invalid parameters."""
    n = len(equalities)
    tp, obj, dof = np.zeros(n, np.int64), np.full((n, 2), -1, np.int64), np.full((n, 2), -1, np.int64)
    data, iw = np.zeros((n, EQ_DATA)), np.zeros((n, 2))
    ref, imp = np.zeros((n, 2)), np.zeros((n, 5))
    for k, e in enumerate(equalities):
        kind, name = e["kind"], e["name"]
        solref = e["par"]["solref"]
        if kind in ("connect", "weld", "distance"):
            a, b = e["a"], e["b"]
            obj[k] = a, b
            data[k, 0:3], data[k, 3:6] = e["p_AP"], e["p_BQ"]
            iw[k] = body_invweight0[a, 0] + body_invweight0[b, 0], body_invweight0[a, 1] + body_invweight0[b, 1]
            tp[k] = {"connect": EQ_CONNECT, "weld": EQ_WELD, "distance": EQ_DISTANCE}[kind]
            if kind == "weld":
                data[k, 6:10] = quaternion_from_rotation_matrix(np.ascontiguousarray(e["R_AP"], dtype=np.float64))
                data[k, 10:14] = quaternion_from_rotation_matrix(np.ascontiguousarray(e["R_BQ"], dtype=np.float64))
                data[k, 14] = e["par"]["torquescale"]
            elif kind == "distance":
                if not e["distance"] > 0:
                    raise ValueError(f"equality constraint '{name}': distance must be > 0 m, got {e['distance']}")
                data[k, 6] = e["distance"]
                data[k, 7], data[k, 8] = e["stiffness"], e["damping"]  # Drake's SAP distance constraint
                if np.isfinite(e["stiffness"]):  # Drake's compliant distance constraint: MuJoCo's direct solref
                    solref = (-e["stiffness"] * iw[k, 0], -e["damping"] * iw[k, 0])
        elif kind == "coupler":
            tp[k] = EQ_JOINT
            poly = np.asarray(e["poly"], dtype=np.float64).reshape(-1)
            if poly.size > 5 or not np.all(np.isfinite(poly)):
                raise ValueError(f"equality constraint '{name}': polycoef must be up to 5 finite numbers, got "
                                 f"{list(poly)}")
            data[k, :poly.size] = poly
            data[k, 5], data[k, 6] = e.get("refs", (0.0, 0.0))
            obj[k, 0], dof[k, 0] = e["q0"], e["v0"]
            iw[k, 0] = dof_invweight0[e["v0"]]
            if e["q1"] is not None:
                obj[k, 1], dof[k, 1] = e["q1"], e["v1"]
                iw[k, 0] += dof_invweight0[e["v1"]]
        elif kind == "tendon":
            if tendon_index is None:
                raise ValueError(f"equality constraint '{name}': tendon equalities need the tendon lengths")
            tp[k] = EQ_TENDON
            t1, t2, L1, L2, iw_t = tendon_index(e)
            obj[k] = t1, t2
            data[k, :5] = np.asarray(e["spec"]["polycoef"], dtype=np.float64)[:5]
            data[k, 5], data[k, 6] = L1, L2
            iw[k, 0] = iw_t
        else:
            raise ValueError(f"equality constraint '{name}': unknown kind '{kind}'")
        ref[k] = ValidateSolref(solref, "equality constraint", name)
        imp[k] = ValidateSolimp(e["par"]["solimp"], "equality constraint", name)
    adr = np.zeros(n, np.int64)
    ne = 0
    for k in range(n):
        adr[k] = ne
        ne += EQ_ROWS[tp[k]]
    return (int(ne), ints(tp), ints(adr), ints(obj, (n, 2)), ints(dof, (n, 2)), floats(data, (n, EQ_DATA)),
            floats(iw, (n, 2)), floats(ref, (n, 2)), floats(imp, (n, 5)))


# ---- rows --------------------------------------------------------------------------------------------------
@njit(cache=True)
def _pure(x, y, z):
    out = np.empty(4)
    out[0], out[1], out[2], out[3] = 0.0, x, y, z
    return out


@njit(cache=True)
def _conj(q):
    out = np.empty(4)
    out[0], out[1], out[2], out[3] = q[0], -q[1], -q[2], -q[3]
    return out


@njit(cache=True)
def _point(R_WB, p_WB, b, p_B):
    """p_WP of the point p_B of body b."""
    out = np.empty(3)
    for i in range(3):
        out[i] = p_WB[b, i] + R_WB[b, i, 0] * p_B[0] + R_WB[b, i, 1] * p_B[1] + R_WB[b, i, 2] * p_B[2]
    return out


@njit(cache=True)
def _weld_rotation(e, k, a, b, R_WB, V, A0, Jw, J, pos, jdv, r):
    """The rotational rows r..r+2 of weld k: orientation error, Jacobian and J̇·v (MuJoCo's weld and mj_Jdotv)."""
    nv = J.shape[1]
    q_AP, q_BQ, ts = e.eq_data[k, 6:10], e.eq_data[k, 10:14], e.eq_data[k, 14]
    q_WA = quaternion_from_rotation_matrix(R_WB[a])
    q_WB = quaternion_from_rotation_matrix(R_WB[b])
    q_WP = quaternion_multiply(q_WA, q_AP)
    nq1 = _conj(quaternion_multiply(q_WB, q_BQ))
    for j in range(nv):
        col = quaternion_multiply(quaternion_multiply(nq1, _pure(Jw[0, j], Jw[1, j], Jw[2, j])), q_WP)
        for i in range(3):
            J[r + i, j] = 0.5 * ts * col[i + 1]
    err = quaternion_multiply(nq1, q_WP)
    w_A, w_B = V[a, :3], V[b, :3]
    dw = _pure(w_A[0] - w_B[0], w_A[1] - w_B[1], w_A[2] - w_B[2])
    # d/dt q_WP = ½ (0, ω_WA) ⊗ q_WP with ω in W (MuJoCo's mju_derivQuat on the full quaternion)
    qdot_P = 0.5 * quaternion_multiply(_pure(w_A[0], w_A[1], w_A[2]), q_WP)
    nqdot_Q = _conj(0.5 * quaternion_multiply(_pure(w_B[0], w_B[1], w_B[2]), quaternion_multiply(q_WB, q_BQ)))
    djrdv = _pure(A0[a, 0] - A0[b, 0], A0[a, 1] - A0[b, 1], A0[a, 2] - A0[b, 2])
    t = (quaternion_multiply(quaternion_multiply(nqdot_Q, dw), q_WP)
         + quaternion_multiply(quaternion_multiply(nq1, djrdv), q_WP)
         + quaternion_multiply(quaternion_multiply(nq1, dw), qdot_P))
    for i in range(3):
        pos[r + i] = ts * err[i + 1]
        jdv[r + i] = 0.5 * ts * t[i + 1]


@njit(cache=True)
def EqualityRows(e, order, ji, S, c, V, R_WB, p_WB, q, v, ten_length, ten_J, J, pos, jdv, gpos):
    """The rows of every equality at the kinematics (S, c, V, R_WB, p_WB at q, v) into J (ne × nv, zeroed here),
    pos (ne), jdv (ne) and the impedance positions gpos (neq). Tendon equalities read the tendon lengths and
    moment arms `ten_length`, `ten_J`. Returns EQ_OK, or EQ_COINCIDENT_POINTS with the equality (distance points
    that coincide: the direction is undefined)."""
    neq = e.eq_type.shape[0]
    nv = J.shape[1]
    J[:, :] = 0.0
    A0 = np.zeros((0, 6))
    for k in range(neq):
        if e.eq_type[k] != EQ_JOINT and e.eq_type[k] != EQ_TENDON:
            A0 = calc_accelerations(order, ji, S, c, np.zeros(nv))  # bias accelerations (v̇ = 0) for J̇·v
            break
    for k in range(neq):
        tp, r = e.eq_type[k], e.eq_adr[k]
        d = e.eq_data[k]
        if tp == EQ_JOINT or tp == EQ_TENDON:
            i0, i1 = e.eq_obj[k, 0], e.eq_obj[k, 1]
            if tp == EQ_JOINT:
                x0 = q[i0]
                J[r, e.eq_dof[k, 0]] = 1.0
            else:
                x0 = ten_length[i0]
                for j in range(nv):
                    J[r, j] = ten_J[i0, j]
            res = x0 - d[5] - d[0]
            if i1 >= 0:
                x = (q[i1] if tp == EQ_JOINT else ten_length[i1]) - d[6]
                res -= d[1] * x + d[2] * x ** 2 + d[3] * x ** 3 + d[4] * x ** 4
                deriv = d[1] + 2 * d[2] * x + 3 * d[3] * x ** 2 + 4 * d[4] * x ** 3
                if tp == EQ_JOINT:
                    J[r, e.eq_dof[k, 1]] -= deriv
                else:
                    for j in range(nv):
                        J[r, j] -= deriv * ten_J[i1, j]
            pos[r], jdv[r], gpos[k] = res, 0.0, res
            continue
        a, b = e.eq_obj[k, 0], e.eq_obj[k, 1]
        p_WP = _point(R_WB, p_WB, a, d[0:3])
        p_WQ = _point(R_WB, p_WB, b, d[3:6])
        JvP, JwP = PointJacobians(ji, S, a, p_WP)
        JvQ, JwQ = PointJacobians(ji, S, b, p_WQ)
        bias = acceleration_to_point(V[a], A0[a], p_WP)[3:] - acceleration_to_point(V[b], A0[b], p_WQ)[3:]
        dp = p_WP - p_WQ
        if tp == EQ_DISTANCE:
            n = math.sqrt(dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2])
            if n < 1e-12:
                return EQ_COINCIDENT_POINTS, k
            u = dp / n
            dv = np.zeros(3)
            for j in range(nv):
                for i in range(3):
                    J[r, j] += u[i] * (JvP[i, j] - JvQ[i, j])
                    dv[i] += (JvP[i, j] - JvQ[i, j]) * v[j]
            pos[r] = n - d[6]
            udv = u[0] * dv[0] + u[1] * dv[1] + u[2] * dv[2]
            jdv[r] = (u[0] * bias[0] + u[1] * bias[1] + u[2] * bias[2]
                      + (dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2] - udv ** 2) / n)
            gpos[k] = pos[r]
            continue
        for i in range(3):
            for j in range(nv):
                J[r + i, j] = JvP[i, j] - JvQ[i, j]
            pos[r + i] = dp[i]
            jdv[r + i] = bias[i]
        if tp == EQ_WELD:
            _weld_rotation(e, k, a, b, R_WB, V, A0, JwP - JwQ, J, pos, jdv, r + 3)
        s = 0.0
        for i in range(EQ_ROWS[tp]):
            s += pos[r + i] * pos[r + i]
        gpos[k] = math.sqrt(s)
    return EQ_OK, -1


# ---- the stage ---------------------------------------------------------------------------------------------
@njit(cache=True)
def equality(m, d):
    """The equality rows of the step into d.eq_J, d.eq_pos, d.eq_jdv, d.eq_gpos (sized once). Returns EQ_OK or
    EQ_COINCIDENT_POINTS (d.bad_index: the equality)."""
    e, t = m.eq, m.tree
    ne, neq = e.ne, e.eq_type.shape[0]
    if d.eq_J.shape[0] != ne or d.eq_J.shape[1] != t.nv:
        d.eq_J = np.zeros((ne, t.nv))
        d.eq_pos, d.eq_jdv, d.eq_gpos = np.zeros(ne), np.zeros(ne), np.zeros(neq)
    if neq == 0:
        return EQ_OK
    st, bad = EqualityRows(e, t.order, t.ji, d.S, d.c, d.V, d.R_WB, d.p_WB, d.q, d.v, d.ten_length, d.ten_J, d.eq_J,
                           d.eq_pos, d.eq_jdv, d.eq_gpos)
    if st != EQ_OK:
        d.bad_index = bad
    return st
