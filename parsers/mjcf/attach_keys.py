"""Keyframes of `<attach>`ed sub-models, merged into the model as MuJoCo 4 does.

MuJoCo keeps a keyframe's values on the elements themselves (per joint qpos/qvel, per actuator ctrl/act, per
mocap body pos/quat, keyed by the keyframe's name). Attaching a model stores each of its keyframes under
prefix + name on *all* of the sub-model's elements, then moves the values of the elements it copies to the copies
(the sub-model's elements forget them; others keep them for a later attach of the same model asset). Each such
keyframe becomes one keyframe of the model, after the model's own, where the elements that carry its values get
them (raw: a free joint's position is not moved by the attach frame) and every other element its default. Inside a
`<replicate>`, MuJoCo attaches once into the template and the first copy takes the values: the other copies keep
their defaults.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .context import CompileContext
from .defaults import DefaultClasses
from .errors import error_at
from .model import MjcfKey
from .reader import Element
from .sections import read_compiler
from .sensors import normalize_quats

_NQ = {"free": 7, "ball": 4, "hinge": 1, "slide": 1}
_NV = {"free": 6, "ball": 3, "hinge": 1, "slide": 1}
_FIELDS = ("qpos", "qvel", "act", "ctrl", "mpos", "mquat")


class NestedAttach(Exception):
    """A sub-model with keyframes attaches models itself: its own key layout is not walked here."""


@dataclass
class ChildKeys:
    """A sub-model's keyframes and the layout they index: its joints (in its own qpos order) and mocap bodies,
    each named by (file, line, replicate suffix or name inside the sub-model) as the tree walk of the model meets
    them."""

    keys: list[tuple[str, float, dict]]  #: (name, time, {field: values as written})
    joints: list[tuple[tuple, str]]  #: (identity, joint type)
    mocap: list[tuple]  #: identities
    qposadr: list[int] = field(default_factory=list)
    dofadr: list[int] = field(default_factory=list)


def _dry_attach(walker, bid, el, frame, suffix) -> None:
    raise NestedAttach(str(el.where))


def read_child_keys(root: Element, model_dir, strict: bool) -> ChildKeys | None:
    """The keyframes of a sub-model and the joint/mocap layout of its own compile (None without keyframes).
    Raises NestedAttach when the sub-model attaches models itself."""
    from .tree import TreeWalker  # local import: tree imports attach, which imports this module

    secs = root.find_all("keyframe")
    keys = [(el.get("name") or "", float(el.get("time", 0.0)),
             {f: np.asarray(el.attrs[f], float) for f in _FIELDS if f in el.attrs})
            for sec in secs for el in sec.children]
    if not keys:
        return None
    ctx = CompileContext(read_compiler(root), DefaultClasses(root.find_all("default")), model_dir, strict)
    builds = TreeWalker(ctx, attach_handler=_dry_attach).walk(root.find_all("worldbody"))
    out = ChildKeys(keys, [((p.where.file, p.where.line, p.suffix), p.attrs["type"]) for b in builds for p in b.joints],
                    [(b.where.file, b.where.line, b.name) for b in builds[1:] if b.attrs.get("mocap") == "true"])
    qa = da = 0
    for _, t in out.joints:
        out.qposadr.append(qa)
        out.dofadr.append(da)
        qa, da = qa + _NQ[t], da + _NV[t]
    for name, _, vals in keys:
        for f, n in (("qpos", qa), ("qvel", da), ("mpos", 3 * len(out.mocap)), ("mquat", 4 * len(out.mocap))):
            if f in vals and len(vals[f]) > n:
                raise error_at(secs[0].where, f"attached model's key '{name}': {f} has {len(vals[f])} values, "
                                              f"the attached model needs {n}")
    return out


def _part(vals: dict, what: str, adr: int, n: int, missing: float) -> np.ndarray | None:
    """Entries [adr, adr + n) of a child key's vector `what`, `missing` past its end (a short vector: MuJoCo
    fills positions from the model's defaults, velocities and controls with zeros); None when the key does
    not give the vector."""
    if what not in vals:
        return None
    v = vals[what]
    out = np.full(n, missing)
    k = max(0, min(n, len(v) - adr))
    out[:k] = v[adr:adr + k]
    return out


def merge_attached_keys(attached, builds, joints, actuator_ranges, actuators, bodies, qpos0: np.ndarray, nv: int,
                        na: int, nctrl: int) -> list[MjcfKey]:
    """The keyframes that attached sub-models bring, in attach order (after the model's own).

    `builds`: the tree walk's bodies (before static bodies are fused); `actuator_ranges[i]`: the range of
    `actuators` compiled from `attached[i]`."""
    jid, jpos = {}, 0  # (build index, joint index in body) -> model joint id
    for b, bb in enumerate(builds):
        for k in range(len(bb.joints)):
            jid[b, k] = jpos
            jpos += 1
    mocap_builds = [b for b, bb in enumerate(builds) if b and bb.attrs.get("mocap") == "true"]
    mocap_of = {b: i for i, b in enumerate(mocap_builds)}
    ctrladr = np.cumsum([0] + [getattr(a, "ctrlnum", 1) for a in actuators])
    actadr = np.cumsum([0] + [a.actdim for a in actuators])
    mocap_bodies = [b for b in bodies if b.mocap]
    store: dict[int, dict] = {}  # per model asset: (kind, child index) -> {key name: values}
    carried: dict[tuple, dict] = {}  # (kind, model index) -> {key name: values}
    pending: list[tuple[str, float, set]] = []
    for a, arange in zip(attached, actuator_ranges):
        ck: ChildKeys | None = a.child_keys
        if ck is None or not a.copy0:
            continue
        st = store.setdefault(a.asset_id, {})
        subs = list(range(arange.start, arange.stop))
        for name, time, vals in ck.keys:
            kname = a.prefix + name
            pending.append((kname, time, set(vals)))
            for jc, (_, t) in enumerate(ck.joints):
                for what, adr, n, miss in (("qpos", ck.qposadr[jc], _NQ[t], np.nan),
                                           ("qvel", ck.dofadr[jc], _NV[t], 0.0)):
                    v = _part(vals, what, adr, n, miss)
                    if v is not None:
                        st.setdefault((what, jc), {})[kname] = v
            if "ctrl" in vals or "act" in vals:
                c0 = a0 = 0
                for ic, m in enumerate(subs):
                    act = actuators[m]
                    nc, nd = getattr(act, "ctrlnum", 1), act.actdim
                    for what, adr, n in (("ctrl", c0, nc), ("act", a0, nd)):
                        v = _part(vals, what, adr, n, 0.0) if n else None
                        if v is not None:
                            st.setdefault((what, ic), {})[kname] = v
                    c0, a0 = c0 + nc, a0 + nd
            for mc in range(len(ck.mocap)):
                for what, n in (("mpos", 3), ("mquat", 4)):
                    v = _part(vals, what, n * mc, n, np.nan)
                    if v is not None:
                        st.setdefault((what, mc), {})[kname] = v
        # the copied elements take the values the sub-model's elements carry; those forget them
        child_joint = {ident: jc for jc, (ident, _) in enumerate(ck.joints)}
        child_mocap = {ident: mc for mc, ident in enumerate(ck.mocap)}
        cut = len(a.suffix)
        for b in range(a.first_body, a.end_body):
            bb = builds[b]
            for k, p in enumerate(bb.joints):
                jc = child_joint.get((p.where.file, p.where.line, p.suffix[:len(p.suffix) - cut]))
                if jc is not None:
                    for what in ("qpos", "qvel"):
                        carried[what, jid[b, k]] = st.pop((what, jc), {})
            if b in mocap_of:
                bare = bb.name[len(a.prefix):len(bb.name) - cut] if bb.name else ""
                mc = child_mocap.get((bb.where.file, bb.where.line, bare))
                if mc is not None:
                    for what in ("mpos", "mquat"):
                        carried[what, mocap_of[b]] = st.pop((what, mc), {})
        for ic, m in enumerate(range(arange.start, arange.stop)):
            for what in ("ctrl", "act"):
                carried[what, m] = st.pop((what, ic), {})
    keys = []
    for kname, time, given in pending:
        q = qpos0.copy()
        v, act, ctrl = np.zeros(nv), np.zeros(na), np.zeros(nctrl)
        mpos = np.concatenate([b.pos for b in mocap_bodies]) if mocap_bodies else np.zeros(0)
        mquat = np.concatenate([b.quat for b in mocap_bodies]) if mocap_bodies else np.zeros(0)
        for (what, i), by_key in carried.items():
            val = by_key.get(kname)
            if val is None or what not in given:
                continue
            if what == "qpos":  # (i: a joint, actuator or mocap index by kind)
                vec, adr = q, joints[i].qposadr
            elif what == "qvel":
                vec, adr = v, joints[i].dofadr
            elif what == "ctrl":
                vec, adr = ctrl, ctrladr[i]
            elif what == "act":
                vec, adr = act, actadr[i]
            else:
                vec, adr = (mpos, 3 * i) if what == "mpos" else (mquat, 4 * i)
            seg = vec[adr:adr + len(val)]
            seg[:] = np.where(np.isnan(val), seg, val)  # past a short vector's end: this copy's default
        # MuJoCo normalizes a keyframe's quaternions at compile
        q = normalize_quats(q, [j.qposadr + (3 if j.type == "free" else 0) for j in joints
                                if j.type in ("free", "ball")])
        keys.append(MjcfKey(kname, time, q, v, act, ctrl, mpos, normalize_quats(mquat, range(0, len(mquat), 4))))
    return keys
