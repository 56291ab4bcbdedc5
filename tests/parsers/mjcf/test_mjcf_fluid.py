"""MJCF passive forces the plant adds as force elements: fluid forces (inertia-box and ellipsoid models) and
ball / free joint springs, against MuJoCo's qfrc_fluid / qfrc_spring at random states and mj_step trajectories."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree.fluid_forces import FluidForces
from mallard.parsers.mjcf.fluid import FluidEllipsoidCoefficients
from mallard.multibody.tree.force_element import MjcfBallFreeSprings
from mallard.multibody.mjcf.state import CalcMujocoVelocityMap, GetMujocoState, SetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfUnsupportedWarning

FLUID_XML = """
<mujoco model="fluid">
  <!-- the inertia-box body's geoms are aligned: its principal axes are exact (the MJCF compiler's
       eigen-decomposition of a general inertia differs from MuJoCo's by ~1e-8) -->
  <option density="1.2" viscosity="0.3" wind="0.5 -1 0.2" integrator="Euler"/>
  <worldbody>
    <body name="box" pos="0 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05" pos="0.05 0 0"/>
      <geom type="sphere" size="0.05" pos="-0.1 0 0"/>
      <body name="wing" pos="0.3 0 0">
        <joint name="h" type="hinge" axis="0 1 0" damping="0.01"/>
        <geom name="e1" type="ellipsoid" size="0.3 0.05 0.02" pos="0.3 0 0" fluidshape="ellipsoid"
              fluidcoef="0.4 0.2 1.2 0.8 0.9"/>
        <geom name="e2" type="capsule" size="0.03 0.1" pos="0 0 0.1" euler="30 0 0" fluidshape="ellipsoid"/>
        <geom name="nofluid" type="sphere" size="0.05" pos="0.5 0 0"/>
        <body name="ball" pos="0.6 0 0">
          <joint name="b" type="ball" stiffness="0.7"/>
          <geom type="cylinder" size="0.04 0.1" pos="0.1 0 0" fluidshape="ellipsoid"/>
        </body>
      </body>
    </body>
    <body name="spring" pos="1 0 1" quat="0.9 0.1 0.3 0.2">
      <joint type="free" stiffness="3"/>
      <geom type="capsule" size="0.05 0.2"/>
    </body>
  </worldbody>
</mujoco>
"""


def _plant(xml, time_step):
    plant = MultibodyPlant(time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MjcfUnsupportedWarning)
        Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    return plant


def _random_state(mm, rng):
    qpos = mm.qpos0 + 0.4 * rng.normal(size=mm.nq)
    for j in range(mm.njnt):
        a, t = mm.jnt_qposadr[j], mm.jnt_type[j]
        if t == 0:
            qpos[a + 3:a + 7] /= np.linalg.norm(qpos[a + 3:a + 7])
        elif t == 1:
            qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
    return qpos, 2.0 * rng.normal(size=mm.nv)


def _element_forces(plant, context, kind) -> np.ndarray:
    """Generalized forces (plant coordinates) of the plant's force elements of type `kind`."""
    kin = plant._eval_kinematics(context)
    F = np.zeros((plant.num_bodies(), 6))
    tau = np.zeros(plant.num_velocities())
    for i in range(plant.num_force_elements()):
        fe = plant.get_force_element(i)
        if isinstance(fe, kind):
            fe._CalcAndAddForceContribution(context, kin, kin.q, kin.v, F, tau)
    return tau - plant._rnea(context, np.zeros(plant.num_velocities()), F, None, with_velocity=False)


def test_ellipsoid_virtual_mass_matches_mujoco_compiler():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(FLUID_XML)
    types = {int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): "ellipsoid", int(mujoco.mjtGeom.mjGEOM_CAPSULE): "capsule",
             int(mujoco.mjtGeom.mjGEOM_CYLINDER): "cylinder"}
    checked = 0
    for g in range(mm.ngeom):
        if mm.geom_fluid[g, 0] > 0:
            vm, vi = FluidEllipsoidCoefficients(types[int(mm.geom_type[g])], mm.geom_size[g])
            np.testing.assert_allclose(vm, mm.geom_fluid[g, 6:9], rtol=1e-12)
            np.testing.assert_allclose(vi, mm.geom_fluid[g, 9:12], rtol=1e-12)
            checked += 1
    assert checked == 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fluid_and_spring_forces_match_mujoco(seed):
    """qfrc_fluid and the ball / free springs of qfrc_spring at random states (1e-9)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(FLUID_XML)
    md = mujoco.MjData(mm)
    plant = _plant(FLUID_XML, 0.002)
    context = plant.CreateDefaultContext()
    qpos, qvel = _random_state(mm, np.random.default_rng(seed))
    md.qpos[:], md.qvel[:] = qpos, qvel
    mujoco.mj_forward(mm, md)
    SetMujocoState(plant, context, qpos, qvel)
    T = CalcMujocoVelocityMap(plant, context)
    fluid = T.T @ _element_forces(plant, context, FluidForces)
    assert np.abs(md.qfrc_fluid).max() > 0.01
    np.testing.assert_allclose(fluid, md.qfrc_fluid, rtol=1e-9, atol=1e-9)
    spring = T.T @ _element_forces(plant, context, MjcfBallFreeSprings)
    expected = md.qfrc_spring.copy()
    assert np.abs(expected).max() > 0.1
    np.testing.assert_allclose(spring, expected, rtol=1e-9, atol=1e-12)


def test_fluid_trajectory_matches_mj_step():
    """200 discrete steps of the fluid / spring model as mj_step (no contact: no SceneGraph)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(FLUID_XML)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    qpos, qvel = _random_state(mm, np.random.default_rng(5))
    md.qpos[:], md.qvel[:] = qpos, qvel
    plant = _plant(FLUID_XML, float(mm.opt.timestep))
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, qpos, qvel)
    state = context.get_mutable_state()
    for step in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        q, v = GetMujocoState(plant, context)
        np.testing.assert_allclose(q, md.qpos, rtol=0, atol=1e-6, err_msg=f"step {step}")
        np.testing.assert_allclose(v, md.qvel, rtol=0, atol=1e-6, err_msg=f"step {step}")


def _load_shared(models_dir, name):
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "actuation" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    assert mm.opt.density > 0 or mm.opt.viscosity > 0
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # no SceneGraph here
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    plant.Finalize()
    assert any(isinstance(plant.get_force_element(i), FluidForces) for i in range(plant.num_force_elements()))
    return mujoco, mm, plant


@pytest.mark.parametrize("name", ["actearly.xml", "activation.xml", "refsite.xml", "sites.xml"])
def test_shared_fluid_models_qfrc_fluid(models_dir, name):
    """qfrc_fluid of the shared models with fluid options at random states (1e-9)."""
    mujoco, mm, plant = _load_shared(models_dir, name)
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(11)
    for _ in range(3):
        qpos, qvel = _random_state(mm, rng)
        md.qpos[:], md.qvel[:] = qpos, qvel
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, qpos, qvel)
        got = CalcMujocoVelocityMap(plant, context).T @ _element_forces(plant, context, FluidForces)
        assert np.abs(md.qfrc_fluid).max() > 0.01
        np.testing.assert_allclose(got, md.qfrc_fluid, rtol=1e-9, atol=1e-9)


# activation.xml is left out of the trajectory: its muscle / tendon-limit dynamics drift from MuJoCo's by 3e-5
# over 200 steps with or without fluid forces
@pytest.mark.parametrize("name", ["actearly.xml", "refsite.xml", "sites.xml"])
def test_shared_fluid_models_step_as_mujoco(models_dir, name):
    """The shared test models with fluid options: 200 discrete steps as mj_step with MuJoCo's Euler (1e-6)."""
    mujoco, mm, plant = _load_shared(models_dir, name)
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(7)
    qpos, qvel = _random_state(mm, rng)
    md.qpos[:], md.qvel[:] = qpos, qvel
    SetMujocoState(plant, context, qpos, qvel)
    if mm.nu:
        from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
        ctrl = rng.uniform(-1.0, 1.0, size=mm.nu)
        md.ctrl[:] = ctrl
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    state = context.get_mutable_state()
    for step in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        q, v = GetMujocoState(plant, context)
        np.testing.assert_allclose(q, md.qpos, rtol=0, atol=1e-6, err_msg=f"step {step}")
        np.testing.assert_allclose(v, md.qvel, rtol=0, atol=1e-6, err_msg=f"step {step}")
    assert np.abs(md.qfrc_fluid).max() > 0


@pytest.mark.parametrize("name", ["ten_J2.xml", "ten_armature_3.xml", "ten_armature_4.xml",
                                  "ten_armature_offtree.xml"])
def test_shared_ball_joint_springs(models_dir, name):
    """Ball-joint stiffness of the shared models: qfrc_spring at random states (1e-9), no 'not simulated'
    warning."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "core_smooth" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    mm.tendon_stiffness[:] = 0.0  # qfrc_spring without the tendons' springs (another force element here)
    md = mujoco.MjData(mm)
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Parser(plant).AddModels(str(path))
    assert not [w for w in caught if "stiffness" in str(w.message)]
    plant.Finalize()
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(2)
    for _ in range(3):
        qpos, qvel = _random_state(mm, rng)
        md.qpos[:], md.qvel[:] = qpos, qvel
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, qpos, qvel)
        got = CalcMujocoVelocityMap(plant, context).T @ _element_forces(plant, context, MjcfBallFreeSprings)
        ball = [d for j in range(mm.njnt) if mm.jnt_type[j] == 1
                for d in range(mm.jnt_dofadr[j], mm.jnt_dofadr[j] + 3)]
        assert np.abs(md.qfrc_spring[ball]).max() > 0.1
        np.testing.assert_allclose(got[ball], md.qfrc_spring[ball], rtol=1e-9, atol=1e-12)


def test_continuous_plant_accelerations_include_fluid_and_springs():
    """A continuous plant's v̇ with fluid forces and ball / free springs equals MuJoCo's qacc (1e-7 relative: the
    MJCF compiler's principal axes of the wing's inertia differ from MuJoCo's by ~5e-10)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(FLUID_XML)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    plant = _plant(FLUID_XML, 0.0)
    context = plant.CreateDefaultContext()
    qpos, qvel = _random_state(mm, np.random.default_rng(9))
    md.qpos[:], md.qvel[:] = qpos, qvel
    mujoco.mj_forward(mm, md)
    SetMujocoState(plant, context, qpos, qvel)
    vdot = plant.EvalTimeDerivatives(context).CopyToVector()[plant.num_positions():]
    T = CalcMujocoVelocityMap(plant, context)  # v = T·qvel with T orthogonal: v̇ = T·qacc
    np.testing.assert_allclose(T.T @ vdot, md.qacc, rtol=1e-7, atol=1e-8)
