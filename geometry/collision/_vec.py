"""Small 3-vector helpers for the numba kernels (inlined by numba)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

MINVAL = 1e-15  # MuJoCo's mjMINVAL: below this a length counts as zero


@njit(cache=True, error_model="numpy")
def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, error_model="numpy")
def cross3(a, b):
    r = np.empty(3)
    r[0] = a[1] * b[2] - a[2] * b[1]
    r[1] = a[2] * b[0] - a[0] * b[2]
    r[2] = a[0] * b[1] - a[1] * b[0]
    return r


@njit(cache=True, error_model="numpy")
def normalize3(v):
    """Normalize ``v`` in place and return its former length; a zero vector becomes (1, 0, 0)."""
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if n < MINVAL:
        v[0] = 1.0
        v[1] = 0.0
        v[2] = 0.0
    else:
        inv = 1.0 / n
        v[0] *= inv
        v[1] *= inv
        v[2] *= inv
    return n


@njit(cache=True, error_model="numpy", inline="always")
def normalize3s(x, y, z):
    """normalize3 in scalars: (x, y, z) over its length, and the length; a zero vector becomes (1, 0, 0)."""
    n = math.sqrt(x * x + y * y + z * z)
    if n < MINVAL:
        return 1.0, 0.0, 0.0, n
    inv = 1.0 / n
    return x * inv, y * inv, z * inv, n


@njit(cache=True, error_model="numpy")
def matvec(R, v):
    r = np.empty(3)
    for i in range(3):
        r[i] = R[i, 0] * v[0] + R[i, 1] * v[1] + R[i, 2] * v[2]
    return r


@njit(cache=True, error_model="numpy")
def matTvec(R, v):
    r = np.empty(3)
    for i in range(3):
        r[i] = R[0, i] * v[0] + R[1, i] * v[1] + R[2, i] * v[2]
    return r


@njit(cache=True, error_model="numpy")
def clip(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@njit(cache=True, error_model="numpy")
def put(out, k, dist, pos, normal):
    """Write contact k: distance (m, < 0 penetrating), position, unit normal (geom1 -> geom2);
    the tangent hint (columns 7:10) is zeroed."""
    out[k, 0] = dist
    for i in range(3):
        out[k, 1 + i] = pos[i]
        out[k, 4 + i] = normal[i]
        out[k, 7 + i] = 0.0
