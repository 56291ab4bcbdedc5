"""Causes found by the MuJoCo Menagerie corpus (benchmarks/mujoco_corpus.py), each on a small model the test
writes, compared against the MuJoCo oracle: mesh files read as MuJoCo's decoders read them (OBJ polygons, first
shape only, binary STL), MuJoCo's mesh volume/centre/inertia rules for every inertia mode (degenerate faces, open
meshes), a default-class tendon springlength, attach with a prefix and its assets, lenient attribute values,
an actuator naming both plugin and instance, and a zero-DOF model with contacts and a tendon."""
from __future__ import annotations

import struct
import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfError, load_mjcf
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

# a box-like solid written with quads and a pentagon (non-planar quad: the split diagonal changes the volume),
# a degenerate (zero-area) triangle, and a second object whose faces MuJoCo ignores
OBJ = """# test solid
o first
v 0 0 0
v 1 0 0
v 1 1 0.2
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
v 0.5 0 0
f 1 4 3 2
f 5 6 7 8
f 1 9 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
f 1 9 2
o ignored
v 5 5 5
f 1 2 10
"""


def _stl(tris: np.ndarray) -> bytes:
    out = [b"\0" * 80, struct.pack("<I", len(tris))]
    for t in tris:
        out.append(struct.pack("<3f", 0, 0, 0) + struct.pack("<9f", *np.asarray(t, float).ravel()) + b"\0\0")
    return b"".join(out)


def _open_box_stl() -> bytes:
    """A unit cube without its top face (open: legacy and exact volumes differ), plus a zero-area sliver."""
    v = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
    faces = [(0, 2, 1), (0, 3, 2), (0, 1, 5), (0, 5, 4), (1, 2, 6), (1, 6, 5), (2, 3, 7), (2, 7, 6),
             (3, 0, 4), (3, 4, 7), (0, 1, 1)]
    return _stl(v[np.array(faces)] * [0.1, 0.2, 0.3])


def _compare_bodies(mm, model, rtol=1e-9):
    assert len(model.bodies) == mm.nbody
    for i, b in enumerate(model.bodies):
        assert b.mass == pytest.approx(mm.body_mass[i], rel=rtol, abs=1e-300), f"body {i} mass"
        np.testing.assert_allclose(b.inertia, mm.body_inertia[i], rtol=rtol, atol=0, err_msg=f"body {i} inertia")
        np.testing.assert_allclose(b.ipos, mm.body_ipos[i], rtol=0, atol=1e-12, err_msg=f"body {i} ipos")


def _load_both(xml: str):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(xml)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mujoco, mm, load_mjcf(xml)


@pytest.mark.parametrize("inertia", ["legacy", "exact", "convex", "shell"])
def test_obj_polygons_and_degenerate_faces_give_mujocos_mass(tmp_path, inertia):
    (tmp_path / "solid.obj").write_text(OBJ)
    if inertia == "exact":  # MuJoCo refuses inconsistent orientations with inertia="exact": drop the sliver face
        (tmp_path / "solid.obj").write_text(OBJ.replace("f 1 9 2\n", ""))
    xml = f"""<mujoco><compiler meshdir="{tmp_path}"/><asset>
      <mesh name="m" file="solid.obj" inertia="{inertia}" scale="0.1 0.2 0.3"/></asset>
      <worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>"""
    _, mm, model = _load_both(xml)
    assert mm.mesh_vertnum[0] == len(model.meshes[0].vertices) and mm.mesh_facenum[0] == len(model.meshes[0].faces)
    _compare_bodies(mm, model)


@pytest.mark.parametrize("inertia", ["legacy", "shell"])
def test_open_stl_mesh_with_degenerate_face_gives_mujocos_mass(tmp_path, inertia):
    (tmp_path / "open.stl").write_bytes(_open_box_stl())
    xml = f"""<mujoco><asset><mesh name="m" file="{tmp_path / 'open.stl'}" inertia="{inertia}"/></asset>
      <worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>"""
    _, mm, model = _load_both(xml)
    assert mm.mesh_vertnum[0] == len(model.meshes[0].vertices) == 8
    _compare_bodies(mm, model)


def test_default_class_tendon_springlength_is_both_ends():
    xml = """<mujoco><default><default class="t"><tendon springlength="0.021336" stiffness="100"/></default>
      </default><worldbody><site name="a"/><body pos="0 0 -.1"><joint type="slide" axis="0 0 1"/>
      <geom size=".01"/><site name="b"/></body></worldbody>
      <tendon><spatial class="t"><site site="a"/><site site="b"/></spatial>
      <spatial springlength="0.05"><site site="a"/><site site="b"/></spatial></tendon></mujoco>"""
    _, mm, model = _load_both(xml)
    for t in range(mm.ntendon):
        np.testing.assert_array_equal(model.tendons[t].lengthspring, mm.tendon_lengthspring[t])
    np.testing.assert_array_equal(mm.tendon_lengthspring[0], [0.021336, 0.021336])


def test_attach_with_prefix_finds_its_assets(tmp_path):
    (tmp_path / "part.obj").write_text(OBJ)
    (tmp_path / "child.xml").write_text(f"""<mujoco model="child"><compiler meshdir="{tmp_path}"/>
      <asset><material name="black" rgba=".1 .1 .1 1"/><mesh name="m" file="part.obj" scale=".1 .1 .1"/></asset>
      <worldbody><body name="link"><joint axis="0 1 0"/><geom type="mesh" mesh="m" material="black"/></body>
      </worldbody></mujoco>""")
    xml = f"""<mujoco><asset><model name="child" file="{tmp_path / 'child.xml'}"/>
      <material name="black" rgba="0 0 0 1"/></asset>
      <worldbody><body name="base"><attach model="child" body="link" prefix="c_"/></body></worldbody></mujoco>"""
    mujoco, mm, model = _load_both(xml)
    _compare_bodies(mm, model)
    g = model.geoms[0]
    assert g.material == "c_black" == mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_MATERIAL, mm.geom_matid[0])
    assert model.meshes[0].name == "c_m" == mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_MESH, 0)


ARM = """<mujoco model="arm"><compiler angle="degree"/>
  <worldbody>
    <body name="base" pos="0 0 1"><joint name="j0" axis="0 1 0"/><geom type="capsule" size=".05" fromto="0 0 0 .3 0 0"/>
      <body name="link" pos=".3 0 0"><joint axis="0 1 0" ref="30"/><geom size=".06" pos=".2 0 0"/>
        <body pos=".2 0 0"><joint type="ball"/><geom size=".03" pos=".05 0 0"/></body></body></body>
    <body name="ball" pos="1 0 1" euler="0 0 40"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body name="mc" mocap="true" pos="0 1 0"><geom size=".1" contype="0" conaffinity="0"/></body>
  </worldbody>
  <actuator><position name="a0" joint="j0" kp="10"/><general name="a1" joint="j0" dyntype="filter" dynprm=".1"/>
  </actuator>
  <keyframe>
    <key name="up" qpos=".5 -.3 1 0 0 0 1 0 1.5 .9 .1 .2 .3" qvel="1 2 0 0 0 0 0 0 0 0 0" ctrl=".4 .2" act=".7"
         time="1.5" mpos="0 2 0"/>
    <key name="down" qpos="-.5 .3 .7"/>
  </keyframe></mujoco>"""


def test_attached_models_bring_their_keyframes_as_in_mujoco(tmp_path):
    """MuJoCo 4 merges an attached model's keyframes (prefixed) after the model's own: values on the elements the
    attach copies (raw, not moved by the attach frame), defaults elsewhere; inside a replicate only the first copy
    takes them; elements an attach leaves behind keep their values for a later attach of the same asset; short
    vectors are completed with the copy's defaults. (MuJoCo's model/humanoid/22_humanoids.xml lost its keyframe;
    the model's own joints before the attaches put the attached joints past the actuator count, as in
    test/engine/testdata/island/2humanoid100.xml.)"""
    (tmp_path / "arm.xml").write_text(ARM)
    xml = f"""<mujoco><asset><model name="arm" file="{tmp_path / 'arm.xml'}"/></asset>
      <worldbody>
        <body pos="0 0 2"><joint type="slide" axis="0 0 1"/><geom size=".1"/></body>
        <replicate count="20" offset=".2 0 0"><body pos="0 3 1"><joint/><geom size=".05"/></body></replicate>
        <replicate count="3" offset="0 1 0" sep="_">
          <frame pos="0 0 .5" euler="0 0 30"><attach model="arm" body="base" prefix="r"/></frame></replicate>
        <frame pos="3 0 0"><attach model="arm" prefix="L/"/></frame>
        <replicate count="2" offset="2 0 0"><replicate count="2" offset="0 2 0">
          <attach model="arm" body="base" prefix="n"/></replicate></replicate>
      </worldbody>
      <keyframe><key name="home" qpos=".25"/></keyframe></mujoco>"""
    _, mm, model = _load_both(xml)
    assert [k.name for k in model.keys] == [mm.key(i).name for i in range(mm.nkey)] == [
        "home", "rup", "rdown", "L/up", "L/down", "nup", "ndown"]
    for i, k in enumerate(model.keys):
        assert k.time == mm.key_time[i]
        for f in ("qpos", "qvel", "act", "ctrl", "mpos", "mquat"):
            np.testing.assert_allclose(getattr(k, f), getattr(mm, "key_" + f)[i], rtol=0, atol=1e-15,
                                       err_msg=f"key {k.name} {f}")


def test_lenient_values_load_as_in_mujoco():
    xml = """<mujoco><worldbody><body><freejoint/><geom size=".1" rgba=""/>
      <camera name="c" resolution="100 100" focalpixel="66.5 66.5" sensorsize="0.004 0.004"/></body>
      </worldbody></mujoco>"""
    _, mm, model = _load_both(xml)
    np.testing.assert_array_equal(model.geoms[0].rgba, mm.geom_rgba[0])
    _compare_bodies(mm, model)


def test_zero_dof_model_with_contacts_and_tendon_steps():
    xml = """<mujoco><worldbody><geom type="plane" size="1 1 .1"/><body pos="0 0 .05"><geom size=".1"/></body>
      <site name="a" pos="0 0 1"/><site name="b" pos="0 0 2"/></worldbody>
      <tendon><spatial><site site="a"/><site site="b"/></spatial></tendon></mujoco>"""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    mujoco.mj_step(mm, md)
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, mm.opt.timestep)
    Parser(builder).AddModelsFromString(xml, "xml")
    plant.Finalize()
    sim = Simulator(builder.Build())
    ctx = plant.GetMyContextFromRoot(sim.get_context())
    assert plant.num_positions() == mm.nq == 0 and plant.num_velocities() == mm.nv == 0
    sim.AdvanceTo(10 * mm.opt.timestep)
    # world-welded bodies are never collided with each other, as in MuJoCo
    assert plant.get_contact_results_output_port().Eval(ctx).num_point_pair_contacts() == md.ncon == 0


@pytest.mark.parametrize("xml, match", [
    ('<geom size=".1" surfacevel="1 0 0"/>', r":1: <geom>: attribute 'surfacevel': geom surface velocities"),
    ('<joint stiffness="1 2 3"/><geom size=".1"/>', r":1: <joint>: attribute 'stiffness': polynomial stiffness"),
    ('<freejoint/><geom size=".1"/></body></worldbody><sensor><contact/></sensor><worldbody><body>',
     r":1: <contact>: <sensor><contact>: contact sensors: a MuJoCo 4 feature"),
])
def test_unsupported_mujoco4_features_are_named(xml, match):
    with pytest.raises(MjcfError, match=match):
        load_mjcf(f"<mujoco><worldbody><body>{xml}</body></worldbody></mujoco>")


def test_reference_to_a_flexcomp_body_names_the_ignored_flexcomp():
    """MuJoCo's model/flex/flag.xml: a <connect> to a body of a <flexcomp> (kept but ignored) names the flexcomp."""
    xml = """<mujoco><worldbody><body name="pin">
      <flexcomp type="grid" count="2 2 1" spacing=".05 .05 .05" mass="1" name="flag" radius="0.001"/>
    </body></worldbody><equality><connect body1="flag_0" anchor="0 0 0"/></equality></mujoco>"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(MjcfError, match=r":3: <connect>.*unknown body 'flag_0'.*the <flexcomp> at .*:2, which "
                                            r"mallard does not support"):
            load_mjcf(xml)
