"""MultibodyPositionToGeometryPose drives a SceneGraph from positions alone, with pydrake's poses (the oracle)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import mallard
import mallard.systems.rendering  # noqa: F401  (module attribute of mallard.systems, as pydrake's)
from mallard.common import FindResourceOrThrow
from mallard.multibody.parsing import Parser
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.systems.framework import DiagramBuilder
from mallard.systems.rendering import MultibodyPositionToGeometryPose, MultibodyPositionToGeometryPose_
from oracles import require_pydrake

Q = np.array([0.3, -1.1])


def acrobot_poses(module, input_multibody_state=False):
    """{(body, geometry name): X_WG as a 4x4} from `module`'s (mallard's or pydrake's) system: an acrobot plant that
    is not in the diagram (Underactuated's visualization pattern), registered with a SceneGraph whose pose input is
    driven by MultibodyPositionToGeometryPose, read back through the query object."""
    builder = module.systems.framework.DiagramBuilder()
    scene_graph = builder.AddSystem(module.geometry.SceneGraph())
    plant = module.multibody.plant.MultibodyPlant(time_step=0.0)
    plant.RegisterAsSourceForSceneGraph(scene_graph)
    module.multibody.parsing.Parser(plant).AddModels(
        module.common.FindResourceOrThrow("drake/examples/acrobot/Acrobot.urdf"))
    plant.Finalize()
    to_pose = builder.AddSystem(module.systems.rendering.MultibodyPositionToGeometryPose(
        plant, input_multibody_state=input_multibody_state))
    builder.Connect(to_pose.get_output_port(), scene_graph.get_source_pose_port(plant.get_source_id()))
    builder.ExportInput(to_pose.get_input_port(), "q")
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    x = np.concatenate([Q, [5.0, 6.0]]) if input_multibody_state else Q
    diagram.get_input_port(0).FixValue(context, x)
    query = scene_graph.get_query_output_port().Eval(scene_graph.GetMyContextFromRoot(context))
    inspector = query.inspector()
    poses = {}
    for index in range(plant.num_bodies()):
        body = plant.get_body(module.multibody.tree.BodyIndex(index))
        for geometry in plant.GetCollisionGeometriesForBody(body) + plant.GetVisualGeometriesForBody(body):
            poses[(body.name(), inspector.GetName(geometry))] = query.GetPoseInWorld(geometry).GetAsMatrix4()
    return poses, to_pose


@pytest.mark.parametrize("input_multibody_state", [False, True])
def test_poses_match_pydrake(input_multibody_state):
    pydrake = require_pydrake()
    importlib.import_module("pydrake.all")  # (its sub-modules as attributes, as the helper reads them)
    mine, system = acrobot_poses(mallard, input_multibody_state)
    theirs, _ = acrobot_poses(pydrake, input_multibody_state)
    assert mine.keys() == theirs.keys() and len(mine) >= 2
    for key in mine:
        np.testing.assert_allclose(mine[key], theirs[key], rtol=0, atol=1e-14, err_msg=str(key))
    assert system.get_input_port().size() == (4 if input_multibody_state else 2)
    assert system.get_input_port().get_name() == "position"
    assert system.get_output_port().get_name() == "geometry_pose"


def test_the_plant_must_be_finalized_and_registered_and_its_poses_are_the_plants():
    """Drake's two construction errors; on a registered plant the output is the plant's own geometry_pose at the
    input positions (no oracle needed)."""
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(FindResourceOrThrow("drake/examples/acrobot/Acrobot.urdf"))
    with pytest.raises(RuntimeError, match="has been finalized"):
        MultibodyPositionToGeometryPose(plant)
    plant.Finalize()
    with pytest.raises(RuntimeError, match="registered with a SceneGraph"):
        MultibodyPositionToGeometryPose(plant)
    builder = DiagramBuilder()
    registered, _ = AddMultibodyPlantSceneGraph(builder, 0.0)
    Parser(registered).AddModels(FindResourceOrThrow("drake/examples/acrobot/Acrobot.urdf"))
    registered.Finalize()
    system = MultibodyPositionToGeometryPose_[float](registered)
    context = system.CreateDefaultContext()
    system.get_input_port().FixValue(context, Q)
    poses = system.get_output_port().Eval(context)
    plant_context = registered.CreateDefaultContext()
    registered.SetPositions(plant_context, Q)
    expected = registered.get_geometry_pose_output_port().Eval(plant_context)
    assert len(poses.ids()) == len(expected.ids()) == 3
    for frame_id in expected.ids():
        np.testing.assert_array_equal(poses.value(frame_id).GetAsMatrix4(), expected.value(frame_id).GetAsMatrix4())
    lower = registered.GetBodyFrameIdOrThrow(registered.GetBodyByName("lower_link").index())
    at_zero = registered.get_geometry_pose_output_port().Eval(registered.CreateDefaultContext()).value(lower)
    assert not np.allclose(poses.value(lower).GetAsMatrix4(), at_zero.GetAsMatrix4())  # the input moved it
