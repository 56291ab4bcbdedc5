"""MJCF mesh geoms collide as the convex hulls of their compiled vertices (an in-memory Convex), against mj_step,
and are drawn as the compiled mesh itself (an in-memory Mesh) by MeshcatVisualizer."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.geometry import Convex, Mesh
from mallard.geometry.meshcat import Meshcat, MeshcatParams
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.mjcf.state import GetMjcfPlantMap, GetMujocoState, SetMujocoState
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder

# an irregular polyhedron (one interior vertex) and a tetrahedron that lands on a face, given by vertex data.
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


def _build(text: str, time_step: float, root: bool = False):
    plant, scene_graph, root_context, context = build_mjcf_scene(text, time_step=time_step)
    return plant, scene_graph, root_context if root else context


def test_mesh_geoms_are_registered_as_in_memory_convex_hulls():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(MESHES)
    plant, scene_graph, _ = _build(MESHES, 0.002)
    inspector = scene_graph.model_inspector()
    cid, vid = GetMjcfPlantMap(plant).geoms[1]
    visual = inspector.GetShape(vid)
    assert isinstance(visual, Mesh) and visual.is_in_memory() and visual.filename() == "rock"
    v, f = visual._mesh_arrays()  # the compiled mesh: MuJoCo's triangles (a vertex-only mesh is its hull)
    adr = mm.mesh_vertadr[0]
    mj_tris = mm.mesh_vert[adr + mm.mesh_face[mm.mesh_faceadr[0]:mm.mesh_faceadr[0] + mm.mesh_facenum[0]]]
    assert len(f) == len(mj_tris) == 12
    for tri in v[f]:  # the same triangles, same orientation (up to a cyclic shift of the corners)
        assert min(np.abs(mj_tris - np.roll(tri, k, axis=0)).max(axis=(1, 2)).min() for k in range(3)) < 1e-7
    adr, num = mm.mesh_vertadr[0], mm.mesh_vertnum[0]
    shape = inspector.GetShape(cid)
    assert isinstance(shape, Convex) and shape.is_in_memory() and shape.filename() == "rock"
    hull = shape.GetConvexHull()
    assert hull.num_vertices() == 8  # the interior vertex is not on the hull
    # the compiled vertices are MuJoCo's (re-centred at the mesh's centre of mass, principal axes)
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


# a brick mesh resting on its face and a tilted one that settles: MuJoCo 4 gives up to 4 plane-mesh contacts
BRICKS = """<mujoco model="bricks"><option timestep="0.002"/>
<asset><mesh name="brick" vertex="-.1 -.05 -.03  .1 -.05 -.03  -.1 .05 -.03  .1 .05 -.03
                                   -.1 -.05 .03  .1 -.05 .03  -.1 .05 .03  .1 .05 .03"/></asset>
<worldbody><geom name="floor" type="plane" size="5 5 .1"/>
  <body name="resting" pos="0 0 0.0299" euler="0 0 25"><freejoint/><geom type="mesh" mesh="brick"/></body>
  <body name="tilted" pos="0.5 0 0.2" euler="3 2 25"><freejoint/><geom type="mesh" mesh="brick"/></body>
</worldbody></mujoco>"""


def test_mesh_brick_on_plane_gets_mujocos_four_contacts():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(BRICKS)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    plant, scene_graph, root = _build(BRICKS, mm.opt.timestep, root=True)
    SetMujocoState(plant, plant.GetMyContextFromRoot(root), md.qpos, md.qvel)
    query = scene_graph.get_query_output_port().Eval(scene_graph.GetMyContextFromRoot(root))
    contacts = query.ComputeContactPoints()
    by_point = lambda row: tuple(np.round(row[1:4], 9))  # noqa: E731 - equal depths: order by contact point
    ref = sorted(((c.dist, *c.pos, *c.frame[:3]) for c in md.contact[:md.ncon]), key=by_point)
    mine = sorted(((d, *p, *f[0]) for d, p, f in zip(contacts.dist, contacts.pos_W, contacts.frame_W)), key=by_point)
    assert md.ncon == 4 and len(mine) == 4
    np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-9)


def test_mesh_bricks_settle_on_plane_as_in_mujoco():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(BRICKS)
    md = mujoco.MjData(mm)
    plant, _, context = _build(BRICKS, mm.opt.timestep)
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    ncon = 0
    for _ in range(300):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        ncon = max(ncon, md.ncon)
    assert ncon == 8  # four per brick
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def _prism(n: int) -> str:
    """Vertex data of a regular n-gon prism (radius 0.1, height 0.06): n coplanar vertices on each cap."""
    a = np.arange(n) * 2 * np.pi / n
    v = [(0.1 * np.cos(t), 0.1 * np.sin(t), z) for z in (-0.03, 0.03) for t in a]
    return " ".join(f"{x:.6f} {y:.6f} {z:.6f}" for x, y, z in v)


# prisms with a decagon / 36-gon bottom: the contacts are the deepest vertex and three more of the bottom face
# (MuJoCo 4 prunes the face through the deepest vertex to a largest-area quadrilateral kept on that vertex)
PRISMS = f"""<mujoco model="prisms"><option timestep="0.002"/>
<asset><mesh name="deca" vertex="{_prism(10)}"/><mesh name="p36" vertex="{_prism(36)}"/></asset>
<worldbody><geom name="floor" type="plane" size="5 5 .1" euler="0.8 0 0"/>
  <body name="deca" pos="0 0 0.028"><freejoint/><geom name="deca" type="mesh" mesh="deca" euler="0 0 {{yaw}}"
    margin="0.01"/></body>
  <body name="p36" pos="0.5 0 0.028" euler="0.3 -0.5 {{yaw}}"><freejoint/><geom type="mesh" mesh="p36"/></body>
  <body name="drop" pos="-0.5 0 0.1" euler="4 -3 {{yaw}}"><freejoint/><geom type="mesh" mesh="deca"/></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("yaw", [0, 30, 75, 150])
def test_prism_face_contacts_on_plane_equal_mujoco(yaw):
    mujoco = require_mujoco()
    text = PRISMS.format(yaw=yaw)
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    plant, scene_graph, root = _build(text, mm.opt.timestep, root=True)
    SetMujocoState(plant, plant.GetMyContextFromRoot(root), md.qpos, md.qvel)
    contacts = scene_graph.get_query_output_port().Eval(scene_graph.GetMyContextFromRoot(root)).ComputeContactPoints()
    ref = np.array([[c.dist, *c.pos, *c.frame] for c in md.contact[:md.ncon]])
    mine = np.array([[d, *p, *f.ravel()] for d, p, f in zip(contacts.dist, contacts.pos_W, contacts.frame_W)])
    assert md.ncon == 8 and mine.shape == ref.shape  # four per resting prism, in MuJoCo's order
    np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-9)


@pytest.mark.parametrize("tilt,z", [(2, 0.029), (5, 0.03), (-3, 0.0305)])
def test_prism_face_vertices_off_the_plane_are_dropped_as_in_mujoco(tilt, z):
    """A tilted 36-gon prism: of the face's pruned quadrilateral only the vertices within the margin touch."""
    mujoco = require_mujoco()
    text = f"""<mujoco><asset><mesh name="p36" vertex="{_prism(36)}"/></asset><worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body pos="0 0 {z}" euler="{tilt} 1 20"><freejoint/><geom type="mesh" mesh="p36"/></body></worldbody></mujoco>"""
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    plant, scene_graph, root = _build(text, mm.opt.timestep, root=True)
    SetMujocoState(plant, plant.GetMyContextFromRoot(root), md.qpos, md.qvel)
    contacts = scene_graph.get_query_output_port().Eval(scene_graph.GetMyContextFromRoot(root)).ComputeContactPoints()
    ref = np.array([[c.dist, *c.pos, *c.frame] for c in md.contact[:md.ncon]])
    mine = np.array([[d, *p, *f.ravel()] for d, p, f in zip(contacts.dist, contacts.pos_W, contacts.frame_W)])
    assert 2 <= md.ncon < 4 and mine.shape == ref.shape
    np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-9)


def test_prism_dropped_on_plane_matches_mujoco():
    mujoco = require_mujoco()
    text = PRISMS.format(yaw=40)
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    plant, _, context = _build(text, mm.opt.timestep)
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    ncon = 0
    for _ in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        ncon = max(ncon, md.ncon)
    assert ncon >= 10
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


# an octahedron whose bottom apex is pushed up into the body: a closed, non-convex mesh (6 vertices, 5 on the hull)
DENTED = """<mujoco model="dented">
<asset><mesh name="dented" vertex="0.1 0 0  0 0.1 0  -0.1 0 0  0 -0.1 0  0 0 0.1  0 0 0.02"
  face="0 1 4  1 2 4  2 3 4  3 0 4  1 0 5  2 1 5  3 2 5  0 3 5"/></asset>
<worldbody><body name="dented" pos="0 0 0.2"><freejoint/><geom name="dent" type="mesh" mesh="dented"/></body>
</worldbody></mujoco>"""


def test_meshcat_draws_mjcf_mesh_geoms():
    from mallard.systems.analysis import Simulator
    import umsgpack

    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(DENTED)
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.002)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModelsFromString(DENTED, "xml")
    plant.Finalize()
    meshcat = Meshcat(MeshcatParams(port=0))
    try:
        MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat)
        Simulator(builder.Build()).Initialize()
        objects = {c["path"]: c["object"] for c in (umsgpack.unpackb(b) for b in meshcat._scene_messages())
                   if c["type"] == "set_object"}
        path = [p for p in objects if p.startswith("/drake/visualizer/") and p.endswith("/dent_visual")]
        assert len(path) == 1, sorted(objects)
        geometry = objects[path[0]]["geometries"][0]
        assert geometry["type"] == "BufferGeometry"
        drawn = np.frombuffer(geometry["data"]["attributes"]["position"]["array"].data, np.float32).reshape(-1, 3)
        faces = np.frombuffer(geometry["data"]["index"]["array"].data, np.uint32).reshape(-1, 3)
        # the mesh itself with its dent (MuJoCo's 6 vertices and 8 faces), not its 5-vertex convex hull
        assert drawn.shape == (mm.mesh_vertnum[0], 3) and faces.shape == (mm.mesh_facenum[0], 3) == (8, 3)
        for p in drawn:
            assert np.min(np.abs(mm.mesh_vert - p).max(axis=1)) < 1e-6
        assert meshcat.HasPath(path[0][len("/drake/"):])
    finally:
        meshcat.Close()


def test_in_memory_mesh_shapes():
    from mallard.geometry.shapes import InMemoryMesh, MemoryFile
    obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
    mesh = Mesh(InMemoryMesh(MemoryFile(obj, ".obj", "tet")), scale=2.0)
    v, f = mesh._mesh_arrays()
    assert mesh.is_in_memory() and mesh.extension() == ".obj" and mesh.filename() == "tet"
    np.testing.assert_array_equal(v.max(axis=0), [2.0, 2.0, 2.0])
    assert f.shape == (4, 3) and mesh.GetConvexHull().num_vertices() == 4
    assert mesh == Mesh(InMemoryMesh(MemoryFile(obj, ".obj", "tet")), scale=2.0)
    assert Convex(InMemoryMesh(MemoryFile(obj, ".obj", "tet"))).is_in_memory()
    with pytest.raises(ValueError, match="invalid extension"):
        MemoryFile(obj, "obj", "tet")
    with pytest.raises(ValueError, match="a face needs >= 3 vertices that exist"):  # read when first used
        Mesh(InMemoryMesh(MemoryFile("v 0 0 0\nf 1 2 3\n", ".obj", "broken")))._mesh_arrays()
    with pytest.raises(ValueError, match="needs a MemoryFile"):
        InMemoryMesh(obj)


def test_in_memory_convex_validates_its_points():
    with pytest.raises(ValueError, match=r"\(3, n\)"):
        Convex(np.zeros((4, 3)), "bad")
    with pytest.raises(ValueError, match="single line"):
        Convex(np.eye(3, 4), "two\nlines")
    with pytest.raises(ValueError, match="finite"):
        Convex(np.full((3, 4), np.nan), "nan")
    with pytest.raises(ValueError, match="within a sphere with radius 1e-12"):  # Drake's message
        Convex(np.zeros((3, 5)), "flat").GetConvexHull()
    assert Convex(points=np.eye(3, 4), label="kw", scale=2.0).GetConvexHull().num_vertices() == 4
    assert not Convex(points=np.eye(3, 4), label="kw").filename().endswith(".obj")
    c = Convex(np.eye(3, 4) * [[1], [2], [3]], "tet", scale3=[2.0, 1.0, 1.0])
    assert c == Convex(np.eye(3, 4) * [[1], [2], [3]], "tet", scale3=[2.0, 1.0, 1.0])
    assert np.allclose(np.max(c.GetConvexHull().vertices(), axis=0), [2.0, 2.0, 3.0])
