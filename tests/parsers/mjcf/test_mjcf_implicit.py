"""MuJoCo's implicitfast / implicit integrators in the discrete plant (multibody/mjcf/implicit.py):
200-step trajectories against mj_step on the shared MJCF files that select them and on programmatic models
(velocity servo, tendon damping, muscle, free body gyroscopics, Coriolis coupling)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import GetMujocoActivations, GetMujocoState, SetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfUnsupportedWarning
from mallard.systems.framework import DiagramBuilder

#: every shared MJCF file selecting implicitfast (refsite.xml: implicit)
SHARED = ["damper.xml", "dampratio.xml", "tendon_dampratio.xml", "actearly.xml", "refsite.xml",
          "joint_force_clamp.xml", "orientation.xml"]

SERVO_TENDON = """
<mujoco model="servo_tendon">
  <option integrator="{integrator}" timestep="0.005"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="j1" axis="0 1 0" damping="0.3"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.4 0 0"/>
      <body name="b" pos="0.4 0 0">
        <joint name="j2" axis="0 1 0"/>
        <geom type="capsule" size="0.04" fromto="0 0 0 0.3 0.1 0"/>
        <body name="c" pos="0.3 0.1 0">
          <joint name="j3" axis="1 0 0"/>
          <geom type="box" size="0.05 0.1 0.02"/>
        </body>
      </body>
    </body>
    <body name="d" pos="1 0 1">
      <joint name="s1" type="slide" axis="1 0 0"/>
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t1" damping="4"><joint joint="j1" coef="1"/><joint joint="j3" coef="-0.5"/></fixed>
    <fixed name="t2" damping="2"><joint joint="j2" coef="0.7"/><joint joint="s1" coef="1"/></fixed>
  </tendon>
  <actuator>
    <velocity joint="j2" kv="30"/>
    <position joint="j3" kp="20" kv="2"/>
    <general tendon="t1" gaintype="affine" gainprm="1 0 -3" dyntype="filter" dynprm="0.05"/>
    <general joint="j1" gaintype="affine" gainprm="2 0 -1" biastype="affine" biasprm="0 0 -5" dyntype="integrator"
             actearly="true"/>
    <muscle tendon="t2" lengthrange="-0.5 0.5"/>
    <velocity joint="s1" kv="10" forcelimited="true" forcerange="-1 1"/>
  </actuator>
</mujoco>
"""

FREE_BODY = """
<mujoco model="free">
  <option integrator="{integrator}" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="f" pos="0 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3" pos="0.05 0.02 0" contype="0" conaffinity="0"/>
    </body>
    <body name="g" pos="1 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.1 0.15 0.25" contype="0" conaffinity="0"/>
      <body pos="0.2 0 0">
        <joint type="ball" damping="0.1"/>
        <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _load(mujoco, mm, xml_or_path, is_path: bool):
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if is_path:
            Parser(plant).AddModels(str(xml_or_path))
        else:
            Parser(plant).AddModelsFromString(xml_or_path, "xml")
    plant.Finalize()
    return plant


def _run(mujoco, mm, plant, seed: int, steps: int = 200, ctrl_scale: float = 1.0, ctrl=None):
    """Random ctrl (within ctrlrange, unless given) and velocities; `steps` mj_step against the plant's discrete
    updates (contacts off in the oracle: the plant has no SceneGraph here)."""
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    mujoco.mj_forward(mm, md)
    md.qvel[:] = 0.5 * rng.normal(size=mm.nv)
    if ctrl is None:
        ctrl = ctrl_scale * rng.uniform(-1, 1, mm.nu)
        for i in range(mm.nu):
            if mm.actuator_ctrllimited[i]:
                lo, hi = mm.actuator_ctrlrange[i]
                ctrl[i] = rng.uniform(lo, hi)
    md.ctrl[:] = ctrl
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
    if mm.nu:
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    state = context.get_mutable_state()
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)
    if mm.na:
        np.testing.assert_allclose(GetMujocoActivations(plant, context), md.act, rtol=0, atol=1e-6)
    return md


@pytest.mark.parametrize("name", SHARED)
def test_shared_implicitfast_files_match_mj_step(models_dir, name):
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "actuation" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    plant = _load(mujoco, mm, path, True)
    assert plant._mjcf_integrator == {mujoco.mjtIntegrator.mjINT_IMPLICITFAST: "implicitfast",
                                      mujoco.mjtIntegrator.mjINT_IMPLICIT: "implicit"}[mm.opt.integrator]
    _run(mujoco, mm, plant, seed=1)


def test_velocity_gain_uses_the_clamped_ctrl(models_dir):
    """A ctrl outside ctrlrange: the velocity derivative multiplies the clamped ctrl, as the force does."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "actuation" / "damper.xml"
    mm = mujoco.MjModel.from_xml_path(str(path))
    plant = _load(mujoco, mm, path, True)
    _run(mujoco, mm, plant, seed=2, ctrl=np.array([3.0]))


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_velocity_servo_and_tendon_damping_match_mj_step(integrator):
    mujoco = require_mujoco()
    xml = SERVO_TENDON.format(integrator=integrator)
    mm = mujoco.MjModel.from_xml_string(xml)
    plant = _load(mujoco, mm, xml, False)
    md = _run(mujoco, mm, plant, seed=3)
    # the implicit step matters here: the same model under Euler ends elsewhere
    mm_e = mujoco.MjModel.from_xml_string(xml.replace(f'integrator="{integrator}"', 'integrator="Euler"'))
    mm_e.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md_e = mujoco.MjData(mm_e)
    rng = np.random.default_rng(3)
    md_e.qvel[:] = 0.5 * rng.normal(size=mm.nv)
    md_e.ctrl[:] = md.ctrl
    for _ in range(200):
        mujoco.mj_step(mm_e, md_e)
    assert np.abs(md_e.qvel - md.qvel).max() > 1e-4


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_free_bodies_match_mj_step(integrator):
    mujoco = require_mujoco()
    xml = FREE_BODY.format(integrator=integrator)
    mm = mujoco.MjModel.from_xml_string(xml)
    plant = _load(mujoco, mm, xml, False)
    _run(mujoco, mm, plant, seed=4)


FLUID = """
<mujoco model="fluid">
  <option integrator="{integrator}" density="1000" viscosity="0.5" wind="0.3 -0.2 0.1" timestep="0.01"/>
  <worldbody>
    <body name="swimmer" pos="0 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.05 0.1 0.2" fluidshape="ellipsoid" fluidcoef="0.5 0.25 1.5 1.0 1.0"
            contype="0" conaffinity="0"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="h1" axis="0 1 0"/>
      <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0" fluidshape="ellipsoid" contype="0" conaffinity="0"/>
      <body pos="0.3 0 0">
        <joint name="h2" axis="0 0 1"/>
        <geom type="box" size="0.1 0.05 0.02" pos="0.1 0 0" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <velocity joint="h1" kv="2"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_fluid_models_match_mj_step(integrator):
    mujoco = require_mujoco()
    xml = FLUID.format(integrator=integrator)
    mm = mujoco.MjModel.from_xml_string(xml)
    plant = _load(mujoco, mm, xml, False)
    _run(mujoco, mm, plant, seed=5)


CONTACT = """
<mujoco model="contact">
  <option integrator="{integrator}" timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body pos="0 0 0.12" euler="5 10 0">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.08" friction="0.6"/>
      <body pos="0.1 0 0">
        <joint name="hinge" axis="0 1 0" damping="0.05" range="-0.02 0.02"/>
        <geom type="capsule" size="0.02" fromto="0 0 0 0.2 0 0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <velocity joint="hinge" kv="0.5"/>
    <position joint="hinge" kp="2" kv="0.2"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_contact_and_limits_with_implicit_step_match_mj_step(integrator):
    """Contact and joint-limit constraints solved with M, then the implicit velocity update on the total force."""
    mujoco = require_mujoco()
    xml = CONTACT.format(integrator=integrator)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    md.qvel[:] = [0.1, -0.2, 0.0, 0.3, 0.5, -0.4, 2.0]
    ctrl = np.array([0.7, 0.4])
    md.ctrl[:] = ctrl
    SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
    GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    state = context.get_mutable_state()
    contacts, reach = 0, 0.0
    for _ in range(200):
        mujoco.mj_step(mm, md)
        contacts += md.ncon > 0
        reach = max(reach, abs(md.qpos[7]))
        plant._DiscreteStepUpdate(context, state)
    assert contacts > 100 and reach > 0.02  # in contact, and the hinge pushes into its limit
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_integrator_flag_and_warnings():
    xml = SERVO_TENDON.format(integrator="implicitfast")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plant = MultibodyPlant(0.005)
        Parser(plant).AddModelsFromString(FLUID.format(integrator="implicit"), "xml")
    assert plant._mjcf_integrator == "implicit"
    assert not [w for w in caught if issubclass(w.category, MjcfUnsupportedWarning) and "integrator" in str(w.message)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rk4 = MultibodyPlant(0.005)
        Parser(rk4).AddModelsFromString(xml.replace("implicitfast", "RK4"), "xml")
    assert rk4._mjcf_integrator == "RK4"  # MuJoCo's RK4 (mjcf/rk4.py), no longer Euler with a warning
    assert not [w for w in caught if issubclass(w.category, MjcfUnsupportedWarning) and "integrator" in str(w.message)]
    continuous = MultibodyPlant(0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(continuous).AddModelsFromString(xml, "xml")
    assert getattr(continuous, "_mjcf_integrator", None) is None


EARLY_EXIT = """
<mujoco model="early_exit">
  <option integrator="{integrator}" timestep="0.004" iterations="1" ls_iterations="3"/>
  <default><joint frictionloss="5" armature="0.01"/><position kp="30" kv="2"/></default>
  <worldbody>
    <body pos="0 0 1">
      <joint name="a" axis="0 1 0"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.4 0 0"/>
      <body pos="0.4 0 0">
        <joint name="b" axis="1 0 0"/>
        <geom type="capsule" size="0.04" fromto="0 0 0 0.3 0.1 0"/>
        <body pos="0.3 0.1 0">
          <joint name="c" axis="0 0 1"/>
          <geom type="box" size="0.05 0.1 0.02"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator><position joint="a"/><position joint="b"/><position joint="c"/></actuator>
</mujoco>
"""


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_solver_stopping_early_integrates_the_solver_force(integrator):
    """A Newton solve cut short (one iteration, dry friction) leaves M·(qacc − qacc_smooth) ≠ Jᵀf; MuJoCo's implicit
    step integrates qfrc_smooth + Jᵀf, not M·qacc (Unitree G1's MJX model: 5 iterations, dry friction)."""
    mujoco = require_mujoco()
    xml = EARLY_EXIT.format(integrator=integrator)
    mm = mujoco.MjModel.from_xml_string(xml)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)  # MuJoCo's run of _run below: its solves stop early
    rng = np.random.default_rng(3)
    md.qvel[:] = 0.5 * rng.normal(size=mm.nv)
    md.ctrl[:] = rng.uniform(-1, 1, mm.nu)
    M = np.zeros((mm.nv, mm.nv))
    early = 0
    for _ in range(100):
        mujoco.mj_forward(mm, md)
        mujoco.mj_fullM(mm, md, M)
        early += np.abs(M @ (md.qacc - md.qacc_smooth) - md.qfrc_constraint).max() > 1e-3
        mujoco.mj_step(mm, md)
    assert early > 50
    _run(mujoco, mm, _load(mujoco, mm, xml, False), seed=3, steps=100)
