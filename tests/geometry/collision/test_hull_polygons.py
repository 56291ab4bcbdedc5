"""Hull faces (coplanar hull triangles merged into polygons) against MuJoCo's mesh polygons."""
from __future__ import annotations

import numpy as np

from oracles import require_mujoco

from mallard.geometry import Convex
from mallard.geometry.collision.hull_polygons import hull_polygons

# a hexagonal prism, a box with a roof (two sloped quads), and an irregular polyhedron with an interior point
MESHES = {
    "hexprism": np.array([(np.cos(t), np.sin(t), z) for z in (-0.5, 0.5) for t in np.arange(6) * np.pi / 3]) * 0.1,
    "house": np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0], [-1, -1, 1], [1, -1, 1], [1, 1, 1],
                       [-1, 1, 1], [-1, 0, 1.6], [1, 0, 1.6]], float) * 0.05,
    "rock": np.array([[0, 0, 0.12], [0.1, 0.02, -0.05], [-0.06, 0.09, -0.04], [-0.05, -0.08, -0.06],
                      [0.03, -0.1, 0.02], [0.08, 0.07, 0.05], [-0.09, 0.0, 0.06], [0.0, 0.0, -0.09],
                      [0.01, 0.01, 0.0]]),
}


def _unpack(f):
    npoly, nv = int(f[0]), int(f[1])
    vadr = f[2:3 + nv].astype(int)
    vpoly = f[3 + nv:3 + nv + vadr[-1]].astype(int)
    at = 3 + nv + vadr[-1]
    padr = f[at:at + npoly + 1].astype(int)
    normals = f[at + npoly + 1:at + npoly + 1 + 3 * npoly].reshape(npoly, 3)
    pvert = f[at + npoly + 1 + 3 * npoly:].astype(int)
    return npoly, vadr, vpoly, padr, normals, pvert


def test_faces_equal_mujocos_mesh_polygons():
    mujoco = require_mujoco()
    for name, pts in MESHES.items():
        text = " ".join(f"{x:.6f} {y:.6f} {z:.6f}" for x, y, z in pts)
        mm = mujoco.MjModel.from_xml_string(f'<mujoco><asset><mesh name="m" vertex="{text}"/></asset><worldbody>'
                                            '<geom type="mesh" mesh="m"/></worldbody></mujoco>')
        mv = mm.mesh_vert.astype(float)
        v, tris = Convex(mv.T.copy(), name)._hull_arrays()
        npoly, vadr, vpoly, padr, normals, pvert = _unpack(hull_polygons(v, tris))
        assert npoly == mm.mesh_polynum[0], name
        mine = {}
        for f in range(npoly):
            cycle = [tuple(np.round(v[i], 6)) for i in pvert[padr[f]:padr[f + 1]]]
            mine[frozenset(cycle)] = (cycle, normals[f])
            for i in pvert[padr[f]:padr[f + 1]]:
                assert f in vpoly[vadr[i]:vadr[i + 1]]
        for p in range(mm.mesh_polynum[0]):
            a, n = mm.mesh_polyvertadr[p], mm.mesh_polyvertnum[p]
            cycle = [tuple(np.round(mv[i], 6)) for i in mm.mesh_polyvert[a:a + n]]
            got, normal = mine[frozenset(cycle)]
            np.testing.assert_allclose(normal, mm.mesh_polynormal[p], atol=1e-6)
            k = got.index(cycle[0])  # the same cyclic order (counter-clockwise about the outward normal)
            assert got[k:] + got[:k] == cycle, name
