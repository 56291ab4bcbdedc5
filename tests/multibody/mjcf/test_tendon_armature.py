"""MJCF tendon armature in the plant's dynamics against MuJoCo: the a·JᵀJ terms of M (tree-sparse, as MuJoCo's
inertia), the a·J·(J̇·v) bias, continuous forward dynamics and discrete steps as mj_step."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree import MultibodyForces
from mallard.multibody.mjcf.state import CalcMujocoVelocityMap, GetMujocoState, SetMujocoState
from mallard.parsers import Parser

CORE = ("mujoco", "testdata", "core_smooth")


def _load(mujoco, path, time_step):
    mm = mujoco.MjModel.from_xml_path(str(path))
    plant = MultibodyPlant(time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    plant.Finalize()
    return mm, plant, plant.CreateDefaultContext()


def _load_text(mujoco, text, time_step):
    mm = mujoco.MjModel.from_xml_string(text)
    plant = MultibodyPlant(time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(text, "xml")
    plant.Finalize()
    return mm, plant, plant.CreateDefaultContext()


def _offtree_text(models_dir):
    """ten_armature_offtree.xml with its ball-joint springs taken out (only the tendons' terms are tested)."""
    text = models_dir.joinpath(*CORE, "ten_armature_offtree.xml").read_text()
    return text.replace('type="ball" stiffness="20"', 'type="ball"')


def _random_state(mm, rng):
    qpos = mm.qpos0 + 0.4 * rng.normal(size=mm.nq)
    for j in range(mm.njnt):
        a, t = mm.jnt_qposadr[j], mm.jnt_type[j]
        if t in (0, 1):
            s = a + 3 if t == 0 else a
            qpos[s:s + 4] /= np.linalg.norm(qpos[s:s + 4])
    return qpos, rng.normal(size=mm.nv)


@pytest.mark.parametrize("name", ["ten_armature_3.xml", "ten_armature_4.xml", "ten_armature_offtree.xml"])
def test_armature_terms_of_mass_matrix_and_bias_match_mujoco(models_dir, name):
    """The armature's own share (MuJoCo with and without tendon_armature), free of the bodies' inertias."""
    mujoco = require_mujoco()
    mm, plant, context = _load(mujoco, models_dir.joinpath(*CORE, name), 0.0)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(11)
    armature = mm.tendon_armature.copy()
    for _ in range(3):
        qpos, qvel = _random_state(mm, rng)
        md.qpos[:], md.qvel[:] = qpos, qvel
        M_with = np.zeros((mm.nv, mm.nv))
        mujoco.mj_forward(mm, md)
        mujoco.mj_fullM(mm, md, M_with)
        bias_with = md.qfrc_bias.copy()
        mm.tendon_armature[:] = 0
        mujoco.mj_forward(mm, md)
        M_without = np.zeros((mm.nv, mm.nv))
        mujoco.mj_fullM(mm, md, M_without)
        bias_without = md.qfrc_bias.copy()
        mm.tendon_armature[:] = armature
        SetMujocoState(plant, context, qpos, qvel)
        T = CalcMujocoVelocityMap(plant, context)
        kin = plant._eval_kinematics(context)
        ti = plant._tendon_inertia
        dM = M_with - M_without
        assert np.abs(dM).max() > 1e-3
        np.testing.assert_allclose(T.T @ ti.CalcMassMatrix(kin) @ T, dM, rtol=0, atol=1e-9 * np.abs(dM).max())
        dbias = bias_with - bias_without
        np.testing.assert_allclose(T.T @ ti.CalcBias(kin), dbias, rtol=0, atol=1e-9 * max(1.0, np.abs(dbias).max()))
        M_plant = plant.CalcMassMatrix(context)
        if name == "ten_armature_offtree.xml":  # inertias exact here: the whole M and bias as MuJoCo's
            np.testing.assert_allclose(T.T @ M_plant @ T, M_with, rtol=0, atol=1e-9 * np.abs(M_with).max())
            bias = T.T @ (plant.CalcBiasTerm(context) - plant.CalcGravityGeneralizedForces(context))
            np.testing.assert_allclose(bias, bias_with, rtol=0, atol=1e-9 * max(1.0, np.abs(bias_with).max()))


def test_continuous_forward_dynamics_with_armature_match_mujoco(models_dir):
    mujoco = require_mujoco()
    mm, plant, context = _load_text(mujoco, _offtree_text(models_dir), 0.0)
    md = mujoco.MjData(mm)
    qpos, qvel = _random_state(mm, np.random.default_rng(4))
    md.qpos[:], md.qvel[:] = qpos, qvel
    mujoco.mj_forward(mm, md)
    SetMujocoState(plant, context, qpos, qvel)
    T = CalcMujocoVelocityMap(plant, context)
    vdot = plant.get_generalized_acceleration_output_port().Eval(context)
    qacc = np.linalg.lstsq(T, vdot, rcond=None)[0]
    np.testing.assert_allclose(qacc, md.qacc, rtol=0, atol=1e-8 * max(1.0, np.abs(md.qacc).max()))
    # M v̇ + C v − τ_g is what the passive forces (tendon and joint springs) deliver, as in MuJoCo
    M, Cv = plant.CalcMassMatrix(context), plant.CalcBiasTerm(context)
    lhs = T.T @ (M @ vdot + Cv - plant.CalcGravityGeneralizedForces(context))
    np.testing.assert_allclose(lhs, md.qfrc_passive, rtol=0, atol=1e-8 * max(1.0, np.abs(md.qfrc_passive).max()))
    # and inverse dynamics (no applied forces) carries the armature terms too: τ = M v̇ + C v
    tau = plant.CalcInverseDynamics(context, vdot, MultibodyForces(plant))
    np.testing.assert_allclose(tau, M @ vdot + Cv, rtol=0, atol=1e-9 * max(1.0, np.abs(tau).max()))
    np.testing.assert_allclose(plant.CalcMassMatrixViaInverseDynamics(context), M, rtol=0, atol=1e-9 * np.abs(M).max())


@pytest.mark.parametrize("name", ["ten_armature_2.xml", "ten_armature_offtree.xml", "ten_armature_1_compare.xml"])
def test_discrete_steps_with_armature_match_mujoco(models_dir, name):
    """200 steps with the models' own RK4 integrator in both (multibody/mjcf/rk4.py)."""
    mujoco = require_mujoco()
    path = models_dir.joinpath(*CORE, name)
    h = float(mujoco.MjModel.from_xml_path(str(path)).opt.timestep)
    if name == "ten_armature_offtree.xml":
        mm, plant, context = _load_text(mujoco, _offtree_text(models_dir), h)
    else:
        mm, plant, context = _load(mujoco, path, h)
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    else:
        md.qvel[:] = np.random.default_rng(2).normal(size=mm.nv)
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    for _ in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    assert np.abs(md.qvel).max() > 0.1
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_armature_on_a_wrapping_tendon_is_rejected(models_dir):
    """MuJoCo has no J̇ for geom wrapping (mj_tendonDot stops), so the plant refuses the model at Finalize."""
    text = (models_dir.joinpath(*CORE, "tendon_wrap_sphere.xml").read_text()
            .replace('<spatial range="0 0.8">', '<spatial range="0 0.8" armature="1">', 1))
    plant = MultibodyPlant(0.002)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(text, "xml")
    with pytest.raises(ValueError, match="armature on a tendon that wraps geoms"):
        plant.Finalize()
