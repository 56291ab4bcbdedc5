"""Signed distance fields of the shapes that SDF collision evaluates in compiled code (MuJoCo's geomDistance).

Each shape is a kind code with a parameter vector, evaluated in its own frame S: MuJoCo's primitives
(with MuJoCo's geom sizes and MuJoCo's exact, sometimes approximate, formulas, so contacts match
MuJoCo's) and the first-party SDF plugins (`mujoco.sdf.bowl`, `mujoco.sdf.torus`). Shapes given by
Python callables have kind USER and are evaluated outside these kernels (see sdf_collide.py).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["PLANE", "SPHERE", "CAPSULE", "ELLIPSOID", "CYLINDER", "BOX", "SDF_BOWL", "SDF_TORUS", "USER",
           "SDF_KINDS", "shape_distance", "shape_distance_grid", "shape_gradient", "primitive_aabb"]

# kind codes: MuJoCo's mjtGeom ids for primitives, then the first-party SDF plugins
PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX = 0, 2, 3, 4, 5, 6
SDF_BOWL, SDF_TORUS = 20, 21
USER = -1  #: a shape evaluated through Python callables
SDF_KINDS = (USER, SDF_BOWL, SDF_TORUS)  #: kinds that are signed distance fields (MJCF type="sdf")
MINVAL = 1e-15  # MuJoCo's mjMINVAL
MAXVAL = 1e10  # MuJoCo's mjMAXVAL


@njit(cache=True, error_model="numpy")
def _norm3(x):
    return math.sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2])


@njit(cache=True, error_model="numpy")
def shape_distance(kind: int, prm: np.ndarray, x: np.ndarray) -> float:
    """Signed distance [m] of point x (shape frame) for a compiled shape `kind` with parameters `prm`.

    Primitives use MuJoCo's geom sizes (sphere r; capsule r, half-length; ellipsoid radii; cylinder
    r, half-length; box half-sizes). Bowl: (height, radius, thickness); torus: (radius1, radius2).
    """
    if kind == PLANE:
        return x[2]
    if kind == SPHERE:
        return _norm3(x) - prm[0]
    if kind == BOX:
        a0 = abs(x[0]) - prm[0]
        a1 = abs(x[1]) - prm[1]
        a2 = abs(x[2]) - prm[2]
        b0, b1, b2 = max(a0, 0.0), max(a1, 0.0), max(a2, 0.0)
        return math.sqrt(b0 * b0 + b1 * b1 + b2 * b2) + min(max(a0, max(a1, a2)), 0.0)
    if kind == CAPSULE:
        z = x[2] - min(max(x[2], -prm[1]), prm[1])
        return math.sqrt(x[0] * x[0] + x[1] * x[1] + z * z) - prm[0]
    if kind == ELLIPSOID:
        a0, a1, a2 = x[0] / prm[0], x[1] / prm[1], x[2] / prm[2]
        k0 = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        b0, b1, b2 = a0 / prm[0], a1 / prm[1], a2 / prm[2]
        k1 = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
        return k0 * (k0 - 1.0) / k1
    if kind == CYLINDER:
        a0 = math.sqrt(x[0] * x[0] + x[1] * x[1]) - prm[0]
        a1 = abs(x[2]) - prm[1]
        b0, b1 = max(a0, 0.0), max(a1, 0.0)
        return min(max(a0, a1), 0.0) + math.sqrt(b0 * b0 + b1 * b1)
    if kind == SDF_BOWL:
        h, r, t = prm[0], prm[1], prm[2]
        w = math.sqrt(r * r - h * h)
        q0 = math.sqrt(x[0] * x[0] + x[1] * x[1])
        q1 = x[2]
        if h * q0 < w * q1:  # beyond the rim: distance to the rim circle
            return math.sqrt((q0 - w) ** 2 + (q1 - h) ** 2) - t
        return abs(math.sqrt(q0 * q0 + q1 * q1) - r) - t
    if kind == SDF_TORUS:
        q = math.sqrt(x[0] * x[0] + x[1] * x[1]) - prm[0]
        return math.sqrt(q * q + x[2] * x[2]) - prm[1]
    return np.nan


@njit(cache=True, error_model="numpy")
def shape_distance_grid(kind: int, prm: np.ndarray, xs: np.ndarray, ys: np.ndarray, zs: np.ndarray) -> np.ndarray:
    """shape_distance at every grid point (xs[i], ys[j], zs[k]) [m], as an (nx, ny, nz) array."""
    out = np.empty((len(xs), len(ys), len(zs)))
    x = np.empty(3)
    for i in range(len(xs)):
        x[0] = xs[i]
        for j in range(len(ys)):
            x[1] = ys[j]
            for k in range(len(zs)):
                x[2] = zs[k]
                out[i, j, k] = shape_distance(kind, prm, x)
    return out


@njit(cache=True, error_model="numpy")
def shape_gradient(kind: int, prm: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Gradient of `shape_distance` at x (shape frame); MuJoCo's formulas for the primitives."""
    g = np.zeros(3)
    if kind == PLANE:
        g[2] = 1.0
    elif kind == SPHERE:
        c = _norm3(x)
        g[0], g[1], g[2] = x[0] / c, x[1] / c, x[2] / c
    elif kind == BOX:
        a = np.array([abs(x[0]) - prm[0], abs(x[1]) - prm[1], abs(x[2]) - prm[2]])
        k = 0 if a[0] > a[1] else 1
        m = 2 if a[2] > a[k] else k
        if a[m] < 0:
            g[m] = x[m] / abs(x[m])
        else:
            b = np.maximum(a, 0.0)
            c = _norm3(b)
            for i in range(3):
                g[i] = b[i] / c * x[i] / abs(x[i]) if a[i] > 0 else 0.0
    elif kind == CAPSULE:
        z = x[2] - min(max(x[2], -prm[1]), prm[1])
        c = math.sqrt(x[0] * x[0] + x[1] * x[1] + z * z)
        g[0], g[1], g[2] = x[0] / c, x[1] / c, z / c
    elif kind == ELLIPSOID:
        a0, a1, a2 = x[0] / prm[0], x[1] / prm[1], x[2] / prm[2]
        b0, b1, b2 = a0 / prm[0], a1 / prm[1], a2 / prm[2]
        k0 = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        k1 = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
        g[0] = a0 * (2.0 * k0 - 1.0) / k1 + k0 * (k0 - 1.0) * b0 / (k1 * k1)
        g[1] = a1 * (2.0 * k0 - 1.0) / k1 + k0 * (k0 - 1.0) * b1 / (k1 * k1)
        g[2] = a2 * (2.0 * k0 - 1.0) / k1 + k0 * (k0 - 1.0) * b2 / (k1 * k1)
    elif kind == CYLINDER:
        c = math.sqrt(x[0] * x[0] + x[1] * x[1])
        e = abs(x[2])
        a0, a1 = c - prm[0], e - prm[1]
        ga0, ga1, ga2 = x[0] / c, x[1] / c, x[2] / e
        if max(a0, a1) < 0:
            if a0 > a1:
                g[0], g[1] = ga0, ga1
            else:
                g[2] = ga2
        else:
            b0, b1 = max(a0, 0.0), max(a1, 0.0)
            bn = math.sqrt(b0 * b0 + b1 * b1)
            g[0], g[1], g[2] = ga0 * b0 / bn, ga1 * b0 / bn, ga2 * b1 / bn
    elif kind == SDF_BOWL:
        # forward differences with step 1e-8, exactly as MuJoCo's bowl plugin (its analytic
        # gradient is not used there); keeps contacts identical to MuJoCo's
        eps = 1e-8
        d0 = shape_distance(kind, prm, x)
        xe = x.copy()
        for i in range(3):
            xe[i] += eps
            g[i] = (shape_distance(kind, prm, xe) - d0) / eps
            xe[i] = x[i]
    elif kind == SDF_TORUS:
        lxy = max(math.sqrt(x[0] * x[0] + x[1] * x[1]), MINVAL)
        q = lxy - prm[0]
        lqz = max(math.sqrt(q * q + x[2] * x[2]), MINVAL)
        g[0], g[1], g[2] = q * x[0] / lxy / lqz, q * x[1] / lxy / lqz, x[2] / lqz
    else:
        g[:] = np.nan
    return g


def primitive_aabb(kind: int, size: np.ndarray) -> np.ndarray:
    """Bounding box (center xyz, half-size xyz) of a primitive in its frame, as MuJoCo's geom_aabb."""
    s = np.asarray(size, float)
    if kind == SPHERE:
        half = [s[0]] * 3
    elif kind == CAPSULE:
        half = [s[0], s[0], s[0] + s[1]]
    elif kind == CYLINDER:
        half = [s[0], s[0], s[1]]
    elif kind in (BOX, ELLIPSOID):
        half = list(s[:3])
    else:
        raise ValueError(f"shape kind {kind} has no finite bounding box for SDF collision "
                         f"(valid: sphere, capsule, ellipsoid, cylinder, box or an SDF)")
    return np.array([0.0, 0.0, 0.0] + half)
