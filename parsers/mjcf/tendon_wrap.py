"""Spatial tendon paths at compile time (MuJoCo's mj_tendon at given body poses): the straight segments between
sites and the tangent points of wrapping sphere / cylinder geoms, for tendon lengths and moment arms at qpos0 and
qpos_spring. The wrap itself is the plant's compiled kernel (multibody/kernels/tendon_kernels.wrap_geom)."""
from __future__ import annotations

import numpy as np

from .model import MjcfGeom, MjcfSite, MjcfTendon
from .rotations import quat_to_mat


def spatial_path(t: MjcfTendon, sites: list[MjcfSite], geoms: list[MjcfGeom], xpos: np.ndarray, xmat: np.ndarray
                 ) -> tuple[float, list]:
    """Length of a spatial tendon and its segments [(p_a, body a, p_b, body b, divisor)] for the body frames
    (xpos (n,3), xmat (n,3,3)). Wrapped segments contribute their arc to the length but no segment (both tangent
    points move with the geom's body)."""
    from mallard.multibody.kernels.tendon_kernels import wrap_geom

    def site_point(s: int):
        site = sites[s]
        return xpos[site.body] + xmat[site.body] @ np.asarray(site.pos, float), site.body

    total, segs, divisor = 0.0, [], 1.0
    w = t.wraps
    j = 0
    while j < len(w) - 1:
        a, b = w[j], w[j + 1]
        if a.type == "pulley" or b.type == "pulley":
            if a.type == "pulley":
                divisor = float(a.prm)
            j += 1
            continue
        p0, b0 = site_point(a.objid)
        if b.type == "geom":
            g = geoms[b.objid]
            end = w[j + 2]
            p1, b1 = site_point(end.objid)
            p_WG = xpos[g.body] + xmat[g.body] @ np.asarray(g.pos, float)
            R_WG = np.ascontiguousarray(xmat[g.body] @ quat_to_mat(np.asarray(g.quat, float)))
            side = site_point(b.sidesite)[0] if b.sidesite >= 0 else p_WG
            tangent = np.zeros((2, 3))
            wlen = wrap_geom(p0, p1, p_WG, R_WG, float(g.size[0]), g.type == "cylinder", side, b.sidesite >= 0,
                             tangent)
            if wlen >= 0:
                pts = [(p0, b0), (tangent[0], g.body), (tangent[1], g.body), (p1, b1)]
                total += (np.linalg.norm(tangent[0] - p0) + wlen + np.linalg.norm(p1 - tangent[1])) / divisor
            else:
                pts = [(p0, b0), (p1, b1)]
                total += float(np.linalg.norm(p1 - p0)) / divisor
            j += 2
        else:
            p1, b1 = site_point(b.objid)
            pts = [(p0, b0), (p1, b1)]
            total += float(np.linalg.norm(p1 - p0)) / divisor
            j += 1
        for (pa, ba), (pb, bb) in zip(pts[:-1], pts[1:]):
            if ba != bb:
                segs.append((pa, ba, pb, bb, divisor))
    return float(total), segs
