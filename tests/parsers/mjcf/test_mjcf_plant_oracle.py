"""MJCF models loaded into MultibodyPlant against the MuJoCo oracle: structure, mass properties, body poses
(default and keyframes), M(q), bias forces and actuator forces at random states, in MuJoCo's velocity
convention (v_plant = T qvel, M_mj = Tᵀ M T, τ_mj = Tᵀ τ)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.state import (CalcMujocoVelocityMap, GetMjcfPlantMap, GetMujocoState, SetMujocoActivations,
                                          SetMujocoState)
from mallard.multibody.mjcf.keyframes import SetMujocoKeyframe
from mallard.parsers import Parser


def _files(models_root):
    return sorted(p for p in (models_root / "mujoco").rglob("*.xml"))


def _all_files():
    from pathlib import Path
    root = Path(__file__).resolve().parents[3].parent / "shared" / "models"
    return [p for p in _files(root)] if root.is_dir() else []


def _load(path):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_path(str(path))
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    plant.Finalize()
    return mujoco, mm, plant


def _random_qpos(mm, rng):
    qpos = mm.qpos0.copy()
    for j in range(mm.njnt):
        a, t = mm.jnt_qposadr[j], mm.jnt_type[j]
        if t == 0:
            qpos[a:a + 3] += rng.normal(size=3)
            q = rng.normal(size=4)
            qpos[a + 3:a + 7] = q / np.linalg.norm(q)
        elif t == 1:
            q = rng.normal(size=4)
            qpos[a:a + 4] = q / np.linalg.norm(q)
        else:
            qpos[a] += rng.normal()
    return qpos


def _check_poses(mm, md, plant, context, pm):
    for b in range(1, mm.nbody):
        X = pm.bodies[b].EvalPoseInWorld(context)
        np.testing.assert_allclose(X.translation(), md.xpos[b], atol=1e-9, err_msg=f"body {b} position")
        np.testing.assert_allclose(X.rotation().matrix(), md.xmat[b].reshape(3, 3), atol=1e-9,
                                   err_msg=f"body {b} rotation")


PARAMS = [pytest.param(p, id=p.relative_to(p.parents[1]).as_posix() if len(p.parents) > 1 else p.name)
          for p in _all_files()]  # every shared MJCF file


@pytest.mark.parametrize("path", PARAMS)
def test_mjcf_model_matches_mujoco(path):
    mujoco, mm, plant = _load(path)
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    pm = GetMjcfPlantMap(plant)
    # structure: one plant body per MuJoCo body (plus massless joint-chain bodies), same dofs
    assert len(pm.bodies) == mm.nbody
    assert plant.num_bodies() == mm.nbody + sum(max(int(n) - 1, 0) for n in mm.body_jntnum)
    assert plant.num_positions() == mm.nq and plant.num_velocities() == mm.nv
    # mass properties at the inertial frame
    for b in range(1, mm.nbody):
        M = pm.bodies[b].default_spatial_inertia()
        assert M.get_mass() == pytest.approx(mm.body_mass[b], rel=1e-12, abs=1e-14)
        if mm.body_mass[b] > 0:
            np.testing.assert_allclose(M.get_com(), mm.body_ipos[b], atol=1e-9)
            R = np.zeros(9)
            mujoco.mju_quat2Mat(R, mm.body_iquat[b])
            R = R.reshape(3, 3)
            I_cm = R @ np.diag(mm.body_inertia[b]) @ R.T
            c = mm.body_ipos[b]
            I_o = I_cm + mm.body_mass[b] * (c @ c * np.eye(3) - np.outer(c, c))
            np.testing.assert_allclose(M.CalcRotationalInertia().CopyToFullMatrix3(), I_o,
                                       atol=1e-9 * max(1.0, np.abs(I_o).max()))
    # default state = qpos0, and the keyframes
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, mm.qpos0, atol=1e-12)
    mujoco.mj_kinematics(mm, md)
    _check_poses(mm, md, plant, context, pm)
    for k in range(mm.nkey):
        mujoco.mj_resetDataKeyframe(mm, md, k)
        mujoco.mj_kinematics(mm, md)
        SetMujocoKeyframe(plant, context, k)
        _check_poses(mm, md, plant, context, pm)
    # smooth dynamics at a random state
    rng = np.random.default_rng(7)
    qpos, qvel = _random_qpos(mm, rng), rng.normal(size=mm.nv)
    ctrl = rng.uniform(-2.0, 2.0, size=mm.nu)
    md.qpos[:], md.qvel[:], md.ctrl[:] = qpos, qvel, ctrl
    if mm.na:
        act = rng.uniform(-1.0, 1.0, size=mm.na)
        md.act[:] = act
        SetMujocoActivations(plant, context, act)
    mujoco.mj_forward(mm, md)
    SetMujocoState(plant, context, qpos, qvel)
    got_q, got_v = GetMujocoState(plant, context)
    np.testing.assert_allclose(got_v, qvel, atol=1e-12)
    _check_poses(mm, md, plant, context, pm)
    T = CalcMujocoVelocityMap(plant, context)
    M_mj = np.zeros((mm.nv, mm.nv))
    mujoco.mj_fullM(mm, md, M_mj)
    M = T.T @ plant.CalcMassMatrix(context) @ T
    np.testing.assert_allclose(M, M_mj, rtol=0, atol=1e-9 * max(1.0, np.abs(M_mj).max()))
    bias = T.T @ (plant.CalcBiasTerm(context) - plant.CalcGravityGeneralizedForces(context))
    np.testing.assert_allclose(bias, md.qfrc_bias, rtol=0, atol=1e-9 * max(1.0, np.abs(md.qfrc_bias).max()))
    if mm.nu:
        actuation = plant._mjcf_actuation
        actuation.ports[0].FixValue(context, ctrl)
        q, v = plant.GetPositions(context), plant.GetVelocities(context)
        force = actuation.CalcActuatorForces(plant, context, q, v)
        ok = actuation.enabled
        # a muscle's force depends on its lengthrange; computed by simulation (compiler/lengthrange) it
        # agrees with MuJoCo's to ~1e-8 (test_mjcf_lengthrange.py), so muscle forces are compared at 1e-6
        muscle = np.array([a.gaintype == "muscle" for a in pm.model.actuators  # one per output (so3: 3)
                           for _ in range(getattr(a, "outnum", 1))], bool)
        rtol = np.where(muscle, 1e-6, 1e-9)[ok]
        np.testing.assert_array_less(np.abs(force[ok] - md.actuator_force[ok]),
                                     1e-9 + rtol * np.abs(md.actuator_force[ok]) + 1e-300)
        if ok.all():
            tau = T.T @ actuation.CalcActuatorGeneralizedForces(plant, context, q, v)
            np.testing.assert_allclose(tau, md.qfrc_actuator, rtol=0,
                                       atol=(1e-6 if muscle.any() else 1e-9) * max(1.0, np.abs(md.qfrc_actuator).max()))


EQUALITY_FILES = ["connect/force_free.xml", "connect/torque_free.xml", "weld/force_free.xml",
                  "weld/force_free_rotated.xml", "weld/force_torque_free_rotated.xml", "weld/tfratio0_force_free.xml"]


@pytest.mark.parametrize("name", EQUALITY_FILES)
def test_equality_constraints_step_as_mujoco(models_dir, name):
    """connect / weld (incl. torquescale 0) mapped onto plant constraints: 20 discrete steps as mj_step
    (contact off in the oracle: the plant has no SceneGraph here)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "core_smooth" / "rne_post" / name
    mujoco_, mm, plant = _load(path)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    assert plant.num_constraints() == mm.neq
    context = plant.CreateDefaultContext()
    state = context.get_mutable_state()
    for _ in range(20):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    assert np.abs(md.qvel).max() > 1e-4  # the bodies did move
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-12)
