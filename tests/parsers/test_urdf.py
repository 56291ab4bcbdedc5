"""URDF reader: records for Drake's URDF extensions, and located errors for bad input."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_pydrake

from mallard.parsers import (PackageMap, ParseError, ParseWarning, ReadModels,
                             ReadModelsFromString, ReadUrdf)

DATA = Path(__file__).resolve().parent / "data"

ROBOT = """<?xml version="1.0"?>
<robot name="r" xmlns:drake="http://drake.mit.edu">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="a">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><drake:capsule radius="0.1" length="0.4"/></geometry><material name="blue"/></visual>
    <collision name="ca"><geometry><drake:ellipsoid a="0.1" b="0.2" c="0.3"/></geometry>
      <drake:proximity_properties>
        <drake:mu_dynamic value="0.3"/><drake:mu_static value="0.5"/>
        <drake:compliant_hydroelastic/><drake:hydroelastic_modulus value="1e7"/>
      </drake:proximity_properties>
    </collision>
  </link>
  <link name="b">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="meshes/box.obj" scale="2"/></geometry></visual>
  </link>
  <link name="c">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="d">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="e">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="f">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="ja" type="continuous"><parent link="world"/><child link="a"/>
    <limit lower="-1" upper="1" effort="3" velocity="2" drake:acceleration="7"/></joint>
  <joint name="jb" type="planar"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <dynamics damping="0.2 0.1 0.3"/></joint>
  <drake:joint name="jc" type="screw"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>
    <drake:screw_thread_pitch value="0.04"/><dynamics damping="0.3"/></drake:joint>
  <drake:joint name="jd" type="universal"><parent link="c"/><child link="d"/>
    <dynamics damping="0.4"/></drake:joint>
  <drake:joint name="je" type="ball"><parent link="d"/><child link="e"/>
    <dynamics damping="0.5"/></drake:joint>
  <joint name="jf" type="revolute"><parent link="e"/><child link="f"/><axis xyz="0 3 4"/>
    <mimic joint="ja" multiplier="2" offset="0.1"/></joint>
  <transmission name="t"><type>SimpleTransmission</type><joint name="ja"/>
    <actuator name="act"><drake:rotor_inertia value="0.01"/><drake:gear_ratio value="9"/></actuator>
  </transmission>
  <frame name="tool" link="f" xyz="0 0 1" rpy="0 0 1.5"/>
  <drake:collision_filter_group name="g">
    <drake:member link="a"/><drake:member link="b"/>
    <drake:ignored_collision_filter_group name="g"/>
  </drake:collision_filter_group>
</robot>
"""


def _read(text: str, strict: bool = False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParseWarning)
        return ReadUrdf(file_contents=text, package_map=PackageMap(), strict=strict)[0]


def test_drake_extensions_to_records(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DATA)
    m = _read(ROBOT)
    assert m.name == "r" and [lk.name for lk in m.links] == list("abcdef")
    types = {j.name: j.type for j in m.joints}
    assert types == {"ja": "continuous", "jb": "planar", "jc": "screw", "jd": "universal",
                     "je": "ball", "jf": "revolute"}
    ja = m.joint("ja")
    assert (ja.lower[0], ja.upper[0], ja.velocity[0], ja.acceleration[0], ja.effort) == \
        (-1, 1, 2, 7, 3)
    np.testing.assert_array_equal(m.joint("jb").damping, [0.2, 0.1, 0.3])
    assert m.joint("jc").screw_thread_pitch == 0.04
    np.testing.assert_array_equal(m.joint("jd").damping, [0.4, 0.4])
    np.testing.assert_array_equal(m.joint("je").damping, [0.5, 0.5, 0.5])
    np.testing.assert_allclose(m.joint("jf").axis, [0, 0.6, 0.8])
    assert (m.joint("jf").mimic.joint, m.joint("jf").mimic.multiplier,
            m.joint("jf").mimic.offset) == ("ja", 2, 0.1)
    (act,) = m.actuators
    assert (act.name, act.joint, act.effort_limit, act.gear_ratio, act.rotor_inertia) == \
        ("act", "ja", 3, 9, 0.01)
    a = m.link("a")
    assert a.visuals[0].shape.type == "capsule" and a.visuals[0].shape.length == 0.4
    np.testing.assert_array_equal(a.visuals[0].rgba, [0, 0, 1, 1])
    assert a.visuals[0].material_name == "blue"
    col = a.collisions[0]
    np.testing.assert_array_equal(col.shape.radii, [0.1, 0.2, 0.3])
    assert col.proximity == {"mu_dynamic": 0.3, "mu_static": 0.5, "compliant_hydroelastic": None,
                             "hydroelastic_modulus": 1e7}
    mesh = m.link("b").visuals[0].shape
    assert mesh.filename == str(DATA / "meshes" / "box.obj")
    np.testing.assert_array_equal(mesh.scale, [2, 2, 2])
    (frame,) = m.frames
    assert (frame.name, frame.body) == ("tool", "f")
    np.testing.assert_allclose(frame.X_BF[:3, 3], [0, 0, 1])
    (group,) = m.collision_filter_groups
    assert (group.name, group.members, group.ignored_groups) == ("g", ["a", "b"], ["g"])


def test_extensions_match_pydrake(monkeypatch: pytest.MonkeyPatch) -> None:
    """Joint types, limits, damping, screw pitch and the actuator agree with pydrake's parse."""
    require_pydrake()
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    monkeypatch.chdir(DATA)
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModelsFromString(ROBOT, "urdf")
    m = _read(ROBOT)
    names = {"continuous": "revolute", "ball": "ball_rpy"}
    for rec in m.joints:
        j = plant.GetJointByName(rec.name)
        assert names.get(rec.type, rec.type) == j.type_name()
        np.testing.assert_array_equal(rec.lower, j.position_lower_limits())
        np.testing.assert_array_equal(rec.upper, j.position_upper_limits())
        np.testing.assert_array_equal(rec.velocity, j.velocity_upper_limits())
        np.testing.assert_array_equal(rec.acceleration, j.acceleration_upper_limits())
        np.testing.assert_array_equal(rec.damping, j.default_damping_vector())
    assert plant.GetJointByName("jc").screw_pitch() == m.joint("jc").screw_thread_pitch
    act = plant.GetJointActuatorByName("act")
    assert (act.effort_limit(), act.default_gear_ratio(), act.default_rotor_inertia()) == \
        (3, 9, 0.01)


def _mutate(old: str, new: str) -> str:
    assert old in ROBOT
    return ROBOT.replace(old, new, 1)


@pytest.mark.parametrize("old, new, marker, element, match", [
    ('<joint name="ja" type="continuous">', '<joint name="ja" type="hinge">', "hinge",
     "joint", "unknown type 'hinge'"),
    ('<child link="a"/>', '<child link="zz"/>', 'link="zz"', "child",
     "child link 'zz' which does not exist"),
    ('<link name="c">', '<link>', "<link>", "link", "missing required attribute 'name'"),
    ('upper="1"', 'upper="x1"', "x1", "limit", "'x1' is not a number"),
    ('xyz="0 3 4"', 'xyz="0 3"', 'xyz="0 3"', "axis", "expected 3 numbers, got 2"),
    ('<drake:joint name="je" type="ball">', '<joint name="je" type="ball">', 'name="je"',
     "joint", "custom joint type and should be a <drake:joint>"),
    ('<joint name="ja"/>', '<joint name="nope"/>', "nope", "joint",
     "joint 'nope' which does not exist"),
    ('<mass value="1"/>', '<mass value="nan"/>', "nan", "mass", "not a finite number"),
    ('<mass value="1"/>', '<mass value="-2"/>', "-2", "mass", "negative mass"),
    ('radius="0.1"', 'radius="0"', 'radius="0"', "drake:capsule", "must be positive"),
    ('filename="meshes/box.obj"', 'filename="package://nowhere/box.obj"', "nowhere", "mesh",
     "unknown package 'nowhere'"),
    ('<child link="c"/>', '<child link="a"/>', 'name="jc"', "drake:joint",
     "child of two joints"),
    ('<link name="d">', '<link name="c">', '<link name="c">\n    <inertial><mass value="1"/>'
     '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>\n  </link>\n'
     '  <link name="e">', "link", "duplicate link name 'c'"),
    ('<mimic joint="ja"', '<mimic joint="zz"', 'joint="zz"', "mimic", "mimics joint 'zz'"),
    ('</robot>', '<link name="g"><inertial></link></robot>', "<inertial></link>", "inertial",
     "malformed XML"),
])
def test_errors_name_file_line_element(old: str, new: str, marker: str, element: str,
                                       match: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DATA)
    text = _mutate(old, new)
    if old == '<drake:joint name="je" type="ball">':
        text = text.replace('<dynamics damping="0.5"/></drake:joint>',
                            '<dynamics damping="0.5"/></joint>')
    line = text[:text.index(marker)].count("\n") + 1
    with pytest.raises(ParseError, match=match) as info:
        _read(text)
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.filename, err.line, err.element) == ("<string>", line, element)
    assert str(err).startswith(f"<string>:{line}: <{element}>")


def test_unknown_elements_warn_or_fail_in_strict_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DATA)
    text = _mutate('<link name="c">', '<link name="c"><wobble/>')
    with pytest.warns(ParseWarning, match=r"<string>:18: <wobble> unknown or unsupported element"):
        ReadUrdf(file_contents=text)
    with pytest.raises(ParseError, match="unknown or unsupported element <wobble>"):
        ReadUrdf(file_contents=text, strict=True)


def test_transmission_rules() -> None:
    base = """<robot name="r"><link name="a"/><link name="b"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/>{limit}</joint>
      <transmission name="t"><type>SimpleTransmission</type><joint name="j"/>
        <actuator name="m"/></transmission></robot>"""
    assert _read(base.format(limit="")).actuators[0].effort_limit == np.inf
    with pytest.warns(ParseWarning, match="zero effort limit"):
        assert ReadUrdf(file_contents=base.format(limit='<limit effort="0"/>'))[0].actuators == []
    with pytest.raises(ParseError, match="negative effort limit"):
        _read(base.format(limit='<limit effort="-1"/>'))


def test_xacro_and_unknown_extensions(tmp_path: Path) -> None:
    xacro = tmp_path / "robot.urdf.xacro"
    xacro.write_text("<robot name='r'/>")
    with pytest.raises(ParseError, match="xacro is not supported: run xacro first"):
        ReadModels(str(xacro))
    with pytest.raises(ParseError, match="xacro is not supported"):
        ReadModelsFromString(
            '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
            '<xacro:property name="x" value="1"/></robot>', "urdf")
    other = tmp_path / "robot.stl"
    other.write_text("solid x")
    with pytest.raises(ParseError, match="not recognized"):
        ReadModels(str(other))
    mesh = tmp_path / "robot.obj"  # an OBJ is a model (Drake's mesh parser), but this one holds no faces
    mesh.write_text("v 0 0 0")
    with pytest.raises(ParseError, match="contains no objects"):
        ReadModels(str(mesh))
    with pytest.raises(ParseError, match="cannot read file"):
        ReadModels(str(tmp_path / "missing.urdf"))


PROXIMITY_URDF = """<?xml version="1.0"?>
<robot name="tags" xmlns:drake="http://drake.mit.edu">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision name="soft"><geometry><box size="0.2 0.3 0.1"/></geometry>
      <drake:proximity_properties>
        <drake:compliant_hydroelastic/><drake:hydroelastic_modulus value="1e7"/>
        <drake:mesh_resolution_hint value="0.05"/><drake:hunt_crossley_dissipation value="2"/>
        <drake:mu_dynamic value="0.5"/><drake:mu_static value="0.6"/>
      </drake:proximity_properties></collision>
    <collision name="hard"><origin xyz="0 0 0.3"/><geometry><sphere radius="0.1"/></geometry>
      <drake:proximity_properties>
        <drake:rigid_hydroelastic/><drake:mesh_resolution_hint value="0.02"/>
        <drake:point_contact_stiffness value="1e4"/><drake:relaxation_time value="0.1"/>
      </drake:proximity_properties></collision>
    <collision name="plain"><origin xyz="0 0 -0.3"/><geometry><cylinder radius="0.05" length="0.2"/></geometry>
      <drake:proximity_properties><drake:mu_dynamic value="0.3"/></drake:proximity_properties></collision>
  </link>
</robot>"""


def _proximity(M, text: str) -> dict:
    """geometry name → its proximity properties {(group, name): value} after parsing `text` with module M."""
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    M.Parser(plant).AddModelsFromString(text, "urdf")
    plant.Finalize()
    inspector = sg.model_inspector()
    out = {}
    for g in inspector.GetAllGeometryIds(M.Role.kProximity):
        p = inspector.GetProximityProperties(g)
        props = {}
        for group in p.GetGroupNames():
            for name in p.GetPropertiesInGroup(group):
                v = p.GetProperty(group, name) if (group, name) != ("hydroelastic", "compliance_type") else None
                props[(group, name)] = (v.static_friction(), v.dynamic_friction()) if hasattr(v, "static_friction") \
                    else v
        out[inspector.GetName(g).rpartition("::")[2]] = props
    return out


def test_drake_proximity_properties_match_pydrake() -> None:
    """URDF <drake:proximity_properties> tags (hydroelastic compliance, modulus, resolution hint, Hunt–Crossley
    dissipation, friction, point stiffness, relaxation time) give pydrake's proximity properties."""
    require_pydrake()
    import pydrake.all as pd

    import mallard.all as ma
    got, want = _proximity(ma, PROXIMITY_URDF), _proximity(pd, PROXIMITY_URDF)
    assert got == want
    assert got["soft"][("hydroelastic", "hydroelastic_modulus")] == 1e7
    assert got["hard"][("material", "relaxation_time")] == 0.1
    compliance = {}
    for M in (ma, pd):  # the compliance type, compared by name (pydrake binds no value for it)
        builder = M.DiagramBuilder()
        plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
        M.Parser(plant).AddModelsFromString(PROXIMITY_URDF, "urdf")
        inspector = sg.model_inspector()
        compliance[M] = sorted((inspector.GetName(g).rpartition("::")[2],
                                inspector.GetProximityProperties(g).HasProperty("hydroelastic", "compliance_type"))
                               for g in inspector.GetAllGeometryIds(M.Role.kProximity))
    assert compliance[ma] == compliance[pd] == [("hard", True), ("plain", False), ("soft", True)]
