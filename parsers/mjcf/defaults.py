"""MJCF default classes: nested `default` elements, `class` lookups and `childclass` inheritance.

Each class keeps, per element kind, the attribute values set by it or its ancestors (partial arrays
already merged). Actuators keep one complete `general` state per class that the shortcut elements
(`motor`, `position`, ...) edit, exactly as MuJoCo's single actuator dummy per class.
"""
from __future__ import annotations

import math

from .errors import Where, error_at
from .reader import Element
from .schema import SHORTCUTS, AttrSpec, attributes

#: Element kinds that take defaults, mapped to the schema key of their real element.
KINDS = {"mesh": "mesh", "material": "material", "texture": "texture", "joint": "joint", "geom": "geom",
         "site": "site", "camera": "camera", "light": "light", "pair": "pair", "equality": "connect",
         "tendon": "spatial"}
ORIENT_ATTRS = ("quat", "axisangle", "xyaxes", "zaxis", "euler")


def merge_value(spec: AttrSpec, current, given):
    """Merge an explicitly given value onto the current one (partial arrays keep trailing values).

    A single tendon `springlength` means [value, value] (a dead band of width 0), in a default class as on the
    element (MuJoCo's reader duplicates it wherever it reads the attribute)."""
    if spec.name == "springlength" and isinstance(given, tuple) and len(given) == 1:
        return (given[0], given[0])
    if spec.fewer_ok and isinstance(given, tuple) and len(given) < spec.length:
        base = list(current if current is not None else spec.default)
        base[:len(given)] = given
        return tuple(base)
    return given


def full_general() -> dict[str, object]:
    """The internal-default state of a `general` actuator (every attribute with its default)."""
    return {name: spec.default for name, spec in attributes("general").items()}


_PRM = ("dynprm", "gainprm", "biasprm", "dyntype", "gaintype", "biastype")


class DefaultClasses:
    """All default classes of a model, built from its `<default>` sections.

    Actuators follow MuJoCo 4's behaviour (checked against the mujoco package): `<general>` elements
    inherit the class's single general state, which `default/general` and every `default/<shortcut>`
    edit; a shortcut element takes the common attributes from that state but rebuilds its dyn/gain/
    bias parameters from its own custom attributes (element, else the same shortcut in the class, else
    values authored by `default/general`, else the shortcut's defaults).
    """

    def __init__(self, sections: list[Element]):
        self.values: dict[str, dict[str, dict[str, object]]] = {"main": {k: {} for k in KINDS}}
        self.general: dict[str, dict[str, object]] = {"main": full_general()}
        self.authored: dict[str, dict[str, object]] = {"main": {}}
        self.shortcut: dict[str, dict[str, dict[str, object]]] = {"main": {}}
        self.where: dict[str, Where] = {}
        for sec in sections:
            cls = sec.get("class")
            if cls not in (None, "", "main"):
                raise error_at(sec.where, f"top-level default class 'main' cannot be renamed to '{cls}'")
            self._fill("main", sec)

    def _fill(self, name: str, el: Element) -> None:
        for child in el.children:
            if child.tag == "default":
                continue
            if child.key.startswith("d_") and child.tag in KINDS:
                table = attributes(KINDS[child.tag])
                store = self.values[name][child.tag]
                if any(o in child.attrs for o in ORIENT_ATTRS):
                    for o in ORIENT_ATTRS:
                        store.pop(o, None)
                for attr, value in child.attrs.items():
                    store[attr] = merge_value(table[attr], store.get(attr), value)
            elif child.tag == "general":
                apply_actuator(self.general[name], child, {})
                for attr in _PRM:
                    if attr in child.attrs:
                        self.authored[name][attr] = self.general[name][attr]
            elif child.tag in SHORTCUTS:
                custom = {k: v for k, v in child.attrs.items() if k not in _COMMON}
                store = self.shortcut[name].setdefault(child.tag, {})
                store.update(custom)
                apply_actuator(self.general[name], child, dict(store))
        for child in el.children:
            if child.tag != "default":
                continue
            cls = child.get("class")
            if not cls:
                raise error_at(child.where, "nested default class needs a non-empty 'class' attribute")
            if cls in self.values:
                raise error_at(child.where, f"default class '{cls}' is defined more than once")
            # attribute values are immutable (str / number / tuple), so two-level dict copies suffice
            self.values[cls] = {kind: dict(store) for kind, store in self.values[name].items()}
            self.general[cls] = dict(self.general[name])
            self.authored[cls] = dict(self.authored[name])
            self.shortcut[cls] = {tag: dict(store) for tag, store in self.shortcut[name].items()}
            self.where[cls] = child.where
            self._fill(cls, child)

    def check(self, cls: str, where: Where) -> str:
        """Return `cls` if it names a class, else raise MjcfError listing the valid classes."""
        if cls not in self.values:
            raise error_at(where, f"undefined default class '{cls}' (defined: {', '.join(sorted(self.values))})")
        return cls

    def resolve(self, el: Element, kind: str, active: str, key: str | None = None) -> dict[str, object]:
        """All attribute values of element `el` of default kind `kind` under the active class.

        The class is the element's own `class` if given, else `active` (the childclass in effect).
        Values: schema default, overridden by the class, overridden by the element's attributes.
        """
        cls = el.get("class")
        cls = self.check(cls, el.where) if cls is not None else active
        table = attributes(key or el.key)
        out = {name: spec.default for name, spec in table.items()}
        given_orient = [o for o in ORIENT_ATTRS if o in el.attrs]
        if len(given_orient) > 1:
            raise error_at(el.where, f"more than one orientation given ({', '.join(given_orient)}); use one")
        for attr, value in self.values[cls].get(kind, {}).items():
            if attr in table and not (given_orient and attr in ORIENT_ATTRS):
                out[attr] = value
        for attr, value in el.attrs.items():
            out[attr] = merge_value(table[attr], out.get(attr), value)
        out["__class__"] = cls
        out["__orient__"] = given_orient[0] if given_orient else next(
            (o for o in ORIENT_ATTRS[1:] if out.get(o) is not None), "quat")
        return out

    def actuator(self, el: Element, active: str) -> dict[str, object]:
        """Full `general` attribute state of an actuator element, shortcut translation applied."""
        cls = el.get("class")
        cls = self.check(cls, el.where) if cls is not None else active
        state = dict(self.general[cls])
        if el.tag == "general":
            apply_actuator(state, el, {})
            return state
        fresh = full_general()
        for attr in _PRM:
            state[attr] = fresh[attr]
        base = fresh | self.authored[cls]
        custom = dict(self.shortcut[cls].get(el.tag, {}))
        if "kv" in el.attrs or "dampratio" in el.attrs:
            custom.pop("kv", None)
            custom.pop("dampratio", None)
        custom.update({k: v for k, v in el.attrs.items() if k not in _COMMON})
        apply_actuator(state, el, custom, base)
        return state


_COMMON = set(attributes("general")) - set(_PRM)



def _servo_damping(a: dict, bias: list, bad) -> None:
    """A servo's velocity term: bias[2] = -kv, or the dampratio kept in bias[2] (positive) for the compiler to turn
    into -kv; the two are exclusive and non-negative."""
    if "kv" in a and "dampratio" in a:
        bad("kv and dampratio cannot both be defined")
    if "kv" in a:
        if a["kv"] < 0:
            bad("kv cannot be negative")
        bias[2] = -a["kv"]
    if "dampratio" in a:
        if a["dampratio"] < 0:
            bad("dampratio cannot be negative")
        bias[2] = a["dampratio"]

def apply_actuator(state: dict[str, object], el: Element, custom: dict, base: dict | None = None) -> None:
    """Apply an actuator element (general or shortcut, real or default) to a `general` state in place.

    Common attributes are copied from the element; for shortcuts the `custom` attributes (kp, kv, ...)
    are translated into dyn/gain/bias types and parameter vectors (spec/mjcf.md §12.2). Missing custom
    values fall back to `base` (parameters authored by default/general) as MuJoCo 4 does.
    """
    gtable = attributes("general")
    for attr, value in el.attrs.items():
        if attr in gtable and (el.tag == "general" or attr in _COMMON):
            state[attr] = merge_value(gtable[attr], state.get(attr), value)
    tag = el.tag
    if tag == "general":
        return
    base = base if base is not None else full_general()
    a = custom
    fresh = full_general()
    gain = list(fresh["gainprm"])
    bias = list(fresh["biasprm"])
    dyn = list(fresh["dynprm"])
    bgain, bbias, bdyn = base["gainprm"], base["biasprm"], base["dynprm"]

    def bad(msg: str):
        raise error_at(el.where, msg)

    state.update(dyntype="none")
    if tag == "motor":
        state.update(gaintype="fixed", biastype="none")
    elif tag in ("position", "intvelocity"):
        kp = a.get("kp", bgain[0])
        gain[0] = kp
        bias[1] = -kp
        bias[2] = bbias[2]
        _servo_damping(a, bias, bad)
        timeconst = a.get("timeconst", bdyn[0] if base["dyntype"] == "filterexact" else None)
        if timeconst is not None and tag == "position":
            if timeconst < 0:
                bad("timeconst cannot be negative")
            dyn[0] = timeconst
            state["dyntype"] = "none" if timeconst == 0 else "filterexact"
        inherit = a.get("inheritrange", 0.0)
        state["inheritrange"] = inherit
        if inherit > 0 and tag == "position" and any(state["ctrlrange"]):
            bad("ctrlrange and inheritrange cannot both be defined")
        state.update(gaintype="fixed", biastype="affine")
        if tag == "intvelocity":
            state["dyntype"] = "integrator"
            if inherit > 0 and any(state["actrange"]):
                bad("actrange and inheritrange cannot both be defined")
    elif tag == "velocity":
        kv = a.get("kv", bgain[0])
        gain[0] = kv
        bias[2] = -kv
        state.update(gaintype="fixed", biastype="affine")
    elif tag == "damper":
        kv = a.get("kv", -bgain[2] if base["gaintype"] == "affine" else 0.0)
        gain[0] = 0.0
        gain[2] = -kv
        state.update(ctrllimited="true", gaintype="affine", biastype="none")
        if kv < 0:
            bad("damping coefficient cannot be negative")
        if state["ctrlrange"][0] < 0 or state["ctrlrange"][1] < 0:
            bad("damper control range cannot be negative")
    elif tag == "cylinder":
        dyn[0] = a.get("timeconst", bdyn[0])
        gain[0] = a.get("area", bgain[0])
        if "diameter" in a and a["diameter"] >= 0:
            gain[0] = math.pi / 4 * a["diameter"] ** 2
        bias[0:3] = a.get("bias", tuple(bbias[0:3]))
        state.update(dyntype="filter", gaintype="fixed", biastype="affine")
    elif tag == "muscle":
        dyn[0:3] = [0.01, 0.04, 0.0]
        gain[0:9] = [0.75, 1.05, -1.0, 200.0, 0.5, 1.6, 1.5, 1.3, 1.2]
        tau = a.get("tausmooth", 0.0)
        if tau < 0:
            bad("muscle tausmooth cannot be negative")
        dyn[2] = tau
        tc = a.get("timeconst", (-1, -1))
        for i in range(2):
            if tc[i] >= 0:
                dyn[i] = tc[i]
        rng = a.get("range", (-1, -1))
        for i in range(2):
            if rng[i] >= 0:
                gain[i] = rng[i]
        for i, name in enumerate(("force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax")):
            if a.get(name, -1) >= 0:
                gain[2 + i] = a[name]
        bias[0:9] = gain[0:9]
        state.update(dyntype="muscle", gaintype="muscle", biastype="muscle")
    elif tag == "orientation":  # geodesic servo: force = kp log(q⁻¹ q_target) − kv ω (3 outputs); MuJoCo 4
        kp = a.get("kp", 1.0)  # does not fall back to parameters authored by default/general here
        gain[0] = kp
        bias[1] = -kp
        _servo_damping(a, bias, bad)
        state.update(gaintype="so3", biastype="so3")
    elif tag == "adhesion":
        gain[0] = a.get("gain", bgain[0])
        state.update(ctrllimited="true", gaintype="fixed", biastype="none")
        if gain[0] < 0:
            bad("adhesion gain cannot be negative")
        if state["ctrlrange"][0] < 0 or state["ctrlrange"][1] < 0:
            bad("adhesion control range cannot be negative")
    state["gainprm"], state["biasprm"], state["dynprm"] = tuple(gain), tuple(bias), tuple(dyn)
