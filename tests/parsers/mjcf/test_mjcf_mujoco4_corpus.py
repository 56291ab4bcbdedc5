"""Causes found by MuJoCo's own model/ and test/ suites (benchmarks/mujoco_corpus.py --corpus mujoco), each on
a small model the test writes, compared against the MuJoCo oracle: MuJoCo 4 attributes (light softness, camera
projection/output, body sleep/simple, option sleep_tolerance, compiler conflict), MuJoCo 4's flag defaults,
flags mallard cannot honor (a warning or a clear error), an unnamed `<model>` asset named by its file's model
attribute, and `<attach>` inside `<replicate>` (names suffixed per copy, assets included)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf import MjcfError, MjcfUnsupportedWarning, load_mjcf

CHILD = """<mujoco model="Arm"><asset><material name="red" rgba="1 0 0 1"/>
  <mesh name="tet" vertex="0 0 0 .1 0 0 0 .1 0 0 0 .1"/></asset>
  <worldbody><body name="link" pos="0 0 .5"><joint name="hinge" axis="0 1 0"/>
  <geom name="g" size=".05" fromto="0 0 0 .2 0 0" type="capsule" material="red"/><geom type="mesh" mesh="tet"/><site name="tip"/></body>
  </worldbody><actuator><motor name="m" joint="hinge"/></actuator>
  <sensor><jointpos name="q" joint="hinge"/></sensor></mujoco>"""


def _load_both(xml: str):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(xml)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mujoco, mm, load_mjcf(xml)


def _names(mujoco, mm, obj, n):
    return [mujoco.mj_id2name(mm, obj, i) or "" for i in range(n)]


def test_mujoco4_attributes_load_and_flag_defaults():
    xml = """<mujoco><compiler conflict="merge"/><option sleep_tolerance="1e-4"/>
      <worldbody><light softness="0.5"/><camera projection="orthographic" output="rgb depth"/>
      <body sleep="never" simple="false"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"""
    mujoco, mm, model = _load_both(xml)
    assert len(model.bodies) == mm.nbody and model.nq == mm.nq
    flags = model.option.flags  # MuJoCo 4: multiccd and island are on unless disabled; sleep, diagexact off
    on = {n: not (mm.opt.disableflags & getattr(mujoco.mjtDisableBit, f"mjDSBL_{n.upper()}"))
          for n in ("multiccd", "island")}
    on |= {n: bool(mm.opt.enableflags & getattr(mujoco.mjtEnableBit, f"mjENBL_{n.upper()}"))
           for n in ("sleep", "diagexact")}
    assert {n: flags[n] for n in on} == on == {"multiccd": True, "island": True, "sleep": False, "diagexact": False}


def test_flags_mallard_cannot_honor_are_reported():
    body = '<worldbody><body><freejoint/><geom size=".1"/></body></worldbody>'
    with pytest.warns(MjcfUnsupportedWarning, match=r"<flag>: flag sleep=\"enable\" is not honored: .*sleeping"):
        load_mjcf(f'<mujoco><option><flag sleep="enable"/></option>{body}</mujoco>')
    with pytest.warns(MjcfUnsupportedWarning, match=r"flag warmstart=\"disable\" is not honored"):
        load_mjcf(f'<mujoco><option><flag warmstart="disable"/></option>{body}</mujoco>')
    with pytest.raises(MjcfError, match=r":1: <flag>: flag 'diagexact': .* does not support yet"):
        load_mjcf(f'<mujoco><option><flag diagexact="enable"/></option>{body}</mujoco>')
    with warnings.catch_warnings():  # the defaults spelled out are no reason to warn
        warnings.simplefilter("error")
        load_mjcf(f'<mujoco><option><flag sleep="disable" multiccd="enable" warmstart="enable"/></option>'
                  f'{body}</mujoco>')


def test_nonzero_adhesion_is_named_and_zero_loads():
    with pytest.raises(MjcfError, match=r":1: <geom>: attribute 'adhesion': contact adhesion: a MuJoCo 4 feature"):
        load_mjcf('<mujoco><worldbody><body><freejoint/><geom size=".1" adhesion="2"/></body></worldbody></mujoco>')
    _, mm, model = _load_both('<mujoco><worldbody><body><freejoint/><geom size=".1" adhesion="0"/></body>'
                              '</worldbody></mujoco>')
    assert len(model.geoms) == mm.ngeom == 1


def test_unnamed_model_asset_is_named_by_its_file(tmp_path):
    (tmp_path / "arm.xml").write_text(CHILD)
    xml = f"""<mujoco><asset><model file="{tmp_path / 'arm.xml'}"/></asset>
      <worldbody><attach model="Arm" body="link" prefix="a_"/></worldbody></mujoco>"""
    mujoco, mm, model = _load_both(xml)
    assert [b.name for b in model.bodies] == _names(mujoco, mm, mujoco.mjtObj.mjOBJ_BODY, mm.nbody)


def test_attach_inside_replicate_suffixes_every_copy(tmp_path):
    (tmp_path / "arm.xml").write_text(CHILD)
    xml = f"""<mujoco><asset><model name="arm" file="{tmp_path / 'arm.xml'}"/></asset><worldbody>
      <replicate count="3" offset=".5 0 0" sep="-"><frame pos="0 0 1"><attach model="arm" body="link" prefix="_"/>
      </frame></replicate></worldbody></mujoco>"""
    mujoco, mm, model = _load_both(xml)
    o = mujoco.mjtObj
    assert [b.name for b in model.bodies] == _names(mujoco, mm, o.mjOBJ_BODY, mm.nbody)
    assert [b.name for b in model.bodies[1:]] == ["_link-0", "_link-1", "_link-2"]
    assert [j.name for j in model.joints] == _names(mujoco, mm, o.mjOBJ_JOINT, mm.njnt)
    assert [a.name for a in model.actuators] == _names(mujoco, mm, o.mjOBJ_ACTUATOR, mm.nu)
    assert [s.name for s in model.sensors] == _names(mujoco, mm, o.mjOBJ_SENSOR, mm.nsensor)
    assert [a.trnid[0] for a in model.actuators] == list(mm.actuator_trnid[:, 0])
    mats = _names(mujoco, mm, o.mjOBJ_MATERIAL, mm.nmat)
    assert [g.material for g in model.geoms] == [mats[k] if k >= 0 else None for k in mm.geom_matid]
    assert [g.material for g in model.geoms[::2]] == ["_red"] * 3  # assets are attached once, shared by copies
    assert [m.name for m in model.meshes] == _names(mujoco, mm, o.mjOBJ_MESH, mm.nmesh) == ["_tet"]
    assert [g.mesh for g in model.geoms] == list(mm.geom_dataid)
    np.testing.assert_allclose([b.pos for b in model.bodies], mm.body_pos, atol=1e-12)


def test_elements_referring_into_a_replicate_are_replicated():
    xml = """<mujoco><worldbody><site name="s0"/><site name="s1" pos="0 0 1"/>
      <replicate count="2" offset="1 0 0"><body name="b"><joint name="j"/><geom size=".1"/><site name="a"/></body>
      </replicate>
      <replicate count="3" offset="0 1 0" sep="_"><body name="c"><joint name="k"/><geom size=".1"/><site name="d"/>
      </body></replicate></worldbody>
      <tendon><spatial name="t0"><site site="s0"/><site site="s1"/></spatial>
      <spatial name="t1"><site site="s0"/><site site="d"/></spatial>
      <spatial name="t2"><site site="s1"/><site site="s0"/></spatial>
      <spatial name="t3"><site site="a"/><site site="s0"/></spatial></tendon>
      <actuator><motor name="m" joint="j"/><motor name="n" joint="k"/><motor name="p" tendon="t1"/></actuator>
      <sensor><jointpos joint="k"/><tendonpos tendon="t0"/></sensor></mujoco>"""
    mujoco, mm, model = _load_both(xml)
    o = mujoco.mjtObj
    assert [t.name for t in model.tendons] == _names(mujoco, mm, o.mjOBJ_TENDON, mm.ntendon)
    assert [t.name for t in model.tendons] == ["t0", "t2", "t30", "t31", "t1_0", "t1_1", "t1_2"]
    assert [a.name for a in model.actuators] == _names(mujoco, mm, o.mjOBJ_ACTUATOR, mm.nu)
    assert [list(a.trnid) for a in model.actuators] == mm.actuator_trnid.tolist()
    assert [s.objid for s in model.sensors] == list(mm.sensor_objid)
    np.testing.assert_allclose([t.length0 for t in model.tendons], mm.tendon_length0, rtol=1e-12)


def test_rangefinder_data_fields_size_the_sensor_as_in_mujoco():
    xml = """<mujoco><worldbody><body><joint/><geom size=".1"/><site name="s"/></body></worldbody><sensor>
      <rangefinder site="s"/><rangefinder site="s" data="dist normal"/><rangefinder site="s" data="dir point depth"/>
      <jointpos joint="j"/></sensor></mujoco>""".replace("<joint/>", '<joint name="j"/>')
    _, mm, model = _load_both(xml)
    assert [s.dim for s in model.sensors] == list(mm.sensor_dim) == [1, 4, 7, 1]
    bad = xml.replace('data="dir point depth"', 'data="point origin"')
    with pytest.raises(MjcfError, match=r"data 'point origin' must list distinct fields in the order dist, dir"):
        load_mjcf(bad)


@pytest.mark.parametrize("xml, match", [
    ('<worldbody><body><freejoint/><geom size=".1"/></body></worldbody><actuator><dcmotor/></actuator>',
     r":1: <dcmotor>: <actuator><dcmotor>: DC motor actuators: a MuJoCo 4 feature mallard does not support yet"),
    ('<asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset><worldbody><body><freejoint/>'
     '<geom type="sdf" mesh="m"/></body></worldbody>', r":1: <geom>: sdf geom on mesh 'm', which no SDF plugin"),
])
def test_unsupported_mujoco4_elements_are_named(xml, match):
    with pytest.raises(MjcfError, match=match):
        load_mjcf(f"<mujoco>{xml}</mujoco>")
