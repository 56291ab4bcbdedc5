"""MuJoCo's RK4 integrator in the discrete plant (multibody/mjcf/rk4.py): 200-step trajectories against
mj_step on every shared MJCF file that selects it (loaded with a SceneGraph), a pendulum with joint limits, damping
and activation dynamics, free bodies in contact; the step leaves the context untouched; plugins keep Euler."""
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

#: every shared MJCF file selecting RK4 (relative to mujoco/testdata)
SHARED = [f"core_smooth/{n}.xml" for n in (
    "ten_J0", "ten_J1", "ten_J2", "ten_J3", "ten_armature_0", "ten_armature_0_compare", "ten_armature_0_equiv",
    "ten_armature_1", "ten_armature_1_compare", "ten_armature_1_equiv", "ten_armature_2", "ten_armature_3",
    "ten_armature_4", "ten_armature_offtree")] + ["actuation/refsite_free.xml"]

PENDULUM = """
<mujoco model="rk4_pendulum">
  <option integrator="RK4" timestep="0.01"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" axis="0 1 0" limited="true" range="-25 25" damping="0.2"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04"/>
      <body name="tip" pos="0.5 0 0">
        <joint name="ball" type="ball" damping="0.05"/>
        <geom type="box" size="0.05 0.1 0.15" pos="0 0.02 -0.1"/>
      </body>
      <body name="slider" pos="0.2 0 0">
        <joint name="slide" type="slide" axis="0 0 1" limited="true" range="-0.05 0.05"/>
        <geom type="sphere" size="0.05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general joint="hinge" dyntype="filter" dynprm="0.05" gainprm="2"/>
    <general joint="slide" dyntype="filterexact" dynprm="0.1" gainprm="5" actlimited="true" actrange="-0.3 0.3"/>
    <general joint="hinge" dyntype="integrator" gainprm="1" actearly="true" actlimited="true" actrange="-0.5 0.5"/>
    <motor joint="slide" gear="2"/>
  </actuator>
</mujoco>
"""

FREE_BODIES = """
<mujoco model="rk4_contact">
  <option integrator="RK4" timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.12" euler="5 10 0">
      <freejoint/>
      <geom type="box" size="0.1 0.07 0.05"/>
    </body>
    <body name="capsule" pos="0.5 0 0.08" euler="0 90 20">
      <freejoint/>
      <geom type="capsule" size="0.04 0.1"/>
    </body>
  </worldbody>
</mujoco>
"""


def _diagram_plant(mujoco, mm, load):
    """(plant, plant context) of a plant + SceneGraph diagram with `load(parser)` applied."""
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load(Parser(builder))
    plant.Finalize()
    diagram = builder.Build()
    assert plant._mjcf_integrator == "RK4"
    return plant, plant.GetMyContextFromRoot(diagram.CreateDefaultContext())


def _compare(mujoco, mm, plant, context, md, steps: int = 200, ctrl=None, atol: float = 1e-6):
    """`steps` mj_step against the plant's discrete updates from md's state; returns the number of steps with
    constraint rows active in MuJoCo."""
    SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
    if mm.nu:
        md.ctrl[:] = ctrl
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    state = context.get_mutable_state()
    active = 0
    for step in range(steps):
        mujoco.mj_step(mm, md)
        active += md.nefc > 0
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=atol)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=atol)
    if mm.na:
        np.testing.assert_allclose(GetMujocoActivations(plant, context), md.act, rtol=0, atol=atol)
    return active


def test_shared_list_is_complete(models_dir):
    found = sorted(str(p.relative_to(models_dir / "mujoco" / "testdata"))
                   for p in (models_dir / "mujoco").rglob("*.xml") if 'integrator="RK4"' in p.read_text())
    assert found == sorted(SHARED)


#: `<flag contact="disable"/>` models whose geoms overlap: a plant with a SceneGraph still makes contacts there
#: (the flag is not mapped yet), so these load without one (no contact in either)
NO_SCENE_GRAPH = {"core_smooth/ten_armature_offtree.xml"}


@pytest.mark.parametrize("name", SHARED)
def test_shared_rk4_models_match_mj_step(models_dir, name):
    """200 steps of the model's own RK4 in both, random velocities and ctrl (contact as the model sets it)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    assert mm.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
    md = mujoco.MjData(mm)
    if name in NO_SCENE_GRAPH:
        plant = MultibodyPlant(float(mm.opt.timestep))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Parser(plant).AddModels(str(path))
        plant.Finalize()
        context = plant.CreateDefaultContext()
    else:
        plant, context = _diagram_plant(mujoco, mm, lambda parser: parser.AddModels(str(path)))
    rng = np.random.default_rng(7)
    mujoco.mj_forward(mm, md)
    md.qvel[:] = rng.normal(size=mm.nv)
    ctrl = np.array([rng.uniform(*mm.actuator_ctrlrange[i]) if mm.actuator_ctrllimited[i] else rng.uniform(-1, 1)
                     for i in range(mm.nu)])
    _compare(mujoco, mm, plant, context, md, ctrl=ctrl)
    assert np.abs(md.qvel).max() > 1e-2


def test_shared_model_with_contact_matches_mj_step(models_dir):
    """ten_armature_offtree.xml with its contact flag switched on in both (its free spheres overlap the arms):
    contact rows and tendon armature in every RK4 stage."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "core_smooth" / "ten_armature_offtree.xml"
    text = path.read_text().replace('contact="disable" ', "")
    mm = mujoco.MjModel.from_xml_string(text)
    assert not mm.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    plant, context = _diagram_plant(mujoco, mm, lambda parser: parser.AddModelsFromString(text, "xml"))
    mujoco.mj_forward(mm, md)
    md.qvel[:] = 0.5 * np.random.default_rng(7).normal(size=mm.nv)
    assert _compare(mujoco, mm, plant, context, md) > 10


def test_pendulum_with_limits_damping_and_activations_matches_mj_step():
    """Joint limits solved in every stage, damping explicit in the stages, a ball joint's quaternion, applied
    forces, filter / filterexact / actearly integrator activations advanced with the averaged rates and clamped
    to actrange; MuJoCo's Euler differs."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(PENDULUM)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # no SceneGraph for this plant
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(PENDULUM, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    md.qvel[:] = [2.0, 1.5, -2.0, 3.0, 0.5]
    ctrl = np.array([0.8, 1.0, 2.0, -0.4])
    tau = np.zeros(plant.num_velocities())  # applied generalized forces, held over the step as qfrc_applied
    tau[plant.GetJointByName("hinge").velocity_start()] = 0.7
    tau[plant.GetJointByName("slide").velocity_start()] = -0.3
    plant.get_applied_generalized_force_input_port().FixValue(context, tau)
    md.qfrc_applied[mm.jnt_dofadr[0]], md.qfrc_applied[mm.jnt_dofadr[2]] = 0.7, -0.3
    euler = mujoco.MjData(mm)
    euler.qpos[:], euler.qvel[:], euler.ctrl[:], euler.qfrc_applied[:] = md.qpos, md.qvel, ctrl, md.qfrc_applied
    active = _compare(mujoco, mm, plant, context, md, ctrl=ctrl)
    assert active > 20  # the limits were hit
    assert np.isclose(abs(md.act[2]), 0.5) and np.isclose(abs(md.act[1]), 0.3)  # clamped at actrange
    mm.opt.integrator = int(mujoco.mjtIntegrator.mjINT_EULER)
    for _ in range(200):
        mujoco.mj_step(mm, euler)
    assert np.abs(euler.qvel - md.qvel).max() > 1e-4  # RK4 is what was compared


def test_free_bodies_in_contact_match_mj_step():
    """A box and a capsule tumbling on a plane (SceneGraph contact, constraint solve in every stage)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(FREE_BODIES)
    md = mujoco.MjData(mm)
    plant, context = _diagram_plant(mujoco, mm, lambda parser: parser.AddModelsFromString(FREE_BODIES, "xml"))
    mujoco.mj_forward(mm, md)
    md.qvel[:] = [0.3, -0.2, 0.0, 2.0, -1.0, 3.0, -0.4, 0.1, 0.0, 0.5, 4.0, -1.0]
    active = _compare(mujoco, mm, plant, context, md)
    assert active > 150


def test_step_leaves_the_context_and_reports_the_mean_acceleration():
    """Evaluating the step twice gives the same x⁺ and leaves the context's state alone; the sampled v̇ is
    (v⁺ − v)/h."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(FREE_BODIES)
    plant, context = _diagram_plant(mujoco, mm, lambda parser: parser.AddModelsFromString(FREE_BODIES, "xml"))
    v = np.array([0.3, -0.2, 0.0, 2.0, -1.0, 3.0, -0.4, 0.1, 0.0, 0.5, 4.0, -1.0])
    plant.SetVelocities(context, v)
    x0 = plant.GetPositionsAndVelocities(context).copy()
    first = plant._CalcDiscreteStep(context)[0]
    np.testing.assert_array_equal(plant.GetPositionsAndVelocities(context), x0)
    np.testing.assert_array_equal(plant._CalcDiscreteStep(context)[0], first)
    plant._DiscreteStepUpdate(context, context.get_mutable_state())
    np.testing.assert_array_equal(plant.GetPositionsAndVelocities(context), first)
    vdot = plant.get_generalized_acceleration_output_port().Eval(context)
    np.testing.assert_allclose(vdot, (first[plant.num_positions():] - v) / plant.time_step(), rtol=0, atol=1e-9)


def test_plugins_keep_euler_with_a_warning():
    """Plugin state and activations advance once per step in the plant, so RK4 models with engine plugins are
    stepped with MuJoCo's Euler and say so."""
    xml = """<mujoco>
  <option integrator="RK4" timestep="0.01"/>
  <extension><plugin plugin="mallard.actuator.dcmotor"><instance name="motor">
    <config key="resistance" value="2"/><config key="inductance" value="0.01"/>
  </instance></plugin></extension>
  <worldbody><body name="arm"><joint name="hinge"/><geom type="capsule" size="0.05 0.2"/></body></worldbody>
  <actuator><plugin joint="hinge" instance="motor"/></actuator>
</mujoco>"""
    plant = MultibodyPlant(0.01)
    with pytest.warns(MjcfUnsupportedWarning, match="RK4.*engine plugins"):
        Parser(plant).AddModelsFromString(xml, "xml")
    assert getattr(plant, "_mjcf_integrator", None) is None
    continuous = MultibodyPlant(0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(continuous).AddModelsFromString(PENDULUM, "xml")
    assert getattr(continuous, "_mjcf_integrator", None) is None
