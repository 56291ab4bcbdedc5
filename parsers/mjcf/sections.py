"""Global MJCF sections: compiler, option/flag, size, statistic, visual, custom (last setting wins)."""
from __future__ import annotations

import numpy as np

from .errors import error_at
from .model import MjcfOption
from .reader import Element
from .schema import FLAGS_DISABLED, FLAGS_ENABLED, attributes


def _merged(sections: list[Element], key: str) -> dict:
    out = {name: spec.default for name, spec in attributes(key).items()}
    for sec in sections:
        out.update(sec.attrs)
    return out


def read_compiler(root: Element) -> dict:
    """Merged <compiler> settings; assetdir fills meshdir/texturedir unless those are given."""
    secs = root.find_all("compiler")
    out = _merged(secs, "compiler")
    for sec in secs:
        if sec.get("coordinate") == "global":
            raise error_at(sec.where, "compiler coordinate='global' is no longer supported; convert the model to "
                                      "local coordinates (load and save it in MuJoCo 2.3.3 or older)")
    if out.get("assetdir") is not None:
        out["meshdir"] = out["meshdir"] if any("meshdir" in s.attrs for s in secs) else out["assetdir"]
        out["texturedir"] = out["texturedir"] if any("texturedir" in s.attrs for s in secs) else out["assetdir"]
    seq = out["eulerseq"]
    if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
        where = next((s.where for s in secs if "eulerseq" in s.attrs), None)
        raise error_at(where, f"eulerseq '{seq}' must be 3 characters from x, y, z, X, Y, Z")
    lr = [c for s in secs for c in s.find_all("lengthrange")]
    out["lengthrange"] = _merged(lr, "lengthrange")
    for name, spec in attributes("compiler").items():
        if spec.kind == "b":
            out[name] = out[name] == "true"
    return out


def read_option(root: Element) -> tuple[MjcfOption, list[Element]]:
    """Merged <option> sections and their <flag> children into an MjcfOption."""
    secs = root.find_all("option")
    o = _merged(secs, "option")
    flags = {n: True for n in FLAGS_ENABLED} | {n: False for n in FLAGS_DISABLED}
    for sec in secs:
        for f in sec.find_all("flag"):
            for name, value in f.attrs.items():
                flags[name] = value == "enable"
        for g in sec.get("actuatorgroupdisable") or ():
            if not 0 <= g <= 30:
                raise error_at(sec.where, f"actuatorgroupdisable values must be in [0, 30] (got {g})")
    if o["timestep"] <= 0:
        where = next((s.where for s in secs if "timestep" in s.attrs), None)
        raise error_at(where, f"option timestep must be positive (got {o['timestep']})")
    a = np.asarray
    opt = MjcfOption(
        timestep=o["timestep"], gravity=a(o["gravity"], float), wind=a(o["wind"], float),
        magnetic=a(o["magnetic"], float), density=o["density"], viscosity=o["viscosity"], impratio=o["impratio"],
        o_margin=o["o_margin"], o_solref=a(o["o_solref"], float), o_solimp=a(o["o_solimp"], float),
        o_friction=a(o["o_friction"], float), integrator=o["integrator"], cone=o["cone"], jacobian=o["jacobian"],
        solver=o["solver"], iterations=o["iterations"], tolerance=o["tolerance"],
        ls_iterations=o["ls_iterations"], ls_tolerance=o["ls_tolerance"],
        noslip_iterations=o["noslip_iterations"], noslip_tolerance=o["noslip_tolerance"],
        ccd_iterations=o["ccd_iterations"], ccd_tolerance=o["ccd_tolerance"],
        sdf_iterations=o["sdf_iterations"], sdf_initpoints=o["sdf_initpoints"], apirate=o["apirate"],
        actuatorgroupdisable=tuple(sorted({g for s in secs for g in (s.get("actuatorgroupdisable") or ())})),
        flags=flags)
    for name in ("timestep", "gravity", "wind", "magnetic", "density", "viscosity", "impratio", "o_margin", "o_solref",
                 "o_solimp", "o_friction"):
        if not np.all(np.isfinite(getattr(opt, name))):  # MuJoCo reads inf and simulates NaN
            where = next((s.where for s in secs if name in s.attrs), secs[0].where if secs else None)
            raise error_at(where, f"option {name} {np.asarray(getattr(opt, name)).tolist()} is not finite")
    return opt, secs


#: flags mallard reads but does not honor at a non-default value: (flag, value) -> what differs from MuJoCo
_IGNORED_FLAGS = {
    ("sleep", True): "MuJoCo 4's sleeping trees are not simulated: every tree stays awake, so results differ from "
                     "MuJoCo's once a tree would fall asleep",
    ("warmstart", False): "the solver is still warm-started from the previous step's accelerations",
    ("nativeccd", False): "convex collisions still use the native GJK/EPA, not libccd",
    ("multiccd", False): "box/mesh pairs still get several contacts per touching face",
}


def check_flags(ctx, option: MjcfOption, secs: list[Element]) -> None:
    """Report flags set to values mallard cannot honor: an unsupported-feature warning (a clear error for
    diagexact, which changes every constraint's impedance)."""
    where = {n: f.where for s in secs for f in s.find_all("flag") for n in f.attrs}
    if option.flags.get("diagexact", False):
        raise error_at(where["diagexact"], "flag 'diagexact': the exact constraint-space diagonal is a MuJoCo 4 "
                                           "feature mallard does not support yet; remove it to load the model")
    for (name, value), what in _IGNORED_FLAGS.items():
        if name in where and option.flags.get(name) == value:
            ctx.warn(where[name], f"flag {name}=\"{'enable' if value else 'disable'}\" is not honored: {what}",
                     f"flag:{name}")


def read_misc(root: Element) -> tuple[dict, dict, dict, dict]:
    """Merged <size>, <statistic>, <visual> (per child) and <custom> data, kept for completeness."""
    size = _merged(root.find_all("size"), "size")
    for s in root.find_all("size"):
        if "memory" in s.attrs and ("njmax" in s.attrs or "nstack" in s.attrs):
            raise error_at(s.where, "size: memory cannot be combined with njmax or nstack")
    stat = _merged(root.find_all("statistic"), "statistic")
    if stat.get("extent") is not None and stat["extent"] <= 0:
        raise error_at(root.find_all("statistic")[-1].where, "statistic extent must be positive")
    visual: dict[str, dict] = {}
    for v in root.find_all("visual"):
        for c in v.children:
            visual.setdefault(c.tag, {}).update(c.attrs)
    custom: dict[str, dict] = {"numeric": {}, "text": {}, "tuple": {}}
    for c in root.find_all("custom"):
        for el in c.children:
            if el.tag == "numeric":
                data = list(el.get("data") or ())
                n = el.get("size", len(data))
                if len(data) > n or n < 1:
                    raise error_at(el.where, "custom numeric: data longer than size, or empty")
                custom["numeric"][el.get("name")] = np.array(data + [0.0] * (n - len(data)))
            elif el.tag == "text":
                custom["text"][el.get("name")] = el.get("data") or ""
            else:
                custom["tuple"][el.get("name")] = [(e.get("objtype"), e.get("objname"), e.get("prm", 0.0))
                                                   for e in el.children]
    return size, stat, visual, custom
