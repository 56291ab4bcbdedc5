"""Compiled kernels of MuJoCo tendons: geom wrapping (sphere / cylinder, side sites, inside wrap), lengths and
moment arms of all tendons of a model in one call, the tendon-armature velocity product J̇·v, and the armature
terms a·JᵀJ of the mass matrix.

A tendon path is a run of wrap elements (type codes W_*): joints with a coefficient (fixed tendons), sites,
wrapping geoms (with an optional side site) and pulleys (which start a new branch whose length is divided by
the divisor). Points live on plant bodies: `wbody` (body index), `wpos` (position in the body frame), `wrot`
(geom orientation in the body frame); world poses come from the kinematics arrays R_WB, p_WB. Joint columns S
are Plücker at Wo ([w; v_Wo] per velocity), so a body point p_W moves with v_Wo + w × p_W.

The wrap follows MuJoCo's source (mju_wrap, wrap_circle, wrap_inside) with two changes found by comparison with
the MuJoCo 4.0.0 oracle, whose source was not available: the inside wrap keeps Newton's method inside a bracket
of the root (MuJoCo 4 solves the cases 3.x gave up on), and the side-site rule in _wrap_circle. Known
difference: with a side site outside the geom, MuJoCo 4.0.0 wraps to another side, or not at all, in about one
in ten random placements of the path's end points around the geom (the rule behind that choice is not
recovered); everywhere else lengths and moment arms agree with MuJoCo's to rounding.
"""
from __future__ import annotations

import numpy as np
from numba import njit

W_JOINT, W_SITE, W_SPHERE, W_CYLINDER, W_PULLEY = 0, 1, 2, 3, 4
MINVAL = 1e-15


@njit(cache=True)
def _segments_intersect(p1, p2, p3, p4) -> bool:
    """Whether the 2D segments p1-p2 and p3-p4 cross (parallel segments never do)."""
    det = (p4[1] - p3[1]) * (p2[0] - p1[0]) - (p4[0] - p3[0]) * (p2[1] - p1[1])
    if abs(det) < MINVAL:
        return False
    a = ((p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0])) / det
    b = ((p2[0] - p1[0]) * (p1[1] - p3[1]) - (p2[1] - p1[1]) * (p1[0] - p3[0])) / det
    return 0.0 <= a <= 1.0 and 0.0 <= b <= 1.0


@njit(cache=True)
def _arc_length(t0, t1, flip: bool, radius: float) -> float:
    """Length of the circle arc from t0 to t1 (2D points on the circle), the long way round when the turn
    direction disagrees with the chosen tangent solution."""
    n0 = np.sqrt(t0[0] * t0[0] + t0[1] * t0[1])
    n1 = np.sqrt(t1[0] * t1[0] + t1[1] * t1[1])
    u0 = (1.0, 0.0) if n0 < MINVAL else (t0[0] / n0, t0[1] / n0)
    u1 = (1.0, 0.0) if n1 < MINVAL else (t1[0] / n1, t1[1] / n1)
    angle = np.arccos(u0[0] * u1[0] + u0[1] * u1[1])
    cross = t0[1] * t1[0] - t0[0] * t1[1]
    if (cross > 0 and flip) or (cross < 0 and not flip):
        angle = 2.0 * np.pi - angle
    return radius * angle


@njit(cache=True)
def _wrap_circle(d, side, has_side: bool, radius: float, out):
    """Shortest 2D path from d[0:2] to d[2:4] around the circle of `radius` at the origin, on the side of the
    2D point `side` when given. Writes the two tangent points to out[0:4]; returns the arc length, −1 when the
    straight segment already clears the circle (or the configuration admits no wrap).

    A segment that clears the circle on the side away from `side` is wrapped round to that side only when the
    end points are more than 90° apart seen from the centre: MuJoCo 4.0.0 wraps fewer such paths than its 3.x
    source did, and this condition reproduces it in most cases (not all: see the module notes)."""
    sq0 = d[0] * d[0] + d[1] * d[1]
    sq1 = d[2] * d[2] + d[3] * d[3]
    r2 = radius * radius
    if sq0 < r2 or sq1 < r2 or radius < MINVAL:
        return -1.0
    dx, dy = d[2] - d[0], d[3] - d[1]
    dd = dx * dx + dy * dy
    if dd < MINVAL:
        return -1.0
    a = min(max(-(dx * d[0] + dy * d[1]) / dd, 0.0), 1.0)
    cx, cy = a * dx + d[0], a * dy + d[1]
    if cx * cx + cy * cy > r2 and (not has_side or side[0] * cx + side[1] * cy >= 0
                                   or d[0] * d[2] + d[1] * d[3] >= 0):
        return -1.0
    s0 = np.sqrt(sq0 - r2)
    s1 = np.sqrt(sq1 - r2)
    sol = np.empty((2, 4))
    good = np.empty(2)
    for i in range(2):
        sg = 1.0 if i == 0 else -1.0
        sol[i, 0] = (d[0] * r2 + sg * radius * d[1] * s0) / sq0
        sol[i, 1] = (d[1] * r2 - sg * radius * d[0] * s0) / sq0
        sol[i, 2] = (d[2] * r2 - sg * radius * d[3] * s1) / sq1
        sol[i, 3] = (d[3] * r2 + sg * radius * d[2] * s1) / sq1
        if has_side:
            mx, my = sol[i, 0] + sol[i, 2], sol[i, 1] + sol[i, 3]
            nm = np.sqrt(mx * mx + my * my)
            if nm < MINVAL:
                mx, my = 1.0, 0.0
            else:
                mx, my = mx / nm, my / nm
            good[i] = mx * side[0] + my * side[1]
        else:
            ex, ey = sol[i, 0] - sol[i, 2], sol[i, 1] - sol[i, 3]
            good[i] = -(ex * ex + ey * ey)
        if _segments_intersect(d[0:2], sol[i, 0:2], d[2:4], sol[i, 2:4]):
            good[i] = -10000.0
    i = 0 if good[0] > good[1] else 1
    out[:] = sol[i]
    if _segments_intersect(d[0:2], out[0:2], d[2:4], out[2:4]):
        return -1.0
    return _arc_length(sol[i, 0:2], sol[i, 2:4], i == 1, radius)


@njit(cache=True)
def _wrap_inside(d, radius: float, out):
    """Path through the circle (side site inside the geom): both tangent points coincide at the point of the
    circle where the path from d[0:2] to d[2:4] reflects, found by Newton's method on
    asin(A z) + asin(B z) − 2 asin(z) + G = 0 (safeguarded by bisection where MuJoCo 3.x gave up near z = 1;
    MuJoCo 4 finds that root too). Returns 0 (wrap, zero arc) or −1 (no wrap)."""
    len0 = np.sqrt(d[0] * d[0] + d[1] * d[1])
    len1 = np.sqrt(d[2] * d[2] + d[3] * d[3])
    dx, dy = d[2] - d[0], d[3] - d[1]
    dd = dx * dx + dy * dy
    if len0 <= radius or len1 <= radius or radius < MINVAL or len0 < MINVAL or len1 < MINVAL:
        return -1.0
    if dd > MINVAL:
        a = -(dx * d[0] + dy * d[1]) / dd
        if 0.0 < a < 1.0:
            cx, cy = d[0] + a * dx, d[1] + a * dy
            if np.sqrt(cx * cx + cy * cy) <= radius:
                return -1.0
    mx, my = 0.5 * (d[0] + d[2]), 0.5 * (d[1] + d[3])  # fallback: the mean direction
    nm = np.sqrt(mx * mx + my * my)
    if nm < MINVAL:
        mx, my = 1.0, 0.0
    else:
        mx, my = mx / nm, my / nm
    out[0], out[1], out[2], out[3] = radius * mx, radius * my, radius * mx, radius * my
    A = radius / len0
    B = radius / len1
    cosG = (len0 * len0 + len1 * len1 - dd) / (2.0 * len0 * len1)
    if cosG < -1.0 + MINVAL:
        return -1.0
    if cosG > 1.0 - MINVAL:
        return 0.0
    G = np.arccos(cosG)
    z = 1.0 - 1e-7
    f = np.arcsin(A * z) + np.arcsin(B * z) - 2.0 * np.arcsin(z) + G
    # f decreases in z: Newton from just below 1, kept inside the bracket [lo, hi] of the root by bisection
    # (the root can lie between the start and 1)
    lo, hi = 0.0, 1.0
    if f > 0:
        if np.arcsin(A) + np.arcsin(B) - np.pi + G >= 0:  # no root below 1
            return 0.0
        lo = z
    else:
        hi = z
    it = 0
    while it < 20 and abs(f) > 1e-6:
        df = (A / max(MINVAL, np.sqrt(1.0 - z * z * A * A)) + B / max(MINVAL, np.sqrt(1.0 - z * z * B * B))
              - 2.0 / max(MINVAL, np.sqrt(1.0 - z * z)))
        if df > -MINVAL:
            return 0.0
        z1 = z - f / df
        if not lo < z1 < hi:
            z1 = 0.5 * (lo + hi)
        z = z1
        f = np.arcsin(A * z) + np.arcsin(B * z) - 2.0 * np.arcsin(z) + G
        if f > 0:
            lo = z
        else:
            hi = z
        it += 1
    if it >= 20:
        return 0.0
    if d[0] * d[3] - d[1] * d[2] > 0:
        vx, vy, ang = d[0], d[1], np.arcsin(z) - np.arcsin(A * z)
    else:
        vx, vy, ang = d[2], d[3], np.arcsin(z) - np.arcsin(B * z)
    nv = np.sqrt(vx * vx + vy * vy)
    if nv < MINVAL:
        vx, vy = 1.0, 0.0
    else:
        vx, vy = vx / nv, vy / nv
    c, s = np.cos(ang), np.sin(ang)
    out[0] = radius * (c * vx - s * vy)
    out[1] = radius * (s * vx + c * vy)
    out[2], out[3] = out[0], out[1]
    return 0.0


@njit(cache=True)
def _normalize3(v):
    """v / |v| (the x axis when |v| < MINVAL, as MuJoCo) and |v|."""
    n = np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if n < MINVAL:
        return np.array([1.0, 0.0, 0.0]), n
    return v / n, n


@njit(cache=True)
def wrap_geom(p_W0, p_W1, p_WG, R_WG, radius: float, cylinder: bool, p_Wside, has_side: bool, w_W):
    """MuJoCo's wrap of the straight path p_W0 → p_W1 around a sphere or (infinite) cylinder geom at
    (p_WG, R_WG): returns the wrapped length (arc, or helix for a cylinder) and writes the two tangent points
    to w_W (2 × 3); −1 when the path does not wrap. With a side site the wrap takes the side it points to, or
    passes through the geom when the side site is inside it."""
    p0 = R_WG.T @ (p_W0 - p_WG)
    p1 = R_WG.T @ (p_W1 - p_WG)
    if np.linalg.norm(p0) < MINVAL or np.linalg.norm(p1) < MINVAL:
        return -1.0
    ax0 = np.array([1.0, 0.0, 0.0])
    ax1 = np.array([0.0, 1.0, 0.0])
    if not cylinder:
        ax0, _ = _normalize3(p0.copy())
        nrm_v = np.cross(p0, p1)
        normal, nrm = _normalize3(nrm_v)
        if nrm < MINVAL:  # p0, p1 parallel: any plane through them
            i = 0
            if abs(ax0[1]) > abs(ax0[0]) and abs(ax0[1]) > abs(ax0[2]):
                i = 1
            if abs(ax0[2]) > abs(ax0[0]) and abs(ax0[2]) > abs(ax0[1]):
                i = 2
            tmp = np.ones(3)
            tmp[i] = 0.0
            normal, _ = _normalize3(np.cross(ax0, tmp))
        ax1, _ = _normalize3(np.cross(normal, ax0))
    d = np.array([p0 @ ax0, p0 @ ax1, p1 @ ax0, p1 @ ax1])
    sd = np.zeros(2)
    inside = False
    if has_side:
        s = R_WG.T @ (p_Wside - p_WG)
        sd[0], sd[1] = s @ ax0, s @ ax1
        ns = np.sqrt(sd[0] * sd[0] + sd[1] * sd[1])
        if ns < MINVAL:
            sd[0], sd[1] = radius, 0.0
        else:
            sd *= radius / ns
        inside = np.linalg.norm(s) < radius
    pnt = np.zeros(4)
    if inside:
        wlen = _wrap_inside(d, radius, pnt)
    else:
        wlen = _wrap_circle(d, sd, has_side, radius, pnt)
    if wlen < 0:
        return -1.0
    r0 = ax0 * pnt[0] + ax1 * pnt[1]
    r1 = ax0 * pnt[2] + ax1 * pnt[3]
    if cylinder:  # spread the height change along the path: a helix on the cylinder
        L0 = np.sqrt((p0[0] - r0[0]) ** 2 + (p0[1] - r0[1]) ** 2)
        L1 = np.sqrt((p1[0] - r1[0]) ** 2 + (p1[1] - r1[1]) ** 2)
        total = L0 + wlen + L1
        r0[2] = p0[2] + (p1[2] - p0[2]) * L0 / total
        r1[2] = p0[2] + (p1[2] - p0[2]) * (L0 + wlen) / total
        height = abs(r1[2] - r0[2])
        wlen = np.sqrt(wlen * wlen + height * height)
    w_W[0] = R_WG @ r0 + p_WG
    w_W[1] = R_WG @ r1 + p_WG
    return wlen


@njit(cache=True)
def _add_moment(ji, S, body, p_W, u_W, scale, row):
    """row += scale · u_Wᵀ J_v(point p_W of `body`), J_v the point's translational Jacobian (S Plücker at Wo)."""
    # u·(v_Wo + w × p) = u·v_Wo + w·(p × u)
    cx = p_W[1] * u_W[2] - p_W[2] * u_W[1]
    cy = p_W[2] * u_W[0] - p_W[0] * u_W[2]
    cz = p_W[0] * u_W[1] - p_W[1] * u_W[0]
    a = body
    while a > 0:
        vs = ji[a, 4]
        for j in range(ji[a, 5]):
            k = vs + j
            row[k] += scale * (u_W[0] * S[k, 3] + u_W[1] * S[k, 4] + u_W[2] * S[k, 5]
                               + S[k, 0] * cx + S[k, 1] * cy + S[k, 2] * cz)
        a = ji[a, 0]


@njit(cache=True)
def _world_point(R_WB, p_WB, b, pos):
    return p_WB[b] + R_WB[b] @ pos


@njit(cache=True)
def _set_world_point(R_WB, p_WB, b, pos, out):
    """out[:] = p_WB[b] + R_WB[b] @ pos (no allocation)."""
    R, p = R_WB[b], p_WB[b]
    for i in range(3):
        out[i] = p[i] + (R[i, 0] * pos[0] + R[i, 1] * pos[1] + R[i, 2] * pos[2])


@njit(cache=True)
def _record_point(wrap_xpos, wrap_obj, wrap_body, n, p, obj, body) -> int:
    """Append one path point at slot n (MuJoCo's wrap_xpos / wrap_obj, plus the point's body); returns n + 1."""
    for i in range(3):
        wrap_xpos[n, i] = p[i]
    wrap_obj[n], wrap_body[n] = obj, body
    return n + 1


@njit(cache=True)
def tendon_kinematics(ten_adr, ten_num, wtype, wbody, wpos, wrot, wprm, wqi, wvi, sbody, spos, R_WB, p_WB, ji, S, q,
                      L, J, wrapadr, wrapnum, wrap_obj, wrap_body, wrap_xpos):
    """Lengths L (nten) [m or rad], moment arms J = ∂L/∂v (nten × nv) and path points of all tendons, as MuJoCo's
    mj_tendon.

    Fixed tendons: L = Σ coef·q, J = coef at the dofs. Spatial: per branch (pulleys start a new one and set its
    divisor) the sum of straight segments between consecutive points, a wrapping geom inserting its two tangent
    points and the arc between them; moment = Σ over segments joining different bodies of
    uᵀ(J_v(end) − J_v(start)) / divisor (tangent points move with the geom's body). Wrap element k of a geom
    carries its side site in sbody[k] (−1: none) / spos[k].

    Path points (MuJoCo's ten_wrapadr / ten_wrapnum / wrap_obj / wrap_xpos): tendon t's points are rows
    wrapadr[t] .. wrapadr[t] + wrapnum[t] of wrap_xpos (world positions [m]), packed in tendon order; wrap_obj is
    −1 for a site, −2 for a pulley (position zero), the wrap element index of the geom for its two tangent
    points; wrap_body the plant body of the point (−1 for a pulley). Fixed tendons have none. The capacity
    (rows of wrap_xpos) must be at least Σ over spatial tendons of (elements + wrapping geoms).
    """
    nt = ten_adr.shape[0]
    w = np.empty((2, 3))
    pts = np.empty((4, 3))
    bodies = np.empty(4, np.int64)
    p_side = np.empty(3)
    count = 0
    for t in range(nt):
        L[t] = 0.0
        for k in range(J.shape[1]):
            J[t, k] = 0.0
        adr, num = ten_adr[t], ten_num[t]
        wrapadr[t], wrapnum[t] = count, 0
        if num == 0:
            continue
        if wtype[adr] == W_JOINT:
            for e in range(adr, adr + num):
                L[t] += wprm[e] * q[wqi[e]]
                J[t, wvi[e]] += wprm[e]
            continue
        divisor = 1.0
        j = 0
        while j < num - 1:
            e0, e1 = adr + j, adr + j + 1
            if wtype[e0] == W_PULLEY or wtype[e1] == W_PULLEY:
                if wtype[e0] == W_PULLEY:
                    divisor = wprm[e0]
                    for i in range(3):
                        w[0, i] = 0.0
                    count = _record_point(wrap_xpos, wrap_obj, wrap_body, count, w[0], -2, -1)
                j += 1
                continue
            _set_world_point(R_WB, p_WB, wbody[e0], wpos[e0], pts[0])
            bodies[0] = wbody[e0]
            wlen = -1.0
            geom = -1
            if wtype[e1] == W_SPHERE or wtype[e1] == W_CYLINDER:
                geom = e1
                e1 = adr + j + 2
                _set_world_point(R_WB, p_WB, wbody[e1], wpos[e1], pts[3])
                gb = wbody[geom]
                R_WG = R_WB[gb] @ wrot[geom]
                p_WG = _world_point(R_WB, p_WB, gb, wpos[geom])
                has_side = sbody[geom] >= 0
                if has_side:
                    _set_world_point(R_WB, p_WB, sbody[geom], spos[geom], p_side)
                else:
                    p_side[:] = p_WG
                wlen = wrap_geom(pts[0], pts[3], p_WG, R_WG, wprm[geom], wtype[geom] == W_CYLINDER, p_side,
                                 has_side, w)
            npts = 2
            if wlen < 0:
                _set_world_point(R_WB, p_WB, wbody[e1], wpos[e1], pts[1])
                bodies[1] = wbody[e1]
                L[t] += np.linalg.norm(pts[1] - pts[0]) / divisor
            else:
                npts = 4
                pts[1], pts[2] = w[0], w[1]
                bodies[1] = bodies[2] = wbody[geom]
                bodies[3] = wbody[e1]
                L[t] += (np.linalg.norm(pts[1] - pts[0]) + wlen + np.linalg.norm(pts[3] - pts[2])) / divisor
            for s in range(npts - 1):
                if bodies[s] == bodies[s + 1]:
                    continue
                u, _ = _normalize3(pts[s + 1] - pts[s])
                _add_moment(ji, S, bodies[s + 1], pts[s + 1], u, 1.0 / divisor, J[t])
                _add_moment(ji, S, bodies[s], pts[s], u, -1.0 / divisor, J[t])
            count = _record_point(wrap_xpos, wrap_obj, wrap_body, count, pts[0], -1, bodies[0])
            if wlen >= 0:
                count = _record_point(wrap_xpos, wrap_obj, wrap_body, count, pts[1], geom, bodies[1])
                count = _record_point(wrap_xpos, wrap_obj, wrap_body, count, pts[2], geom, bodies[2])
            j += 2 if geom >= 0 else 1
            if j == num - 1 or wtype[adr + j + 1] == W_PULLEY:  # the branch's last site
                count = _record_point(wrap_xpos, wrap_obj, wrap_body, count, pts[npts - 1], -1, bodies[npts - 1])
        wrapnum[t] = count - wrapadr[t]


def WrapCapacity(ten_adr: np.ndarray, ten_num: np.ndarray, wtype: np.ndarray) -> int:
    """Rows of wrap_xpos enough for `tendon_kinematics`' path points: Σ over spatial tendons of (elements +
    wrapping geoms)."""
    n = 0
    for adr, num in zip(ten_adr.tolist(), ten_num.tolist()):
        if num and wtype[adr] != W_JOINT:
            kinds = wtype[adr:adr + num]
            n += num + int(np.sum((kinds == W_SPHERE) | (kinds == W_CYLINDER)))
    return n


@njit(cache=True)
def tendon_lengths_moments(ten_adr, ten_num, wtype, wbody, wpos, wrot, wprm, wqi, wvi, sbody, spos,
                           R_WB, p_WB, ji, S, q, L, J):
    """Lengths L (nten) [m or rad] and moment arms J = ∂L/∂v (nten × nv) of all tendons (`tendon_kinematics`
    without the path points)."""
    nt = ten_adr.shape[0]
    cap = 0
    for t in range(nt):
        cap += 2 * ten_num[t]
    tendon_kinematics(ten_adr, ten_num, wtype, wbody, wpos, wrot, wprm, wqi, wvi, sbody, spos, R_WB, p_WB, ji, S, q,
                      L, J, np.empty(nt, np.int64), np.empty(nt, np.int64), np.empty(cap, np.int64),
                      np.empty(cap, np.int64), np.empty((cap, 3)))


@njit(cache=True)
def _point_motion(R_WB, p_WB, V, A, b, pos):
    """World position, velocity and bias acceleration (v̇ = 0) of the point `pos` of body b (V, A Plücker at Wo)."""
    p = _world_point(R_WB, p_WB, b, pos)
    w = V[b, 0:3]
    v = V[b, 3:6] + np.cross(w, p)
    a = A[b, 3:6] + np.cross(A[b, 0:3], p) + np.cross(w, v)
    return p, v, a


@njit(cache=True)
def tendon_jdot_v(ten_adr, ten_num, wtype, wbody, wpos, wprm, R_WB, p_WB, V, A, out):
    """out[t] = J̇_t·v of each tendon (0 for fixed tendons), MuJoCo's mj_tendonDot: for every segment between
    sites of different bodies, (uᵀ(a_end − a_start) + (v_end − v_start)·u̇) / divisor, with a the points' bias
    accelerations, u the unit segment direction and u̇ = (Δv − u (u·Δv)) / |Δp|. Tendons that wrap geoms are
    not handled (MuJoCo has no J̇ for them either)."""
    for t in range(ten_adr.shape[0]):
        out[t] = 0.0
        adr, num = ten_adr[t], ten_num[t]
        if num == 0 or wtype[adr] == W_JOINT:
            continue
        divisor = 1.0
        for j in range(num - 1):
            e0, e1 = adr + j, adr + j + 1
            if wtype[e0] == W_PULLEY or wtype[e1] == W_PULLEY:
                if wtype[e0] == W_PULLEY:
                    divisor = wprm[e0]
                continue
            if wbody[e0] == wbody[e1]:
                continue
            p0, v0, a0 = _point_motion(R_WB, p_WB, V, A, wbody[e0], wpos[e0])
            p1, v1, a1 = _point_motion(R_WB, p_WB, V, A, wbody[e1], wpos[e1])
            u, n = _normalize3(p1 - p0)
            dv = v1 - v0
            udot = (dv - u * (u @ dv)) * (1.0 / n if n > MINVAL else 0.0)
            out[t] += (u @ (a1 - a0) + dv @ udot) / divisor


@njit(cache=True)
def add_tendon_armature_mass(J, armature, pattern, M):
    """M += Σ_t armature_t · J_tᵀ J_t, only where M has structural entries (pattern: dofs on one root path),
    as MuJoCo's mj_tendonArmature adds into its sparse inertia."""
    nv = M.shape[0]
    for t in range(J.shape[0]):
        a = armature[t]
        if a == 0.0:
            continue
        for i in range(nv):
            ji = J[t, i]
            if ji == 0.0:
                continue
            for k in range(nv):
                if pattern[i, k]:
                    M[i, k] += a * ji * J[t, k]
