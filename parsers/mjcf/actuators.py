"""Actuators: shortcut expansion to `general`, transmissions, limits, inheritrange and dampratio."""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg import lu_factor, lu_solve

from .bodies import _limited
from .context import CompileContext
from .errors import error_at
from .model import MjcfActuator, MjcfJoint, MjcfTendon
from .plugins import plugin_actdim
from .plugins import resolve as resolve_plugin
from .reader import Element
from .references import Names
from .bodies import body_world_poses
from .reference_inertia import dof_axes
from .transmission import _site_jac, actuator_moment0

_TARGETS = (("joint", "joint", "joint"), ("jointinparent", "jointinparent", "joint"), ("tendon", "tendon", "tendon"),
            ("cranksite", "slidercrank", "site"), ("site", "site", "site"), ("body", "body", "body"))


def _arr(v) -> np.ndarray:
    return np.array(v, dtype=float)


def compile_actuators(ctx: CompileContext, root: Element, names: Names, joints: list[MjcfJoint],
                      tendons: list[MjcfTendon]) -> list[MjcfActuator]:
    """All actuators in document order, shortcuts expanded exactly as MuJoCo's parser does."""
    out = []
    actadr = 0
    for sec in root.find_all("actuator"):
        for el in sec.children:
            if el.key == "t3":
                continue
            iid = -1
            if el.tag == "plugin":
                what = f"actuator '{el.get('name') or 'plugin'}'"
                iid = resolve_plugin(ctx, el, "actuator", what)
                general = {k: v for k, v in el.attrs.items() if k not in ("plugin", "instance")}
                s = ctx.defaults.actuator(Element("general", "general", general, el.where, []), "main")
            else:
                s = ctx.defaults.actuator(el, "main")
            what = f"actuator '{s.get('name') or el.tag}'"
            given = [(attr, trn, kind) for attr, trn, kind in _TARGETS if attr in el.attrs]
            if len(given) > 1:
                raise error_at(el.where, f"{what}: give exactly one transmission target "
                                         f"(got {', '.join(g[0] for g in given)})")
            if given:
                attr, trntype, kind = given[0]
                tid = names.id(kind, s[attr], el.where, what)
            else:
                trntype, tid = "undefined", -1
            if ("cranklength" in el.attrs or "slidersite" in el.attrs) and trntype != "slidercrank":
                raise error_at(el.where, f"{what}: cranklength and slidersite need a cranksite transmission")
            if "refsite" in el.attrs and trntype != "site":
                raise error_at(el.where, f"{what}: refsite can only be used with a site transmission")
            tid2 = -1
            if trntype == "slidercrank":
                tid2 = names.id("site", s.get("slidersite"), el.where, what)
                if s["cranklength"] <= 0:
                    raise error_at(el.where, f"{what}: slider-crank needs a positive cranklength")
            elif trntype == "site" and s.get("refsite") is not None:
                tid2 = names.id("site", s["refsite"], el.where, what)
            so3 = _check_so3(s, el, what, trntype, tid, tid2, joints)
            for t in ("dyntype", "gaintype", "biastype"):
                if s[t] == "user":
                    ctx.warn(el.where, f"{what}: {t}='user' needs a user callback (tier 3); kept but not simulated",
                             "t3:user")
            _inherit_range(s, el, what, trntype, tid, joints, tendons)
            ctrllim = _limited(ctx, s["ctrllimited"], s["ctrlrange"], el.where, "actuator ctrl")
            forcelim = _limited(ctx, s["forcelimited"], s["forcerange"], el.where, "actuator force")
            actlim = _limited(ctx, s["actlimited"], s["actrange"], el.where, "actuator act")
            if ctrllim and s["ctrlrange"][0] >= s["ctrlrange"][1]:
                raise error_at(el.where, f"{what}: invalid ctrlrange {s['ctrlrange']} (need lower < upper)")
            if forcelim and s["forcerange"][0] > s["forcerange"][1]:
                raise error_at(el.where, f"{what}: invalid forcerange {s['forcerange']}")
            if actlim and s["actrange"][0] > s["actrange"][1]:
                raise error_at(el.where, f"{what}: invalid actrange {s['actrange']}")
            actdim = s["actdim"]
            pdim = 0
            if iid >= 0:  # the plugin's activations first, then one for dyntype (spec §12.4)
                pdim = plugin_actdim(ctx, iid, el.where)
                need = pdim + (0 if s["dyntype"] == "none" else 1)
                if actdim >= 0 and actdim != need:
                    raise error_at(el.where, f"{what}: actdim {actdim} disagrees with the plugin's {pdim} activation(s)"
                                             f" plus {need - pdim} for dyntype '{s['dyntype']}'; omit actdim")
                actdim = need
            elif actdim < 0 and so3:  # an integrator stores the 3 expmap setpoints
                actdim = 0 if s["dyntype"] == "none" else 3
            elif actdim < 0:
                actdim = 0 if s["dyntype"] == "none" else 1
            elif actdim > 1 and s["dyntype"] != "user" and not so3:
                raise error_at(el.where, f"{what}: actdim > 1 is only allowed with dyntype='user'")
            elif actdim == 0 and s["dyntype"] != "none":
                raise error_at(el.where, f"{what}: dyntype '{s['dyntype']}' needs actdim 1")
            out.append(MjcfActuator(
                s.get("name") or "", trntype, (tid, tid2), _arr(s["gear"]), s["cranklength"], s["dyntype"],
                s["gaintype"], s["biastype"], _arr(s["dynprm"]), _arr(s["gainprm"]), _arr(s["biasprm"]), ctrllim,
                forcelim, actlim, _arr(s["ctrlrange"]), _arr(s["forcerange"]), _arr(s["actrange"]),
                _arr(s["lengthrange"]), actdim, actadr if actdim else -1, s["actearly"] == "true", s["group"],
                tuple(s.get("user") or ()), el.where, plugin=iid, plugin_actdim=pdim))
            # MuJoCo 4 multi-input actuators: the so3 servo reads 3 (expmap) or 4 (quat) controls and has 3 outputs
            out[-1].ctrlspec = (s.get("input") or "expmap") if so3 else None
            out[-1].ctrlnum = (4 if out[-1].ctrlspec == "quat" else 3) if so3 else 1
            out[-1].outnum = 3 if so3 else 1
            actadr += actdim
    return out


def _check_so3(s, el, what, trntype, tid, tid2, joints) -> bool:
    """Validate a MuJoCo 4 so3 (orientation) servo as MuJoCo's compiler does; True for so3 actuators."""
    so3 = "so3" in (s["gaintype"], s["biastype"])
    if s.get("input") is not None and not so3:
        raise error_at(el.where, f"{what}: input is only available for orientation (so3) actuators")
    if not so3:
        return False
    if s["gaintype"] != "so3" or s["biastype"] != "so3":
        raise error_at(el.where, f"{what}: gaintype and biastype must both be 'so3'")
    if s["dyntype"] not in ("none", "integrator"):
        raise error_at(el.where, f"{what}: so3 requires dyntype 'none' or 'integrator'")
    if s["dyntype"] != "none" and s.get("input") == "quat":
        raise error_at(el.where, f"{what}: the quat input chart requires dyntype 'none'")
    if s["gainprm"][0] != -s["biasprm"][1]:
        raise error_at(el.where, f"{what}: so3 requires gainprm[0] == -biasprm[1]")
    if trntype == "joint":
        if joints[tid].type != "ball":
            raise error_at(el.where, f"{what}: an orientation (so3) joint transmission needs a ball joint, "
                                     f"joint '{joints[tid].name}' is {joints[tid].type}")
    elif trntype != "site" or tid2 < 0:
        raise error_at(el.where, f"{what}: an orientation (so3) actuator needs a ball joint, or a site with a "
                                 "refsite")
    if s["forcelimited"] != "false" and s["forcerange"][0] != 0:
        raise error_at(el.where, f"{what}: an orientation (so3) actuator's forcerange lower bound must be 0 "
                                 "(the torque norm is clamped)")
    return True


def _inherit_range(s, el, what, trntype, tid, joints, tendons) -> None:
    inherit = s.get("inheritrange", 0.0) or 0.0
    if not (s["gaintype"] == "fixed" and s["gainprm"][0] == -s["biasprm"][1] and s["biastype"] == "affine"
            and inherit > 0):
        return
    if s["dyntype"] in ("none", "filterexact"):
        key = "ctrlrange"
    elif s["dyntype"] == "integrator":
        key = "actrange"
    else:
        raise error_at(el.where, f"{what}: inheritrange is only available for position and intvelocity actuators")
    if trntype == "joint":
        j = joints[tid]
        if j.type not in ("hinge", "slide"):
            raise error_at(el.where, f"{what}: inheritrange can only be used with hinge and slide joints")
        rng = j.range
    elif trntype == "tendon":
        rng = tendons[tid].range
    else:
        raise error_at(el.where, f"{what}: inheritrange can only be used with joint and tendon transmissions")
    if rng[0] == rng[1]:
        raise error_at(el.where, f"{what}: inheritrange used but the target has no range")
    mean, radius = 0.5 * (rng[1] + rng[0]), 0.5 * (rng[1] - rng[0]) * inherit
    s[key] = (mean - radius, mean + radius)


def apply_dampratio(acts: list[MjcfActuator], bodies, joints, tendons, sites, mass_matrix: np.ndarray,
                    ctx: CompileContext) -> None:
    """Convert a positive biasprm[2] of position-like actuators (a damping ratio) into damping.

    As MuJoCo: damping = dampratio · 2 √(kp · m_eff), m_eff = 1 / (m M⁻¹ mᵀ) with the moment row m and
    the joint-space inertia M at qpos0.
    """
    lu = lu_factor(mass_matrix) if len(mass_matrix) and acts else None  # one LU (as np.linalg.solve's) for all

    def solve(r):
        return lu_solve(lu, r)

    for act in acts:
        rows = _moment_rows0(act, bodies, joints, tendons, sites) if len(mass_matrix) else None
        row = rows[0] if rows is not None and len(rows) == 1 else None
        if row is not None:
            act.acc0 = float(np.linalg.norm(solve(row)))
        if act.gaintype not in ("fixed", "so3") or act.gainprm[0] != -act.biasprm[1] or act.biasprm[2] <= 0:
            continue
        if not act.gainprm[0] >= 0:  # MuJoCo's √(kp·m) would be NaN
            raise error_at(act.where, f"actuator '{act.name}': dampratio needs a stiffness kp >= 0 (got "
                                      f"{act.gainprm[0]:g}); give kv instead, or a nonnegative kp")
        if rows is None:
            ctx.warn(act.where, "dampratio needs the moment arm of this transmission at qpos0, which is only "
                                "computed for joint, fixed-tendon and site transmissions; "
                                "biasprm[2] kept as given", "dampratio")
            continue
        # effective inertia 1 / (m M⁻¹ mᵀ); for a 3-output so3 servo the mean of the rows' inverse inertias
        inv = float(np.mean([r @ solve(r) if np.any(r) else 0.0 for r in rows]))
        mass = 1.0 / inv if inv > 1e-15 else 0.0
        act.biasprm[2] = -act.biasprm[2] * 2 * math.sqrt(act.gainprm[0] * mass)


def _moment_rows0(act: MjcfActuator, bodies, joints, tendons, sites) -> list[np.ndarray] | None:
    """Moment rows (MuJoCo dof coordinates) of an actuator at qpos0: one row, or 3 for an so3 servo; None when
    the transmission is not handled at compile time."""
    tid, tid2 = act.trnid
    if act.trntype in ("joint", "jointinparent") and joints[tid].type == "ball":  # qpos0 rotation is identity
        nv = sum(3 if j.type == "ball" else 6 if j.type == "free" else 1 for j in joints)
        base = np.zeros((3, nv))
        base[:, joints[tid].dofadr:joints[tid].dofadr + 3] = np.eye(3)
        return list(base) if getattr(act, "ctrlspec", None) else [base.T @ act.gear[:3]]
    if act.trntype == "site" and getattr(act, "ctrlspec", None):  # so3: site axes on the relative ω-Jacobian
        s, dof_body = dof_axes(bodies, joints)
        xpos, xmat = body_world_poses(bodies)
        _, jr, rot, anc = _site_jac(bodies, sites, tid, s, dof_body, xpos, xmat)
        _, jr2, _, anc2 = _site_jac(bodies, sites, tid2, s, dof_body, xpos, xmat)
        dr = jr - jr2
        dr[:, [k for k in range(len(s)) if int(dof_body[k]) in anc and int(dof_body[k]) in anc2]] = 0.0
        return list(rot.T @ dr)
    if act.trntype == "slidercrank":  # mj_transmission's slider-crank row at qpos0
        s, dof_body = dof_axes(bodies, joints)
        xpos, xmat = body_world_poses(bodies)
        jc, _, _, _ = _site_jac(bodies, sites, tid, s, dof_body, xpos, xmat)
        jl, jrl, rot, _ = _site_jac(bodies, sites, tid2, s, dof_body, xpos, xmat)
        pos = [xpos[sites[k].body] + xmat[sites[k].body] @ sites[k].pos for k in (tid, tid2)]
        axis, vec = rot[:, 2], pos[0] - pos[1]
        av = float(axis @ vec)
        det = av * av + act.cranklength ** 2 - float(vec @ vec)
        if det <= 0:
            dlda, dldv = vec, axis
        else:
            sdet = math.sqrt(det)
            dlda, dldv = vec * (1 - av / sdet), axis * (1 - av / sdet) + vec / sdet
        return [act.gear[0] * (dlda @ np.cross(jrl.T, axis).T + dldv @ (jc - jl))]
    row = actuator_moment0(act, bodies, joints, tendons, sites)
    return None if row is None else [row]
