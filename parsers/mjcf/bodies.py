"""Compiling bodies: poses, joints, geoms (sizes, fromto, mesh offsets), sites, and body inertia.

Follows MuJoCo's compiler rules (spec/mjcf.md §7, §17): orientation alternatives, frame
accumulation, geom mass properties, inertia inference, boundmass/boundinertia/balanceinertia,
qpos/qvel address layout and qpos0.
"""
from __future__ import annotations

import math

import numpy as np

from .context import CompileContext
from .errors import MjcfError, error_at
from .inertia import geom_inertia, geom_volume
from .model import JOINT_NQ, JOINT_NV, MjcfBody, MjcfCamera, MjcfGeom, MjcfJoint, MjcfLight, MjcfSite
from .rotations import (MJ_EPS, eig3, frame_accum, quat_conj, full_from6, global_inertia6, offcenter6, quat_to_mat, rotate,
                        z_to_quat)
from .tree import BodyBuild, Placed

_FROMTO_TYPES = ("capsule", "cylinder", "ellipsoid", "box")
def _prefixed(p, asset: str | None) -> str | None:
    """An asset name as the model knows it: an attached sub-model's assets carry its attach prefix."""
    return None if asset is None else p.prefix + asset


_NSIZE = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3, "plane": 0, "hfield": 0,
          "mesh": 0, "sdf": 0}


def _arr(v) -> np.ndarray:
    return np.array(v, dtype=float)


def _name(p: Placed) -> str:
    n = p.attrs.get("name")
    return (p.prefix + n + p.suffix) if n else ""


def _limited(ctx: CompileContext, value: str, rng, where, what: str) -> bool:
    has = not (rng[0] == 0 and rng[1] == 0)
    if value == "auto":
        if not ctx.compiler["autolimits"] and has:
            raise error_at(where, f"{what} range given without {what.split()[-1]}limited='true' while "
                                  f"compiler autolimits is false; set the limited attribute explicitly")
        return has and ctx.compiler["autolimits"]
    return value == "true"


def _pose_with_fromto(ctx: CompileContext, p: Placed, size: list, kind: str):
    a = p.attrs
    if a.get("fromto") is not None:
        if a["type"] not in _FROMTO_TYPES:
            raise error_at(p.where, f"fromto requires a capsule, cylinder, box or ellipsoid {kind}, not {a['type']}")
        if kind == "geom" and any(a["pos"]):
            raise error_at(p.where, "both pos and fromto are defined in geom; give only one")
        ft = _arr(a["fromto"])
        vec = ft[:3] - ft[3:]
        half = math.sqrt(sum(float(x) * float(x) for x in vec)) / 2
        if half < MJ_EPS:
            raise error_at(p.where, "fromto points are too close")
        size[1] = half
        if a["type"] in ("ellipsoid", "box"):
            size[2], size[1] = size[1], size[0]
        pos, quat = (ft[:3] + ft[3:]) / 2, z_to_quat(vec)
    else:
        pos, quat = _arr(a["pos"]), ctx.orientation(a, p.where)
    return pos, quat


def _fit_primitive(ctx: CompileContext, gtype: str, mesh, fitscale: float) -> tuple[list, np.ndarray]:
    """Sizes (and AABB centre offset) of a primitive fitted to a mesh (compiler fitaabb, geom fitscale)."""
    center = np.zeros(3)
    if not ctx.compiler["fitaabb"]:
        b = mesh.inertia_box
        size = {"sphere": lambda: [(b[0] + b[1] + b[2]) / 3, 0.0, 0.0],
                "capsule": lambda: [(b[0] + b[1]) / 2, max(0.0, b[2] - (b[0] + b[1]) / 4), 0.0],
                "cylinder": lambda: [(b[0] + b[1]) / 2, b[2], 0.0]}.get(gtype, lambda: list(b))()
    else:
        lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
        center = (lo + hi) / 2
        s = hi - center
        if gtype == "sphere":
            size = [max(s), 0.0, 0.0]
        elif gtype in ("capsule", "cylinder"):
            size = [max(s[0], s[1]), s[2], 0.0]
            if gtype == "capsule":
                size[1] -= size[0]
        else:
            size = list(s)
    return [v * fitscale for v in size], center


def compile_geom(ctx: CompileContext, p: Placed, bid: int, infer: bool) -> MjcfGeom:
    """Compile one geom: pose in the body frame, sizes and (when it contributes) its mass."""
    a = p.attrs
    gtype = a["type"]
    if a["condim"] not in (1, 3, 4, 6):
        raise error_at(p.where, f"invalid condim {a['condim']} (valid: 1, 3, 4, 6)")
    size = list(a["size"])
    pos, quat = _pose_with_fromto(ctx, p, size, "geom")
    mesh_id = -1
    mesh_vol = 0.0
    box = None
    if a.get("mesh") is not None:
        if a["mesh"] not in ctx.meshes:
            raise error_at(p.where, f"geom references undefined mesh '{a['mesh']}' "
                                    f"(defined: {', '.join(sorted(ctx.meshes)) or 'none'})")
        if a.get("fromto") is not None:
            raise error_at(p.where, "fromto cannot be used with a mesh geom")
        mesh = ctx.mesh_list[ctx.meshes[a["mesh"]]]
        if gtype not in ("mesh", "sdf"):
            size, center = _fit_primitive(ctx, gtype, mesh, a["fitscale"])
            pos, quat = frame_accum(pos, quat, mesh.pos + rotate(mesh.quat, center), mesh.quat)
        elif gtype == "sdf":  # the mesh only shows the SDF surface; the geom frame stays the SDF frame
            mesh_id = ctx.meshes[a["mesh"]]
            if mesh.plugin < 0:
                raise error_at(p.where, f"sdf geom on mesh '{a['mesh']}', which no SDF plugin generates (MuJoCo 4 then "
                                        f"builds the mesh's signed distance field): a MuJoCo 4 feature mallard does not "
                                        f"support yet; give the mesh an SDF <plugin> child or use type=\"mesh\"")
            size = list(np.max(np.abs(mesh.vertices), axis=0))
            mesh_vol, box = mesh.volume, mesh.inertia_box  # MuJoCo: mass and box inertia from that mesh
        else:
            if a["shellinertia"] == "true":
                raise error_at(p.where, "for mesh geoms, shell inertia is set on the mesh asset (inertia='shell')")
            mesh_id = ctx.meshes[a["mesh"]]
            pos, quat = frame_accum(pos, quat, mesh.pos, mesh.quat)
            mesh_vol, box = mesh.volume, mesh.inertia_box
            size = list(np.max(np.abs(mesh.vertices), axis=0))
    elif gtype == "mesh":
        raise error_at(p.where, "mesh geom needs a 'mesh' attribute naming a mesh asset")
    if gtype == "hfield":
        hf = ctx.hfields.get(a.get("hfield") or "")
        if hf is None:
            raise error_at(p.where, f"hfield geom references undefined hfield '{a.get('hfield')}'")
        s = hf["size"]
        size = [s[0], s[1], 0.25 * s[2] + 0.5 * s[3]]
    for k in range(_NSIZE.get(gtype, 0)):
        if size[k] <= 0:
            raise error_at(p.where, f"geom size[{k}] must be positive for type {gtype} (got {size[k]})")
    if gtype == "plane" and (size[0] < 0 or size[1] < 0 or size[2] < 0):
        raise error_at(p.where, "plane sizes cannot be negative")
    mass = 0.0
    inertia = np.zeros(3)
    shell = a["shellinertia"] == "true"
    if infer and gtype == "sdf" and mesh_id < 0:
        if bid != 0 and (a.get("mass") or a["density"]):
            ctx.warn(p.where, "sdf geoms do not contribute mass or inertia (their surface is implicit); give the "
                              "body an <inertial> element", "sdf_mass")
        infer = False
    if infer:
        try:
            vol = geom_volume(gtype, size, shell, mesh_vol)
            if a.get("mass") is not None:
                if a["mass"] < 0:
                    raise error_at(p.where, f"geom mass cannot be negative (got {a['mass']})")
                if a["mass"] != 0 and vol > MJ_EPS:
                    mass = a["mass"]
                    inertia = geom_inertia(gtype, size, mass, shell, box)
            else:
                if a["density"] < 0:
                    raise error_at(p.where, f"geom density cannot be negative (got {a['density']})")
                if a["density"] != 0:
                    mass = a["density"] * vol
                    inertia = geom_inertia(gtype, size, mass, shell, box)
        except MjcfError:
            raise
        except ValueError as exc:  # unsupported shell inertia for this shape
            raise error_at(p.where, str(exc)) from None
    pos, quat = frame_accum(p.fpos, p.fquat, pos, quat)
    g = MjcfGeom(_name(p), gtype, bid, _arr(size), pos, quat, a["contype"], a["conaffinity"], a["condim"],
                 a["priority"], _arr(a["friction"]), a["solmix"], _arr(a["solref"]), _arr(a["solimp"]),
                 a["margin"], a["gap"], a["group"], _arr(a["rgba"]), _prefixed(p, a.get("material")), mesh_id,
                 _prefixed(p, a.get("hfield")), mass, inertia, a["fluidshape"], _arr(a["fluidcoef"]), tuple(a.get("user") or ()),
                 p.where)
    return g


def compile_site(ctx: CompileContext, p: Placed, bid: int) -> MjcfSite:
    """Compile one site: pose in the body frame (fromto supported), size and rendering data."""
    a = p.attrs
    size = list(a["size"])
    pos, quat = _pose_with_fromto(ctx, p, size, "site")
    pos, quat = frame_accum(p.fpos, p.fquat, pos, quat)
    return MjcfSite(_name(p), a["type"], bid, _arr(size), pos, quat, a["group"], _arr(a["rgba"]),
                    tuple(a.get("user") or ()), p.where)


def _body_inertia(ctx: CompileContext, b: BodyBuild, geoms: list[MjcfGeom], raw_quat: np.ndarray):
    comp = ctx.compiler
    mode = comp["inertiafromgeom"]
    explicit = b.inertial
    mass, ipos, iquat, inertia = 0.0, None, None, np.zeros(3)
    if explicit is not None and mode != "true":
        w = explicit["__where__"]
        mass = explicit["mass"]
        ipos = _arr(explicit["pos"])
        iquat = ctx.orientation(explicit, w)
        full = explicit.get("fullinertia")
        diag = explicit.get("diaginertia")
        if full is not None:
            if explicit["__orient__"] != "quat":
                raise error_at(w, "fullinertia and an inertial orientation cannot both be specified")
            if diag is not None and any(diag):
                raise error_at(w, "fullinertia and diaginertia cannot both be specified")
            m = np.array([[full[0], full[3], full[4]], [full[3], full[1], full[5]], [full[4], full[5], full[2]]])
            inertia, iquat = eig3(m)
            if inertia[2] < MJ_EPS:
                raise error_at(w, "fullinertia must have positive eigenvalues")
        elif diag is not None:
            inertia = _arr(diag)
        else:
            raise error_at(w, "inertial needs diaginertia or fullinertia")
        if mass < 0:
            raise error_at(w, f"mass cannot be negative (got {mass})")
    elif mode != "false" or explicit is not None:
        lo, hi = comp["inertiagrouprange"]
        sel = [g for g in geoms if lo <= g.group <= hi and g.mass > MJ_EPS]
        if len(sel) == 1:
            g = sel[0]
            mass, ipos, iquat, inertia = g.mass, g.pos.copy(), g.quat.copy(), g.inertia.copy()
        elif sel:
            mass = 0.0
            com = [0.0, 0.0, 0.0]
            for g in sel:
                mass += g.mass
                for k in range(3):
                    com[k] += g.mass * float(g.pos[k])
            ipos = np.array([c / mass for c in com])
            tot = [0.0] * 6
            for g in sel:
                d = [float(g.pos[k]) - ipos[k] for k in range(3)]
                i0 = global_inertia6([float(v) for v in g.inertia], g.quat)
                i1 = offcenter6(g.mass, d)
                tot = [tot[k] + i0[k] + i1[k] for k in range(6)]
            inertia, iquat = eig3(full_from6(tot))
            if inertia[2] < MJ_EPS:
                raise error_at(b.where, "body inertia computed from geoms is not positive definite")
    elif explicit is None:
        raise error_at(b.where, "body has no <inertial> and compiler inertiafromgeom is false")
    if ipos is None:
        # MuJoCo copies the body frame (before frame accumulation) into an undefined inertial frame
        ipos, iquat = _arr(b.attrs.get("pos") or (0, 0, 0)), raw_quat.copy()
    mass = max(mass, comp["boundmass"])
    inertia = np.maximum(inertia, comp["boundinertia"])
    if mass < 0 or np.any(inertia < 0):
        raise error_at(b.where, "mass and inertia cannot be negative")
    i0, i1, i2 = inertia
    if i0 + i1 < i2 or i0 + i2 < i1 or i1 + i2 < i0:
        if comp["balanceinertia"]:
            inertia = np.full(3, inertia.sum() / 3.0)
        else:
            raise error_at(b.where, "inertia must satisfy A + B >= C; use compiler balanceinertia='true' to fix")
    return mass, ipos, iquat, inertia


def compile_joint(ctx: CompileContext, p: Placed, bid: int, qadr: int, dadr: int, body_pos, body_quat):
    """Compile one joint: axis/pos in the body frame, angles in radians, limit flags and qpos0."""
    a = p.attrs
    jtype = a["type"]
    w = p.where
    axis = _arr(a["axis"])
    pos = _arr(a["pos"])
    rng = list(a["range"])
    ref, springref = a["ref"], a["springref"]
    if jtype in ("hinge", "slide"):
        n = float(np.linalg.norm(axis))
        if n < 1e-14:
            raise error_at(w, "joint axis is too small")
        axis = axis / n
    else:
        axis = np.array([0.0, 0.0, 1.0])
    if jtype == "hinge":
        rng = [ctx.angle(r) for r in rng]
        ref, springref = ctx.angle(ref), ctx.angle(springref)
    elif jtype == "ball":
        rng = [ctx.angle(r) for r in rng]
    limited = _limited(ctx, a["limited"], a["range"], w, "joint")
    if jtype == "free":
        limited = False
        pos = np.zeros(3)
    if limited and jtype != "ball" and rng[0] >= rng[1]:
        raise error_at(w, f"joint range[0] must be smaller than range[1] when limited (got {a['range']})")
    if limited and jtype == "ball" and rng[0] != 0:
        raise error_at(w, "ball joint range[0] must be 0 (only range[1], the maximum angle, is used)")
    afl = _limited(ctx, a["actuatorfrclimited"], a["actuatorfrcrange"], w, "joint actuatorfrc")
    if afl and a["actuatorfrcrange"][0] > a["actuatorfrcrange"][1]:
        raise error_at(w, "actuatorfrcrange[0] must not exceed actuatorfrcrange[1]")
    pos = p.fpos + rotate(p.fquat, pos) if jtype != "free" else pos
    axis = rotate(p.fquat, axis) if jtype in ("hinge", "slide") else axis
    if jtype == "free":
        qpos0 = np.concatenate([body_pos, body_quat])
        qspring = qpos0.copy()
    elif jtype == "ball":
        qpos0 = np.array([1.0, 0, 0, 0])
        qspring = qpos0.copy()
    else:
        qpos0, qspring = np.array([ref]), np.array([springref])
    for k in ("stiffness", "damping", "armature", "frictionloss"):
        if a[k] < 0:
            raise error_at(w, f"joint {k} cannot be negative (got {a[k]})")
    return MjcfJoint(_name(p), jtype, bid, pos, axis, _arr(rng), limited, a["stiffness"], springref, a["damping"],
                     a["armature"], a["frictionloss"], a["margin"], ref, _arr(a["solreflimit"]),
                     _arr(a["solimplimit"]), _arr(a["solreffriction"]), _arr(a["solimpfriction"]),
                     _arr(a["actuatorfrcrange"]), afl, a["actuatorgravcomp"] == "true", a["group"], qadr, dadr,
                     qpos0, qspring, _arr(a["springdamper"]), tuple(a.get("user") or ()), w)


def _align_free(ctx: CompileContext, b: BodyBuild, bid: int, has_children: bool) -> bool:
    """Free-joint alignment applies to a childless body whose only joint is free (align or alignfree)."""
    if bid == 0 or has_children or len(b.joints) != 1 or b.joints[0].attrs["type"] != "free":
        return False
    align = b.joints[0].attrs.get("__align__", "auto")
    return align == "true" or (align == "auto" and (b.joints[0].ctx or ctx).compiler["alignfree"])


def compile_bodies(ctx0: CompileContext, builds: list[BodyBuild]):
    """Compile all bodies and their elements; returns (bodies, joints, geoms, sites, cameras, lights).

    Each body is compiled with the context of the model it comes from (attached sub-models keep
    their own compiler settings and default classes).
    """
    bodies, joints, geoms, sites, cams, lights = [], [], [], [], [], []
    qadr = dadr = 0
    parents = {b.parent for b in builds}
    for bid, b in enumerate(builds):
        has_children = bid in parents
        ctx = ctx0
        if bid == 0:
            pos, quat = np.zeros(3), np.array([1.0, 0, 0, 0])
        else:
            a = b.attrs
            ctx = b.ctx or ctx0
            raw_quat = ctx.orientation(a, b.where)
            pos, quat = frame_accum(b.fpos, b.fquat, _arr(a.get("pos") or (0, 0, 0)), raw_quat)
        body_geoms = []
        for p in b.geoms:
            pc = p.ctx or ctx
            infer = bid > 0 and (b.inertial is None or ctx.compiler["inertiafromgeom"] == "true") and \
                ctx.compiler["inertiagrouprange"][0] <= p.attrs["group"] <= ctx.compiler["inertiagrouprange"][1]
            body_geoms.append(compile_geom(pc, p, bid, infer))
        if bid == 0:
            mass, ipos, iquat, inertia = 0.0, np.zeros(3), np.array([1.0, 0, 0, 0]), np.zeros(3)
        else:
            mass, ipos, iquat, inertia = _body_inertia(ctx, b, body_geoms, raw_quat)
        align = _align_free(ctx, b, bid, has_children)
        if align:  # free-joint alignment: the body frame becomes the inertial frame
            pos, quat = frame_accum(pos, quat, ipos, iquat)
            inv_q = quat_conj(iquat)
            inv = (-rotate(inv_q, ipos), inv_q)
            ipos, iquat = np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])
            for g in body_geoms:
                g.pos, g.quat = frame_accum(inv[0], inv[1], g.pos, g.quat)
        parent = b.parent
        mocap = b.attrs.get("mocap") == "true"
        if mocap and (parent != 0 or b.joints):
            raise error_at(b.where, "mocap bodies must be children of the world body and have no joints")
        weld = bid if (b.joints or mocap or bid == 0) else bodies[parent].weldid
        root = 0 if bid == 0 else (bid if parent == 0 else bodies[parent].rootid)
        body = MjcfBody(b.name if bid else "world", max(parent, 0), pos, quat, mass, _arr(ipos), _arr(iquat), _arr(inertia),
                        mocap, b.attrs.get("gravcomp", 0.0) or 0.0, weld, root, user=tuple(b.attrs.get("user") or ()),
                        where=b.where)
        types = [p.attrs["type"] for p in b.joints]
        if "free" in types and (parent != 0 or len(types) > 1):
            raise error_at(b.where, "a free joint is only allowed alone in a body that is a child of the world")
        if "ball" in types and (types.count("ball") > 1 or "hinge" in types):
            raise error_at(b.where, "a body with a ball joint cannot have other rotational joints")
        body.jntadr = len(joints) if b.joints else -1
        body.jntnum = len(b.joints)
        body.dofadr = dadr if b.joints else -1
        for p in b.joints:
            j = compile_joint(p.ctx or ctx, p, bid, qadr, dadr, pos, quat)
            joints.append(j)
            qadr += JOINT_NQ[j.type]
            dadr += JOINT_NV[j.type]
        body.dofnum = dadr - (body.dofadr if body.dofadr >= 0 else dadr)
        if body.dofnum > 6:
            raise error_at(b.where, "a body cannot have more than 6 degrees of freedom")
        bodies.append(body)
        for g in body_geoms:
            if g.type == "plane" and weld != 0 and not bodies[weld].mocap:
                raise error_at(g.where, "plane geoms are only allowed in static bodies (world or welded to it)")
        geoms.extend(body_geoms)
        body.geomadr = len(geoms) - len(body_geoms) if body_geoms else -1
        body.geomnum = len(body_geoms)
        new_sites = [compile_site(p.ctx or ctx, p, bid) for p in b.sites]
        new_cams, new_lights = [], []
        for p in b.cameras:
            pc = p.ctx or ctx
            cpos, cquat = frame_accum(p.fpos, p.fquat, _arr(p.attrs["pos"]), pc.orientation(p.attrs, p.where))
            new_cams.append(MjcfCamera(_name(p), bid, cpos, cquat, {k: v for k, v in p.attrs.items() if "__" not in k}))
        for p in b.lights:
            lpos = p.fpos + rotate(p.fquat, _arr(p.attrs["pos"]))
            ldir = rotate(p.fquat, _arr(p.attrs["dir"]))
            n = float(np.linalg.norm(ldir))
            if n < MJ_EPS:
                raise error_at(p.where, "light dir must be a non-zero vector")
            ldir = ldir / n
            new_lights.append(MjcfLight(_name(p), bid, lpos, ldir, {k: v for k, v in p.attrs.items() if "__" not in k}))
        if align:
            for el in new_sites + new_cams:
                el.pos, el.quat = frame_accum(inv[0], inv[1], el.pos, el.quat)
            for el in new_lights:
                el.pos, el.dir = inv[0] + rotate(inv[1], el.pos), rotate(inv[1], el.dir)
        sites.extend(new_sites)
        cams.extend(new_cams)
        lights.extend(new_lights)
    return bodies, joints, geoms, sites, cams, lights


def body_world_poses(bodies: list[MjcfBody]) -> tuple[np.ndarray, np.ndarray]:
    """World positions (n,3) and rotation matrices (n,3,3) of all body frames at qpos0."""
    n = len(bodies)
    xpos = np.zeros((n, 3))
    xmat = np.zeros((n, 3, 3))
    xmat[0] = np.eye(3)
    for i in range(1, n):
        p = bodies[i].parent
        r = quat_to_mat(bodies[i].quat)
        xpos[i] = xpos[p] + xmat[p] @ bodies[i].pos
        xmat[i] = xmat[p] @ r
    return xpos, xmat
