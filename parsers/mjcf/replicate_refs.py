"""`<replicate>` and the elements that refer into it: MuJoCo replicates them with the tree.

A tendon, actuator, sensor, equality, contact pair or exclude that names an element defined inside a
`<replicate>` (a site, a joint, a body, ...) is, as in MuJoCo 4, replaced by one copy per replica: its
references into the replicate and its own name get that replica's suffix, references elsewhere stay. The
copies follow the section's other elements, grouped by replicate (document order), then replica, then
document order; an element referring to a replicated one (an actuator on a replicated tendon) is replicated
with it. Elements inside an attached sub-model or a nested replicate are left to the tree walk.
"""
from __future__ import annotations

import copy

from .reader import Element

#: names a tree element defines, by tag (the kind other elements refer to it as)
_KINDS = {"body": "body", "joint": "joint", "freejoint": "joint", "geom": "geom", "site": "site",
          "camera": "camera", "light": "light"}
#: referencing attributes -> the kind they name
_REFS = {
    "site": "site", "refsite": "site", "cranksite": "site", "slidersite": "site", "sidesite": "site",
    "site1": "site", "site2": "site", "joint": "joint", "jointinparent": "joint", "joint1": "joint",
    "joint2": "joint", "body": "body", "body1": "body", "body2": "body", "geom": "geom", "geom1": "geom",
    "geom2": "geom", "tendon": "tendon", "tendon1": "tendon", "tendon2": "tendon", "actuator": "actuator",
    "camera": "camera",
}
_OBJTYPE = {"body": "body", "xbody": "body", "geom": "geom", "site": "site", "camera": "camera",
            "joint": "joint", "tendon": "tendon", "actuator": "actuator"}
#: sections in the order their elements may refer to each other's (tendons before the actuators on them)
_SECTIONS = (("tendon", "tendon"), ("equality", None), ("actuator", "actuator"), ("sensor", None),
             ("contact", None))


def _defined(el: Element, out: dict[str, set]) -> None:
    for c in el.children:
        kind = _KINDS.get(c.tag)
        if kind and isinstance(c.get("name"), str):
            out.setdefault(kind, set()).add(c.get("name"))
        if c.tag in ("body", "frame"):  # a nested replicate replicates its own names (left to the tree walk)
            _defined(c, out)


def _replicates(el: Element, out: list[Element]) -> None:
    for c in el.children:
        if c.tag == "replicate":
            out.append(c)
        elif c.tag in ("body", "frame", "worldbody"):
            _replicates(c, out)


def _refs(el: Element):
    """(element, attribute, kind) of every reference in `el` and its children."""
    for name, value in el.attrs.items():
        if not isinstance(value, str):
            continue
        kind = _REFS.get(name)
        if name == "objname":
            kind = _OBJTYPE.get(str(el.get("objtype")))
        elif name == "refname":
            kind = _OBJTYPE.get(str(el.get("reftype")))
        if kind:
            yield el, name, kind
    for c in el.children:
        yield from _refs(c)


def _suffixed(el: Element, names: dict[str, set], suffix: str) -> Element:
    out = copy.deepcopy(el)
    for e, attr, kind in _refs(out):
        if e.attrs[attr] in names.get(kind, ()):
            e.attrs[attr] = e.attrs[attr] + suffix
    if isinstance(out.get("name"), str):
        out.attrs["name"] = out.attrs["name"] + suffix
    return out


def expand_replicate_references(root: Element) -> None:
    """Replace, in place, the section elements of `root` that refer into a `<replicate>` by one copy per replica."""
    reps: list[Element] = []
    for wb in root.find_all("worldbody"):
        _replicates(wb, reps)
    for rep in reps:
        names: dict[str, set] = {}
        _defined(rep, names)
        if not names:
            continue
        count = int(rep.get("count"))
        sep = rep.get("sep") or ""
        suffixes = [sep + str(i).zfill(len(str(count))) for i in range(count)]
        for tag, kind in _SECTIONS:
            secs = root.find_all(tag)
            picked = []
            for sec in secs:
                keep = []
                for c in sec.children:
                    hit = any(e.attrs[a] in names.get(k, ()) for e, a, k in _refs(c))
                    (picked if hit else keep).append(c)
                sec.children[:] = keep
            if not picked:
                continue
            if kind:  # later sections refer to these under their replicated names
                names.setdefault(kind, set()).update(c.get("name") for c in picked if isinstance(c.get("name"), str))
            secs[-1].children.extend(_suffixed(c, names, s) for s in suffixes for c in picked)
