"""The vertex graph of a convex mesh hull, and extreme vertices found by climbing it instead of scanning every vertex
(MuJoCo's mesh graph, which its GJK and bounding boxes climb).

A hull's graph is built once per scene (geometry/compiled_scene.py) and packed into one int64 array:

    [start (NDIR), adr (nv + 1), neighbors (...)]

`start[k]` is a vertex farthest along the k-th of NDIR fixed directions (where a climb starts), and vertex i's
neighbors are `g[adr[i]:adr[i + 1]]` (absolute offsets into g). An empty array means no graph: the kernels scan.

A hull of at least `CHUNK_MIN` vertices also carries a chunk section (`MeshChunks`): its vertices in spatially
compact groups, each with its bounding box, so a scan skips every group whose box cannot reach the best value
found (exact for any point set, convex or not: hulls whose graph is refused are scanned this way). A row with a
graph has the section after its neighbors (at g[NDIR + nv], the end of the neighbor lists); a row without one is
`[-1, section]`.

`hull_extreme` returns what a scan returns (the largest value of the same floating-point expression, the lowest
index among equal values), not merely a vertex that is extreme up to rounding: after the climb it walks the
plateau of vertices within a tolerance of the best value found (the vertices whose exact values lie within the
rounding error of the scan's maximum form a connected piece of the graph of a convex hull, so the walk reaches
the scan's vertex). Contacts, bounding boxes and pair orders therefore stay bit-identical to a scan. The graph
is only built for a hull whose vertices lie inside every face plane to 1e-12 of its size and whose climb
matches the scan in a set of test directions; otherwise the kernels scan.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

_S = 1.0 / math.sqrt(3.0)
#: the climbs' start directions: the six axes and the eight octant diagonals
DIRS = np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0], [0, -1.0, 0], [0, 0, 1.0], [0, 0, -1.0],
                 [_S, _S, _S], [_S, _S, -_S], [_S, -_S, _S], [_S, -_S, -_S],
                 [-_S, _S, _S], [-_S, _S, -_S], [-_S, -_S, _S], [-_S, -_S, -_S]])
NDIR = DIRS.shape[0]
_PLATEAU = 256  # plateau vertices tracked by the walk at most; a larger plateau is scanned
_TOL = 1e-10    # plateau tolerance relative to |o| + (|a| + |b| + |c|)·radius
CHUNK_MIN = 64  # hulls with fewer vertices are scanned whole (or climbed)
_SLACK = 1e-12  # a group's bound is widened by this times |o| + (|a| + |b| + |c|)·(max |x| + |y| + |z|)


@njit(cache=True, error_model="numpy")
def scan_extreme(verts, a, b, c, o):
    """(index, value) of the first vertex maximizing o + a·x + b·y + c·z (evaluated left to right); (-1, -inf)
    without vertices."""
    best = -math.inf
    k = -1
    for i in range(verts.shape[0]):
        x = o + a * verts[i, 0] + b * verts[i, 1] + c * verts[i, 2]
        if x > best:
            best = x
            k = i
    return k, best


@njit(cache=True, error_model="numpy")
def hull_extreme(verts, g, radius, a, b, c, o):
    """scan_extreme(verts, a, b, c, o) by climbing the hull graph g (see the module docstring); radius: the
    largest vertex norm. Scans when g is empty."""
    if g.shape[0] == 0 or verts.shape[0] == 0:
        return scan_extreme(verts, a, b, c, o)
    if g[0] < 0:  # no graph: the chunk section's scan
        return chunk_extreme(verts, g, 1, a, b, c, o)
    DIRS_ = DIRS
    sd = -math.inf
    i = 0
    for k in range(NDIR):
        s = a * DIRS_[k, 0] + b * DIRS_[k, 1] + c * DIRS_[k, 2]
        if s > sd:
            sd = s
            i = g[k]
    best = o + a * verts[i, 0] + b * verts[i, 1] + c * verts[i, 2]
    tol = _TOL * (abs(o) + (abs(a) + abs(b) + abs(c)) * radius)
    while True:  # steepest ascent
        nxt = i
        nb = -math.inf  # the best neighbor value of the final vertex
        for e in range(g[NDIR + i], g[NDIR + i + 1]):
            j = g[e]
            x = o + a * verts[j, 0] + b * verts[j, 1] + c * verts[j, 2]
            if x > nb:
                nb = x
            if x > best:
                best = x
                nxt = j
        if nxt == i:
            break
        i = nxt
    if nb < best - tol:  # a strict peak: the scan's vertex
        return i, best
    # the plateau within tol of best: the largest value, lowest index among equals. The walk's membership test is
    # linear in the plateau, so a plateau of more than ~sqrt(nv) vertices (a flat face of a CAD mesh seen along its
    # normal) is scanned instead: the walk would cost more than the scan (~1 ns per vertex)
    cap = min(_PLATEAU, max(8, int(math.sqrt(verts.shape[0]))))
    seen = np.empty(cap, np.int64)
    seen[0] = i
    ns = 1
    head = 0
    bi, bv = i, best
    floor = best - tol
    while head < ns:
        u = seen[head]
        head += 1
        for e in range(g[NDIR + u], g[NDIR + u + 1]):
            j = g[e]
            x = o + a * verts[j, 0] + b * verts[j, 1] + c * verts[j, 2]
            if x < floor:
                continue
            known = False
            for q in range(ns):
                if seen[q] == j:
                    known = True
                    break
            if known:
                continue
            if ns == cap:
                end = g[NDIR + verts.shape[0]]
                if g.shape[0] > end:
                    return chunk_extreme(verts, g, end, a, b, c, o)
                return scan_extreme(verts, a, b, c, o)
            seen[ns] = j
            ns += 1
            if x > bv or (x == bv and j < bi):
                bi, bv = j, x
    return bi, bv


@njit(cache=True, error_model="numpy")
def chunk_extreme(verts, g, s, a, b, c, o):
    """scan_extreme(verts, a, b, c, o) over the chunk section of g at offset s (MeshChunks): the group whose bound
    is largest is scanned first, then every other group whose bound reaches the best value so far, each vertex's
    value being the scan's expression (the largest value, the lowest index among equals: the scan's answer). A
    group's bound o + (a, b, c)·center + (|a|, |b|, |c|)·half extents, widened by _SLACK, exceeds the rounded
    value of each of its vertices, so a skipped group holds no vertex the scan would return."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c) and math.isfinite(o)):
        return scan_extreme(verts, a, b, c, o)
    nch = g[s]
    q = math.ldexp(1.0, g[s + 1])
    perm = s + 3
    tab = perm + verts.shape[0]
    aa, ab, ac = abs(a), abs(b), abs(c)
    slack = _SLACK * (abs(o) + (abs(a) + abs(b) + abs(c)) * (g[s + 2] * q)) + 1e-300
    top = -math.inf
    first = 0
    for k in range(nch):
        e = tab + 8 * k
        ub = o + ((a * g[e + 2] + b * g[e + 3] + c * g[e + 4]) * q
                  + (aa * g[e + 5] + ab * g[e + 6] + ac * g[e + 7]) * q)
        if ub > top:
            top = ub
            first = k
    best = -math.inf
    bi = -1
    for t in range(nch):  # the group `first`, then the others in order, each unless its bound is below the best
        k = first if t == 0 else (t - 1 if t <= first else t)
        e = tab + 8 * k
        ub = o + ((a * g[e + 2] + b * g[e + 3] + c * g[e + 4]) * q
                  + (aa * g[e + 5] + ab * g[e + 6] + ac * g[e + 7]) * q)
        if t > 0 and ub + slack < best:
            continue
        for r in range(g[e], g[e + 1]):
            i = g[perm + r]
            x = o + a * verts[i, 0] + b * verts[i, 1] + c * verts[i, 2]
            if x > best or (x == best and i < bi):
                best = x
                bi = i
    return bi, best


def MeshChunks(verts: np.ndarray) -> np.ndarray:
    """The chunk section of a hull's vertices (n, 3), read by chunk_extreme:

        [nchunk, e, M, perm (n), nchunk × (begin, end, cx, cy, cz, hx, hy, hz)]

    perm lists the vertices group by group (perm[begin:end] is one group; groups of at most ~sqrt(n) vertices
    from splitting the set at the median of its longest extent, recursively); a group's box center (cx, cy, cz)
    and half extents (hx, hy, hz), and M (the largest |x| + |y| + |z|), are integers in units of q = 2**e, so the
    kernel reads them exactly; the half extents are rounded up, and cover every vertex of the group from the
    rounded center. Empty below CHUNK_MIN vertices."""
    v = np.ascontiguousarray(verts, dtype=np.float64).reshape(-1, 3)
    n = v.shape[0]
    if n < CHUNK_MIN or not np.all(np.isfinite(v)):
        return np.zeros(0, np.int64)
    size = max(16, int(math.ceil(math.sqrt(n))))
    groups = []
    todo = [np.arange(n, dtype=np.int64)]
    while todo:
        idx = todo.pop()
        if idx.shape[0] <= size:
            groups.append(np.sort(idx))
            continue
        pts = v[idx]
        ax = int(np.argmax(pts.max(axis=0) - pts.min(axis=0)))
        order = idx[np.argsort(pts[:, ax], kind="stable")]
        half = order.shape[0] // 2
        todo.append(order[half:])
        todo.append(order[:half])
    groups.sort(key=lambda gr: int(gr[0]))
    msum = float(np.abs(v).sum(axis=1).max())
    e = (math.frexp(msum)[1] if msum > 0 else 0) - 40
    q = math.ldexp(1.0, e)
    perm = np.concatenate(groups)
    tab = np.zeros((len(groups), 8), np.int64)
    begin = 0
    for k, gr in enumerate(groups):
        pts = v[gr]
        center = np.round(0.5 * (pts.max(axis=0) + pts.min(axis=0)) / q)
        half = np.abs(pts - center * q).max(axis=0)
        tab[k, 0], tab[k, 1] = begin, begin + gr.shape[0]
        tab[k, 2:5] = center.astype(np.int64)
        tab[k, 5:8] = np.ceil(half * (1.0 + 1e-9) / q).astype(np.int64) + 1
        begin += gr.shape[0]
    head = np.array([len(groups), e, int(math.ceil(msum / q)) + 1], np.int64)
    return np.concatenate([head, perm, tab.reshape(-1)]).astype(np.int64)


def _edges_csr(nv: int, tris: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(adr (nv + 1), neighbors) of the undirected edges of triangles tris (m, 3)."""
    e = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]).astype(np.int64)
    e = np.concatenate([e, e[:, ::-1]])
    e = np.unique(e, axis=0)
    e = e[e[:, 0] != e[:, 1]]
    counts = np.bincount(e[:, 0], minlength=nv)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), np.ascontiguousarray(e[:, 1])


def MeshGraph(verts: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """The packed graph (module docstring) of a convex hull with vertices verts (n, 3) and outward triangles tris
    (m, 3), or an empty array when climbing it might not give the scan's answer (vertices outside a face plane by
    more than 1e-12 of the hull's size, a vertex on no triangle, or a mismatch in the check directions)."""
    v = np.ascontiguousarray(verts, dtype=np.float64).reshape(-1, 3)
    t = np.asarray(tris, dtype=np.int64).reshape(-1, 3)
    nv = v.shape[0]
    empty = np.zeros(0, np.int64)
    if nv < 4 or t.shape[0] < 4:
        return empty
    radius = float(np.sqrt((v * v).sum(axis=1)).max())
    n = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    ln = np.linalg.norm(n, axis=1)
    ok = ln > 1e-14 * max(radius, 1e-300) ** 2
    n = n[ok] / ln[ok, None]
    h = np.einsum("ij,ij->i", n, v[t[ok, 0]])
    for s in range(0, n.shape[0], 512):  # convexity: every vertex inside every face plane
        if np.max(v @ n[s:s + 512].T - h[s:s + 512]) > 1e-12 * radius:
            return empty
    adr, nbr = _edges_csr(nv, t)
    if np.any(adr[1:] == adr[:-1]):
        return empty
    start = np.argmax(v @ DIRS.T, axis=0).astype(np.int64)
    g = np.concatenate([start, adr + NDIR + nv + 1, nbr]).astype(np.int64)
    rng = np.random.default_rng(0)
    checks = np.concatenate([DIRS, rng.standard_normal((48, 3))])
    for d in checks:
        for o in (0.0, 1.0):
            if hull_extreme(v, g, radius, d[0], d[1], d[2], o) != scan_extreme(v, d[0], d[1], d[2], o):
                return empty
    return g


def PackMeshGraphs(n: int, graphs: dict, hulls: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(graph, gadr): the graphs of rows 0..n-1 (row -> MeshGraph array; missing rows: none) in one int64 array,
    row i's at graph[gadr[i]:gadr[i + 1]]; with `hulls` (row -> hull vertices), each row's chunk section
    (MeshChunks) appended to its graph, or after a -1 when it has none (see the module docstring)."""
    graphs = {int(r): np.asarray(g, np.int64) for r, g in graphs.items()}
    for row, v in (hulls or {}).items():
        chunks = MeshChunks(v)
        if chunks.size:
            g = graphs.get(int(row), np.zeros(0, np.int64))
            graphs[int(row)] = np.concatenate([g if g.size else np.full(1, -1, np.int64), chunks])
    sizes = np.zeros(n, np.int64)
    for row, g in graphs.items():
        sizes[int(row)] = len(g)
    gadr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    flat = [graphs[r] for r in sorted(graphs)]
    graph = np.ascontiguousarray(np.concatenate(flat) if flat else np.zeros(0, np.int64))
    return graph, gadr
