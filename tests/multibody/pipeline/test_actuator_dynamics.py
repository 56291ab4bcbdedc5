"""MuJoCo actuator dynamics and muscles on the compiled step (pipeline/actuation.py, muscle.py): activations
(integrator, filter, filterexact, muscle; actrange, actearly) advanced under Euler, implicit, implicitfast and RK4,
and muscle gains and passive biases on spatial tendons, step as the plant's Python path and as MuJoCo's mj_step."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import (GetMujocoActivations, GetMujocoState, SetMujocoActivations,
                                                 SetMujocoState)
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.multibody.pipeline.batch import BatchedStepper
from mallard.parsers import Parser

#: MuJoCo's 2-link 6-muscle arm (model/tendon_arm/arm26.xml), from the corpus data when it was extracted
ARM26 = Path(__file__).resolve().parents[3] / "benchmarks" / "corpus" / "data" / "mujoco" / "model" / "tendon_arm" / "arm26.xml"

#: an arm moved by muscles on spatial tendons (one wrapping a cylinder, one with force < 0: scale / acc0, one with
#: tausmooth) and a fixed tendon, plus integrator (actrange, actearly), filter and filterexact actuators
MUSCLES = """<mujoco model="muscle_arm"><compiler autolimits="true"/><option timestep="0.004" integrator="{integ}"/>
<default><joint type="hinge" axis="0 1 0" damping="0.05" range="-2 2"/></default>
<worldbody>
  <site name="base" pos="0 0 1.3"/><site name="base2" pos="0.1 0 0.8"/>
  <body name="upper" pos="0 0 1"><joint name="shoulder"/>
    <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
    <geom name="drum" type="cylinder" size="0.05 0.05" zaxis="0 1 0" contype="0" conaffinity="0" mass="0"/>
    <site name="side" pos="0 0 0.1"/><site name="a1" pos="0.2 0 0.05"/><site name="a2" pos="0.3 0 -0.05"/>
    <body name="fore" pos="0.4 0 0"><joint name="elbow"/>
      <geom type="capsule" fromto="0 0 0 0.35 0 0" size="0.03"/><site name="b1" pos="0.1 0 0.04"/>
      <site name="b2" pos="0.1 0 -0.04"/>
      <body name="hand" pos="0.35 0 0"><joint name="wrist" type="slide" axis="1 0 0" range="-0.1 0.1"/>
        <geom type="sphere" size="0.05"/></body>
    </body>
  </body>
</worldbody>
<tendon>
  <spatial name="flex"><site site="base"/><geom geom="drum" sidesite="side"/><site site="a1"/><site site="b1"/></spatial>
  <spatial name="ext"><site site="base2"/><site site="a2"/><site site="b2"/></spatial>
  <fixed name="mix"><joint joint="shoulder" coef="0.1"/><joint joint="elbow" coef="-0.05"/></fixed>
</tendon>
<actuator>
  <muscle name="flex" tendon="flex" force="60" lengthrange="0.55 0.95" ctrlrange="0 1"/>
  <muscle name="ext" tendon="ext" force="-1" scale="50" lengthrange="0.5 0.9" tausmooth="0.3" ctrlrange="0 1"/>
  <muscle name="mix" tendon="mix" force="20" lengthrange="-0.15 0.15" timeconst="0.02 0.06" ctrlrange="0 1"/>
  <general name="int" joint="wrist" dyntype="integrator" actrange="-0.5 0.5" gainprm="30" actearly="true"
           ctrlrange="-2 2"/>
  <general name="filt" joint="elbow" dyntype="filter" dynprm="0.03" gainprm="4" ctrlrange="-1 1"/>
  <general name="exact" joint="shoulder" dyntype="filterexact" dynprm="0.05" gainprm="3" ctrlrange="-1 1"
           actearly="true"/>
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


def _compare(text: str, steps: int, seed: int, python_atol: float, mujoco_atol: float, ctrl_range=(0.0, 1.0)):
    """Step the compiled plant, the Python path and MuJoCo (contacts off) from one random state, activations and
    constant ctrl; assert they agree (positions, velocities, activations). Returns MuJoCo's model, data and the
    largest |actuator force| and activation range MuJoCo's steps saw."""
    mujoco = require_mujoco()
    try:
        mm = mujoco.MjModel.from_xml_string(text)
    except ValueError as err:  # MuJoCo's compiler itself fails on this model: no oracle to compare with
        if "Lengthrange computation did not converge" not in str(err):
            raise
        pytest.skip(f"MuJoCo {mujoco.__version__} cannot load this model (its compiler's actuator lengthrange "
                    f"computation does not converge: {' '.join(str(err).split())})")
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    md.qvel[:] = rng.normal(scale=0.5, size=mm.nv)
    md.act[:] = rng.uniform(0.0, 0.5, mm.na)
    md.ctrl[:] = rng.uniform(*ctrl_range, mm.nu)
    q0, v0, a0, ctrl = md.qpos.copy(), md.qvel.copy(), md.act.copy(), md.ctrl.copy()
    states = []
    for python in (False, True):
        plant, context = _plant(text, mm.opt.timestep, python)
        if not python:
            assert UncompiledFeatures(plant) == []
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        SetMujocoState(plant, context, q0, v0)
        SetMujocoActivations(plant, context, a0)
        state = context.get_mutable_state()
        for _ in range(steps):
            plant._DiscreteStepUpdate(context, state)
        states.append((*GetMujocoState(plant, context), GetMujocoActivations(plant, context)))
    force, act_lo, act_hi = np.zeros(mm.nu), a0.copy(), a0.copy()
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        force = np.maximum(force, np.abs(md.actuator_force))
        act_lo, act_hi = np.minimum(act_lo, md.act), np.maximum(act_hi, md.act)
    compiled, python = states
    for c, p, o in zip(compiled, python, (md.qpos, md.qvel, md.act)):
        np.testing.assert_allclose(c, p, rtol=0, atol=python_atol)
        np.testing.assert_allclose(c, o, rtol=0, atol=mujoco_atol)
    return mm, md, dict(force=force, act_lo=act_lo, act_hi=act_hi)


@pytest.mark.parametrize("integ", ["Euler", "implicit", "implicitfast", "RK4"])
def test_muscles_and_activations_step_as_python_path_and_mujoco(integ):
    """250 steps; the arm settles within ~100 into a stiff equilibrium where rounding differences of the three
    computations grow to ~1e-10 (the Python path and MuJoCo differ as much)."""
    _, md, seen = _compare(MUSCLES.format(integ=integ), 250, 1, 1e-9, 1e-8)
    assert seen["force"][:3].min() > 1.0  # the muscles pulled
    assert seen["act_hi"][3] == pytest.approx(0.5)  # the integrator reached its actrange
    assert md.act[:3].max() > 0.6  # the muscles activated


def test_actearly_filters_and_integrators_step_as_python_path_and_mujoco(models_dir):
    """MuJoCo's actearly test model (filter, filterexact and clamped integrators with and without actearly, under
    implicitfast with a 50 ms step)."""
    text = (models_dir / "mujoco" / "testdata" / "actuation" / "actearly.xml").read_text()
    _, md, _ = _compare(text, 60, 2, 1e-11, 1e-9, ctrl_range=(-1.0, 1.0))
    assert np.ptp(md.act) > 0.5


def test_arm26_muscles_step_as_mujoco():
    """MuJoCo's 2-link 6-muscle arm (muscles on wrapping spatial tendons, compiler lengthranges) for 400 steps."""
    if not ARM26.is_file():
        pytest.skip(f"MuJoCo's model/ folder of the corpus data not extracted ({ARM26})")
    text = re.sub(r"<visual>.*?</visual>|<asset>.*?</asset>", "", ARM26.read_text(), flags=re.S)
    text = text.replace('material="matplane"', "")
    _, md, seen = _compare(text, 400, 3, 1e-10, 1e-8)
    assert seen["force"].min() > 1.0


def test_batched_stepper_carries_the_activations():
    """BatchedStepper's state is [q; v; act] for a model with activations; its members step as the plant."""
    text = MUSCLES.format(integ="implicitfast")
    plant, context = _plant(text, 0.004)
    ctrl = np.array([0.9, 0.1, 0.5, 1.5, -0.7, 0.8])
    GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
    state = context.get_mutable_state()
    x0 = np.concatenate([plant.GetPositions(context), plant.GetVelocities(context), GetMujocoActivations(plant, context)])
    for _ in range(20):
        plant._DiscreteStepUpdate(context, state)
    stepper = BatchedStepper(plant, 2)
    X = stepper.Step(np.stack([x0, x0]), num_steps=20, ctrl=np.stack([ctrl, ctrl]))
    nx = plant.num_positions() + plant.num_velocities()
    assert X.shape[1] == nx + 6
    for row in X:
        np.testing.assert_allclose(row[:nx], np.concatenate([plant.GetPositions(context),
                                                             plant.GetVelocities(context)]), rtol=0, atol=1e-12)
        np.testing.assert_allclose(row[nx:], GetMujocoActivations(plant, context), rtol=0, atol=1e-12)
