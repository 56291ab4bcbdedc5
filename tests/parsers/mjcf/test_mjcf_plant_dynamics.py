"""A model using every joint type, springs, dampers, armature, ref, fixed and spatial (pulley) tendons with
springs (dead band) and dampers, body gravcomp (incl. actuatorgravcomp with actuatorfrcrange), and joint /
tendon / site actuators with activation: continuous derivatives
against mj_forward's qacc / act_dot and discrete steps against mj_step (Euler)."""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import (CalcMujocoVelocityMap, GetMujocoActivations, GetMujocoState,
                                                  SetMujocoActivations, SetMujocoState)
from mallard.parsers import Parser

XML = """
<mujoco model="sink">
  <compiler angle="radian"/>
  <option gravity="0.3 -0.2 -9.81"/>
  <worldbody>
    <site name="anchor" pos="0 0 2"/>
    <body name="base" pos="0 0 1" euler="0.1 0.2 0.3">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.2 0.15" pos="0.02 0 0"/>
      <site name="s0" pos="0.1 0.1 0.1"/>
      <body name="arm" pos="0.2 0 0" euler="0 0.4 0" gravcomp="0.7">
        <joint name="h1" type="hinge" axis="0 1 0" pos="0 0 0.05" ref="0.2" stiffness="3" springref="0.5"
               damping="0.4" armature="0.02"/>
        <joint name="s1" type="slide" axis="1 0 0" actuatorgravcomp="true" actuatorfrclimited="true"
               actuatorfrcrange="-0.5 0.5" stiffness="20" springref="0.05" damping="1.5" armature="0.1"/>
        <geom type="capsule" size="0.04" fromto="0 0 0 0.4 0 0"/>
        <site name="s1" pos="0.3 0 0.05"/>
        <body name="hand" pos="0.4 0 0" gravcomp="1">
          <joint name="b" type="ball" damping="0.2" armature="0.01"/>
          <geom type="ellipsoid" size="0.05 0.08 0.1" pos="0.05 0 0"/>
          <site name="s2" pos="0.1 0.05 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="tf" stiffness="5" damping="0.7" springlength="-0.1 0.1">
      <joint joint="h1" coef="1"/><joint joint="s1" coef="-2"/>
    </fixed>
    <spatial name="ts" stiffness="40" damping="2" springlength="0.3">
      <site site="anchor"/><site site="s0"/><site site="s1"/><pulley divisor="2"/><site site="s1"/><site site="s2"/>
    </spatial>
  </tendon>
  <actuator>
    <position joint="h1" kp="10" kv="1"/>
    <motor tendon="ts" gear="2"/>
    <general site="s2" gear="0 1 0 0.2 0 0" dyntype="filter" dynprm="0.05"/>
    <velocity tendon="tf" kv="3"/>
  </actuator>
</mujoco>
"""


def _setup(time_step, seed=5):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(XML)
    md = mujoco.MjData(mm)
    plant = MultibodyPlant(time_step)
    Parser(plant).AddModelsFromString(XML, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(seed)
    qpos = mm.qpos0 + 0.3 * rng.normal(size=mm.nq)
    qpos[3:7] /= np.linalg.norm(qpos[3:7])
    qpos[9:13] /= np.linalg.norm(qpos[9:13])
    qvel, ctrl, act = rng.normal(size=mm.nv), rng.uniform(-1, 1, mm.nu), rng.uniform(-1, 1, mm.na)
    md.qpos[:], md.qvel[:], md.ctrl[:], md.act[:] = qpos, qvel, ctrl, act
    SetMujocoState(plant, context, qpos, qvel)
    SetMujocoActivations(plant, context, act)
    GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    return mujoco, mm, md, plant, context


@pytest.mark.parametrize("seed", [5, 6])
def test_continuous_derivatives_match_mj_forward(seed):
    mujoco, mm, md, plant, context = _setup(0.0, seed)
    mujoco.mj_forward(mm, md)
    xdot = plant.EvalTimeDerivatives(context).CopyToVector()
    T = CalcMujocoVelocityMap(plant, context)
    vdot = xdot[mm.nq:mm.nq + mm.nv]
    np.testing.assert_allclose(T.T @ vdot, md.qacc, rtol=0, atol=1e-10 * np.abs(md.qacc).max())
    np.testing.assert_allclose(xdot[mm.nq + mm.nv:], md.act_dot, rtol=1e-12, atol=1e-12)


def test_discrete_steps_match_mj_step():
    mujoco, mm, md, plant, context = _setup(float(0.002))
    mm.opt.timestep = 0.002
    state = context.get_mutable_state()
    for _ in range(25):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-11)
    np.testing.assert_allclose(GetMujocoActivations(plant, context), md.act, rtol=0, atol=1e-12)


BALL_FREE_GEARS = """
<mujoco model="ba">
  <worldbody>
    <body name="a" pos="0 0 1"><freejoint name="fj"/><geom type="box" size="0.1 0.2 0.3"/>
      <body name="b" pos="0.3 0 0">
        <joint name="bj" type="ball"/><geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general joint="bj" gear="1 2 3"/>
    <general jointinparent="bj" gear="0.5 -1 2"/>
    <position joint="bj" gear="0 0 1" kp="5" kv="1"/>
    <general joint="fj" gear="1 2 3 4 5 6"/>
    <general jointinparent="fj" gear="1 -2 0.5 4 -5 6"/>
  </actuator>
</mujoco>
"""


def test_ball_and_free_joint_gears_match_mujoco():
    """joint / jointinparent transmissions on ball (3D gear, length = rotation vector · axis) and free joints
    (6D wrench): actuator forces, qfrc_actuator and accelerations at a random state."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(BALL_FREE_GEARS)
    md = mujoco.MjData(mm)
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModelsFromString(BALL_FREE_GEARS, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(2)
    qpos = mm.qpos0 + 0.5 * rng.normal(size=mm.nq)
    qpos[3:7] /= np.linalg.norm(qpos[3:7])
    qpos[7:11] /= np.linalg.norm(qpos[7:11])
    qvel, ctrl = rng.normal(size=mm.nv), rng.uniform(-1, 1, mm.nu)
    md.qpos[:], md.qvel[:], md.ctrl[:] = qpos, qvel, ctrl
    mujoco.mj_forward(mm, md)
    SetMujocoState(plant, context, qpos, qvel)
    GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    actuation = plant._mjcf_actuation
    q, v = plant.GetPositions(context), plant.GetVelocities(context)
    T = CalcMujocoVelocityMap(plant, context)
    np.testing.assert_allclose(actuation.CalcLengths(plant, context, q), md.actuator_length, atol=1e-12)
    np.testing.assert_allclose(actuation.CalcActuatorForces(plant, context, q, v), md.actuator_force, atol=1e-12)
    np.testing.assert_allclose(T.T @ actuation.CalcActuatorGeneralizedForces(plant, context, q, v),
                               md.qfrc_actuator, atol=1e-12)
    vdot = plant.EvalTimeDerivatives(context).CopyToVector()[mm.nq:]
    np.testing.assert_allclose(T.T @ vdot, md.qacc, rtol=0, atol=1e-10 * np.abs(md.qacc).max())
