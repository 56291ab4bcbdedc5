"""Starting points of the SDF contact search: the Halton sequence over the overlap of two bounding boxes."""
from __future__ import annotations

import numpy as np
from numba import njit

from mallard.geometry.collision.sdf_fields import MAXVAL

__all__ = ["halton", "overlap_box"]


@njit(cache=True, error_model="numpy")
def halton(index: int, base: int) -> float:
    """Element `index` of the Halton (radical-inverse) sequence in `base`, in [0, 1)."""
    n0 = index
    f = 1.0 / base
    hn = 0.0
    while n0 > 0:
        n1 = n0 // base
        hn += f * (n0 - n1 * base)
        f /= base
        n0 = n1
    return hn


@njit(cache=True, error_model="numpy")
def overlap_box(aabb1, aabb2, R12, p12):
    """Intersection (min xyz, max xyz) in frame 1 of box 1 and the frame-1 AABB of box 2 (X_12 = R12, p12)."""
    lo1 = np.full(3, MAXVAL)
    hi1 = np.full(3, -MAXVAL)
    lo2 = np.full(3, MAXVAL)
    hi2 = np.full(3, -MAXVAL)
    v1 = np.zeros(3)
    v2 = np.zeros(3)
    for i in range(8):
        for k in range(3):
            sgn = 1.0 if (i >> k) & 1 else -1.0
            v1[k] = aabb1[k] + sgn * aabb1[3 + k]
            v2[k] = aabb2[k] + sgn * aabb2[3 + k]
        w = R12 @ v2 + p12
        for k in range(3):
            lo1[k] = min(lo1[k], v1[k])
            hi1[k] = max(hi1[k], v1[k])
            lo2[k] = min(lo2[k], w[k])
            hi2[k] = max(hi2[k], w[k])
    out = np.zeros(6)
    for k in range(3):
        out[k] = max(lo1[k], lo2[k])
        out[3 + k] = min(hi1[k], hi2[k])
    return out
