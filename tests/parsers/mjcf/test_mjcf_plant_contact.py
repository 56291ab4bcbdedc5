"""MJCF models with geometry (AddMultibodyPlantSceneGraph): collision geometry with MuJoCo contact parameters,
MuJoCo's body-pair collision filtering, and whole simulations with contact against mj_step."""
from __future__ import annotations

import numpy as np
import pytest

from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.geometry.properties import GetMujocoContactParameters
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import GetMjcfPlantMap, GetMujocoState, SetMujocoState

DROP = """<mujoco model="drop"><option timestep="0.002"/>
<worldbody><geom name="floor" type="plane" size="5 5 .1"/>
<body pos="0 0 0.3"><freejoint/><geom type="sphere" size="0.1" solref="0.01 0.8"/><site name="imu"/></body>
<body pos="0.5 0 0.3" euler="10 20 0"><freejoint/><geom type="box" size="0.1 0.05 0.08" friction="0.6"/></body>
<body pos="-0.5 0 0.2" euler="0 0 20"><freejoint/>
  <geom type="capsule" condim="1" solimp=".9 .99 .003" size=".027" fromto="-.07 -.01 0 .14 -.03 0"/></body>
</worldbody><sensor><accelerometer site="imu"/><framepos objtype="site" objname="imu"/></sensor></mujoco>"""


def _build(text=None, path=None, time_step=0.002):
    return build_mjcf_scene(text, path, time_step)


def _compare_steps(mujoco, mm, md, plant, context, steps, atol):
    state = context.get_mutable_state()
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=atol)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=atol)


def test_geoms_carry_mujoco_contact_parameters():
    plant, scene_graph, root, context = _build(DROP)
    inspector = scene_graph.model_inspector()
    pm = GetMjcfPlantMap(plant)
    collision = [cid for cid, _ in pm.geoms]
    assert all(cid is not None for cid in collision) and len(collision) == 4
    params = GetMujocoContactParameters(inspector.GetProximityProperties(collision[1]))
    assert params.solref == (0.01, 0.8)
    params = GetMujocoContactParameters(inspector.GetProximityProperties(collision[3]))
    assert params.condim == 1 and params.solimp[:3] == (0.9, 0.99, 0.003)
    assert plant.num_visual_geometries() == 4


def test_primitives_dropped_on_plane_match_mujoco():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(DROP)
    md = mujoco.MjData(mm)
    plant, _, _, context = _build(DROP, time_step=mm.opt.timestep)
    _compare_steps(mujoco, mm, md, plant, context, 200, 1e-9)
    assert md.ncon >= 5  # resting contacts, box on plane with 4 corners
    # the IMU on the resting sphere reads the contact-supported proper acceleration (≈ +g up), as mj_step leaves
    # MuJoCo's (at the last step's starting state)
    data = GetMujocoSensorOutputPort(plant).Eval(context)
    np.testing.assert_allclose(data, md.sensordata, rtol=0, atol=1e-6)
    assert data[2] == pytest.approx(9.81, abs=0.05)


def test_humanoid_falls_as_in_mujoco(models_dir):
    """Limits, armature, damping, multi-joint bodies, MuJoCo's parent-child collision filtering and the
    waist/thigh <exclude> pairs, with the feet landing on the floor (started 1 cm up: at qpos0 the feet touch
    the floor exactly, where a 1e-17 difference decides whether a contact is active)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "model" / "humanoid.xml"
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    md.qpos[2] += 0.01
    plant, _, _, context = _build(path=path, time_step=mm.opt.timestep)
    SetMujocoState(plant, context, md.qpos, md.qvel)
    _compare_steps(mujoco, mm, md, plant, context, 100, 1e-9)
    assert md.ncon == 8


@pytest.mark.parametrize("flag", [True, False])
def test_parent_child_filtering_follows_filterparent(flag):
    text = f"""<mujoco model="f"><option><flag filterparent="{'enable' if flag else 'disable'}"/></option>
    <worldbody><body name="a" pos="0 0 1"><freejoint/><geom size="0.1"/>
      <body name="b" pos="0.05 0 0"><joint type="hinge" axis="0 0 1"/><joint type="hinge" axis="0 1 0"/>
        <geom size="0.1"/></body></body></worldbody></mujoco>"""
    plant, scene_graph, root, context = _build(text)
    pm = GetMjcfPlantMap(plant)
    query = plant.get_geometry_query_input_port().Eval(context)
    pairs = query.ComputePointPairPenetration()
    assert len(pairs) == (0 if flag else 1)
    assert pm.bodies[2].name() == "b" and plant.HasBodyNamed("b0")


def test_keyframe_in_a_diagram_context(models_dir):
    """SetMujocoKeyframe on the plant's subcontext sets the state (the diagram owns the time)."""
    from mallard.multibody.mjcf.keyframes import SetMujocoKeyframe
    plant, _, root, context = _build(path=models_dir / "mujoco" / "model" / "humanoid.xml", time_step=0.005)
    key = SetMujocoKeyframe(plant, context, "squat")
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_array_equal(qpos, key.qpos)
    np.testing.assert_array_equal(qvel, key.qvel)
    assert root.get_time() == 0.0


def test_override_flag_gives_every_geom_the_option_parameters():
    text = DROP.replace('<option timestep="0.002"/>', '<option timestep="0.002" o_solref="0.05 0.5" o_margin="0.01" '
                        'o_friction="0.3 0.3 0.01 0.001 0.001" o_solimp="0.8 0.9 0.01 0.5 2">'
                        '<flag override="enable"/></option>')
    plant, scene_graph, _, _ = _build(text)
    inspector = scene_graph.model_inspector()
    for cid, _ in GetMjcfPlantMap(plant).geoms:
        params = GetMujocoContactParameters(inspector.GetProximityProperties(cid))
        assert params.solref == (0.05, 0.5) and params.margin == 0.01
        assert params.friction == (0.3, 0.01, 0.001) and params.solimp == (0.8, 0.9, 0.01, 0.5, 2.0)


def test_weld_group_and_parent_filtering_equals_mujoco_pairs():
    """Overlapping spheres on world-welded bodies, a free body with a welded child, a hinged child and grandchild
    and an <exclude>: the colliding geom pairs are MuJoCo's (its weld-group, filterparent and exclude rules, declared
    per weld group rather than per body pair)."""
    mujoco = require_mujoco()
    text = """<mujoco model="w"><worldbody>
      <body name="s1"><geom size="0.3"/><body name="s2" pos="0.1 0 0"><geom size="0.3"/></body></body>
      <body name="s3" pos="0 0.1 0"><geom size="0.3"/></body>
      <body name="a" pos="0 0 0.2"><freejoint/><geom size="0.3"/>
        <body name="aw" pos="0.1 0 0"><geom size="0.3"/>
          <body name="c" pos="0 0.1 0"><joint type="hinge" axis="0 0 1"/><geom size="0.3"/>
            <body name="d" pos="0 0.1 0"><joint type="hinge" axis="0 1 0"/><geom size="0.3"/>
              <body name="e" pos="0.1 0 0"><joint type="hinge" axis="1 0 0"/><geom size="0.3"/></body>
            </body></body></body></body>
      <body name="f" pos="0 0 0.4"><freejoint/><geom size="0.3"/></body>
    </worldbody><contact><exclude body1="a" body2="d"/></contact></mujoco>"""
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    expected = {tuple(sorted(map(int, c.geom))) for c in md.contact}
    plant, scene_graph, root, context = _build(text)
    index = {cid: i for i, (cid, _) in enumerate(GetMjcfPlantMap(plant).geoms)}
    query = plant.get_geometry_query_input_port().Eval(context)
    got = {tuple(sorted((index[p.id_A], index[p.id_B]))) for p in query.ComputePointPairPenetration()}
    assert got == expected and len(expected) == 27
