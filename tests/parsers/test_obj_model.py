"""Parser loads an OBJ mesh as a model as pydrake does: one free body named after the mesh, water-filled mass
properties, the mesh as collision and visual geometry, geometry names scoped by the model instance."""
import importlib

import numpy as np
import pytest

from oracles import require_pydrake

MESHES = ["ycb/meshes/004_sugar_box_textured.obj", "iiwa_description/meshes/iiwa14/collision/link_3.obj"]


def _load(module: str, path: str) -> dict:
    plant_mod = importlib.import_module(f"{module}.multibody.plant")
    parsing = importlib.import_module(f"{module}.multibody.parsing")
    builder = importlib.import_module(f"{module}.systems.framework").DiagramBuilder()
    plant, scene_graph = plant_mod.AddMultibodyPlantSceneGraph(builder, 0.001)
    (index,) = parsing.Parser(plant).AddModels(path)
    name = plant.GetModelInstanceName(index)
    body = plant.GetBodyByName(name, index)
    inspector = scene_graph.model_inspector()
    plant.Finalize()
    return dict(name=name, mass=body.default_mass(), com=np.asarray(body.default_com()),
                inertia=body.default_rotational_inertia().CopyToFullMatrix3(), free=body.is_floating_base_body(),
                bodies=plant.num_bodies(), nq=plant.num_positions(),
                collision=[inspector.GetName(g) for g in plant.GetCollisionGeometriesForBody(body)],
                visual=[inspector.GetName(g) for g in plant.GetVisualGeometriesForBody(body)])


@pytest.mark.parametrize("relative", MESHES)
def test_obj_model_matches_pydrake(models_dir, relative):
    require_pydrake()
    path = str(models_dir / "drake_models" / relative)
    mine, drake = _load("mallard", path), _load("pydrake", path)
    for key in ("mass", "com", "inertia"):
        np.testing.assert_allclose(mine.pop(key), drake.pop(key), rtol=1e-10, atol=1e-15, err_msg=key)
    assert mine == drake
    assert mine["collision"] == [f"{mine['name']}::collision"]


def test_obj_from_string_is_refused_as_in_pydrake():
    from mallard.multibody.parsing import Parser
    from mallard.multibody.plant import MultibodyPlant
    with pytest.raises(RuntimeError, match="in-memory OBJ data"):
        Parser(MultibodyPlant(0.0)).AddModelsFromString("v 0 0 0\n", "obj")
