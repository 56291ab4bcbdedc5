"""MJCF sensors of the discrete step (MuJoCo's mj_sensorPos / mj_sensorVel / mj_sensorAcc): sensordata computed at
the state the step starts from, after its first forward evaluation (contacts and constraint forces solved), as
mj_step leaves it; noise-free, with MuJoCo's cutoff (both sides for real-valued data, none for quaternions and
axes). The step copies d.sensordata into its results row, which the plant's `<instance>_sensordata` ports read.

Position stage: jointpos, ballquat, tendonpos, actuatorpos, framepos / framequat / frame[xyz]axis (objects site,
body (inertial frame), xbody, geom, optional reference object), subtreecom, clock, magnetometer, insidesite.
Velocity stage: jointvel, ballangvel, tendonvel, actuatorvel, framelinvel / frameangvel, gyro, velocimeter,
subtreelinvel, subtreeangmom.
Acceleration stage (sensor_acc.py): actuatorfrc, jointactuatorfrc, tendonactuatorfrc, accelerometer,
framelinacc / frameangacc, force, torque, touch.

framequat composes MuJoCo's body quaternions down the MJCF tree (mj_kinematics: body quat, hinge axis-angle of
q − ref, ball and free joints' normalized quaternions), so its sign is MuJoCo's.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ...geometry.collision.blas_rounding import rotate_row, rotate_t_row
from ..kernels.small_products import matmul33_into
from ..math.functions import quaternion_from_rotation_matrix, rotation_matrix_from_quaternion
from .sensor_acc import acceleration_sensors
from .structs import F1, F2, F3, I1, INT, declare, floats, ints

# sensor type codes (position stage, velocity stage, acceleration stage)
# (sensor_acc.py handles the codes from ACCELEROMETER on: keep its copies of them equal)
JOINTPOS, BALLQUAT, TENDONPOS, ACTUATORPOS, FRAMEPOS, FRAMEQUAT, FRAMEXAXIS, FRAMEYAXIS, FRAMEZAXIS = range(9)
SUBTREECOM, CLOCK, MAGNETOMETER, INSIDESITE = 9, 10, 11, 12
JOINTVEL, BALLANGVEL, TENDONVEL, ACTUATORVEL, FRAMELINVEL, FRAMEANGVEL, GYRO, VELOCIMETER = range(13, 21)
SUBTREELINVEL, SUBTREEANGMOM = 21, 22
ACTUATORFRC, JOINTACTFRC, TENDONACTFRC, ACCELEROMETER, FORCE, TORQUE, TOUCH, FRAMELINACC, FRAMEANGACC = range(23, 32)
SENSOR_CODES = {
    "jointpos": JOINTPOS, "ballquat": BALLQUAT, "tendonpos": TENDONPOS, "actuatorpos": ACTUATORPOS,
    "framepos": FRAMEPOS, "framequat": FRAMEQUAT, "framexaxis": FRAMEXAXIS, "frameyaxis": FRAMEYAXIS,
    "framezaxis": FRAMEZAXIS, "subtreecom": SUBTREECOM, "clock": CLOCK, "jointvel": JOINTVEL,
    "ballangvel": BALLANGVEL, "tendonvel": TENDONVEL, "actuatorvel": ACTUATORVEL, "framelinvel": FRAMELINVEL,
    "frameangvel": FRAMEANGVEL, "gyro": GYRO, "velocimeter": VELOCIMETER, "subtreelinvel": SUBTREELINVEL,
    "subtreeangmom": SUBTREEANGMOM, "actuatorfrc": ACTUATORFRC, "jointactuatorfrc": JOINTACTFRC,
    "tendonactuatorfrc": TENDONACTFRC, "accelerometer": ACCELEROMETER, "force": FORCE, "torque": TORQUE,
    "touch": TOUCH, "framelinacc": FRAMELINACC, "frameangacc": FRAMEANGACC, "magnetometer": MAGNETOMETER,
    "insidesite": INSIDESITE}
_NO_CUTOFF = ("ballquat", "framequat", "framexaxis", "frameyaxis", "framezaxis")  # quaternion / axis data
SITE_SHAPES = {"sphere": 0, "capsule": 1, "ellipsoid": 2, "cylinder": 3, "box": 4}  # s_aux of touch / insidesite
_JOINT_TYPES = {"free": 0, "ball": 1, "slide": 2, "hinge": 3}  # MuJoCo's mjtJoint


@structref.register
class SensorModelType(types.StructRef):
    """numba type of SensorModel."""


class SensorModel(structref.StructRefProxy):
    """The MJCF sensors of a Model, one row each, with the frame objects, subtrees and quaternion chains they
    read (zero rows: no sensors)."""


SENSOR_MODEL = declare(SensorModelType, SensorModel, [
    ("nsensordata", INT),
    # per sensor: type code, address and size in sensordata, cutoff (0: none), object, reference (-1: none), aux
    #   joint*: q or v index; ball*: q start (aux: v start); tendon*: row of m.ten; actuator*: first output row;
    #   frame* / gyro / velocimeter / accelerometer / force / torque / touch: frame object (touch aux: site shape);
    #   subtree*: subtree row; tendonactuatorfrc: first row of ta_out (aux: count); insidesite: frame object
    #   (ref: the site's frame, aux: its shape, s_size: its MuJoCo size)
    ("s_type", I1), ("s_adr", I1), ("s_dim", I1), ("s_cutoff", F1), ("s_obj", I1), ("s_ref", I1), ("s_aux", I1),
    ("s_size", F2),         # (nsensor, 3) touch: the site's MuJoCo size; magnetometer: the field in W [T]
    ("ta_out", I1),         # actuator output rows pulling on each tendonactuatorfrc sensor's tendon
    # frame objects: plant body, pose in it, quaternion chain row (-1: none, -2: under a mocap body, -3: on the
    # world) and local quaternion (MuJoCo's site / geom quat, iquat, identity)
    ("fo_body", I1), ("fo_R", F3), ("fo_p", F2), ("fo_chain", I1), ("fo_quat", F2),
    # quaternion chains (framequat): MJCF bodies, parents first: parent row (-1: world), body quat, joints
    ("qb_parent", I1), ("qb_quat", F2), ("qb_jadr", I1), ("qb_jnum", I1),
    ("qj_type", I1), ("qj_axis", F2), ("qj_q", I1), ("qj_ref", F1),
    # subtrees: plant bodies of each MJCF subtree
    ("st_adr", I1), ("st_num", I1), ("st_body", I1),
    ("need_acc", INT),      # 1: accelerations needed, 2: and cfrc_int (force / torque)
])


@njit(cache=True)
def new_sensor_model(nsensordata, s_type, s_adr, s_dim, s_cutoff, s_obj, s_ref, s_aux, s_size, ta_out, fo_body, fo_R,
                     fo_p, fo_chain, fo_quat, qb_parent, qb_quat, qb_jadr, qb_jnum, qj_type, qj_axis, qj_q,
                     qj_ref, st_adr, st_num, st_body, need_acc):
    s = structref.new(SENSOR_MODEL)
    s.nsensordata, s.s_type, s.s_adr, s.s_dim, s.s_cutoff = nsensordata, s_type, s_adr, s_dim, s_cutoff
    s.s_obj, s.s_ref, s.s_aux, s.s_size, s.ta_out = s_obj, s_ref, s_aux, s_size, ta_out
    s.fo_body, s.fo_R, s.fo_p, s.fo_chain, s.fo_quat = fo_body, fo_R, fo_p, fo_chain, fo_quat
    s.qb_parent, s.qb_quat, s.qb_jadr, s.qb_jnum = qb_parent, qb_quat, qb_jadr, qb_jnum
    s.qj_type, s.qj_axis, s.qj_q, s.qj_ref = qj_type, qj_axis, qj_q, qj_ref
    s.st_adr, s.st_num, s.st_body, s.need_acc = st_adr, st_num, st_body, need_acc
    return s


def SensorDataSize(maps: list) -> int:
    """MuJoCo's nsensordata summed over the plant's MJCF models (`maps`: MjcfPlantMaps)."""
    return int(sum(s.dim for pm in maps for s in pm.model.sensors))


def _unit_quat(q) -> np.ndarray:
    q = np.asarray(q, float)
    return q / np.linalg.norm(q)


class _Builder:
    """Collects the rows of a SensorModel (frame objects, chains and subtrees deduplicated)."""

    def __init__(self):
        self.rows, self.ta_out, self.frames, self.frame_row = [], [], [], {}
        self.chain, self.chain_row, self.joints, self.subtrees, self.subtree_row = [], {}, [], [], {}

    def chain_of(self, k: int, pm, b: int) -> int:
        """Row of MJCF body b of model k in the quaternion chains (its ancestors added first); -1 for the world."""
        if b == 0:
            return -1
        key = (k, b)
        if key in self.chain_row:
            return self.chain_row[key]
        body = pm.model.bodies[b]
        parent = self.chain_of(k, pm, body.parent)
        jadr = len(self.joints)
        for j in range(body.jntadr, body.jntadr + body.jntnum):
            jr = pm.model.joints[j]
            axis = np.asarray(jr.axis, float)
            n = np.linalg.norm(axis)
            self.joints.append((_JOINT_TYPES[jr.type], axis / n if n > 0 else axis, pm.joints[j].position_start(),
                                float(jr.ref)))
        self.chain.append((parent, _unit_quat(body.quat), jadr, body.jntnum))
        self.chain_row[key] = len(self.chain) - 1
        return self.chain_row[key]

    def frame_of(self, k: int, pm, objtype: str, objid: int, chain: bool) -> int:
        """Row of MuJoCo object (objtype, objid) of model k in the frame objects."""
        key = (k, objtype, objid)
        if key in self.frame_row:
            row = self.frame_row[key]
            if chain and self.frames[row][3] == -1:
                self.frames[row] = self.frames[row][:3] + (self._chain(k, pm, self.frames[row][4]),) + \
                    self.frames[row][4:]
            return row
        model = pm.model
        if objtype == "xbody":
            b, quat, pos = objid, np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(3)
        elif objtype == "body":
            b, quat, pos = objid, _unit_quat(model.bodies[objid].iquat), np.asarray(model.bodies[objid].ipos, float)
        else:
            el = model.sites[objid] if objtype == "site" else model.geoms[objid]
            b, quat, pos = el.body, _unit_quat(el.quat), np.asarray(el.pos, float)
        R = np.asarray(rotation_matrix_from_quaternion(quat), float)
        self.frames.append((int(pm.bodies[b].index()), R, pos, self._chain(k, pm, b) if chain else -1, b, quat))
        self.frame_row[key] = len(self.frames) - 1
        return self.frame_row[key]

    def _chain(self, k, pm, b) -> int:
        if any(pm.model.bodies[a].mocap for a in self._ancestors(pm.model, b)):
            return -2  # a mocap body's quaternion is an input: read from its rotation matrix
        return self.chain_of(k, pm, b) if b else -3  # -3: the world (identity)

    @staticmethod
    def _ancestors(model, b: int) -> list:
        out = []
        while b > 0:
            out.append(b)
            b = model.bodies[b].parent
        return out

    def subtree_of(self, k: int, pm, root: int) -> int:
        key = (k, root)
        if key not in self.subtree_row:
            model = pm.model
            inside = [root]
            for b in range(root + 1, model.nbody):
                if model.bodies[b].parent in inside:
                    inside.append(b)
            self.subtrees.append([int(pm.bodies[b].index()) for b in inside if b > 0])
            self.subtree_row[key] = len(self.subtrees) - 1
        return self.subtree_row[key]


def CompileSensors(maps: list, ten_offsets: list, u_slices: list, supported) -> SensorModel:
    """The SensorModel of the plant's MJCF models (`maps`, in load order; `ten_offsets`: each one's first row in the
    tendon stage; `u_slices`: each one's MuJoCo actuator output rows). `supported(model, sensor)`: whether the
    plant computes that sensor (others read 0, as on the Python path)."""
    B = _Builder()
    base = 0
    for k, pm in enumerate(maps):
        model = pm.model
        out_start = u_slices[k].start if k < len(u_slices) else 0
        outadr = np.cumsum([0] + [getattr(a, "outnum", 1) for a in model.actuators])
        adr = base
        for s in model.sensors:
            code = SENSOR_CODES.get(s.type)
            if code is not None and supported(model, s):
                obj, ref, aux, size = -1, -1, 0, np.zeros(3)
                if code in (JOINTPOS, BALLQUAT, BALLANGVEL):
                    J = pm.joints[s.objid]
                    obj, aux = J.position_start(), J.velocity_start()
                elif code in (JOINTVEL, JOINTACTFRC):
                    obj = pm.joints[s.objid].velocity_start()
                elif code in (TENDONPOS, TENDONVEL):
                    obj = ten_offsets[k] + s.objid
                elif code in (ACTUATORPOS, ACTUATORVEL, ACTUATORFRC):
                    obj = out_start + int(outadr[s.objid])
                elif code == TENDONACTFRC:
                    obj = len(B.ta_out)
                    for i, a in enumerate(model.actuators):
                        if a.trntype == "tendon" and a.trnid[0] == s.objid:
                            B.ta_out.extend(range(out_start + int(outadr[i]), out_start + int(outadr[i + 1])))
                    aux = len(B.ta_out) - obj
                elif code in (SUBTREECOM, SUBTREELINVEL, SUBTREEANGMOM):
                    obj = B.subtree_of(k, pm, s.objid)
                elif code in (GYRO, VELOCIMETER, ACCELEROMETER, FORCE, TORQUE, TOUCH, MAGNETOMETER):
                    obj = B.frame_of(k, pm, "site", s.objid, False)
                    if code == MAGNETOMETER:  # the model's uniform field <option magnetic>, in W
                        size = np.asarray(model.option.magnetic, float)
                    if code == TOUCH:
                        site = model.sites[s.objid]
                        aux, size = SITE_SHAPES[site.type], np.asarray(site.size, float)
                elif code == INSIDESITE:
                    obj = B.frame_of(k, pm, s.objtype, s.objid, False)
                    ref = B.frame_of(k, pm, "site", s.refid, False)
                    site = model.sites[s.refid]
                    aux, size = SITE_SHAPES[site.type], np.asarray(site.size, float)
                elif code != CLOCK:  # frame sensors
                    quat = code == FRAMEQUAT
                    obj = B.frame_of(k, pm, s.objtype, s.objid, quat)
                    if s.reftype not in ("none", None) and s.refid >= 0 and code not in (FRAMELINACC, FRAMEANGACC):
                        ref = B.frame_of(k, pm, s.reftype, s.refid, quat)
                cutoff = float(s.cutoff) if s.cutoff > 0 and s.type not in _NO_CUTOFF else 0.0
                B.rows.append((code, adr, int(s.dim), cutoff, obj, ref, aux, size))
            adr += int(s.dim)
        base = adr
    codes = [r[0] for r in B.rows]
    need = 2 if (FORCE in codes or TORQUE in codes) else int(any(c in codes for c in (
        ACCELEROMETER, FRAMELINACC, FRAMEANGACC)))
    col = lambda i: [r[i] for r in B.rows]  # noqa: E731
    fcol = lambda i: [f[i] for f in B.frames]  # noqa: E731
    return new_sensor_model(
        base, ints(col(0)), ints(col(1)), ints(col(2)), floats(col(3)), ints(col(4)), ints(col(5)), ints(col(6)),
        floats(col(7), (-1, 3)), ints(B.ta_out), ints(fcol(0)), floats(fcol(1), (-1, 3, 3)), floats(fcol(2), (-1, 3)),
        ints(fcol(3)), floats(fcol(5), (-1, 4)), ints([c[0] for c in B.chain]),
        floats([c[1] for c in B.chain], (-1, 4)), ints([c[2] for c in B.chain]), ints([c[3] for c in B.chain]),
        ints([j[0] for j in B.joints]), floats([j[1] for j in B.joints], (-1, 3)), ints([j[2] for j in B.joints]),
        floats([j[3] for j in B.joints]), ints(np.cumsum([0] + [len(t) for t in B.subtrees])[:-1]),
        ints([len(t) for t in B.subtrees]), ints([b for t in B.subtrees for b in t]), need)


# ---- kernels -----------------------------------------------------------------------------------------------------
@njit(cache=True)
def quat_mul(a, b, out):
    """out = a ⊗ b (Hamilton product of [w x y z] quaternions; out may not alias a or b)."""
    out[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3]
    out[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2]
    out[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1]
    out[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]


@njit(cache=True)
def _normalize4(q):
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n > 1e-15:
        for i in range(4):
            q[i] /= n
    else:
        q[0], q[1], q[2], q[3] = 1.0, 0.0, 0.0, 0.0


@njit(cache=True)
def body_quaternions(s, q):
    """MuJoCo's xquat of every chain body (mj_kinematics' quaternion composition), rows of s.qb_*."""
    n = s.qb_parent.shape[0]
    xq = np.empty((n, 4))
    cur, loc, tmp = np.empty(4), np.empty(4), np.empty(4)
    for b in range(n):
        p = s.qb_parent[b]
        if p < 0:
            cur[:] = s.qb_quat[b]
        else:
            quat_mul(xq[p], s.qb_quat[b], cur)
        for j in range(s.qb_jadr[b], s.qb_jadr[b] + s.qb_jnum[b]):
            tp, a = s.qj_type[j], s.qj_q[j]
            if tp == 0:  # free: the state's quaternion
                cur[:] = q[a:a + 4]
                _normalize4(cur)
            elif tp == 1 or tp == 3:
                if tp == 1:
                    loc[:] = q[a:a + 4]
                    _normalize4(loc)
                else:
                    half = 0.5 * (q[a] - s.qj_ref[j])
                    sn = math.sin(half)
                    loc[0] = math.cos(half)
                    loc[1], loc[2], loc[3] = sn * s.qj_axis[j, 0], sn * s.qj_axis[j, 1], sn * s.qj_axis[j, 2]
                quat_mul(cur, loc, tmp)
                cur[:] = tmp
        _normalize4(cur)
        xq[b] = cur
    return xq


@njit(cache=True)
def InsideSite(shape, size, R_WS, p_WS, p_WQ):
    """1.0 if point Q is strictly inside the site S of shape `shape` (SITE_SHAPES) and MuJoCo size `size`, else 0.0
    (MuJoCo's mju_insideGeom)."""
    r = p_WQ - p_WS
    if shape == 0:
        return 1.0 if r[0] * r[0] + r[1] * r[1] + r[2] * r[2] < size[0] * size[0] else 0.0
    x = R_WS.T @ r
    if shape == 1:
        z = x[2] - min(max(x[2], -size[1]), size[1])
        return 1.0 if x[0] * x[0] + x[1] * x[1] + z * z < size[0] * size[0] else 0.0
    if shape == 2:
        e = x[0] * x[0] / (size[0] * size[0]) + x[1] * x[1] / (size[1] * size[1]) + x[2] * x[2] / (size[2] * size[2])
        return 1.0 if e < 1.0 else 0.0
    if shape == 3:
        return 1.0 if abs(x[2]) < size[1] and x[0] * x[0] + x[1] * x[1] < size[0] * size[0] else 0.0
    return 1.0 if abs(x[0]) < size[0] and abs(x[1]) < size[1] and abs(x[2]) < size[2] else 0.0


@njit(cache=True)
def frame_pose(s, d, i):
    """(R_WO, p_WO) of frame object i: R_WB·R_BO and p_WB + R_WB·p_BO in scalars, rounded as the `@` calls they
    replace (kernels/small_products.py, geometry/collision/blas_rounding.py)."""
    b = s.fo_body[i]
    R_WB = d.R_WB[b]
    R, p, p_BO = np.empty((3, 3)), np.empty(3), s.fo_p[i]
    matmul33_into(R_WB, s.fo_R[i], R)
    for k in range(3):
        p[k] = d.p_WB[b, k] + rotate_row(R_WB, k, p_BO)
    return R, p


@njit(cache=True)
def frame_velocity(s, d, i, p_WO):
    """(ω_W, v_WO) of frame object i at its origin p_WO (d.V: Plücker at Wo)."""
    V = d.V[s.fo_body[i]]
    w, v = np.empty(3), np.empty(3)
    for k in range(3):
        w[k] = V[k]
    v[0] = V[3] + (w[1] * p_WO[2] - w[2] * p_WO[1])  # V[3:] + np.cross(w, p_WO)
    v[1] = V[4] + (w[2] * p_WO[0] - w[0] * p_WO[2])
    v[2] = V[5] + (w[0] * p_WO[1] - w[1] * p_WO[0])
    return w, v


@njit(cache=True)
def _frame_quat(s, d, i, xq):
    """MuJoCo's world quaternion of frame object i."""
    c = s.fo_chain[i]
    if c == -3:
        return s.fo_quat[i].copy()
    if c < 0:  # mocap ancestry: from the rotation matrix (w >= 0)
        R, _p = frame_pose(s, d, i)
        return quaternion_from_rotation_matrix(R)
    out = np.empty(4)
    quat_mul(xq[c], s.fo_quat[i], out)
    return out


@njit(cache=True)
def _subtree(s, d, r, velocity):
    """(mass, Σ m·p_com or Σ m·v_com) of subtree r."""
    total, acc = 0.0, np.zeros(3)
    for k in range(s.st_adr[r], s.st_adr[r] + s.st_num[r]):
        b = s.st_body[k]
        mb = d.bp[b, 0]
        if mb <= 0:
            continue
        r_W = d.R_WB[b] @ d.bp[b, 1:4]
        if velocity:
            V = d.V[b]
            val = V[3:] + np.cross(V[:3], d.p_WB[b] + r_W)
        else:
            val = d.p_WB[b] + r_W
        total += mb
        acc += mb * val
    return total, acc


@njit(cache=True)
def _subtree_angmom(s, d, r):
    """Angular momentum of subtree r about its center of mass, in W [kg m²/s]."""
    h = np.zeros(6)
    for k in range(s.st_adr[r], s.st_adr[r] + s.st_num[r]):
        b = s.st_body[k]
        h += d.Iw[b] @ d.V[b]
    mass, mc = _subtree(s, d, r, False)
    if mass <= 0:
        return np.zeros(3)
    return h[:3] - np.cross(mc / mass, h[3:])


@njit(cache=True)
def sensors(m, d, time, g_W, F_in):
    """d.sensordata at the state of d's forward evaluation (kinematics, tendons, actuation, contacts and the
    constraint solve done); `time` [s] for clock sensors, gravity g_W and the applied body forces F_in (nb × 6 or
    0 × 6, [τ; f] at the body origins in W) for the acceleration stage."""
    s = m.sens
    data = np.zeros(s.nsensordata)
    d.sensordata = data
    n = s.s_type.shape[0]
    if n == 0:
        return
    xq = body_quaternions(s, d.q) if s.qb_parent.shape[0] else np.zeros((0, 4))
    a = m.act
    for i in range(n):
        tp, adr, obj, ref = s.s_type[i], s.s_adr[i], s.s_obj[i], s.s_ref[i]
        if tp == JOINTPOS:
            data[adr] = d.q[obj]
        elif tp == BALLQUAT:
            qb = d.q[obj:obj + 4].copy()
            _normalize4(qb)
            data[adr:adr + 4] = qb
        elif tp == TENDONPOS:
            data[adr] = d.ten_length[obj]
        elif tp == ACTUATORPOS:
            data[adr:adr + s.s_dim[i]] = d.actuator_length[obj:obj + s.s_dim[i]]
        elif tp >= FRAMEPOS and tp <= FRAMEZAXIS:
            if tp == FRAMEQUAT:
                qo = _frame_quat(s, d, obj, xq)
                if ref >= 0:
                    qr = _frame_quat(s, d, ref, xq)
                    qr[1:] = -qr[1:]
                    quat_mul(qr, qo, data[adr:adr + 4])
                else:
                    data[adr:adr + 4] = qo
            else:
                R, p = frame_pose(s, d, obj)
                val = p.copy() if tp == FRAMEPOS else R[:, tp - FRAMEXAXIS].copy()
                if ref >= 0:
                    R_r, p_r = frame_pose(s, d, ref)
                    val = R_r.T @ (val - p_r) if tp == FRAMEPOS else R_r.T @ val
                data[adr:adr + 3] = val
        elif tp == SUBTREECOM or tp == SUBTREELINVEL:
            mass, acc = _subtree(s, d, obj, tp == SUBTREELINVEL)
            if mass > 0:
                data[adr:adr + 3] = acc / mass
        elif tp == CLOCK:
            data[adr] = time
        elif tp == INSIDESITE:
            R, p = frame_pose(s, d, ref)
            _R, p_obj = frame_pose(s, d, obj)
            data[adr] = InsideSite(s.s_aux[i], s.s_size[i], R, p, p_obj)
        elif tp == MAGNETOMETER:  # the field in the site frame: R_WSᵀ B_W
            R, _p = frame_pose(s, d, obj)
            data[adr:adr + 3] = R.T @ s.s_size[i]
        elif tp == JOINTVEL:
            data[adr] = d.v[obj]
        elif tp == BALLANGVEL:  # MuJoCo's ball qvel: ω in the child frame
            R = rotation_matrix_from_quaternion(d.q[obj:obj + 4])
            data[adr:adr + 3] = R.T @ d.v[s.s_aux[i]:s.s_aux[i] + 3]
        elif tp == TENDONVEL:
            data[adr] = d.ten_velocity[obj]
        elif tp == ACTUATORVEL:
            data[adr:adr + s.s_dim[i]] = d.actuator_velocity[obj:obj + s.s_dim[i]]
        elif tp == FRAMELINVEL or tp == FRAMEANGVEL or tp == GYRO or tp == VELOCIMETER:
            R, p = frame_pose(s, d, obj)
            w, v = frame_velocity(s, d, obj, p)
            if tp == GYRO or tp == VELOCIMETER:  # R.T @ (w or v)
                u = w if tp == GYRO else v
                for k in range(3):
                    data[adr + k] = rotate_t_row(R, k, u)
            elif ref < 0:
                data[adr:adr + 3] = v if tp == FRAMELINVEL else w
            else:
                R_r, p_r = frame_pose(s, d, ref)
                w_r, v_r = frame_velocity(s, d, ref, p_r)
                if tp == FRAMEANGVEL:
                    data[adr:adr + 3] = R_r.T @ (w - w_r)
                else:  # relative to the rotating reference frame
                    data[adr:adr + 3] = R_r.T @ (v - v_r - np.cross(w_r, p - p_r))
        elif tp == SUBTREEANGMOM:
            data[adr:adr + 3] = _subtree_angmom(s, d, obj)
        elif tp == ACTUATORFRC:
            data[adr:adr + s.s_dim[i]] = d.actuator_force[obj:obj + s.s_dim[i]]
        elif tp == JOINTACTFRC:
            data[adr] = d.qfrc_actuator[obj]
        elif tp == TENDONACTFRC:
            f = 0.0
            for k in range(obj, obj + s.s_aux[i]):
                f += d.actuator_force[s.ta_out[k]]
            data[adr] = f
    if s.need_acc or np.any(s.s_type == TOUCH):
        acceleration_sensors(m, d, g_W, F_in, data)
    for i in range(n):
        c = s.s_cutoff[i]
        if c > 0:
            for k in range(s.s_adr[i], s.s_adr[i] + s.s_dim[i]):
                data[k] = min(max(data[k], -c), c)
