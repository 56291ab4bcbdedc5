"""Arrow pieces for drawing vectors in Meshcat (ContactVisualizer's forces and moments): a unit shaft, cones and
the frame that points z along a vector."""
from __future__ import annotations

import numpy as np

_SIDES = 16  # facets around the shaft and the cones


def shaft_mesh(radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (3xN) and faces (3xM) of a closed cylinder of `radius` along z from -0.5 to 0.5 (m)."""
    th = np.linspace(0.0, 2.0 * np.pi, _SIDES, endpoint=False)
    ring = np.stack([radius * np.cos(th), radius * np.sin(th)])
    V = np.hstack([np.vstack([ring, np.full(_SIDES, -0.5)]), np.vstack([ring, np.full(_SIDES, 0.5)]),
                   [[0.0, 0.0], [0.0, 0.0], [-0.5, 0.5]]])
    bottom, top = 2 * _SIDES, 2 * _SIDES + 1
    F = []
    for j in range(_SIDES):
        k = (j + 1) % _SIDES
        F += [[j, k, _SIDES + k], [j, _SIDES + k, _SIDES + j], [bottom, k, j], [top, _SIDES + j, _SIDES + k]]
    return V, np.array(F).T


def cone_mesh(radius: float, length: float, direction: float) -> tuple[np.ndarray, np.ndarray]:
    """A closed cone with base radius `radius` in z = 0 and its tip at z = direction·length (m)."""
    th = np.linspace(0.0, 2.0 * np.pi, _SIDES, endpoint=False)
    V = np.hstack([np.stack([radius * np.cos(th), radius * np.sin(th), np.zeros(_SIDES)]),
                   [[0.0, 0.0], [0.0, 0.0], [direction * length, 0.0]]])
    tip, base = _SIDES, _SIDES + 1
    F = []
    for j in range(_SIDES):
        k = (j + 1) % _SIDES
        F += [[j, k, tip], [base, k, j]] if direction > 0 else [[k, j, tip], [base, j, k]]
    return V, np.array(F).T


def frame_along(f: np.ndarray, p=(0.0, 0.0, 0.0)) -> np.ndarray:
    """4x4 X_WC with origin p [m] and z axis along f (f nonzero)."""
    z = f / np.linalg.norm(f)
    a = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(a, z)
    x /= np.linalg.norm(x)
    X = np.eye(4)
    X[:3, 0], X[:3, 1], X[:3, 2], X[:3, 3] = x, np.cross(z, x), z, p
    return X
