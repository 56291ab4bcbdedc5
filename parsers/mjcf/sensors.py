"""Sensors (object references and output sizes) and keyframes (full-size state vectors)."""
from __future__ import annotations

import numpy as np

from .errors import error_at
from .model import MjcfBody, MjcfKey, MjcfSensor
from .reader import Element
from .plugins import resolve as resolve_plugin
from .references import Names

_DIM = {"touch": 1, "accelerometer": 3, "velocimeter": 3, "gyro": 3, "force": 3, "torque": 3, "magnetometer": 3,
        "rangefinder": 1, "camprojection": 2, "jointpos": 1, "jointvel": 1, "tendonpos": 1, "tendonvel": 1,
        "actuatorpos": 1, "actuatorvel": 1, "actuatorfrc": 1, "jointactuatorfrc": 1, "tendonactuatorfrc": 1,
        "ballquat": 4, "ballangvel": 3, "jointlimitpos": 1, "jointlimitvel": 1, "jointlimitfrc": 1,
        "tendonlimitpos": 1, "tendonlimitvel": 1, "tendonlimitfrc": 1, "framepos": 3, "framequat": 4,
        "framexaxis": 3, "frameyaxis": 3, "framezaxis": 3, "framelinvel": 3, "frameangvel": 3, "framelinacc": 3,
        "frameangacc": 3, "subtreecom": 3, "subtreelinvel": 3, "subtreeangmom": 3, "distance": 1, "normal": 3,
        "fromto": 6, "e_potential": 1, "e_kinetic": 1, "clock": 1, "insidesite": 1}
#: rangefinder data fields in the order MuJoCo requires, with their sizes per ray
_RAY_DATA = {"dist": 1, "dir": 3, "origin": 3, "point": 3, "normal": 3, "depth": 1}
_KEY_OBJ = (("site", "site"), ("joint", "joint"), ("tendon", "tendon"), ("actuator", "actuator"), ("body", "body"))
_OBJ_KIND = {"body": "body", "xbody": "body", "geom": "geom", "site": "site", "camera": "camera"}


def _plugin_sensor(ctx, el: Element, names: Names) -> MjcfSensor:
    """A sensor/plugin: instance, optional object/reference; its size is set when plugins are bound."""
    a = el.attrs
    what = f"sensor '{a.get('name') or 'plugin'}'"
    iid = resolve_plugin(ctx, el, "sensor", what)
    objtype, objid, reftype, refid = "none", -1, "none", -1
    for tkey, nkey in (("objtype", "objname"), ("reftype", "refname")):
        if (a.get(tkey) is None) != (a.get(nkey) is None):
            raise error_at(el.where, f"{what}: {tkey} and {nkey} must be given together")
    if a.get("objtype") is not None:
        objtype = a["objtype"]
        objid = names.id(_OBJ_KIND.get(objtype, objtype), a["objname"], el.where, what)
    if a.get("reftype") is not None:
        reftype = a["reftype"]
        refid = names.id(_OBJ_KIND.get(reftype, reftype), a["refname"], el.where, what)
    if a.get("noise", 0.0) < 0 or a.get("cutoff", 0.0) < 0:
        raise error_at(el.where, f"{what}: noise and cutoff cannot be negative")
    return MjcfSensor(a.get("name") or "", "plugin", objtype, objid, reftype, refid, 0, a.get("noise", 0.0),
                      a.get("cutoff", 0.0), tuple(a.get("user") or ()), plugin=iid, where=el.where)


def compile_sensors(root: Element, names: Names, joints, ctx=None) -> list[MjcfSensor]:
    """All sensors in document order with their object ids and output dimensions."""
    out = []
    for sec in root.find_all("sensor"):
        for el in sec.children:
            if el.key == "t3":
                continue
            if el.tag == "plugin":
                out.append(_plugin_sensor(ctx, el, names))
                continue
            a = el.attrs
            what = f"sensor <{el.tag}>"
            objtype, objid, reftype, refid = "none", -1, "none", -1
            for attr, kind in _KEY_OBJ:
                if attr in a:
                    objtype, objid = kind, names.id(kind, a[attr], el.where, what)
                    break
            if el.tag in ("ballquat", "ballangvel") and joints[objid].type != "ball":
                raise error_at(el.where, f"{what}: needs a ball joint")
            if el.tag in ("jointpos", "jointvel", "jointactuatorfrc") and joints[objid].type not in ("hinge", "slide"):
                raise error_at(el.where, f"{what}: needs a hinge or slide joint")
            if "objtype" in a:
                objtype = a["objtype"]
                objid = names.id(_OBJ_KIND[objtype], a["objname"], el.where, what)
                if a.get("reftype") is not None:
                    if a.get("refname") is None:
                        raise error_at(el.where, f"{what}: reftype needs refname")
                    reftype = a["reftype"]
                    refid = names.id(_OBJ_KIND[reftype], a["refname"], el.where, what)
            if el.tag == "insidesite":  # the object (objtype / objname) against the volume of the site
                reftype, refid = "site", names.id("site", a["site"], el.where, what)
            if el.tag in ("distance", "normal", "fromto"):
                g1, b1, g2, b2 = (a.get(k) for k in ("geom1", "body1", "geom2", "body2"))
                if (g1 is None) == (b1 is None) or (g2 is None) == (b2 is None):
                    raise error_at(el.where, f"{what}: give exactly one of geom1/body1 and one of geom2/body2")
                objtype, objid = ("geom", names.id("geom", g1, el.where, what)) if g1 else \
                    ("body", names.id("body", b1, el.where, what))
                reftype, refid = ("geom", names.id("geom", g2, el.where, what)) if g2 else \
                    ("body", names.id("body", b2, el.where, what))
            dim = _DIM[el.tag]
            if el.tag == "rangefinder":
                dim = _rangefinder_dim(el, what)
            if el.tag == "camprojection":
                reftype, refid = "camera", names.id("camera", a["camera"], el.where, what)
            if a.get("noise", 0.0) < 0 or a.get("cutoff", 0.0) < 0:
                raise error_at(el.where, f"{what}: noise and cutoff cannot be negative")
            out.append(MjcfSensor(a.get("name") or "", el.tag, objtype, objid, reftype, refid, dim,
                                  a.get("noise", 0.0), a.get("cutoff", 0.0), tuple(a.get("user") or ()),
                                  where=el.where))
    return out


def _rangefinder_dim(el: Element, what: str) -> int:
    """Output size of a site rangefinder: the sizes of its data fields, which must follow MuJoCo's order."""
    if (el.get("site") is None) == (el.get("camera") is None):
        raise error_at(el.where, f"{what}: give exactly one of site and camera")
    if el.get("camera") is not None:
        raise error_at(el.where, f"{what}: attribute 'camera': camera rangefinders (one ray per pixel): a MuJoCo 4 "
                                 f"feature mallard does not support yet; remove it to load the model")
    data = el.get("data", "dist")
    fields = data.split()
    order = list(_RAY_DATA)
    for f in fields:
        if f not in _RAY_DATA:
            raise error_at(el.where, f"{what}: data '{f}' is not one of {', '.join(order)}")
    idx = [order.index(f) for f in fields]
    if not fields or idx != sorted(set(idx)):
        raise error_at(el.where, f"{what}: data '{data}' must list distinct fields in the order "
                                 f"{', '.join(order)}")
    return sum(_RAY_DATA[f] for f in fields)


def normalize_quats(v: np.ndarray, starts) -> np.ndarray:
    v = v.copy()
    for a in starts:
        n = float(np.linalg.norm(v[a:a + 4]))
        v[a:a + 4] = v[a:a + 4] / n if n > 1e-14 else (1.0, 0.0, 0.0, 0.0)
    return v


def compile_keys(root: Element, size: dict, qpos0: np.ndarray, nv: int, na: int, nu: int,
                 bodies: list[MjcfBody], joints=()) -> list[MjcfKey]:
    """Keyframes in document order (plus empty ones up to size/nkey); missing vectors, and the tail of short ones,
    filled from the defaults as MuJoCo does."""
    mocap = [b for b in bodies if b.mocap]
    mpos0 = np.concatenate([b.pos for b in mocap]) if mocap else np.zeros(0)
    mquat0 = np.concatenate([b.quat for b in mocap]) if mocap else np.zeros(0)
    sizes = {"qpos": len(qpos0), "qvel": nv, "act": na, "ctrl": nu, "mpos": 3 * len(mocap), "mquat": 4 * len(mocap)}
    base = {"qpos": qpos0, "qvel": np.zeros(nv), "act": np.zeros(na), "ctrl": np.zeros(nu), "mpos": mpos0,
            "mquat": mquat0}
    keys = []
    for sec in root.find_all("keyframe"):
        for el in sec.children:
            vals = {}
            for k, n in sizes.items():
                if k in el.attrs:
                    v = np.asarray(el.attrs[k], float)
                    if len(v) > n:
                        raise error_at(el.where, f"key '{el.get('name') or ''}': {k} has {len(v)} values, "
                                                 f"the model needs {n}")
                    v = np.concatenate([v, base[k][len(v):]])  # a short vector is completed from the defaults
                    if k == "qpos":
                        v = normalize_quats(v, [j.qposadr + (3 if j.type == "free" else 0) for j in joints
                                                 if j.type in ("free", "ball")])
                    elif k == "mquat":
                        v = normalize_quats(v, range(0, len(v), 4))
                    vals[k] = v
                else:
                    vals[k] = base[k].copy()
            keys.append(MjcfKey(el.get("name") or "", el.get("time", 0.0), **vals))
    while len(keys) < size.get("nkey", 0):
        keys.append(MjcfKey("", 0.0, **{k: v.copy() for k, v in base.items()}))
    return keys
