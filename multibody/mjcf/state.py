"""MuJoCo ↔ MultibodyPlant state conversion and keyframes for MJCF models loaded with Parser.

The plant's q equals MuJoCo's qpos joint by joint except for free joints, whose layout differs:

* hinge / slide: q = qpos, v = qvel;
* ball: q = qpos = [qw qx qy qz] (R_FM); v = w_FM_F (parent frame) = R_FM · qvel (MuJoCo: child frame);
* free: q = [qw qx qy qz x y z] vs MuJoCo's [x y z qw qx qy qz]; v = [w_WB (world); v_WBo (world)] vs
  MuJoCo's [v_WBo (world); w_WB expressed in B].

So v_plant = T(q) · qvel with T orthogonal per joint; generalized forces map as τ_mujoco = Tᵀ τ_plant, and
M_mujoco = Tᵀ M_plant T. Keyframes (`<keyframe><key>`) set q, v and the MJCF actuator activations.
"""
from __future__ import annotations

import numpy as np

from ..math.functions import rotation_matrix_from_quaternion
from .plant_maps import GetMjcfPlantMap, GetMjcfPlantMaps

__all__ = ["GetMjcfPlantMap", "SetMujocoState", "GetMujocoState", "SetMujocoActivations", "GetMujocoActivations",
           "CalcMujocoVelocityMap"]


def _quat_R(q: np.ndarray) -> np.ndarray:
    """R of the (normalized) quaternion [w x y z]."""
    return np.asarray(rotation_matrix_from_quaternion(np.asarray(q, float) / np.linalg.norm(q)), float)


def _check_size(x, n: int, what: str) -> np.ndarray:
    x = np.asarray(x, dtype=float).reshape(-1)
    if x.size != n:
        raise ValueError(f"{what} needs {n} values (the MJCF model's size), got {x.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what} has non-finite values: {x.tolist()}")
    return x


def CalcMujocoVelocityMap(plant, context, model_instance=None) -> np.ndarray:
    """T (plant nv × MuJoCo nv) with v_plant = T · qvel at the context's positions; zero outside the model."""
    pm = GetMjcfPlantMap(plant, model_instance)
    q = plant.GetPositions(context)
    T = np.zeros((plant.num_velocities(), pm.model.nv))
    for jr, J in zip(pm.model.joints, pm.joints):
        vs, d = J.velocity_start(), jr.dofadr
        if jr.type in ("hinge", "slide"):
            T[vs, d] = 1.0
        elif jr.type == "ball":
            qs = J.position_start()
            T[vs:vs + 3, d:d + 3] = _quat_R(q[qs:qs + 4])
        else:
            qs = J.position_start()
            T[vs:vs + 3, d + 3:d + 6] = _quat_R(q[qs:qs + 4])
            T[vs + 3:vs + 6, d:d + 3] = np.eye(3)
    return T


def SetMujocoState(plant, context, qpos, qvel=None, model_instance=None) -> None:
    """Set the positions (and velocities; zero when None) of an MJCF model from MuJoCo's qpos / qvel."""
    pm = GetMjcfPlantMap(plant, model_instance)
    qpos = _check_size(qpos, pm.model.nq, "qpos")
    qvel = np.zeros(pm.model.nv) if qvel is None else _check_size(qvel, pm.model.nv, "qvel")
    q = plant.GetPositions(context).copy()
    for jr, J in zip(pm.model.joints, pm.joints):
        qs, a = J.position_start(), jr.qposadr
        if jr.type == "free":
            q[qs:qs + 4] = qpos[a + 3:a + 7]
            q[qs + 4:qs + 7] = qpos[a:a + 3]
        else:
            n = J.num_positions()
            q[qs:qs + n] = qpos[a:a + n]
    plant.SetPositions(context, q)
    v = plant.GetVelocities(context).copy()
    T = CalcMujocoVelocityMap(plant, context, pm.instance)
    rows = np.flatnonzero(np.any(T != 0, axis=1))
    v[rows] = (T @ qvel)[rows]
    plant.SetVelocities(context, v)


def GetMujocoState(plant, context, model_instance=None) -> tuple[np.ndarray, np.ndarray]:
    """(qpos, qvel) of an MJCF model in MuJoCo's layout and velocity convention."""
    pm = GetMjcfPlantMap(plant, model_instance)
    q = plant.GetPositions(context)
    qpos = np.zeros(pm.model.nq)
    for jr, J in zip(pm.model.joints, pm.joints):
        qs, a = J.position_start(), jr.qposadr
        if jr.type == "free":
            qpos[a:a + 3] = q[qs + 4:qs + 7]
            qpos[a + 3:a + 7] = q[qs:qs + 4]
        else:
            n = J.num_positions()
            qpos[a:a + n] = q[qs:qs + n]
    T = CalcMujocoVelocityMap(plant, context, pm.instance)
    return qpos, T.T @ plant.GetVelocities(context)


def SetMujocoActivations(plant, context, act, model_instance=None) -> None:
    """Set the MJCF model's actuator activations (MuJoCo's act, size na) in `context`."""
    pm = GetMjcfPlantMap(plant, model_instance)
    act = _check_size(act, pm.model.na, "act")
    k = [int(p.instance) for p in GetMjcfPlantMaps(plant)].index(int(pm.instance))
    plant._mjcf_actuation.MutableActivations(plant, context)[plant._mjcf_actuation.act_slices[k]] = act


def GetMujocoActivations(plant, context, model_instance=None) -> np.ndarray:
    """The MJCF model's actuator activations (MuJoCo's act)."""
    pm = GetMjcfPlantMap(plant, model_instance)
    k = [int(p.instance) for p in GetMjcfPlantMaps(plant)].index(int(pm.instance))
    return plant._mjcf_actuation.GetActivations(plant, context)[plant._mjcf_actuation.act_slices[k]].copy()
