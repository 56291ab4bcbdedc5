"""Box-box contact (MuJoCo's routine): a separating-axis test over the 15 candidate axes, then
face clipping (Sutherland-Hodgman, up to 8 points) for a face axis or one edge-edge point.

Same conventions as ``primitives``: rows of ``out``, normal from geom1 to geom2, dist < 0 when
penetrating, position midway between the surfaces. Sizes are half extents.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision._vec import MINVAL, clip, dot3, matTvec, matvec, normalize3, put

_SEPEPS = 1e-13   # separation-test slack per meter of summed half sizes
_PAREPS = 1e-16   # sin^2 below which an edge-cross axis is noise
_SGNEPS = 1e-9    # axis component below which a support corner is ambiguous
_DUPEPS = 1e-14   # squared relative radius for clip-vertex deduplication
_EDGEBIAS = 1e-6  # relative penalty of edge axes against face axes on near-ties
_MAXVERT = 12     # vertex capacity of the clipped polygon
_MAXVAL = 1e10


@njit(cache=True, error_model="numpy")
def _clip_half_plane(poly, nin, spare, coord, sign, limit):
    """Clip polygon ``poly[:nin]`` by sign*v[coord] <= limit into ``spare``; returns (count, swapped)."""
    d = np.empty(_MAXVERT)
    all_inside = True
    for kk in range(nin):
        d[kk] = sign * poly[kk, coord] - limit
        if d[kk] > 0:
            all_inside = False
    if all_inside:
        return nin, False
    nout = 0
    for kk in range(nin):
        k1 = 0 if kk + 1 == nin else kk + 1
        dp = d[kk]
        dq = d[k1]
        if dp <= 0 and nout < _MAXVERT:
            spare[nout, :] = poly[kk, :]
            nout += 1
        if ((dp < 0 and dq > 0) or (dp > 0 and dq < 0)) and nout < _MAXVERT:
            t = dp / (dp - dq)
            for c in range(3):
                spare[nout, c] = poly[kk, c] + t * (poly[k1, c] - poly[kk, c])
            nout += 1
    return nout, True


@njit(cache=True, error_model="numpy")
def box_box(out, k, margin, p1, R1, s1, p2, R2, s2):
    """Box against box (MuJoCo's separating-axis routine): up to 8 face-clipping contacts, or one
    edge-edge contact."""
    pos21 = matTvec(R1, p2 - p1)
    pos12 = matTvec(R2, p1 - p2)
    rot = np.empty((3, 3))  # box2 axes in box1 frame (columns): R1^T R2
    for i in range(3):
        for j in range(3):
            rot[i, j] = R1[0, i] * R2[0, j] + R1[1, i] * R2[1, j] + R1[2, i] * R2[2, j]
    rotabs = np.abs(rot)
    septol = margin + _SEPEPS * (s1[0] + s1[1] + s1[2] + s2[0] + s2[1] + s2[2])
    sep_best = -_MAXVAL
    code = -1
    for i in range(3):
        radius2 = rotabs[i, 0] * s2[0] + rotabs[i, 1] * s2[1] + rotabs[i, 2] * s2[2]
        sep = abs(pos21[i]) - s1[i] - radius2
        if sep > septol:
            return 0
        if sep > sep_best:
            sep_best = sep
            code = i
    for j in range(3):
        radius1 = rotabs[0, j] * s1[0] + rotabs[1, j] * s1[1] + rotabs[2, j] * s1[2]
        sep = abs(pos12[j]) - s2[j] - radius1
        if sep > septol:
            return 0
        if sep > sep_best:
            sep_best = sep
            code = 3 + j
    sep_face = sep_best
    code_face = code
    for i in range(3):
        for j in range(3):
            i1 = (i + 1) % 3
            i2 = (i + 2) % 3
            ax1 = -rot[i2, j]
            ax2 = rot[i1, j]
            norm2 = ax1 * ax1 + ax2 * ax2
            if norm2 < _PAREPS:
                continue
            inv = 1.0 / math.sqrt(norm2)
            ax1 *= inv
            ax2 *= inv
            radius1 = s1[i1] * abs(ax1) + s1[i2] * abs(ax2)
            j1 = (j + 1) % 3
            j2 = (j + 2) % 3
            a2_1 = ax1 * rot[i1, j1] + ax2 * rot[i2, j1]
            a2_2 = ax1 * rot[i1, j2] + ax2 * rot[i2, j2]
            radius2 = s2[j1] * abs(a2_1) + s2[j2] * abs(a2_2)
            sep = abs(ax1 * pos21[i1] + ax2 * pos21[i2]) - radius1 - radius2
            if sep > septol:
                return 0
            if sep - _EDGEBIAS * abs(sep) > sep_best and sep > sep_face:
                sep_best = sep
                code = 6 + 3 * i + j
    if code < 0:
        return 0

    if code >= 6:
        i = (code - 6) // 3
        j = (code - 6) % 3
        i1 = (i + 1) % 3
        i2 = (i + 2) % 3
        axis = np.zeros(3)
        axis[i1] = -rot[i2, j]
        axis[i2] = rot[i1, j]
        normalize3(axis)
        if code_face < 3:
            face_dot = abs(axis[code_face])
        else:
            f = code_face - 3
            face_dot = abs(axis[0] * rot[0, f] + axis[1] * rot[1, f] + axis[2] * rot[2, f])
        if face_dot > 0.99 and sep_best < sep_face + 0.05 * abs(sep_face) + MINVAL:
            code = code_face
            sep_best = sep_face

    if code >= 6:
        # edge-edge contact
        i = (code - 6) // 3
        j = (code - 6) % 3
        i1 = (i + 1) % 3
        i2 = (i + 2) % 3
        j1 = (j + 1) % 3
        j2 = (j + 2) % 3
        axis = np.zeros(3)
        axis[i1] = -rot[i2, j]
        axis[i2] = rot[i1, j]
        normalize3(axis)
        if dot3(axis, pos21) < 0:
            axis = -axis
        a2 = np.empty(3)
        for c in range(3):
            a2[c] = axis[0] * rot[0, c] + axis[1] * rot[1, c] + axis[2] * rot[2, c]
        amb1 = -1
        amb2 = -1
        if abs(axis[i1]) < _SGNEPS:
            amb1 = i1
        elif abs(axis[i2]) < _SGNEPS:
            amb1 = i2
        if abs(a2[j1]) < _SGNEPS:
            amb2 = j1
        elif abs(a2[j2]) < _SGNEPS:
            amb2 = j2
        d2 = rot[:, j].copy()
        b = d2[i]
        denom = 1.0 - b * b
        w1 = np.zeros(3)
        w2 = np.zeros(3)
        best_d2 = _MAXVAL
        c1 = np.empty(3)
        cc = np.empty(3)
        for v1 in range(2 if amb1 >= 0 else 1):
            for v2 in range(2 if amb2 >= 0 else 1):
                c1[i] = 0.0
                c1[i1] = s1[i1] if axis[i1] >= 0 else -s1[i1]
                c1[i2] = s1[i2] if axis[i2] >= 0 else -s1[i2]
                if amb1 >= 0 and v1:
                    c1[amb1] = -c1[amb1]
                cc[j] = 0.0
                cc[j1] = -s2[j1] if a2[j1] >= 0 else s2[j1]
                cc[j2] = -s2[j2] if a2[j2] >= 0 else s2[j2]
                if amb2 >= 0 and v2:
                    cc[amb2] = -cc[amb2]
                c2 = matvec(rot, cc) + pos21
                e = c2 - c1
                d1e = e[i]
                d2e = dot3(d2, e)
                s = 0.0 if denom < MINVAL else (d1e - b * d2e) / denom
                s = clip(s, -s1[i], s1[i])
                t = clip(b * s - d2e, -s2[j], s2[j])
                s = clip(d1e + b * t, -s1[i], s1[i])
                q1 = c1.copy()
                q1[i] += s
                q2 = c2 + d2 * t
                g = q2 - q1
                gap2 = dot3(g, g)
                if gap2 < best_d2:
                    best_d2 = gap2
                    w1[:] = q1
                    w2[:] = q2
        dist = dot3(w2 - w1, axis)
        if dist > septol:
            return 0
        mid = 0.5 * (w1 + w2)
        put(out, k, dist, matvec(R1, mid) + p1, matvec(R1, axis))
        return 1

    # face contact: the owner of the winning face is the reference box
    ref1 = code < 3
    a = code if ref1 else code - 3
    if ref1:
        sizeref, sizeinc, posref, matref, posoi, rinc = s1, s2, p1, R1, pos21, rot
    else:
        sizeref, sizeinc, posref, matref, posoi, rinc = s2, s1, p2, R2, pos12, rot.T.copy()
    sgn = 1.0 if posoi[a] >= 0 else -1.0
    binc = 0
    for kk in range(1, 3):
        if abs(rinc[a, kk]) > abs(rinc[a, binc]):
            binc = kk
    tinc = -1.0 if sgn * rinc[a, binc] > 0 else 1.0
    ax = (a + 1) % 3
    ay = (a + 2) % 3
    bu = (binc + 1) % 3
    bv = (binc + 2) % 3
    cx = np.empty(3)
    du = np.empty(3)
    dv = np.empty(3)
    for r in range(3):
        c = ax if r == 0 else (ay if r == 1 else a)
        cx[r] = posoi[c] + tinc * sizeinc[binc] * rinc[c, binc]
        du[r] = sizeinc[bu] * rinc[c, bu]
        dv[r] = sizeinc[bv] * rinc[c, bv]
    cx[2] = sgn * cx[2] - sizeref[a]
    du[2] *= sgn
    dv[2] *= sgn
    bufa = np.empty((_MAXVERT, 3))
    bufb = np.empty((_MAXVERT, 3))
    csu = (1.0, -1.0, -1.0, 1.0)
    csv = (1.0, 1.0, -1.0, -1.0)
    for kk in range(4):
        for c in range(3):
            bufa[kk, c] = cx[c] + csu[kk] * du[c] + csv[kk] * dv[c]
    nvert = 4
    cur = bufa
    spare = bufb
    coords = (0, 0, 1, 1)
    signs = (1.0, -1.0, 1.0, -1.0)
    for pss in range(4):
        lim = sizeref[ax] if coords[pss] == 0 else sizeref[ay]
        nvert, swapped = _clip_half_plane(cur, nvert, spare, coords[pss], signs[pss], lim)
        if swapped:
            tmpb = cur
            cur = spare
            spare = tmpb
    accepted = np.empty((_MAXVERT, 3))
    naccept = 0
    dupe2 = _DUPEPS * (sizeref[ax] * sizeref[ax] + sizeref[ay] * sizeref[ay])
    for kk in range(nvert):
        if cur[kk, 2] > margin:
            continue
        dupe = False
        for q in range(naccept):
            dx = accepted[q, 0] - cur[kk, 0]
            dy = accepted[q, 1] - cur[kk, 1]
            if dx * dx + dy * dy < dupe2:
                dupe = True
                break
        if not dupe:
            accepted[naccept, :] = cur[kk, :]
            naccept += 1
    if naccept == 0:
        return 0
    nsign = sgn if ref1 else -sgn
    normal = matref[:, a] * nsign
    posc = np.empty(3)
    for kk in range(naccept):
        posc[ax] = accepted[kk, 0]
        posc[ay] = accepted[kk, 1]
        posc[a] = sgn * (sizeref[a] + 0.5 * accepted[kk, 2])
        put(out, k + kk, accepted[kk, 2], matvec(matref, posc) + posref, normal)
    return naccept
