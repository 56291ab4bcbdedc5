"""Hull graphs (geometry/collision/mesh_graph.py): climbing a hull's vertex graph gives exactly what scanning every
vertex gives (index and value), for real meshes, hulls with many coplanar vertices and directions along their
faces, and so does the scan by groups (MeshChunks) of point sets the climb is refused for; bounding boxes and
contacts computed with the graphs and groups are bit-identical to the scans'."""
from __future__ import annotations

import glob

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mallard.geometry.collision.broadphase import compute_aabbs, hull_aabbs
from mallard.geometry.collision.pair_list import bounding_radii
from mallard.geometry.collision.mesh_graph import MeshChunks, MeshGraph, PackMeshGraphs, hull_extreme, scan_extreme
from mallard.geometry.collision.narrowphase import collide, collide_g
from mallard.geometry.mesh_data import read_mesh_source
from mallard.geometry.meshes import convex_hull
from mallard.geometry.mesh_source import MeshSource

MESH, BOX, PLANE = 7, 6, 0
IIWA = sorted(glob.glob("/work/shared/models/drake_models/iiwa_description/meshes/iiwa14/collision/*.obj"))


def _grid_cube():
    """A box whose faces carry 7 x 7 grids of coplanar points (plateaus of 49 equal vertices)."""
    g = np.linspace(-1.0, 1.0, 7)
    X, Y = np.meshgrid(g, g)
    pts = []
    for ax in range(3):
        for s in (-1.0, 1.0):
            P = np.zeros((X.size, 3))
            P[:, ax] = s
            P[:, (ax + 1) % 3] = X.ravel()
            P[:, (ax + 2) % 3] = Y.ravel()
            pts.append(P)
    return np.unique(np.concatenate(pts), axis=0) * np.array([0.05, 0.03, 0.02]) + 0.01


def _cylinder():
    th = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
    return np.concatenate([np.c_[0.04 * np.cos(th), 0.04 * np.sin(th), np.full(48, z)] for z in (-0.1, 0.0, 0.1)])


def _hulls():
    out = [("grid cube", _grid_cube()), ("cylinder", _cylinder()),
           ("sphere cloud", np.random.default_rng(3).standard_normal((400, 3)) * [0.1, 0.05, 0.08])]
    for path in IIWA[:4]:
        out.append((path.rsplit("/", 1)[-1], read_mesh_source(MeshSource(path), "Mesh")[0]))
    return [(name, *convex_hull(v)) for name, v in out]


HULLS = _hulls()


@pytest.mark.parametrize("name,v,t", HULLS, ids=[h[0] for h in HULLS])
def test_climb_equals_scan(name, v, t):
    g = MeshGraph(v, t)
    assert g.size > 0, f"{name}: no graph built"
    r = float(np.sqrt((v * v).sum(axis=1)).max())
    rng = np.random.default_rng(7)
    # random directions, axes, and directions with small integer components (along faces and edges of the boxes)
    dirs = np.concatenate([rng.standard_normal((200, 3)), np.eye(3), -np.eye(3),
                           rng.integers(-1, 2, (60, 3)).astype(float)])
    climbs = 0
    for d in dirs:
        for o in (0.0, 0.3, -1.7):
            got = hull_extreme(v, g, r, d[0], d[1], d[2], o)
            want = scan_extreme(v, d[0], d[1], d[2], o)
            assert got == want, (name, d, o, got, want)
            climbs += 1
    assert climbs == 3 * dirs.shape[0]


def test_nonconvex_points_get_no_graph():
    v, t = convex_hull(_grid_cube())
    bent = v.copy()
    bent[t[0, 0]] *= 0.9  # a hull vertex pulled inside: the triangles no longer bound a convex set
    assert MeshGraph(bent, t).size == 0
    assert MeshGraph(v, t).size > 0


def test_scan_by_groups_equals_scan():
    """Point sets without a graph (interior points: not a convex hull's vertices) scanned by groups whose bounding
    boxes cannot reach the best value are skipped: the scan's index and value, ties (a lattice, a grid cube's
    faces seen along an axis) included."""
    rng = np.random.default_rng(5)
    sets = [np.round(rng.standard_normal((1500, 3)) * 4) / 40, rng.standard_normal((900, 3)) * [0.1, 0.05, 0.08],
            _grid_cube()]
    dirs = np.concatenate([rng.standard_normal((100, 3)), np.eye(3), -np.eye(3),
                           rng.integers(-1, 2, (30, 3)).astype(float)])
    for v in sets:
        g = np.concatenate([[-1], MeshChunks(v)]).astype(np.int64)
        assert g.size > v.shape[0] + 4  # the groups were built (a plain scan would pass trivially)
        r = float(np.sqrt((v * v).sum(axis=1)).max())
        for d in dirs:
            for o in (0.0, -1.7):
                assert hull_extreme(v, g, r, d[0], d[1], d[2], o) == scan_extreme(v, d[0], d[1], d[2], o), (d, o)


def _scene(rng, n):
    """n hull meshes (and a plane, a box) in random poses: the arrays of a CollisionModel."""
    hulls = [HULLS[k % len(HULLS)] for k in range(n)]
    types = np.array([PLANE, BOX] + [MESH] * n, np.int64)
    sizes = np.zeros((n + 2, 3))
    sizes[1] = [0.05, 0.04, 0.03]
    verts = np.concatenate([h[1] for h in hulls])
    vnum = np.array([0, 0] + [len(h[1]) for h in hulls], np.int64)
    vadr = np.concatenate([[0, 0, 0], np.cumsum(vnum[2:])[:-1]]).astype(np.int64)
    graph, gadr = PackMeshGraphs(n + 2, {k + 2: MeshGraph(h[1], h[2]) for k, h in enumerate(hulls)},
                                 {k + 2: h[1] for k, h in enumerate(hulls)})  # with their groups
    return types, sizes, verts, vadr, vnum, graph, gadr


def test_aabbs_and_contacts_bit_identical():
    rng = np.random.default_rng(11)
    n = 6
    types, sizes, verts, vadr, vnum, graph, gadr = _scene(rng, n)
    radii = bounding_radii(types, sizes, verts, vadr, vnum)
    no_graph = np.zeros(0, np.int64)
    ncontact = 0
    for trial in range(40):
        R = Rotation.random(n + 2, random_state=trial).as_matrix()
        R[0] = np.eye(3)
        p = rng.uniform(-0.08, 0.08, (n + 2, 3))
        p[0] = [0.0, 0.0, -0.05]
        inflate = np.full(n + 2, 0.001)
        lo, hi = hull_aabbs(types, sizes, R, p, verts, vadr, vnum, inflate, graph, gadr, radii)
        lo0, hi0 = compute_aabbs(types, sizes, R, p, verts, vadr, vnum, inflate)
        assert np.array_equal(lo, lo0) and np.array_equal(hi, hi0)
        for i in range(n + 2):
            for j in range(i + 1, n + 2):
                vi, vj = verts[vadr[i]:vadr[i] + vnum[i]], verts[vadr[j]:vadr[j] + vnum[j]]
                a, b = np.zeros((16, 10)), np.zeros((16, 10))
                f = np.zeros(0)
                k0 = collide(a, 0, 0.002, types[i], sizes[i], p[i], R[i], vi, types[j], sizes[j], p[j], R[j], vj, f, f)
                k1 = collide_g(b, 0, 0.002, types[i], sizes[i], p[i], R[i], vi, types[j], sizes[j], p[j], R[j], vj,
                               f, f, graph[gadr[i]:gadr[i + 1]], radii[i], graph[gadr[j]:gadr[j + 1]], radii[j])
                assert k0 == k1 and np.array_equal(a[:k0], b[:k1]), (trial, i, j)
                ncontact += k0
    assert ncontact > 20  # the scenes overlap: contacts were compared, not only empty results
    assert not np.array_equal(graph, no_graph)
