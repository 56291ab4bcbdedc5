"""Analytic contact kernels of spheres and capsules against boxes (MuJoCo's routines); box-box is
in ``box_box``.

Same conventions as ``primitives``: rows of ``out``, normal from geom1 to geom2, dist < 0 when
penetrating, position midway between the surfaces. Sizes are half extents.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from mallard.geometry.collision._vec import MINVAL, clip, dot3, matTvec, matvec, normalize3s, put



@njit(cache=True, error_model="numpy", _nrt=False)
def sphere_box(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Sphere (geom1) against box (geom2): one contact. (In scalars: the same products and sums as the 3-vector
    helpers, without their arrays.)"""
    w0, w1, w2 = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
    e0 = R2[0, 0] * w0 + R2[1, 0] * w1 + R2[2, 0] * w2  # the center in the box frame
    e1 = R2[0, 1] * w0 + R2[1, 1] * w1 + R2[2, 1] * w2
    e2 = R2[0, 2] * w0 + R2[1, 2] * w1 + R2[2, 2] * w2
    q0 = clip(e0, -s2[0], s2[0]) if s2[0] > 0 else e0  # clamped into the box
    q1 = clip(e1, -s2[1], s2[1]) if s2[1] > 0 else e1
    q2 = clip(e2, -s2[2], s2[2]) if s2[2] > 0 else e2
    t0, t1, t2, dist = normalize3s(q0 - e0, q1 - e1, q2 - e2)
    if dist - s1[0] > margin:
        return 0
    if dist <= MINVAL:
        closest = (s2[0] + s2[1] + s2[2]) * 2.0
        kk = 0
        for i in range(6):
            sgn = 1.0 if i % 2 else -1.0
            c = abs(sgn * s2[i // 2] - (e0 if i < 2 else (e1 if i < 4 else e2)))
            if closest > c:
                closest = c
                kk = i
        sg = -1.0 if kk % 2 else 1.0
        n0 = sg if kk // 2 == 0 else 0.0
        n1 = sg if kk // 2 == 1 else 0.0
        n2 = sg if kk // 2 == 2 else 0.0
        h = (s1[0] - closest) / 2.0
        x0, x1, x2 = e0 + n0 * h, e1 + n1 * h, e2 + n2 * h
        dist = -closest
    else:
        r = s1[0]
        x0 = q0 * 0.5 + (e0 + t0 * r) * 0.5
        x1 = q1 * 0.5 + (e1 + t1 * r) * 0.5
        x2 = q2 * 0.5 + (e2 + t2 * r) * 0.5
        n0, n1, n2 = t0, t1, t2
    out[k, 0] = dist - s1[0]
    out[k, 1] = R2[0, 0] * x0 + R2[0, 1] * x1 + R2[0, 2] * x2 + p2[0]
    out[k, 2] = R2[1, 0] * x0 + R2[1, 1] * x1 + R2[1, 2] * x2 + p2[1]
    out[k, 3] = R2[2, 0] * x0 + R2[2, 1] * x1 + R2[2, 2] * x2 + p2[2]
    out[k, 4] = R2[0, 0] * n0 + R2[0, 1] * n1 + R2[0, 2] * n2
    out[k, 5] = R2[1, 0] * n0 + R2[1, 1] * n1 + R2[1, 2] * n2
    out[k, 6] = R2[2, 0] * n0 + R2[2, 1] * n1 + R2[2, 2] * n2
    out[k, 7], out[k, 8], out[k, 9] = 0.0, 0.0, 0.0
    return 1


@njit(cache=True, error_model="numpy")
def capsule_box(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Capsule (geom1) against box (geom2): the closest point of the capsule's segment, plus a
    second point along the segment where the capsule lies along a face or edge (up to 2)."""
    halflength = s1[1]
    secondpos = -4.0
    pos = matTvec(R2, p1 - p2)
    axis = matTvec(R2, R1[:, 2].copy())
    halfaxis = axis * halflength
    axisdir = 0
    if halfaxis[0] > 0:
        axisdir += 1
    if halfaxis[1] > 0:
        axisdir += 2
    if halfaxis[2] > 0:
        axisdir += 4
    bestdistmax = margin + 2.0 * (s1[0] + halflength + s2[0] + s2[1] + s2[2])
    bestdist = bestdistmax
    bestsegmentpos = 0.0
    bestboxpos = 0.0
    cltype = -4
    clface = -1
    clcorner = 0
    cledge = 0

    # a segment end nearest a face
    for ii in range(2):
        i = -1 if ii == 0 else 1
        tmp1 = pos + halfaxis * i
        tmp2 = tmp1.copy()
        c1 = 0
        c2 = -1
        for j in range(3):
            if tmp1[j] < -s2[j]:
                c1 += 1
                c2 = j
                tmp1[j] = -s2[j]
            elif tmp1[j] > s2[j]:
                c1 += 1
                c2 = j
                tmp1[j] = s2[j]
        if c1 > 1:
            continue
        d = tmp1 - tmp2
        dist = dot3(d, d)
        if dist < bestdist:
            bestdist = dist
            bestsegmentpos = float(i)
            cltype = -2 + i
            clface = c2

    # segment against each of the 12 edges
    tmp3 = np.empty(3)
    for j in range(3):
        for i in range(8):
            if (i & (1 << j)) != 0:
                continue
            tmp3[0] = (1.0 if (i & 1) else -1.0) * s2[0]
            tmp3[1] = (1.0 if (i & 2) else -1.0) * s2[1]
            tmp3[2] = (1.0 if (i & 4) else -1.0) * s2[2]
            tmp3[j] = 0.0
            dif = tmp3 - pos
            ma = s2[j] * s2[j]
            mb = -s2[j] * halfaxis[j]
            mc = s1[1] * s1[1]
            u = -s2[j] * dif[j]
            v = dot3(halfaxis, dif)
            det = ma * mc - mb * mb
            if abs(det) < MINVAL:
                continue
            idet = 1.0 / det
            x1 = (mc * u - mb * v) * idet
            x2 = (ma * v - mb * u) * idet
            sa = 1
            sb = 1
            if x1 > 1:
                x1 = 1.0
                sa = 2
                x2 = (v - mb) * (1.0 / mc)
            elif x1 < -1:
                x1 = -1.0
                sa = 0
                x2 = (v + mb) * (1.0 / mc)
            if x2 > 1:
                x2 = 1.0
                sb = 2
                x1 = (u - mb) * (1.0 / ma)
                if x1 > 1:
                    x1 = 1.0
                    sa = 2
                elif x1 < -1:
                    x1 = -1.0
                    sa = 0
            elif x2 < -1:
                x2 = -1.0
                sb = 0
                x1 = (u + mb) * (1.0 / ma)
                if x1 > 1:
                    x1 = 1.0
                    sa = 2
                elif x1 < -1:
                    x1 = -1.0
                    sa = 0
            dif = tmp3 - pos - halfaxis * x2
            dif[j] += s2[j] * x1
            dd = dot3(dif, dif)
            cc = sa * 3 + sb
            if dd < bestdist - MINVAL:
                bestdist = dd
                bestsegmentpos = x2
                bestboxpos = x1
                clcorner = i + (1 << j) * (cc // 6)
                cledge = j
                cltype = cc

    if cltype == -4:
        return 0

    if cltype >= 0 and cltype // 3 != 1:
        # closest to a corner of the box
        c1 = axisdir ^ clcorner
        if not (c1 == 0 or c1 == 7):
            mul = 1.0
            de = 0.0
            dp = 0.0
            if c1 == 1 or c1 == 2 or c1 == 4:
                mul = 1.0
                de = 1.0 - bestsegmentpos
                dp = 1.0 + bestsegmentpos
            if c1 == 3 or c1 == 5 or c1 == 6:
                mul = -1.0
                c1 = 7 - c1
                dp = 1.0 - bestsegmentpos
                de = 1.0 + bestsegmentpos
            ax, ax1, ax2 = 0, 1, 2
            if c1 == 2:
                ax, ax1, ax2 = 1, 2, 0
            if c1 == 4:
                ax, ax1, ax2 = 2, 0, 1
            if axis[ax] * axis[ax] > 0.5:
                secondpos = de
                e1 = 2.0 * s2[ax] / abs(halfaxis[ax])
                if e1 < secondpos:
                    secondpos = e1
                secondpos *= mul
            else:
                secondpos = dp
                e1 = 2.0 * s2[ax1] / abs(halfaxis[ax1])
                if e1 < secondpos:
                    secondpos = e1
                e1 = 2.0 * s2[ax2] / abs(halfaxis[ax2])
                if e1 < secondpos:
                    secondpos = e1
                secondpos *= -mul
    elif cltype >= 0 and cltype // 3 == 1:
        # closest to the middle of an edge
        c1 = axisdir ^ clcorner
        c1 &= 7 - (1 << cledge)
        if c1 == 1 or c1 == 2 or c1 == 4:
            if cledge == 0:
                ax1, ax2 = 1, 2
            elif cledge == 1:
                ax1, ax2 = 2, 0
            else:
                ax1, ax2 = 0, 1
            ax = cledge
            if abs(axis[ax1]) > abs(axis[ax2]):
                ax1 = ax2
            ax2 = 3 - ax - ax1
            if c1 & (1 << ax2):
                mul = 1.0
                secondpos = 1.0 - bestsegmentpos
            else:
                mul = -1.0
                secondpos = 1.0 + bestsegmentpos
            e1 = 2.0 * s2[ax2] / abs(halfaxis[ax2])
            if e1 < secondpos:
                secondpos = e1
            if ((axisdir & (1 << ax)) != 0) == ((c1 & (1 << ax2)) != 0):
                e2 = 1.0 - bestboxpos
            else:
                e2 = 1.0 + bestboxpos
            e1 = s2[ax] * e2 / abs(halfaxis[ax])
            if e1 < secondpos:
                secondpos = e1
            secondpos *= mul
    elif cltype < 0:
        # a segment end is closest to a face
        if clface != -1:
            mul = 1.0 if cltype == -3 else -1.0
            secondpos = 2.0
            tmp1 = pos - halfaxis * mul
            for i in range(3):
                if i != clface:
                    e1 = (s2[i] - tmp1[i]) / halfaxis[i] * mul
                    if e1 > 0 and e1 < secondpos:
                        secondpos = e1
                    e1 = (-s2[i] - tmp1[i]) / halfaxis[i] * mul
                    if e1 > 0 and e1 < secondpos:
                        secondpos = e1
            secondpos *= mul

    sph = np.empty(3)
    sph[0] = s1[0]
    sph[1] = 0.0
    sph[2] = 0.0
    c = matvec(R2, pos + halfaxis * bestsegmentpos) + p2
    n = sphere_box(out, k, margin, c, R1, sph, p2, R2, s2)
    if secondpos > -3:
        c = matvec(R2, pos + halfaxis * (secondpos + bestsegmentpos)) + p2
        n += sphere_box(out, k + n, margin, c, R1, sph, p2, R2, s2)
    return n
