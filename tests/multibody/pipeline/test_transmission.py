"""Configuration-dependent MuJoCo transmissions (pipeline/transmission.py: sites with and without refsite, slider-crank,
ball and free joints), body gravity compensation (pipeline/gravcomp.py, with actuatorgravcomp) and the implicit
integrators' tendon-damper and spatial-tendon-actuator velocity derivatives (derivative.py) on the compiled step,
against the plant's Python path and MuJoCo's mj_step."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import (GetMujocoActivations, GetMujocoState, SetMujocoActivations,
                                                 SetMujocoState)
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.parsers import Parser

ACTUATION = ("mujoco", "testdata", "actuation")

#: a slider-crank (MuJoCo's model/slider_crank layout), a ball joint with a 3D gear, a free body pushed through a
#: free-joint gear and in its parent's frame, and a gravity-compensated arm with and without actuatorgravcomp
JOINTS = """<mujoco model="joints"><option timestep="0.002" integrator="{integ}"/>
<worldbody>
  <body name="crank" pos="0 0 1"><joint name="crank" type="hinge" axis="0 1 0" damping="0.02"/>
    <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/><site name="crankpin" pos="0.2 0 0"/></body>
  <body name="slider" pos="0.5 0 1"><joint name="slide" type="slide" axis="1 0 0" damping="0.5"/>
    <geom type="box" size="0.05 0.05 0.05"/><site name="sliderpin" zaxis="-1 0 0"/></body>
  <body name="ball" pos="0 1 1"><joint name="ball" type="ball" damping="0.01"/>
    <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/></body>
  <body name="puck" pos="1 1 1" quat="0.9 0.3 0.2 0.1"><freejoint name="puck"/><geom type="box" size="0.1 0.08 0.05"/></body>
  <body name="puck2" pos="2 1 1" quat="0.8 0.1 0.5 0.2"><freejoint name="puck2"/><geom type="box" size="0.1 0.08 0.05"/></body>
  <body name="arm" pos="0 2 1" gravcomp="0.7"><joint name="a1" axis="0 1 0" actuatorgravcomp="true"
      actuatorfrcrange="-0.6 0.6"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
    <body name="fore" pos="0.3 0 0" gravcomp="1"><joint name="a2" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0.1" size="0.03"/></body></body>
</worldbody>
<actuator>
  <general name="crank" cranksite="crankpin" slidersite="sliderpin" cranklength="0.35" gear="2" ctrlrange="-1 1"/>
  <motor name="ball" joint="ball" gear="0.2 0.5 -0.3" ctrlrange="-1 1"/>
  <position name="ballservo" joint="ball" gear="0 0 1" kp="2" kv="0.1"/>
  <motor name="puck" joint="puck" gear="1 0.5 0 0.1 0.2 0.3" ctrlrange="-1 1"/>
  <motor name="puck2" jointinparent="puck2" gear="0 0 2 0.3 0 0.1" ctrlrange="-1 1"/>
  <motor name="a2" joint="a2" ctrlrange="-1 1"/>
</actuator>
</mujoco>"""


def _plant(text: str, h: float, python: bool = False):
    plant = MultibodyPlant(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(text, "xml")
    plant.Finalize()
    if python:  # the plant's Python path, for comparison
        plant._pipeline.features = ["the Python path, for comparison"]
    return plant, plant.CreateDefaultContext()


def _compare(text: str, steps: int, seed: int, python_atol: float, mujoco_atol: float, keyframe: bool = False):
    """Step the compiled plant, the Python path and MuJoCo (contacts off) from one random state with a random
    constant ctrl; assert they agree. Returns MuJoCo's model and data and the largest |actuator length| and
    |qfrc_gravcomp| its steps saw."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(text)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    if keyframe:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    md.qvel[:] += rng.normal(scale=0.3, size=mm.nv)
    lo, hi = mm.actuator_ctrlrange[:, 0], mm.actuator_ctrlrange[:, 1]
    limited = mm.actuator_ctrllimited.astype(bool)
    md.ctrl[:] = np.where(limited, rng.uniform(lo, hi), rng.uniform(-1.0, 1.0, mm.nu))
    q0, v0, a0, ctrl = md.qpos.copy(), md.qvel.copy(), md.act.copy(), md.ctrl.copy()
    states = []
    for python in (False, True):
        plant, context = _plant(text, mm.opt.timestep, python)
        if not python:
            assert UncompiledFeatures(plant) == []
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        SetMujocoState(plant, context, q0, v0)
        if mm.na:
            SetMujocoActivations(plant, context, a0)
        state = context.get_mutable_state()
        for _ in range(steps):
            plant._DiscreteStepUpdate(context, state)
        states.append(GetMujocoState(plant, context))
    seen = dict(length=np.zeros(md.actuator_length.shape[0]), gravcomp=0.0)
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        seen["length"] = np.maximum(seen["length"], np.abs(md.actuator_length))
        seen["gravcomp"] = max(seen["gravcomp"], float(np.abs(md.qfrc_gravcomp).max()))
    (qc, vc), (qp, vp) = states
    np.testing.assert_allclose(qc, qp, rtol=0, atol=python_atol)
    np.testing.assert_allclose(vc, vp, rtol=0, atol=python_atol)
    np.testing.assert_allclose(qc, md.qpos, rtol=0, atol=mujoco_atol)
    np.testing.assert_allclose(vc, md.qvel, rtol=0, atol=mujoco_atol)
    return mm, md, seen


@pytest.mark.parametrize("integ", ["Euler", "implicitfast", "RK4"])
def test_slider_crank_ball_free_gears_and_gravcomp_step_as_python_path_and_mujoco(integ):
    _, md, seen = _compare(JOINTS.format(integ=integ), 300, 1, 1e-10, 1e-8)
    assert seen["length"][0] > 0.1 and seen["length"][2] > 0.01  # slider-crank and ball lengths
    assert seen["gravcomp"] > 0.5


def test_refsite_cartesian_servos_with_actuatorgravcomp_step_as_python_path_and_mujoco(models_dir):
    """MuJoCo's refsite.xml: six position servos on a site in a reference site's frame moving a 9-dof arm whose
    bodies are gravity-compensated through actuatorgravcomp joints with actuatorfrcrange, under the implicit
    integrator with viscosity."""
    text = (models_dir.joinpath(*ACTUATION) / "refsite.xml").read_text()
    _, md, seen = _compare(text, 300, 2, 1e-10, 1e-8)
    assert seen["length"].max() > 0.05 and seen["gravcomp"] > 0.01


def test_refsite_on_a_free_base_steps_as_python_path_and_mujoco(models_dir):
    """MuJoCo's refsite_free.xml: Cartesian servos on a free-floating quadruped base (RK4, 0.1 ms)."""
    text = (models_dir.joinpath(*ACTUATION) / "refsite_free.xml").read_text()
    text = re.sub(r"<asset>.*?</asset>|<sensor>.*?</sensor>", "", text, flags=re.S).replace('material="groundplane"', "")
    _compare(text, 100, 3, 1e-10, 1e-8, keyframe="<key" in text)  # velocities up to 12 rad/s: 4e-10 relative


@pytest.mark.parametrize("integ", ["Euler", "implicitfast"])
def test_site_transmissions_without_refsite_step_as_python_path_and_mujoco(models_dir, integ):
    """MuJoCo's sites.xml: wrench gears on sites of a free body (two with integrator dynamics), in a fluid."""
    text = (models_dir.joinpath(*ACTUATION) / "sites.xml").read_text().replace(
        '<option density="1000">', f'<option density="1000" integrator="{integ}">')
    _compare(text, 200, 4, 1e-10, 1e-8)


@pytest.mark.parametrize("integ", ["implicit", "implicitfast"])
def test_tendon_damper_and_spatial_muscle_under_implicit_integrators_as_mujoco(models_dir, integ):
    """MuJoCo's activation.xml under the implicit integrators: a damped spatial tendon moved by a muscle (its
    damping −b·JᵀJ and the muscle's velocity derivative in qDeriv), integrator actuators on joints and a site."""
    text = (models_dir.joinpath(*ACTUATION) / "activation.xml").read_text().replace(
        '<option density="1000"/>', f'<option density="1000" integrator="{integ}"/>')
    _compare(text, 200, 5, 1e-10, 1e-8)


#: orientation servos: an integrator one on a site in a refsite frame (actearly, actrange, torque-norm limit) over
#: an arm with a ball joint, and a quaternion-chart one on a second ball joint
SERVOS = """<mujoco model="so3"><option timestep="0.002" integrator="{integ}"><flag gravity="disable"/></option>
<worldbody>
  <site name="ref" pos="0 0 0.5" euler="10 20 30"/>
  <body name="a" pos="0 0 1"><joint name="ball" type="ball" damping="0.05"/>
    <geom type="box" size="0.1 0.2 0.3" pos="0.05 0 0"/>
    <body name="b" pos="0.3 0 0"><joint name="h" type="hinge" axis="0 1 0" damping="0.01"/>
      <geom type="capsule" size="0.03" fromto="0 0 0 0.2 0 0"/><site name="tip" pos="0.2 0 0" euler="5 -15 25"/>
    </body>
  </body>
  <body name="c" pos="1 0 1"><joint name="ball2" type="ball"/><geom type="ellipsoid" size="0.05 0.07 0.09" pos="0.02 0.01 0"/></body>
</worldbody>
<actuator>
  <general site="tip" refsite="ref" gaintype="so3" biastype="so3" dyntype="integrator" gainprm="1"
           biasprm="0.1 -1 -0.2" actearly="true" actlimited="true" actrange="-2 2" forcelimited="true"
           forcerange="0 0.4"/>
  <orientation joint="ball2" input="quat" kp="2" dampratio="0.5"/>
</actuator>
</mujoco>"""


@pytest.mark.parametrize("integ", ["Euler", "implicitfast", "RK4"])
def test_orientation_servos_step_as_python_path_and_mujoco(integ):
    """Under implicitfast the torque limit is raised out of reach: a servo held at its limit drops its kv
    derivative when the norm of its clamped torque rounds to >= the limit, a decision MuJoCo, the Python path and
    the compiled step take differently (1e-3 apart after one step)."""
    text = SERVOS.format(integ=integ)
    if integ == "implicitfast":
        text = text.replace('forcerange="0 0.4"', 'forcerange="0 40"')
    _compare(text, 300, 6, 1e-10, 1e-8)


def test_orientation_and_per_axis_ball_servos_step_as_python_path_and_mujoco(models_dir):
    """MuJoCo's orientation.xml: per-axis position servos with wrapped setpoints and the expmap and quaternion
    orientation servos on three ball joints (implicitfast)."""
    text = (models_dir.joinpath(*ACTUATION) / "orientation.xml").read_text()
    text = re.sub(r"<asset>.*?</asset>", "", text, flags=re.S).replace('material="checker"', "").replace(
        'material="grid"', "")
    _compare(text, 300, 7, 1e-10, 1e-8)
