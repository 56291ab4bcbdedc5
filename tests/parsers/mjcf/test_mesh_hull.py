"""A mesh geom's collision hull and its faces (parsers/mjcf/mesh_hull.py) against MuJoCo's mesh graph and mesh
polygons, and the plane contacts they decide. The sole below is a CAD-like foot: its bottom is a shallow bowl
whose triangles tilt by less than MuJoCo's pole bin (4.5e-4 rad), so MuJoCo merges them into one face, and it is
lopsided, so its inertial frame is rotated against the file frame in which MuJoCo bins face normals (as
Toddlerbot's feet: 47 faces in MuJoCo, 50 when merging coplanar triangles in the inertial frame)."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.geometry.compiled_scene import _hull_data
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.mjcf.state import GetMjcfPlantMap, GetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import load_mjcf
from mallard.parsers.mjcf.mesh_hull import MujocoMeshHull
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder


def _sole() -> np.ndarray:
    """Vertices of the foot: a 5 x 4 bowl-shaped bottom grid, a flat top and a heel block (lopsided)."""
    xs, ys = np.linspace(-0.06, 0.06, 5), np.linspace(-0.03, 0.03, 4)
    bottom = [(x, y, 2e-3 * (x * x + y * y) + 1e-4 * x) for x in xs for y in ys]
    top = [(x, y, 0.02) for x in (-0.06, 0.06) for y in (-0.03, 0.03)]
    heel = [(x, y, 0.05) for x in (-0.06, -0.03) for y in (-0.03, 0.01)]
    return np.array(bottom + top + heel)


def _xml() -> str:
    verts = " ".join(f"{c:.9g}" for c in _sole().ravel())
    return f"""<mujoco><option timestep="0.002"/>
      <asset><mesh name="sole" vertex="{verts}" scale="1 1.2 1"/></asset>
      <worldbody><geom type="plane" size="1 1 .1"/>
        <body pos="0 0 .004" euler="0.01 -0.02 0.3"><freejoint/><geom type="mesh" mesh="sole" density="800"/></body>
      </worldbody></mujoco>"""


def _faces(f: np.ndarray):
    """(vertex sets of the faces, their normals by set) of a packed face array."""
    npoly, nv = int(f[0]), int(f[1])
    padr = 3 + nv + int(f[2 + nv])
    nrm = padr + npoly + 1
    pvert = nrm + 3 * npoly
    cycles = [f[pvert + int(f[padr + p]):pvert + int(f[padr + p + 1])].astype(int) for p in range(npoly)]
    return cycles, f[nrm:pvert].reshape(npoly, 3)


def test_hull_and_faces_are_mujocos():
    mujoco = require_mujoco()
    xml = _xml()
    mm = mujoco.MjModel.from_xml_string(xml)
    hull_v, packed = MujocoMeshHull(load_mjcf(xml).meshes[0])
    ga = mm.mesh_graphadr[0]
    nv = mm.mesh_graph[ga]
    mj_v = mm.mesh_vert[mm.mesh_vertadr[0] + mm.mesh_graph[ga + 2 + nv:ga + 2 + 2 * nv]].astype(float)
    # the same hull vertices (MuJoCo's graph), in single precision as mesh_vert
    assert len(hull_v) == nv
    assert set(map(tuple, hull_v)) == set(map(tuple, mj_v))
    # the same faces (vertex cycles up to their start) and face normals
    cycles, normals = _faces(packed)
    assert len(cycles) == mm.mesh_polynum[0]
    mine = {}
    for c, n in zip(cycles, normals):
        mine[frozenset(map(tuple, hull_v[c]))] = (hull_v[c], n)
    for p in range(mm.mesh_polyadr[0], mm.mesh_polyadr[0] + mm.mesh_polynum[0]):
        a, k = mm.mesh_polyvertadr[p], mm.mesh_polyvertnum[p]
        cycle = mm.mesh_vert[mm.mesh_vertadr[0] + mm.mesh_polyvert[a:a + k]].astype(float)
        got, n = mine[frozenset(map(tuple, cycle))]
        start = int(np.flatnonzero((got == cycle[0]).all(axis=1))[0])
        np.testing.assert_array_equal(np.roll(got, -start, axis=0), cycle)  # same cyclic order
        np.testing.assert_allclose(n, mm.mesh_polynormal[p], atol=1e-6)


def test_foot_on_plane_matches_mujoco():
    mujoco = require_mujoco()
    xml = _xml()
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, mm.opt.timestep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModelsFromString(xml, "xml")
    plant.Finalize()
    sim = Simulator(builder.Build())
    ctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    sim.Initialize()
    for n in range(1, 201):
        mujoco.mj_step(mm, md)
        sim.AdvanceTo(n * mm.opt.timestep)
    # resting on MuJoCo's merged bottom face: four plane contacts (a triangle of it would give three)
    assert md.ncon == 4
    assert plant.get_contact_results_output_port().Eval(ctx).num_point_pair_contacts() == md.ncon
    q, _ = GetMujocoState(plant, ctx)
    np.testing.assert_allclose(q, md.qpos, rtol=0, atol=1e-9)


def _ordered_faces_match(mujoco, xml: str) -> int:
    """Assert every mesh's faces equal MuJoCo's mesh polygons in order, start vertex and winding; returns the
    number of faces compared."""
    mm = mujoco.MjModel.from_xml_string(xml)
    model = load_mjcf(xml)
    total = 0
    for k in range(mm.nmesh):
        hull_v, packed = MujocoMeshHull(model.meshes[k])
        cycles, _ = _faces(packed)
        mv = mm.mesh_vert[mm.mesh_vertadr[k]:mm.mesh_vertadr[k] + mm.mesh_vertnum[k]].astype(float)
        theirs = [mv[mm.mesh_polyvert[mm.mesh_polyvertadr[p]:mm.mesh_polyvertadr[p] + mm.mesh_polyvertnum[p]]]
                  for p in range(mm.mesh_polyadr[k], mm.mesh_polyadr[k] + mm.mesh_polynum[k])]
        assert len(cycles) == len(theirs)
        for p, (c, t) in enumerate(zip(cycles, theirs)):
            np.testing.assert_allclose(hull_v[c], t, rtol=0, atol=1e-8, err_msg=f"mesh {k} face {p}")  # float32 ulps
        total += len(theirs)
    return total


def test_face_order_and_winding_are_mujocos():
    """MuJoCo 4 lists a mesh's faces in its bin table's order (libc++ unordered_map, boost hash_combine of the
    angle bins), winds a mirrored mesh's faces the other way round, and traces a bin of three boundary edges
    as any other (a face split around a slightly raised inner vertex keeps its winding): the order picks
    between equally deep faces in box-mesh and mesh-mesh contacts (Barkour's obstacles, TALOS's feet)."""
    mujoco = require_mujoco()
    rng = np.random.default_rng(7)
    u = rng.normal(size=(80, 3))
    cloud = np.round(u / np.linalg.norm(u, axis=1)[:, None] * (0.1, 0.07, 0.05), 5)
    corners = np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.07, 0], [0, 0, 0.05]])
    n = np.cross(corners[2] - corners[1], corners[3] - corners[1])
    tet = np.vstack([corners, corners[1:].mean(axis=0) + 2e-6 * n / np.linalg.norm(n)])  # the slanted face split
    meshes = "".join(f'<mesh name="m{k}" vertex="{" ".join(f"{c:.9g}" for c in v.ravel())}" scale="{s}"/>'
                     for k, (v, s) in enumerate([(cloud, "1 1 1"), (cloud, "1 -1 1"), (tet, "1 1 1")]))
    geoms = "".join(f'<geom type="mesh" mesh="m{k}" pos="{k} 0 0"/>' for k in range(3))
    xml = f"<mujoco><asset>{meshes}</asset><worldbody>{geoms}</worldbody></mujoco>"
    assert _ordered_faces_match(mujoco, xml) > 150
    mm = mujoco.MjModel.from_xml_string(xml)
    assert mm.mesh_polynum[2] == 4 and mm.mesh_graph[mm.mesh_graphadr[2] + 1] == 6  # 6 triangles, 4 faces


def test_collision_scene_keeps_mujocos_faces_when_its_own_hull_drops_points():
    """A slab whose top carries points 2^-30 above it (exact in the file frame, where MuJoCo builds its hull and
    keeps them; lost to rounding in the inertial frame, where the geometry's own hull drops them): the collision
    scene's hull is MuJoCo's (its points and triangles), with MuJoCo's faces and face normals (they were rebuilt
    from the remaining points, with other normals: google_barkour_v0's legs, 13 of 37 meshes)."""
    mujoco = require_mujoco()
    e = 2.0 ** -30
    pts = [(x, y, z) for z in (-0.25, 0.0) for x, y in ((-0.5, -0.25), (0.5, -0.25), (0.5, 0.25), (-0.5, 0.25))]
    pts += [(-0.375, 0.0, -0.375)] + [(x, y, e) for x in (-0.25, 0.0, 0.25) for y in (-0.125, 0.125)]
    verts = " ".join(f"{x!r} {y!r} {z!r}" for x, y, z in pts)
    xml = f'<mujoco><asset><mesh name="m" vertex="{verts}"/></asset><worldbody><geom type="mesh" mesh="m"/>' \
          '</worldbody></mujoco>'
    mm = mujoco.MjModel.from_xml_string(xml)
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.002)
    Parser(builder).AddModelsFromString(xml, "xml")
    plant.Finalize()
    inspector = scene_graph.model_inspector()
    gid = GetMjcfPlantMap(plant).geoms[0][0]
    shape, props = inspector.GetShape(gid), inspector.GetProximityProperties(gid)
    assert len(shape._hull_arrays()[0]) < len(shape._mesh_arrays()[0]) == mm.mesh_graph[mm.mesh_graphadr[0]] == 13
    v, _, packed, _ = _hull_data(shape, props)
    assert len(v) == 13
    cycles, normals = _faces(packed)
    assert len(cycles) == mm.mesh_polynum[0]
    by_set = {frozenset(map(tuple, v[c])): n for c, n in zip(cycles, normals)}
    for p in range(mm.mesh_polyadr[0], mm.mesh_polyadr[0] + mm.mesh_polynum[0]):
        a, k = mm.mesh_polyvertadr[p], mm.mesh_polyvertnum[p]
        cycle = mm.mesh_vert[mm.mesh_vertadr[0] + mm.mesh_polyvert[a:a + k]].astype(float)
        np.testing.assert_allclose(by_set[frozenset(map(tuple, cycle))], mm.mesh_polynormal[p], rtol=0, atol=1e-12)
