"""Non-tree elements that reference the tree: tendons, equality constraints, contact pairs and excludes."""
from __future__ import annotations

import numpy as np

from .bodies import _limited
from .context import CompileContext
from .errors import error_at
from .model import MjcfEquality, MjcfExclude, MjcfPair, MjcfTendon, MjcfTendonWrap
from .reader import Element
from .references import Names


def _arr(v) -> np.ndarray:
    return np.array(v, dtype=float)


def compile_tendons(ctx: CompileContext, root: Element, names: Names, joints) -> list[MjcfTendon]:
    """Fixed and spatial tendons in document order, with their paths resolved to ids."""
    out = []
    for sec in root.find_all("tendon"):
        for el in sec.children:
            a = ctx.defaults.resolve(el, "tendon", "main")
            what = f"tendon '{a.get('name') or ''}'"
            wraps = []
            for c in el.children:
                if c.tag == "joint":
                    jid = names.id("joint", c.get("joint"), c.where, what)
                    if joints[jid].type not in ("hinge", "slide"):
                        raise error_at(c.where, f"{what}: fixed tendons need hinge or slide joints")
                    wraps.append(MjcfTendonWrap("joint", jid, c.get("coef")))
                elif c.tag == "site":
                    wraps.append(MjcfTendonWrap("site", names.id("site", c.get("site"), c.where, what), 0.0))
                elif c.tag == "geom":
                    gid = names.id("geom", c.get("geom"), c.where, what)
                    side = names.opt("site", c.get("sidesite"), c.where, what)
                    wraps.append(MjcfTendonWrap("geom", gid, 0.0, side))
                elif c.tag == "pulley":
                    if c.get("divisor") <= 0:
                        raise error_at(c.where, f"{what}: pulley divisor must be positive")
                    wraps.append(MjcfTendonWrap("pulley", -1, c.get("divisor")))
            if not wraps:
                raise error_at(el.where, f"{what} has no path elements")
            if el.tag == "spatial":
                _check_spatial(wraps, el, what)
            limited = _limited(ctx, a["limited"], a["range"], el.where, "tendon")
            if limited and a["range"][0] >= a["range"][1]:
                raise error_at(el.where, f"{what}: range[0] must be smaller than range[1] when limited")
            afl = _limited(ctx, a["actuatorfrclimited"], a["actuatorfrcrange"], el.where, "tendon actuatorfrc")
            sl = list(a["springlength"])
            out.append(MjcfTendon(
                a.get("name") or "", el.tag, wraps, limited, _arr(a["range"]), afl, _arr(a["actuatorfrcrange"]),
                _arr(a["solreflimit"]), _arr(a["solimplimit"]), _arr(a["solreffriction"]), _arr(a["solimpfriction"]),
                a["margin"], a["frictionloss"], a["stiffness"], a["damping"], a["armature"], _arr(sl),
                a.get("width", 0.003), a["group"], _arr(a.get("rgba", (0.5, 0.5, 0.5, 1))),
                tuple(a.get("user") or ()), el.where))
    return out


def _check_spatial(wraps, el: Element, what: str) -> None:
    branches, cur = [], []
    for w in wraps:
        if w.type == "pulley":
            branches.append(cur)
            cur = []
        else:
            cur.append(w)
    branches.append(cur)
    for br in branches:
        if len(br) < 2 or br[0].type != "site" or br[-1].type != "site":
            raise error_at(el.where, f"{what}: each spatial tendon branch must start and end at a site")
        for k in range(1, len(br)):
            if br[k].type == "geom" and br[k - 1].type == "geom":
                raise error_at(el.where, f"{what}: consecutive wrapping geoms must be separated by a site")


def compile_equalities(ctx: CompileContext, root: Element, names: Names) -> list[MjcfEquality]:
    """connect / weld / joint / tendon equality constraints."""
    out = []
    for sec in root.find_all("equality"):
        for el in sec.children:
            if el.key == "t3":
                continue
            a = ctx.defaults.resolve(el, "equality", "main")
            what = f"equality <{el.tag}>"
            anchor = _arr(a.get("anchor") if a.get("anchor") is not None else (0, 0, 0))
            relpose = _arr(a.get("relpose", (0, 1, 0, 0, 0, 0, 0)))
            poly = _arr(a.get("polycoef", (0, 1, 0, 0, 0)))
            if el.tag in ("connect", "weld"):
                if a.get("site1") is not None or a.get("site2") is not None:
                    if a.get("site1") is None or a.get("site2") is None or a.get("body1") is not None:
                        raise error_at(el.where, f"{what}: give site1 and site2 together (and no body1)")
                    o1 = names.id("site", a["site1"], el.where, what)
                    o2 = names.id("site", a["site2"], el.where, what)
                    objtype = "site"
                else:
                    if a.get("body1") is None:
                        raise error_at(el.where, f"{what}: needs body1 (or site1 and site2)")
                    if el.tag == "connect" and a.get("anchor") is None:
                        raise error_at(el.where, f"{what}: body1 needs an anchor")
                    o1 = names.id("body", a["body1"], el.where, what)
                    o2 = names.id("body", a["body2"], el.where, what) if a.get("body2") is not None else 0
                    objtype = "body"
                etype = el.tag
            elif el.tag == "joint":
                o1 = names.id("joint", a["joint1"], el.where, what)
                o2 = names.opt("joint", a.get("joint2"), el.where, what)
                objtype, etype = "joint", "joint"
            else:
                o1 = names.id("tendon", a["tendon1"], el.where, what)
                o2 = names.opt("tendon", a.get("tendon2"), el.where, what)
                objtype, etype = "tendon", "tendon"
            # MuJoCo's raw eq_data: all types share one default vector, then each type overwrites its slots
            data = np.array([0.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0])
            if etype in ("connect", "weld") and "anchor" in el.attrs:
                data[:3] = el.attrs["anchor"]
            if etype == "weld":
                if "relpose" in el.attrs:
                    data[3:10] = el.attrs["relpose"]
                if objtype == "body" and "anchor" not in el.attrs:
                    data[:3] = 0.0
                data[10] = a.get("torquescale", 1.0)
            if etype in ("joint", "tendon"):
                data[:5] = poly
            eq = MjcfEquality(a.get("name") or "", etype, o1, o2, objtype, a["active"] == "true",
                              _arr(a["solref"]), _arr(a["solimp"]), anchor, relpose, poly,
                              a.get("torquescale", 1.0), el.where)
            eq.data = data
            out.append(eq)
    return out


def compile_contacts(ctx: CompileContext, root: Element, names: Names) -> tuple[list[MjcfPair], list[MjcfExclude]]:
    """Explicit contact pairs (parameters from the pair and its class) and body-pair exclusions."""
    pairs, excludes = [], []
    for sec in root.find_all("contact"):
        for el in sec.children:
            if el.tag == "pair":
                a = ctx.defaults.resolve(el, "pair", "main")
                g1 = names.id("geom", a["geom1"], el.where, "contact pair")
                g2 = names.id("geom", a["geom2"], el.where, "contact pair")
                if a["condim"] not in (1, 3, 4, 6):
                    raise error_at(el.where, f"invalid condim {a['condim']} (valid: 1, 3, 4, 6)")
                pairs.append(MjcfPair(a.get("name") or "", g1, g2, a["condim"], _arr(a["friction"]),
                                      _arr(a["solref"]), _arr(a["solreffriction"]), _arr(a["solimp"]),
                                      a["margin"], a["gap"]))
            else:
                b1 = names.id("body", el.get("body1"), el.where, "contact exclude")
                b2 = names.id("body", el.get("body2"), el.where, "contact exclude")
                excludes.append(MjcfExclude(el.get("name") or "", b1, b2))
    return pairs, excludes
