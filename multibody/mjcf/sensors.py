"""MJCF sensors as a plant output port `<instance>_sensordata` (MuJoCo's sensordata layout for that model).

A discrete plant on the compiled step reads the sensordata the step computes (multibody/pipeline/sensor.py):
with sampled output ports (the default) those of the state the last step started from, as mj_step leaves
them (before the first step: those at the current state, as mj_forward), else those at the current state.
Otherwise (continuous plants, the Python path) this module computes them from the current context.
Values are in MuJoCo's conventions (ball angular velocity in the child frame, quaternions [w x y z]);
cutoff > 0 clamps to ±cutoff; noise is kept in the model and not applied (as MuJoCo).

Supported: jointpos, jointvel, ballquat, ballangvel, actuatorpos, actuatorvel, actuatorfrc, jointactuatorfrc,
tendonpos, tendonvel, tendonactuatorfrc (fixed and spatial tendons, wrapping geoms included), framepos,
framequat, framexaxis, frameyaxis, framezaxis, framelinvel, frameangvel (objects site / body (inertial
frame) / xbody / geom, optional reference object of those types), framelinacc, frameangacc, subtreecom,
subtreelinvel, gyro, velocimeter, magnetometer, insidesite, accelerometer, clock, force, torque, subtreeangmom
(sensor_dynamics.py), touch (touch.py) and engine-plugin sensors (type "plugin",
plugins.py). Other types (range finders, limit / constraint force sensors, ...) are reported once at
load and read 0.

The accelerometer, framelinacc / frameangacc, force, torque and touch sensors use the dynamics of the current
state: a continuous plant's v̇, or for a discrete plant the step starting at this state (solved again on each
evaluation, contact and constraints included) with MuJoCo's qacc, which treats joint damping explicitly (the
step itself treats it implicitly).
"""
from __future__ import annotations

from functools import partial
from types import MethodType

import numpy as np

from .actuation import ActuatorSupported
from .plant_maps import GetMjcfPlantMap, GetMjcfPlantMaps
from .sensor_dynamics import (AddSpatialTendonForces, CalcInteractionWrenches, FrameAcceleration,
                                    SensorWrench, StepDynamics, SubtreeAngularMomentum)
from .tendons import TendonPaths, TendonSupported
from .touch import TouchSensor
from ..math.functions import quaternion_from_rotation_matrix, rotation_matrix_from_quaternion
from ..pipeline.sensor import SITE_SHAPES, InsideSite

__all__ = ["SUPPORTED_SENSORS", "CheckMjcfSensors", "FinalizeMjcfSensors", "GetMujocoSensorOutputPort"]

_FRAME_ACC = ("framelinacc", "frameangacc")
_FRAME = ("framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel", "frameangvel")
SUPPORTED_SENSORS = ("jointpos", "jointvel", "ballquat", "ballangvel", "actuatorpos", "actuatorvel", "actuatorfrc",
                     "jointactuatorfrc", "tendonpos", "tendonvel", "tendonactuatorfrc", "subtreecom", "subtreelinvel",
                     "gyro", "velocimeter", "accelerometer", "clock", "force", "torque",
                     "subtreeangmom", "touch", "magnetometer", "insidesite") + _FRAME + _FRAME_ACC
_FRAME_OBJECTS = ("site", "body", "xbody", "geom")
_NO_CUTOFF = ("ballquat", "framequat", "framexaxis", "frameyaxis", "framezaxis")  # quaternion / axis data


def SensorSupported(model, s) -> bool:
    """Whether the plant computes sensor `s` of MJCF model `model` (others read 0)."""
    return s.type != "plugin" and _supported(model, s)


def _supported(model, s) -> bool:
    if s.type == "plugin":  # engine-plugin sensors (plugins.py)
        return s.plugin >= 0
    if s.type not in SUPPORTED_SENSORS:
        return False
    if s.type in _FRAME:
        return s.objtype in _FRAME_OBJECTS and s.reftype in ("none", None, *_FRAME_OBJECTS)
    if s.type in _FRAME_ACC:
        return s.objtype in _FRAME_OBJECTS
    if s.type == "touch":
        return model.sites[s.objid].type in ("sphere", "capsule", "ellipsoid", "cylinder", "box")
    if s.type == "insidesite":  # (MuJoCo takes a massless body's subtree centre of mass instead: not done here)
        return s.objtype in _FRAME_OBJECTS and not (s.objtype == "body" and model.bodies[s.objid].mass < 1e-15)
    if s.type in ("tendonpos", "tendonvel", "tendonactuatorfrc"):
        return TendonSupported(model.tendons[s.objid])
    if s.type in ("actuatorpos", "actuatorvel", "actuatorfrc"):
        return ActuatorSupported(model, model.actuators[s.objid])
    return True


def CheckMjcfSensors(model) -> list[str]:
    """One located message per sensor the plant does not compute (it reads 0)."""
    out = []
    for i, s in enumerate(model.sensors):
        if not _supported(model, s):
            where = f"{s.where}: " if s.where is not None else "MJCF: "
            out.append(f"{where}sensor '{s.name or i}' of type '{s.type}' (object {s.objtype}) is not computed by "
                       f"MultibodyPlant (supported: {', '.join(SUPPORTED_SENSORS)}); it reads 0")
    return out


def _quat_from_R(R: np.ndarray) -> np.ndarray:
    q = np.asarray(quaternion_from_rotation_matrix(R), float)
    return q if q[0] >= 0 else -q


def _quat_R(q) -> np.ndarray:
    return np.asarray(rotation_matrix_from_quaternion(np.asarray(q, float) / np.linalg.norm(q)), float)


class _Frames:
    """Poses and velocities of MuJoCo objects (site / body / xbody / geom) at one context, memoized."""

    def __init__(self, pm, context):
        self.pm, self.context, self.memo = pm, context, {}

    def _local(self, objtype: str, objid: int):
        m = self.pm.model
        if objtype == "xbody":
            return objid, np.eye(3), np.zeros(3)
        if objtype == "body":
            b = m.bodies[objid]
            return objid, _quat_R(b.iquat), np.asarray(b.ipos, float)
        el = m.sites[objid] if objtype == "site" else m.geoms[objid]
        return el.body, _quat_R(el.quat), np.asarray(el.pos, float)

    def get(self, objtype: str, objid: int):
        """(R_WO, p_WO, w_WO, v_WO) of the object frame O, in world."""
        key = (objtype, objid)
        if key not in self.memo:
            b, R_BO, p_BO = self._local(objtype, objid)
            body = self.pm.bodies[b]
            X = body.EvalPoseInWorld(self.context)
            R_WB, p_WB = X.rotation().matrix(), X.translation()
            V = body.EvalSpatialVelocityInWorld(self.context)
            w, v_B = np.asarray(V.rotational(), float), np.asarray(V.translational(), float)
            r = R_WB @ p_BO
            self.memo[key] = (R_WB @ R_BO, p_WB + r, w, v_B + np.cross(w, r))
        return self.memo[key]


def _frame_sensor(s, frames: _Frames) -> np.ndarray:
    R, p, w, v = frames.get(s.objtype, s.objid)
    ref = s.reftype not in ("none", None) and s.refid >= 0
    if ref:
        R_r, p_r, w_r, v_r = frames.get(s.reftype, s.refid)
    else:
        R_r, p_r, w_r, v_r = np.eye(3), np.zeros(3), np.zeros(3), np.zeros(3)
    if s.type == "framepos":
        return R_r.T @ (p - p_r)
    if s.type == "framequat":
        return _quat_from_R(R_r.T @ R)
    if s.type in ("framexaxis", "frameyaxis", "framezaxis"):
        return R_r.T @ R[:, "xyz".index(s.type[5])]
    if s.type == "frameangvel":
        return R_r.T @ (w - w_r)
    # framelinvel: velocity of O relative to the (rotating) reference frame, expressed in it
    return R_r.T @ (v - v_r - np.cross(w_r, p - p_r))


def _subtree(model, root: int) -> list[int]:
    out = [root]
    for b in range(root + 1, model.nbody):
        if model.bodies[b].parent in out:
            out.append(b)
    return out


def _subtree_com(plant, pm, context, root: int, velocity: bool) -> np.ndarray:
    total, acc = 0.0, np.zeros(3)
    for b in _subtree(pm.model, root):
        body = pm.bodies[b]
        m = body.get_mass(context) if b else 0.0
        if m <= 0:
            continue
        X = body.EvalPoseInWorld(context)
        r = X.rotation().matrix() @ np.asarray(body.CalcCenterOfMassInBodyFrame(context), float)
        if velocity:
            V = body.EvalSpatialVelocityInWorld(context)
            val = np.asarray(V.translational(), float) + np.cross(np.asarray(V.rotational(), float), r)
        else:
            val = X.translation() + r
        total += m
        acc += m * val
    return acc / total if total > 0 else np.zeros(3)


def _dynamics(plant, context, cache: dict) -> StepDynamics:
    """v̇ and external wrenches at the context's state and inputs: the continuous dynamics, or the discrete step
    that starts at this state (contact and constraints included) — recomputed once per evaluation, never the
    last step's."""
    if "dyn" not in cache:
        cache["dyn"] = StepDynamics(plant, context)
    return cache["dyn"]


def _accelerometer(pm, s: int, frames: "_Frames", A: list, g_W: np.ndarray) -> np.ndarray:
    """Proper acceleration of site s in the site frame: R_WSᵀ (a_WSo − g), a_WSo = a_Bo + α×r + ω×(ω×r)."""
    site = pm.model.sites[s]
    body = pm.bodies[site.body]
    R_WS, p_WS, w, _ = frames.get("site", s)
    A_WB = A[int(body.index())]
    r = p_WS - body.EvalPoseInWorld(frames.context).translation()
    alpha, a_Bo = np.asarray(A_WB.rotational(), float), np.asarray(A_WB.translational(), float)
    return R_WS.T @ (a_Bo + np.cross(alpha, r) + np.cross(w, np.cross(w, r)) - g_W)


def _outputs(model, sl: slice, i: int) -> slice:
    """The output rows (forces, lengths, moments) of actuator i of `model`, whose outputs are rows `sl` of the
    plant's actuation: MuJoCo 4's actuator_outadr / outnum (an so3 servo has 3 outputs, others 1)."""
    adr = sl.start + sum(getattr(a, "outnum", 1) for a in model.actuators[:i])
    return slice(adr, adr + getattr(model.actuators[i], "outnum", 1))


def _SensedTendons(pm) -> tuple:
    """(TendonPaths of the tendons read by tendonpos / tendonvel sensors, tendon id → row), built once at
    Finalize: their lengths and moments (wrap paths included) come from one kernel call per evaluation."""
    ids = sorted({s.objid for s in pm.model.sensors if s.type in ("tendonpos", "tendonvel")
                  and _supported(pm.model, s)})
    if not ids:
        return None, {}
    return TendonPaths([(pm, t) for t in ids]), {t: r for r, t in enumerate(ids)}


def _calc(plant, pm, k, context, out, tendons=None, tendon_row=None, offset=0) -> None:
    data = plant._PipelineSensorData(context) if plant.time_step() > 0 else None
    if data is not None:  # the compiled step's (pipeline/sensor.py)
        out.SetFromVector(data[offset:offset + out.size()])
        return
    model = pm.model
    act = plant._mjcf_actuation
    q, v = plant.GetPositions(context), plant.GetVelocities(context)
    sl = act.u_slices[k]
    data = np.zeros(sum(s.dim for s in model.sensors))
    frames = _Frames(pm, context)
    cache: dict = {}
    adr = 0
    for s in model.sensors:
        val = None
        if not _supported(model, s):
            pass
        elif s.type in ("jointpos", "ballquat"):
            J = pm.joints[s.objid]
            val = q[J.position_start():J.position_start() + J.num_positions()]
        elif s.type == "jointvel":
            val = [v[pm.joints[s.objid].velocity_start()]]
        elif s.type == "ballangvel":  # MuJoCo: w in the child frame = R_FMᵀ w_F
            J = pm.joints[s.objid]
            vs = J.velocity_start()
            val = _quat_R(q[J.position_start():J.position_start() + 4]).T @ v[vs:vs + 3]
        elif s.type == "actuatorpos":  # one value per actuator output (MuJoCo 4: 3 for an so3 servo)
            val = act.CalcLengths(plant, context, q)[_outputs(model, sl, s.objid)]
        elif s.type == "actuatorvel":
            val = act.CalcMomentArms(plant, context)[_outputs(model, sl, s.objid)] @ v
        elif s.type == "actuatorfrc":
            if "f" not in cache:
                cache["f"] = act.CalcActuatorForces(plant, context, q, v)
            val = cache["f"][_outputs(model, sl, s.objid)]
        elif s.type == "jointactuatorfrc":
            if "tau" not in cache:
                cache["tau"] = act.CalcActuatorGeneralizedForces(plant, context, q, v)
            val = [cache["tau"][pm.joints[s.objid].velocity_start()]]
        elif s.type in ("tendonpos", "tendonvel"):  # every sensed tendon from one compiled call
            if "ten" not in cache:
                cache["ten"] = tendons.CalcLengthsMoments(plant._eval_kinematics(context), plant._model.ji)
            L, J = cache["ten"]
            r = tendon_row[s.objid]
            val = [L[r]] if s.type == "tendonpos" else [J[r] @ v]
        elif s.type == "tendonactuatorfrc":  # total force of the actuators pulling on this tendon
            if "f" not in cache:
                cache["f"] = act.CalcActuatorForces(plant, context, q, v)
            val = [sum(float(cache["f"][_outputs(model, sl, i)].sum()) for i, a in enumerate(model.actuators)
                       if a.trntype == "tendon" and a.trnid[0] == s.objid)]
        elif s.type in _FRAME:
            val = _frame_sensor(s, frames)
        elif s.type in ("subtreecom", "subtreelinvel"):
            val = _subtree_com(plant, pm, context, s.objid, s.type == "subtreelinvel")
        elif s.type == "accelerometer":
            if "A" not in cache:
                cache["A"] = plant.CalcSpatialAccelerationsFromVdot(context, _dynamics(plant, context, cache).vdot)
            val = _accelerometer(pm, s.objid, frames, cache["A"], plant.gravity_field().gravity_vector())
        elif s.type == "insidesite":
            R_WS, p_WS, _, _ = frames.get("site", s.refid)
            site = model.sites[s.refid]
            val = [float(InsideSite(SITE_SHAPES[site.type], np.asarray(site.size, float), R_WS, p_WS,
                                    frames.get(s.objtype, s.objid)[1]))]
        elif s.type == "magnetometer":  # the field <option magnetic> [T] in the site frame
            R, _, _, _ = frames.get("site", s.objid)
            val = R.T @ np.asarray(model.option.magnetic, float)
        elif s.type in ("gyro", "velocimeter"):
            R, _, w, vo = frames.get("site", s.objid)
            val = R.T @ (w if s.type == "gyro" else vo)
        elif s.type in ("force", "torque"):
            if "cfrc" not in cache:
                dyn = _dynamics(plant, context, cache)
                dyn.AddEqualityForces(plant, pm)
                if "f" not in cache:
                    cache["f"] = act.CalcActuatorForces(plant, context, q, v)
                AddSpatialTendonForces(plant, pm, k, dyn, cache["f"])
                cache["cfrc"] = CalcInteractionWrenches(plant, pm, dyn)
            val = SensorWrench(pm, cache["cfrc"], frames, s.objid, s.type == "torque")
        elif s.type in _FRAME_ACC:
            val = FrameAcceleration(plant, pm, _dynamics(plant, context, cache), frames, s.objtype, s.objid,
                                    s.type == "frameangacc", cache)
        elif s.type == "touch":
            val = [TouchSensor(plant, pm, _dynamics(plant, context, cache), frames, context, s.objid)]
        elif s.type == "subtreeangmom":
            val = SubtreeAngularMomentum(plant, pm, context, s.objid, _subtree(model, s.objid))
        elif s.type == "clock":
            val = [context.get_time()]
        elif s.type == "plugin":
            cache["plugin"] = True
        if val is not None:
            val = np.asarray(val, float)
            if s.cutoff > 0 and s.type not in _NO_CUTOFF:
                val = np.clip(val, -s.cutoff, s.cutoff)
            data[adr:adr + s.dim] = val
        adr += s.dim
    if cache.get("plugin"):  # plugin sensors write their own slots of sensordata (all stages)
        ctrl = act.EvalCtrl(plant, context)
        length = act.CalcLengths(plant, context, q)
        velocity = act.CalcMomentArms(plant, context) @ v
        act.plugins.Sensors(plant, k, context, ctrl, act.GetActivations(plant, context), length, velocity, data)
    out.SetFromVector(data)


def _CalcSensorPort(plant, context, out, pm, k, tendons, rows, offset) -> None:
    """The sensordata port's calc: bound to the plant as a method in a partial, which the port keeps unbound (a
    closure over the plant would be a reference cycle, see systems/framework/weak_owner.py)."""
    _calc(plant, pm, k, context, out, tendons, rows, offset)


def FinalizeMjcfSensors(plant) -> None:
    """Declare `<instance>_sensordata` for every MJCF model with sensors (called by Finalize)."""
    plant._mjcf_sensor_ports = {}
    offset = 0  # the model's first entry in the plant's sensordata (models in load order)
    for k, pm in enumerate(GetMjcfPlantMaps(plant)):
        n = sum(s.dim for s in pm.model.sensors)
        if not n:
            continue
        name = f"{plant.GetModelInstanceName(pm.instance)}_sensordata"
        tendons, rows = _SensedTendons(pm)
        plant._mjcf_sensor_ports[int(pm.instance)] = plant.DeclareVectorOutputPort(
            name, n, partial(MethodType(_CalcSensorPort, plant), pm=pm, k=k, tendons=tendons, rows=rows, offset=offset))
        offset += n


def GetMujocoSensorOutputPort(plant, model_instance=None):
    """The `<instance>_sensordata` output port of an MJCF model (RuntimeError if it has no sensors)."""
    plant._ThrowIfNotFinalized("GetMujocoSensorOutputPort")
    pm = GetMjcfPlantMap(plant, model_instance)
    port = plant._mjcf_sensor_ports.get(int(pm.instance))
    if port is None:
        raise RuntimeError(f"MJCF model '{pm.model.name}' declares no sensors, so the plant has no sensordata port")
    return port
