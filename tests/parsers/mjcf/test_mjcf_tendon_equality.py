"""MJCF `<equality><tendon>` as MuJoCo: one tendon fixed at length0 + polycoef[0], or two tendons coupled by the
quartic polycoef (fixed, spatial and wrapping tendons), with their solref / solimp; inactive ones add no row."""
from __future__ import annotations

import warnings

import numpy as np

from oracles import require_mujoco

from mallard.multibody.contact.assembler import ConstraintAssembler
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.contact.constraint_rows import ConstraintRowModel
from mallard.multibody.mjcf.state import CalcMujocoVelocityMap, GetMujocoState, SetMujocoState
from mallard.parsers import Parser

TENDON_EQUALITIES = """<mujoco model="tendon_equality">
  <option timestep="0.002"/>
  <worldbody>
    <site name="anchor" pos="0 0 1"/>
    <body name="b1" pos="0 0 1">
      <joint name="j1" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04" mass="1"/>
      <site name="s1" pos="0.2 0 0.05"/>
      <body name="b2" pos="0.3 0 0">
        <joint name="j2" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.035" mass="0.7"/>
        <geom name="wrapper" type="sphere" pos="0.15 0 0" size="0.05" contype="0" conaffinity="0"/>
        <site name="side" pos="0.15 0 0.1"/>
        <body name="b3" pos="0.3 0 0">
          <joint name="j3" type="hinge" axis="0 1 0" damping="0.1"/>
          <joint name="j4" type="hinge" axis="1 0 0" damping="0.1"/>
          <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03" mass="0.5"/>
          <site name="s3" pos="0.2 0 0.04"/>
        </body>
      </body>
    </body>
    <body name="slider" pos="0.5 0.5 1">
      <joint name="js" type="slide" axis="0 0 1" damping="0.2"/>
      <geom type="box" size="0.05 0.05 0.05" mass="0.3"/>
      <site name="s4" pos="0 0 0"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fix1"><joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed>
    <fixed name="fix2"><joint joint="j4" coef="2"/></fixed>
    <spatial name="spat"><site site="s1"/><site site="s3"/></spatial>
    <spatial name="wrap"><site site="anchor"/><site site="s1"/><geom geom="wrapper" sidesite="side"/>
      <site site="s3"/></spatial>
    <spatial name="rope"><site site="anchor"/><site site="s4"/></spatial>
  </tendon>
  <equality>
    <tendon name="fixonly" tendon1="fix2" polycoef="0.1 0 0 0 0" solref="0.03 1.2"/>
    <tendon name="coupled" tendon1="spat" tendon2="fix1" polycoef="0.01 0.3 -0.2 0.1 0.05"
            solimp="0.8 0.9 0.002 0.4 2"/>
    <tendon name="wrapfix" tendon1="wrap" tendon2="rope" polycoef="0 -0.5 0 0 0"/>
    <tendon name="off" tendon1="rope" active="false"/>
  </equality>
</mujoco>
"""


def _load(mujoco, xml: str):
    mm = mujoco.MjModel.from_xml_string(xml)
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    return mm, plant


def test_tendon_equalities_become_constraints():
    """Three active tendon equalities become "MjcfTendon" constraints; the inactive one is left out (warned)."""
    plant = MultibodyPlant(0.002)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Parser(plant).AddModelsFromString(TENDON_EQUALITIES, "xml")
    kinds = [c["kind"] for c in plant.constraint_specs()]
    assert kinds == ["MjcfTendon"] * 3
    assert any("'off'" in str(w.message) and "inactive" in str(w.message) for w in caught)
    assert not any("tendon equalities" in str(w.message) for w in caught)


def test_tendon_equality_rows_match_efc():
    """Residual, Jacobian and diagApprox-based regularization of every tendon equality row at random states equal
    MuJoCo's efc_pos / efc_J / efc_R (1e-9)."""
    mujoco = require_mujoco()
    mm, plant = _load(mujoco, TENDON_EQUALITIES)
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    rows = ConstraintRowModel(plant)
    rng = np.random.default_rng(0)
    for _ in range(5):
        md.qpos[:] = mm.qpos0 + rng.uniform(-0.6, 0.6, mm.nq)
        md.qvel[:] = rng.uniform(-1.0, 1.0, mm.nv)
        mujoco.mj_forward(mm, md)
        assert md.nefc == 3 and (md.efc_type == int(mujoco.mjtConstraint.mjCNSTR_EQUALITY)).all()
        SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
        T = CalcMujocoVelocityMap(plant, context)
        asm = ConstraintAssembler(plant.num_velocities())
        rows.Add(asm, plant._model, plant._eval_kinematics(context))
        eq = asm._groups["eq"]
        assert len(eq) == 3
        J = np.vstack([g["J"] for g in eq]) @ T
        pos = np.concatenate([g["pos"] for g in eq])
        np.testing.assert_allclose(pos, md.efc_pos, rtol=0, atol=1e-9)
        np.testing.assert_allclose(J, md.efc_J.reshape(md.nefc, mm.nv), rtol=0, atol=1e-9)
        diagA = np.concatenate([np.atleast_1d(g["diagA"]) for g in eq])
        imp = md.efc_KBIP[:, 2]
        np.testing.assert_allclose(np.maximum(diagA * (1 - imp) / imp, mujoco.mjMINVAL), md.efc_R, rtol=1e-9,
                                   atol=0)


def test_tendon_equality_trajectory_matches_mj_step():
    """200 discrete steps (Euler, no contact) from a state off the constraints match mj_step to 1e-6."""
    mujoco = require_mujoco()
    mm, plant = _load(mujoco, TENDON_EQUALITIES)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(2)
    md.qpos[:] = mm.qpos0 + rng.uniform(-0.3, 0.3, mm.nq)
    md.qvel[:] = rng.uniform(-1.0, 1.0, mm.nv)
    context = plant.CreateDefaultContext()
    SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
    state = context.get_mutable_state()
    for _ in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    assert np.abs(md.qvel).max() > 1e-3
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_force_sensors_include_tendon_equality_pulls():
    """MuJoCo 4 applies a tendon equality's force along both spatial tendons' paths (f on tendon1, −P'(x)·f on
    tendon2; wrap path included) in cfrc_ext: force / torque sensors and tendonpos / tendonvel equal MuJoCo's."""
    mujoco = require_mujoco()
    xml = TENDON_EQUALITIES.replace("</equality>", """</equality>
  <sensor><force site="s3"/><torque site="s3"/><force site="s1"/><torque site="side"/>
    <tendonpos tendon="wrap"/><tendonvel tendon="spat"/><tendonpos tendon="fix1"/></sensor>""")
    from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
    mm, plant = _load(mujoco, xml)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    context = plant.CreateDefaultContext()
    port = GetMujocoSensorOutputPort(plant)
    rng = np.random.default_rng(1)
    for _ in range(3):
        md.qpos[:] = mm.qpos0 + rng.uniform(-0.4, 0.4, mm.nq)
        md.qvel[:] = rng.uniform(-1.0, 1.0, mm.nv)
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
        assert np.abs(md.efc_force).max() > 1.0  # the equalities pull
        np.testing.assert_allclose(port.Eval(context), md.sensordata, rtol=0,
                                   atol=1e-9 * max(1.0, np.abs(md.sensordata).max()))
