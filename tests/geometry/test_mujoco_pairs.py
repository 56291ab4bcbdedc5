"""MuJoCo explicit contact pairs on SceneGraph's proximity properties (geometry/mujoco_pairs.py): the contact query
collides them whatever the masks and collision filters, once, with the pair's own margin and gap."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry import (AddMujocoContactParameters, CollisionFilterDeclaration, FramePoseVector, GeometryFrame,
                              GeometryInstance, GeometrySet, HalfSpace, ProximityProperties, RoleAssign, SceneGraph,
                              Sphere)
from mallard.geometry.mujoco_pairs import AddMujocoExplicitPair, GetMujocoExplicitPairs, MujocoExplicitPair
from mallard.multibody.math import RigidTransform


def _pair(partner, margin=0.0, gap=0.0, order=0):
    return MujocoExplicitPair(partner=partner, condim=4, friction=[0.7, 0.5, 0.01, 0.001, 0.001], solref=[0.01, 1],
                              solreffriction=[0.05, 1], solimp=[0.9, 0.95, 0.001, 0.5, 2], margin=margin, gap=gap,
                              order=order)


def _scene(z_ball: float, masks=(1, 1)):
    """A ground half space and a ball (radius 0.1) at height z_ball; returns sg, source, ids, context, query."""
    sg = SceneGraph()
    s = sg.RegisterSource("mj")
    ground = GeometryInstance(RigidTransform(), HalfSpace(), "ground")
    ground.set_proximity_properties(AddMujocoContactParameters(ProximityProperties(), contype=0, conaffinity=0))
    g_ground = sg.RegisterAnchoredGeometry(s, ground)
    f = sg.RegisterFrame(s, GeometryFrame("ball"))
    ball = GeometryInstance(RigidTransform(), Sphere(0.1), "ball")
    ball.set_proximity_properties(AddMujocoContactParameters(ProximityProperties(), contype=masks[0],
                                                             conaffinity=masks[1]))
    g_ball = sg.RegisterGeometry(s, f, ball)
    ctx = sg.CreateDefaultContext()
    fpv = FramePoseVector()
    fpv.set_value(f, RigidTransform([0, 0, z_ball]))
    sg.get_source_pose_port(s).FixValue(ctx, fpv)
    return sg, s, (g_ground, g_ball), ctx


def test_explicit_pair_collides_despite_masks_and_filters():
    sg, s, (g_ground, g_ball), ctx = _scene(0.095)
    q = sg.get_query_output_port().Eval(ctx)
    assert q.ComputeContactPoints().size() == 0  # the ground's masks are 0: no dynamic contact
    props = sg.model_inspector().GetProximityProperties(g_ball)
    AddMujocoExplicitPair(props, _pair(g_ground, margin=0.02, gap=0.01))
    sg.AssignRole(s, g_ball, props, RoleAssign.kReplace)
    sg.collision_filter_manager().Apply(CollisionFilterDeclaration().ExcludeWithin(GeometrySet([g_ground, g_ball])))
    ctx = sg.CreateDefaultContext()
    fpv = FramePoseVector()
    fpv.set_value(sg.model_inspector().GetFrameId(g_ball), RigidTransform([0, 0, 0.095]))
    sg.get_source_pose_port(s).FixValue(ctx, fpv)
    cps = sg.get_query_output_port().Eval(ctx).ComputeContactPoints()
    assert cps.size() == 1 and (cps.id_1[0], cps.id_2[0]) == (g_ground, g_ball)  # lower type (half space) first
    assert cps.dist[0] == pytest.approx(-0.005, abs=1e-15)
    assert (cps.margin[0], cps.gap[0]) == (0.02, 0.01)
    np.testing.assert_allclose(cps.frame_W[0, 0], [0, 0, 1])
    # detection reaches margin + gap: a ball 2.5 cm above the ground is reported, 3.5 cm is not
    for z, n in ((0.125, 1), (0.135, 0)):
        fpv.set_value(sg.model_inspector().GetFrameId(g_ball), RigidTransform([0, 0, z]))
        sg.get_source_pose_port(s).FixValue(ctx, fpv)
        assert sg.get_query_output_port().Eval(ctx).ComputeContactPoints().size() == n


def test_explicit_pair_replaces_the_dynamic_pair():
    sg, s, (g_ground, g_ball), ctx = _scene(0.095)
    ground_props = sg.model_inspector().GetProximityProperties(g_ground)
    AddMujocoContactParameters(ground_props, contype=1, conaffinity=1, margin=0.3)
    sg.AssignRole(s, g_ground, ground_props, RoleAssign.kReplace)
    ctx = sg.CreateDefaultContext()
    fpv = FramePoseVector()
    fpv.set_value(sg.model_inspector().GetFrameId(g_ball), RigidTransform([0, 0, 0.095]))
    sg.get_source_pose_port(s).FixValue(ctx, fpv)
    cps = sg.get_query_output_port().Eval(ctx).ComputeContactPoints()
    assert cps.size() == 1 and cps.margin[0] == pytest.approx(0.3)  # dynamic: the geometries' summed margins
    props = sg.model_inspector().GetProximityProperties(g_ball)
    AddMujocoExplicitPair(props, _pair(g_ground, margin=0.001))
    sg.AssignRole(s, g_ball, props, RoleAssign.kReplace)
    ctx = sg.CreateDefaultContext()
    sg.get_source_pose_port(s).FixValue(ctx, fpv)
    cps = sg.get_query_output_port().Eval(ctx).ComputeContactPoints()
    assert cps.size() == 1 and cps.margin[0] == pytest.approx(0.001)  # once, with the pair's margin
    # the general (SDF-capable) path: dynamic candidates without the pair, then the forced pairs' contacts
    _, compiled, R, p = sg.get_query_output_port().Eval(ctx)._prox_poses()
    assert compiled.model.contacts(R, p)[0].shape[0] == 0
    dist, pos, frame, g1, g2, margin, gap = compiled.model.forced_contact_points(R, p)
    np.testing.assert_allclose(dist, cps.dist, atol=1e-15) and np.testing.assert_allclose(frame, cps.frame_W)
    assert margin.tolist() == [0.001] and gap.tolist() == [0.0]
    assert len(GetMujocoExplicitPairs(sg.model_inspector().GetProximityProperties(g_ball))) == 1


@pytest.mark.parametrize("change, message", [
    (dict(condim=2), "condim 2"),
    (dict(friction=[1, 1, 0.005]), "friction must hold 5"),
    (dict(solref=[0.02, np.nan]), "solref must hold 2 finite"),
    (dict(margin=np.inf), "margin must be finite"),
])
def test_bad_explicit_pairs_raise(change, message):
    args = dict(partner=None, condim=3, friction=[1, 1, 0.005, 1e-4, 1e-4], solref=[0.02, 1], solreffriction=[0, 0],
                solimp=[0.9, 0.95, 0.001, 0.5, 2], margin=0.0, gap=0.0)
    args.update(change)
    with pytest.raises(ValueError, match=message):
        MujocoExplicitPair(**args)
    with pytest.raises(ValueError, match="needs a MujocoExplicitPair"):
        AddMujocoExplicitPair(ProximityProperties(), "pair")
