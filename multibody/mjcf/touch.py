"""MuJoCo's touch sensor: the summed normal force of the contacts on a site's body whose normal ray, from the
contact point away from that body, meets the site's volume (sphere, capsule, ellipsoid, cylinder or box) —
a contact point inside the volume always counts.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["RayHitsSite", "TouchSensor"]

_TINY = 1e-15


def _interval(lo: float, hi: float, a: float, b: float, c: float) -> tuple[float, float]:
    """[lo, hi] ∩ {t : a t² + 2 b t + c ≤ 0} for a ≥ 0 (empty: lo > hi)."""
    if a < _TINY:
        if abs(b) < _TINY:
            return (lo, hi) if c <= 0 else (1.0, 0.0)
        t = -c / (2.0 * b)
        return (lo, min(hi, t)) if b > 0 else (max(lo, t), hi)
    det = b * b - a * c
    if det < 0:
        return 1.0, 0.0
    s = math.sqrt(det)
    return max(lo, (-b - s) / a), min(hi, (-b + s) / a)


def _slab(lo: float, hi: float, p: float, d: float, half: float) -> tuple[float, float]:
    """[lo, hi] ∩ {t : |p + t d| ≤ half}."""
    if abs(d) < _TINY:
        return (lo, hi) if abs(p) <= half else (1.0, 0.0)
    t1, t2 = (-half - p) / d, (half - p) / d
    return max(lo, min(t1, t2)), min(hi, max(t1, t2))


def _sphere(p: np.ndarray, d: np.ndarray, r: float) -> bool:
    lo, hi = _interval(0.0, math.inf, float(d @ d), float(p @ d), float(p @ p) - r * r)
    return lo <= hi


def _cylinder(p: np.ndarray, d: np.ndarray, r: float, h: float) -> bool:
    lo, hi = _interval(0.0, math.inf, d[0] ** 2 + d[1] ** 2, p[0] * d[0] + p[1] * d[1], p[0] ** 2 + p[1] ** 2 - r * r)
    if lo > hi:
        return False
    lo, hi = _slab(lo, hi, p[2], d[2], h)
    return lo <= hi


def RayHitsSite(site_type: str, size, R_WS: np.ndarray, p_WS: np.ndarray, p_W: np.ndarray,
                d_W: np.ndarray) -> bool:
    """Whether the ray p + t·d (t ≥ 0, in W) meets the solid site volume (frame S: R_WS, p_WS; MuJoCo sizes)."""
    s = np.asarray(size, float)
    p = R_WS.T @ (np.asarray(p_W, float) - p_WS)
    d = R_WS.T @ np.asarray(d_W, float)
    if site_type == "sphere":
        return _sphere(p, d, s[0])
    if site_type == "ellipsoid":
        return _sphere(p / s, d / s, 1.0)
    if site_type == "cylinder":
        return _cylinder(p, d, s[0], s[1])
    if site_type == "capsule":
        ends = np.array([0.0, 0.0, s[1]])
        return _cylinder(p, d, s[0], s[1]) or _sphere(p - ends, d, s[0]) or _sphere(p + ends, d, s[0])
    if site_type == "box":
        lo, hi = 0.0, math.inf
        for k in range(3):
            lo, hi = _slab(lo, hi, p[k], d[k], s[k])
        return lo <= hi
    raise ValueError(f"touch sensor: site type '{site_type}' has no volume (sphere, capsule, ellipsoid, cylinder "
                     "or box)")


def TouchSensor(plant, pm, dyn, frames, context, site: int) -> float:
    """touch: Σ normal force [N] of the contacts on the site's body whose ray meets the site volume."""
    s = pm.model.sites[site]
    b = int(pm.bodies[s.body].index())
    R_WS, p_WS, _w, _v = frames.get("site", site)
    total = 0.0
    for body_A, body_B, p_WC, n_AB, f_n in _contacts(plant, dyn, context):
        if f_n <= 0 or b not in (body_A, body_B):
            continue
        ray = n_AB if b == body_A else -n_AB
        if RayHitsSite(s.type, s.size, R_WS, p_WS, p_WC, ray):
            total += f_n
    return total


def _contacts(plant, dyn, context):
    """(body A, body B, point, unit normal A→B, normal force) of each contact of the step / state."""
    sol = dyn.solution
    if sol is not None:
        cs = sol.contacts
        for c in range(cs.size):
            yield (int(cs.body_A[c]), int(cs.body_B[c]), cs.pos_W[c], np.asarray(cs.frame_W[c, 0], float),
                   float(sol.f_contact[c, 0]))
        return
    model = getattr(plant, "_continuous_contact", None)
    if plant.time_step() == 0 and model is not None:
        for info in model.ContactInfos(context, dyn.kin):
            n = -np.asarray(info.point_pair().nhat_BA_W, float)
            yield (int(info.bodyA_index()), int(info.bodyB_index()), np.asarray(info.contact_point(), float), n,
                   float(np.asarray(info.contact_force(), float) @ n))
