"""The faces of a convex mesh hull as polygons (coplanar hull triangles merged), as MuJoCo's mesh polygons.

MuJoCo's plane-mesh contact takes the deepest hull vertex, then the hull face through it that faces the plane
most squarely, and prunes that face to at most four vertices (collision/narrowphase.py ``plane_convex``), so
which triangles form one face decides the contacts. MuJoCo's rule (mjCMesh::MakePolygons): a hull triangle's
unit normal, in the frame of the mesh as read from its file, is binned by its azimuth and polar angles rounded
to 0.01 rad (normals within 1e-7 of ±z form the two polar bins); all triangles of a bin form one polygon,
whose edge-connected pieces are its separate faces, each traced along its boundary. A face's normal is that of
its vector area in the compiled (shape) frame. The faces come in the iteration order of MuJoCo's bin table (a
libc++ ``std::unordered_map`` keyed by the angle pair, hashed by boost's hash_combine of the doubles' bits), which
decides which of two equally good faces a contact uses (Barkour's obstacle course, TALOS's feet). Binning in another frame or merging only exactly
coplanar triangles gives other faces on CAD meshes (Toddlerbot's feet: 47 faces in MuJoCo, 50 when merging
coplanar triangles only).

The faces are computed once when a scene is compiled and packed into one float array per mesh (indices
stored as floats, exact below 2**53), so the kernel reads them with no per-step cost:

    [npoly, nv, vadr (nv + 1), vpoly (...), padr (npoly + 1), normals (3 npoly), pvert (...)]

vertex i lies on polygons ``vpoly[vadr[i]:vadr[i + 1]]``; polygon f has unit outward normal ``normals[f]`` (frame
G) and vertices ``pvert[padr[f]:padr[f + 1]]``, counter-clockwise about that normal.
"""
from __future__ import annotations

import math
import struct

import numpy as np

_ANGLE_TOL = 0.01  # MuJoCo's bin width of face normal angles [rad]
_POLE = 1.0 - 1e-7  # |n_z| above this: the normal is binned as ±z (azimuth 0)
_MINVAL = 1e-15  # triangles whose edge cross product is shorter than this are left out (MuJoCo's mjMINVAL)
_EPS = 1e-14  # a face normal from a cross product shorter than this is +x (MuJoCo's mjEPS)


def _round(x: float) -> float:
    """C's round(): halves away from zero."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _normal_bin(a, b, c) -> tuple[float, float] | None:
    """The (azimuth, polar) bin of triangle a b c's unit normal, or None for a degenerate triangle."""
    e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    n = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
    norm = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    if norm < _MINVAL:
        return None
    nx, ny, nz = n[0] / norm + 0.0, n[1] / norm + 0.0, n[2] / norm + 0.0  # + 0.0: no negative zero in atan2
    if abs(nz) > _POLE:
        return 0.0, (_round(math.pi / _ANGLE_TOL) if nz < 0 else 0.0)
    return _round(math.atan2(ny, nx) / _ANGLE_TOL), _round(math.acos(nz) / _ANGLE_TOL)


class _Bin:
    """The triangles of one normal bin: their unmatched (boundary) directed edges, in insertion order, each with
    the piece it belongs to; a triangle sharing edges with several pieces joins them (MuJoCo's MeshPolygon)."""

    def __init__(self, a: int, b: int, c: int):
        self.edges = {(a, b): 0, (b, c): 0, (c, a): 0}  # edge -> piece (dicts keep insertion order)
        self.npiece = 1

    def _join(self, p1: int, p2: int) -> int:
        if p2 < p1:
            p1, p2 = p2, p1
        for e, p in self.edges.items():
            if p >= p2:
                self.edges[e] = p1 if p == p2 else p - 1
        return p1

    def insert(self, a: int, b: int, c: int) -> None:
        piece = -1
        fresh = []
        for e in ((a, b), (b, c), (c, a)):
            other = self.edges.get((e[1], e[0]))
            if other is None:
                fresh.append(e)
                continue
            if piece == -1:
                piece = other
            elif other != piece:
                self.npiece -= 1
                piece = self._join(piece, other)
            del self.edges[(e[1], e[0])]
        if piece == -1:
            piece = self.npiece
            self.npiece += 1
        for e in fresh:
            self.edges[e] = piece

    def boundaries(self) -> list[list[int]]:
        """One vertex cycle per piece, traced from the piece's first boundary edge along the first edge (after
        edge 0) leaving each vertex; a piece whose trace does not close is dropped (as MuJoCo does). A bin of
        three boundary edges is traced too (MuJoCo 4 has no shortcut taking them in table order: a triangle
        split around an inner vertex keeps its winding)."""
        first: dict = {}
        leaving: dict = {}
        for k, (e, p) in enumerate(self.edges.items()):
            first.setdefault(p, e)
            if k:
                leaving.setdefault((p, e[0]), e[1])
        out = []
        for i in range(self.npiece):
            if i not in first:
                continue
            path = list(first[i])
            for _ in range(len(self.edges)):
                nxt = leaving.get((i, path[-1]))
                if nxt is None:
                    break
                if nxt == path[0]:
                    out.append(path)
                    break
                path.append(nxt)
        return out


_M64 = (1 << 64) - 1


def _double_hash(x: float) -> int:
    """libc++'s std::hash<double> on a 64-bit machine: the bits of x (0 for ±0)."""
    return 0 if x == 0.0 else struct.unpack("<Q", struct.pack("<d", x))[0]


def _key_hash(key: tuple[float, float]) -> int:
    """MuJoCo 4's hash of an (azimuth, polar) bin: boost::hash_combine(hash(azimuth), hash(polar))."""
    h = _double_hash(key[0])
    return h ^ ((_double_hash(key[1]) + 0x9E3779B9 + (h << 6) + (h >> 2)) & _M64)


def _is_prime(n: int) -> bool:
    if n < 4:
        return n > 1
    if n % 2 == 0:
        return False
    i = 3
    while i * i <= n:
        if n % i == 0:
            return False
        i += 2
    return True


def _bucket(h: int, nb: int) -> int:
    """libc++'s bucket of hash h among nb buckets (a mask for a power of two, else the remainder)."""
    return h & (nb - 1) if nb & (nb - 1) == 0 else h % nb


def unordered_map_order(hashes: list[int]) -> list[int]:
    """The iteration order (indices into ``hashes``) of a libc++ ``std::unordered_map`` into which keys with
    these hashes (distinct keys, in insertion order) were inserted: a singly linked list where a key whose
    bucket is empty goes to the front and any other one to the front of its bucket's run; the table grows to
    the next prime above twice its size when the load factor would pass 1, relinking in list order."""
    n = len(hashes)
    head = n  # the list's before-begin node
    nxt = [-1] * (n + 1)
    buckets: list[int] = []  # per bucket: the node before its run, or -1
    for node, h in enumerate(hashes):
        nb = len(buckets)
        if nb == 0 or node + 1 > nb:
            want = max(2 * nb + (0 if nb > 2 and nb & (nb - 1) == 0 else 1), node + 1)
            if want == 1:
                want = 2
            elif want & (want - 1):
                while not _is_prime(want):
                    want += 1
            nb = want
            buckets = [-1] * nb
            pp, cp = head, nxt[head]
            if cp != -1:  # relink as libc++'s __do_rehash
                ph = _bucket(hashes[cp], nb)
                buckets[ph] = pp
                pp, cp = cp, nxt[cp]
                while cp != -1:
                    ch = _bucket(hashes[cp], nb)
                    if ch == ph:
                        pp = cp
                    elif buckets[ch] == -1:
                        buckets[ch], pp, ph = pp, cp, ch
                    else:
                        nxt[pp] = nxt[cp]
                        nxt[cp] = nxt[buckets[ch]]
                        nxt[buckets[ch]] = cp
                    cp = nxt[pp]
        b = _bucket(h, nb)
        before = buckets[b]
        if before == -1:
            nxt[node], nxt[head] = nxt[head], node
            buckets[b] = head
            if nxt[node] != -1:
                buckets[_bucket(hashes[nxt[node]], nb)] = node
        else:
            nxt[node], nxt[before] = nxt[before], node
    out, cp = [], nxt[head]
    while cp != -1:
        out.append(cp)
        cp = nxt[cp]
    return out


def merge_coplanar(key_vertices: np.ndarray, triangles: np.ndarray) -> list[list[int]]:
    """MuJoCo's hull faces: vertex cycles (counter-clockwise about the outward normal) of the outward-wound
    hull ``triangles`` merged by the bins of their normals computed from ``key_vertices`` (the frame MuJoCo
    bins in: the mesh as read from its file), in the order of MuJoCo's bin table."""
    kv = np.asarray(key_vertices, dtype=float).reshape(-1, 3).tolist()
    bins: dict = {}
    for a, b, c in np.asarray(triangles, dtype=np.int64).reshape(-1, 3).tolist():
        key = _normal_bin(kv[a], kv[b], kv[c])
        if key is None:
            continue
        if key in bins:
            bins[key].insert(a, b, c)
        else:
            bins[key] = _Bin(a, b, c)
    pieces = list(bins.values())
    order = unordered_map_order([_key_hash(key) for key in bins])
    return [cycle for i in order for cycle in pieces[i].boundaries() if len(cycle) >= 3]


def _face_normals(v: np.ndarray, cycles: list[list[int]]) -> np.ndarray:
    """Unit normals (k, 3) of the faces: the sum of the cross products of the fan from each face's first vertex
    (the face's vector area, Newell's normal, as MuJoCo 4; a curved merged face has no plane through its first
    three vertices); +x where that sum is shorter than MuJoCo's mjEPS."""
    first = np.asarray([c[0] for c in cycles for _ in range(len(c) - 2)], dtype=np.int64)
    mid = np.asarray([c[i] for c in cycles for i in range(1, len(c) - 1)], dtype=np.int64)
    last = np.asarray([c[i] for c in cycles for i in range(2, len(c))], dtype=np.int64)
    fan = np.cross(v[mid] - v[first], v[last] - v[first]).reshape(-1, 3)
    starts = np.concatenate([[0], np.cumsum([len(c) - 2 for c in cycles])[:-1]]).astype(np.int64)
    n = np.add.reduceat(fan, starts, axis=0) if len(cycles) else np.zeros((0, 3))
    ln = np.sqrt(np.einsum("ij,ij->i", n, n))
    small = ln < _EPS
    n[small] = (1.0, 0.0, 0.0)
    ln[small] = 1.0
    return n / ln[:, None]


def pack_polygons(vertices: np.ndarray, cycles: list[list[int]]) -> np.ndarray:
    """The packed faces (layout above) of hull faces given as vertex cycles into ``vertices`` (m, 3)."""
    v = np.asarray(vertices, dtype=float).reshape(-1, 3)
    nv = v.shape[0]
    normals = _face_normals(v, cycles)
    vpoly: list[list[int]] = [[] for _ in range(nv)]
    for f, cycle in enumerate(cycles):
        for i in cycle:
            vpoly[i].append(f)
    vadr = np.concatenate([[0], np.cumsum([len(x) for x in vpoly])])
    padr = np.concatenate([[0], np.cumsum([len(c) for c in cycles])])
    return np.concatenate([[len(cycles), nv], vadr, [f for x in vpoly for f in x], padr,
                           normals.reshape(-1), [i for c in cycles for i in c]]).astype(float)


def hull_polygons(vertices: np.ndarray, triangles: np.ndarray, key_vertices: np.ndarray | None = None) -> np.ndarray:
    """The packed faces (layout above) of a convex hull given by its vertices (m, 3) and outward-wound
    triangles (t, 3); normals are binned in the frame of ``key_vertices`` (the same points in another frame;
    default: ``vertices``)."""
    return pack_polygons(vertices, merge_coplanar(vertices if key_vertices is None else key_vertices, triangles))
