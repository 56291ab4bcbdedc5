"""SDFormat reader: frame semantics, nesting/includes, Drake extensions, and located errors."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from mallard.parsers import (CalcLinkPosesInWorld, PackageMap, ParseError, ParseWarning,
                             ReadSdf)
from mallard.parsers.xml_values import rpy_to_rotation

DATA = Path(__file__).resolve().parent / "data"


def _package_map() -> PackageMap:
    pm = PackageMap()
    pm.PopulateFromFolder(str(DATA))
    return pm


def _read(text: str, strict: bool = False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParseWarning)
        return ReadSdf(file_contents=text, package_map=_package_map(), strict=strict)


def _model(body: str, version: str = "1.9") -> str:
    return (f'<?xml version="1.0"?>\n<sdf version="{version}" xmlns:drake="http://drake.mit.edu">'
            f'\n<model name="m">\n{body}\n</model>\n</sdf>\n')


LINK = '<link name="{}"><pose{}>{}</pose></link>'


def test_relative_to_chains_and_expressed_in() -> None:
    text = _model(
        '<frame name="f1"><pose>1 0 0 0 0 1.5707963267948966</pose></frame>\n'
        '<frame name="f2" attached_to="a"><pose relative_to="f1">1 0 0 0 0 0</pose></frame>\n'
        '<link name="a"><pose relative_to="f1">0 0 1 0 0 0</pose></link>\n'
        '<link name="b"><pose relative_to="f2">0 0 0 0.3 0 0</pose></link>\n'
        '<joint name="j" type="prismatic"><pose relative_to="f1"/><parent>a</parent>'
        '<child>b</child><axis><xyz expressed_in="f1">1 0 0</xyz></axis></joint>')
    (m,) = _read(text)
    X_W = CalcLinkPosesInWorld([m])
    np.testing.assert_allclose(X_W[("m", "a")][:3, 3], [1, 0, 1], atol=1e-15)
    np.testing.assert_allclose(X_W[("m", "b")][:3, 3], [1, 1, 0], atol=1e-15)
    np.testing.assert_allclose(X_W[("m", "b")][:3, :3],
                               rpy_to_rotation([0.3, 0, np.pi / 2]), atol=1e-15)
    j = m.joint("j")
    # J coincides with f1, so its axis (x of f1) is x in J; X_PJ is f1 seen from a.
    np.testing.assert_allclose(j.axis, [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(j.X_PJ[:3, 3], [0, 0, -1], atol=1e-15)
    (f2,) = [f for f in m.frames if f.name == "f2"]
    assert f2.body == "a"
    np.testing.assert_allclose(f2.X_BF[:3, 3], [1, 0, -1], atol=1e-15)


def test_axis_default_is_joint_frame_and_use_parent_model_frame() -> None:
    body = ('<link name="a"/><link name="b"><pose>0 0 0 0 0 1.5707963267948966</pose></link>'
            '<joint name="j" type="revolute"><parent>a</parent><child>b</child>'
            '<axis><xyz>1 0 0</xyz>{}</axis></joint>')
    (m,) = _read(_model(body.format("")))
    np.testing.assert_allclose(m.joint("j").axis, [1, 0, 0], atol=1e-15)
    (m,) = _read(_model(body.format("<use_parent_model_frame>true</use_parent_model_frame>"),
                        "1.6"))
    np.testing.assert_allclose(m.joint("j").axis, [0, -1, 0], atol=1e-15)


def test_static_nested_and_defaults() -> None:
    text = ('<sdf version="1.9"><model name="top"><static>true</static>'
            '<link name="a"><pose>1 2 3 0 0 0</pose></link>'
            '<model name="inner"><link name="b"/></model></model></sdf>')
    models = _read(text)
    assert [m.name for m in models] == ["top", "top::inner"]
    # As pydrake: <static> is not inherited by nested models.
    assert [m.static for m in models] == [True, False]
    welds = [(j.name, j.parent, j.child, j.child_model) for m in models for j in m.joints]
    assert welds == [("sdformat_model_static_world_welds_to_a", "world", "a", "top")]
    a = models[0].links[0]
    assert a.inertial.mass == 1.0  # SDFormat's default inertial
    np.testing.assert_array_equal(a.inertial.I_BBcm_B, np.eye(3))


def test_include_overrides_name_and_pose() -> None:
    text = ('<sdf version="1.9"><model name="top"><link name="base"/>'
            '<include><uri>model://mallard_test_models/models/arm</uri><name>arm2</name>'
            '<pose>0 0 5 0 0 0</pose><static>false</static></include></model></sdf>')
    top, arm = _read(text)
    assert arm.name == "top::arm2" and not arm.static
    assert arm.filename.endswith("arm.sdf")
    np.testing.assert_allclose(arm.X_WM[:3, 3], [0, 0, 5])
    assert [j.name for j in arm.joints] == ["elbow"]
    elbow = arm.joint("elbow")
    assert (elbow.parent_model, elbow.child_model) == ("top::arm2", "top::arm2")
    assert arm.actuators[0].gear_ratio == 50 and arm.actuators[0].rotor_inertia == 0.002
    # As pydrake: a static model may only have fixed joints.
    with pytest.raises(ParseError, match="only fixed joints are permitted in static models") as e:
        _read(text.replace("<static>false", "<static>true"))
    assert e.value.filename.endswith("arm.sdf") and e.value.element == "joint"


def test_geometry_and_surface_records() -> None:
    text = _model(
        '<link name="a"><collision name="p"><geometry><plane><normal>0 0 2</normal>'
        '<size>3 4</size></plane></geometry><surface><friction><ode><mu>0.8</mu><mu2>0.7</mu2>'
        '</ode></friction></surface></collision>'
        '<visual name="e"><geometry><empty/></geometry></visual>'
        '<visual name="s"><geometry><sphere><radius>0.2</radius></sphere></geometry>'
        '<material><diffuse>0.5 0.5 0.5</diffuse></material></visual></link>')
    (m,) = _read(text)
    (plane,) = m.links[0].collisions
    np.testing.assert_array_equal(plane.shape.normal, [0, 0, 1])
    assert plane.proximity == {"mu": 0.8, "mu2": 0.7}
    (sphere,) = m.links[0].visuals  # <empty/> makes no geometry
    np.testing.assert_array_equal(sphere.rgba, [0.5, 0.5, 0.5, 1])


def _line(text: str, marker: str) -> int:
    return text[:text.index(marker)].count("\n") + 1


@pytest.mark.parametrize("body, marker, element, match", [
    ('<link name="a"><pose relative_to="b"/></link>\n<link name="b">'
     '<pose relative_to="a"/></link>', '<link name="a">', "link", "pose graph has a cycle"),
    ('<link name="a"/>\n<frame name="f" attached_to="g"/>\n<frame name="g" attached_to="f"/>\n'
     '<joint name="j" type="fixed"><parent>f</parent><child>a</child></joint>',
     '<frame name="f"', "frame", "attached_to graph has a cycle"),
    ('<link name="a"><pose relative_to="nowhere"/></link>', "<link", "link",
     "relative_to 'nowhere' does not name a frame"),
    ('<link name="a"/>\n<joint name="j" type="revolute"><parent>a</parent>\n<child>ghost</child>'
     '<axis><xyz>0 0 1</xyz></axis></joint>', "<child>", "child",
     "'ghost' does not name a frame"),
    ('<link name="a"/><link name="b"/>\n<joint name="j" type="revolute"><parent>a</parent>'
     '<child>b</child></joint>', "<joint", "joint", "an <axis> must be specified"),
    ('<link name="a"/><link name="b"/>\n<joint name="j" type="universal"><parent>a</parent>'
     '<child>b</child><axis><xyz>1 0 0</xyz></axis><axis2><xyz>1 1 0</xyz></axis2></joint>',
     "<joint", "joint", "must be orthogonal"),
    ('<link name="a"/><link name="b"/>\n<joint name="j" type="revolute2"><parent>a</parent>'
     '<child>b</child></joint>', "<joint", "joint", "revolute2.*not supported"),
    ('<link name="a"/><link name="b"/>\n<joint name="j" type="hinge"><parent>a</parent>'
     '<child>b</child></joint>', "<joint", "joint", "unknown type 'hinge'"),
    ('<link name="a"/><link name="b"/>\n<joint type="fixed"><parent>a</parent>'
     '<child>b</child></joint>', "<joint", "joint", "missing required attribute 'name'"),
    ('<link name="a">\n<pose>1 2 3</pose></link>', "<pose", "pose", "expected 6 numbers"),
    ('<link name="a"><inertial>\n<mass>heavy</mass></inertial></link>', "<mass", "mass",
     "'heavy' is not a number"),
    ('<link name="a"><visual name="v"><geometry>\n<mesh><uri>package://nope/m.obj</uri>'
     '</mesh></geometry></visual></link>', "<mesh", "uri", "unknown package 'nope'"),
    ('<link name="a"/>\n<link name="a"/>', '<link name="a"/>\n<link', "link",
     "already used by a link"),
    ('<link name="a"/>\n<include><uri>package://mallard_test_models/none.sdf</uri></include>',
     "<include", "uri", "does not exist"),
    ('<link name="a"/>\n<drake:collision_filter_group name="g">\n<drake:member>b'
     '</drake:member></drake:collision_filter_group>', "<drake:member>", "drake:member",
     "member 'b' does not name a frame"),
    ('<link name="a"/>\n<frame name="f"/><drake:collision_filter_group name="g">\n'
     '<drake:member>f</drake:member></drake:collision_filter_group>', "<drake:member>",
     "drake:member", "member 'f' is a frame, not a link"),
])
def test_errors_name_file_line_element(body: str, marker: str, element: str,
                                       match: str) -> None:
    text = _model(body)
    if marker == '<link name="a"/>\n<link':
        line = _line(text, marker) + 1
    else:
        line = _line(text, marker)
    with pytest.raises(ParseError, match=match) as info:
        _read(text)
    err = info.value
    assert (err.filename, err.line, err.element) == ("<string>", line, element)


def test_included_file_errors_name_the_included_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sdf"
    bad.write_text('<sdf version="1.9"><model name="b">\n<link name="x">\n'
                   '<pose>1 2</pose></link></model></sdf>')
    text = _model(f'<link name="a"/><include><uri>file://{bad}</uri></include>')
    with pytest.raises(ParseError) as info:
        _read(text)
    assert (info.value.filename, info.value.line, info.value.element) == (str(bad), 3, "pose")


def test_unknown_elements_warn_or_fail_in_strict_mode() -> None:
    text = _model('<link name="a"><wobble/></link>')
    with pytest.warns(ParseWarning, match="<wobble>"):
        ReadSdf(file_contents=text)
    with pytest.raises(ParseError, match="unknown or unsupported element <wobble>"):
        ReadSdf(file_contents=text, strict=True)


def test_root_and_version_errors() -> None:
    with pytest.raises(ParseError, match="root element must be <sdf>"):
        ReadSdf(file_contents="<robot name='x'/>")
    with pytest.raises(ParseError, match="missing required attribute 'version'"):
        ReadSdf(file_contents="<sdf><model name='m'><link name='a'/></model></sdf>")
    with pytest.raises(ParseError, match="no <model> or <world>"):
        ReadSdf(file_contents="<sdf version='1.9'/>")
    with pytest.raises(ParseError, match="has no links"):
        ReadSdf(file_contents="<sdf version='1.9'><model name='m'/></sdf>")


ARM = "package://mallard_test_models/models/arm/arm.sdf"


@pytest.mark.parametrize("text, marker, element, match", [
    ('<sdf version="1.9">\n<model name="m" placement_frame="nope"><link name="a"/></model></sdf>',
     "<model", "model", "placement_frame 'nope' does not name a frame"),
    ('<sdf version="1.9"><model name="m"><link name="a"/>\n<include><uri>' + ARM + '</uri>'
     '\n<placement_frame>tool</placement_frame></include></model></sdf>', "<placement_frame>",
     "placement_frame", "<pose> is required when specifying the placement_frame"),
    ('<sdf version="1.9"><model name="m"><link name="a"/>\n<include><uri>' + ARM + '</uri><pose/>'
     '\n<placement_frame></placement_frame></include></model></sdf>', "<placement_frame>",
     "placement_frame", "<placement_frame> is empty"),
    ('<sdf version="1.9"><world name="w">\n<include merge="true"><uri>' + ARM + '</uri></include>'
     '</world></sdf>', "<include", "include", "only allowed inside a <model>"),
    ('<sdf version="1.9"><model name="m"><link name="a"/>\n<include merge="maybe"><uri>' + ARM
     + '</uri></include></model></sdf>', "<include", "include", "attribute 'merge'"),
    ('<sdf version="1.9"><model name="a"><link name="l"/></model>\n<model name="b">'
     '<link name="l"/></model></sdf>', '<model name="b"', "model",
     "exactly one <model> or exactly one <world>.*2 models and 0 worlds"),
    ('<sdf version="1.9"><model name="m">\n<link name="a"><pose relative_to="world"/></link>'
     '</model></sdf>', "<link", "link", "world frame cannot be referenced inside model 'm'"),
    ('<sdf version="1.9"><model name="m"><link name="a"/>\n<frame name="f" attached_to="world"/>'
     '</model></sdf>', "<frame", "frame", "world frame cannot be referenced"),
])
def test_placement_and_merge_errors(text: str, marker: str, element: str, match: str) -> None:
    with pytest.raises(ParseError, match=match) as info:
        _read(text)
    err = info.value
    assert (err.filename, err.line, err.element) == ("<string>", _line(text, marker), element)


def test_merge_name_clash_names_both_files() -> None:
    text = ('<sdf version="1.9"><model name="m"><link name="shoulder"/>\n<include merge="true">'
            '<uri>' + ARM + '</uri></include></model></sdf>')
    with pytest.raises(ParseError, match=r"'m::shoulder' is already used by a link \(line "
                                         r"<string>:1\)") as info:
        _read(text)
    assert info.value.filename.endswith("arm.sdf") and info.value.element == "link"


def test_placement_frame_poses_the_named_frame() -> None:
    text = ('<sdf version="1.9"><model name="m" placement_frame="f"><pose>1 2 3 0 0 '
            '1.5707963267948966</pose><link name="a"><pose>0 0 1 0 0 0</pose></link>'
            '<frame name="f" attached_to="a"><pose>0.5 0 0 0 0 0</pose></frame></model></sdf>')
    (m,) = _read(text)
    X_W = CalcLinkPosesInWorld([m])
    # f sits 0.5 along x of a, so a is 0.5 "behind" f along the rotated x (= world y).
    np.testing.assert_allclose(X_W[("m", "a")][:3, 3], [1, 1.5, 3], atol=1e-15)
    np.testing.assert_allclose(m.X_WM[:3, 3], [1, 1.5, 2], atol=1e-15)
    (mf,) = [f for f in m.frames if f.name == "__model__"]
    assert (mf.body, mf.body_model) == ("a", "m")


def test_merge_records_and_proxy_frame() -> None:
    text = ('<sdf version="1.9"><model name="top"><link name="base"/><include merge="true"><uri>'
            + ARM + '</uri><name>left</name><pose>0 0 1 0 0 0</pose></include></model></sdf>')
    (top,) = _read(text)
    assert [lk.name for lk in top.links] == ["base", "shoulder", "forearm"]
    assert [j.name for j in top.joints] == ["elbow"]
    assert (top.joint("elbow").parent_model, top.joint("elbow").child_model) == ("top", "top")
    assert top.actuators[0].name == "elbow" and top.actuators[0].gear_ratio == 50
    proxy = {f.name: f for f in top.frames}["_merged__left__model__"]
    assert proxy.body == "shoulder"
    np.testing.assert_allclose(proxy.X_BF[:3, 3], [0, 0, -0.1], atol=1e-15)
    assert top.collision_filter_groups == []  # as Drake: a merged model's groups are dropped


@pytest.mark.parametrize("body, marker, element, match", [
    ('<link name="a"/><link name="b"/>\n<drake:joint name="p" type="revolute"><drake:parent>a'
     '</drake:parent><drake:child>b</drake:child></drake:joint>', "<drake:joint", "drake:joint",
     "unrecognized value for 'type' attribute: revolute"),
    ('<link name="a"/><link name="b"/>\n<drake:joint name="p" type="planar"><drake:parent>a'
     '</drake:parent><drake:child>b</drake:child></drake:joint>', "<drake:joint", "drake:joint",
     "unable to find the <drake:damping>"),
    ('<link name="a"/><link name="b"/><drake:joint name="p" type="planar"><drake:parent>a'
     '</drake:parent><drake:child>b</drake:child>\n<pose/><drake:damping>0 0 0</drake:damping>'
     '</drake:joint>', "<pose/>", "pose", "unsupported element <pose>"),
    ('<link name="a"/><link name="b"/><drake:joint name="p" type="planar"><drake:parent>a'
     '</drake:parent><drake:child>b</drake:child>\n<drake:damping>0 0</drake:damping>'
     '</drake:joint>', "<drake:damping>", "drake:damping", "expected 3 numbers"),
    ('<link name="a"><collision name="c"><geometry><sphere><radius>1</radius></sphere>'
     '</geometry><surface><friction>\n<ode><mu>0.5</mu></ode></friction></surface></collision>'
     '</link>', "<ode>", "ode", r"dynamic friction \(1.0\) is greater than the static"),
    ('<link name="a"><collision name="c"><geometry><sphere><radius>1</radius></sphere>'
     '</geometry>\n<drake:proximity_properties><drake:mu_static>0.2</drake:mu_static>'
     '<drake:mu_dynamic>0.3</drake:mu_dynamic></drake:proximity_properties></collision></link>',
     "<drake:proximity_properties>", "drake:proximity_properties", "is greater than the static"),
    ('<link name="a"><collision name="c"><geometry><sphere><radius>1</radius></sphere>'
     '</geometry><drake:proximity_properties>\n<drake:soft_hydroelastic/>'
     '</drake:proximity_properties></collision></link>', "<drake:soft_hydroelastic/>",
     "drake:soft_hydroelastic", "use <drake:compliant_hydroelastic>"),
    ('<link name="a"><collision name="c"><geometry>\n<drake:ellipsoid><a>1</a><b>1</b>'
     '</drake:ellipsoid></geometry></collision></link>', "<drake:ellipsoid>", "drake:ellipsoid",
     "needs a <c>"),
])
def test_drake_extension_errors(body: str, marker: str, element: str, match: str) -> None:
    text = _model(body)
    with pytest.raises(ParseError, match=match) as info:
        _read(text)
    err = info.value
    assert (err.filename, err.line, err.element) == ("<string>", _line(text, marker), element)


def test_world_joints_must_be_fixed_and_are_moved_to_the_child_model() -> None:
    text = ('<sdf version="1.9"><world name="w"><model name="m"><link name="a"/></model>\n'
            '<joint name="j" type="revolute"><parent>world</parent><child>m::a</child></joint>'
            '</world></sdf>')
    with pytest.raises(ParseError, match="only fixed joints are permitted in world joints") as e:
        _read(text)
    assert (e.value.line, e.value.element) == (2, "joint")
    (m,) = _read(text.replace('type="revolute"', 'type="fixed"'))
    assert [(j.name, j.parent, j.child, j.child_model) for j in m.joints] == [
        ("j", "world", "a", "m")]


def test_invalid_inertia_warns_and_becomes_a_water_sphere() -> None:
    text = _model('<link name="a"><inertial><pose>0 0 1 0 0 0</pose><mass>2</mass><inertia>'
                  '<ixx>1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>')
    with pytest.warns(ParseWarning, match="not physically valid.*solid sphere of water"):
        (m,) = ReadSdf(file_contents=text)
    inertial = m.links[0].inertial
    radius = (3 * 2 / (4 * np.pi * 1000)) ** (1 / 3)
    assert inertial.mass == 2
    np.testing.assert_allclose(inertial.p_BoBcm_B, [0, 0, 1])
    np.testing.assert_allclose(inertial.I_BBcm_B, 0.4 * 2 * radius ** 2 * np.eye(3), rtol=1e-14)


@pytest.mark.parametrize("include, marker, element, match", [
    ('<pose/>\n<placement_frame>nope</placement_frame>', "<placement_frame>", "placement_frame",
     "placement_frame 'nope' does not name a frame.*scope 'm::arm'"),
    ('\n<pose relative_to="nope"/>', '<pose relative_to', "pose",
     "relative_to 'nope' does not name a frame.*scope 'm'"),
])
@pytest.mark.parametrize("merge", ["", ' merge="true"'])
def test_include_override_errors_name_the_include(include: str, marker: str, element: str,
                                                  match: str, merge: str) -> None:
    text = ('<sdf version="1.9"><model name="m"><link name="a"/>\n<include' + merge + '><uri>'
            + ARM + '</uri>' + include + '</include></model></sdf>')
    if merge:
        match = match.replace("'m::arm'", "'m'")
    with pytest.raises(ParseError, match=match) as info:
        _read(text)
    err = info.value
    assert (err.filename, err.line, err.element) == ("<string>", _line(text, marker), element)
