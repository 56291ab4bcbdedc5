"""Configuration-dependent MuJoCo transmissions (mj_transmission), computed per step from the kinematics stage's
poses and motion subspaces: each gives an actuator output's length L and moment row ∂L/∂v (plant velocities).

* site S without refsite: L = 0, moment = J_Sᵀ·(R_WS·gear), gear the wrench [force; torque] in the site frame;
* site S with refsite R: L = gear[:3]·(R_WRᵀ(p_WS − p_WR)) + gear[3:]·log(R_WRᵀR_WS) (the site's translation and
  rotation vector in the refsite frame), moment = (J_S − J_R)ᵀ·(R_WR·gear) with the dofs both sites move with
  (their common ancestors) cleared, as MuJoCo does;
* slider-crank (crank site C, slider site Sl of axis a = z of Sl, rod length r): v = p_C − p_Sl,
  L = gear·(a·v − √((a·v)² + r² − v·v)) (a·v when the determinant is not positive),
  moment = gear·(∂L/∂a·J_a + ∂L/∂v·(J_C − J_Sl)), J_a = ω_Sl × a;
* ball joint: moment = the gear axis in the child frame (jointinparent: the parent's) on the joint's angular
  velocity (the plant's is in the parent frame), L = the joint's rotation vector · the axis in the child frame;
* free joint: moment = [gear torque in the body frame (jointinparent: world) ; gear force (world)] on the plant's
  [ω_W; v_W], L = 0;
* orientation servo (MuJoCo 4, 3 outputs): on a ball joint, L = the joint's rotation vector and rows = the child
  frame's axes on the joint's angular velocity; on a site with a refsite, L = the site's rotation vector in the
  refsite frame and rows = the site's axes on the relative angular Jacobian (common dofs cleared). Its force
  (`so3_forces`) replaces gain·input + bias.

Rows live in the actuation part (`m.act.trn`); the actuation stage (actuation.transmission) overwrites the outputs'
rows of d.actuator_moment and d.actuator_length with them.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ...geometry.collision.blas_rounding import rotate_row
from ..kernels.joint_kernels import quaternion_into
from ..kernels.small_products import matmul33_into
from .structs import B1, B2, F1, F2, F3, I1, bools, declare, floats, ints

TRN_SITE, TRN_SLIDERCRANK, TRN_SO3 = 0, 1, 2


@structref.register
class TransmissionModelType(types.StructRef):
    """numba type of TransmissionModel."""


class TransmissionModel(structref.StructRefProxy):
    """Site, slider-crank, ball and free joint transmissions of MuJoCo actuator outputs."""


TRANSMISSION_MODEL = declare(TransmissionModelType, TransmissionModel, [
    # site / slider-crank rows: output, TRN_*, site body (plant index) and X_BS, refsite (slider site) body (-1:
    # none) and X_BR, gear (6), crank rod length, dofs both sites share (cleared; n × nv)
    ("site_out", I1), ("site_kind", I1), ("site_body", I1), ("site_R", F3), ("site_p", F2),
    ("ref_body", I1), ("ref_R", F3), ("ref_p", F2), ("site_gear", F2), ("crank", F1), ("common", B2),
    # ball / free joint rows: output, free joint, q start, v start, gear (6), gear in the parent frame
    ("ball_out", I1), ("ball_free", B1), ("ball_qs", I1), ("ball_vs", I1), ("ball_gear", F2), ("ball_inparent", B1),
    # MuJoCo 4's orientation servos (gaintype / biastype so3; 3 outputs each): first output, quaternion chart (4
    # controls; else expmap, 3), first control, (kp, biasprm[0], kv, torque-norm limit), ball joint q / v start
    # (-1: on a site with a refsite, a TRN_SO3 row of the site arrays); so3_of: each output's servo (-1: none)
    ("so3_out", I1), ("so3_quat", B1), ("so3_ctrl", I1), ("so3_prm", F2), ("so3_qs", I1), ("so3_vs", I1),
    ("so3_of", I1),
])


@njit(cache=True)
def new_transmission_model(site_out, site_kind, site_body, site_R, site_p, ref_body, ref_R, ref_p, site_gear, crank,
                           common, ball_out, ball_free, ball_qs, ball_vs, ball_gear, ball_inparent, so3_out, so3_quat,
                           so3_ctrl, so3_prm, so3_qs, so3_vs, so3_of):
    t = structref.new(TRANSMISSION_MODEL)
    t.site_out, t.site_kind, t.site_body, t.site_R, t.site_p = site_out, site_kind, site_body, site_R, site_p
    t.ref_body, t.ref_R, t.ref_p, t.site_gear, t.crank, t.common = ref_body, ref_R, ref_p, site_gear, crank, common
    t.ball_out, t.ball_free, t.ball_qs, t.ball_vs = ball_out, ball_free, ball_qs, ball_vs
    t.ball_gear, t.ball_inparent = ball_gear, ball_inparent
    t.so3_out, t.so3_quat, t.so3_ctrl, t.so3_prm, t.so3_qs, t.so3_vs = so3_out, so3_quat, so3_ctrl, so3_prm, so3_qs, so3_vs
    t.so3_of = so3_of
    return t


def CompileTransmissions(plant, mjcf) -> TransmissionModel:
    """The site / slider-crank (`mjcf.sites`, mjcf/transmission.py MjcfSiteTransmission) and ball / free joint
    (`mjcf.balls`) transmissions of the plant's MJCF actuators (`mjcf` None: none)."""
    nv = plant.num_velocities()
    servos = [] if mjcf is None else mjcf.so3
    sites = ([] if mjcf is None else list(mjcf.sites)) + [(int(sv.rows[0]), sv.site) for sv in servos if sv.site]
    balls = [] if mjcf is None else mjcf.balls
    out, kind, body, R, p, rbody, rR, rp, gear, crank = [], [], [], [], [], [], [], [], [], []
    common = np.zeros((len(sites), nv), bool)
    for r, (i, trn) in enumerate(sites):
        out.append(i)
        kind.append(TRN_SLIDERCRANK if trn.kind == "slidercrank" else TRN_SO3 if r >= len(mjcf.sites) else TRN_SITE)
        body.append(int(trn.site.body.index()))
        R.append(trn.site.R_BS)
        p.append(trn.site.p_BS)
        ref = trn.ref
        rbody.append(-1 if ref is None else int(ref.body.index()))
        rR.append(np.eye(3) if ref is None else ref.R_BS)
        rp.append(np.zeros(3) if ref is None else ref.p_BS)
        gear.append(trn.gear)
        crank.append(trn.cranklength)
        common[r, trn.common] = True
    n = len(sites)
    so3_of = np.full(0 if mjcf is None else len(mjcf.enabled), -1, np.int64)
    for k, sv in enumerate(servos):
        so3_of[sv.rows] = k
    joint = [sv.joint for sv in servos]
    return new_transmission_model(
        ints(out), ints(kind), ints(body), floats(R, (n, 3, 3)), floats(p, (n, 3)), ints(rbody), floats(rR, (n, 3, 3)),
        floats(rp, (n, 3)), floats(gear, (n, 6)), floats(crank), bools(common).reshape(n, nv),
        ints([b[0] for b in balls]), bools([b[1] == "free" for b in balls]),
        ints([b[2].position_start() for b in balls]), ints([b[2].velocity_start() for b in balls]),
        floats([b[3] for b in balls], (len(balls), 6)), bools([b[4] for b in balls]),
        ints([sv.rows[0] for sv in servos]), bools([sv.quat for sv in servos]), ints([sv.ctrl.start for sv in servos]),
        floats([(sv.kp, sv.b0, sv.kv, sv.fmax) for sv in servos], (len(servos), 4)),
        ints([-1 if J is None else J.position_start() for J in joint]),
        ints([-1 if J is None else J.velocity_start() for J in joint]), so3_of)


@njit(cache=True)
def rotation_vector(w, x, y, z):
    """axis·angle [rad] of the quaternion [w x y z] (normalized here), the angle wrapped to (−π, π]."""
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    out = np.zeros(3)
    s = math.sqrt(x * x + y * y + z * z)
    if s == 0.0:
        return out
    angle = 2.0 * math.atan2(s, w)
    if angle > math.pi:
        angle -= 2.0 * math.pi
    out[0], out[1], out[2] = x / s * angle, y / s * angle, z / s * angle
    return out


@njit(cache=True)
def _quaternion(R):
    """[w x y z] of the rotation matrix R (w >= 0; branch on the largest of the trace and the diagonal)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr >= R[0, 0] and tr >= R[1, 1] and tr >= R[2, 2]:
        q = (1.0 + tr, R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1])
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        q = (R[2, 1] - R[1, 2], 1.0 - (tr - 2.0 * R[0, 0]), R[0, 1] + R[1, 0], R[0, 2] + R[2, 0])
    elif R[1, 1] >= R[2, 2]:
        q = (R[0, 2] - R[2, 0], R[0, 1] + R[1, 0], 1.0 - (tr - 2.0 * R[1, 1]), R[1, 2] + R[2, 1])
    else:
        q = (R[1, 0] - R[0, 1], R[0, 2] + R[2, 0], R[1, 2] + R[2, 1], 1.0 - (tr - 2.0 * R[2, 2]))
    s = 1.0 if q[0] >= 0.0 else -1.0
    return s * q[0], s * q[1], s * q[2], s * q[3]


@njit(cache=True)
def add_wrench_row(ji, S, body, p_W, f_W, t_W, scale, row):
    """row += scale·(J_vᵀ f_W + J_ωᵀ t_W) for the point p_W of `body` (J its world Jacobian; S Plücker at Wo)."""
    # f·(v_Wo + ω × p) + t·ω = f·v_Wo + ω·(p × f + t)
    cx = p_W[1] * f_W[2] - p_W[2] * f_W[1] + t_W[0]
    cy = p_W[2] * f_W[0] - p_W[0] * f_W[2] + t_W[1]
    cz = p_W[0] * f_W[1] - p_W[1] * f_W[0] + t_W[2]
    a = body
    while a > 0:
        vs = ji[a, 4]
        for j in range(ji[a, 5]):
            k = vs + j
            row[k] += scale * (f_W[0] * S[k, 3] + f_W[1] * S[k, 4] + f_W[2] * S[k, 5]
                               + S[k, 0] * cx + S[k, 1] * cy + S[k, 2] * cz)
        a = ji[a, 0]


@njit(cache=True)
def site_transmissions(m, d, L, moment):
    """L[i] and moment[i] of every site / slider-crank output i (see the module docstring). The site and refsite
    frames and a plain site's gear wrench are products in scalars rounded as the `@` calls they replace
    (kernels/small_products.py, geometry/collision/blas_rounding.py), into arrays made once per call."""
    t = m.act.trn
    if t.site_out.shape[0] == 0:
        return
    ji, S = m.tree.ji, d.S
    zero = np.zeros(3)
    R_WS, p_WS, R_WR, p_WR = np.empty((3, 3)), np.empty(3), np.empty((3, 3)), np.empty(3)
    f_W, t_W = np.empty(3), np.empty(3)
    for r in range(t.site_out.shape[0]):
        i, b, rb = t.site_out[r], t.site_body[r], t.ref_body[r]
        R_WB = d.R_WB[b]
        matmul33_into(R_WB, t.site_R[r], R_WS)  # R_WB @ site_R
        site_p = t.site_p[r]
        for k in range(3):
            p_WS[k] = d.p_WB[b, k] + rotate_row(R_WB, k, site_p)
        row = moment[i]
        row[:] = 0.0
        g = t.site_gear[r]
        if rb >= 0:
            R_WRb = d.R_WB[rb]
            matmul33_into(R_WRb, t.ref_R[r], R_WR)
            ref_p = t.ref_p[r]
            for k in range(3):
                p_WR[k] = d.p_WB[rb, k] + rotate_row(R_WRb, k, ref_p)
        else:
            R_WR[:, :] = 0.0
            for k in range(3):
                R_WR[k, k] = 1.0
            p_WR[:] = 0.0
        if t.site_kind[r] == TRN_SLIDERCRANK:  # crank site, slider site (refsite)
            axis = np.ascontiguousarray(R_WR[:, 2])
            vec = p_WS - p_WR
            av = axis @ vec
            det = av * av + t.crank[r] * t.crank[r] - vec @ vec
            if det <= 0.0:
                length, dlda, dldv = av, vec, axis
            else:
                sdet = math.sqrt(det)
                length = av - sdet
                dldv = axis * (1.0 - av / sdet) + vec / sdet
                dlda = vec * (1.0 - av / sdet)
            add_wrench_row(ji, S, b, p_WS, dldv, zero, g[0], row)
            add_wrench_row(ji, S, rb, p_WR, dldv, np.cross(dlda, axis), -g[0], row)
            L[i] = g[0] * length
            continue
        if t.site_kind[r] == TRN_SO3:  # orientation servo: the site axes on the relative angular Jacobian
            for k in range(3):
                row = moment[i + k]
                row[:] = 0.0
                axis = np.ascontiguousarray(R_WS[:, k])
                add_wrench_row(ji, S, b, p_WS, zero, axis, 1.0, row)
                add_wrench_row(ji, S, rb, p_WR, zero, axis, -1.0, row)
                for c in range(row.shape[0]):
                    if t.common[r, c]:
                        row[c] = 0.0
            w, x, y, z = _quaternion(np.ascontiguousarray(R_WR.T) @ R_WS)
            L[i:i + 3] = rotation_vector(w, x, y, z)
            continue
        if rb < 0:  # the gear wrench in the site frame: R_WS @ gear[:3], R_WS @ gear[3:]
            g_t = g[3:]
            for k in range(3):
                f_W[k] = rotate_row(R_WS, k, g)
                t_W[k] = rotate_row(R_WS, k, g_t)
            add_wrench_row(ji, S, b, p_WS, f_W, t_W, 1.0, row)
            L[i] = 0.0
            continue
        f, tq = R_WR @ g[:3], R_WR @ g[3:]
        add_wrench_row(ji, S, b, p_WS, f, tq, 1.0, row)
        add_wrench_row(ji, S, rb, p_WR, f, tq, -1.0, row)
        for k in range(row.shape[0]):
            if t.common[r, k]:
                row[k] = 0.0
        R_RW = np.ascontiguousarray(R_WR.T)
        w, x, y, z = _quaternion(R_RW @ R_WS)
        L[i] = (R_RW @ (p_WS - p_WR)) @ g[:3] + rotation_vector(w, x, y, z) @ g[3:]


@njit(cache=True)
def joint_transmissions(m, d, L, moment):
    """L[i] and moment[i] of every ball / free joint output i (see the module docstring)."""
    t = m.act.trn
    if t.ball_out.shape[0] == 0 and t.so3_out.shape[0] == 0:
        return
    q = d.q
    R = np.empty((3, 3))
    for r in range(t.ball_out.shape[0]):
        i, qs, vs = t.ball_out[r], t.ball_qs[r], t.ball_vs[r]
        g = t.ball_gear[r]
        quaternion_into(q[qs], q[qs + 1], q[qs + 2], q[qs + 3], R)
        row = moment[i]
        row[:] = 0.0
        L[i] = 0.0
        if t.ball_free[r]:  # plant v = [ω_W; v_W]; gear = [force (world); torque (body, or world: in parent)]
            tq = np.ascontiguousarray(g[3:6]) if t.ball_inparent[r] else R @ g[3:6]
            for k in range(3):
                row[vs + k] = tq[k]
                row[vs + 3 + k] = g[k]
            continue
        axis = np.ascontiguousarray(g[:3])
        m_row = axis if t.ball_inparent[r] else R @ axis
        for k in range(3):
            row[vs + k] = m_row[k]
        a_child = np.ascontiguousarray(R.T) @ axis if t.ball_inparent[r] else axis
        L[i] = rotation_vector(q[qs], q[qs + 1], q[qs + 2], q[qs + 3]) @ a_child
    for r in range(t.so3_out.shape[0]):  # orientation servos on ball joints: the child-frame angular velocity
        qs, vs, i = t.so3_qs[r], t.so3_vs[r], t.so3_out[r]
        if qs < 0:
            continue
        quaternion_into(q[qs], q[qs + 1], q[qs + 2], q[qs + 3], R)
        for k in range(3):
            row = moment[i + k]
            row[:] = 0.0
            for j in range(3):
                row[vs + j] = R[j, k]
        L[i:i + 3] = rotation_vector(q[qs], q[qs + 1], q[qs + 2], q[qs + 3])


@njit(cache=True)
def _expmap(v):
    """Unit quaternion (w, x, y, z) of the rotation vector v [rad] (identity below 1e-15)."""
    angle = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if angle < 1e-15:
        return 1.0, 0.0, 0.0, 0.0
    s = math.sin(0.5 * angle) / angle
    return math.cos(0.5 * angle), s * v[0], s * v[1], s * v[2]


@njit(cache=True)
def so3_forces(m, d, ctrl, setpoint, force):
    """force[i:i + 3] of every orientation servo: kp·log(q_cur⁻¹ q_target) + biasprm[0] + kv·V (child / site frame),
    its norm clamped to the limit; q_cur = exp(length), q_target the normalized quaternion control (zero: identity)
    or exp(setpoint[i:i + 3]) (the clamped controls, or the activations of an integrator servo)."""
    t = m.act.trn
    for s in range(t.so3_out.shape[0]):
        i, c = t.so3_out[s], t.so3_ctrl[s]
        if t.so3_quat[s]:
            n = math.sqrt(ctrl[c] ** 2 + ctrl[c + 1] ** 2 + ctrl[c + 2] ** 2 + ctrl[c + 3] ** 2)
            if n > 0:
                t0, t1, t2, t3 = ctrl[c] / n, ctrl[c + 1] / n, ctrl[c + 2] / n, ctrl[c + 3] / n
            else:
                t0, t1, t2, t3 = 1.0, 0.0, 0.0, 0.0
        else:
            t0, t1, t2, t3 = _expmap(setpoint[i:i + 3])
        w, x, y, z = _expmap(d.actuator_length[i:i + 3])
        err = rotation_vector(w * t0 + x * t1 + y * t2 + z * t3,
                              w * t1 - t0 * x - (y * t3 - z * t2),
                              w * t2 - t0 * y - (z * t1 - x * t3),
                              w * t3 - t0 * z - (x * t2 - y * t1))
        kp, b0, kv, fmax = t.so3_prm[s, 0], t.so3_prm[s, 1], t.so3_prm[s, 2], t.so3_prm[s, 3]
        norm = 0.0
        for k in range(3):
            force[i + k] = kp * err[k] + b0 + kv * d.actuator_velocity[i + k]
            norm += force[i + k] * force[i + k]
        norm = math.sqrt(norm)
        if norm > fmax:
            for k in range(3):
                force[i + k] *= fmax / norm
