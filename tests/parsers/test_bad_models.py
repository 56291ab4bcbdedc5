"""Bad models end in a located ParseError or a ValueError/RuntimeError naming the element, never in an unrelated
exception (ZeroDivisionError, LinAlgError, KeyError, MemoryError, "cannot reshape") or a non-finite model. One test
per defect class found by fuzzing (issue 18); tests/parsers/test_load_fuzz.py keeps the classes closed."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import ParseError, Parser
from mallard.parsers.resources import ReadFileBounded
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

FREE_BALL = '<mujoco model="m"><worldbody><body name="ball" {body}><freejoint/>' \
            '<geom type="sphere" size="0.1" {geom}/></body></worldbody></mujoco>'


def _load(tmp_path: Path, name: str, text, time_step: float = 0.0, finalize: bool = True):
    path = tmp_path / name
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
        if finalize:
            plant.Finalize()
    return builder, plant, str(path)


def _parse_error(tmp_path: Path, name: str, text, element: str | None, line: int | None = 1,
                 time_step: float = 0.0) -> ParseError:
    with pytest.raises(ParseError) as err:
        _load(tmp_path, name, text, time_step)
    assert err.value.filename == str(tmp_path / name)
    assert err.value.element == element and err.value.line == line, str(err.value)
    return err.value


# ---- ZeroDivisionError: a zero quaternion on a free body -----------------------------------------------------
@pytest.mark.parametrize("time_step", [0.0, 0.001])
def test_zero_quaternion_of_a_free_body_names_the_joint(tmp_path, time_step) -> None:
    builder, plant, _ = _load(tmp_path, "ball.xml", FREE_BALL.format(body="", geom=""), time_step)
    simulator = Simulator(builder.Build())
    plant.SetPositions(plant.GetMyContextFromRoot(simulator.get_mutable_context()), np.zeros(7))
    with pytest.raises(RuntimeError, match=r"QuaternionToRotationMatrix\(\): All the elements in a quaternion are "
                                           r"zero: joint '.*ball', which moves body 'ball'"):
        simulator.AdvanceTo(0.01)


def test_zero_quaternion_in_the_file_is_a_parse_error(tmp_path) -> None:
    err = _parse_error(tmp_path, "q.xml", FREE_BALL.format(body='quat="0 0 0 0"', geom=""), "body")
    assert "quat has zero length" in err.detail


# ---- LinAlgError: geometry of infinite size, a duplicated joint, a massless body ---------------------------------
def test_infinite_geom_size_is_located_at_the_geom(tmp_path) -> None:
    err = _parse_error(tmp_path, "inf.xml", FREE_BALL.format(body="", geom="").replace('size="0.1"', 'size="inf"'),
                       "geom")
    assert "geom size [inf, 0.0, 0.0]" in err.detail and "body 'ball'" in err.detail


def test_infinite_box_side_is_located_at_the_geom(tmp_path) -> None:
    text = '<mujoco><worldbody><geom type="box" size="1 inf 1"/></worldbody></mujoco>'
    err = _parse_error(tmp_path, "box.xml", text, "geom")
    assert "size [1.0, inf, 1.0] is not finite" in err.detail


def test_duplicated_joint_is_located_at_the_joint_setconst_cannot_invert(tmp_path) -> None:
    text = ('<mujoco><worldbody><body name="b"><joint name="a" type="hinge" axis="0 1 0"/>'
            '<joint name="again" type="hinge" axis="0 1 0"/>'
            '<geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.05"/></body></worldbody></mujoco>')
    err = _parse_error(tmp_path, "dup.xml", text, "joint")
    assert "joint 'again'" in err.detail and "singular" in err.detail


def test_urdf_inertia_misplaced_in_visual_loads_as_pydrake_and_fails_when_simulated(tmp_path) -> None:
    """An <inertial> left without its <inertia> (moved into <visual>): pydrake finalizes the plant and throws
    when stepping it; so does mallard (no LinAlgError at Finalize), naming the joint."""
    text = ('<robot name="r"><link name="a"><inertial><mass value="1"/></inertial><visual><geometry><box size="1 1 1"/>'
            '</geometry><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></visual></link></robot>')
    builder, plant, _ = _load(tmp_path, "r.urdf", text, time_step=0.001)
    simulator = Simulator(builder.Build())
    with pytest.raises(RuntimeError, match=r"mass matrix is not positive definite \(zero inertia along joints \['a'\]"):
        simulator.AdvanceTo(0.01)


# ---- KeyError: <robot name="::"> -----------------------------------------------------------------------------
def test_model_name_of_only_scope_separators(tmp_path) -> None:
    err = _parse_error(tmp_path, "r.urdf", '<robot name="::"><link name="a"/></robot>', "robot")
    assert "model name '::' is empty" in err.detail


# ---- MemoryError: an include of /dev/zero ------------------------------------------------------------------
def test_sdformat_include_of_a_device_is_refused(tmp_path) -> None:
    text = ('<sdf version="1.9"><model name="m"><link name="l"/><include><uri>file:///dev/zero</uri></include>'
            '</model></sdf>')
    err = _parse_error(tmp_path, "m.sdf", text, "include")
    assert "'/dev/zero' is not a regular file" in err.detail


def test_mjcf_include_of_a_device_is_refused(tmp_path) -> None:
    err = _parse_error(tmp_path, "m.xml", '<mujoco><include file="/dev/zero"/><worldbody/></mujoco>', "include")
    assert "/dev/zero" in err.detail


def test_reads_are_bounded(tmp_path) -> None:
    big = tmp_path / "big.urdf"
    big.write_bytes(b" " * 1001)
    with pytest.raises(OSError, match="larger than 1000 bytes"):
        ReadFileBounded(big, max_bytes=1000)
    with pytest.raises(OSError, match="not a regular file"):
        ReadFileBounded("/dev/zero")
    assert ReadFileBounded(big) == b" " * 1001


# ---- "cannot reshape": an MJCF model without joints ----------------------------------------------------------
@pytest.mark.parametrize("time_step", [0.0, 0.002])
def test_mjcf_model_without_joints_loads_and_simulates(tmp_path, time_step) -> None:
    text = '<mujoco><worldbody><body name="b"><geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
    builder, plant, _ = _load(tmp_path, "fixed.xml", text, time_step)
    assert plant.num_velocities() == 0
    simulator = Simulator(builder.Build())
    simulator.AdvanceTo(0.01)
    assert simulator.get_context().get_time() == pytest.approx(0.01)


# ---- non-finite models --------------------------------------------------------------------------------------
def test_mjcf_body_at_1e308_is_located_at_the_body(tmp_path) -> None:
    err = _parse_error(tmp_path, "far.xml", FREE_BALL.format(body='pos="0 -1e308 0"', geom=""), "body")
    assert "body 'ball': the joint-space inertia at qpos0 is not finite" in err.detail


_FAR_LINK = ('<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" '
             'ixz="0" iyz="0"/></inertial></link><link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" '
             'izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="j" type="fixed"><parent link="a"/>'
             '<child link="b"/><origin xyz="0 -1e308 0"/></joint></robot>')


@pytest.mark.parametrize("time_step", [0.0, 0.001])
def test_urdf_link_at_1e308_is_rejected_at_finalize_naming_it(tmp_path, time_step) -> None:
    with pytest.raises(ValueError, match=r"Finalize: the mass matrix at the default state is not finite because of "
                                         r"body '[ab]' \(model instance 'r'\)"):
        _load(tmp_path, "far.urdf", _FAR_LINK, time_step)


def test_infinite_gear_ratio_is_rejected_at_finalize_naming_the_joint(tmp_path) -> None:
    text = ('<robot name="r" xmlns:drake="http://drake.mit.edu"><link name="a"><inertial><mass value="1"/>'
            '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><link name="b"><inertial>'
            '<mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>'
            '<transmission type="SimpleTransmission" name="t"><actuator name="m"><drake:rotor_inertia value="1"/>'
            '<drake:gear_ratio value="1e300"/></actuator><joint name="j"/></transmission></robot>')
    with pytest.raises(ValueError, match=r"the reflected \(rotor\) inertia or armature of joint 'j' is not finite"):
        _load(tmp_path, "gear.urdf", text)


@pytest.mark.parametrize("attribute, element, detail", [
    ('<body name="b" euler="0 inf 0">', "body", "euler [0.0, inf, 0.0] is not finite"),
    ('<body name="b"><joint name="j" stiffness="inf"/>', "joint", "joint 'j': stiffness inf is not finite"),
])
def test_infinite_mjcf_numbers_are_located(tmp_path, attribute, element, detail) -> None:
    text = (f'<mujoco><worldbody>{attribute}<geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
            .replace('<body name="b"><joint name="j" stiffness="inf"/><geom', '<body name="b"><joint name="j" '
                     'stiffness="inf"/><geom'))
    err = _parse_error(tmp_path, "n.xml", text, element)
    assert detail in err.detail


def test_infinite_gravity_option_is_located(tmp_path) -> None:
    err = _parse_error(tmp_path, "g.xml", '<mujoco><option gravity="0 inf -1"/><worldbody/></mujoco>', "option")
    assert "option gravity [0.0, inf, -1.0] is not finite" in err.detail


def test_huge_collision_sphere_names_the_contact(tmp_path) -> None:
    """Finite but absurd (radius 1e300): pydrake accepts the model and fails in its solver; mallard names the pair."""
    text = ('<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" '
            'ixz="0" iyz="0"/></inertial><collision name="huge"><geometry><sphere radius="1e300"/></geometry>'
            '</collision></link><link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" '
            'ixz="0" iyz="0"/></inertial><collision name="small"><geometry><sphere radius="0.1"/></geometry>'
            '</collision></link></robot>')
    builder, _, _ = _load(tmp_path, "big.urdf", text, 0.001)
    with pytest.raises((RuntimeError, ValueError), match=r"contact between geometr") as err:
        Simulator(builder.Build()).AdvanceTo(0.001)
    assert "huge" in str(err.value) and "small" in str(err.value)
    builder, _, _ = _load(tmp_path, "big.urdf", text, 0.0)  # continuous: the first step throws the bodies apart
    with pytest.raises(RuntimeError, match=r"non-finite generalized accelerations: body '[ab]' is .* m from the "
                                           r"world origin; the simulation diverged"):
        Simulator(builder.Build()).AdvanceTo(0.001)


# ---- errors without a place --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, data, detail", [
    ("empty.urdf", b"", "the file is empty"),
    ("blank.sdf", b"  \n\t", "the file is empty (it holds only white space)"),
    ("binary.urdf", bytes(range(256)), "the file is binary, not XML text (it holds a NUL byte at offset 0)"),
    ("latin.sdf", b"\xff\xfe\x80\x81" * 20, "the file is binary, not XML text (byte 0xff at offset 0 is not UTF-8)"),
    ("text.urdf", b"hello", "the file holds no XML element (it starts with 'hello')"),
])
def test_empty_or_binary_files_say_so(tmp_path, name, data, detail) -> None:
    err = _parse_error(tmp_path, name, data, None, None)
    assert err.detail == detail


@pytest.mark.parametrize("data, detail", [(b"", "the file is empty"),
                                          (bytes(range(256)), "the file is binary, not XML text")])
def test_empty_or_binary_mjcf_files_say_so(tmp_path, data, detail) -> None:
    err = _parse_error(tmp_path, "m.xml", data, "xml")
    assert err.detail.startswith(detail)


def test_undefined_collision_filter_group_is_located_at_the_group(tmp_path) -> None:
    text = ('<robot name="r" xmlns:drake="http://drake.mit.edu">\n<link name="l"/>\n'
            '<drake:collision_filter_group name="g"><drake:member link="l"/>'
            '<drake:ignored_collision_filter_group name="nope"/></drake:collision_filter_group>\n</robot>')
    err = _parse_error(tmp_path, "r.urdf", text, "drake:collision_filter_group", 3)
    assert err.detail.startswith("collision filter group 'g': names group 'r::nope', which is not defined")
