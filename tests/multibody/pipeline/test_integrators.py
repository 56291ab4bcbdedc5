"""MuJoCo's integrators and fluid forces in the compiled step (pipeline/integrate.py, derivative.py, fluid.py):
implicit, implicitfast and RK4 trajectories against the plant's Python path and mj_step, fluid forces with every
integrator, standalone free bodies (implicitfast's local gyroscopic solve), contacts and limits within RK4 stages."""
from __future__ import annotations

import numpy as np
import pytest

from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import GetMujocoState, SetMujocoState
from mallard.multibody.plant._pipeline_step import UncompiledFeatures

# servos with velocity gains (affine bias kv, affine gain), joint damping, a saturating velocity servo, a hinge
# limit, a free body with a massive child (not standalone) and a standalone free box in contact with the floor
ARM = """<mujoco model="servo_arm"><option integrator="{integrator}" timestep="0.004"/>
<worldbody><geom name="floor" type="plane" size="3 3 .1"/>
<body name="a" pos="0 0 1"><joint name="j1" axis="0 1 0" damping="0.3" range="-1.2 1.2"/>
  <geom type="capsule" size="0.05" fromto="0 0 0 0.4 0 0" contype="0" conaffinity="0"/>
  <body name="b" pos="0.4 0 0"><joint name="j2" axis="0 1 0"/>
    <geom type="capsule" size="0.04" fromto="0 0 0 0.3 0.1 0" contype="0" conaffinity="0"/>
    <body name="c" pos="0.3 0.1 0"><joint name="j3" axis="1 0 0" damping="0.05"/>
      <geom type="box" size="0.05 0.1 0.02" contype="0" conaffinity="0"/></body></body></body>
<body name="d" pos="1 0 1"><joint name="s1" type="slide" axis="1 0 0"/><geom type="sphere" size="0.1"/></body>
<body name="f" pos="0 1 1.5" euler="10 20 30"><freejoint/>
  <geom type="ellipsoid" size="0.1 0.15 0.25" contype="0" conaffinity="0"/>
  <body pos="0.2 0 0"><joint type="ball" damping="0.1"/>
    <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0" contype="0" conaffinity="0"/></body></body>
<body name="box" pos="-1 0 0.12" euler="5 10 0"><freejoint/><geom type="box" size="0.1 0.07 0.05"/></body>
</worldbody>
<actuator><velocity joint="j2" kv="30"/><position joint="j3" kp="20" kv="2"/>
  <general joint="j1" gaintype="affine" gainprm="2 0 -1" biastype="affine" biasprm="0 0 -5"/>
  <velocity joint="s1" kv="10" forcelimited="true" forcerange="-1 1"/></actuator>
</mujoco>"""

# the inertia-box model (arm, box links) and the ellipsoid model (a free swimmer, a capsule), wind, a velocity servo
FLUID = """<mujoco model="fluid">
<option integrator="{integrator}" density="1000" viscosity="0.5" wind="0.3 -0.2 0.1" timestep="0.005"/>
<worldbody>
<body name="swimmer" pos="0 0 1"><freejoint/>
  <geom type="ellipsoid" size="0.05 0.1 0.2" fluidshape="ellipsoid" fluidcoef="0.5 0.25 1.5 1.0 1.0"/></body>
<body name="arm" pos="1 0 1"><joint name="h1" axis="0 1 0" damping="0.1"/>
  <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0" fluidshape="ellipsoid"/>
  <body pos="0.3 0 0"><joint name="h2" axis="0 0 1"/><geom type="box" size="0.1 0.05 0.02" pos="0.1 0 0"/>
    <body pos="0.2 0 0"><joint type="ball"/><geom type="box" size="0.02 0.06 0.1" pos="0 0 -0.1"/></body>
  </body></body>
<body name="cube" pos="0 1 1" euler="20 0 40"><freejoint/><geom type="box" size="0.1 0.2 0.05"/></body>
</worldbody>
<actuator><velocity joint="h1" kv="2"/></actuator>
</mujoco>"""

# RK4 with joint limits, damping on hinge and ball joints and free bodies in contact
RK4 = """<mujoco model="rk4"><option integrator="RK4" timestep="0.004"/>
<worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
<body name="arm" pos="0 0 1"><joint name="hinge" axis="0 1 0" range="-25 25" damping="0.2"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" contype="0" conaffinity="0"/>
  <body name="tip" pos="0.5 0 0"><joint name="ball" type="ball" damping="0.05"/>
    <geom type="box" size="0.05 0.1 0.15" pos="0 0.02 -0.1" contype="0" conaffinity="0"/></body>
  <body name="slider" pos="0.2 0 0"><joint name="slide" type="slide" axis="0 0 1" range="-0.05 0.05"/>
    <geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body></body>
<body name="box" pos="0 0.5 0.12" euler="5 10 0"><freejoint/><geom type="box" size="0.1 0.07 0.05"/></body>
<body name="capsule" pos="0.5 0.5 0.08" euler="0 90 20"><freejoint/><geom type="capsule" size="0.04 0.1"/></body>
</worldbody>
<actuator><motor joint="hinge" gear="2"/><position joint="slide" kp="30"/></actuator>
</mujoco>"""


def _scene(text, python=False, time_step=None):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(text)
    plant, _, _, context = build_mjcf_scene(text, time_step=float(mm.opt.timestep))
    if python:
        plant._pipeline.features = ["the Python path, for comparison"]
    return mujoco, mm, plant, context


def _run(text, steps, seed, atol_python, atol_mujoco, qvel_scale=0.5):
    """`steps` mj_step against the compiled plant and the Python-path plant from one random state and ctrl;
    returns (MuJoCo data, compiled plant, its context)."""
    mujoco, mm, compiled, cc = _scene(text)
    _, _, python, cp = _scene(text, python=True)
    assert UncompiledFeatures(compiled) == []
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    mujoco.mj_forward(mm, md)
    md.qvel[:] = qvel_scale * rng.normal(size=mm.nv)
    ctrl = rng.uniform(-1, 1, mm.nu)
    md.ctrl[:] = ctrl
    for plant, context in ((compiled, cc), (python, cp)):
        SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
        if mm.nu:
            GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    sc, sp = cc.get_mutable_state(), cp.get_mutable_state()
    for k in range(steps):
        mujoco.mj_step(mm, md)
        compiled._DiscreteStepUpdate(cc, sc)
        python._DiscreteStepUpdate(cp, sp)
        np.testing.assert_allclose(compiled.GetPositionsAndVelocities(cc), python.GetPositionsAndVelocities(cp),
                                   rtol=0, atol=atol_python, err_msg=f"step {k}")
    qpos, qvel = GetMujocoState(compiled, cc)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=atol_mujoco)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=atol_mujoco)
    return md, compiled, cc


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_implicit_servo_arm_matches_python_path_and_mujoco(integrator):
    md, plant, context = _run(ARM.format(integrator=integrator), 200, seed=3, atol_python=1e-10, atol_mujoco=1e-6)
    assert md.ncon > 0  # the box rests on the floor
    # the implicit update matters: the same model under Euler ends elsewhere
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(ARM.format(integrator="Euler"))
    me = mujoco.MjData(mm)
    rng = np.random.default_rng(3)
    mujoco.mj_forward(mm, me)
    me.qvel[:] = 0.5 * rng.normal(size=mm.nv)
    me.ctrl[:] = md.ctrl
    for _ in range(200):
        mujoco.mj_step(mm, me)
    assert np.abs(me.qvel - md.qvel).max() > 1e-3
    assert plant.get_generalized_acceleration_output_port().Eval(context).shape == (mm.nv,)


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "implicit", "RK4"])
def test_fluid_forces_match_python_path_and_mujoco(integrator):
    md, plant, context = _run(FLUID.format(integrator=integrator), 150, seed=5, atol_python=1e-10,
                              atol_mujoco=1e-6, qvel_scale=1.5)
    assert np.abs(md.qfrc_fluid).max() > 1.0  # the fluid pushes hard


# standalone free bodies only (as MuJoCo's model/replicate/leaves): implicitfast's accelerations are their 6 × 6 solves
LEAVES = """<mujoco model="leaves"><option integrator="implicitfast" density="1.225" viscosity="1.8e-5" timestep="0.003"/>
<worldbody>
<body pos="0 0 1" euler="50 50 0"><freejoint/>
  <geom type="ellipsoid" size=".025 .01 .001" mass="1e-4" fluidshape="ellipsoid" pos=".025 0 0" euler="10 0 0"/>
  <geom type="ellipsoid" size=".025 .01 .001" mass="1.2e-4" fluidshape="ellipsoid" pos="-.025 0 0" euler="-14 0 0"/>
</body>
<body pos="0.1 0 1.2" euler="-20 40 10"><freejoint/>
  <geom type="ellipsoid" size=".03 .01 .002" mass="1e-4" fluidshape="ellipsoid"/></body>
</worldbody></mujoco>"""


def test_implicitfast_free_bodies_only_match_python_path():
    """The compiled step (no tree solve: every dof is a free body's, solved 6 × 6) equals the Python path. (mj_step
    turns these leaves differently: their velocities are ~4 rad/s apart after 60 steps, before this change as well;
    noted on issue #15.)"""
    _mujoco, _mm, compiled, cc = _scene(LEAVES)
    _, _, python, cp = _scene(LEAVES, python=True)
    assert UncompiledFeatures(compiled) == []
    rng = np.random.default_rng(11)
    v0 = 0.3 * rng.normal(size=compiled.num_velocities())
    for plant, context in ((compiled, cc), (python, cp)):
        plant.SetVelocities(context, v0)
    sc, sp = cc.get_mutable_state(), cp.get_mutable_state()
    for k in range(60):
        compiled._DiscreteStepUpdate(cc, sc)
        python._DiscreteStepUpdate(cp, sp)
        np.testing.assert_allclose(compiled.GetPositionsAndVelocities(cc), python.GetPositionsAndVelocities(cp),
                                   rtol=0, atol=1e-10, err_msg=f"step {k}")
    assert np.abs(compiled.GetVelocities(cc) - v0).max() > 0.1  # gravity and the air moved them


def test_rk4_limits_damping_and_contacts_match_python_path_and_mujoco():
    """The stages' solves warm-start from the previous step as MuJoCo's: the compiled step follows MuJoCo to 1e-9
    over 250 steps. The Python path's stage context keeps its own warm start (at step 64 its solver stops at another
    iterate, 9e-6 m/s away), so it agrees only to the solver's tolerance."""
    md, plant, context = _run(RK4, 250, seed=7, atol_python=2e-5, atol_mujoco=1e-9)
    assert md.ncon > 0 and md.nefc > md.ncon  # contacts and the slide limit
    # contact results are those at the step's start state (the first stage)
    results = plant.get_contact_results_output_port().Eval(context)
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(RK4)
    mf = mujoco.MjData(mm)
    mf.qpos[:], mf.qvel[:] = GetMujocoState(plant, context)
    mujoco.mj_forward(mm, mf)
    assert results.num_point_pair_contacts() == mf.ncon


def test_rk4_reports_the_mean_acceleration():
    """The step's v̇ (sampled output) is the tableau's mean acceleration (v⁺ − v)/h."""
    _mujoco, mm, plant, context = _scene(RK4)
    plant.SetVelocities(context, np.linspace(-1, 1, plant.num_velocities()))
    v0 = plant.GetVelocities(context).copy()
    plant._DiscreteStepUpdate(context, context.get_mutable_state())
    vdot = plant.get_generalized_acceleration_output_port().Eval(context)
    np.testing.assert_allclose(vdot, (plant.GetVelocities(context) - v0) / mm.opt.timestep, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", ["actuation/damper.xml", "actuation/dampratio.xml", "core_smooth/ten_J0.xml"])
def test_mujoco_test_models_step_compiled_as_mujoco(models_dir, name):
    """MuJoCo's own test models (implicitfast with a damper's velocity-dependent gain and dampratio position servos;
    RK4 with a joint spring) step compiled and follow mj_step from a random state and ctrl."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    plant, _, _, context = build_mjcf_scene(path=path, time_step=float(mm.opt.timestep))
    assert UncompiledFeatures(plant) == []
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    rng = np.random.default_rng(11)
    md.qvel[:] += rng.normal(size=mm.nv)
    lo, hi = mm.actuator_ctrlrange[:, 0], mm.actuator_ctrlrange[:, 1]
    md.ctrl[:] = rng.uniform(lo, hi)
    SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
    if mm.nu:
        GetMujocoCtrlInputPort(plant).FixValue(context, md.ctrl.copy())
    state = context.get_mutable_state()
    for _ in range(300):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    assert np.abs(md.qvel).max() > 0.01  # still moving
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-9)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-9)


def test_implicitfast_indefinite_matrix_is_named():
    """A bias with a positive velocity gain (it feeds energy in) makes M + h·D − h·∂f/∂v indefinite, which
    implicitfast's Cholesky cannot factor: the step says which matrix and what to check."""
    text = """<mujoco><option integrator="implicitfast" timestep="0.01"/>
    <worldbody><body><joint name="h" axis="0 1 0"/><geom type="sphere" size="0.1" mass="0.1" pos="0.2 0 0"/></body>
    </worldbody><actuator><general joint="h" biastype="affine" biasprm="0 0 1000"/></actuator></mujoco>"""
    _mujoco, _mm, plant, context = _scene(text)
    assert UncompiledFeatures(plant) == []
    plant.SetVelocities(context, [1.0])
    with pytest.raises(RuntimeError, match="the implicitfast integrator's matrix .* not positive definite.* bias"):
        plant._DiscreteStepUpdate(context, context.get_mutable_state())
