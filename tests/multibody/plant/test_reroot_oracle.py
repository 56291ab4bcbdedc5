"""Welding World to a link that already has a parent joint re-roots the tree, as Drake's Finalize does: the joints
between that link and the old root are reversed (revolute, prismatic and weld only), with the same coordinates.
Poses, q/v layout, mass matrix, gravity forces, reaction forces, topology queries and a discrete simulation are
compared with pydrake's."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from oracles import require_pydrake

# base -(revolute j1)-> l1 -(prismatic j2)-> l2 -(weld w)-> tip -(revolute j3)-> hand: World is welded to `tip`,
# so j1, j2 and w are reversed and j3 is not.
URDF = """<robot name="r">
<link name="base"><inertial><origin xyz="0.05 0 0.02"/><mass value="1"/>
  <inertia ixx="0.1" iyy="0.12" izz="0.09" ixy="0.01" ixz="0" iyz="0"/></inertial></link>
<link name="l1"><inertial><origin xyz="0 0.03 0.2" rpy="0.1 0 0.2"/><mass value="2"/>
  <inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="l2"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
  <inertia ixx="0.01" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="tip"><inertial><mass value="0.3"/>
  <inertia ixx="0.003" iyy="0.003" izz="0.003" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="hand"><inertial><origin xyz="0 0 0.1"/><mass value="0.4"/>
  <inertia ixx="0.004" iyy="0.005" izz="0.002" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1" rpy="0 0.2 0"/>
  <axis xyz="0 1 0"/></joint>
<joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/><origin xyz="0 0 0.4" rpy="0.3 0 0"/>
  <axis xyz="0.6 0 0.8"/><limit lower="-1" upper="1" effort="10" velocity="2"/></joint>
<joint name="w" type="fixed"><parent link="l2"/><child link="tip"/><origin xyz="0.1 0.2 0.05" rpy="0.2 -0.1 0.4"/>
  </joint>
<joint name="j3" type="revolute"><parent link="tip"/><child link="hand"/><origin xyz="0 0 0.05"/>
  <axis xyz="1 0 0"/></joint>
<transmission type="SimpleTransmission" name="t1"><actuator name="a1"/><joint name="j1"/>
  <mechanicalReduction>1</mechanicalReduction></transmission>
<transmission type="SimpleTransmission" name="t2"><actuator name="a2"/><joint name="j2"/>
  <mechanicalReduction>1</mechanicalReduction></transmission>
</robot>"""

Q = np.array([0.4, -0.3, 0.7])  # in the plant's q order (read back from the joints' position_start)


def _build(ns: str, time_step: float = 0.0):
    plant_module = importlib.import_module(f"{ns}.multibody.plant")
    parsing = importlib.import_module(f"{ns}.multibody.parsing")
    plant = plant_module.MultibodyPlant(time_step)
    parsing.Parser(plant).AddModelsFromString(URDF, "urdf")
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("tip"))
    plant.Finalize()
    return plant


def _facts(ns: str) -> dict:
    plant = _build(ns)
    ctx = plant.CreateDefaultContext()
    joints = {plant.get_joint(i).name(): plant.get_joint(i) for i in plant.GetJointIndices()}
    starts = {n: (j.position_start(), j.velocity_start()) for n, j in joints.items()}
    q = np.zeros(3)
    for name, value in zip(("j1", "j2", "j3"), Q):
        q[joints[name].position_start()] = value
    plant.SetPositions(ctx, q)
    plant.SetVelocities(ctx, np.array([0.5, -1.0, 0.3]))
    plant.get_actuation_input_port().FixValue(ctx, np.array([0.2, -0.4]))
    poses = {b: plant.EvalBodyPoseInWorld(ctx, plant.GetBodyByName(b)).GetAsMatrix4()
             for b in ("base", "l1", "l2", "tip", "hand")}
    reactions = plant.get_reaction_forces_output_port().Eval(ctx)
    return {
        "starts": starts,
        "poses": poses,
        "M": plant.CalcMassMatrix(ctx),
        "tau_g": plant.CalcGravityGeneralizedForces(ctx),
        "Cv": plant.CalcBiasTerm(ctx),
        "reactions": {n: np.concatenate([reactions[int(j.index())].rotational(),
                                         reactions[int(j.index())].translational()]) for n, j in joints.items()},
        "welded": sorted(b.name() for b in plant.GetBodiesWeldedTo(plant.world_body())),
        "affected": {n: sorted(int(b) for b in plant.GetBodiesKinematicallyAffectedBy([joints[n].index()]))
                     for n in ("j1", "j2", "j3")},
        "vdot": plant.get_generalized_acceleration_output_port().Eval(ctx),
    }


def test_welding_world_to_a_child_link_reroots_as_pydrake():
    require_pydrake()
    mine, theirs = _facts("mallard"), _facts("pydrake")
    assert mine["starts"] == theirs["starts"]
    assert mine["welded"] == theirs["welded"] == ["l2", "tip", "world"]
    assert mine["affected"] == theirs["affected"]
    for body in mine["poses"]:
        np.testing.assert_allclose(mine["poses"][body], theirs["poses"][body], rtol=0, atol=1e-12, err_msg=body)
    for key in ("M", "tau_g", "Cv", "vdot"):
        np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-10, atol=1e-11, err_msg=key)
    for name in mine["reactions"]:
        np.testing.assert_allclose(mine["reactions"][name], theirs["reactions"][name], rtol=1e-9, atol=1e-10,
                                   err_msg=f"reaction force of joint {name}")


def test_rerooted_discrete_simulation_matches_pydrake():
    """One second of the re-rooted arm under gravity and a constant actuation, discrete (h = 1 ms): positions at the
    end as pydrake's."""
    require_pydrake()
    finals = []
    for ns in ("mallard", "pydrake"):
        analysis = importlib.import_module(f"{ns}.systems.analysis")
        plant = _build(ns, time_step=1e-3)
        sim = analysis.Simulator(plant)
        ctx = sim.get_mutable_context()
        plant.get_actuation_input_port().FixValue(ctx, np.array([0.2, -0.4]))
        plant.SetPositions(ctx, np.array([0.1, 0.2, -0.3]))
        sim.AdvanceTo(1.0)
        finals.append(plant.GetPositions(ctx))
    np.testing.assert_allclose(finals[0], finals[1], rtol=0, atol=1e-7)


def test_world_as_a_joints_child_is_reversed_as_pydrake():
    """A weld whose child frame is World's: the tree reverses it (Drake accepts it), and a loop through World is
    still an error naming the loop's bodies."""
    require_pydrake()
    out = []
    for ns in ("mallard", "pydrake"):
        plant_module = importlib.import_module(f"{ns}.multibody.plant")
        tree = importlib.import_module(f"{ns}.multibody.tree")
        math = importlib.import_module(f"{ns}.math")
        plant = plant_module.MultibodyPlant(0.0)
        inertia = tree.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3)
        a, c = plant.AddRigidBody("a", inertia), plant.AddRigidBody("c", inertia)
        plant.AddJoint(tree.RevoluteJoint("jc", a.body_frame(), c.body_frame(), [0, 0, 1]))
        plant.AddJoint(tree.WeldJoint("w", c.body_frame(), plant.world_frame(),
                                      math.RigidTransform(math.RollPitchYaw(0.1, 0.2, 0.3), [0.1, 0.2, 0.3])))
        plant.Finalize()
        ctx = plant.CreateDefaultContext()
        plant.SetPositions(ctx, [0.6])
        out.append([plant.EvalBodyPoseInWorld(ctx, b).GetAsMatrix4() for b in (a, c)])
    np.testing.assert_allclose(out[0], out[1], rtol=0, atol=1e-12)


def test_a_joint_drake_cannot_reverse_is_a_clear_error():
    """Only revolute, prismatic and weld joints can be reversed (Drake's rule); a ball joint names itself."""
    import mallard.multibody.plant as mp
    import mallard.multibody.tree as mt
    plant = mp.MultibodyPlant(0.0)
    inertia = mt.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3)
    a, c = plant.AddRigidBody("a", inertia), plant.AddRigidBody("c", inertia)
    plant.AddJoint(mt.BallRpyJoint("jc", a.body_frame(), c.body_frame()))
    plant.WeldFrames(plant.world_frame(), c.body_frame())
    with pytest.raises(ValueError, match="ball_rpy joint 'jc' would have to be reversed.*revolute, prismatic, weld"):
        plant.Finalize()


def _branching(ns: str):
    """A tree welded to World at a middle link `m` (its parent a1 and a1's other branches are reversed or moved),
    plus a free two-link model: q layout and mass-matrix diagonal."""
    plant_module = importlib.import_module(f"{ns}.multibody.plant")
    parsing = importlib.import_module(f"{ns}.multibody.parsing")

    def link(n):
        return (f'<link name="{n}"><inertial><mass value="1"/>'
                '<inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>')

    def joint(n, p, c, kind="revolute", axis="0 1 0"):
        return (f'<joint name="{n}" type="{kind}"><parent link="{p}"/><child link="{c}"/><origin xyz="0 0 0.1"/>'
                f'<axis xyz="{axis}"/></joint>')

    links = "".join(link(n) for n in ["base", "a1", "a2", "b1", "b2", "m", "m1", "m2"])
    joints = (joint("ja1", "base", "a1") + joint("ja2", "a1", "a2", "prismatic", "1 0 0") + joint("jb1", "base", "b1")
              + joint("jb2", "b1", "b2") + joint("jm", "a1", "m") + joint("jm1", "m", "m1")
              + joint("jm2", "m", "m2", "prismatic", "0 0 1"))
    plant = plant_module.MultibodyPlant(0.0)
    parsing.Parser(plant).AddModelsFromString(f'<robot name="r">{links}{joints}</robot>', "urdf")
    parsing.Parser(plant).AddModelsFromString(f'<robot name="s">{link("x")}{link("y")}{joint("jxy", "x", "y")}</robot>',
                                              "urdf")
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("m"))
    plant.Finalize()
    layout = sorted((plant.get_joint(i).position_start(), plant.get_joint(i).name()) for i in plant.GetJointIndices()
                    if plant.get_joint(i).num_positions())
    ctx = plant.CreateDefaultContext()
    plant.SetPositions(ctx, np.linspace(0.1, 0.9, plant.num_positions()))
    return layout, plant.CalcMassMatrix(ctx)


def test_branching_reroot_layout_matches_pydrake():
    require_pydrake()
    (layout, M), (layout_d, M_d) = _branching("mallard"), _branching("pydrake")
    assert layout == layout_d
    np.testing.assert_allclose(M, M_d, rtol=1e-12, atol=1e-12)
