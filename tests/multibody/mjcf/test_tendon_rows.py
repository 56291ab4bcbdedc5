"""MJCF tendon limits and tendon frictionloss as constraint rows of the discrete plant, against mj_step.

The models carry a wide (never reached) joint range: the plant installs its constraint solver only when it
has joint limits, joint friction, equalities or collision geometry (see the report on contact_config.py).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.state import GetMujocoState, SetMujocoState
from mallard.parsers import Parser

FIXED_LIMIT = """<mujoco model="fixed_limit"><option timestep="0.002"/>
<worldbody>
  <body name="a" pos="0 0 1"><joint name="j0" type="hinge" axis="0 1 0" damping="0.05" range="-3000 3000"/>
    <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
    <body name="b" pos="0.4 0 0"><joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body></body>
</worldbody>
<tendon><fixed name="couple" limited="true" range="-0.3 0.25" margin="0.01" solreflimit="0.01 0.9"
  solimplimit="0.8 0.95 0.002 0.5 2"><joint joint="j0" coef="1"/><joint joint="j1" coef="0.7"/></fixed></tendon>
</mujoco>"""

SPATIAL = """<mujoco model="spatial_friction"><option timestep="0.002"/>
<worldbody>
  <site name="anchor" pos="0 0 1.2"/>
  <body name="arm" pos="0 0 1"><joint name="shoulder" type="hinge" axis="0 1 0" range="-3000 3000"/>
    <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04"/><site name="s1" pos="0.3 0 0.05"/>
    <body name="fore" pos="0.5 0 0"><joint name="elbow" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/><site name="s2" pos="0.3 0 0"/></body></body>
</worldbody>
<tendon>
  <spatial name="rope" frictionloss="0.4" solreffriction="0.03 1" limited="true" range="0 0.95">
    <site site="anchor"/><site site="s1"/><site site="s2"/></spatial>
  <fixed name="slip" frictionloss="0.15"><joint joint="elbow" coef="1"/></fixed>
</tendon>
</mujoco>"""


def _plant(text: str, h: float):
    plant = MultibodyPlant(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(text, "xml")
    plant.Finalize()
    return plant, plant.CreateDefaultContext()


def _run(text: str, qpos0, qvel0, steps: int = 200):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    md.qpos[:], md.qvel[:] = qpos0, qvel0
    plant, context = _plant(text, mm.opt.timestep)
    SetMujocoState(plant, context, np.asarray(qpos0, float), np.asarray(qvel0, float))
    state = context.get_mutable_state()
    active = {}  # MuJoCo constraint type -> most rows of that type in one step
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        for t in set(md.efc_type.tolist()):
            active[t] = max(active.get(t, 0), int(np.sum(md.efc_type == t)))
    qpos, qvel = GetMujocoState(plant, context)
    return mm, md, plant, context, qpos, qvel, active


def test_fixed_tendon_limit_matches_mujoco():
    mujoco = require_mujoco()
    mm, md, plant, context, qpos, qvel, active = _run(FIXED_LIMIT, [0.0, 0.1], [1.5, 2.0])
    assert active == {mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON: 1}  # the upper limit was hit
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)
    # the tendon stays (softly) within its range: L = q0 + 0.7 q1 <= 0.25 + violation of the soft limit
    L = qpos[0] + 0.7 * qpos[1]
    assert L < 0.25 + 0.02
    assert mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_TENDON, "couple") == 0


def test_fixed_tendon_lower_limit_with_gravity_matches_mujoco():
    mujoco = require_mujoco()
    _, md, _, _, qpos, qvel, active = _run(FIXED_LIMIT, [-0.2, -0.1], [-1.0, -1.0])
    assert active.get(mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON, 0) == 1
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_spatial_and_fixed_tendon_frictionloss_match_mujoco():
    mujoco = require_mujoco()
    mm, md, plant, context, qpos, qvel, active = _run(SPATIAL, [0.3, -0.4], [0.5, -1.0])
    # two tendon friction rows every step, and the spatial rope's upper limit once it is taut
    assert active == {mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON: 2, mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON: 1}
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_tendon_frictionloss_holds_the_arm_against_a_small_load():
    """Friction larger than the gravity torque about the elbow keeps the elbow still (as in MuJoCo)."""
    text = SPATIAL.replace('frictionloss="0.15"', 'frictionloss="50"')
    _, md, _, _, qpos, qvel, _ = _run(text, [0.0, 0.0], [0.0, 0.0], steps=100)
    free = _run(SPATIAL.replace('frictionloss="0.15"', 'frictionloss="0"'), [0.0, 0.0], [0.0, 0.0], steps=100)
    assert abs(qvel[1]) < 0.1 * abs(free[5][1])  # the soft friction row only lets the elbow creep
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)


def test_tendon_rows_need_no_warning_on_discrete_plants_but_warn_on_continuous():
    from mallard.parsers.mjcf.errors import MjcfUnsupportedWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Parser(MultibodyPlant(0.002)).AddModelsFromString(FIXED_LIMIT, "xml")
    assert not [w for w in caught if "tendon" in str(w.message)]
    with pytest.warns(MjcfUnsupportedWarning, match="tendon 'couple': limits not simulated"):
        Parser(MultibodyPlant(0.0)).AddModelsFromString(FIXED_LIMIT, "xml")


def test_humanoid_hamstring_limit_matches_mujoco(models_dir):
    """The humanoid (in the air) kicks its hips into flexion until both hamstring tendons hit their lower limit."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "model" / "humanoid.xml"
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    md.qpos[2] += 1.0
    for side in ("right", "left"):  # hamstring = 0.5 hip_y - 0.5 knee starts at -0.25, limit -0.3
        j = mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_JOINT, f"hip_y_{side}")
        md.qpos[mm.jnt_qposadr[j]], md.qvel[mm.jnt_dofadr[j]] = -0.5, -4.0
    plant = MultibodyPlant(mm.opt.timestep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    plant.Finalize()
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    tendon_rows = 0
    for _ in range(100):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        tendon_rows = max(tendon_rows, int(np.sum(md.efc_type == mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON)))
    assert tendon_rows == 2
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)
