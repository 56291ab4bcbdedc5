"""Tendons of the discrete step (MuJoCo's mj_tendon, MJX's smooth.tendon): lengths, velocities, moment arms and path
points of the MJCF fixed and spatial tendons (sites, pulleys, sphere / cylinder wrapping with side sites and the
inside wrap), computed right after the kinematics; and the tendons' armature terms of M̂ and the bias
(mj_tendonArmature, mj_tendonBias). The passive stage adds their springs and dampers, the constraint stage their
limit and dry-friction rows, from the parameters of `TendonModel` (MuJoCo's tendon_* arrays).

The kernels are multibody/kernels/tendon_kernels.py (shared with the plant's Python path, which builds its path
arrays with `TendonPathArrays`). Tendon k of the Model is tendon t of the k-th MJCF model's list in load order:
row `TendonOffsets(maps)[i] + t` for tendon t of maps[i].
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..contact.parameters import ValidateSolimp, ValidateSolref
from ..kernels.kinematics import calc_accelerations
from ..kernels.pipeline import kinematics_stage, mass_matrix_from_inertias
from ..kernels.tendon_kernels import (W_CYLINDER, W_JOINT, W_PULLEY, W_SITE, W_SPHERE, WrapCapacity, tendon_jdot_v,
                                      tendon_kinematics)
from ..math.functions import rotation_matrix_from_quaternion
from .structs import B1, F1, F2, F3, I1, INT, declare, floats, ints


@structref.register
class TendonModelType(types.StructRef):
    """numba type of TendonModel."""


class TendonModel(structref.StructRefProxy):
    """The MJCF tendons of a Model: path elements (kernels/tendon_kernels.py layout) and MuJoCo's per-tendon
    parameters (limits, dry friction, spring, damper, armature, invweight0)."""


TENDON_MODEL = declare(TendonModelType, TendonModel, [
    # paths: tendon t's elements are rows ten_adr[t] .. ten_adr[t] + ten_num[t] of the w* arrays
    ("ten_adr", I1), ("ten_num", I1),
    ("wtype", I1),          # W_JOINT, W_SITE, W_SPHERE, W_CYLINDER, W_PULLEY
    ("wbody", I1),          # plant body of a site or geom
    ("wpos", F2),           # (nwrap, 3) site / geom position in its body frame [m]
    ("wrot", F3),           # (nwrap, 3, 3) geom orientation R_BG
    ("wprm", F1),           # joint coefficient, pulley divisor or geom radius [m]
    ("wqi", I1), ("wvi", I1),   # q and v index of a fixed tendon's joint
    ("sbody", I1), ("spos", F2),  # a wrapping geom's side site (body −1: none)
    ("nwrap", INT),         # capacity of the path points (Data.wrap_xpos rows)
    # limits (rows of the limited tendons): tendon, range, margin, validated solreflimit / solimplimit
    ("lim_ten", I1), ("lim_lo", F1), ("lim_hi", F1), ("lim_margin", F1), ("lim_ref", F2), ("lim_imp", F2),
    ("lim_bad", B1),        # invalid solref / solimp: raised when the limit activates
    # dry friction (rows of the tendons with frictionloss > 0)
    ("fr_ten", I1), ("fr_loss", F1), ("fr_ref", F2), ("fr_imp", F2),
    ("invweight0", F1),     # (nten,) MuJoCo's tendon_invweight0 (J M⁻¹ Jᵀ at qpos0)
    # passive: stiffness [N/m] (0: none or disabled), dead band lengthspring (nten, 2), damping [N s/m]
    ("stiffness", F1), ("lengthspring", F2), ("damping", F1),
    # armature [kg]: the tendons with armature > 0 and their values; dof_parent: MuJoCo's dof_parentid
    ("arm_ten", I1), ("armature", F1), ("dof_parent", I1),
])


@njit(cache=True)
def new_tendon_model(ten_adr, ten_num, wtype, wbody, wpos, wrot, wprm, wqi, wvi, sbody, spos, nwrap, lim_ten, lim_lo,
                     lim_hi, lim_margin, lim_ref, lim_imp, lim_bad, fr_ten, fr_loss, fr_ref, fr_imp, invweight0,
                     stiffness, lengthspring, damping, arm_ten, armature, dof_parent):
    t = structref.new(TENDON_MODEL)
    t.ten_adr, t.ten_num, t.wtype, t.wbody, t.wpos, t.wrot, t.wprm = ten_adr, ten_num, wtype, wbody, wpos, wrot, wprm
    t.wqi, t.wvi, t.sbody, t.spos, t.nwrap = wqi, wvi, sbody, spos, nwrap
    t.lim_ten, t.lim_lo, t.lim_hi, t.lim_margin = lim_ten, lim_lo, lim_hi, lim_margin
    t.lim_ref, t.lim_imp, t.lim_bad = lim_ref, lim_imp, lim_bad
    t.fr_ten, t.fr_loss, t.fr_ref, t.fr_imp = fr_ten, fr_loss, fr_ref, fr_imp
    t.invweight0, t.stiffness, t.lengthspring, t.damping = invweight0, stiffness, lengthspring, damping
    t.arm_ten, t.armature, t.dof_parent = arm_ten, armature, dof_parent
    return t


# ---- compile -----------------------------------------------------------------------------------------------------
def _PathRow(pm, ten, t: int, w) -> tuple:
    """(type, body, pos, R_BG, prm, q index, v index, side body, side pos) of one path element."""
    eye, zero = np.eye(3), np.zeros(3)
    if w.type == "joint":
        J = pm.joints[w.objid]
        return W_JOINT, 0, zero, eye, float(w.prm), J.position_start(), J.velocity_start(), -1, zero
    if w.type == "pulley":
        return W_PULLEY, 0, zero, eye, max(float(w.prm), 1e-15), 0, 0, -1, zero
    if w.type == "site":
        site = pm.model.sites[w.objid]
        return W_SITE, int(pm.bodies[site.body].index()), np.asarray(site.pos, float), eye, 0.0, 0, 0, -1, zero
    g = pm.model.geoms[w.objid]
    if g.type not in ("sphere", "cylinder"):
        raise ValueError(f"tendon '{ten.name or t}': wrapping geom '{g.name or w.objid}' is a {g.type}; "
                         "tendons wrap around sphere and cylinder geoms only")
    sb, sp = -1, zero
    if w.sidesite >= 0:
        s = pm.model.sites[w.sidesite]
        sb, sp = int(pm.bodies[s.body].index()), np.asarray(s.pos, float)
    R = rotation_matrix_from_quaternion(np.asarray(g.quat, float))
    return (W_SPHERE if g.type == "sphere" else W_CYLINDER, int(pm.bodies[g.body].index()), np.asarray(g.pos, float),
            R, float(g.size[0]), 0, 0, sb, sp)


def TendonPathArrays(items: list) -> tuple:
    """The path arrays of MJCF tendons `items` [(MjcfPlantMap, tendon id)]: (ten_adr, ten_num, wtype, wbody, wpos,
    wrot, wprm, wqi, wvi, sbody, spos), as tendon_kernels.tendon_kinematics takes them."""
    rows, adr, num = [], [], []
    for pm, t in items:
        ten = pm.model.tendons[t]
        adr.append(len(rows))
        num.append(len(ten.wraps))
        rows.extend(_PathRow(pm, ten, t, w) for w in ten.wraps)
    n = len(rows)
    col = lambda c: [r[c] for r in rows]  # noqa: E731
    return (ints(adr), ints(num), ints(col(0), (n,)), ints(col(1), (n,)), floats(col(2), (n, 3)),
            floats(col(3), (n, 3, 3)), floats(col(4), (n,)), ints(col(5), (n,)), ints(col(6), (n,)),
            ints(col(7), (n,)), floats(col(8), (n, 3)))


def TendonOffsets(maps: list) -> list[int]:
    """Row of the first tendon of each MJCF model of `maps` (MjcfPlantMaps in load order) in the Model's tendons."""
    out, n = [], 0
    for pm in maps:
        out.append(n)
        n += len(pm.model.tendons)
    return out


def _TendonItems(maps: list) -> list:
    return [(pm, t) for pm in maps for t in range(len(pm.model.tendons))]


def _TendonName(pm, t: int) -> str:
    return pm.model.tendons[t].name or f"tendon{t}"


def _DofParents(ji: np.ndarray, order: np.ndarray, nv: int) -> np.ndarray:
    """MuJoCo's dof_parentid: the previous dof of the body's joint, else the last dof of the nearest ancestor body
    with dofs (−1 at a root)."""
    parent = np.full(nv, -1, np.int64)
    last = np.full(ji.shape[0], -1, np.int64)  # last dof on the path from the root to each body
    for b in order.tolist():
        p = last[ji[b, 0]]
        vs, n = ji[b, 4], ji[b, 5]
        for j in range(n):
            parent[vs + j] = p
            p = vs + j
        last[b] = p
    return parent


def CompileTendons(plant, maps: list) -> TendonModel:
    """The TendonModel of every tendon of the MJCF models `maps` (the plant's MjcfPlantMaps in load order; none:
    zero tendons). tendon_invweight0 the compiler left out (wrapping geoms) is J M⁻¹ Jᵀ at the default positions;
    dry-friction parameters are validated here (ValueError naming the tendon, as every step would raise)."""
    m = plant._model
    items = _TendonItems(maps)
    paths = TendonPathArrays(items)
    nt = len(items)
    iw = np.zeros(nt)
    missing = [k for k, (pm, t) in enumerate(items) if pm.model.tendons[t].invweight0 is None]
    for k, (pm, t) in enumerate(items):
        if pm.model.tendons[t].invweight0 is not None:
            iw[k] = float(pm.model.tendons[t].invweight0)
    if missing and m.nv:
        q0 = plant._default_state_vector()[:m.nq]
        R_WB, p_WB, _R, _p, _pm, S, _V, _c, Iw = kinematics_stage(m.order, m.ji, m.jf, floats(m.body_params),
                                                                  floats(q0), np.zeros(m.nv), m.nv)
        M0 = mass_matrix_from_inertias(m.order, m.ji, m.reflected_inertia, S, Iw)
        L0, J0 = np.empty(nt), np.empty((nt, m.nv))
        _Kinematics(paths, R_WB, p_WB, m.ji, S, q0, L0, J0)
        for k in missing:
            iw[k] = float(J0[k] @ np.linalg.solve(M0, J0[k]))
    lim, fr, stiff, damp, spring, arm, arm_val = [], [], [], [], [], [], []
    for k, (pm, t) in enumerate(items):
        ten = pm.model.tendons[t]
        flags = pm.model.option.flags
        name = _TendonName(pm, t)
        if ten.limited:
            try:
                ref, imp, bad = ValidateSolref(ten.solref_limit, "limit", name), ValidateSolimp(
                    ten.solimp_limit, "limit", name), False
            except Exception:  # raised again, by the same validators, if the limit becomes active
                ref, imp, bad = np.zeros(2), np.zeros(5), True
            lim.append((k, float(ten.range[0]), float(ten.range[1]), max(float(ten.margin), 0.0), ref, imp, bad))
        if ten.frictionloss > 0:
            fr.append((k, float(ten.frictionloss), ValidateSolref(ten.solref_friction, "frictionloss", name),
                       ValidateSolimp(ten.solimp_friction, "frictionloss", name)))
        passive = flags.get("passive", True)
        stiff.append(float(ten.stiffness) if passive and flags.get("spring", True) else 0.0)
        damp.append(float(ten.damping) if passive and flags.get("damper", True) else 0.0)
        spring.append(np.asarray(ten.lengthspring, float)[:2])
        if ten.armature > 0:
            arm.append(k)
            arm_val.append(float(ten.armature))
    armature = np.zeros(nt)
    armature[arm] = arm_val
    return new_tendon_model(
        *paths, WrapCapacity(paths[0], paths[1], paths[2]),
        ints([r[0] for r in lim]), floats([r[1] for r in lim]), floats([r[2] for r in lim]),
        floats([r[3] for r in lim]), floats([r[4] for r in lim], (-1, 2)), floats([r[5] for r in lim], (-1, 5)),
        np.ascontiguousarray([r[6] for r in lim], np.bool_), ints([r[0] for r in fr]), floats([r[1] for r in fr]),
        floats([r[2] for r in fr], (-1, 2)), floats([r[3] for r in fr], (-1, 5)), floats(iw), floats(stiff),
        floats(spring, (nt, 2)), floats(damp), ints(arm), floats(armature), _DofParents(m.ji, m.order, m.nv))


def _Kinematics(paths: tuple, R_WB, p_WB, ji, S, q, L, J) -> None:
    """Lengths and moments of `paths` (TendonPathArrays) at the given kinematics (compile time)."""
    nt, cap = paths[0].shape[0], max(WrapCapacity(paths[0], paths[1], paths[2]), 1)
    tendon_kinematics(*paths, R_WB, p_WB, ji, S, floats(q), L, J, np.empty(nt, np.int64), np.empty(nt, np.int64),
                      np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty((cap, 3)))


def RaiseIfBadTendonLimit(maps: list, k: int) -> None:
    """Raise the ValueError (naming the tendon) of limit row k's invalid solreflimit / solimplimit (k counts the
    limited tendons of `maps` in order)."""
    limited = [(pm, t) for pm, t in _TendonItems(maps) if pm.model.tendons[t].limited]
    pm, t = limited[k]
    ten = pm.model.tendons[t]
    ValidateSolref(ten.solref_limit, "limit", _TendonName(pm, t))
    ValidateSolimp(ten.solimp_limit, "limit", _TendonName(pm, t))


# ---- stages ------------------------------------------------------------------------------------------------------
@njit(cache=True)
def tendon(m, d):
    """d.ten_length [m or rad], d.ten_J = ∂L/∂v (nten × nv), d.ten_velocity = J·v and the path points (d.ten_wrapadr,
    d.ten_wrapnum, d.wrap_obj, d.wrap_body, d.wrap_xpos) at the step's kinematics (MuJoCo's mj_tendon)."""
    t = m.ten
    nt, nv = t.ten_adr.shape[0], m.tree.nv
    if d.ten_J.shape[0] != nt or d.ten_J.shape[1] != nv or d.wrap_xpos.shape[0] != t.nwrap:
        d.ten_length, d.ten_velocity, d.ten_J = np.zeros(nt), np.zeros(nt), np.zeros((nt, nv))
        d.ten_wrapadr, d.ten_wrapnum = np.zeros(nt, np.int64), np.zeros(nt, np.int64)
        d.wrap_obj, d.wrap_body, d.wrap_xpos = np.zeros(t.nwrap, np.int64), np.zeros(t.nwrap, np.int64), np.zeros(
            (t.nwrap, 3))
    if nt == 0:
        return
    tendon_kinematics(t.ten_adr, t.ten_num, t.wtype, t.wbody, t.wpos, t.wrot, t.wprm, t.wqi, t.wvi, t.sbody, t.spos,
                      d.R_WB, d.p_WB, m.tree.ji, d.S, d.q, d.ten_length, d.ten_J, d.ten_wrapadr, d.ten_wrapnum,
                      d.wrap_obj, d.wrap_body, d.wrap_xpos)
    J, v = d.ten_J, d.v
    for i in range(nt):
        s = 0.0
        for k in range(nv):
            s += J[i, k] * v[k]
        d.ten_velocity[i] = s


@njit(cache=True)
def tendon_armature(m, d, M):
    """M += Σ a·JᵀJ over the tendons with armature, at the entries of M's tree sparsity only (dofs on one
    root-to-leaf path), as MuJoCo's mj_tendonArmature adds into its sparse inertia."""
    t = m.ten
    J, parent = d.ten_J, t.dof_parent
    for r in range(t.arm_ten.shape[0]):
        k = t.arm_ten[r]
        a = t.armature[k]
        for i in range(J.shape[1]):
            ji = J[k, i]
            if ji == 0.0:
                continue
            M[i, i] += a * ji * ji
            p = parent[i]
            while p >= 0:
                M[i, p] += a * ji * J[k, p]
                M[p, i] += a * J[k, p] * ji
                p = parent[p]


@njit(cache=True)
def tendon_bias(m, d, bias):
    """bias += Σ a·J·(J̇·v) over the tendons with armature (MuJoCo's mj_tendonBias; J̇·v is zero for fixed tendons,
    so the body bias accelerations are computed only when a spatial tendon has armature)."""
    t = m.ten
    spatial = False
    for r in range(t.arm_ten.shape[0]):
        if t.wtype[t.ten_adr[t.arm_ten[r]]] != W_JOINT:
            spatial = True
    if not spatial:
        return
    tr = m.tree
    A = calc_accelerations(tr.order, tr.ji, d.S, d.c, np.zeros(tr.nv))
    jdv = np.empty(t.ten_adr.shape[0])
    tendon_jdot_v(t.ten_adr, t.ten_num, t.wtype, t.wbody, t.wpos, t.wprm, d.R_WB, d.p_WB, d.V, A, jdv)
    J = d.ten_J
    for r in range(t.arm_ten.shape[0]):
        k = t.arm_ten[r]
        f = t.armature[k] * jdv[k]
        for i in range(J.shape[1]):
            bias[i] += J[k, i] * f
