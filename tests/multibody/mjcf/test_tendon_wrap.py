"""MJCF spatial tendons wrapping sphere and cylinder geoms (side sites, inside wrap, pulleys) against MuJoCo:
lengths and moment arms at random states, compile-time constants, and 200 discrete steps as mj_step."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.kernels.tendon_kernels import wrap_geom
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import CalcMujocoVelocityMap, GetMjcfPlantMap, GetMujocoState, SetMujocoState
from mallard.multibody.mjcf.tendons import TendonPaths
from mallard.parsers import Parser
from mallard.parsers.mjcf import load_mjcf

WRAP_FILES = ["tendon_wrap_sphere.xml", "tendon_wrap_cylinder.xml"]

#: a pulley splitting a rope that wraps a cylinder on a swinging arm (side site on the arm) and a fixed sphere
PULLEY = """<mujoco model="pulley_wrap"><option timestep="0.002"/>
<worldbody>
  <site name="top" pos="0 0 1.5"/>
  <geom name="ball" type="sphere" size="0.08" pos="0.3 0 1.1" contype="0" conaffinity="0"/>
  <site name="ballside" pos="0.45 0 1.1"/>
  <body name="arm" pos="0 0 1"><joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"/>
    <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
    <geom name="drum" type="cylinder" size="0.06 0.05" pos="0.25 0 0" zaxis="0 1 0" contype="0" conaffinity="0"/>
    <site name="drumside" pos="0.25 0 -0.1"/><site name="tip" pos="0.5 0 0"/>
  </body>
  <body name="weight" pos="0.3 0 0.4"><freejoint/><geom type="sphere" size="0.04"/><site name="hook"/></body>
</worldbody>
<tendon>
  <spatial name="rope" stiffness="200" springlength="0 1.3" damping="0.5" limited="true" range="0 1.45"
           frictionloss="0.05">
    <site site="top"/><geom geom="drum" sidesite="drumside"/><site site="tip"/>
    <pulley divisor="2"/><site site="tip"/><geom geom="ball" sidesite="ballside"/><site site="hook"/>
  </spatial>
</tendon>
<actuator><motor tendon="rope" gear="3"/></actuator>
<sensor><tendonpos tendon="rope"/><tendonvel tendon="rope"/></sensor>
</mujoco>"""


def _plant(mujoco, mm, text=None, path=None):
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if text is not None:
            Parser(plant).AddModelsFromString(text, "xml")
        else:
            Parser(plant).AddModels(str(path))
    plant.Finalize()
    return plant, plant.CreateDefaultContext()


def _dense_ten_J(mm, md):
    J = np.zeros((mm.ntendon, mm.nv))
    for t in range(mm.ntendon):
        a, n = mm.ten_J_rowadr[t], mm.ten_J_rownnz[t]
        J[t, mm.ten_J_colind[a:a + n]] = md.ten_J[a:a + n]
    return J


def _random_qpos(mm, rng, scale):
    qpos = mm.qpos0 + scale * rng.normal(size=mm.nq)
    for j in range(mm.njnt):
        if mm.jnt_type[j] == 0:
            a = mm.jnt_qposadr[j]
            qpos[a + 3:a + 7] /= np.linalg.norm(qpos[a + 3:a + 7])
    return qpos


def _check_lengths_moments(mujoco, mm, plant, context, rng, trials, scale):
    md = mujoco.MjData(mm)
    pm = GetMjcfPlantMap(plant)
    paths = TendonPaths([(pm, t) for t in range(mm.ntendon)])
    wrapped = 0
    for _ in range(trials):
        qpos = _random_qpos(mm, rng, scale)
        md.qpos[:] = qpos
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, qpos, np.zeros(mm.nv))
        L, J = paths.CalcLengthsMoments(plant._eval_kinematics(context), plant._model.ji)
        T = CalcMujocoVelocityMap(plant, context)
        np.testing.assert_allclose(L, md.ten_length, rtol=0, atol=1e-9)
        np.testing.assert_allclose(J @ T, _dense_ten_J(mm, md), rtol=0, atol=1e-6)
        wrapped += int(np.sum(md.wrap_obj >= 0))
    return wrapped


@pytest.mark.parametrize("name", WRAP_FILES)
def test_wrap_lengths_and_moments_match_mujoco(models_dir, name):
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "core_smooth" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    plant, context = _plant(mujoco, mm, path=path)
    wrapped = _check_lengths_moments(mujoco, mm, plant, context, np.random.default_rng(3), 40, 0.05)
    assert wrapped > 40  # the paths did wrap (tangent points on the geoms)
    model = load_mjcf(str(path))  # compile-time constants of wrapping tendons
    np.testing.assert_allclose([t.length0 for t in model.tendons], mm.tendon_length0, rtol=0, atol=1e-12)
    np.testing.assert_allclose([t.invweight0 for t in model.tendons], mm.tendon_invweight0, rtol=1e-9)
    np.testing.assert_allclose([t.lengthspring for t in model.tendons], mm.tendon_lengthspring, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", WRAP_FILES)
def test_wrap_tendon_limits_step_as_mujoco(models_dir, name):
    """Three weights hang from tendons wrapped over a geom (no side site, side site outside, side site inside
    the geom); the tendons' upper limits catch them: 200 steps as mj_step (contact off in the oracle: the plant
    has no SceneGraph here)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "core_smooth" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    md.qvel[:] = np.tile([0.3, -0.2, 0.0, 0.5, -0.4, 0.2], 3)
    plant, context = _plant(mujoco, mm, path=path)
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    limit_rows = 0
    for _ in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        limit_rows = max(limit_rows, int(np.sum(md.efc_type == mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON)))
    assert limit_rows == 3
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_pulley_wrap_spring_actuator_sensors_step_as_mujoco():
    """Pulley branches wrapping a cylinder on a moving body and a fixed sphere: spring with dead band, damper,
    limit, frictionloss, a motor on the tendon and tendonpos / tendonvel sensors, 200 steps as mj_step."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(PULLEY)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    plant, context = _plant(mujoco, mm, text=PULLEY)
    wrapped = _check_lengths_moments(mujoco, mm, plant, context, np.random.default_rng(5), 30, 0.3)
    assert wrapped > 0
    md.qpos[:] = mm.qpos0
    md.qpos[0] = -0.4
    md.ctrl[:] = 0.7
    SetMujocoState(plant, context, md.qpos, md.qvel)
    plant._mjcf_actuation.ports[0].FixValue(context, [0.7])
    state = context.get_mutable_state()
    kinds, wrapped_geoms = set(), set()
    for _ in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        kinds |= set(md.efc_type.tolist())
        wrapped_geoms |= set(md.wrap_obj[md.wrap_obj >= 0].tolist())
    assert int(mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON) in kinds
    assert len(wrapped_geoms) == 2  # the rope wrapped the drum and the ball on the way
    qpos, qvel = GetMujocoState(plant, context)
    assert np.abs(md.qvel).max() > 0.1
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)
    # the tendon sensors as mj_step leaves them (at the last step's starting state)
    np.testing.assert_allclose(GetMujocoSensorOutputPort(plant).Eval(context), md.sensordata, rtol=0, atol=1e-6)
    mujoco.mj_forward(mm, md)  # actuator length / moment at the final state
    q = plant.GetPositions(context)
    act = plant._mjcf_actuation
    assert act.CalcLengths(plant, context, q)[0] == pytest.approx(md.actuator_length[0], abs=1e-6)
    T = CalcMujocoVelocityMap(plant, context)
    np.testing.assert_allclose(act.CalcMomentArms(plant, context)[0] @ T, 3.0 * _dense_ten_J(mm, md)[0], atol=1e-6)


def test_wrap_geom_kernel_cases():
    """The wrap kernel alone: a straight path clear of the sphere does not wrap; one through it wraps over the
    shorter side, on the side site's side when given; a side site inside the geom takes the path through it."""
    w = np.zeros((2, 3))
    c, R = np.zeros(3), np.eye(3)
    assert wrap_geom(np.array([-1.0, 0.5, 0]), np.array([1.0, 0.5, 0]), c, R, 0.1, False, c, False, w) == -1.0
    p0, p1 = np.array([-1.0, 0.01, 0]), np.array([1.0, 0.01, 0])
    arc = wrap_geom(p0, p1, c, R, 0.1, False, c, False, w)
    assert 0 < arc < 0.1 * np.pi and np.all(w[:, 1] > 0)  # over the top: the shorter way round
    over = np.linalg.norm(w[0] - p0) + arc + np.linalg.norm(p1 - w[1])
    arc = wrap_geom(p0, p1, c, R, 0.1, False, np.array([0.0, -0.5, 0.0]), True, w)
    assert 0 < arc and np.all(w[:, 1] < 0)  # forced under, toward the side site: a longer path
    assert np.linalg.norm(w[0] - p0) + arc + np.linalg.norm(p1 - w[1]) > over
    np.testing.assert_allclose(np.linalg.norm(w, axis=1), 0.1, rtol=1e-12)
    inside = np.array([0.0, 0.02, 0.0])
    assert wrap_geom(np.array([-1.0, 0.3, 0]), np.array([1.0, 0.3, 0]), c, R, 0.1, False, inside, True, w) == 0.0
    np.testing.assert_allclose(w[0], w[1])
    np.testing.assert_allclose(np.linalg.norm(w[0]), 0.1, rtol=1e-12)
