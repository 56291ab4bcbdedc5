"""The parsers accept the files pydrake accepts, with the same result and warnings, and reject (with a located
message) the ones Drake cannot load: checked against pydrake's parser."""
from __future__ import annotations

import warnings

import pytest

from oracles import require_pydrake

from mallard.multibody.parsing import Parser
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import ParseError, ParseWarning
from mallard.systems.framework import DiagramBuilder

ACCEPTED = {
    "xml declaration after whitespace": ("\n  <?xml version='1.0'?>\n<robot name='r'><link name='a'/></robot>",
                                         "urdf"),
    "latin-1 declaration after whitespace": ("\n<?xml version='1.0' encoding='ISO-8859-1'?>\n"
                                             "<robot name='r\xe9'><link name='a'/></robot>", "urdf"),
    "default namespace on robot": ("<robot name='r' xmlns='http://www.ros.org'><link name='a'/></robot>", "urdf"),
    "zero-radius URDF sphere": ("<robot name='r'><link name='a'><visual><geometry><sphere radius='0'/></geometry>"
                                "</visual></link></robot>", "urdf"),
    "SDFormat after whitespace": ("  \n<?xml version='1.0'?>\n<sdf version='1.7'><model name='m'><link name='a'/>"
                                  "</model></sdf>", "sdf"),
}

SDF_ZERO_SHAPES = ["<box><size>0 0 0</size></box>", "<box><size>1 0 1</size></box>",
                   "<cylinder><radius>0</radius><length>1</length></cylinder>",
                   "<cylinder><radius>1</radius><length>0</length></cylinder>",
                   "<capsule><radius>0</radius><length>1</length></capsule>",
                   "<ellipsoid><radii>0 1 1</radii></ellipsoid>", "<sphere><radius>-1</radius></sphere>"]
SDF_MISSING_SIZES = ["<box/>", "<cylinder><radius>0.1</radius></cylinder>", "<sphere/>"]


def _mallard_parse(text: str, kind: str):
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        models = Parser(plant).AddModelsFromString(text, kind)
    return plant, scene_graph, models, [str(w.message) for w in caught if issubclass(w.category, ParseWarning)]


def _drake_parse(text: str, kind: str):
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph as DrakeAdd
    from pydrake.systems.framework import DiagramBuilder as DrakeBuilder
    builder = DrakeBuilder()
    plant, scene_graph = DrakeAdd(builder, 0.0)
    models = DrakeParser(plant).AddModelsFromString(text, kind)
    return plant, scene_graph, models


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_accepts_what_pydrake_accepts(case):
    text, kind = ACCEPTED[case]
    plant, _, models, parse_warnings = _mallard_parse(text, kind)
    d_plant, _, d_models = _drake_parse(text, kind)
    assert len(models) == len(d_models) == 1
    assert plant.GetModelInstanceName(models[0]) == d_plant.GetModelInstanceName(d_models[0])
    assert plant.num_bodies() == d_plant.num_bodies()
    assert parse_warnings == []  # pydrake says nothing about these files either


@pytest.mark.parametrize("shape", SDF_ZERO_SHAPES)
def test_sdformat_non_positive_sizes_become_libsdformat_defaults(shape):
    text = (f"<sdf version='1.7'><model name='m'><link name='a'><collision name='c'><geometry>{shape}</geometry>"
            "</collision></link></model></sdf>")
    _, scene_graph, _, parse_warnings = _mallard_parse(text, "sdf")
    _, d_scene_graph, _ = _drake_parse(text, "sdf")
    ours = scene_graph.model_inspector().GetShape(scene_graph.model_inspector().GetAllGeometryIds()[0])
    theirs = d_scene_graph.model_inspector().GetShape(d_scene_graph.model_inspector().GetAllGeometryIds()[0])
    assert type(ours).__name__ == type(theirs).__name__
    getters = {"Box": ("width", "depth", "height"), "Cylinder": ("radius", "length"), "Capsule": ("radius", "length"),
               "Ellipsoid": ("a", "b", "c"), "Sphere": ("radius",)}[type(theirs).__name__]
    assert [getattr(ours, g)() for g in getters] == [getattr(theirs, g)() for g in getters]
    assert len(parse_warnings) == 1 and "is negative. Using default value of" in parse_warnings[0]


@pytest.mark.parametrize("shape", SDF_MISSING_SIZES)
def test_sdformat_missing_sizes_take_libsdformat_defaults(shape):
    text = (f"<sdf version='1.7'><model name='m'><link name='a'><collision name='c'><geometry>{shape}</geometry>"
            "</collision></link></model></sdf>")
    _, scene_graph, _, parse_warnings = _mallard_parse(text, "sdf")
    _, d_scene_graph, _ = _drake_parse(text, "sdf")
    ours = scene_graph.model_inspector().GetShape(scene_graph.model_inspector().GetAllGeometryIds()[0])
    theirs = d_scene_graph.model_inspector().GetShape(d_scene_graph.model_inspector().GetAllGeometryIds()[0])
    assert type(ours).__name__ == type(theirs).__name__ and parse_warnings == []
    for getter in ("radius", "length", "width", "depth", "height"):
        if hasattr(theirs, getter):
            assert getattr(ours, getter)() == getattr(theirs, getter)()


@pytest.mark.parametrize("geometry, match", [("<box size='0 0 0'/>", "box size must be positive"),
                                             ("<cylinder radius='0' length='1'/>", "'radius' must be positive"),
                                             ("<sphere radius='-1'/>", "must not be negative")])
def test_rejects_what_drake_cannot_build(geometry, match):
    """Drake aborts the process on these (a zero box or cylinder violates its shape preconditions); mallard raises a
    located ParseError instead."""
    text = f"<robot name='r'><link name='a'><collision><geometry>{geometry}</geometry></collision></link></robot>"
    with pytest.raises(ParseError, match=match) as info:
        _mallard_parse(text, "urdf")
    assert "<string>:1" in str(info.value)


def test_strict_parsing_reports_the_version_attribute_as_pydrake():
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    from mallard.multibody.plant import MultibodyPlant
    text = "<robot name='robot' version='0.99'><link name='a'/></robot>"
    for parser, plant_type in ((Parser, MultibodyPlant), (DrakeParser, DrakePlant)):
        plant = plant_type(0.01)  # kept alive: pydrake's Parser holds a raw pointer to it
        strict = parser(plant)
        strict.SetStrictParsing()
        with pytest.raises(RuntimeError, match="attribute 'version' found in a 'robot' tag is currently unsupported"):
            strict.AddModelsFromString(text, "urdf")
