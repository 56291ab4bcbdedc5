"""Geometry names as pydrake registers them: URDF geometries without a name take their shape's type name, a
repeat within a link and role gets _1, _2, ..., and every name is scoped by its model instance."""
import importlib

import pytest

from oracles import require_pydrake

DUPLICATES = """<robot name="dup">
  <link name="a">
    <visual><geometry><box size="1 1 1"/></geometry></visual>
    <visual><geometry><box size="1 1 1"/></geometry></visual>
    <visual name="v"><geometry><sphere radius="1"/></geometry></visual>
    <visual name="v"><geometry><sphere radius="1"/></geometry></visual>
    <visual><geometry><cylinder radius="1" length="1"/></geometry></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
  </link>
</robot>"""


def _names(module: str, files: list, text: str) -> list:
    plant_mod = importlib.import_module(f"{module}.multibody.plant")
    parsing = importlib.import_module(f"{module}.multibody.parsing")
    builder = importlib.import_module(f"{module}.systems.framework").DiagramBuilder()
    plant, scene_graph = plant_mod.AddMultibodyPlantSceneGraph(builder, 0.001)
    parser = parsing.Parser(plant)
    for path in files:
        parser.AddModels(path)
    parser.AddModelsFromString(text, "urdf")
    inspector = scene_graph.model_inspector()
    return sorted(inspector.GetName(g) for g in inspector.GetAllGeometryIds())


def test_geometry_names_match_pydrake(models_dir):
    require_pydrake()
    from mallard.common import FindResourceOrThrow
    files = [FindResourceOrThrow("drake/examples/acrobot/Acrobot.urdf"),
             str(models_dir / "drake_models/ycb/meshes/004_sugar_box_textured.obj")]
    with pytest.warns(UserWarning, match="visual name 'v' has already been used, renaming to 'v_1' instead"):
        mine = _names("mallard", files, DUPLICATES)
    assert mine == _names("pydrake", files, DUPLICATES)
    assert "dup::Box_1" in mine and "dup::v_1" in mine
