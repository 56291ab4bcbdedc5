"""The plant as a SceneGraph geometry source: registration, frame poses, collision filtering."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry import Box, CoulombFriction, Sphere
from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.tree import RevoluteJoint, SpatialInertia
from mallard.systems.framework import DiagramBuilder


def _robot():
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    ball = plant.AddRigidBody("ball", SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    arm = plant.AddRigidBody("arm", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.5))
    plant.AddJoint(RevoluteJoint("hinge", plant.world_frame(), arm.body_frame(), [0, 1, 0]))
    friction = CoulombFriction(0.5, 0.4)
    ball_id = plant.RegisterCollisionGeometry(ball, RigidTransform(), Sphere(0.1), "ball", friction)
    plant.RegisterVisualGeometry(ball, RigidTransform(), Sphere(0.1), "ball_visual", [0.8, 0.1, 0.1, 1.0])
    ground_id = plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform([0, 0, -0.5]),
                                                Box(10.0, 10.0, 1.0), "ground", friction)
    plant.RegisterCollisionGeometry(arm, RigidTransform([0, 0, -0.25]), Box(0.1, 0.1, 0.5), "arm", friction)
    plant.Finalize()
    return builder.Build(), plant, scene_graph, ball, arm, ball_id, ground_id


def test_registration_bookkeeping_and_ports():
    diagram, plant, scene_graph, ball, arm, ball_id, ground_id = _robot()
    assert plant.get_name() == "plant" and scene_graph.get_name() == "scene_graph"
    assert plant.geometry_source_is_registered()
    assert plant.num_collision_geometries() == 3 and plant.num_visual_geometries() == 1
    assert plant.GetCollisionGeometriesForBody(ball) == [ball_id]
    fid = plant.GetBodyFrameIdOrThrow(ball.index())
    assert plant.GetBodyFromFrameId(fid) is ball
    with pytest.raises(RuntimeError, match="Finalize"):
        plant.RegisterVisualGeometry(ball, RigidTransform(), Sphere(0.1), "late")
    context = diagram.CreateDefaultContext()
    plant_context = plant.GetMyContextFromRoot(context)
    plant.SetFreeBodyPose(plant_context, ball, RigidTransform([0.3, 0.0, 0.4]))
    poses = plant.get_geometry_pose_output_port().Eval(plant_context)
    np.testing.assert_allclose(poses.value(fid).translation(), [0.3, 0.0, 0.4])
    query = scene_graph.get_query_output_port().Eval(scene_graph.GetMyContextFromRoot(context))
    pairs = query.ComputeSignedDistancePairwiseClosestPoints(1.0)
    d = {frozenset((p.id_A, p.id_B)): p.distance for p in pairs}
    assert d[frozenset((ball_id, ground_id))] == pytest.approx(0.3, abs=1e-12)


def test_missing_friction_takes_the_default_and_a_wrong_one_is_rejected():
    """As pydrake: ProximityProperties without ("material", "coulomb_friction") register (the SceneGraph's default
    friction applies); a friction of the wrong type is named."""
    from mallard.geometry import ProximityProperties
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 1e-3)
    body = plant.AddRigidBody("b", SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.RegisterCollisionGeometry(body, RigidTransform(), Sphere(0.1), "b", ProximityProperties())
    wrong = ProximityProperties()
    wrong.AddProperty("material", "coulomb_friction", 0.5)
    with pytest.raises(ValueError, match="coulomb_friction"):
        plant.RegisterCollisionGeometry(body, RigidTransform(), Sphere(0.1), "c", wrong)
