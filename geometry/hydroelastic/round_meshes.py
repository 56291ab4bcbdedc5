"""Tetrahedral meshes of cylinders, capsules and convex hulls for hydroelastic contact, as Drake 1.51 builds them
(geometry/proximity/make_{cylinder,capsule,convex}_mesh):

* cylinder (MakeCylinderVolumeMeshWithMa): n = max(3, ⌈2πr/h⌉) vertices on each rim; the tetrahedra respect the
  medial axis, which is a segment (long: half length > r), a point (medium) or a disk (short: half length < r), so
  the distance-to-boundary field is linear in each tetrahedron;
* capsule (MakeCapsuleVolumeMesh): n = ⌊clamp(2πr/h, 3, 706)⌋ vertices per circle and n/2 circles per cap; the
  medial segment's end points are vertices 0 and 1, every other vertex is on the surface;
* convex (MakeConvexVolumeMesh): every surface triangle joined to the centroid of the enclosed volume.

Their surfaces (ConvertVolumeToSurfaceMesh) are Drake's rigid cylinder and capsule. Vertices are in the shape's
frame [m] (the axis is +z); tetrahedra are positively oriented.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.volume_mesh import VolumeMesh
from mallard.geometry.volume_mesh_tools import ConvertVolumeToSurfaceMesh

__all__ = ["MakeCylinderVolumeMesh", "MakeCylinderSurfaceMesh", "MakeCapsuleVolumeMesh", "MakeCapsuleSurfaceMesh",
           "MakeConvexVolumeMesh"]


def _prism(v0, v1, v2, v3, v4, v5) -> list[tuple[int, int, int, int]]:
    """The 3 tetrahedra of the triangular prism (v0 v1 v2) below (v3 v4 v5) (Drake's split, same orientation)."""
    out, previous = [], v3
    for nxt in (v4, v1, v2):
        out.append((previous, nxt, v0, v5))
        previous = nxt
    return out


def _pyramid(v0, v1, v2, v3, v4) -> list[tuple[int, int, int, int]]:
    """The 2 tetrahedra of the pyramid over quadrilateral (v0 v1 v2 v3) with apex v4 (Drake's split)."""
    out, previous = [], v3
    for nxt in (v4, v1):
        out.append((previous, nxt, v0, v2))
        previous = nxt
    return out


def _check_hint(resolution_hint: float) -> None:
    if not resolution_hint > 0:
        raise ValueError(f"resolution_hint must be positive; given {resolution_hint}")


def MakeCylinderVolumeMesh(radius: float, length: float, resolution_hint: float) -> VolumeMesh:
    """Drake's medial-axis tetrahedral mesh of a cylinder of `radius` and `length` [m] along +z."""
    _check_hint(resolution_hint)
    r, top_z = float(radius), 0.5 * float(length)
    tol = 1e-14 * max(1.0, min(top_z, r))
    n = max(3, int(math.ceil(2.0 * math.pi * r / resolution_hint)))
    V = [(0.0, 0.0, -top_z), (0.0, 0.0, top_z)]
    bottom, top = [], []
    step = 2.0 * math.pi / n
    for i in range(n):
        x, y = r * math.cos(step * i), r * math.sin(step * i)
        bottom.append(len(V))
        V.append((x, y, -top_z))
        top.append(len(V))
        V.append((x, y, top_z))
    bc, tc = 0, 1
    T: list[tuple[int, int, int, int]] = []
    if top_z - r > tol:  # long: the medial axis is a segment
        m0 = len(V)
        V.append((0.0, 0.0, -(top_z - r)))
        m1 = len(V)
        V.append((0.0, 0.0, top_z - r))
        i = n - 1
        for j in range(n):
            T.append((bc, bottom[i], bottom[j], m0))
            T.append((tc, top[j], top[i], m1))
            T += _prism(m0, bottom[i], bottom[j], m1, top[i], top[j])
            i = j
    elif r - top_z > tol:  # short: the medial axis is a disk of radius r − length/2
        center = len(V)
        V.append((0.0, 0.0, 0.0))
        s = (r - top_z) / r
        medial = []
        for i in range(n):
            medial.append(len(V))
            V.append((V[bottom[i]][0] * s, V[bottom[i]][1] * s, 0.0))
        i = n - 1
        for j in range(n):
            T += _prism(bc, bottom[i], bottom[j], center, medial[i], medial[j])
            T += _prism(center, medial[i], medial[j], tc, top[i], top[j])
            T += _prism(bottom[i], medial[i], top[i], bottom[j], medial[j], top[j])
            i = j
    else:  # medium: the medial axis is the center
        center = len(V)
        V.append((0.0, 0.0, 0.0))
        i = n - 1
        for j in range(n):
            T.append((bc, bottom[i], bottom[j], center))
            T.append((tc, top[j], top[i], center))
            T += _pyramid(top[i], top[j], bottom[j], bottom[i], center)
            i = j
    return VolumeMesh(elements=np.array(T, dtype=np.int64), vertices=np.array(V, dtype=float))


def MakeCylinderSurfaceMesh(radius: float, length: float, resolution_hint: float) -> TriangleSurfaceMesh:
    """The boundary of MakeCylinderVolumeMesh (Drake's rigid cylinder)."""
    return ConvertVolumeToSurfaceMesh(MakeCylinderVolumeMesh(radius, length, resolution_hint))


def MakeCapsuleVolumeMesh(radius: float, length: float, resolution_hint: float) -> VolumeMesh:
    """Drake's tetrahedral mesh of a capsule of `radius` and cylinder `length` [m] along +z: vertex 0 and 1 are
    the medial segment's top and bottom ends, 2 and 3 the poles, then the cap circles (top, bottom alternating)."""
    _check_hint(resolution_hint)
    r, mz = float(radius), 0.5 * float(length)
    n = int(min(max(2.0 * math.pi * r / resolution_hint, 3.0), 706.0))
    nc = n // 2
    V = [(0.0, 0.0, mz), (0.0, 0.0, -mz), (0.0, 0.0, mz + r), (0.0, 0.0, -mz - r)]
    medial_top, medial_bottom, top, bottom = 0, 1, 2, 3
    top_cap = [0] * (nc * n)
    bottom_cap = [0] * (nc * n)
    theta_step, phi_step = 0.5 * math.pi / nc, 2.0 * math.pi / n
    for i in range(nc):
        theta = 0.5 * math.pi - i * theta_step
        s = math.sin(theta)
        z = r * math.cos(theta) + mz
        for j in range(n):
            phi = j * phi_step
            x, y = r * s * math.cos(phi), r * s * math.sin(phi)
            top_cap[n * i + j] = len(V)
            V.append((x, y, z))
            bottom_cap[n * i + j] = len(V)
            V.append((x, y, -z))
    T: list[tuple[int, int, int, int]] = []
    for i in range(nc - 1):
        for j in range(n):
            j1 = (j + 1) % n
            T += _pyramid(top_cap[(i + 1) * n + j], top_cap[(i + 1) * n + j1], top_cap[i * n + j1],
                          top_cap[i * n + j], medial_top)
            T += _pyramid(bottom_cap[i * n + j], bottom_cap[i * n + j1], bottom_cap[(i + 1) * n + j1],
                          bottom_cap[(i + 1) * n + j], medial_bottom)
    last = (nc - 1) * n
    for j in range(n):
        j1 = (j + 1) % n
        T.append((top, top_cap[last + j1], top_cap[last + j], medial_top))
        T.append((bottom, bottom_cap[last + j], bottom_cap[last + j1], medial_bottom))
        T += _prism(medial_bottom, bottom_cap[j], bottom_cap[j1], medial_top, top_cap[j], top_cap[j1])
    return VolumeMesh(elements=np.array(T, dtype=np.int64), vertices=np.array(V, dtype=float))


def MakeCapsuleSurfaceMesh(radius: float, length: float, resolution_hint: float) -> TriangleSurfaceMesh:
    """The boundary of MakeCapsuleVolumeMesh (Drake's rigid capsule)."""
    return ConvertVolumeToSurfaceMesh(MakeCapsuleVolumeMesh(radius, length, resolution_hint))


def MakeConvexVolumeMesh(V: np.ndarray, F: np.ndarray) -> VolumeMesh:
    """Drake's tetrahedral mesh of a closed convex surface (vertices V (n, 3), outward triangles F (m, 3)): one
    tetrahedron (centroid, a, b, c) per triangle, the centroid of the enclosed volume appended as vertex n."""
    V = np.asarray(V, dtype=float)
    F = np.asarray(F, dtype=np.int64)
    p, q, r = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    six_vol = np.einsum("ij,ij->i", np.cross(p, q), r)
    total = float(six_vol.sum())
    if not total > 0:
        raise ValueError("MakeConvexVolumeMesh: the surface encloses no volume (is it closed and wound outward?)")
    centroid = (six_vol[:, None] * (p + q + r)).sum(axis=0) / (4.0 * total)
    T = np.column_stack([np.full(len(F), len(V), np.int64), F])
    return VolumeMesh(elements=T, vertices=np.vstack([V, centroid]))
