"""Reading Wavefront OBJ data (vertices and polygon faces) and ReadObjToTriangleSurfaceMesh.

Vertices keep their order in the file; polygons with more than three corners are split into a fan about
their first corner. Negative (relative) indices and 'v/vt/vn' face corners are understood; texture
coordinates, normals, groups and materials are ignored.
"""
from __future__ import annotations

import os

import numpy as np

from mallard.common.memory_file import MemoryFile
from mallard.common.overloads import Overload, declares, resolve
from mallard.geometry.mesh_source import MeshSource
from mallard.geometry.surface_mesh import TriangleSurfaceMesh

__all__ = ["ReadObjToTriangleSurfaceMesh", "parse_obj", "read_obj_source"]


def parse_obj(data: bytes | str, name: str) -> tuple[np.ndarray, list[list[int]]]:
    """(vertices (n, 3), polygons as lists of 0-based vertex indices) of OBJ text; ValueError naming
    ``name`` and the line for malformed records."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, (bytes, bytearray)) else data
    V: list[list[float]] = []
    polys: list[list[int]] = []
    lines = text.replace("\\\n", " ").splitlines()
    for lineno, line in enumerate(lines, start=1):
        tok = line.split("#", 1)[0].split()
        if not tok:
            continue
        if tok[0] == "v":
            try:
                xyz = [float(t) for t in tok[1:4]]
            except ValueError:
                xyz = []
            if len(xyz) != 3:
                raise ValueError(f"Error parsing OBJ '{name}': line {lineno}: a vertex needs 3 coordinates: "
                                 f"{line.strip()!r}")
            V.append(xyz)
        elif tok[0] == "f":
            try:
                idx = [int(t.split("/")[0]) for t in tok[1:]]
            except ValueError:
                raise ValueError(f"Error parsing OBJ '{name}': line {lineno}: bad face record {line.strip()!r}") \
                    from None
            idx = [i - 1 if i > 0 else len(V) + i for i in idx]
            if len(idx) < 3 or min(idx) < 0 or max(idx) >= len(V):
                raise ValueError(f"Error parsing OBJ '{name}': line {lineno}: a face needs >= 3 vertices that "
                                 f"exist ({len(V)} read so far): {line.strip()!r}")
            polys.append(idx)
    return np.asarray(V, dtype=float).reshape(-1, 3), polys


def triangulate(polys: list[list[int]], reverse_winding: bool = False) -> np.ndarray:
    """Triangles (m, 3) of polygons fanned about their first corner (winding reversed when asked)."""
    tris = [[p[0], p[k], p[k + 1]] for p in polys for k in range(1, len(p) - 1)]
    T = np.asarray(tris, dtype=np.int64).reshape(-1, 3)
    return T[:, [0, 2, 1]] if reverse_winding else T


def _source_bytes(source: MeshSource, who: str) -> tuple[bytes, str]:
    if source.is_in_memory():
        f = source.in_memory().mesh_file
        return f.contents(), f.filename_hint()
    path = str(source.path())
    try:
        with open(path, "rb") as fh:
            return fh.read(), path
    except OSError:
        raise FileNotFoundError(f"{who}: cannot read the file '{path}'") from None


def read_obj_source(source: MeshSource, who: str) -> tuple[np.ndarray, list[list[int]]]:
    """(vertices, polygons) of the OBJ data of ``source`` (a file or in memory)."""
    if source.extension() != ".obj":
        raise ValueError(f"{who}: mesh data provided reported the wrong extension: '{source.extension()}' for "
                         f"file '{source.description()}'. It must be '.obj'.")
    data, name = _source_bytes(source, who)
    return parse_obj(data, name)


_OVERLOADS = (Overload(("filename", (str, os.PathLike, MeshSource)), ("scale", None, 1.0)),
              Overload(("filename", (str, os.PathLike, MeshSource)), ("scale3", (list, tuple, np.ndarray))))


@declares(_OVERLOADS)
def ReadObjToTriangleSurfaceMesh(*args, **kwargs) -> TriangleSurfaceMesh:
    """ReadObjToTriangleSurfaceMesh(filename, scale=1.0) or (filename, scale3): the OBJ file's surface as a
    TriangleSurfaceMesh, vertices scaled per axis (a mirroring scale reverses the winding, keeping the
    triangles wound outward). Raises when the data hold no faces."""
    k, a = resolve("ReadObjToTriangleSurfaceMesh", _OVERLOADS, args, kwargs)
    scale = np.full(3, float(a["scale"])) if k == 0 else np.asarray(a["scale3"], dtype=float).reshape(3)
    source = a["filename"] if isinstance(a["filename"], MeshSource) else MeshSource(a["filename"])
    V, polys = read_obj_source(source, "ReadObjToTriangleSurfaceMesh")
    if not polys:
        raise ValueError(f"The OBJ data parsed contains no objects; the data could be corrupt, empty, or not an "
                         f"OBJ file. Name: '{source.description()}'")
    return TriangleSurfaceMesh(triangles=triangulate(polys, int(np.sum(scale < 0)) % 2 == 1), vertices=V * scale)


def obj_memory_file(vertices: np.ndarray, triangles: np.ndarray, name: str) -> MemoryFile:
    """An in-memory OBJ of vertices (n, 3) and triangles (m, 3), full double precision."""
    text = "".join(f"v {a!r} {b!r} {c!r}\n" for a, b, c in np.asarray(vertices, dtype=float).tolist())
    text += "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in np.asarray(triangles, dtype=int).tolist())
    return MemoryFile(text, ".obj", name)
