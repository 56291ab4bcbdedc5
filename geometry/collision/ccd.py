"""MuJoCo 4's native convex collision (nativeccd, mjc_ccd for one contact): GJK (collision/ccd_gjk.py) and, for
overlapping shapes, EPA (collision/ccd_epa.py), with ccd_iterations 35 and ccd_tolerance 1e-6 (MuJoCo 4's
defaults), so a penetrating ellipsoid, cylinder, box or mesh pair gets MuJoCo's contact to round-off rather than
to EPA's tolerance. Spheres and capsules shrink to a point or a segment first (a shallow contact is the distance
less the radii), as MuJoCo does. Shapes: (type, size, p, R, hull vertices, hull graph, bounding radius, margin).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from mallard.geometry.collision._vec import normalize3
from mallard.geometry.collision.ccd_epa import epa_depth
from mallard.geometry.collision.ccd_gjk import CAPSULE, LINE, MAXLIM, POINT, SPHERE, gjk

CCD_ITERATIONS = 35   # MuJoCo 4's default opt.ccd_iterations
CCD_TOLERANCE = 1e-6  # and opt.ccd_tolerance


@njit(cache=True, error_model="numpy")
def penetration(A, B, FI, FW, tol=CCD_TOLERANCE, kmax=CCD_ITERATIONS, cutoff=0.0):
    """MuJoCo's mjc_ccd for one contact: (dist, x1, x2), dist < 0 when the shapes overlap by -dist [m] (x1, x2 the
    witness points on A and B: MuJoCo's contact is at their midpoint with normal x1 - x2), else > 0 (0: touching
    or EPA failed: no contact). cutoff > 0 asks GJK for distances up to it (mj_geomDistance's mode). An EPA
    contact leaves its final face in FI, FW (ccd_epa.epa_depth); FI[0, 0] is -2 otherwise."""
    FI[0, 0] = -2
    x1 = A[2].copy()
    x2 = B[2].copy()
    S, S1, S2 = np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((4, 3))
    SI = np.full((4, 2), -1, np.int64)
    if A[0] == SPHERE or B[0] == SPHERE or A[0] == CAPSULE or B[0] == CAPSULE:
        t1, fm1, m1 = A[0], 0.0, A[7]
        t2, fm2, m2 = B[0], 0.0, B[7]
        if t1 == SPHERE or t1 == CAPSULE:
            fm1 = A[1][0] + 0.5 * m1
            t1, m1 = (POINT if t1 == SPHERE else LINE), 0.0
        if t2 == SPHERE or t2 == CAPSULE:
            fm2 = B[1][0] + 0.5 * m2
            t2, m2 = (POINT if t2 == SPHERE else LINE), 0.0
        a = (t1, A[1], A[2], A[3], A[4], A[5], A[6], m1)
        b = (t2, B[1], B[2], B[3], B[4], B[5], B[6], m2)
        dist, ns, sep, nx = gjk(a, b, x1, x2, S, S1, S2, SI, tol, kmax, fm1 + fm2)
        if dist > tol:
            nrm = x2 - x1
            normalize3(nrm)
            if fm1 != 0:
                x1 += fm1 * nrm
            if fm2 != 0:
                x2 -= fm2 * nrm
            dist -= fm1 + fm2
            return (MAXLIM if dist > 0 else dist), x1, x2
        x1[:] = A[2]
        x2[:] = B[2]
    dist, ns, sep, nx = gjk(A, B, x1, x2, S, S1, S2, SI, tol, kmax, cutoff)
    if not (dist <= tol and ns > 1 and not sep):
        return dist, x1, x2
    return epa_depth(A, B, S, S1, S2, SI, ns, tol, kmax, x1, x2, FI, FW), x1, x2
