"""MuJoCo's collision hull of a mesh asset: qhull's triangulated hull ("Qt"; with maxhullvert, "Q9 TA n-4") of
the vertices as read from the file, before refpos/refquat/scale and the move to the inertial frame
(mjCMesh::MakeGraph), and its faces merged as MuJoCo merges them (collision/hull_polygons.py: normals binned in
that file frame). The hull's vertices, moved to the compiled (inertial) frame and rounded to single precision
as mjModel.mesh_vert, are the points a mesh geom collides with; the faces, packed over those points, ride on
the geom's proximity properties ("mujoco", "hull_faces") for plane-mesh contacts.

Hull and faces come from the file-frame points because MuJoCo builds them there: the same triangles binned
after the rotation to the inertial frame, or a hull computed with other qhull options (which merge nearly
coplanar facets differently), give other faces on CAD meshes.
"""
from __future__ import annotations

import numpy as np

from mallard.geometry.collision.hull_polygons import merge_coplanar, pack_polygons

from .model import MjcfMesh


def MujocoMeshHull(mesh: MjcfMesh) -> tuple[np.ndarray, np.ndarray]:
    """(hull vertices (m, 3) in the mesh inertial frame, single precision as MuJoCo stores them; packed hull
    faces over those vertices (collision/hull_polygons.py layout)) of a compiled mesh asset. Raises ValueError
    when the points span no volume."""
    if mesh.hull is None:
        from scipy.spatial import ConvexHull, QhullError

        if mesh.file_vertices is not None:
            raw, compiled = np.asarray(mesh.file_vertices, float), np.asarray(mesh.file_vertices_compiled, float)
        else:  # a plugin mesh: its vertices are in the file (SDF) frame
            raw = compiled = np.asarray(mesh.vertices, float)
        options = "Qt" if mesh.maxhullvert < 0 else f"Qt Q9 TA{mesh.maxhullvert - 4}"
        try:
            tris = ConvexHull(raw, qhull_options=options).simplices.astype(np.int64)
        except (QhullError, ValueError) as exc:
            raise ValueError(f"the convex hull of the mesh is degenerate (its vertices are coplanar or too few): "
                             f"{str(exc).strip().splitlines()[0]}") from None
        used = np.unique(tris)
        index = np.full(raw.shape[0], -1, np.int64)
        index[used] = np.arange(used.size)
        tris = index[tris]
        # outward winding as MuJoCo's (qhull's vertex order, the first two swapped on an inward triangle): the
        # order decides where each face's boundary trace starts, and the face order
        hv = raw[used]
        a, b, c = hv[tris[:, 0]], hv[tris[:, 1]], hv[tris[:, 2]]
        inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), a - hv.mean(axis=0)) < 0
        tris[inward] = tris[inward][:, [1, 0, 2]]
        hull = compiled[used]
        cycles = merge_coplanar(hv, tris)
        if mesh.left_handed:  # MuJoCo 4 turns a mirrored mesh's faces around (same first vertex), so that they
            cycles = [c[:1] + c[:0:-1] for c in cycles]  # wind counter-clockwise about the mirrored normals
        faces = pack_polygons(hull, cycles)
        mesh.hull = (hull.astype(np.float32).astype(float), faces)
        a, b, c = hull[tris[:, 0]], hull[tris[:, 1]], hull[tris[:, 2]]  # outward in the compiled frame too
        inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), a - hull.mean(axis=0)) < 0
        out = tris.copy()
        out[inward] = out[inward][:, [0, 2, 1]]
        mesh.hull_triangles = out
    return mesh.hull


def MujocoMeshHullTriangles(mesh: MjcfMesh) -> np.ndarray:
    """MuJoCo's hull triangles (t, 3) over the points MujocoMeshHull returns, wound outward in the compiled frame
    (the triangles of its mesh graph, which every hull point lies on)."""
    MujocoMeshHull(mesh)
    return mesh.hull_triangles
