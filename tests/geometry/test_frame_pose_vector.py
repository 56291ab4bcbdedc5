"""FramePoseVector's SetFromArrays block (the plant's fast path) and SceneGraph's one-gather pose
evaluation: same poses as per-frame set_value, nested frames, missing frames and mixed use."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry import (AddContactMaterial, CoulombFriction, FramePoseVector, GeometryFrame, GeometryInstance,
                              SceneGraph, Sphere)
from mallard.geometry.identifiers import GeometryLookupError
from mallard.multibody.math import RigidTransform, RollPitchYaw


def _scene():
    """Three frames (one nested below another), a sphere on each."""
    sg = SceneGraph()
    s = sg.RegisterSource("src")
    f0 = sg.RegisterFrame(s, GeometryFrame("a"))
    f1 = sg.RegisterFrame(s, GeometryFrame("b"))
    f2 = sg.RegisterFrame(s, f1, GeometryFrame("c"))
    geoms = []
    for k, f in enumerate((f0, f1, f2)):
        g = GeometryInstance(RigidTransform([0.0, 0.0, 0.1 * k]), Sphere(0.05), f"g{k}")
        g.set_proximity_properties(AddContactMaterial(friction=CoulombFriction(1.0, 1.0)))
        geoms.append(sg.RegisterGeometry(s, f, g))
    return sg, s, [f0, f1, f2], geoms


POSES = [RigidTransform(RollPitchYaw(0.1, 0.2, 0.3), [0.5, 0.0, 0.2]),
         RigidTransform(RollPitchYaw(-0.4, 0.0, 1.1), [0.0, 1.0, 0.3]),
         RigidTransform(RollPitchYaw(0.0, 0.7, 0.0), [0.1, 0.2, 0.0])]


def _arrays(poses):
    R = np.array([X.rotation().matrix() for X in poses])
    p = np.array([X.translation() for X in poses])
    return R, p


def test_block_matches_per_frame_values():
    sg, s, frames, geoms = _scene()
    ctx_a, ctx_b = sg.CreateDefaultContext(), sg.CreateDefaultContext()
    per_frame = FramePoseVector()
    for f, X in zip(frames, POSES):
        per_frame.set_value(f, X)
    block = FramePoseVector()
    R, p = _arrays(POSES)
    block.SetFromArrays(list(reversed(frames)), R[::-1], p[::-1])  # any id order
    sg.get_source_pose_port(s).FixValue(ctx_a, per_frame)
    sg.get_source_pose_port(s).FixValue(ctx_b, block)
    qa, qb = sg.get_query_output_port().Eval(ctx_a), sg.get_query_output_port().Eval(ctx_b)
    for g in geoms:
        np.testing.assert_allclose(qb.GetPoseInWorld(g).GetAsMatrix4(), qa.GetPoseInWorld(g).GetAsMatrix4(),
                                   atol=1e-15)
    # the nested frame composes with its parent: X_WG2 = X_W1 X_12 X_2G
    X_WG2 = POSES[1].multiply(POSES[2]).multiply(RigidTransform([0.0, 0.0, 0.2]))
    np.testing.assert_allclose(qb.GetPoseInWorld(geoms[2]).GetAsMatrix4(), X_WG2.GetAsMatrix4(), atol=1e-14)


def test_block_updates_and_map_access():
    sg, s, frames, geoms = _scene()
    fpv = FramePoseVector()
    R, p = _arrays(POSES)
    fpv.SetFromArrays(frames, R, p)
    fpv.SetFromArrays(frames, R, p + 1.0)  # same frames again: replaces the block
    assert fpv.size() == 3 and fpv.has_id(frames[2]) and fpv.ids() == frames
    np.testing.assert_allclose(fpv.value(frames[1]).translation(), p[1] + 1.0)
    fpv.set_value(frames[0], RigidTransform([9.0, 9.0, 9.0]))  # per-frame write after the block
    np.testing.assert_allclose(fpv.value(frames[0]).translation(), [9.0, 9.0, 9.0])
    np.testing.assert_allclose(fpv.value(frames[2]).translation(), p[2] + 1.0)
    fpv.SetFromArrays(frames[1:], R[1:], p[1:])  # a partial block merges into the map
    np.testing.assert_allclose(fpv.value(frames[0]).translation(), [9.0, 9.0, 9.0])
    np.testing.assert_allclose(fpv.value(frames[1]).translation(), p[1])
    ctx = sg.CreateDefaultContext()
    sg.get_source_pose_port(s).FixValue(ctx, fpv)
    q = sg.get_query_output_port().Eval(ctx)
    np.testing.assert_allclose(q.GetPoseInWorld(geoms[0]).translation(), [9.0, 9.0, 9.0])
    fpv.clear()
    assert fpv.size() == 0
    with pytest.raises(GeometryLookupError):
        fpv.value(frames[0])


def test_block_missing_a_frame_raises_naming_the_source():
    sg, s, frames, _ = _scene()
    fpv = FramePoseVector()
    R, p = _arrays(POSES)
    fpv.SetFromArrays(frames[:2], R[:2], p[:2])
    ctx = sg.CreateDefaultContext()
    sg.get_source_pose_port(s).FixValue(ctx, fpv)
    with pytest.raises(RuntimeError, match="source 'src' provided no pose"):
        sg.get_query_output_port().Eval(ctx).ComputeContactPoints()
    with pytest.raises(ValueError, match="SetFromArrays"):
        fpv.SetFromArrays(frames, R[:2], p[:2])
