"""compiler fusestatic: bodies without joints merged into their parents, as MuJoCo's compiler does it.

MuJoCo's rules (mjCModel::FuseStatic, run after the bodies are compiled and before any reference is resolved):

* bodies are visited in tree order; a body with joints or a mocap body is kept;
* a named body that another element names (camera/light target, contact exclude, equality, actuator,
  sensor, custom tuple, skin bone) is kept, and so is the body of a site that a force/torque sensor reads;
* a fused body's mass and inertia are added to its parent's (unless the parent is the world, which has no
  mass) with the parallel-axis theorem and re-diagonalised into a principal frame;
* its geoms, sites, cameras and lights move to the parent (appended after the parent's own, frames
  composed with the body's pose) and its child bodies take its place in the parent's child list;
* ids are then renumbered in tree order (bodies, geoms, sites, cameras, lights; joints keep their order).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .reader import Element
from .rotations import eig3, frame_accum, full_from6, global_inertia6, offcenter6, rotate

__all__ = ["fuse_static"]

_MJ_MINVAL = 1e-15
_BODY_ATTRS = ("body", "body1", "body2", "target", "subtree1", "subtree2")


def _walk(el: Element):
    stack = [el]
    while stack:
        e = stack.pop()
        yield e
        stack.extend(e.children)


def _referenced_body_names(roots: list[tuple[Element, Callable[[str], str]]]) -> tuple[set, set]:
    """(body names other elements refer to, site names read by force/torque sensors), sub-model affixes applied."""
    names, ft_sites = set(), set()
    for root, affix in roots:
        for el in _walk(root):
            if el.tag == "body":
                continue  # a body's own attributes name no other body
            for attr in _BODY_ATTRS:
                v = el.attrs.get(attr)
                if isinstance(v, str) and v:
                    names.add(affix(v))
            for obj, typ in (("objname", "objtype"), ("refname", "reftype")):
                v = el.attrs.get(obj)
                if isinstance(v, str) and v and el.attrs.get(typ) in ("body", "xbody"):
                    names.add(affix(v))
            if el.tag in ("force", "torque") and isinstance(el.attrs.get("site"), str):
                ft_sites.add(affix(el.attrs["site"]))
    return names, ft_sites


def _accumulate_inertia(parent, child) -> None:
    """Add `child`'s mass properties (its inertial frame expressed in the parent) to `parent` (MuJoCo's
    mjCBody::AccumulateInertia)."""
    c_ipos, c_iquat = frame_accum(child.pos, child.quat, child.ipos, child.iquat)
    masses = (float(parent.mass), float(child.mass))
    iposes = (np.asarray(parent.ipos, float), np.asarray(c_ipos, float))
    quats = (np.asarray(parent.iquat, float), np.asarray(c_iquat, float))
    inertias = (np.asarray(parent.inertia, float), np.asarray(child.inertia, float))
    total = masses[0] + masses[1]
    if total < _MJ_MINVAL:
        parent.mass, parent.inertia = 0.0, np.zeros(3)
        parent.ipos, parent.iquat = np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])
        return
    com = np.zeros(3)
    for k in range(3):
        com[k] = (masses[0] * iposes[0][k] + masses[1] * iposes[1][k]) / total
    tot = [0.0] * 6
    for j in range(2):
        a = global_inertia6([float(v) for v in inertias[j]], quats[j])
        b = offcenter6(masses[j], [float(v) for v in iposes[j] - com])
        tot = [tot[k] + a[k] + b[k] for k in range(6)]
    moments, iquat = eig3(full_from6(tot))
    parent.mass, parent.ipos, parent.iquat, parent.inertia = total, com, iquat, np.asarray(moments, float)


def fuse_static(ctx, roots: list[tuple[Element, Callable[[str], str]]], bodies, joints, geoms, sites, cams, lights):
    """Apply compiler fusestatic to the compiled tree; returns the new (bodies, joints, geoms, sites, cameras,
    lights) with ids renumbered. `roots`: the model's and attached sub-models' roots with the functions that
    affix their names."""
    referenced, ft_sites = _referenced_body_names(roots)
    ft_bodies = {s.body for s in sites if s.name and s.name in ft_sites}
    plugin_bodies = {bid for bid, _ in ctx.body_plugins}
    n = len(bodies)
    children = [[] for _ in range(n)]
    for b in range(1, n):
        children[bodies[b].parent].append(b)
    own = {kind: [[] for _ in range(n)] for kind in ("geom", "site", "cam", "light", "joint")}
    for kind, items in (("geom", geoms), ("site", sites), ("cam", cams), ("light", lights), ("joint", joints)):
        for it in items:
            own[kind][it.body].append(it)
    alive = [True] * n
    for b in range(1, n):  # tree order: a fused body's children are visited after it, in its parent's list
        body = bodies[b]
        if body.jntnum > 0 or body.mocap or b in ft_bodies or b in plugin_bodies:
            continue
        if body.name and body.name in referenced:
            continue
        p = body.parent
        parent = bodies[p]
        if p != 0 and body.mass >= _MJ_MINVAL:
            _accumulate_inertia(parent, body)
        for c in children[b]:
            child = bodies[c]
            child.pos, child.quat = frame_accum(body.pos, body.quat, child.pos, child.quat)
            child.parent = p
        k = children[p].index(b)
        children[p][k:k + 1] = children[b]
        for kind in ("geom", "site", "cam"):
            for it in own[kind][b]:
                it.pos, it.quat = frame_accum(body.pos, body.quat, it.pos, it.quat)
                it.body = p
            own[kind][p].extend(own[kind][b])
            own[kind][b] = []
        for it in own["light"][b]:
            it.pos, it.dir = body.pos + rotate(body.quat, it.pos), rotate(body.quat, it.dir)
            it.body = p
        own["light"][p].extend(own["light"][b])
        own["light"][b] = []
        alive[b] = False
    if all(alive):
        return bodies, joints, geoms, sites, cams, lights
    order = []  # tree order of the remaining bodies
    stack = [0]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children[b]))
    new_id = {old: new for new, old in enumerate(order)}
    out = {kind: [] for kind in own}
    new_bodies = []
    for new, old in enumerate(order):
        body = bodies[old]
        body.parent = new_id[body.parent] if new else 0
        body.weldid = new if (new == 0 or body.jntnum > 0 or body.mocap) else new_bodies[body.parent].weldid
        body.rootid = 0 if new == 0 else (new if body.parent == 0 else new_bodies[body.parent].rootid)
        for kind in own:
            for it in own[kind][old]:
                it.body = new
            out[kind].extend(own[kind][old])
        body.geomadr = len(out["geom"]) - len(own["geom"][old]) if own["geom"][old] else -1
        body.geomnum = len(own["geom"][old])
        new_bodies.append(body)
    ctx.body_plugins[:] = [(new_id[bid], el) for bid, el in ctx.body_plugins]
    return new_bodies, out["joint"], out["geom"], out["site"], out["cam"], out["light"]
