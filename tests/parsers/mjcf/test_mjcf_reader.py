"""Reader and error-reporting tests: includes, defaults, schema checks, warnings, every shared file."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf import MjcfError, MjcfUnsupportedWarning, load_mjcf, read_mjcf

MODELS = Path(__file__).resolve().parents[3].parent / "shared" / "models" / "mujoco"
FILES = sorted(MODELS.rglob("*.xml")) if MODELS.is_dir() else []
LOCATED = re.compile(r"^(?P<file>.+):(?P<line>\d+): <(?P<tag>[A-Za-z_]+)>: ")

BASE = """<mujoco model="m">
  <default>
    <default class="heavy"><geom density="5000"/></default>
  </default>
  <worldbody>
    <body name="b" pos="0 0 1">
      <joint name="j" type="hinge" range="-30 30"/>
      <geom name="g" type="capsule" size="0.05 0.2" class="heavy"/>
      <site name="s"/>
    </body>
  </worldbody>
  <actuator><motor name="m" joint="j"/></actuator>
</mujoco>
"""


def _located(exc: MjcfError, file: str | None = None, line: int | None = None, tag: str | None = None):
    m = LOCATED.match(str(exc))
    assert m, f"message does not start with file:line: <element>: {exc}"
    if file is not None:
        assert m["file"].endswith(file), str(exc)
    if line is not None:
        assert int(m["line"]) == line, str(exc)
    if tag is not None:
        assert m["tag"] == tag, str(exc)
    return m


def _quiet(source, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MjcfUnsupportedWarning)
        return load_mjcf(source, **kw)


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(MODELS)) for f in FILES])
def test_every_shared_file_compiles_or_fails_clearly(path):
    mujoco = require_mujoco()
    try:
        mujoco.MjModel.from_xml_path(str(path))
        mujoco_ok = True
    except ValueError:
        mujoco_ok = False
    try:
        m = _quiet(path)
    except MjcfError as exc:
        _located(exc, file=path.name)
        return
    assert mujoco_ok, f"{path} is rejected by MuJoCo but accepted here"
    assert m.nbody >= 1 and m.qpos0.shape == (m.nq,)


def test_base_model_compiles_with_class_density():
    m = load_mjcf(BASE)
    g = m.geoms[0]
    vol = np.pi * (0.05 ** 2 * 0.4 + 4 / 3 * 0.05 ** 3)
    assert m.bodies[1].mass == pytest.approx(5000 * vol, rel=1e-12)
    assert m.joints[0].range == pytest.approx(np.deg2rad([-30, 30]), rel=1e-12)
    assert g.body == 1 and m.actuators[0].trnid[0] == 0


def test_include_relative_paths_and_errors(tmp_path):
    sub = tmp_path / "parts"
    sub.mkdir()
    (sub / "body.xml").write_text('<mujoco><body name="inc"><joint/><geom size=".1"/></body></mujoco>')
    main = tmp_path / "main.xml"
    main.write_text('<mujoco><worldbody>\n<include file="parts/body.xml"/>\n</worldbody></mujoco>')
    m = load_mjcf(main)
    assert [b.name for b in m.bodies] == ["world", "inc"]
    assert m.bodies[1].where.file.endswith("body.xml")

    main.write_text('<mujoco><worldbody>\n<include file="parts/nothere.xml"/>\n</worldbody></mujoco>')
    with pytest.raises(MjcfError, match="nothere.xml") as info:
        load_mjcf(main)
    _located(info.value, file="main.xml", line=2, tag="include")

    (tmp_path / "a.xml").write_text('<mujoco>\n<include file="b.xml"/></mujoco>')
    (tmp_path / "b.xml").write_text('<mujoco>\n<include file="a.xml"/></mujoco>')
    with pytest.raises(MjcfError, match="cycle") as info:
        load_mjcf(tmp_path / "a.xml")
    _located(info.value, file="b.xml", line=2, tag="include")

    (tmp_path / "twice.xml").write_text(
        '<mujoco><worldbody><include file="parts/body.xml"/><include file="parts/body.xml"/></worldbody></mujoco>')
    with pytest.raises(MjcfError, match="more than once"):
        load_mjcf(tmp_path / "twice.xml")


def test_included_model_matches_mujoco(tmp_path):
    mujoco = require_mujoco()
    (tmp_path / "defaults.xml").write_text('<mujoco><default><joint damping="2"/></default></mujoco>')
    (tmp_path / "m.xml").write_text(
        '<mujoco><include file="defaults.xml"/><worldbody><body><joint/><geom size=".1"/></body></worldbody>'
        '</mujoco>')
    ref = mujoco.MjModel.from_xml_path(str(tmp_path / "m.xml"))
    m = load_mjcf(tmp_path / "m.xml")
    assert m.joints[0].damping == ref.dof_damping[0] == 2


def test_childclass_and_class_resolution():
    xml = """<mujoco><default><geom rgba="1 0 0 1"/><default class="sub"><geom rgba="0 1 0 1"/></default></default>
    <worldbody><geom size="1" type="plane"/>
    <body childclass="sub"><joint/><geom type="ellipsoid" size=".1 .2 .3"/><geom size=".1" rgba="0 0 1 1"/>
    <geom type="cylinder" size=".1 .1" class="main"/></body></worldbody></mujoco>"""
    m = load_mjcf(xml)
    colors = [tuple(g.rgba) for g in m.geoms]
    assert colors == [(1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1), (1, 0, 0, 1)]


@pytest.mark.parametrize("xml, pattern, line, tag", [
    (BASE.replace('0.2" class="heavy"', '0.2" class="light"'), "undefined default class 'light'", 8, "geom"),
    (BASE.replace('<site name="s"/>', '<site name="s" bogus="1"/>'), "unknown attribute 'bogus'", 9, "site"),
    (BASE.replace('<site name="s"/>', '<sight name="s"/>'), "unknown element <sight>", 9, "sight"),
    (BASE.replace('pos="0 0 1"', 'pos="0 0"'), "expected 3 value", 6, "body"),
    (BASE.replace('pos="0 0 1"', 'pos="0 0 x"'), "'x' is not a number", 6, "body"),
    (BASE.replace('range="-30 30"', 'range="-30 nan"'), "NaN", 7, "joint"),
    (BASE.replace('joint="j"/>', 'joint="nope"/>'), "unknown joint 'nope'", 12, "motor"),
    (BASE.replace('type="hinge"', 'type="twist"'), "invalid value 'twist'", 7, "joint"),
    (BASE.replace('<site name="s"/>', '<inertial pos="0 0 0" mass="-1" diaginertia="1 1 1"/>'), "negative", 9,
     "inertial"),
    (BASE.replace('<site name="s"/>', '<inertial mass="1" diaginertia="1 1 1"/>'), "required attribute 'pos'", 9,
     "inertial"),
    (BASE.replace('size="0.05 0.2" class="heavy"', 'size="0.05 0.2" mass="-2"'), "negative", 8, "geom"),
    (BASE.replace('<mujoco model="m">', '<mujoco model="m"><compiler coordinate="global"/>'), "global", 1,
     "compiler"),
    (BASE.replace('<site name="s"/>', '<geom size=".1" quat="1 0 0 0" euler="0 0 1"/>'), "more than one orientation",
     9, "geom"),
    (BASE.replace('<motor name="m" joint="j"/>', '<position joint="j" kv="1" dampratio="1"/>'), "kv and dampratio",
     12, "position"),
    (BASE.replace('<motor name="m" joint="j"/>', '<position joint="j" kp="-2" dampratio="1"/>'),
     r"dampratio needs a stiffness kp >= 0 \(got -2\)", 12, "position"),
    (BASE.replace("</worldbody>", "</worldbody><equality><distance/></equality>"), "removed", 11, "distance"),
    (BASE.replace('<joint name="j" type="hinge" range="-30 30"/>', '<freejoint/><joint/>'), "free joint", 6, "body"),
    (BASE.replace('<mujoco model="m">', '<mujoco model="m"><compiler autolimits="false"/>'), "autolimits", 7,
     "joint"),
    ("<mujoco><worldbody><body><geom size='1'/></worldbody></mujoco>", "malformed XML", 1, "xml"),
    ("<robot name='r'/>", "root element must be <mujoco>", 1, "robot"),
    ("<mujoco><worldbody><replicate count='1000000000'><geom size='.1'/></replicate></worldbody></mujoco>",
     "exceeds the supported maximum", 1, "replicate"),
])
def test_errors_name_file_line_and_element(xml, pattern, line, tag):
    with pytest.raises(MjcfError, match=pattern) as info:
        _quiet(xml)
    _located(info.value, file="<string>", line=line, tag=tag)
    assert isinstance(info.value, ValueError)


def test_missing_file_and_mesh_file_are_named(tmp_path):
    with pytest.raises(MjcfError, match="not found"):
        load_mjcf(tmp_path / "absent.xml")
    xml = '<mujoco><asset><mesh file="missing.obj"/></asset></mujoco>'
    with pytest.raises(MjcfError, match="missing.obj"):
        load_mjcf(xml, base_dir=tmp_path)


def test_tier3_warned_once_and_strict_mode_raises():
    xml = """<mujoco><worldbody><body><joint/><geom size=".1"/>
    <composite type="cable" count="3 1 1"/><composite type="cable" count="3 1 1"/></body></worldbody>
    <sensor><user dim="1"/><user dim="2"/></sensor></mujoco>"""
    with pytest.warns(MjcfUnsupportedWarning) as record:
        m = load_mjcf(xml)
    messages = [str(r.message) for r in record]
    assert sum("composite" in s for s in messages) == 1 and sum("<user>" in s for s in messages) == 1
    assert all(LOCATED.match(s) for s in messages)
    assert m.nbody == 2
    with pytest.raises(MjcfError, match="strict") as info:
        load_mjcf(xml, strict=True)
    _located(info.value, line=2, tag="composite")


def test_read_mjcf_keeps_lines_and_values():
    root, _ = read_mjcf(BASE)
    body = root.find_all("worldbody")[0].children[0]
    assert body.where.line == 6 and body.get("pos") == (0.0, 0.0, 1.0)


def test_model_lookups_list_valid_names():
    m = load_mjcf(BASE)
    assert m.joint("j") == 0 and m.body("b") == 1 and m.actuator("m") == 0
    with pytest.raises(KeyError, match="valid: j"):
        m.joint("k")


def test_mesh_files_obj_and_stl_match_mujoco(tmp_path):
    mujoco = require_mujoco()
    trimesh = pytest.importorskip("trimesh")
    box = trimesh.creation.box(extents=(0.2, 0.4, 0.6))
    box.apply_translation((0.1, 0.0, 0.3))
    box.export(tmp_path / "box.obj")
    box.export(tmp_path / "box.stl")
    xml = """<mujoco><compiler meshdir="."/><asset><mesh file="box.obj"/><mesh name="s" file="box.stl" scale="1 2 1"/>
    </asset><worldbody><body><freejoint/><geom type="mesh" mesh="box"/></body>
    <body><freejoint/><geom type="mesh" mesh="s" euler="10 0 0"/></body></worldbody></mujoco>"""
    (tmp_path / "m.xml").write_text(xml)
    ref = mujoco.MjModel.from_xml_path(str(tmp_path / "m.xml"))
    m = load_mjcf(tmp_path / "m.xml")
    for i in (1, 2):
        assert m.bodies[i].mass == pytest.approx(ref.body_mass[i], rel=1e-6)
        assert m.bodies[i].inertia == pytest.approx(ref.body_inertia[i], rel=1e-6)
    for i in range(2):
        assert m.geoms[i].pos == pytest.approx(ref.geom_pos[i], abs=1e-6)
        assert m.geoms[i].size == pytest.approx(ref.geom_size[i], abs=1e-6)
