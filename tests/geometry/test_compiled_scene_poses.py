"""CompiledScene's one-source pose path (a plant that owns every frame: one compiled gather-and-compose)
against the general per-source path and against the plant's own body poses."""
from __future__ import annotations

import numpy as np

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder


def test_single_source_poses_match_the_general_path_and_the_plant(models_dir):
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.005)
    Parser(plant).AddModels(str(models_dir / "mujoco" / "model" / "humanoid.xml"))
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(context)
    rng = np.random.default_rng(4)
    q = np.array(plant.GetPositions(pc))
    q[7:] += rng.uniform(-0.4, 0.4, q.shape[0] - 7)
    q[4:7] = [0.1, -0.2, 1.3]
    plant.SetPositions(pc, q)
    sgc = scene_graph.GetMyContextFromRoot(context)
    query = scene_graph.get_query_output_port().Eval(sgc)
    P = scene_graph._eval_poses(sgc)
    compiled = P.compiled
    assert compiled._single_source is not None  # the plant registered every frame
    fpv = plant.get_geometry_pose_output_port().Eval(pc)
    state = scene_graph._state(sgc)
    vectors = {compiled._single_source[0]: fpv}
    R_fast, p_fast = compiled.frame_poses(vectors, state.sources)
    single, compiled._single_source = compiled._single_source, None
    try:
        R_gen, p_gen = compiled.frame_poses(vectors, state.sources)
    finally:
        compiled._single_source = single
    np.testing.assert_allclose(R_fast, R_gen, atol=1e-15)
    np.testing.assert_allclose(p_fast, p_gen, atol=1e-15)
    np.testing.assert_array_equal(R_fast[0], np.eye(3))
    for body in (plant.GetBodyByName("torso"), plant.GetBodyByName("hand_left")):
        X_WB = plant.EvalBodyPoseInWorld(pc, body)
        X_WF = query.GetPoseInWorld(plant.GetBodyFrameIdOrThrow(body.index()))
        np.testing.assert_allclose(X_WF.GetAsMatrix4(), X_WB.GetAsMatrix4(), atol=1e-12)
