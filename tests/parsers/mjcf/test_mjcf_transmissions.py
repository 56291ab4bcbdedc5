"""MJCF transmissions and joint equalities against the MuJoCo oracle: site transmissions with a refsite,
slider-cranks, MuJoCo 4's orientation (so3) servo on ball joints and sites, the wrapped setpoints of rotational
position servos, and joint equalities on one joint or with a quartic polycoef (actuator_length / actuator_moment /
actuator_force / qfrc_actuator at random states, and mj_step trajectories with the Euler integrator)."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import (CalcMujocoVelocityMap, GetMujocoActivations, GetMujocoState,
                                                  SetMujocoActivations, SetMujocoState)
from mallard.parsers import Parser
from mallard.parsers.errors import ParseError
from mallard.systems.analysis import Simulator

SLIDER_CRANK = """
<mujoco model="slidercrank">
  <worldbody>
    <body name="frame" pos="0 0 1" euler="10 20 30">
      <joint name="base" type="hinge" axis="0 0 1"/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <body name="crank" pos="0.1 0 0">
        <joint name="crank" type="hinge" axis="0 1 0" damping="0.05"/>
        <geom type="capsule" size="0.02" fromto="0 0 0 0.2 0 0"/>
        <site name="crankpin" pos="0.2 0.01 0"/>
      </body>
      <body name="slider" pos="0.6 0 0.05" euler="0 80 5">
        <joint name="slide" type="slide" axis="0 0 1" damping="0.2"/>
        <geom type="box" size="0.05 0.04 0.03"/>
        <site name="sliderpin" pos="0.01 0 0.02" euler="3 -4 2"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general cranksite="crankpin" slidersite="sliderpin" cranklength="0.5" gear="2"/>
    <position cranksite="crankpin" slidersite="sliderpin" cranklength="0.25" kp="10" dampratio="0.8"/>
  </actuator>
</mujoco>
"""

SO3 = """
<mujoco model="so3">
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <site name="ref" pos="0.1 0.2 0.3" euler="20 -10 40"/>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 0 1"/>
      <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0"/>
      <site name="refa" pos="0.1 0 0" euler="0 30 0"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h2" type="hinge" axis="0 1 0"/>
        <joint name="h3" type="hinge" axis="1 0 0"/>
        <geom type="box" size="0.1 0.05 0.02" pos="0.1 0 0"/>
        <body name="c" pos="0.2 0 0">
          <joint name="ball" type="ball"/>
          <geom type="ellipsoid" size="0.05 0.07 0.09" pos="0.02 0.01 0"/>
          <site name="ee" pos="0.05 0 0.02" euler="15 25 -35"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <orientation site="ee" refsite="ref" kp="3" kv="0.5"/>
    <orientation site="ee" refsite="refa" kp="2" dampratio="0.7" forcelimited="true" forcerange="0 0.8"/>
    <orientation joint="ball" input="quat" kp="2" dampratio="0.5"/>
    <position site="ee" refsite="refa" gear="0 0 0 0.3 0.4 0" kp="4" kv="0.2"/>
    <position joint="ball" gear="0.2 -0.5 0.3" kp="3" dampratio="1"/>
    <general site="ee" refsite="ref" gear="0.5 -1 0.2 0.3 0 0.4" gainprm="2 0.5 0.1" gaintype="affine"/>
    <position jointinparent="ball" gear="0.3 0.1 -0.2" kp="2" kv="0.1"/>
    <motor site="ee" gear="1 0 0.2 0 0.5 0"/>
  </actuator>
</mujoco>
"""

SO3_INTEGRATOR = """
<mujoco model="so3int">
  <worldbody>
    <site name="ref" pos="0 0 0.5" euler="10 20 30"/>
    <body name="a" pos="0 0 1">
      <joint name="ball" type="ball" damping="0.05"/>
      <geom type="box" size="0.1 0.2 0.3" pos="0.05 0 0"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h" type="hinge" axis="0 1 0"/>
        <geom type="capsule" size="0.03" fromto="0 0 0 0.2 0 0"/>
        <site name="tip" pos="0.2 0 0" euler="5 -15 25"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general joint="ball" gaintype="so3" biastype="so3" dyntype="integrator" gainprm="2" biasprm="0 -2 -0.3"/>
    <general site="tip" refsite="ref" gaintype="so3" biastype="so3" dyntype="integrator" gainprm="1"
             biasprm="0.1 -1 -0.2"
             actearly="true" actlimited="true" actrange="-2 2"/>
  </actuator>
</mujoco>
"""

EQUALITIES = """
<mujoco model="polyjoint">
  <option gravity="0.5 -1 -9.81"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" ref="0.2" damping="0.1"/>
      <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0"/>
        <body name="c" pos="0.3 0 0">
          <joint name="s" type="slide" axis="1 0 0" ref="0.1"/>
          <geom type="box" size="0.05 0.05 0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="h2" joint2="h1" polycoef="0.1 0.5 0.3 -0.2 0.1" solref="0.01 1"/>
    <joint joint1="s" polycoef="0.05 3 0 0 0" solimp="0.8 0.9 0.002 0.5 2"/>
  </equality>
</mujoco>
"""


def _models_path(models_dir, name):
    return models_dir / "mujoco" / "testdata" / name


def _load(mujoco, source, time_step=0.0):
    """(mjModel, plant) of a model file path or an XML string."""
    is_file = not isinstance(source, str)
    mm = mujoco.MjModel.from_xml_path(str(source)) if is_file else mujoco.MjModel.from_xml_string(source)
    plant = MultibodyPlant(time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parser = Parser(plant)
        parser.AddModels(str(source)) if is_file else parser.AddModelsFromString(source, "xml")
    plant.Finalize()
    return mm, plant


def _random_qpos(mm, rng, scale):
    qpos = mm.qpos0 + scale * rng.normal(size=mm.nq)
    for j in range(mm.njnt):
        a = mm.jnt_qposadr[j]
        if mm.jnt_type[j] == 0:
            qpos[a + 3:a + 7] /= np.linalg.norm(qpos[a + 3:a + 7])
        elif mm.jnt_type[j] == 1:
            qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
    return qpos


def _check_random_states(mujoco, mm, plant, seed=1, scale=1.0, trials=4):
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    actuation = plant._mjcf_actuation
    assert actuation.enabled.all()
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        qpos, qvel = _random_qpos(mm, rng, scale), rng.normal(size=mm.nv)
        ctrl = rng.uniform(-3.0, 3.0, size=mm.nu)
        md.qpos[:], md.qvel[:], md.ctrl[:] = qpos, qvel, ctrl
        if mm.na:
            md.act[:] = rng.uniform(-4.0, 4.0, size=mm.na)
            SetMujocoActivations(plant, context, md.act.copy())
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, qpos, qvel)
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        q, v = plant.GetPositions(context), plant.GetVelocities(context)
        T = CalcMujocoVelocityMap(plant, context)
        moment = np.zeros((mm.nout, mm.nv))
        mujoco.mju_sparse2dense(moment, md.actuator_moment, md.moment_rownnz, md.moment_rowadr, md.moment_colind)
        np.testing.assert_allclose(actuation.CalcLengths(plant, context, q), md.actuator_length, rtol=0, atol=1e-9)
        np.testing.assert_allclose(actuation.CalcMomentArms(plant, context) @ T, moment, rtol=0, atol=1e-9)
        np.testing.assert_allclose(actuation.CalcActuatorForces(plant, context, q, v), md.actuator_force, rtol=0,
                                   atol=1e-9 * max(1.0, np.abs(md.actuator_force).max()))
        np.testing.assert_allclose(T.T @ actuation.CalcActuatorGeneralizedForces(plant, context, q, v),
                                   md.qfrc_actuator, rtol=0, atol=1e-9 * max(1.0, np.abs(md.qfrc_actuator).max()))


@pytest.mark.parametrize("name", ["actuation/refsite.xml", "actuation/refsite_free.xml",
                                  "actuation/orientation.xml"])
def test_shared_model_transmissions_match_mujoco(models_dir, name):
    """refsite (translation / rotation in the refsite frame, wrapped rotational setpoints) and orientation
    (so3 servo, expmap and quaternion inputs, per-axis ball servos) at random states."""
    mujoco = require_mujoco()
    mm, plant = _load(mujoco, _models_path(models_dir, name))
    _check_random_states(mujoco, mm, plant)


@pytest.mark.parametrize("xml", [SLIDER_CRANK, SO3, SO3_INTEGRATOR], ids=["slidercrank", "so3_site_and_ball",
                                                                           "so3_integrator"])
def test_built_model_transmissions_match_mujoco(xml):
    """slider-crank (both determinant branches), so3 servos on site+refsite (with a common ancestor joint and a
    norm-clamped torque) and on a ball joint, rotational refsite and ball position servos (wrapped setpoints)."""
    mujoco = require_mujoco()
    mm, plant = _load(mujoco, xml)
    _check_random_states(mujoco, mm, plant, seed=4, scale=1.5, trials=6)


def test_slider_crank_covers_both_branches():
    """The random states above reach both sides of MuJoCo's slider-crank determinant test."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(SLIDER_CRANK)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(4)
    dets = []
    for _ in range(6):
        md.qpos[:] = _random_qpos(mm, rng, 1.5)
        mujoco.mj_kinematics(mm, md)
        axis = md.site_xmat[1].reshape(3, 3)[:, 2]
        vec = md.site_xpos[0] - md.site_xpos[1]
        dets.append(float((axis @ vec) ** 2 + 0.25 ** 2 - vec @ vec))
    assert min(dets) <= 0 < max(dets)


def _trajectory(mujoco, mm, plant, steps=200, seed=3, ctrl_scale=1.0):
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # no SceneGraph here
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    state = context.get_mutable_state()
    if mm.nu:
        ctrl = ctrl_scale * np.random.default_rng(seed).uniform(-1.0, 1.0, size=mm.nu)
        md.ctrl[:] = ctrl
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    assert np.abs(md.qvel).max() > 1e-3  # it did move
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)
    if mm.na:
        np.testing.assert_allclose(GetMujocoActivations(plant, context), md.act, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", ["actuation/refsite.xml", "actuation/refsite_free.xml", "actuation/orientation.xml",
                                  "core_smooth/rne_post/connect/multiple_constraints.xml"])
def test_shared_model_trajectory_matches_mj_step(models_dir, name):
    """200 discrete steps as mj_step (Euler): refsite and orientation actuators, and a joint equality that fixes
    one joint next to a weld and a connect (multiple_constraints.xml, started off its constraint)."""
    mujoco = require_mujoco()
    path = _models_path(models_dir, name)
    xml = re.sub(r'viscosity="[^"]*"', "", path.read_text())  # fluid forces are not part of this test
    mm, plant = _load(mujoco, xml, float(mujoco.MjModel.from_xml_string(xml).opt.timestep))
    if name.endswith("multiple_constraints.xml"):
        assert plant.num_constraints() == mm.neq == 3
    _trajectory(mujoco, mm, plant)


@pytest.mark.parametrize("xml", [SLIDER_CRANK, SO3, EQUALITIES], ids=["slidercrank", "so3", "polyjoint"])
def test_built_model_trajectory_matches_mj_step(xml):
    """200 discrete steps as mj_step: slider-crank and so3 actuators; a quartic joint coupling and a single-joint
    equality with their own solref / solimp and joint refs (qpos0 ≠ 0)."""
    mujoco = require_mujoco()
    mm, plant = _load(mujoco, xml, 0.002)
    mm.opt.timestep = 0.002
    _trajectory(mujoco, mm, plant)


def test_joint_equalities_become_constraints():
    """Both joint equalities of EQUALITIES are plant constraints (no 'ignored' warning), with their parameters."""
    from mallard.multibody.contact.mujoco_parameters import GetConstraintMujocoParameters
    plant = MultibodyPlant(0.002)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Parser(plant).AddModelsFromString(EQUALITIES, "xml")
    assert not [w for w in caught if "equality" in str(w.message)]
    specs = plant.constraint_specs()
    assert [s["kind"] for s in specs] == ["MjcfJoint", "MjcfJoint"]
    assert specs[1]["joint1"] is None and specs[1]["q0_ref"] == pytest.approx(0.1)
    np.testing.assert_allclose(specs[0]["polycoef"], [0.1, 0.5, 0.3, -0.2, 0.1])
    assert GetConstraintMujocoParameters(plant, 0)["solref"] == (0.01, 1.0)


@pytest.mark.parametrize("actuator, message", [
    ('<orientation joint="h1"/>', "needs a ball joint"),
    ('<orientation site="ee"/>', "a site with a refsite"),
    ('<orientation joint="ball" forcelimited="true" forcerange="-1 1"/>', "lower bound must be 0"),
    ('<general joint="h1" input="quat"/>', "input is only available"),
    ('<general joint="ball" gaintype="so3" biastype="affine"/>', "must both be 'so3'"),
])
def test_bad_orientation_actuators_raise(actuator, message):
    xml = SO3.split("<actuator>")[0] + f"<actuator>{actuator}</actuator></mujoco>"
    with pytest.raises(ParseError, match=message):
        Parser(MultibodyPlant(0.0)).AddModelsFromString(xml, "xml")


@pytest.mark.parametrize("defaults", [
    '<position kp="5" kv="2"/>', '<general gainprm="7" biasprm="0 -7 -1"/>', '<orientation kp="4" input="quat"/>',
    '<orientation kv="3"/>', '<orientation dampratio="2"/><default class="x"><orientation kp="3"/></default>'])
def test_orientation_defaults_compile_as_mujoco(defaults):
    """kp / kv / dampratio / input of <orientation> through default classes: gainprm, biasprm (dampratio turned
    into damping with the ball joint's inertia) and the control count as MuJoCo 4 compiles them."""
    mujoco = require_mujoco()
    cls = ' class="x"' if 'class="x"' in defaults else ""
    xml = (f'<mujoco><default>{defaults}</default><worldbody><body><joint name="b" type="ball"/>'
           f'<geom type="box" size=".1 .2 .3"/></body></worldbody><actuator><orientation joint="b"{cls}/></actuator>'
           '</mujoco>')
    mm, plant = _load(mujoco, xml)
    from mallard.multibody.mjcf.state import GetMjcfPlantMap
    a = GetMjcfPlantMap(plant).model.actuators[0]
    np.testing.assert_allclose(a.gainprm, mm.actuator_gainprm[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.biasprm, mm.actuator_biasprm[0], rtol=0, atol=1e-12)
    assert (a.ctrlnum, a.outnum) == (mm.actuator_ctrlnum[0], mm.actuator_outnum[0])


def test_so3_integrator_trajectory_matches_mj_step():
    """The integrator variant of the so3 servo (3 activations, actearly, actrange): controls large enough that the
    ball's expmap setpoint passes π and is re-anchored as mj_advance does."""
    mujoco = require_mujoco()
    mm, plant = _load(mujoco, SO3_INTEGRATOR, 0.002)
    mm.opt.timestep = 0.002
    _trajectory(mujoco, mm, plant, steps=250, ctrl_scale=12.0)
    assert plant._mjcf_actuation.na == 6


def test_wrapped_integrator_setpoints_advance_as_mj_step():
    """Integrator position servos on a ball joint and a rotational refsite keep their setpoint in act; mj_advance
    re-anchors it to the representative nearest the pre-step length (CalcNextActivations with `lengths`)."""
    mujoco = require_mujoco()
    xml = SO3_INTEGRATOR.split("<actuator>")[0] + """<actuator>
    <intvelocity joint="ball" gear="0.2 -0.5 0.3" kp="3" actrange="-50 50"/>
    <intvelocity site="tip" refsite="ref" gear="0 0 0 0.3 0.4 0" kp="2" kv="0.1" actrange="-50 50"/>
    </actuator></mujoco>"""
    mm, plant = _load(mujoco, xml, 0.002)
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    actuation = plant._mjcf_actuation
    rng = np.random.default_rng(8)
    moved = 0.0
    for _ in range(6):
        qpos, qvel, ctrl = _random_qpos(mm, rng, 1.0), rng.normal(size=mm.nv), rng.uniform(-3, 3, mm.nu)
        act = rng.uniform(-20.0, 20.0, mm.na)  # setpoints many periods away from the lengths
        md.qpos[:], md.qvel[:], md.ctrl[:], md.act[:] = qpos, qvel, ctrl, act
        SetMujocoState(plant, context, qpos, qvel)
        SetMujocoActivations(plant, context, act)
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        q = plant.GetPositions(context)
        lengths = actuation.CalcLengths(plant, context, q)
        forces = actuation.CalcActuatorForces(plant, context, q, plant.GetVelocities(context))
        mujoco.mj_step(mm, md)
        np.testing.assert_allclose(forces, md.actuator_force, rtol=0, atol=1e-9 * np.abs(md.actuator_force).max())
        got = actuation.CalcNextActivations(actuation.EvalCtrl(plant, context), act, lengths)
        np.testing.assert_allclose(got, md.act, rtol=0, atol=1e-12)
        stepped = context.Clone()  # the plant's own discrete step re-anchors the same way
        stepped.SetTime(0.0)
        Simulator(plant, stepped).AdvanceTo(0.002)
        np.testing.assert_allclose(GetMujocoActivations(plant, stepped), md.act, rtol=0, atol=1e-12)
        moved = max(moved, float(np.abs(got - act).max()))
    assert moved > 1.0  # the re-anchoring moved setpoints by whole periods
