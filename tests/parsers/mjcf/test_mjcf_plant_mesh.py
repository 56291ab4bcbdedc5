"""MJCF mesh geoms collide as the convex hulls of their compiled vertices (an in-memory Convex), against mj_step."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.geometry import Convex
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.plant._mjcf_state import GetMjcfPlantMap, GetMujocoState, SetMujocoState
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder

# an irregular polyhedron (one interior vertex) and a tetrahedron that lands on a face, given by vertex data.
# Resting contacts stay at <= 3 vertices per pair: MuJoCo 4.0 adds up to 3 vertices next to the support vertex
# (4 contacts, e.g. a brick's face) where the plant's plane-convex kernel adds 2 (see the report).
MESHES = """<mujoco model="mesh_drop"><option timestep="0.002"/>
<asset>
  <mesh name="rock" vertex="0 0 0.12  0.1 0.02 -0.05  -0.06 0.09 -0.04  -0.05 -0.08 -0.06  0.03 -0.1 0.02
                             0.08 0.07 0.05  -0.09 0.0 0.06  0.0 0.0 -0.09  0.01 0.01 0.0"/>
  <mesh name="tet" vertex="0.1 0 -0.03  -0.05 0.08 -0.03  -0.05 -0.08 -0.03  0.01 0.005 0.09"/>
</asset>
<worldbody><geom name="floor" type="plane" size="5 5 .1"/>
  <body name="rock" pos="0 0 0.25" euler="15 -20 30"><freejoint/><geom type="mesh" mesh="rock"/></body>
  <body name="tet" pos="0.5 0 0.2" euler="0 10 40"><freejoint/>
    <geom type="mesh" mesh="tet" friction="0.7" solref="0.01 1" pos="0.02 0 0"/></body>
</worldbody></mujoco>"""


def _build(text: str, time_step: float):
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModelsFromString(text, "xml")
    plant.Finalize()
    diagram = builder.Build()
    root = diagram.CreateDefaultContext()
    return plant, scene_graph, plant.GetMyContextFromRoot(root)


def test_mesh_geoms_are_registered_as_in_memory_convex_hulls():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(MESHES)
    plant, scene_graph, _ = _build(MESHES, 0.002)
    inspector = scene_graph.model_inspector()
    cid, vid = GetMjcfPlantMap(plant).geoms[1]
    assert vid is None
    shape = inspector.GetShape(cid)
    assert isinstance(shape, Convex) and shape.is_in_memory() and shape.filename() == "rock"
    hull = shape.GetConvexHull()
    assert hull.num_vertices() == 8  # the interior vertex is not on the hull
    # the compiled vertices are MuJoCo's (re-centred at the mesh's centre of mass, principal axes)
    adr, num = mm.mesh_vertadr[0], mm.mesh_vertnum[0]
    mj_vertices = mm.mesh_vert[adr:adr + num]
    for v in hull.vertices():
        assert np.min(np.linalg.norm(mj_vertices - v, axis=1)) < 1e-7  # float32 both (MuJoCo rounds twice)


def test_meshes_dropped_on_plane_match_mujoco():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(MESHES)
    md = mujoco.MjData(mm)
    plant, _, context = _build(MESHES, mm.opt.timestep)
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    ncon = 0
    for _ in range(300):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        ncon = max(ncon, md.ncon)
    assert ncon >= 3
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_in_memory_convex_validates_its_points():
    with pytest.raises(ValueError, match=r"\(3, n\)"):
        Convex(np.zeros((4, 3)), "bad")
    with pytest.raises(ValueError, match="single line"):
        Convex(np.eye(3, 4), "two\nlines")
    with pytest.raises(ValueError, match="finite"):
        Convex(np.full((3, 4), np.nan), "nan")
    with pytest.raises(ValueError, match="degenerate"):
        Convex(np.zeros((3, 5)), "flat").GetConvexHull()
    assert Convex(points=np.eye(3, 4), label="kw", scale=2.0).GetConvexHull().num_vertices() == 4
    assert not Convex(points=np.eye(3, 4), label="kw").filename().endswith(".obj")
    c = Convex(np.eye(3, 4) * [[1], [2], [3]], "tet", scale3=[2.0, 1.0, 1.0])
    assert c == Convex(np.eye(3, 4) * [[1], [2], [3]], "tet", scale3=[2.0, 1.0, 1.0])
    assert np.allclose(c.GetConvexHull().vertices().max(axis=0), [2.0, 2.0, 3.0])
