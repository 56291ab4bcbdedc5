"""Drake's point pair of a half space and a box, capsule or cylinder (Drake's ComputePointPairPenetration uses
FCL's half-space intersections for them): the single deepest point of the shape, with a face or side lying on the
plane (within FCL's tolerance) giving its center, so a box resting flat is pushed at the center of its face, not
at one of its corners.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .narrowphase import BOX, CAPSULE, CYLINDER, PLANE

FCL_HALFSPACE_TOLERANCE = 1e-7  # FCL's halfspaceIntersectTolerance<double>: a face counts as lying on the plane
HALFSPACE_POINT_SHAPES = (BOX, CAPSULE, CYLINDER)


@njit(cache=True)
def HalfSpaceDeepestPoint(typ, size, R, p, n):
    """FCL's deepest point of a box / capsule / cylinder (pose R, p; MuJoCo sizes: box half sides, capsule and
    cylinder (radius, half length)) in the half space of outward unit normal n."""
    if typ == BOX:
        Q = np.empty(3)
        for i in range(3):
            Q[i] = R[0, i] * n[0] + R[1, i] * n[1] + R[2, i] * n[2]
        pt = p.copy()
        aligned = -1
        for i in range(3):
            if abs(Q[i] - 1.0) < FCL_HALFSPACE_TOLERANCE or abs(Q[i] + 1.0) < FCL_HALFSPACE_TOLERANCE:
                aligned = i
                break
        for i in range(3):
            if aligned < 0 or i == aligned:
                sign = -1.0 if Q[i] * size[i] > 0 else 1.0
                pt += R[:, i] * (size[i] * sign)
        return pt
    axis = R[:, 2].copy()
    cosa = axis[0] * n[0] + axis[1] * n[1] + axis[2] * n[2]
    r, half = size[0], size[1]
    if typ == CAPSULE:
        if abs(cosa) < FCL_HALFSPACE_TOLERANCE:
            return p - n * r
        sign = -1.0 if cosa > 0 else 1.0
        return p + axis * (half * sign) - n * r
    # cylinder
    if abs(cosa) < FCL_HALFSPACE_TOLERANCE:
        return p - n * r
    C = axis * cosa - n
    if abs(cosa + 1.0) < FCL_HALFSPACE_TOLERANCE or abs(cosa - 1.0) < FCL_HALFSPACE_TOLERANCE:
        C[:] = 0.0
    else:
        C *= r / np.sqrt(C @ C)
    sign = -1.0 if cosa > 0 else 1.0
    return p + axis * (half * sign) + C


def HalfSpacePointPair(types, sizes, R, p, i: int, j: int):
    """(p_WCi, p_WCj, n from i to j, depth) of the penetrating pair (i, j) when one is a half space and the other a
    box, capsule or cylinder (FCL's point); None for other pairs."""
    ti, tj = int(types[i]), int(types[j])
    if (ti == PLANE) == (tj == PLANE):
        return None
    h, o = (i, j) if ti == PLANE else (j, i)
    if int(types[o]) not in HALFSPACE_POINT_SHAPES:
        return None
    n_h = np.ascontiguousarray(R[h][:, 2])
    po = HalfSpaceDeepestPoint(int(types[o]), np.ascontiguousarray(sizes[o], dtype=np.float64),
                               np.ascontiguousarray(R[o]), np.ascontiguousarray(p[o]), n_h)
    depth = float(n_h @ (p[h] - po))
    pp = po + n_h * depth
    return (po, pp, -n_h, depth) if o == i else (pp, po, n_h, depth)
