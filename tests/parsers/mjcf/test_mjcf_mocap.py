"""MJCF mocap bodies posed by the plant's mocap_pose input port, against MuJoCo's d.mocap_pos / d.mocap_quat."""
from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import SetMujocoState
from mallard.multibody.mjcf.keyframes import SetMujocoKeyframe
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder

PUSH = """
<mujoco model="push">
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="pusher" mocap="true" pos="-0.12 0 0.05" quat="0.9987 0 0 0.05">
      <geom name="p" type="box" size=".05 .08 .04"/>
      <body name="tip" pos="0 0 0.06"><geom type="sphere" size=".02" contype="0" conaffinity="0"/>
        <site name="tip" pos=".01 .02 0"/></body>
    </body>
    <body name="box" pos="0 0 0.05">
      <freejoint/>
      <geom name="b" type="box" size=".05 .05 .05" mass="0.5"/>
    </body>
  </worldbody>
  <sensor>
    <framepos objtype="site" objname="tip"/><framequat objtype="body" objname="pusher"/>
    <framelinvel objtype="site" objname="tip"/><frameangvel objtype="body" objname="pusher"/>
    <framepos objtype="body" objname="box" reftype="site" refname="tip"/>
  </sensor>
  <keyframe>
    <key name="k" qpos="0.1 0.2 0.05 1 0 0 0" mpos="0.3 -0.2 0.5" mquat="0 1 1 0"/>
  </keyframe>
</mujoco>
"""


def _load(path_or_text, tmp_path: pathlib.Path, scene_graph: bool):
    mujoco = require_mujoco()
    path = pathlib.Path(path_or_text) if not str(path_or_text).lstrip().startswith("<") else None
    if path is None:
        path = tmp_path / "model.xml"
        path.write_text(path_or_text)
    mm = mujoco.MjModel.from_xml_path(str(path))
    root = None
    if scene_graph:
        builder = DiagramBuilder()
        plant, _ = AddMultibodyPlantSceneGraph(builder, float(mm.opt.timestep))
    else:
        plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    plant.set_constraint_solver_options(tolerance=1e-14)
    mm.opt.tolerance = 1e-14
    plant.Finalize()
    if scene_graph:
        root = builder.Build().CreateDefaultContext()
        context = plant.GetMyMutableContextFromRoot(root)
    else:
        context = plant.CreateDefaultContext()
    return mujoco, mm, plant, root, context


def _assert_body_poses(plant, context, mm, md, tol):
    pm = plant._mjcf_maps[0]
    for i in range(1, mm.nbody):
        X = plant.EvalBodyPoseInWorld(context, pm.bodies[i])
        np.testing.assert_allclose(X.translation(), md.xpos[i], atol=tol, rtol=0, err_msg=f"body {i}")
        np.testing.assert_allclose(X.rotation().matrix(), md.xmat[i].reshape(3, 3), atol=tol, rtol=0,
                                   err_msg=f"body {i}")


def test_body_poses_follow_the_mocap_input(models_dir, tmp_path):
    """sphere_cylinder.xml: random mocap poses (unnormalized quaternions) on the port move the mocap bodies and
    their geometry as mj_kinematics does (1e-12); their velocity is zero, as MuJoCo's cvel."""
    path = models_dir / "mujoco" / "testdata" / "collision_primitive" / "sphere_cylinder.xml"
    mujoco, mm, plant, root, context = _load(path, tmp_path, scene_graph=True)
    md = mujoco.MjData(mm)
    port = plant.get_mocap_pose_input_port()
    assert port.get_name() == "mocap_pose" and port.size() == 7 * mm.nmocap == 28
    mujoco.mj_forward(mm, md)  # unconnected: the MJCF poses
    _assert_body_poses(plant, context, mm, md, 1e-12)
    rng = np.random.default_rng(3)
    md.mocap_pos[:] = rng.normal(size=(mm.nmocap, 3))
    md.mocap_quat[:] = rng.normal(size=(mm.nmocap, 4))
    md.qpos[:] = mm.qpos0
    mujoco.mj_forward(mm, md)
    port.FixValue(context, np.hstack([md.mocap_pos, md.mocap_quat]).ravel())
    _assert_body_poses(plant, context, mm, md, 1e-12)
    pm = plant._mjcf_maps[0]
    mocap_ids = [i for i in range(mm.nbody) if mm.body_mocapid[i] >= 0]
    for i in mocap_ids:
        V = plant.EvalBodySpatialVelocityInWorld(context, pm.bodies[i]).get_coeffs()
        np.testing.assert_array_equal(V, 0.0)
    # SceneGraph sees the moved geometry: its pose output is the mocap pose
    query = plant.get_geometry_query_input_port().Eval(context)
    inspector = query.inspector()
    for g in range(mm.ngeom):
        gid = pm.geoms[g][0]
        if gid is None:
            continue
        X_WG = query.GetPoseInWorld(gid)
        np.testing.assert_allclose(X_WG.translation(), md.geom_xpos[g], atol=1e-12, rtol=0,
                                   err_msg=inspector.GetName(gid))


def test_mocap_pusher_moves_a_free_box(tmp_path):
    """A mocap box driven along a path pushes a free box (no gravity): states and frame sensors (of the mocap body
    and relative to it) over 200 plant steps against mj_step (1e-6)."""
    mujoco, mm, plant, root, context = _load(PUSH, tmp_path, scene_graph=True)
    md = mujoco.MjData(mm)
    port = plant.get_mocap_pose_input_port()
    sensors = GetMujocoSensorOutputPort(plant)
    state = context.get_mutable_state()
    contacts = 0
    for step in range(200):
        t = step * mm.opt.timestep
        md.mocap_pos[0] = [-0.12 + 0.6 * t, 0.02 * np.sin(10 * t), 0.05]
        md.mocap_quat[0] = [np.cos(0.5 * t), 0.0, 0.0, np.sin(0.5 * t)]
        port.FixValue(context, np.concatenate([md.mocap_pos[0], md.mocap_quat[0]]))
        np.testing.assert_allclose(plant.GetPositions(context), _plant_q(md.qpos), atol=1e-6, rtol=0,
                                   err_msg=f"step {step}")
        if step == 0:  # before the first step the port holds the sensors of this state, as mj_forward
            mujoco.mj_forward(mm, md)  # sensors of the mocap body: its pose from the input, zero velocity
        # after a step: those of the step's starting state (with that step's mocap pose), as mj_step leaves them
        np.testing.assert_allclose(sensors.Eval(context), md.sensordata, atol=1e-6, rtol=0, err_msg=f"step {step}")
        mujoco.mj_step(mm, md)
        contacts = max(contacts, sum(1 for c in md.contact[:md.ncon] if {c.geom1, c.geom2} == {0, 2}))
        plant._DiscreteStepUpdate(context, state)
        root.SetTime(md.time)
    np.testing.assert_allclose(plant.GetPositions(context), _plant_q(md.qpos), atol=1e-6, rtol=0)
    np.testing.assert_allclose(plant.GetVelocities(context)[3:], md.qvel[:3], atol=1e-6, rtol=0)
    assert contacts >= 1 and md.qpos[0] > 0.05  # the box was pushed


def _plant_q(qpos: np.ndarray) -> np.ndarray:
    """A free joint's MuJoCo qpos [p; quat] as the plant's [quat; p]."""
    return np.concatenate([qpos[3:7], qpos[:3]])


def test_keyframe_sets_the_mocap_poses(tmp_path):
    """SetMujocoKeyframe: mpos / mquat become the context's mocap poses (the unconnected port's value)."""
    mujoco, mm, plant, _root, context = _load(PUSH, tmp_path, scene_graph=False)
    md = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    mujoco.mj_forward(mm, md)
    other = plant.CreateDefaultContext()
    SetMujocoKeyframe(plant, context, "k")
    _assert_body_poses(plant, context, mm, md, 1e-12)
    mujoco.mj_resetData(mm, md)  # a fresh context keeps the MJCF pose
    mujoco.mj_forward(mm, md)
    _assert_body_poses(plant, other, mm, md, 1e-12)


def test_mocap_errors(tmp_path):
    mujoco, mm, plant, _root, context = _load(PUSH, tmp_path, scene_graph=False)
    port = plant.get_mocap_pose_input_port()
    port.FixValue(context, np.array([0, 0, 0, 0, 0, 0, 0.0]))
    with pytest.raises(ValueError, match="zero quaternion.*pusher"):
        plant.EvalBodyPoseInWorld(context, plant.GetBodyByName("pusher"))
    port.FixValue(context, np.array([np.nan, 0, 0, 1, 0, 0, 0.0]))
    with pytest.raises(RuntimeError, match="mocap_pose input has non-finite"):
        plant.EvalBodyPoseInWorld(context, plant.GetBodyByName("pusher"))
    plain = MultibodyPlant(0.0)
    plain.Finalize()
    with pytest.raises(RuntimeError, match="no mocap bodies"):
        plain.get_mocap_pose_input_port()
    SetMujocoState(plant, context, mm.qpos0)  # the state API is unaffected


def test_two_models_share_the_port_in_load_order(tmp_path):
    """Two MJCF models: the port holds model 1's mocap poses then model 2's; a keyframe of model 2 sets only its
    own mocap poses."""
    mujoco = require_mujoco()
    path = tmp_path / "push.xml"
    path.write_text(PUSH)
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    plant = MultibodyPlant(0.002)
    parser = Parser(plant)
    parser.SetAutoRenaming(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (first,) = parser.AddModels(str(path))
        (second,) = parser.AddModels(str(path))
    plant.Finalize()
    assert plant.get_mocap_pose_input_port().size() == 14
    context = plant.CreateDefaultContext()
    SetMujocoKeyframe(plant, context, "k", model_instance=second)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    mujoco.mj_forward(mm, md)
    X2 = plant.EvalBodyPoseInWorld(context, plant.GetBodyByName("pusher", second))
    np.testing.assert_allclose(X2.translation(), md.xpos[1], atol=1e-12, rtol=0)
    np.testing.assert_allclose(X2.rotation().matrix(), md.xmat[1].reshape(3, 3), atol=1e-12, rtol=0)
    X1 = plant.EvalBodyPoseInWorld(context, plant.GetBodyByName("pusher", first))
    np.testing.assert_allclose(X1.translation(), [-0.12, 0, 0.05], atol=1e-12, rtol=0)
    pose = np.array([1, 2, 3, 0, 0, 0, 1.0, 4, 5, 6, 1, 0, 0, 0])
    plant.get_mocap_pose_input_port().FixValue(context, pose)
    tip = plant.GetBodyByName("tip", second)
    np.testing.assert_allclose(plant.EvalBodyPoseInWorld(context, tip).translation(), [4, 5, 6.06], atol=1e-12)
    R1 = plant.EvalBodyPoseInWorld(context, plant.GetBodyByName("pusher", first)).rotation().matrix()
    np.testing.assert_allclose(R1, np.diag([-1.0, -1.0, 1.0]), atol=1e-12)


# mocap boxes through the floor, a static wall and each other; a hinged arm under a mocap body; a free box on a mocap
MOCAP_CONTACTS = """<mujoco model="mocap_contacts"><option><flag filterparent="{flag}"/></option>
<worldbody><geom name="floor" type="plane" size="2 2 .1"/>
  <body name="wall" pos="0.3 0 0.1"><geom name="wall" type="box" size=".02 .3 .1"/></body>
  <body name="m1" mocap="true" pos="0.2 0 0.09"><geom name="m1" type="box" size=".1 .1 .1"/></body>
  <body name="m2" mocap="true" pos="0.2 0.18 0.12"><geom name="m2" type="box" size=".1 .1 .1"/></body>
  <body name="m3" mocap="true" pos="-0.5 0 0.09"><geom name="m3" type="box" size=".1 .1 .1"/>
    <body name="arm" pos="0 0 0.05"><joint type="hinge" axis="0 1 0"/>
      <geom name="arm" type="capsule" fromto="0 0 0 0.25 0 -0.08" size=".03"/>
      <body name="hand" pos="0.25 0 -0.08"><geom name="hand" type="sphere" size=".07"/></body></body></body>
  <body name="free" pos="0.15 -0.1 0.22"><freejoint/><geom name="free" type="box" size=".05 .05 .05"/></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("flag", ["enable", "disable"])
def test_mocap_contacts_are_filtered_as_in_mujoco(flag):
    """MuJoCo 4 skips pairs of dof-less bodies (a mocap body against the world, a static body or another mocap
    body) and, with filterparent, a body and its parent's weld group: the contact list equals mj_collision's."""
    mujoco = require_mujoco()
    text = MOCAP_CONTACTS.format(flag=flag)
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModelsFromString(text, "xml")
    plant.Finalize()
    root = builder.Build().CreateDefaultContext()
    SetMujocoState(plant, plant.GetMyContextFromRoot(root), md.qpos, md.qvel)
    contacts = scene_graph.get_query_output_port().Eval(scene_graph.GetMyContextFromRoot(root)).ComputeContactPoints()
    geom_name = [mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_GEOM, g) for g in range(mm.ngeom)]
    name = {plant._mjcf_maps[0].geoms[g][0]: geom_name[g] for g in range(mm.ngeom)}
    ref = sorted((geom_name[c.geom1], geom_name[c.geom2], c.dist, *c.pos, *c.frame)
                 for c in md.contact[:md.ncon])
    mine = sorted((name[a], name[b], d, *p, *f.ravel()) for a, b, d, p, f in
                  zip(contacts.id_1, contacts.id_2, contacts.dist, contacts.pos_W, contacts.frame_W))
    pairs = {(r[0], r[1]) for r in ref}
    assert pairs == ({("floor", "hand"), ("m1", "free")} | ({("arm", "m3")} if flag == "disable" else set()))
    assert [r[:2] for r in mine] == [r[:2] for r in ref]
    np.testing.assert_allclose(np.array([r[2:] for r in mine]), np.array([r[2:] for r in ref]), rtol=0, atol=1e-9)
