"""The faces of a convex mesh hull as polygons (coplanar hull triangles merged), as MuJoCo's mesh polygons.

MuJoCo's plane-mesh contact takes the deepest hull vertex, then the hull face through it that faces the plane
most squarely, and prunes that face to at most four vertices (collision/narrowphase.py ``plane_convex``). The
faces are computed once when a scene is compiled and packed into one float array per mesh (indices stored as
floats, exact below 2**53), so the kernel reads them with no per-step cost:

    [npoly, nv, vadr (nv + 1), vpoly (...), padr (npoly + 1), normals (3 npoly), pvert (...)]

vertex i lies on polygons ``vpoly[vadr[i]:vadr[i + 1]]``; polygon f has unit outward normal ``normals[f]`` (frame
G) and vertices ``pvert[padr[f]:padr[f + 1]]``, counter-clockwise about that normal.
"""
from __future__ import annotations

import numpy as np

_COPLANAR = 1e-9  # adjacent hull triangles whose unit normals differ by less than this (1 - cos) are one face


def hull_polygons(vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """The packed faces (layout above) of a convex hull given by its vertices (m, 3) and outward-wound
    triangles (t, 3)."""
    v = np.asarray(vertices, dtype=float).reshape(-1, 3)
    tris = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    nv = v.shape[0]
    n = np.cross(v[tris[:, 1]] - v[tris[:, 0]], v[tris[:, 2]] - v[tris[:, 0]])
    ln = np.linalg.norm(n, axis=1)
    n = n / np.where(ln > 0, ln, 1.0)[:, None]
    # union coplanar triangles that share an edge
    parent = list(range(len(tris)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict = {}
    for f, (a, b, c) in enumerate(tris.tolist()):
        for e in ((a, b), (b, c), (c, a)):
            g = owner.pop((e[1], e[0]), None)
            if g is None:
                owner[e] = f
            elif 1.0 - float(n[f] @ n[g]) < _COPLANAR:
                parent[find(f)] = find(g)
    groups: dict = {}
    for f in range(len(tris)):
        groups.setdefault(find(f), []).append(f)
    polys, normals = [], []
    for members in groups.values():
        edges = {}
        directed = {(a, b) for f in members for a, b in
                    ((tris[f, 0], tris[f, 1]), (tris[f, 1], tris[f, 2]), (tris[f, 2], tris[f, 0]))}
        for a, b in directed:
            if (b, a) not in directed:
                edges[int(a)] = int(b)
        start = min(edges)
        cycle = [start]
        while edges[cycle[-1]] != start and len(cycle) <= len(edges):
            cycle.append(edges[cycle[-1]])
        if len(cycle) != len(edges):
            raise ValueError("hull_polygons: a merged hull face does not have one boundary loop")
        w = np.sum(ln[members][:, None] * n[members], axis=0)
        polys.append(cycle)
        normals.append(w / np.linalg.norm(w))
    vpoly: list[list[int]] = [[] for _ in range(nv)]
    for f, cycle in enumerate(polys):
        for i in cycle:
            vpoly[i].append(f)
    vadr = np.concatenate([[0], np.cumsum([len(x) for x in vpoly])])
    padr = np.concatenate([[0], np.cumsum([len(c) for c in polys])])
    return np.concatenate([[len(polys), nv], vadr, [f for x in vpoly for f in x], padr,
                           np.asarray(normals, dtype=float).reshape(-1), [i for c in polys for i in c]]).astype(float)
