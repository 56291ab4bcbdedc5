"""Actuators: shortcut expansion to `general`, transmissions, limits, inheritrange and dampratio."""
from __future__ import annotations

import math

import numpy as np

from .bodies import _limited
from .context import CompileContext
from .errors import error_at
from .model import MjcfActuator, MjcfJoint, MjcfTendon
from .plugins import plugin_actdim
from .plugins import resolve as resolve_plugin
from .reader import Element
from .references import Names
from .transmission import actuator_moment0

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
            elif actdim < 0:
                actdim = 0 if s["dyntype"] == "none" else 1
            elif actdim > 1 and s["dyntype"] != "user":
                raise error_at(el.where, f"{what}: actdim > 1 is only allowed with dyntype='user'")
            elif actdim == 0 and s["dyntype"] != "none":
                raise error_at(el.where, f"{what}: dyntype '{s['dyntype']}' needs actdim 1")
            out.append(MjcfActuator(
                s.get("name") or "", trntype, (tid, tid2), _arr(s["gear"]), s["cranklength"], s["dyntype"],
                s["gaintype"], s["biastype"], _arr(s["dynprm"]), _arr(s["gainprm"]), _arr(s["biasprm"]), ctrllim,
                forcelim, actlim, _arr(s["ctrlrange"]), _arr(s["forcerange"]), _arr(s["actrange"]),
                _arr(s["lengthrange"]), actdim, actadr if actdim else -1, s["actearly"] == "true", s["group"],
                tuple(s.get("user") or ()), el.where, plugin=iid, plugin_actdim=pdim))
            actadr += actdim
    return out


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
    for act in acts:
        row = actuator_moment0(act, bodies, joints, tendons, sites) if len(mass_matrix) else None
        if row is not None:
            act.acc0 = float(np.linalg.norm(np.linalg.solve(mass_matrix, row)))
        if act.gaintype != "fixed" or act.gainprm[0] != -act.biasprm[1] or act.biasprm[2] <= 0:
            continue
        if row is None:
            ctx.warn(act.where, "dampratio needs the moment arm of this transmission at qpos0, which is only "
                                "computed for hinge/slide joint, fixed-tendon and site transmissions; "
                                "biasprm[2] kept as given", "dampratio")
            continue
        inv = float(row @ np.linalg.solve(mass_matrix, row)) if np.any(row) else 0.0
        mass = 1.0 / inv if inv > 1e-15 else 0.0
        act.biasprm[2] = -act.biasprm[2] * 2 * math.sqrt(act.gainprm[0] * mass)
