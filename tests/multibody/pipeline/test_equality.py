"""Equality constraints and mocap bodies in the compiled step (pipeline/equality.py, smooth.kinematics' mocap welds)
against the plant's Python path (1e-11) and MuJoCo (MJCF tendon equalities over the tendon stage included);
Drake-style ball, weld, distance and coupler constraints against the Python path; the errors of undefined rows and
bad mocap poses."""
from __future__ import annotations

import numpy as np
import pytest
from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco, require_pydrake

import mallard.all as ma
from mallard.multibody.math import RigidTransform, RollPitchYaw
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.state import GetMujocoState, SetMujocoState
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.multibody.tree import RevoluteJoint, SpatialInertia, UnitInertia
from mallard.parsers import Parser

# a hinge chain closed by a connect, a free box welded (torquescale, relpose) to a mocap body driven along a path,
# a hinge pair coupled by a quartic joint equality and one hinge fixed by a single-joint equality; a floor
EQUALITIES = """<mujoco model="eq"><option timestep="0.002"/>
<worldbody><geom name="floor" type="plane" size="3 3 .1"/>
<body name="a1" pos="0 0 1"><joint name="h1" axis="0 1 0" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
  <body name="a2" pos="0.3 0 0"><joint name="h2" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/></body></body>
<body name="a3" pos="0.3 0 1"><joint name="h3" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/></body>
<body name="hand" mocap="true" pos="0.8 0 0.6"><geom type="sphere" size="0.02" contype="0" conaffinity="0"/></body>
<body name="box" pos="0.8 0 0.4" euler="10 0 20"><freejoint/><geom type="box" size="0.05 0.04 0.03"/></body>
<body name="c1" pos="-0.5 0 0.5"><joint name="k1" axis="1 0 0"/><geom type="box" size="0.1 0.02 0.02"/>
  <body name="c2" pos="0 0 -0.1"><joint name="k2" axis="1 0 0" ref="0.1"/><geom type="box" size="0.1 0.02 0.02"/>
    <body name="c3" pos="0 0 -0.1"><joint name="k3" axis="0 1 0"/><geom type="sphere" size="0.03"/></body>
  </body></body>
</worldbody>
<equality>
  <connect body1="a2" body2="a3" anchor="0 0 -0.3" solref="0.01 1"/>
  <weld body1="box" body2="hand" relpose="0 0 -0.2 1 0 0 0" torquescale="3" solimp="0.95 0.99 0.001 0.4 2"/>
  <joint joint1="k2" joint2="k1" polycoef="0.05 -0.7 0.3 0 0.1"/>
  <joint joint1="k3" polycoef="0.2 0 0 0 0"/>
</equality>
</mujoco>"""


def _hand_pose(t: float) -> np.ndarray:
    return np.array([0.8 + 0.3 * np.sin(3 * t), 0.1 * t, 0.6 + 0.1 * np.cos(2 * t),
                     np.cos(0.4 * t), 0.0, np.sin(0.4 * t), 0.0])


def test_mjcf_equalities_and_mocap_match_python_path_and_mujoco():
    """400 steps equal the Python path (1e-11) and follow mj_step within 10x MuJoCo's own spread (runs started
    ±1e-12 away in qvel: about 2e-6 in qpos by step 400; the contacts and the stiff weld amplify differences)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(EQUALITIES)
    md = mujoco.MjData(mm)
    near = [mujoco.MjData(mm) for _ in range(2)]
    for sign, other in zip((1.0, -1.0), near):
        other.qvel[:] += sign * 1e-12
    compiled, _, _, cc = build_mjcf_scene(EQUALITIES)
    python, _, _, cp = build_mjcf_scene(EQUALITIES)
    python._pipeline.features = ["the Python path, for comparison"]
    assert UncompiledFeatures(compiled) == []
    ports = [plant.get_mocap_pose_input_port() for plant in (compiled, python)]
    for k in range(400):
        pose = _hand_pose(k * mm.opt.timestep)
        for data in (md, *near):
            data.mocap_pos[0], data.mocap_quat[0] = pose[:3], pose[3:]
            mujoco.mj_step(mm, data)
        for plant, context, port in ((compiled, cc, ports[0]), (python, cp, ports[1])):
            port.FixValue(context, pose)
            plant._DiscreteStepUpdate(context, context.get_mutable_state())
        np.testing.assert_allclose(compiled.GetPositionsAndVelocities(cc), python.GetPositionsAndVelocities(cp),
                                   rtol=0, atol=1e-11, err_msg=f"step {k}")
    qpos, qvel = GetMujocoState(compiled, cc)
    spread_q = max(np.abs(other.qpos - md.qpos).max() for other in near)
    spread_v = max(np.abs(other.qvel - md.qvel).max() for other in near)
    assert 0 < spread_q < 1e-4 and 0 < spread_v < 1e-4
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=10 * spread_q)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=10 * spread_v)
    assert np.abs(md.qvel).max() > 0.1  # the mocap body dragged the box, the chains swung
    assert np.abs(md.efc_force[:md.ne]).max() > 0.1  # the equality rows carried force


# free boxes hung from world sites (MuJoCo's test/engine/testdata/equality_site.xml, no contact): a connect, a weak
# weld (torquescale 0.2) and a weld between site frames, and a body weld with a relpose; each starts 1 m from its
# anchor and swings and spins about it, so the welds' rotational J̇·v (ω in W) matters from the second step on
WELDS = """<mujoco><option viscosity="1"><flag contact="disable"/></option>
<default><geom type="box" size=".2" fromto=".2 .2 0 .2 .2 -2"/></default>
<worldbody>
  <site name="a1" pos="-2 0 0" euler="-90 0 0"/><body pos="-2 1 0"><freejoint/><geom/><site name="a2"/></body>
  <site name="b1" euler="-90 0 0"/><body pos="0 1 0"><freejoint/><geom/><site name="b2"/></body>
  <site name="c1" pos="2 0 0" euler="-90 0 0"/><body pos="2 1 0"><freejoint/><geom/><site name="c2"/></body>
  <body name="d" pos="4 1 0"><freejoint/><geom/></body>
</worldbody>
<equality>
  <connect site1="a1" site2="a2"/>
  <weld site1="b1" site2="b2" torquescale="0.2"/>
  <weld site1="c1" site2="c2"/>
  <weld body1="d" relpose="0 -1 0 0.7071 0.7071 0 0"/>
</equality>
</mujoco>"""


def test_site_and_body_welds_of_free_bodies_follow_mj_step():
    """100 steps of swinging, spinning welded free bodies equal mj_step to round-off (the quaternion rates of the
    welds' J̇·v take ω in W, as MuJoCo: with ω in the body frame they drifted 1e-3 from MuJoCo by step 100)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(WELDS)
    md = mujoco.MjData(mm)
    plant, _, _, context = build_mjcf_scene(WELDS)
    assert UncompiledFeatures(plant) == []
    for k in range(100):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, context.get_mutable_state())
    qpos, _ = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-12)
    assert np.abs(md.qvel).max() > 1.0


# MJCF tendon equalities over the tendon stage: a fixed tendon held at length0 + c0, a spatial tendon coupled to a
# fixed one by a quartic, a wrapping tendon coupled to a rope (equality tendons index the Model's tendon rows)
TENDON_EQUALITIES = """<mujoco model="ten_eq"><option timestep="0.002"/>
<worldbody><site name="anchor" pos="0 0 1"/>
<body name="b1" pos="0 0 1"><joint name="j1" axis="0 1 0" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04" mass="1"/><site name="s1" pos="0.2 0 0.05"/>
  <body name="b2" pos="0.3 0 0"><joint name="j2" axis="0 1 0" damping="0.1"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.035" mass="0.7"/>
    <geom name="wrapper" type="sphere" pos="0.15 0 0" size="0.05" contype="0" conaffinity="0"/>
    <site name="side" pos="0.15 0 0.1"/>
    <body name="b3" pos="0.3 0 0"><joint name="j3" axis="0 1 0" damping="0.1"/>
      <joint name="j4" axis="1 0 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03" mass="0.5"/><site name="s3" pos="0.2 0 0.04"/>
    </body></body></body>
<body name="slider" pos="0.5 0.5 1"><joint name="js" type="slide" axis="0 0 1" damping="0.2"/>
  <geom type="box" size="0.05 0.05 0.05" mass="0.3"/><site name="s4"/></body>
</worldbody>
<tendon>
  <fixed name="fix1"><joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed>
  <fixed name="fix2"><joint joint="j4" coef="2"/></fixed>
  <spatial name="spat"><site site="s1"/><site site="s3"/></spatial>
  <spatial name="wrap"><site site="anchor"/><site site="s1"/><geom geom="wrapper" sidesite="side"/><site site="s3"/>
  </spatial>
  <spatial name="rope" limited="true" range="0 2"><site site="anchor"/><site site="s4"/></spatial>
</tendon>
<equality>
  <tendon name="fixonly" tendon1="fix2" polycoef="0.1 0 0 0 0" solref="0.03 1.2"/>
  <tendon name="coupled" tendon1="spat" tendon2="fix1" polycoef="0.01 0.3 -0.2 0.1 0.05"
          solimp="0.8 0.9 0.002 0.4 2"/>
  <tendon name="wrapfix" tendon1="wrap" tendon2="rope" polycoef="0 -0.5 0 0 0"/>
</equality>
</mujoco>"""


def test_mjcf_tendon_equalities_match_python_path_and_mujoco():
    """MuJoCo's mj_instantiateEquality for tendons (residual L1 − L1₀ − P(L2 − L2₀), J = J1 − P'·J2) from the tendon
    stage's lengths and moment arms: 300 steps equal the Python path (1e-11) and mj_step (1e-6)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(TENDON_EQUALITIES)
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(4)
    md.qpos[:] = mm.qpos0 + rng.uniform(-0.3, 0.3, mm.nq)
    md.qvel[:] = rng.uniform(-1.0, 1.0, mm.nv)
    plants = []
    for python in (False, True):
        plant = MultibodyPlant(0.002)
        Parser(plant).AddModelsFromString(TENDON_EQUALITIES, "xml")
        plant.Finalize()
        if python:
            plant._pipeline.features = ["the Python path, for comparison"]
        context = plant.CreateDefaultContext()
        SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
        plants.append((plant, context))
    (compiled, cc), (python, cp) = plants
    assert UncompiledFeatures(compiled) == []
    for k in range(300):
        mujoco.mj_step(mm, md)
        for plant, context in plants:
            plant._DiscreteStepUpdate(context, context.get_mutable_state())
        np.testing.assert_allclose(compiled.GetPositionsAndVelocities(cc), python.GetPositionsAndVelocities(cp),
                                   rtol=0, atol=1e-11, err_msg=f"step {k}")
    assert compiled._pipeline.compiled is not None  # stepped compiled
    qpos, qvel = GetMujocoState(compiled, cc)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)
    assert np.abs(md.efc_force[:md.ne]).max() > 0.1  # the equality rows carried force


def _drake_style(python: bool, constraint: str):
    """A discrete plant of two free boxes and two hinged boxes with one (or two) of Drake's constraints."""
    plant = MultibodyPlant(1e-3)
    M = SpatialInertia(1.5, np.zeros(3), UnitInertia.SolidBox(0.1, 0.2, 0.3))
    A, B = plant.AddRigidBody("A", M), plant.AddRigidBody("B", M)
    C, D = plant.AddRigidBody("C", M), plant.AddRigidBody("D", M)
    hinge = plant.AddJoint(RevoluteJoint("hinge", plant.world_frame(), C.body_frame(), [0, 1, 0]))
    hinge2 = plant.AddJoint(RevoluteJoint("hinge2", plant.world_frame(), D.body_frame(), [1, 0, 0]))
    if constraint == "ball":
        plant.AddBallConstraint(A, [0.1, 0.0, 0.0], B, [-0.1, 0.05, 0.0])
    elif constraint == "weld":
        plant.AddWeldConstraint(A, RigidTransform(RollPitchYaw(0.1, 0.2, 0.3), [0.1, 0, 0]), B,
                                RigidTransform([-0.1, 0, 0.02]))
    elif constraint == "distance":
        plant.AddDistanceConstraint(A, [0.1, 0.0, 0.0], B, [-0.1, 0.0, 0.0], 0.3)
        plant.AddDistanceConstraint(A, [0.0, 0.1, 0.0], C, [0.0, 0.0, 0.2], 0.5, 2e3, 30.0)
    else:
        plant.AddCouplerConstraint(hinge, hinge2, 2.0, 0.1)
    plant.Finalize()
    if python:
        plant._pipeline.features = ["the Python path, for comparison"]
    context = plant.CreateDefaultContext()
    plant.SetFreeBodyPose(context, A, RigidTransform(RollPitchYaw(0.2, 0, 0.1), [0.0, 0.0, 1.0]))
    plant.SetFreeBodyPose(context, B, RigidTransform([0.25, 0.05, 1.1]))
    plant.SetVelocities(context, np.linspace(-1, 1, plant.num_velocities()))
    return plant, context


def _drake_scene(M, constraint: str):
    """_drake_style's scene built with module M (mallard.all or pydrake.all) and Drake's default approximation."""
    plant = M.MultibodyPlant(1e-3)
    I = M.SpatialInertia(1.5, np.zeros(3), M.UnitInertia.SolidBox(0.1, 0.2, 0.3))
    A, B = plant.AddRigidBody("A", I), plant.AddRigidBody("B", I)
    C, D = plant.AddRigidBody("C", I), plant.AddRigidBody("D", I)
    hinge = plant.AddJoint(M.RevoluteJoint("hinge", plant.world_frame(), C.body_frame(), [0, 1, 0]))
    hinge2 = plant.AddJoint(M.RevoluteJoint("hinge2", plant.world_frame(), D.body_frame(), [1, 0, 0]))
    if constraint == "ball":
        plant.AddBallConstraint(A, [0.1, 0.0, 0.0], B, [-0.1, 0.05, 0.0])
    elif constraint == "weld":
        plant.AddWeldConstraint(A, M.RigidTransform(M.RollPitchYaw(0.1, 0.2, 0.3), [0.1, 0, 0]), B,
                                M.RigidTransform([-0.1, 0, 0.02]))
    elif constraint == "distance":
        plant.AddDistanceConstraint(A, [0.1, 0.0, 0.0], B, [-0.1, 0.0, 0.0], 0.3)
        plant.AddDistanceConstraint(A, [0.0, 0.1, 0.0], C, [0.0, 0.0, 0.2], 0.5, 2e3, 30.0)
    else:
        plant.AddCouplerConstraint(hinge, hinge2, 2.0, 0.1)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    plant.SetFreeBodyPose(context, A, M.RigidTransform(M.RollPitchYaw(0.2, 0, 0.1), [0.0, 0.0, 1.0]))
    plant.SetFreeBodyPose(context, B, M.RigidTransform([0.25, 0.05, 1.1]))
    plant.SetVelocities(context, np.linspace(-1, 1, plant.num_velocities()))
    return plant, context


@pytest.mark.parametrize("constraint", ["ball", "weld", "distance", "coupler"])
def test_drake_constraints_match_pydrake(constraint):
    """Drake's ball, weld, distance (rigid and compliant) and coupler constraints step as Drake 1.51's SAP constraints
    (pipeline/drake_constraints.py) on the compiled step: the state after 0.3 s is pydrake's."""
    require_pydrake()
    import pydrake.all as pd
    out = []
    for M in (ma, pd):
        plant, context = _drake_scene(M, constraint)
        if M is ma:
            assert UncompiledFeatures(plant) == []
        sim = M.Simulator(plant, context)
        sim.AdvanceTo(0.3)
        out.append(plant.GetPositionsAndVelocities(context))
    np.testing.assert_allclose(out[0], out[1], rtol=0, atol=1e-8)
    assert np.abs(out[0][-plant.num_velocities():]).max() > 0.1


def test_coincident_distance_points_and_bad_mocap_poses_are_named():
    plant, context = _drake_style(False, "distance")
    A = plant.GetBodyByName("A")
    plant.SetFreeBodyPose(context, plant.GetBodyByName("B"), RigidTransform([0.2, 0.0, 1.0]))
    plant.SetFreeBodyPose(context, A, RigidTransform([0.0, 0.0, 1.0]))  # P (on A) and Q (on B) coincide
    x = plant.GetPositionsAndVelocities(context).copy()
    with pytest.raises(ValueError, match="Distance constraint 0.*coincide"):
        plant._DiscreteStepUpdate(context, context.get_mutable_state())
    np.testing.assert_array_equal(plant.GetPositionsAndVelocities(context), x)
    mjcf, _, _, mc = build_mjcf_scene(EQUALITIES)
    port = mjcf.get_mocap_pose_input_port()
    port.FixValue(mc, np.array([0.8, 0, 0.6, 0, 0, 0, 0.0]))
    with pytest.raises(ValueError, match="zero quaternion.*hand"):
        mjcf._DiscreteStepUpdate(mc, mc.get_mutable_state())
    port.FixValue(mc, np.array([np.nan, 0, 0.6, 1, 0, 0, 0.0]))
    with pytest.raises(RuntimeError, match="mocap_pose input has non-finite"):
        mjcf._DiscreteStepUpdate(mc, mc.get_mutable_state())
