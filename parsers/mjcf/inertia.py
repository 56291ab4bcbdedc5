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


def mesh_mass_properties(vertices: np.ndarray, faces: np.ndarray, mode: str
                         ) -> tuple[float, np.ndarray, np.ndarray]:
    """Volume (or area for `shell`), centre of mass and 3x3 inertia about the COM for unit density.

    `legacy` sums |pyramid volumes| about the faces' area-weighted centroid (MuJoCo's old rule), `exact` and
    `convex` sum signed volumes (the caller passes the hull for `convex`), `shell` spreads mass
    uniformly over the surface.
    """
    v = np.asarray(vertices, dtype=float)
    f = np.asarray(faces, dtype=int)
    tri = v[f]  # (m, 3, 3)
    tri_area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    # pyramids share the area-weighted centroid of the faces as apex (matters for `legacy` only)
    centroid = (tri_area[:, None] * tri.mean(axis=1)).sum(axis=0) / max(float(tri_area.sum()), 1e-15)
    a = v[f[:, 0]] - centroid
    b = v[f[:, 1]] - centroid
    c = v[f[:, 2]] - centroid
    cross = np.cross(b - a, c - a)
    areas = 0.5 * np.linalg.norm(cross, axis=1)
    if np.any(areas < 1e-14):
        raise ValueError("mesh has a triangle with area below 1e-14")
    if mode == "shell":
        w = areas
        total = float(w.sum())
        com = (w[:, None] * (a + b + c) / 3).sum(axis=0) / total
        # second moments of each triangle (uniform surface density)
        cov = np.zeros((3, 3))
        for i in range(len(f)):
            p = np.stack([a[i], b[i], c[i]])
            s = p.sum(axis=0)
            cov += w[i] / 12 * (np.outer(s, s) + p.T @ p)
        total_m = total
    else:
        vol = np.einsum("ij,ij->i", a, np.cross(b, c)) / 6
        if mode == "legacy":
            vol = np.abs(vol)
        w = vol
        total = float(w.sum())
        com = (w[:, None] * (a + b + c) / 4).sum(axis=0) / total
        cov = np.zeros((3, 3))
        for i in range(len(f)):
            p = np.stack([a[i], b[i], c[i]])
            s = p.sum(axis=0)
            cov += w[i] / 20 * (np.outer(s, s) + p.T @ p)
        total_m = total
    cov_c = cov - total_m * np.outer(com, com)
    inertia = np.trace(cov_c) * np.eye(3) - cov_c
    return total, com + centroid, inertia / total_m


def principal_frame(inertia_unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (decreasing) and frame quaternion of a 3x3 inertia (MuJoCo's eig3)."""
    return eig3(inertia_unit)


def inertia_box(principal: np.ndarray) -> np.ndarray:
    """Half sizes of the box with the same principal inertia per unit mass."""
    i0, i1, i2 = principal
    return np.sqrt(np.maximum(1e-14, 1.5 * np.array([i1 + i2 - i0, i0 + i2 - i1, i0 + i1 - i2])))
