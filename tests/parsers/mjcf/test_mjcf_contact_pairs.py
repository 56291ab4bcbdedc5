"""MJCF explicit contact pairs (<contact><pair>) against MuJoCo: pairs collide whatever contype / conaffinity,
<exclude> and the parent / weld filters; a geom pair that is both explicit and dynamic is collided once with the
pair's parameters (condim, 5-coefficient friction, solref, solreffriction, solimp, margin, gap); trajectories."""
from __future__ import annotations

import numpy as np
import pytest

from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.geometry.mujoco_pairs import GetMujocoExplicitPairs
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.mjcf.state import GetMjcfPlantMap, GetMujocoState, SetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf.errors import MjcfUnsupportedWarning
from mallard.systems.framework import DiagramBuilder

# floor and box cannot collide dynamically (masks), box2 / box neither (masks), the capsule is excluded from the
# world, the dumbbell's spheres share a body: every contact here comes from an explicit pair
# (a tight solver tolerance: both Newton solvers stop near the solution, not at the same point)
FILTERED = """<mujoco model="filtered"><option timestep="0.002" cone="{cone}" tolerance="1e-12" iterations="500"/>
<worldbody>
  <geom name="floor" type="plane" size="5 5 .1" contype="0" conaffinity="0"/>
  <body name="box" pos="0 0 0.099"><freejoint/>
    <geom name="box" type="box" size=".1 .1 .1" contype="2" conaffinity="2"/></body>
  <body name="box2" pos="0.05 0.02 0.29" euler="0 0 20"><freejoint/>
    <geom name="box2" type="box" size=".1 .1 .1" contype="4" conaffinity="4"/></body>
  <body name="ball" pos="0.6 0 0.105"><freejoint/><geom name="ball" type="sphere" size=".1"/></body>
  <body name="cap" pos="-0.6 0 0.11"><freejoint/><geom name="cap" type="capsule" size=".05 .2" euler="0 90 0"/></body>
  <body name="dumbbell" pos="0 0.6 0.3"><freejoint/>
    <geom name="s1" type="sphere" size=".1" contype="0" conaffinity="0"/>
    <geom name="s2" type="sphere" size=".1" pos="0.15 0 0" contype="0" conaffinity="0"/></body>
</worldbody>
<contact>
  <exclude body1="world" body2="cap"/>
  <pair geom1="box" geom2="floor" condim="6" friction="0.3 0.6 0.01 0.002 0.003" solreffriction="0.05 1"/>
  <pair geom1="box2" geom2="box" condim="4" friction="0.5 0.5 0.01"/>
  <pair geom1="floor" geom2="ball" condim="4" friction="0.8 0.8 0.02" solref="0.01 0.7" margin="0.02" gap="0.01"/>
  <pair geom1="cap" geom2="floor" margin="0.05" gap="0.02" solimp="0.8 0.9 0.002 0.5 2"/>
  <pair geom1="s2" geom2="s1"/>
</contact>
<keyframe><key qpos="0 0 0.099 1 0 0 0  0.05 0.02 0.29 0.98480775 0 0 0.17364818  0.6 0 0.105 1 0 0 0
                    -0.6 0 0.11 1 0 0 0  0 0.6 0.3 1 0 0 0"
               qvel="1 0.5 0 0 0 2  0 0 0 0 0 1  0 1 0 3 0 5  0.5 0 0 0 0 1  0 0 0 0 0 0"/></keyframe>
</mujoco>"""

# a pair overriding a dynamic pair (ball / floor: condim, friction, solref) and a pair between parent and child
# bodies (tip / upper: filtered by the parent rule), with a pair default class
OVERRIDING = """<mujoco model="overriding"><option timestep="0.002"/>
<default><pair condim="1" solref="0.005 1"/>
  <default class="soft"><pair solimp="0.8 0.9 0.01 0.5 2"/></default></default>
<worldbody><geom name="floor" type="plane" size="5 5 .1"/>
  <body name="arm" pos="0 0 0.5"><joint name="shoulder" type="hinge" axis="0 1 0"/>
    <geom name="upper" type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
    <body name="fore" pos="0.3 0 0"><joint name="elbow" type="hinge" axis="0 1 0"/>
      <geom name="lower" type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <geom name="tip" type="sphere" pos="0.3 0 0" size="0.05"/></body></body>
  <body name="ball" pos="0.6 0 0.1"><freejoint/><geom name="ball" type="sphere" size=".1" friction="0.2"/></body>
</worldbody>
<contact><pair geom1="ball" geom2="floor" condim="4" friction="0.9 0.9 0.05 0.001 0.001" solref="0.01 0.9"/>
  <pair geom1="tip" geom2="upper" class="soft"/></contact>
<keyframe><key qpos="0 2.8  0.6 0 0.1 1 0 0 0" qvel="0 5  2 0 0 0 0 9"/></keyframe>
</mujoco>"""

OVERRIDE_FLAG = """<mujoco model="override"><option timestep="0.002" o_margin="0.01" o_solref="0.03 1.2"
  o_solimp="0.8 0.9 0.002 0.5 2" o_friction="0.4 0.3 0.01 0.001 0.002" cone="elliptic">
  <flag override="enable"/></option>
<worldbody><geom name="floor" type="plane" size="5 5 .1" contype="0" conaffinity="0"/>
  <body name="box" pos="0 0 0.1"><freejoint/><geom name="box" type="box" size=".1 .1 .1"/></body></worldbody>
<contact><pair geom1="box" geom2="floor" condim="6" friction="1 1 0.1 0.1 0.1" solreffriction="0.2 1" margin="0.5"/>
</contact>
<keyframe><key qpos="0 0 0.1 1 0 0 0" qvel="1 0.3 0 0 0 3"/></keyframe>
</mujoco>"""


def _build(text=None, path=None, time_step=0.002):
    return build_mjcf_scene(text, path, time_step, unsupported="error")  # pairs are supported: no warning


def _start(mujoco, text, path=None):
    mm = mujoco.MjModel.from_xml_path(str(path)) if path is not None else mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    plant, scene_graph, root, context = _build(text, path, mm.opt.timestep)
    SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
    return mm, md, plant, context


def _step(mujoco, mm, md, plant, context, steps, atol, pair_geoms=None):
    """Step both; returns how many contacts of the geom pair `pair_geoms` MuJoCo saw."""
    state = context.get_mutable_state()
    seen = 0
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        if pair_geoms is not None:
            seen += sum(1 for c in md.contact[:md.ncon] if set(c.geom.tolist()) == set(pair_geoms))
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=atol)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=atol)
    return seen


def _compare_contacts(mujoco, mm, md, plant, context):
    """mallard's ComputeContactPoints against MuJoCo's contacts (same count; per geom pair in MuJoCo's geom
    order: dist, position and frame). Returns MuJoCo's contact geom pairs."""
    mujoco.mj_forward(mm, md)
    cps = plant.get_geometry_query_input_port().Eval(context).ComputeContactPoints()
    geom_of = {cid: g for g, (cid, _) in enumerate(GetMjcfPlantMap(plant).geoms) if cid is not None}
    got = sorted((geom_of[cps.id_1[k]], geom_of[cps.id_2[k]], *np.round(cps.pos_W[k], 9), k) for k in range(cps.size()))
    want = sorted((int(c.geom[0]), int(c.geom[1]), *np.round(c.pos, 9), k) for k, c in enumerate(md.contact[:md.ncon]))
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for g, w in zip(got, want):
        k, c = g[-1], md.contact[w[-1]]
        assert cps.dist[k] == pytest.approx(c.dist, abs=1e-9)
        np.testing.assert_allclose(cps.pos_W[k], c.pos, rtol=0, atol=1e-9)
        np.testing.assert_allclose(cps.frame_W[k], c.frame.reshape(3, 3), rtol=0, atol=1e-9)
        assert cps.margin[k] == pytest.approx(c.includemargin, abs=1e-15)
    return [w[:2] for w in want]


def test_explicit_pairs_collide_whatever_the_filters():
    mujoco = require_mujoco()
    mm, md, plant, context = _start(mujoco, FILTERED.format(cone="elliptic"))
    pairs = _compare_contacts(mujoco, mm, md, plant, context)
    g = {mm.geom(i).name: i for i in range(mm.ngeom)}
    # box on floor (4), box2 on box (box-box, geom order kept), ball within the pair margin, the excluded
    # capsule within its margin + gap (detected, not active), the dumbbell's two spheres on one body
    assert pairs.count((g["floor"], g["box"])) == 4
    assert (g["box"], g["box2"]) in pairs and (g["floor"], g["ball"]) in pairs
    assert pairs.count((g["floor"], g["cap"])) == 2 and (g["s2"], g["s1"]) in pairs
    # the pair's margin makes the ball contact active (dist 5 mm < margin 2 cm); MuJoCo's includemargin is it
    ball = [c for c in md.contact[:md.ncon] if int(c.geom[1]) == g["ball"]][0]
    assert 0 < ball.dist < ball.includemargin == pytest.approx(0.02)
    cap = [c for c in md.contact[:md.ncon] if int(c.geom[1]) == g["cap"]]
    assert all(c.includemargin <= c.dist < c.includemargin + 0.02 and c.exclude for c in cap)
    inspector = plant.get_geometry_query_input_port().Eval(context).inspector()
    assert inspector.num_geometries() >= 7


@pytest.mark.parametrize("cone", ["elliptic", "pyramidal"])
def test_pair_trajectories_match_mujoco(cone):
    """Box sliding and spinning on the floor through a condim-6 pair (anisotropic 5-vector friction,
    solreffriction), box2 on it (condim 4), the ball rolling through a condim-4 pair with margin / gap."""
    mujoco = require_mujoco()
    mm, md, plant, context = _start(mujoco, FILTERED.format(cone=cone))
    seen = _step(mujoco, mm, md, plant, context, 200, 1e-6, pair_geoms=(0, 1))
    assert seen >= 4 * 150  # the box stays on the floor through the pair
    assert abs(md.qpos[0]) > 0.02  # and slid


def test_solreffriction_changes_the_elliptic_trajectory_as_in_mujoco():
    mujoco = require_mujoco()
    text = FILTERED.format(cone="elliptic")
    plain = text.replace(' solreffriction="0.05 1"', "")
    finals = []
    for model in (text, plain):
        mm, md, plant, context = _start(mujoco, model)
        _step(mujoco, mm, md, plant, context, 150, 1e-6)
        finals.append(GetMujocoState(plant, context)[0])
    assert np.abs(finals[0] - finals[1]).max() > 1e-3  # the friction rows' own reference matters


def test_pair_overrides_dynamic_pair_and_parent_filter():
    mujoco = require_mujoco()
    mm, md, plant, context = _start(mujoco, OVERRIDING)
    pairs = _compare_contacts(mujoco, mm, md, plant, context)
    assert pairs == [(0, 4)]  # ball / floor collided once, with the pair's parameters
    assert md.contact[0].dim == 4
    seen = _step(mujoco, mm, md, plant, context, 200, 1e-6, pair_geoms=(1, 3))
    assert seen > 0  # the tip hit its parent body's capsule through the pair
    assert mm.pair_dim[1] == 1 and mm.pair_solimp[1, 0] == 0.8  # class "soft" below the main pair default


def test_override_flag_replaces_pair_parameters():
    mujoco = require_mujoco()
    mm, md, plant, context = _start(mujoco, OVERRIDE_FLAG)
    _compare_contacts(mujoco, mm, md, plant, context)
    assert md.contact[0].includemargin == pytest.approx(0.01) and md.contact[0].dim == 6
    _step(mujoco, mm, md, plant, context, 200, 1e-6)


def test_actuator_group_disable_model_pair(models_dir):
    """MuJoCo's actuator_group_disable test model: its arm / hand <pair> (a capsule and the sphere of the
    grandchild body) made to touch by the hand motor; the upper free object is moved aside so the two objects
    do not touch (their cylinder-cylinder contact normal is a narrow-phase matter, not a pair one)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "actuation" / "actuator_group_disable.xml"
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    plant, _, _, context = _build(path=path, time_step=mm.opt.timestep)
    md.qpos[1], md.qpos[2] = 1.3, 0.3
    md.ctrl[1] = 0.3  # "hand torque" (group 0, enabled)
    SetMujocoState(plant, context, md.qpos.copy(), md.qvel.copy())
    plant._mjcf_actuation.ports[0].FixValue(context, md.ctrl.copy())
    arm, hand = mm.geom("arm").id, mm.geom("hand").id
    seen = _step(mujoco, mm, md, plant, context, 200, 1e-6, pair_geoms=(arm, hand))
    assert seen > 50


def test_actuator_group_disable_model_from_rest(models_dir):
    """The model from qpos0 until the two free objects first touch each other (step 83)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "actuation" / "actuator_group_disable.xml"
    mm, md, plant, context = _start(mujoco, None, path)
    _step(mujoco, mm, md, plant, context, 80, 1e-9)


@pytest.mark.parametrize("element, message", [
    ('<pair geom1="ball" geom2="nope"/>', "unknown geom 'nope'"),
    ('<pair geom1="ball" geom2="floor" condim="2"/>', "invalid condim 2"),
    ('<pair geom2="floor"/>', "geom1"),
])
def test_bad_pairs_raise_located_errors(element, message):
    text = f"""<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1"/>
<body><freejoint/><geom name="ball" type="sphere" size=".1"/></body></worldbody>
<contact>{element}</contact></mujoco>"""
    with pytest.raises(ValueError, match=message) as err:
        _build(text)
    assert "<string>:3" in str(err.value)  # the pair's line


def test_zero_pair_friction_coefficients_are_clamped_as_mujoco():
    """MuJoCo raises every contact friction coefficient to mjMINMU (1e-5): zero torsional / rolling / second
    tangential coefficients of a condim-6 elliptic pair step as in MuJoCo (no division by zero)."""
    mujoco = require_mujoco()
    text = FILTERED.format(cone="elliptic").replace('friction="0.3 0.6 0.01 0.002 0.003"', 'friction="0.3 0 0 0.002 0"')
    mm, md, plant, context = _start(mujoco, text)
    _step(mujoco, mm, md, plant, context, 100, 1e-6)


def test_pair_of_a_geom_with_itself_is_left_out_with_a_warning():
    text = """<mujoco><worldbody><body><freejoint/><geom name="b" type="sphere" size=".1"/></body></worldbody>
<contact><pair geom1="b" geom2="b"/></contact></mujoco>"""
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    with pytest.warns(MjcfUnsupportedWarning, match="join a geom with itself"):
        Parser(builder).AddModelsFromString(text, "xml")
    plant.Finalize()
    assert plant.num_collision_geometries() == 1


def test_repeated_pair_keeps_the_first_with_a_warning():
    text = """<mujoco><worldbody><geom name="f" type="plane" size="1 1 .1"/>
<body pos="0 0 0.09"><freejoint/><geom name="b" type="sphere" size=".1"/></body></worldbody>
<contact><pair geom1="b" geom2="f"/><pair geom1="f" geom2="b" condim="1"/></contact></mujoco>"""
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.002)
    with pytest.warns(MjcfUnsupportedWarning, match="repeat the geoms of an earlier pair"):
        Parser(builder).AddModelsFromString(text, "xml")
    plant.Finalize()
    inspector = scene_graph.model_inspector()
    pairs = [p for cid, _ in GetMjcfPlantMap(plant).geoms if cid is not None
             for p in GetMujocoExplicitPairs(inspector.GetProximityProperties(cid))]
    assert len(pairs) == 1 and pairs[0].condim == 3
