"""The kinematic tree: worldbody/body/frame/replicate walking, and per-body elements in MuJoCo order.

The walk resolves default classes and frames (a frame's pose is composed into its children) and
returns the bodies in depth-first pre-order with their joints, geoms, sites, cameras and lights in
document order, which is the id order of mjModel.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .context import CompileContext
from .errors import Where, error_at
from .reader import Element
from .rotations import euler_quat, frame_accum, quat_mul, quat_normalize, rotate
from .schema import attributes


#: Guards against runaway `replicate` expansion (MuJoCo has no limit; these keep loading bounded).
MAX_REPLICAS = 100_000
MAX_BODIES = 1_000_000
MAX_ELEMENTS = 5_000_000


@dataclass
class Placed:
    """A resolved element (attribute dict) with the frame transform (pos, quat) it sits in."""

    attrs: dict
    where: Where
    fpos: np.ndarray
    fquat: np.ndarray
    suffix: str = ""
    prefix: str = ""
    ctx: CompileContext | None = None  #: context of an attached sub-model (its compiler settings)


@dataclass
class BodyBuild:
    """A body before compilation: resolved attributes and its child elements in order."""

    name: str
    parent: int
    attrs: dict
    where: Where
    fpos: np.ndarray
    fquat: np.ndarray
    inertial: dict | None = None
    joints: list[Placed] = field(default_factory=list)
    geoms: list[Placed] = field(default_factory=list)
    sites: list[Placed] = field(default_factory=list)
    cameras: list[Placed] = field(default_factory=list)
    lights: list[Placed] = field(default_factory=list)
    ctx: CompileContext | None = None


def _plain(el: Element) -> dict:
    out = {name: spec.default for name, spec in attributes(el.key).items()}
    out.update(el.attrs)
    given = [o for o in ("quat", "axisangle", "xyaxes", "zaxis", "euler") if o in el.attrs]
    if len(given) > 1:
        raise error_at(el.where, f"more than one orientation given ({', '.join(given)}); use one")
    out["__orient__"] = given[0] if given else "quat"
    return out


class TreeWalker:
    """Walks <worldbody> sections into `BodyBuild` records (index 0 is the world)."""

    def __init__(self, ctx: CompileContext, attach_handler=None, prefix: str = "",
                 bodies: list[BodyBuild] | None = None):
        self.ctx = ctx
        self.bodies: list[BodyBuild] = bodies if bodies is not None else []
        self.attach_handler = attach_handler
        self.prefix = prefix
        self.count = 0
        #: outside any replicate or in the first copy of each: an <attach> here takes the sub-model's keyframes
        self.copy0 = True

    def _placed(self, attrs: dict, c: Element, fpos, fquat, suffix: str) -> Placed:
        self.count += 1
        if self.count > MAX_ELEMENTS:
            raise error_at(c.where, f"model has more than {MAX_ELEMENTS} tree elements (check replicate counts)")
        return Placed(attrs, c.where, fpos, fquat, suffix, self.prefix, self.ctx)

    def walk(self, worldbodies: list[Element]) -> list[BodyBuild]:
        """Build the body list from all worldbody sections (concatenated, as MuJoCo does)."""
        world = BodyBuild("world", -1, {}, worldbodies[0].where if worldbodies else Where("<model>", 0, "worldbody"),
                          np.zeros(3), np.array([1.0, 0, 0, 0]))
        self.bodies.append(world)
        ident = (np.zeros(3), np.array([1.0, 0, 0, 0]))
        for wb in worldbodies:
            self._children(0, wb, ident, "main", "")
        return self.bodies

    def _children(self, bid: int, el: Element, frame, active: str, suffix: str) -> None:
        fpos, fquat = frame
        body = self.bodies[bid]
        d = self.ctx.defaults
        for c in el.children:
            tag = c.tag
            if tag == "inertial":
                body.inertial = _plain(c) | {"__where__": c.where}
            elif tag == "joint":
                if bid == 0:
                    raise error_at(c.where, "joints are not allowed in the world body")
                body.joints.append(self._placed(d.resolve(c, "joint", active), c, fpos, fquat, suffix))
            elif tag == "freejoint":
                if bid == 0:
                    raise error_at(c.where, "a freejoint is not allowed in the world body")
                a = {n: s.default for n, s in attributes("joint").items()}
                a.update(type="free", name=c.get("name"), group=c.get("group", 0), __align__=c.get("align", "auto"))
                body.joints.append(self._placed(a, c, fpos, fquat, suffix))
            elif tag == "geom":
                body.geoms.append(self._placed(d.resolve(c, "geom", active), c, fpos, fquat, suffix))
            elif tag == "site":
                body.sites.append(self._placed(d.resolve(c, "site", active), c, fpos, fquat, suffix))
            elif tag == "camera":
                body.cameras.append(self._placed(d.resolve(c, "camera", active), c, fpos, fquat, suffix))
            elif tag == "light":
                body.lights.append(self._placed(d.resolve(c, "light", active), c, fpos, fquat, suffix))
            elif tag == "frame":
                a = _plain(c)
                cls = d.check(a["childclass"], c.where) if a.get("childclass") else active
                pos, quat = frame_accum(fpos, fquat, a["pos"], self.ctx.orientation(a, c.where))
                self._children(bid, c, (pos, quat), cls, suffix)
            elif tag == "replicate":
                self._replicate(bid, c, frame, active, suffix)
            elif tag == "body":
                self.walk_body(bid, c, frame, active, suffix)
            elif tag == "plugin" and c.key == "el_plugin":  # bound after compilation (parsers.mjcf.plugins)
                self.ctx.body_plugins.append((bid, c))
            elif tag == "attach":
                if self.attach_handler is None:
                    raise error_at(c.where, "attach is not available here")
                self.attach_handler(self, bid, c, frame, suffix)
            else:  # tier-3 element: the reader already warned; keep a record on the model
                self.ctx.unsupported.append(f"{c.where}: <{tag}> is not supported (tier 3); element ignored")

    def walk_body(self, bid: int, c: Element, frame, active: str, suffix: str = "") -> None:
        """Add body element `c` (and its subtree) as a child of body `bid`, inside `frame`."""
        fpos, fquat = frame
        a = _plain(c)
        cls = self.ctx.defaults.check(a["childclass"], c.where) if a.get("childclass") else active
        name = (self.prefix + a["name"] + suffix) if a.get("name") else ""
        if len(self.bodies) >= MAX_BODIES:
            raise error_at(c.where, f"model has more than {MAX_BODIES} bodies (check replicate counts)")
        self.bodies.append(BodyBuild(name, bid, a, c.where, fpos, fquat, ctx=self.ctx))
        self._children(len(self.bodies) - 1, c, (np.zeros(3), np.array([1.0, 0, 0, 0])), cls, suffix)

    def walk_contents(self, bid: int, el: Element, frame, suffix: str = "") -> None:
        """Add the children of a (sub-model) worldbody to body `bid`, inside `frame`."""
        self._children(bid, el, frame, "main", suffix)

    def _replicate(self, bid: int, el: Element, frame, active: str, suffix: str) -> None:
        a = _plain(el)
        count = a["count"]
        if count <= 0:
            raise error_at(el.where, "replicate count must be positive")
        if count > MAX_REPLICAS:
            raise error_at(el.where, f"replicate count {count} exceeds the supported maximum {MAX_REPLICAS}")
        step_q = euler_quat([self.ctx.angle(e) for e in a["euler"]], self.ctx.compiler["eulerseq"])
        offset = np.asarray(a["offset"], float)
        pos, quat = np.zeros(3), np.array([1.0, 0, 0, 0])
        ndig = len(str(count))
        outer = self.copy0
        for i in range(count):
            self.copy0 = outer and i == 0
            qi = euler_quat([self.ctx.angle(i * e) for e in a["euler"]], self.ctx.compiler["eulerseq"])
            rpos, rquat = frame_accum(frame[0], frame[1], pos, qi)
            self._children(bid, el, (rpos, rquat), active, a["sep"] + str(i).zfill(ndig) + suffix)
            pos, quat = pos + rotate(quat, offset), quat_normalize(quat_mul(quat, step_q))
        self.copy0 = outer
