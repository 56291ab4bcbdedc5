"""The MJCF compiler: validated element tree -> `MjcfModel` (MuJoCo's compile semantics).

Order (spec/mjcf.md Appendix B): compiler/option/size sections, default classes, assets, the
kinematic tree, then tendons, actuators, equalities, contacts, sensors and keyframes; finally the
mass post-processing (settotalmass) and the qpos0-dependent constants MuJoCo's mj_setConst fills in
(dof_M0, invweight0, springdamper, tendon lengths, eq_data, dampratio, acc0), and last the actuator
length ranges MuJoCo computes by simulation (compiler/lengthrange, lengthrange.py). compiler fusestatic
merges static bodies into their parents right after the tree is compiled (fuse.py).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from scipy.linalg import lu_factor, lu_solve

from .actuators import apply_dampratio, compile_actuators
from .assets import read_assets
from .attach import PrefixedNames, attach_submodel
from .bodies import body_world_poses, compile_bodies
from .constraints import compile_contacts, compile_equalities, compile_tendons
from .context import CompileContext
from .defaults import DefaultClasses
from .errors import error_at
from .finite_check import check_finite_elements
from .fuse import fuse_static
from .mass_check import check_finite_bodies, check_mass_matrix, check_moving_bodies
from .model import JOINT_NQ, JOINT_NV, MjcfModel
from .reader import Element, read_mjcf
from .reference_inertia import composite_inertias, dof_axes, dof_m0, mass_matrix0, tree_pattern
from .setconst import (apply_springdamper, body_simple, equality_data, forward_kinematics, invweights,
                       site_positions, tendon_length)
from .plugins import bind as bind_plugins
from .plugins import read_extension
from .references import Names
from .replicate_refs import expand_replicate_references
from .sections import check_flags, read_compiler, read_misc, read_option
from .attach_keys import merge_attached_keys
from .sensors import compile_keys, compile_sensors
from .transmission import tendon_jacobian0
from .tree import TreeWalker


def compile_model(root: Element, model_dir: Path, strict: bool = False) -> MjcfModel:
    """Compile a validated <mujoco> tree into an MjcfModel."""
    expand_replicate_references(root)
    compiler = read_compiler(root)
    option, option_secs = read_option(root)
    size, statistic, visual, custom = read_misc(root)
    defaults = DefaultClasses(root.find_all("default"))
    ctx = CompileContext(compiler, defaults, model_dir, strict)
    check_flags(ctx, option, option_secs)
    ctx.plugins = read_extension(root)
    read_assets(ctx, root)
    walker = TreeWalker(ctx, attach_handler=attach_submodel)
    builds = walker.walk(root.find_all("worldbody"))
    bodies, joints, geoms, sites, cams, lights = compile_bodies(ctx, builds)
    if compiler["discardvisual"]:
        geoms = _discard_visual(root, ctx, bodies, geoms)
    if compiler["fusestatic"]:  # static bodies merged into their parents (fuse.py)
        bodies, joints, geoms, sites, cams, lights = fuse_static(
            ctx, [(root, lambda n: n)] + [(a.root, a.affix) for a in ctx.attached], bodies, joints, geoms, sites, cams,
            lights)
    names = Names()
    names.ignored_generators = _ignored_generators(root)
    names.add("body", bodies)
    names.add("joint", joints)
    names.add("geom", geoms)
    names.add("site", sites)
    names.add("camera", cams, lambda it: None)
    for g in geoms:
        if g.material is not None and g.material not in ctx.materials:
            raise error_at(g.where, f"geom references undefined material '{g.material}'")
    subs = [(ctx, root, names, None)] + [(a.ctx, a.root, PrefixedNames(names, a.prefix, a.suffix), a.affix)
                                          for a in ctx.attached]
    tendons = _gather(subs, lambda c, r, n: compile_tendons(c, r, n, joints))
    names.add("tendon", tendons)
    actuator_ranges: list[range] = []
    actuators = _gather(subs, lambda c, r, n: compile_actuators(c, r, n, joints, tendons), actuator_ranges)
    names.add("actuator", actuators)
    equalities = _gather(subs, lambda c, r, n: compile_equalities(c, r, n))
    contacts = [compile_contacts(c, r, n) for c, r, n, _ in subs]
    pairs = [p for cp in contacts for p in cp[0]]
    excludes = [e for cp in contacts for e in cp[1]]
    sensors = _gather(subs, lambda c, r, n: compile_sensors(r, n, joints, c))
    for s in sensors:  # MuJoCo 4: an actuator sensor has one value per actuator output (3 for an so3 servo)
        if s.type in ("actuatorpos", "actuatorvel", "actuatorfrc") and s.objid >= 0:
            s.dim = int(getattr(actuators[s.objid], "outnum", 1))
    plugins = bind_plugins(ctx, root, bodies, geoms, actuators, sensors)
    total = sum(b.mass for b in bodies[1:])
    if compiler["settotalmass"] > 0 and total > 0:
        scale = compiler["settotalmass"] / total
        for b in bodies[1:]:
            b.mass *= scale
            b.inertia = b.inertia * scale
    check_finite_bodies(bodies, geoms)
    check_finite_elements({"joint": joints, "geom": geoms, "site": sites, "tendon": tendons, "actuator": actuators,
                           "equality": equalities, "sensor": sensors, "pair": pairs, "body": bodies})
    check_moving_bodies(bodies)
    nq = sum(JOINT_NQ[j.type] for j in joints)
    nv = sum(JOINT_NV[j.type] for j in joints)
    qpos0 = np.concatenate([j.qpos0 for j in joints]) if joints else np.zeros(0)
    qspring = np.concatenate([j.qpos_spring for j in joints]) if joints else np.zeros(0)
    m0, dof_inv, body_inv, simple = _set_constants(ctx, bodies, joints, geoms, sites, tendons, equalities,
                                                   actuators, qpos0, qspring)
    na = sum(a.actdim for a in actuators)
    nctrl = sum(getattr(a, "ctrlnum", 1) for a in actuators)  # MuJoCo's nu: an orientation servo has 3-4 controls
    keys = compile_keys(root, size, qpos0, nv, na, nctrl, bodies, joints)
    keys += merge_attached_keys(ctx.attached, builds, joints, actuator_ranges[1:], actuators, bodies, qpos0, nv, na,
                                nctrl)
    model = MjcfModel(
        name=root.get("model", "MuJoCo Model"), option=option, compiler=compiler, bodies=bodies, joints=joints,
        geoms=geoms, sites=sites, cameras=cams, lights=lights, meshes=ctx.mesh_list, tendons=tendons,
        actuators=actuators, equalities=equalities, pairs=pairs, excludes=excludes, sensors=sensors, keys=keys,
        nq=nq, nv=nv, na=na, qpos0=qpos0, qpos_spring=qspring, dof_M0=m0, dof_invweight0=dof_inv,
        body_invweight0=body_inv, body_simple=simple, size=size, statistic=statistic,
        visual=visual, custom=custom, materials=ctx.materials, textures=ctx.textures, hfields=ctx.hfields,
        unsupported=ctx.unsupported, plugins=plugins)
    pending = _lengthranges(ctx, actuators, joints, tendons, model)
    if pending:  # MuJoCo's simulation-based estimate (after mj_setConst, as mj_compile runs it)
        from .lengthrange import compute_lengthranges
        compute_lengthranges(model, pending, ctx.compiler["lengthrange"])
    return model


def _set_constants(ctx, bodies, joints, geoms, sites, tendons, equalities, actuators, qpos0, qspring):
    """The qpos0-dependent constants of MuJoCo's mj_setConst: dof_M0, inverse weights, springdamper,
    tendon lengths, eq_data, dampratio and acc0. Returns (dof_M0, dof_invweight0, body_invweight0,
    body_simple)."""
    poses = body_world_poses(bodies)  # qpos0 kinematics shared by the constants below
    axes = dof_axes(bodies, joints, poses)
    comp = composite_inertias(bodies, poses)
    m0 = dof_m0(bodies, joints, axes, comp)
    mass = mass_matrix0(bodies, joints, axes, comp)
    pattern = tree_pattern(bodies, joints, axes)
    for i, t in enumerate(tendons):
        t.jacobian0 = tendon_jacobian0(t, bodies, joints, sites, geoms, poses, axes)
        if not np.all(np.isfinite(t.jacobian0)):
            raise error_at(t.where, f"tendon '{t.name or i}': its length or Jacobian at qpos0 is not finite (a site, "
                                    "geom or joint on its path is too far out, e.g. at 1e308)")
        if t.armature > 0:  # only entries inside the tree sparsity pattern exist in MuJoCo's inertia matrix
            mass = mass + t.armature * np.outer(t.jacobian0, t.jacobian0) * pattern
    check_mass_matrix(mass, joints, bodies)
    simple = body_simple(bodies, joints, tendons, sites, geoms)
    dof_inv, body_inv = invweights(bodies, joints, mass, simple, poses, axes)
    apply_springdamper(joints, dof_inv)
    xpos, xquat = forward_kinematics(bodies, joints, qpos0, qpos0)
    _tendon_constants(tendons, bodies, joints, sites, geoms, qpos0, qspring, mass, (xpos.copy(), xquat.copy()))
    for e in equalities:
        e.data = equality_data(e, xpos, xquat)
    apply_dampratio(actuators, bodies, joints, tendons, sites, mass, ctx)
    return m0, dof_inv, body_inv, simple


def _referenced_geoms(root: Element) -> set[str]:
    names: set[str] = set()
    for sec in ("contact", "sensor", "tendon"):
        for s in root.find_all(sec):
            stack = list(s.children)
            while stack:
                el = stack.pop()
                stack.extend(el.children)
                for attr in ("geom1", "geom2", "geom"):
                    if isinstance(el.attrs.get(attr), str):
                        names.add(el.attrs[attr])
    return names


def _discard_visual(root: Element, ctx: CompileContext, bodies, geoms):
    """compiler discardvisual: drop geoms with contype = conaffinity = 0 that nothing references.

    Body inertias were already computed with them, as MuJoCo does (it makes the inertial explicit).
    """
    used = _referenced_geoms(root)
    for a in ctx.attached:
        used |= {a.affix(n) for n in _referenced_geoms(a.root)}
    keep = [g for g in geoms if g.contype or g.conaffinity or (g.name and g.name in used)]
    for b in bodies:
        mine = [g for g in keep if g.body is not None and bodies[g.body] is b]
        b.geomnum = len(mine)
        b.geomadr = keep.index(mine[0]) if mine else -1
    return keep


def _tendon_constants(tendons, bodies, joints, sites, geoms, qpos0, qspring, mass, frames0=None) -> None:
    """Tendon length at qpos0 and qpos_spring (springlength -1 -1), and tendon invweight0.

    `frames0`: forward_kinematics(bodies, joints, qpos0, qpos0) when the caller has it."""
    if not tendons:
        return
    xpos, xquat = frames0 if frames0 is not None else forward_kinematics(bodies, joints, qpos0, qpos0)
    sp0 = site_positions(sites, xpos, xquat)
    spring: tuple | None = None  # kinematics at qpos_spring, computed once a tendon needs its spring length
    lu = lu_factor(mass) if len(mass) else None  # one LU (as np.linalg.solve's) for every tendon
    for t in tendons:
        t.length0 = tendon_length(t, qpos0, joints, sp0, geoms, sites, xpos, xquat)
        if t.lengthspring[0] == -1 and t.lengthspring[1] == -1:
            if t.kind == "fixed":  # a fixed tendon's length needs qpos only
                xpos_s = xquat_s = sps = None
            else:
                if spring is None:
                    xpos_s, xquat_s = forward_kinematics(bodies, joints, qspring, qpos0)
                    spring = (xpos_s, xquat_s, site_positions(sites, xpos_s, xquat_s))
                xpos_s, xquat_s, sps = spring
            ls = tendon_length(t, qspring, joints, sps, geoms, sites, xpos_s, xquat_s)
            if ls is not None:
                t.lengthspring = np.array([ls, ls])
        if t.jacobian0 is not None and len(mass):
            t.invweight0 = float(t.jacobian0 @ lu_solve(lu, t.jacobian0))


def _gather(subs, compile_one, ranges: list | None = None) -> list:
    """Compile one section for the model and each attached sub-model; affix the sub-models' names. `ranges`
    receives the range of the result each of `subs` gave."""
    out = []
    for c, r, n, affix in subs:
        items = compile_one(c, r, n)
        if ranges is not None:
            ranges.append(range(len(out), len(out) + len(items)))
        for it in items:
            if affix is not None and it.name:
                it.name = affix(it.name)
        out.extend(items)
    return out


def _lengthranges(ctx: CompileContext, actuators, joints, tendons, model=None) -> list[int]:
    """compiler/lengthrange: keep existing ranges, copy joint/tendon limits (uselimit); returns the actuators
    whose range MuJoCo computes by simulation (lengthrange.py), warning for transmissions it cannot measure."""
    from .lengthrange import LengthRangeSupported
    lr = ctx.compiler["lengthrange"]
    mode = lr["mode"]
    pending = []
    for i, a in enumerate(actuators):
        is_muscle = "muscle" in (a.gaintype, a.biastype)
        is_user = "user" in (a.gaintype, a.biastype)
        if mode == "none" or (mode == "muscle" and not is_muscle) or (mode == "muscleuser" and not (is_muscle or is_user)):
            continue
        if lr["useexisting"] == "true" and a.lengthrange[0] < a.lengthrange[1]:
            continue
        tid = a.trnid[0]
        if lr["uselimit"] == "true":
            if a.trntype in ("joint", "jointinparent") and joints[tid].limited:
                a.lengthrange = joints[tid].range.copy()
                continue
            if a.trntype == "tendon" and tendons[tid].limited:
                a.lengthrange = tendons[tid].range.copy()
                continue
        if model is not None and LengthRangeSupported(model, a):
            pending.append(i)
        else:
            ctx.warn(a.where, f"actuator lengthrange by simulation (compiler/lengthrange) is not available for a "
                              f"'{a.trntype}' transmission of this kind; give lengthrange explicitly or use "
                              "lengthrange uselimit='true'", "lengthrange")
        if is_muscle and a.gainprm[2] < 0 and a.acc0 is None:
            ctx.warn(a.where, "muscle force < 0 means F0 = scale/actuator_acc0, but acc0 is not computed for this "
                              "transmission; give force explicitly", "muscle_acc0")
    return pending


def load_mjcf(source: str | os.PathLike, *, strict: bool = False, base_dir: str | os.PathLike | None = None
              ) -> MjcfModel:
    """Read and compile an MJCF model from a file path or an XML string.

    `strict` turns unsupported-feature warnings into MjcfError. `base_dir` sets the directory used
    for includes and asset files when `source` is an XML string (default: the current directory).
    Raises MjcfError (a ValueError) naming file, line and element for any invalid model.
    """
    root, model_dir = read_mjcf(source, strict=strict, base_dir=base_dir)
    return compile_model(root, model_dir, strict)


def _ignored_generators(root: Element) -> list:
    """(where, name prefix) of every <flexcomp> (its name) and <composite> (its prefix) in the tree: elements kept
    but ignored, whose generated bodies, joints and geoms a reference may name."""
    out, stack = [], [root]
    while stack:
        el = stack.pop()
        if el.tag in ("flexcomp", "composite"):
            out.append((el.where, str(el.get("name" if el.tag == "flexcomp" else "prefix", "") or "")))
        stack.extend(reversed(el.children))
    return out

