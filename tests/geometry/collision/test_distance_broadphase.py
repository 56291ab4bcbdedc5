"""Signed distances (pairs and points) with analytic answers, the sweep-and-prune broad phase against brute force,
and the discrete step's broad phases (broad_phase, and listed_pairs over the scene's static pair list) against sweep
and prune on real models."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mallard.geometry.collision import CollisionModel, point_distance, signed_distance
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder
from mallard.geometry.collision.broadphase import (broad_phase, compute_aabbs, filter_pairs, hull_aabbs,
                                                   sweep_and_prune)
from mallard.geometry.collision.pair_list import listed_pairs, sphere_filter, static_pairs

PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX = 0, 2, 3, 4, 5, 6
E = np.zeros((0, 3))
P0 = np.zeros((0, 4))
I3 = np.eye(3)


def sd(t1, s1, p1, R1, t2, s2, p2, R2):
    return signed_distance(t1, np.asarray(s1, float), np.asarray(p1, float), R1, E,
                           t2, np.asarray(s2, float), np.asarray(p2, float), R2, E)


def test_sphere_sphere_separated_touching_overlapping():
    for gap in (0.3, 0.0, -0.1):
        d, pa, pb, n = sd(SPHERE, [0.2, 0, 0], [0, 0, 0], I3, SPHERE, [0.3, 0, 0], [0.5 + gap, 0, 0], I3)
        assert d == pytest.approx(gap, abs=1e-9)
        np.testing.assert_allclose(pa, [0.2, 0, 0], atol=1e-8)
        np.testing.assert_allclose(pb, [0.2 + gap, 0, 0], atol=1e-8)
        np.testing.assert_allclose(n, [1, 0, 0], atol=1e-8)


def test_box_box_parallel_faces_and_edge_edge():
    # parallel faces 0.25 apart
    d, pa, pb, n = sd(BOX, [0.1, 0.2, 0.3], [0, 0, 0], I3, BOX, [0.1, 0.1, 0.1], [0.45, 0.05, 0.0], I3)
    assert d == pytest.approx(0.25, abs=1e-12)
    np.testing.assert_allclose(n, [1, 0, 0], atol=1e-12)
    assert pa[0] == pytest.approx(0.1) and pb[0] == pytest.approx(0.35)
    # crossed edges: box rotated 45 deg about x above a box rotated 45 deg about y
    h = 0.1 * math.sqrt(2)
    Ra = Rotation.from_rotvec([math.pi / 4, 0, 0]).as_matrix()
    Rb = Rotation.from_rotvec([0, math.pi / 4, 0]).as_matrix()
    for gap in (0.05, -0.02):
        d, pa, pb, n = sd(BOX, [0.1] * 3, [0, 0, 0], Ra, BOX, [0.1] * 3, [0, 0, 2 * h + gap], Rb)
        assert d == pytest.approx(gap, abs=1e-10)
        np.testing.assert_allclose(n, [0, 0, 1], atol=1e-9)
        np.testing.assert_allclose(pa, [0, 0, h], atol=1e-9)
        np.testing.assert_allclose(pb, [0, 0, h + gap], atol=1e-9)


def test_halfspace_against_shapes():
    R = Rotation.from_rotvec([0.3, -0.2, 0.1]).as_matrix()
    half = np.array([0.1, 0.2, 0.3])
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
    z = (corners @ R.T)[:, 2].min()
    d, pa, pb, n = sd(PLANE, [0, 0, 0], [0, 0, 0], I3, BOX, half, [0, 0, 0.5], R)
    assert d == pytest.approx(0.5 + z, abs=1e-14)
    np.testing.assert_allclose(n, [0, 0, 1])
    d2, pa2, pb2, n2 = sd(BOX, half, [0, 0, 0.5], R, PLANE, [0, 0, 0], [0, 0, 0], I3)
    assert d2 == d and np.allclose(n2, [0, 0, -1]) and np.allclose(pa2, pb)


@pytest.mark.parametrize("t,s", [(SPHERE, [0.3, 0, 0]), (CAPSULE, [0.1, 0.2, 0]), (CYLINDER, [0.1, 0.2, 0]),
                                 (BOX, [0.1, 0.2, 0.3]), (ELLIPSOID, [0.1, 0.2, 0.3])])
def test_pair_distance_equals_point_distance_for_small_sphere(t, s):
    """A sphere of radius r at Q is at signed distance phi(Q) - r from a convex shape."""
    rng = np.random.default_rng(t)
    R = Rotation.random(random_state=rng).as_matrix()
    p = rng.uniform(-0.1, 0.1, 3)
    for _ in range(20):
        q = p + rng.normal(size=3) * 0.4
        phi, n_w, grad = point_distance(t, np.asarray(s, float), p, R, E, P0, q)
        if phi < 0.02:
            continue
        d, pa, pb, n = sd(SPHERE, [0.01, 0, 0], q, I3, t, s, p, R)
        assert d == pytest.approx(phi - 0.01, abs=1e-8)
        np.testing.assert_allclose(pb, n_w, atol=1e-6)
        np.testing.assert_allclose(-n, grad, atol=1e-6)


def test_point_distance_inside_and_outside():
    s = np.array([0.1, 0.2, 0.3])
    d, pn, g = point_distance(BOX, s, np.zeros(3), I3, E, P0, np.array([0.05, 0.0, 0.0]))
    assert d == pytest.approx(-0.05) and np.allclose(pn, [0.1, 0, 0]) and np.allclose(g, [1, 0, 0])
    d, pn, g = point_distance(BOX, s, np.zeros(3), I3, E, P0, np.array([0.2, 0.3, 0.0]))
    assert d == pytest.approx(math.hypot(0.1, 0.1)) and np.allclose(pn, [0.1, 0.2, 0])
    d, pn, g = point_distance(CYLINDER, np.array([0.1, 0.2, 0]), np.zeros(3), I3, E, P0, np.array([0.0, 0.0, 0.15]))
    assert d == pytest.approx(-0.05) and np.allclose(g, [0, 0, 1])
    d, pn, g = point_distance(CAPSULE, np.array([0.1, 0.2, 0]), np.zeros(3), I3, E, P0, np.array([0.0, 0.0, 0.5]))
    assert d == pytest.approx(0.2) and np.allclose(pn, [0, 0, 0.3])
    # ellipsoid: along an axis the nearest point is the axis end; inside too
    for x, expect in ((0.5, 0.4), (0.05, -0.05)):
        d, pn, g = point_distance(ELLIPSOID, np.array([0.1, 0.2, 0.3]), np.zeros(3), I3, E, P0, np.array([x, 0, 0]))
        assert d == pytest.approx(expect, abs=1e-12) and np.allclose(pn, [0.1, 0, 0]) and np.allclose(g, [1, 0, 0])
    d, pn, g = point_distance(PLANE, np.zeros(3), np.zeros(3), I3, E, P0, np.array([1.0, 2.0, -0.5]))
    assert d == -0.5 and np.allclose(pn, [1, 2, 0])


def test_mesh_hull_distance_and_contacts(models_dir):
    from mallard.geometry import Convex
    from mallard.geometry.compiled_scene import _hull_data

    shape = Convex(str(models_dir / "drake_models/iiwa_description/meshes/iiwa14/collision/link_3.obj"))
    v, planes, faces, _graph = _hull_data(shape)
    hv, tris = shape._hull_arrays()
    for t in tris[:: max(1, len(tris) // 10)]:
        a, b, c = hv[t]
        nrm = np.cross(b - a, c - a)
        nrm /= np.linalg.norm(nrm)
        q = (a + b + c) / 3 + 0.1 * nrm  # 0.1 above a facet's centroid: the facet is the nearest feature
        d, pn, g = point_distance(7, np.zeros(3), np.zeros(3), I3, v, planes, q)
        assert d == pytest.approx(0.1, abs=1e-9)
        np.testing.assert_allclose(g, nrm, atol=1e-6)
    # inside: the nearest facet plane
    c = v.mean(axis=0)
    d, pn, g = point_distance(7, np.zeros(3), np.zeros(3), I3, v, planes, c)
    assert d == pytest.approx(np.max(planes[:, :3] @ c - planes[:, 3]), abs=1e-12) and d < 0
    # a mesh resting on a plane: the support point contact (and up to 3 more vertices of its face)
    from mallard.geometry.collision import collide

    out = np.zeros((16, 10))
    lowest = v[:, 2].min()
    n = collide(out, 0, 0.0, PLANE, np.zeros(3), np.zeros(3), I3, E, 7, np.zeros(3),
                np.array([0, 0, -lowest - 0.001]), I3, v, np.zeros(0), np.zeros(0))
    assert n == 1 and out[0, 0] == pytest.approx(-0.001, abs=1e-12)
    n = collide(out, 0, 0.0, PLANE, np.zeros(3), np.zeros(3), I3, E, 7, np.zeros(3),
                np.array([0, 0, -lowest - 0.001]), I3, v, np.zeros(0), faces)
    assert 1 <= n <= 4 and out[0, 0] == pytest.approx(-0.001, abs=1e-12)
    assert np.all(out[:n, 0] <= 0.0) and np.all(out[:n, 3] <= 0.0)


def test_sweep_and_prune_equals_brute_force():
    rng = np.random.default_rng(3)
    n = 400
    types = np.where(rng.random(n) < 0.5, SPHERE, BOX)
    types[:3] = PLANE
    sizes = rng.uniform(0.02, 0.1, (n, 3))
    R = Rotation.random(n, random_state=rng).as_matrix()
    p = rng.uniform(0, 1.5, (n, 3))
    lo, hi = compute_aabbs(types, sizes, R, p, E, np.zeros(n, np.int64), np.zeros(n, np.int64), np.full(n, 0.01))
    pairs = {tuple(x) for x in sweep_and_prune(lo, hi)}
    brute = set()
    for i in range(n):
        for j in range(i + 1, n):
            if np.all(lo[i] <= hi[j]) and np.all(lo[j] <= hi[i]):
                brute.add((i, j))
    assert pairs == brute and len(brute) > n


def test_collision_model_filters_and_contacts():
    n = 4
    types = np.array([SPHERE, SPHERE, SPHERE, BOX])
    sizes = np.array([[0.1, 0, 0], [0.1, 0, 0], [0.1, 0, 0], [0.1, 0.1, 0.1]])
    p = np.array([[0, 0, 0], [0.15, 0, 0], [0.3, 0, 0], [0.3, 0.15, 0.0]])
    R = np.stack([I3] * n)
    frame = np.array([1, 2, 2, 3])  # geometries 1 and 2 share a frame: filtered
    m = CollisionModel(types, sizes, frame, E, np.zeros(n), np.zeros(n), P0, np.zeros(n), np.zeros(n),
                       np.zeros(n), [1, 1, 1, 2], [1, 1, 1, 2], excluded_keys=[0 * n + 1])
    pairs = {tuple(x) for x in m.candidate_pairs(R, p)}
    # (0,1) excluded explicitly, (1,2) same frame, (0,3)/(1,3)/(2,3) pass masks only if they share a bit:
    # contype 1 & conaffinity 2 == 0 and contype 2 & conaffinity 1 == 0, so the box collides with nothing
    assert pairs == set()
    m2 = CollisionModel(types, sizes, frame, E, np.zeros(n), np.zeros(n), P0, np.zeros(n), np.zeros(n),
                        np.zeros(n), [1] * 4, [1] * 4, [])
    dist, pos, normal, tangent, g1, g2 = m2.contacts(R, p)
    got = {(int(a), int(b)): float(d) for a, b, d in zip(g1, g2, dist)}
    assert got[(0, 1)] == pytest.approx(-0.05) and (1, 2) not in got
    assert got[(2, 3)] == pytest.approx(-0.05) and got[(1, 3)] < 0


def test_convex_mesh_behaves_like_the_primitive_it_encloses(tmp_path):
    """A cube written as an OBJ file and loaded as Convex gives the same signed distances and
    contact depths as the Box primitive, against spheres, capsules, boxes and ellipsoids."""
    from mallard.geometry import Convex
    from mallard.geometry.collision import collide
    from mallard.geometry.compiled_scene import _hull_data

    half = np.array([0.1, 0.2, 0.15])
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
    faces = [(1, 3, 4, 2), (5, 6, 8, 7), (1, 2, 6, 5), (3, 7, 8, 4), (1, 5, 7, 3), (2, 4, 8, 6)]
    obj = tmp_path / "cube.obj"
    obj.write_text("".join(f"v {x} {y} {z}\n" for x, y, z in corners)
                   + "".join(f"f {a} {b} {c}\nf {a} {c} {d}\n" for a, b, c, d in faces))
    v, planes, _, _graph = _hull_data(Convex(str(obj)))
    rng = np.random.default_rng(5)
    for t, s in ((SPHERE, [0.1, 0, 0]), (CAPSULE, [0.05, 0.1, 0]), (BOX, [0.1, 0.05, 0.08]), (ELLIPSOID, [0.1, 0.05, 0.08])):
        for _ in range(6):
            R = Rotation.random(random_state=rng).as_matrix()
            Rm = Rotation.random(random_state=rng).as_matrix()
            q = rng.uniform(-0.35, 0.35, 3)
            s = np.asarray(s, float)
            ref = signed_distance(BOX, half, np.zeros(3), Rm, E, t, s, q, R, E)
            got = signed_distance(7, np.zeros(3), np.zeros(3), Rm, v, t, s, q, R, E)
            assert got[0] == pytest.approx(ref[0], abs=1e-7)
            out = np.zeros((16, 10))
            n = collide(out, 0, 0.0, t, s, q, R, E, 7, np.zeros(3), np.zeros(3), Rm, v, np.zeros(0), np.zeros(0)) if t < 7 else 0
            if ref[0] < -1e-6:  # a contact's depth is MuJoCo 4's EPA's: within its ccd_tolerance (1e-6)
                assert n == 1 and out[0, 0] == pytest.approx(ref[0], abs=1e-6)
            elif ref[0] > 1e-6:
                assert n == 0


def test_bounding_sphere_filter_drops_only_pairs_without_contacts():
    """MuJoCo's bounding-sphere filter before the narrow phase: over random scenes of primitives, hull meshes and a
    plane (poses near touching), the pairs it drops are pairs the narrow phase finds no contact for (within the
    margins), the pairs it keeps keep their order, and it drops some."""
    from mallard.geometry.collision.engine import _narrowphase
    from mallard.geometry.collision.pair_list import bounding_sphere_filter
    MESH = 7
    rng = np.random.default_rng(3)
    cube = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    dropped_total = 0
    for _ in range(20):
        n = 12
        types = np.array([PLANE] + list(rng.choice([SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH], n - 1)),
                         np.int64)
        sizes = rng.uniform(0.05, 0.2, (n, 3))
        R = Rotation.random(n, random_state=rng.integers(1 << 30)).as_matrix()
        R[0] = Rotation.from_rotvec(rng.normal(0, 0.2, 3)).as_matrix()
        p = rng.uniform(-0.4, 0.4, (n, 3))
        p[0] = 0.0
        p[1:, 2] = rng.uniform(-0.1, 0.6, n - 1)
        vnum = np.where(types == MESH, 8, 0).astype(np.int64)
        vadr = np.concatenate(([0], np.cumsum(vnum)[:-1])).astype(np.int64)
        verts = np.concatenate([cube * sizes[g] + 0.05 for g in range(n) if types[g] == MESH] or [np.zeros((0, 3))])
        margins = rng.choice([0.0, 0.02], n)
        pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)], np.int64)
        kept = bounding_sphere_filter(pairs, types, sizes, R, p, verts, vadr, vnum, margins)
        keys = [tuple(q) for q in kept]
        assert keys == [tuple(q) for q in pairs if tuple(q) in set(keys)]  # order kept
        dropped = np.array([q for q in pairs if tuple(q) not in set(keys)], np.int64).reshape(-1, 2)
        out = np.empty((12 * len(dropped) + 64, 10))
        o1, o2 = np.empty(out.shape[0], np.int64), np.empty(out.shape[0], np.int64)
        k, q = _narrowphase(dropped, 0, types, sizes, R, p, verts, vadr, vnum, margins, out, o1, o2, np.zeros(0),
                            np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(n + 1, np.int64),
                            np.zeros(n))
        assert q == len(dropped) and k == 0
        dropped_total += len(dropped)
    assert dropped_total > 100


def test_static_pairs_lists_the_filtered_bounded_pairs_of_small_scenes():
    """A scene lists its bounded pairs that pass the static filters (row order; planes, one frame, contype /
    conaffinity and exclusions left out) when they number at most the limit; a larger scene sweeps."""
    for n, listed in ((41, True), (101, False)):
        types = np.full(n, SPHERE, np.int64)
        types[0] = PLANE
        frame = np.arange(n, dtype=np.int64)
        frame[2] = frame[1]  # rows 1 and 2 on one frame
        ones = np.ones(n, np.int64)
        contype = ones.copy()
        contype[3] = 0  # row 3 collides only through its conaffinity
        conaffinity = ones.copy()
        conaffinity[4] = contype[4] = 2  # row 4 in its own class
        excluded = np.array([5 * n + 6], np.int64)
        pairs, got = static_pairs(types, frame, contype, conaffinity, excluded, 1024)
        assert got == listed
        want = [[i, j] for i in range(1, n) for j in range(i + 1, n)
                if (i, j) not in ((1, 2), (5, 6)) and 4 not in (i, j)]
        assert pairs.tolist() == (want if listed else [])


def _iiwa_meshes_mjcf(models_dir, tmp_path):
    """An MJCF scene of four of the iiwa's collision meshes, twice, on free bodies above a floor: one pair excluded, one
    mesh in its own contype / conaffinity class."""
    folder = models_dir / "drake_models" / "iiwa_description" / "meshes" / "iiwa14" / "collision"
    assets = "".join(f'<mesh name="m{k}" file="{folder}/link_{k}.obj"/>' for k in range(4))
    own_class = ' contype="2" conaffinity="2"'
    bodies = "".join(f'<body name="b{c}{k}" pos="{0.1 * k} {0.2 * c} 0.5"><freejoint/>'
                     f'<geom type="mesh" mesh="m{k}"{own_class if (c, k) == (0, 3) else ""}/></body>'
                     for c in range(2) for k in range(4))
    path = tmp_path / "iiwa_meshes.xml"
    path.write_text(f'<mujoco><asset>{assets}</asset><worldbody><geom type="plane" size="2 2 0.1"/>{bodies}'
                    '</worldbody><contact><exclude body1="b01" body2="b02"/></contact></mujoco>')
    return path


def _compiled_scene(path):
    """The CompiledScene (geometry/compiled_scene.py) of a model file parsed onto a plant with a SceneGraph."""
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.002)
    Parser(plant).AddModels(str(path))
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    return scene_graph._state(scene_graph.GetMyContextFromRoot(context)).compiled()


@pytest.mark.parametrize("model,spread,nmesh", [("humanoid", 0.6, 0), ("iiwa meshes", 0.3, 8)])
def test_broad_phase_equals_sweep_and_prune_on_real_models(models_dir, tmp_path, model, spread, nmesh):
    """The step's broad phase gives sweep_and_prune + filter_pairs' pairs in their order, with the scene's compile-time
    data: the unbounded rows' pairs equal the filter applied to every pair, the mesh boxes bound their hulls tightly.
    Its listed form (the static pair list: the bounded pairs the filters keep that have a contact routine) gives
    those pairs after the bounding-sphere filter, in the same order. Random poses in a small region (many
    overlapping boxes), some rows moved onto another's position (ties in the sweep's order)."""
    path = models_dir / "mujoco" / "model" / "humanoid.xml" if model == "humanoid" else \
        _iiwa_meshes_mjcf(models_dir, tmp_path)
    cm = _compiled_scene(path).model
    n = cm.n
    ex = cm._dynamic_excluded
    unbounded = cm.types <= 1
    brute = [(i, j) for i in range(n) for j in range(i + 1, n) if unbounded[i] or unbounded[j]]
    brute = filter_pairs(np.array(brute, np.int64).reshape(-1, 2), cm.types, cm.frame, cm.contype, cm.conaffinity,
                         ex, n)
    assert sorted(map(tuple, cm.plane_pairs.tolist())) == sorted(map(tuple, brute.tolist()))
    assert len(cm.plane_pairs) == n - 1 - (model != "humanoid")  # the floor meets every other geometry (not 0 3)
    meshes = np.nonzero(cm.types == 7)[0]
    assert len(meshes) == nmesh
    for g in meshes:
        v = cm.verts[cm.vadr[g]:cm.vadr[g] + cm.vnum[g]]
        assert np.allclose(cm.box_local[g, :3] - cm.box_local[g, 3:], v.min(axis=0), atol=1e-15)
        assert np.allclose(cm.box_local[g, :3] + cm.box_local[g, 3:], v.max(axis=0), atol=1e-15)
    cand, is_listed = static_pairs(cm.types, cm.frame, cm.contype, cm.conaffinity, ex, 1024)
    rng = np.random.default_rng(5)
    total = kept = 0
    for trial in range(60):
        R = Rotation.random(n, random_state=trial).as_matrix()
        p = rng.uniform(-spread, spread, (n, 3))
        p[1::7] = p[0]  # equal lower bounds in the sweep
        inflate = rng.uniform(0.0, 0.01, n)
        lo, hi = hull_aabbs(cm.types, cm.sizes, R, p, cm.verts, cm.vadr, cm.vnum, inflate, cm.graph, cm.gadr, cm.radii)
        want = filter_pairs(sweep_and_prune(lo, hi), cm.types, cm.frame, cm.contype, cm.conaffinity, ex, n)
        got = broad_phase(cm.types, cm.sizes, R, p, cm.verts, cm.vadr, cm.vnum, inflate, cm.graph, cm.gadr, cm.radii,
                          cm.box_local, cm.plane_pairs, cm.frame, cm.contype, cm.conaffinity, ex)
        assert np.array_equal(got, want), trial
        listed = listed_pairs(cm.types, cm.sizes, R, p, cm.verts, cm.vadr, cm.vnum, inflate, cm.graph, cm.gadr,
                              cm.radii, cm.box_local, cm.plane_pairs, cand)
        assert np.array_equal(listed, sphere_filter(want, cm.types, R, p, cm.radii, inflate)), trial
        total += len(want) - len(cm.plane_pairs)
        kept += len(listed) - len(sphere_filter(cm.plane_pairs, cm.types, R, p, cm.radii, inflate))
    assert total > 5 * 60  # overlapping bounded pairs were compared, not only the floor's
    assert kept > 60  # the listed form ordered several pairs per pose on average
    assert is_listed and sorted(map(tuple, cand.tolist())) == sorted(
        (i, j) for i in range(n) for j in range(i + 1, n) if not (unbounded[i] or unbounded[j])
        and len(filter_pairs(np.array([[i, j]], np.int64), cm.types, cm.frame, cm.contype, cm.conaffinity, ex, n)))
