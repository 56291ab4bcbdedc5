"""Mass properties of MJCF geoms: volume/area and principal inertia of primitives and meshes.

Formulas follow MuJoCo's compiler (spec/mjcf.md §17.2): sizes are MuJoCo geom sizes (radius,
half-length, half-sizes), inertia is about the geom frame origin along its axes, in kg m².
"""
from __future__ import annotations

import math

import numpy as np

from .rotations import eig3


def geom_volume(gtype: str, size, shell: bool, mesh_volume: float = 0.0) -> float:
    """Volume [m³] (or surface area [m²] when `shell`) of a geom of MuJoCo type `gtype`."""
    s = size
    pi = math.pi
    if gtype in ("mesh", "sdf"):
        return mesh_volume
    if gtype == "sphere":
        return 4 * pi * s[0] * s[0] if shell else 4 * pi * s[0] * s[0] * s[0] / 3
    if gtype == "capsule":
        r, h = s[0], 2 * s[1]
        return 4 * pi * r * r + 2 * pi * r * h if shell else pi * (r * r * h + 4 * r * r * r / 3)
    if gtype == "cylinder":
        r, h = s[0], 2 * s[1]
        return 2 * pi * r * r + 2 * pi * r * h if shell else pi * r * r * h
    if gtype == "ellipsoid":
        if shell:
            p = 1.6075
            tmp = (s[0] * s[1]) ** p + (s[1] * s[2]) ** p + (s[2] * s[0]) ** p
            return 4 * pi * (tmp / 3) ** (1 / p)
        return 4 * pi * s[0] * s[1] * s[2] / 3
    if gtype in ("box", "hfield"):
        return 8 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0]) if shell else 8 * s[0] * s[1] * s[2]
    return 0.0


def geom_inertia(gtype: str, size, mass: float, shell: bool, inertia_box=None) -> np.ndarray:
    """Principal inertia [kg m²] of a geom of mass `mass` about its frame axes."""
    s = size
    m = mass
    if gtype in ("mesh", "sdf"):
        b = inertia_box
        return np.array([m * (b[1] ** 2 + b[2] ** 2) / 3, m * (b[0] ** 2 + b[2] ** 2) / 3,
                         m * (b[0] ** 2 + b[1] ** 2) / 3])
    if gtype == "sphere":
        v = 2 * m * s[0] * s[0] / (3 if shell else 5)
        return np.array([v, v, v])
    if gtype == "capsule":
        r, hh, h = s[0], s[1], 2 * s[1]
        if not shell:
            ms = m * 4 * r / (4 * r + 3 * h)
            mc = m - ms
            ixx = mc * (3 * r * r + h * h) / 12
            izz = mc * r * r / 2
            si = 2 * ms * r * r / 5
            ixx += si + ms * h * (3 * r + 2 * h) / 8
            return np.array([ixx, ixx, izz + si])
        a_s = 4 * math.pi * r * r
        a_c = 2 * math.pi * r * h
        ms = m * a_s / (a_s + a_c)
        mc = m - ms
        ixx = mc * (6 * r * r + h * h) / 12
        izz = mc * r * r
        si = 2 * ms * r * r / 3
        com = r / 2
        pos = hh + com
        ixx += si - ms * com * com + ms * pos * pos
        return np.array([ixx, ixx, izz + si])
    if gtype == "cylinder":
        r, h = s[0], 2 * s[1]
        if not shell:
            ixx = m * (3 * r * r + h * h) / 12
            return np.array([ixx, ixx, m * r * r / 2])
        a_cap = math.pi * r * r
        a_side = 2 * math.pi * r * h
        m_cap = m * a_cap / (2 * a_cap + a_side)
        m_side = m - 2 * m_cap
        ixx = m_side * (6 * r * r + h * h) / 12 + 2 * (m_cap * r * r / 4 + m_cap * (h / 2) ** 2)
        izz = m_side * r * r + 2 * m_cap * r * r / 2
        return np.array([ixx, ixx, izz])
    if gtype == "ellipsoid" and not shell:
        a, b, c = s[0], s[1], s[2]
        return np.array([m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5])
    if gtype in ("box", "hfield") and not shell:
        a, b, c = s[0], s[1], s[2]
        return np.array([m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3])
    raise ValueError(f"shell inertia is not supported for {gtype} geoms (supported: sphere, capsule, cylinder)")


MINVAL = 1e-15  # MuJoCo's mjMINVAL: faces with |cross| below it have no area, sums below it are invalid


def _triangles(v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(area, unit normal, centre) of each face; degenerate faces (|cross| < mjMINVAL) get area 0 and
    normal 0, so they add nothing to areas, volumes or inertia (MuJoCo's `triangle`)."""
    p0, p1, p2 = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    cross = np.cross(p1 - p0, p2 - p0)
    length = np.sqrt(np.einsum("ij,ij->i", cross, cross))
    ok = length >= MINVAL
    normal = np.where(ok[:, None], cross / np.where(ok, length, 1.0)[:, None], 0.0)
    return np.where(ok, 0.5 * length, 0.0), normal, (p0 + p1 + p2) / 3


def mesh_mass_properties(vertices: np.ndarray, faces: np.ndarray, mode: str) -> tuple[float, np.ndarray, np.ndarray]:
    """Volume (area for `shell`), centre of mass and 3x3 inertia per unit volume (area) about it, by MuJoCo's
    mesh compiler rules (user_mesh.cc: ComputeFaceCentroid, ComputeVolume/ComputeSurfaceArea, ComputeInertia).

    Pyramids from the faces to an apex: first the area-weighted face centroid (for the centre of mass), then the
    centre of mass itself (for the inertia and the final volume). `exact` and `convex` sum signed volumes,
    `legacy` their absolute values, `shell` spreads the mass over the surface (its centre is MuJoCo's
    3/4 face centre + 1/4 face centroid weighting); for `convex` the caller passes the hull (closed, so the
    apex does not matter). Degenerate faces count for nothing. Raises ValueError with MuJoCo's reasons.
    """
    v = np.asarray(vertices, dtype=float)
    f = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    area, _, centre = _triangles(v, f)
    total_area = float(area.sum())
    if total_area < MINVAL:
        raise ValueError("mesh surface area is too small")
    facecen = (area[:, None] * centre).sum(axis=0) / total_area
    if mode == "shell":
        w, cen = area, centre
        com = (w[:, None] * (0.75 * cen + 0.25 * facecen)).sum(axis=0) / total_area
    else:
        a, n, cen = _triangles(v, f)
        w = np.einsum("ij,ij->i", cen - facecen, n) * a / 3
        if mode == "legacy":
            w = np.abs(w)
        total = float(w.sum())
        if total < MINVAL:
            raise ValueError("mesh volume is negative (misoriented triangles)" if total < 0 else
                             "mesh volume is too small; try setting inertia to shell")
        com = (w[:, None] * (0.75 * cen + 0.25 * facecen)).sum(axis=0) / total
    # second moments about the centre of mass, volumes recomputed with it as the apex
    vc = v - com
    a, n, cen = _triangles(vc, f)
    if mode == "shell":
        w, C = a, 12.0
    else:
        w = np.einsum("ij,ij->i", cen, n) * a / 3
        if mode == "legacy":
            w = np.abs(w)
        C = 20.0
    D, E, F = vc[f[:, 0]], vc[f[:, 1]], vc[f[:, 2]]
    s = D + E + F
    P = (np.einsum("n,ni,nj->ij", w, s, s) + np.einsum("n,ni,nj->ij", w, D, D)
         + np.einsum("n,ni,nj->ij", w, E, E) + np.einsum("n,ni,nj->ij", w, F, F)) / C
    total = float(w.sum())
    inertia = np.trace(P) * np.eye(3) - P
    return total, com, inertia / total


def principal_frame(inertia_unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (decreasing) and frame quaternion of a 3x3 inertia (MuJoCo's eig3)."""
    return eig3(inertia_unit)


def inertia_box(principal: np.ndarray) -> np.ndarray:
    """Half sizes of the box with the same principal inertia per unit mass."""
    i0, i1, i2 = principal
    return np.sqrt(np.maximum(0.0, 1.5 * np.array([i1 + i2 - i0, i0 + i2 - i1, i0 + i1 - i2])))
