"""OBJ and binary STL mesh files read as MuJoCo's decoders read them (plugin/obj_decoder, plugin/stl_decoder), so
mesh volumes, inertias and vertices match mjModel's.

OBJ (tinyobjloader, triangulating): every `v` line is a vertex; only the faces of the first shape (faces up to the
first `o`/`g` line that follows a face) are used; polygons are split by tinyobjloader's ear clipping in single
precision (a quad along its shorter diagonal, as tinyobjloader since its quad rule). Binary STL: three float32 vertices per facet, bit-identical
vertices merged in order of appearance (ASCII STL is refused, as MuJoCo refuses it).
"""
from __future__ import annotations

import numpy as np


def _index(token: str, nvert: int) -> int:
    i = int(token.split("/", 1)[0])
    return i - 1 if i > 0 else nvert + i


def _pnpoly(vx, vy, tx, ty) -> bool:
    c = False
    j = 2
    for i in range(3):
        if (vy[i] > ty) != (vy[j] > ty) and tx < (vx[j] - vx[i]) * (ty - vy[i]) / (vy[j] - vy[i]) + vx[i]:
            c = not c
        j = i
    return c


def _triangulate(v: np.ndarray, poly: list[int]) -> list[tuple[int, int, int]]:
    """tinyobjloader's triangulation of one polygon in single precision: a quad along its shorter diagonal, a
    larger polygon by its built-in ear clipping, projected on the two axes the first corner's normal does not
    dominate."""
    n = len(poly)
    if n == 3:
        return [tuple(poly)]
    if n == 4:  # split along the shorter diagonal
        p0, p1, p2, p3 = (v[i] for i in poly)
        e02, e13 = p2 - p0, p3 - p1
        if (e02 * e02).sum(dtype=np.float32) < (e13 * e13).sum(dtype=np.float32):
            return [(poly[0], poly[1], poly[2]), (poly[0], poly[2], poly[3])]
        return [(poly[0], poly[1], poly[3]), (poly[1], poly[2], poly[3])]
    eps = np.finfo(np.float32).eps
    axes = [1, 2]
    for k in range(n):
        p0, p1, p2 = v[poly[k]], v[poly[(k + 1) % n]], v[poly[(k + 2) % n]]
        e0, e1 = p1 - p0, p2 - p1
        cx, cy, cz = abs(e0[1] * e1[2] - e0[2] * e1[1]), abs(e0[2] * e1[0] - e0[0] * e1[2]), \
            abs(e0[0] * e1[1] - e0[1] * e1[0])
        if cx > eps or cy > eps or cz > eps:
            if not (cx > cy and cx > cz):
                axes[0] = 0
                if cz > cx and cz > cy:
                    axes[1] = 1
            break
    a0, a1 = axes
    half = np.float32(0.5)
    rem = list(poly)
    out = []
    guess, iterations, previous = 0, n, n
    while len(rem) > 3 and iterations > 0:
        m = len(rem)
        if guess >= m:
            guess -= m
        if previous != m:
            previous, iterations = m, m
        else:
            iterations -= 1
        ind = [rem[(guess + k) % m] for k in range(3)]
        vx = [v[i][a0] for i in ind]
        vy = [v[i][a1] for i in ind]
        cross = (vx[1] - vx[0]) * (vy[2] - vy[1]) - (vy[1] - vy[0]) * (vx[2] - vx[1])
        area = (vx[0] * vy[1] - vy[0] * vx[1]) * half  # tinyobjloader's per-triangle "area" test
        if cross * area < 0:
            guess += 1
            continue
        if any(_pnpoly(vx, vy, v[rem[(guess + o) % m]][a0], v[rem[(guess + o) % m]][a1]) for o in range(3, m)):
            guess += 1
            continue
        out.append(tuple(ind))
        del rem[(guess + 1) % m]
    if len(rem) == 3:
        out.append(tuple(rem))
    return out


def ReadObj(text: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3) float64 of float32 values, faces (m, 3)) of an OBJ file's text."""
    verts: list[list[float]] = []
    faces: list[tuple[int, int, int]] = []
    polys: list[list[int]] = []
    done = False  # the first shape ended: later faces belong to other shapes, which MuJoCo ignores
    for line in text.splitlines():
        tok = line.split()
        if not tok:
            continue
        key = tok[0]
        if key == "v":
            if len(tok) < 4:
                raise ValueError(f"OBJ vertex line needs 3 coordinates: '{line.strip()}'")
            verts.append([float(t) for t in tok[1:4]])
        elif key in ("o", "g"):
            done = done or bool(polys)
        elif key == "f" and not done:
            idx = [_index(t, len(verts)) for t in tok[1:]]
            if len(idx) < 3:
                continue
            if any(i < 0 or i >= len(verts) for i in idx):
                raise ValueError(f"OBJ face index out of range [1, {len(verts)}]: '{line.strip()}'")
            polys.append(idx)
    v32 = np.asarray(verts, np.float32).reshape(-1, 3)
    for idx in polys:
        faces.extend(_triangulate(v32, idx))
    v = v32.astype(float)
    return v, np.asarray(faces, np.int64).reshape(-1, 3)


def ReadStl(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of a binary STL file, bit-identical vertices merged in order of first appearance."""
    if len(data) < 84:
        raise ValueError("invalid STL header")
    n = int(np.frombuffer(data, "<u4", 1, 80)[0])
    if n < 1 or n * 50 != len(data) - 84:
        raise ValueError("not a binary STL file (wrong size for its face count; ASCII STL is not supported, as in "
                         "MuJoCo)")
    rec = np.frombuffer(data, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]), n, 84)
    pts = np.ascontiguousarray(rec["v"].reshape(-1, 3))
    keys = pts.view(np.uint32).reshape(-1, 3)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # vertex ids in order of first appearance, as MuJoCo's map assigns them
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    v = pts[first[order]].astype(float)
    return v, rank[inverse.reshape(-1)].reshape(-1, 3).astype(np.int64)
