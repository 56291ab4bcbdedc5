"""Parser's user-facing behaviour: constructors, naming (prefix, auto-renaming), strict parsing,
strings and package:// URLs, springs / mimic / actuators, and clear errors for bad input."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_pydrake

from mallard.geometry import SceneGraph
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.multibody.tree import RevoluteSpring
from mallard.parsers import CollisionFilterGroups, ParseError, Parser, ParseWarning
from mallard.systems.framework import DiagramBuilder

DATA = Path(__file__).resolve().parent / "data"

PENDULUM_URDF = """<?xml version="1.0"?>
<robot name="pendulum">
  <link name="arm"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="pivot" type="continuous"><parent link="world"/><child link="arm"/><axis xyz="0 1 0"/></joint>
  <transmission><type>transmission_interface/SimpleTransmission</type><joint name="pivot"/>
    <actuator name="motor"/></transmission>
</robot>
"""

MIMIC_URDF = """<?xml version="1.0"?>
<robot name="gripper">
  <link name="palm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="left"><inertial><mass value="0.1"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="right"><inertial><mass value="0.1"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="base" type="fixed"><parent link="world"/><child link="palm"/></joint>
  <joint name="left_slide" type="prismatic"><parent link="palm"/><child link="left"/><axis xyz="1 0 0"/>
    <limit lower="-0.05" upper="0" effort="10" velocity="1"/></joint>
  <joint name="right_slide" type="prismatic"><parent link="palm"/><child link="right"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.05" effort="10" velocity="1"/><mimic joint="left_slide" multiplier="-1" offset="0.01"/></joint>
</robot>
"""

SPRING_SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="sprung">
    <link name="base"/>
    <link name="flap"><inertial><mass>0.5</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz>
      <ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>
    <joint name="weld" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="hinge" type="revolute"><parent>base</parent><child>flap</child>
      <axis><xyz>0 0 1</xyz><dynamics><spring_reference>0.3</spring_reference><spring_stiffness>12</spring_stiffness>
      <damping>0.2</damping></dynamics><limit><effort>-1</effort></limit></axis></joint>
  </model>
</sdf>
"""

NESTED_SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="outer">
    <link name="base"><inertial><mass>1</mass></inertial></link>
    <model name="inner">
      <link name="tip"><pose>0 0 1 0 0 0</pose><inertial><mass>0.5</mass></inertial></link>
    </model>
    <joint name="hinge" type="revolute"><parent>base</parent><child>inner::tip</child>
      <axis><xyz>1 0 0</xyz></axis></joint>
  </model>
</sdf>
"""

UNKNOWN_ELEMENT_URDF = """<robot name="odd"><link name="a"><foo/></link></robot>"""


def _load(parser: Parser, path: Path) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParseWarning)
        return parser.AddModels(str(path))


# ---- constructors ------------------------------------------------------------------------------------
def test_constructors_and_accessors() -> None:
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    assert parser.plant() is plant and parser.scene_graph() is None and parser.builder() is None
    assert parser.GetAutoRenaming() is False
    scene_graph = SceneGraph()
    assert Parser(plant, scene_graph).scene_graph() is scene_graph
    prefixed = Parser(plant, "left")
    assert prefixed.scene_graph() is None
    prefixed.AddModelsFromString(PENDULUM_URDF, "urdf")
    assert plant.HasModelInstanceNamed("left::pendulum")
    Parser(plant, scene_graph, "right").AddModelsFromString(PENDULUM_URDF, "urdf")
    assert plant.HasModelInstanceNamed("right::pendulum")
    Parser(plant, model_name_prefix="kw").AddModelsFromString(PENDULUM_URDF, "urdf")
    assert plant.HasModelInstanceNamed("kw::pendulum")


def test_builder_constructor_finds_plant_and_scene_graph(models_dir: Path) -> None:
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.001)
    parser = Parser(builder)
    assert parser.plant() is plant and parser.scene_graph() is scene_graph and parser.builder() is builder
    (instance,) = parser.AddModels(str(models_dir / "drake_examples" / "Acrobot.urdf"))
    assert plant.GetModelInstanceName(instance) == "Acrobot"
    assert Parser(builder, model_name_prefix="p").AddModelsFromString(PENDULUM_URDF, "urdf")
    assert plant.HasModelInstanceNamed("p::pendulum")
    with pytest.raises(RuntimeError, match="no subsystem named 'plant'"):
        Parser(DiagramBuilder())
    with pytest.raises(ValueError, match="MultibodyPlant or a DiagramBuilder"):
        Parser("plant")


def test_parser_with_scene_graph_registers_geometry_and_plain_plant_keeps_records(models_dir: Path) -> None:
    path = str(models_dir / "drake_models" / "wsg_50_description" / "sdf" / "schunk_wsg_50_with_tip.sdf")
    package_xml = str(models_dir / "drake_models" / "package.xml")
    plant, scene_graph = MultibodyPlant(0.001), SceneGraph()
    parser = Parser(plant, scene_graph)
    parser.package_map().Remove("drake_models")  # the default map knows it as a remote package, as pydrake's
    parser.package_map().AddPackageXml(package_xml)
    parser.AddModels(path)
    assert plant.geometry_source_is_registered()
    assert (plant.num_collision_geometries(), plant.num_visual_geometries()) == (11, 3)
    bare = MultibodyPlant(0.001)
    parser = Parser(bare)
    parser.package_map().Remove("drake_models")
    parser.package_map().AddPackageXml(package_xml)
    (instance,) = parser.AddModels(path)
    assert not bare.geometry_source_is_registered() and bare.num_collision_geometries() == 0
    record = parser.GetModelRecords()[instance]
    assert sum(len(link.collisions) for link in record.links) == 11


# ---- naming ------------------------------------------------------------------------------------------
def test_duplicate_model_name_is_an_error_naming_it(models_dir: Path) -> None:
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    parser.AddModels(str(models_dir / "drake_examples" / "cart_pole.sdf"))
    before = plant.num_model_instances(), plant.num_bodies()
    with pytest.raises(RuntimeError, match="model instance named 'CartPole'.*SetAutoRenaming"):
        parser.AddModels(str(models_dir / "drake_examples" / "cart_pole.sdf"))
    assert (plant.num_model_instances(), plant.num_bodies()) == before  # nothing half-added


def test_auto_renaming_matches_pydrake(models_dir: Path) -> None:
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    path = str(models_dir / "drake_examples" / "cart_pole.sdf")
    names = []
    for plant_type, parser_type in ((MultibodyPlant, Parser), (DrakePlant, DrakeParser)):
        plant = plant_type(0.0)
        parser = parser_type(plant)
        parser.SetAutoRenaming(True)
        assert parser.GetAutoRenaming()
        instances = [i for _ in range(3) for i in parser.AddModels(path)]
        instances += parser_type(plant, "pre").AddModels(path)
        names.append([plant.GetModelInstanceName(i) for i in instances])
    assert names[0] == names[1] == ["CartPole", "CartPole_1", "CartPole_2", "pre::CartPole"]


def test_auto_renaming_rescopes_nested_models_like_pydrake() -> None:
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    from pydrake.multibody.tree import ModelInstanceIndex as DrakeIndex
    names = []
    for plant_type, parser_type, index in ((MultibodyPlant, Parser, int), (DrakePlant, DrakeParser, DrakeIndex)):
        plant = plant_type(0.0)
        parser = parser_type(plant)
        parser.SetAutoRenaming(True)
        for _ in range(2):
            parser.AddModelsFromString(NESTED_SDF, "sdf")
        plant.Finalize()
        names.append(([plant.GetModelInstanceName(index(i)) for i in range(plant.num_model_instances())],
                      plant.GetStateNames()))
    assert names[0] == names[1]
    assert "outer_1::inner" in names[0][0]


# ---- strict parsing ----------------------------------------------------------------------------------
def test_strict_parsing_turns_warnings_into_errors() -> None:
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    with pytest.warns(ParseWarning, match="foo"):
        parser.AddModelsFromString(UNKNOWN_ELEMENT_URDF, "urdf")
    strict = Parser(plant, "strict")
    strict.SetStrictParsing()
    with pytest.raises(ParseError, match="foo"):
        strict.AddModelsFromString(UNKNOWN_ELEMENT_URDF, "urdf")
    assert not plant.HasModelInstanceNamed("strict::odd")


def test_mimic_on_continuous_plant_is_kept_and_its_dynamics_refused() -> None:
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModelsFromString(MIMIC_URDF, "urdf")
    assert plant.num_constraints() == 1
    plant.Finalize()
    with pytest.raises(RuntimeError, match="continuous time"):
        plant.EvalTimeDerivatives(plant.CreateDefaultContext())


# ---- strings, URLs, dispatch -------------------------------------------------------------------------
def test_add_models_from_string_and_file_contents() -> None:
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    (a,) = parser.AddModelsFromString(PENDULUM_URDF, "urdf")
    (b,) = Parser(plant, "s").AddModels(file_contents=SPRING_SDF, file_type="sdf")
    assert [plant.GetModelInstanceName(i) for i in (a, b)] == ["pendulum", "s::sprung"]
    plant.Finalize()
    assert plant.GetStateNames(False) == ["pivot_q", "hinge_q", "pivot_w", "hinge_w"]
    assert plant.GetJointActuatorByName("motor").joint().name() == "pivot"
    with pytest.raises(ValueError, match="file_type 'yaml' is not recognized"):
        parser.AddModelsFromString(PENDULUM_URDF, "yaml")
    with pytest.raises(ValueError, match="exactly one"):
        parser.AddModels("a.urdf", file_contents=PENDULUM_URDF, file_type="urdf")
    with pytest.raises(ValueError, match="needs file_type"):
        parser.AddModels(file_contents=PENDULUM_URDF)


def test_package_urls(models_dir: Path) -> None:
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    parser.package_map().Remove("drake_models")  # the default map knows it as a remote package, as pydrake's
    parser.package_map().AddPackageXml(str(models_dir / "drake_models" / "package.xml"))
    (iiwa,) = parser.AddModelsFromUrl("package://drake_models/iiwa_description/sdf/iiwa14_no_collision.sdf")
    (wsg,) = parser.AddModels(url="package://drake_models/wsg_50_description/sdf/schunk_wsg_50.sdf")
    assert [plant.GetModelInstanceName(i) for i in (iiwa, wsg)] == ["iiwa14", "Schunk_Gripper"]
    with pytest.raises(ParseError, match="no_such_package"):
        parser.AddModelsFromUrl("package://no_such_package/robot.urdf")


def test_bad_files_give_clear_errors(tmp_path: Path) -> None:
    parser = Parser(MultibodyPlant(0.0))
    missing = tmp_path / "nowhere" / "robot.urdf"
    with pytest.raises(ParseError, match=f"file not found: '{missing}'"):
        parser.AddModels(str(missing))
    (tmp_path / "robot.txt").write_text("x")
    with pytest.raises(ParseError, match=r"not recognized; known types are \.urdf, \.sdf, \.xml, \.obj, \.dmd\.yaml"):
        parser.AddModels(str(tmp_path / "robot.txt"))
    (tmp_path / "mesh.obj").write_text("x")
    with pytest.raises(ParseError, match=r"mesh\.obj:\?: The OBJ data parsed contains no objects"):
        parser.AddModels(str(tmp_path / "mesh.obj"))
    with pytest.raises(ParseError, match=f"file not found: '{tmp_path / 'scene.xml'}'"):
        parser.AddModels(str(tmp_path / "scene.xml"))
    with pytest.raises(ParseError, match=r"<string>:1: <xml> malformed XML"):
        parser.AddModelsFromString("<mujoco><worldbody>", "xml")
    with pytest.raises(ParseError, match=r":3: <joint>.*class 'nope'"):
        parser.AddModelsFromString("<mujoco>\n<worldbody><body>\n<joint class='nope'/><geom size='0.1'/>\n"
                                   "</body></worldbody></mujoco>", "xml")
    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="r">\n<link name="a"><inertial><mass value="1"/>'
                   '<inertia ixx="1" iyy="1" izz="5" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>')
    with pytest.raises(ParseError, match=r"(?s)bad.urdf:2: <link> link 'a'.*triangle inequality"):
        parser.AddModels(str(bad))
    assert not parser.plant().HasModelInstanceNamed("r")  # validated before anything is added


def test_adding_after_finalize_is_an_order_error() -> None:
    plant = MultibodyPlant(0.0)
    plant.Finalize()
    with pytest.raises(RuntimeError, match="already finalized"):
        Parser(plant).AddModelsFromString(PENDULUM_URDF, "urdf")


# ---- plant elements built from file features ---------------------------------------------------------
def test_spring_stiffness_becomes_revolute_spring_and_negative_effort_unlimited() -> None:
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModelsFromString(SPRING_SDF, "sdf")
    springs = [plant.get_force_element(i) for i in range(plant.num_force_elements())
               if isinstance(plant.get_force_element(i), RevoluteSpring)]
    assert len(springs) == 1
    assert (springs[0].joint().name(), springs[0].nominal_angle(), springs[0].stiffness()) == ("hinge", 0.3, 12.0)
    actuator = plant.GetJointActuatorByName("hinge")
    assert actuator.effort_limit() == np.inf
    assert plant.GetJointByName("hinge").damping() == 0.2


def test_mimic_on_discrete_plant_adds_coupler_constraint() -> None:
    plant = MultibodyPlant(0.001)
    Parser(plant).AddModelsFromString(MIMIC_URDF, "urdf")
    (spec,) = plant.constraint_specs()
    assert spec["kind"] == "Coupler"
    assert (spec["joint0"].name(), spec["joint1"].name()) == ("right_slide", "left_slide")
    assert (spec["gear_ratio"], spec["offset"]) == (-1.0, 0.01)


def test_actuator_gear_ratio_and_rotor_inertia_match_pydrake() -> None:
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    files = [DATA / "joints.sdf", DATA / "test_pkg" / "urdf" / "finger.urdf"]
    results = []
    for plant_type, parser_type in ((MultibodyPlant, Parser), (DrakePlant, DrakeParser)):
        plant = plant_type(0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for f in files:
                parser_type(plant).AddModels(str(f))
        results.append([(a.name(), a.effort_limit(), a.default_gear_ratio(), a.default_rotor_inertia())
                        for a in (plant.get_joint_actuator(i) for i in plant.GetJointActuatorIndices())])
    assert results[0] == results[1]
    assert ("bc", np.inf, 7.0, 0.0) in results[0]


def test_model_records_are_kept_with_final_names() -> None:
    plant = MultibodyPlant(0.0)
    parser = Parser(plant, "x")
    parser.package_map().PopulateFromFolder(str(DATA / "test_pkg"))
    instances = _load(parser, DATA / "nested_world.sdf")
    records = parser.GetModelRecords()
    assert {plant.GetModelInstanceName(i) for i in records} >= {plant.GetModelInstanceName(i) for i in instances}
    table = records[plant.GetModelInstanceByName("x::table")]
    assert table.name == "x::table"
    assert [g.shape.type for g in table.link("top").collisions] == ["box"]


def test_collision_filter_groups_match_pydrake(models_dir: Path) -> None:
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph as DrakeAddPlant
    from pydrake.systems.framework import DiagramBuilder as DrakeBuilder
    files = [str(DATA / "nested_world.sdf"),
             str(models_dir / "drake_models" / "iiwa_description" / "urdf" / "iiwa14_primitive_collision.urdf")]
    parser = Parser(MultibodyPlant(0.0))
    drake_builder = DrakeBuilder()  # kept alive: it owns the plant pydrake's Parser points to
    drake_parser = DrakeParser(DrakeAddPlant(drake_builder, 0.0)[0])
    drake_parser.package_map().Remove("drake_models")
    parser.package_map().Remove("drake_models")
    for p in (parser, drake_parser):
        p.package_map().PopulateFromFolder(str(DATA / "test_pkg"))
        p.package_map().AddPackageXml(str(models_dir / "drake_models" / "package.xml"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for f in files:
                p.AddModels(f)
    groups, drake_groups = parser.GetCollisionFilterGroups(), drake_parser.GetCollisionFilterGroups()
    assert isinstance(groups, CollisionFilterGroups) and not groups.empty()
    assert groups.groups() == drake_groups.groups()
    assert groups.exclusion_pairs() == {tuple(p) for p in drake_groups.exclusion_pairs()}
    assert "iiwa14::iiwa_wrist" in repr(groups)
