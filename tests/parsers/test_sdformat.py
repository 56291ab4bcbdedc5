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
    assert all(m.static for m in models)
    welds = [(j.name, j.parent, j.child, j.child_model) for m in models for j in m.joints]
    assert welds == [("sdformat_model_static_world_welds_to_a", "world", "a", "top"),
                     ("sdformat_model_static_world_welds_to_b", "world", "b", "top::inner")]
    a = models[0].links[0]
    assert a.inertial.mass == 1.0  # SDFormat's default inertial
    np.testing.assert_array_equal(a.inertial.I_BBcm_B, np.eye(3))


def test_include_overrides_name_and_pose() -> None:
    text = ('<sdf version="1.9"><model name="top"><link name="base"/>'
            '<include><uri>model://mallard_test_models/models/arm</uri><name>arm2</name>'
            '<pose>0 0 5 0 0 0</pose><static>true</static></include></model></sdf>')
    top, arm = _read(text)
    assert arm.name == "top::arm2" and arm.static
    assert arm.filename.endswith("arm.sdf")
    np.testing.assert_allclose(arm.X_WM[:3, 3], [0, 0, 5])
    assert [j.name for j in arm.joints] == [
        "elbow", "sdformat_model_static_world_welds_to_shoulder",
        "sdformat_model_static_world_welds_to_forearm"]
    elbow = arm.joint("elbow")
    assert (elbow.parent_model, elbow.child_model) == ("top::arm2", "top::arm2")
    assert arm.actuators[0].gear_ratio == 50 and arm.actuators[0].rotor_inertia == 0.002


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
    ('<link name="a"><collision name="c"><geometry>\n<cylinder><radius>0.1</radius></cylinder>'
     '</geometry></collision></link>', "<cylinder", "cylinder", "needs a <length>"),
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
