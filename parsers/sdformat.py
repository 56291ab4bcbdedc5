"""SDFormat (1.x) reader: a model or world file → `ModelRecord`s, following Drake's semantics.

Handles world and model files, nested models (scoped instance names `outer::inner`),
`//model/@placement_frame` and `@canonical_link`, `//include` (see `sdformat_includes`),
`//frame`, `//pose[@relative_to]` and `//axis/xyz[@expressed_in]` through the frame graph
(`sdformat_frames`), links (`sdformat_links`), joints and `drake:joint` (`sdformat_joints`),
world-scope fixed joints, geometries (`sdformat_geometry`), Drake's collision filter groups,
`drake:linear_bushing_rpy` and `drake:ball_constraint` (`sdformat_drake`) and static models
(each link welded to the world).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .errors import Diagnostic, read_model_source
from .model_records import (WORLD, CollisionFilterGroupRecord, FrameRecord, JointRecord,
                            ModelRecord)
from .package_map import PackageMap
from .sdformat_drake import BALL_CONSTRAINT, BUSHING, read_ball_constraint, read_bushing
from .sdformat_frames import MODEL_FRAME, WORLD_FRAME, FrameGraph, MergedScope, join_scope
from .sdformat_includes import SdfIncludeReader
from .sdformat_joints import SdfJointReader
from .sdformat_links import IGNORED_ELEMENTS, SdfLinkReader
from .xml_values import (child, children, get_attr, invert_transform, make_transform,
                         parse_bool, parse_float, parse_vector, rpy_to_rotation, tag, text_of,
                         quaternion_to_rotation)

__all__ = ["ReadSdf"]

_IGNORED = IGNORED_ELEMENTS
_MODEL_CHILDREN = {"static", "pose", "link", "joint", "model", "include", "frame",
                   "drake:collision_filter_group", "drake:joint", BUSHING,
                   BALL_CONSTRAINT} | _IGNORED


class _SdfReader(SdfJointReader, SdfIncludeReader, SdfLinkReader):
    """Reads one top-level file and everything it includes into records and a frame graph."""

    def __init__(self, package_map: PackageMap, strict: bool) -> None:
        self.package_map = package_map
        self.strict = strict
        self.graph = FrameGraph()
        self.models: list[ModelRecord] = []
        self.pending: list = []   # callables run once every frame is declared
        self.include_depth = 0
        self.world_frames: list[FrameRecord] = []
        self.urdf_merged_links: set = set()  # (never a model's canonical link, as in pydrake)
        # World-scope (fixed) joints, moved to their child link's model once resolved.
        self.world_joints = ModelRecord(name="", format="sdf")

    # ---- values ---------------------------------------------------------------------------
    def pose_of(self, node, diag: Diagnostic) -> tuple:
        """(relative_to or None, X) of a `<pose>` child of `node` (identity when absent)."""
        p = child(node, "pose")
        if p is None:
            return None, np.eye(4)
        return self.parse_pose(p, diag)

    def parse_pose(self, p, diag: Diagnostic) -> tuple:
        rel = get_attr(p, "relative_to")
        rel = rel if rel else None
        rotation_format = get_attr(p, "rotation_format") or "euler_rpy"
        degrees = parse_bool(get_attr(p, "degrees") or "false", diag, p, "attribute 'degrees'")
        text = text_of(p)
        if rotation_format == "euler_rpy":
            v = parse_vector(text, diag, p, "pose", 6) if text else np.zeros(6)
            rpy = np.deg2rad(v[3:]) if degrees else v[3:]
            return rel, make_transform(rpy_to_rotation(rpy), v[:3])
        if rotation_format == "quat_xyzw":
            v = parse_vector(text, diag, p, "pose", 7)
            if np.linalg.norm(v[3:]) < 1e-12:
                diag.error(p, "pose quaternion is zero")
            return rel, make_transform(quaternion_to_rotation([v[6], v[3], v[4], v[5]]), v[:3])
        diag.error(p, f"unknown rotation_format '{rotation_format}'; expected euler_rpy or "
                      f"quat_xyzw")

    def value(self, node, name: str, diag: Diagnostic, default: Optional[float] = None,
              allow_inf: bool = False) -> Optional[float]:
        e = child(node, name) if node is not None else None
        if e is None:
            return default
        return parse_float(text_of(e), diag, e, f"<{name}>", allow_inf)

    def required_name(self, node, diag: Diagnostic) -> str:
        name = get_attr(node, "name")
        if not name or not name.strip():
            diag.error(node, "missing required attribute 'name'")
        if "::" in name:
            diag.error(node, f"name '{name}' must not contain '::' (reserved for scoping)")
        if name in (WORLD_FRAME, MODEL_FRAME) or (name.startswith("__") and name.endswith("__")):
            diag.error(node, f"name '{name}' is reserved")
        return name

    def warn_unknown(self, node, known: set, diag: Diagnostic) -> None:
        for c in children(node):
            t = tag(c)
            if t not in known:
                diag.warning(c, f"unknown or unsupported element <{t}> in <{tag(node)}> is "
                                f"ignored")

    # ---- models ---------------------------------------------------------------------------
    def read_model(self, node, parent_scope: str, diag: Diagnostic, root_dir: str,
                   name: Optional[str] = None, pose: Optional[tuple] = None,
                   static: Optional[bool] = None, placement: Optional[str] = None,
                   site: Optional[tuple] = None,
                   placement_site: Optional[tuple] = None) -> ModelRecord:
        """Read `<model>` `node` as a new model instance in `parent_scope`. `name`, `pose` and
        `static` override the file's (an `//include`); `placement` overrides
        `//model/@placement_frame`; errors in those name the include's (element, Diagnostic)
        `site` and `placement_site`. As pydrake, `static` is not inherited by nested models."""
        name = name or self.required_name(node, diag)
        scope = join_scope(parent_scope, name)
        model = ModelRecord(name=scope, filename=diag.filename, format="sdf")
        if any(m.name == scope for m in self.models):
            diag.error(node, f"model instance name '{scope}' is used twice")
        self.models.append(model)
        if static is None:
            static_node = child(node, "static")
            static = static_node is not None and parse_bool(text_of(static_node), diag,
                                                            static_node, "<static>")
        model.static = static
        pose_ref, X = pose if pose is not None else self.pose_of(node, diag)
        model_frame = join_scope(scope, MODEL_FRAME)
        # A model's pose is relative to its parent's model frame (the world at world scope).
        self.graph.add(model_frame, parent_scope, pose_ref or MODEL_FRAME, X, None,
                       *(site or (node, diag)), "model")
        self.set_placement(model_frame, node, placement, scope, placement_site)
        canonical = self.read_contents(node, scope, diag, root_dir, model)
        if canonical is None:
            diag.error(node, f"model '{scope}' has no links: a model needs at least one link")
        # The model frame is attached to its canonical link (or nested model's canonical link).
        self.graph.frames[model_frame].attach_ref = canonical
        self.graph.frames[model_frame].attach_scope = scope
        self.pending.append(lambda: self.finish_model(model))
        return model

    def set_placement(self, frame: str, node, placement: Optional[str], scope: str,
                      site: Optional[tuple] = None) -> None:
        """Make the pose of `frame` place `//@placement_frame` (or the include's `placement`,
        named at `site`)."""
        f = self.graph.frames[frame]
        f.placement = placement or get_attr(node, "placement_frame") or None
        f.placement_scope = scope
        if placement:
            f.placement_site = site

    def read_contents(self, node, scope: str, diag: Diagnostic, root_dir: str,
                      model: ModelRecord) -> Optional[str]:
        """Read the links, frames, joints, nested and included models of `<model>` `node` into
        `model` within `scope`, in document order; returns the canonical link's name as seen
        from `scope` (`//@canonical_link`, else the first link, else the first nested model)."""
        self.warn_unknown(node, _MODEL_CHILDREN, diag)
        first_link, first_nested = len(model.links), len(self.models)
        drake_joints = []  # (as pydrake: added after the model's SDFormat joints)
        for c in children(node):
            t = tag(c)
            if t == "link":
                self.read_link(c, scope, diag, root_dir, model)
            elif t == "frame":
                self.read_frame(c, scope, diag, model)
            elif t == "model":
                self.read_model(c, scope, diag, root_dir)
            elif t == "include" and parse_bool(get_attr(c, "merge") or "false", diag, c,
                                               "attribute 'merge'"):
                self.merge_include(c, scope, diag, root_dir, model)
            elif t == "include":
                self.read_include(c, scope, diag, root_dir)
            elif t == "joint":
                self.read_joint(c, scope, diag, model)
            elif t == "drake:joint":
                drake_joints.append(c)
            elif t == BUSHING:
                model.bushings.append(read_bushing(c, diag))
            elif t == BALL_CONSTRAINT:
                model.ball_constraints.append(read_ball_constraint(c, diag))
            elif t == "drake:collision_filter_group":
                if isinstance(scope, MergedScope):
                    diag.warning(c, "collision filter groups of a merged include are ignored "
                                    "(as Drake does)")
                    continue
                model.collision_filter_groups.append(self.read_filter_group(c, diag, scope))
        for c in drake_joints:
            self.read_drake_joint(c, scope, diag, model)
        canonical = get_attr(node, "canonical_link")
        if canonical:
            return canonical
        for lk in model.links[first_link:]:
            if join_scope(scope, lk.name) not in self.urdf_merged_links:
                return lk.name
        base = scope + "::" if scope else ""
        for sub in self.models[first_nested:]:
            local = sub.name[len(base):]
            if sub.name.startswith(base) and "::" not in local:
                return local
        return None

    def read_frame(self, node, scope: str, diag: Diagnostic, model: ModelRecord) -> None:
        """`//model/frame`: attached to `attached_to` (default the model frame) and posed
        relative to `relative_to` (default the frame it is attached to)."""
        fname = self.required_name(node, diag)
        attached = get_attr(node, "attached_to") or MODEL_FRAME
        rel, X_RF = self.pose_of(node, diag)
        self.graph.add(join_scope(scope, fname), scope, rel if rel else attached, X_RF,
                       attached, node, diag, "frame")
        model.frames.append(FrameRecord(fname, "", "", np.eye(4), node.sourceline))
        self.pending.append(lambda m=model, f=model.frames[-1], s=scope:
                            self.finish_frame(m, f, s))

    def finish_frame(self, model: Optional[ModelRecord], rec: FrameRecord, scope: str) -> None:
        full = join_scope(scope, rec.name)
        body = self.graph.body_of(full)
        if body == WORLD_FRAME:
            rec.body, rec.body_model = WORLD, ""
        else:
            rec.body_model, _, rec.body = body.rpartition("::")
        rec.X_BF = self.frame_X_BF(full)
        rec.model = self.frame_model(full)

    def attached_frame(self, full: str) -> str:
        """The scoped name of the frame that frame `full`'s `attached_to` names."""
        f = self.graph.frames[full]
        scope = f.scope if f.attach_scope is None else f.attach_scope
        return self.graph.resolve_name(f.attach_ref, scope, f.diag, f.node, "attached_to")

    def found_by_name(self, a: str) -> bool:
        """Whether pydrake finds //frame `a` by name when another frame is attached to it: it
        looks in the instance the reference's scope names, but the frame may sit in the instance
        of a nested model's frame it is itself attached to."""
        return self.frame_model(a) == a.rpartition("::")[0]

    def frame_model(self, full: str) -> str:
        """The scoped model whose instance pydrake puts frame `full` in, that of the plant frame
        it is fixed to: a link's model, a model frame's own model, another //frame's instance,
        or, for a joint or a frame pydrake does not find by name, the attached body's model;
        "" for the world. (The attached_to chain has no cycle: body_of checked it.)"""
        g = self.graph
        f = g.frames[full]
        if f.kind == "world":
            return ""
        if f.kind == "model":
            return full[: -len("::" + MODEL_FRAME)]
        if f.kind == "link":
            return full.rpartition("::")[0]
        if f.kind == "frame" and f.attach_ref is not None:
            a = self.attached_frame(full)
            if g.frames[a].kind != "frame" or self.found_by_name(a):
                return self.frame_model(a)
        body = g.body_of(full)
        return "" if body == WORLD_FRAME else body.rpartition("::")[0]

    def frame_X_BF(self, full: str) -> np.ndarray:
        """The pose of //frame `full` in its body, as pydrake computes it: its pose in the frame A
        it is attached to composed with A's own such pose, where a joint A, or a //frame A that
        pydrake does not find by name (`found_by_name`), counts as coinciding with its body
        (pydrake then fixes the frame to the body with the pose it has relative to A)."""
        g = self.graph
        a = self.attached_frame(full)
        kind = g.frames[a].kind
        if kind == "joint" or (kind == "frame" and not self.found_by_name(a)):
            return g.X_AB(a, full)
        if kind == "frame":
            return self.frame_X_BF(a) @ g.X_AB(a, full)
        return g.X_AB(g.body_of(full), full)

    def finish_model(self, model: ModelRecord) -> None:
        scope = model.name
        model_frame = join_scope(scope, MODEL_FRAME)
        model.X_WM = self.graph.X_W(model_frame)
        X_MW = invert_transform(model.X_WM)
        for lk in model.links:
            lk.X_MB = X_MW @ self.graph.X_W(join_scope(scope, lk.name))
        body = self.graph.body_of(model_frame)
        if body != WORLD_FRAME:
            # The model frame rides on the canonical link, which `//@canonical_link` may pick in
            # a nested model (as may a model with nested models only); as pydrake, the frame
            # still goes in this model's instance (see Parser._AddFrame).
            body_model, _, link = body.rpartition("::")
            model.frames.append(FrameRecord(MODEL_FRAME, link, body_model,
                                            self.graph.X_AB(body, model_frame), model=scope))

    def weld_static_models(self) -> None:
        """As pydrake: each link of a static model that is no joint's child is welded to the
        world where it is."""
        children_of_joints = {(j.child_model, j.child) for m in self.models for j in m.joints}
        for model in self.models:
            if not model.static:
                continue
            for lk in model.links:
                if (model.name, lk.name) not in children_of_joints:
                    model.joints.append(JointRecord(
                        name=f"sdformat_model_static_world_welds_to_{lk.name}", type="fixed",
                        parent=WORLD, child=lk.name, parent_model="", child_model=model.name,
                        X_PJ=model.X_WM @ lk.X_MB, line=lk.line))

    def read_filter_group(self, node, diag: Diagnostic, scope: str) -> CollisionFilterGroupRecord:
        name = get_attr(node, "name")
        if not name:
            diag.error(node, "missing required attribute 'name'")
        rec = CollisionFilterGroupRecord(name=name, line=node.sourceline)
        for m in children(node):
            t, text = tag(m), text_of(m)
            if t in ("drake:member", "drake:member_group", "drake:ignored_collision_filter_group"):
                if not text:
                    diag.error(m, f"<{t}> is empty")
                {"drake:member": rec.members, "drake:member_group": rec.member_groups,
                 "drake:ignored_collision_filter_group": rec.ignored_groups}[t].append(text)
                if t == "drake:member":
                    self.pending.append(lambda n=m, ref=text: self.check_member(n, ref, scope,
                                                                                diag, name))
            else:
                diag.warning(m, f"unknown element <{t}> in collision filter group is ignored")
        return rec

    def check_member(self, node, ref: str, scope: str, diag: Diagnostic, group: str) -> None:
        full = self.graph.resolve_name(ref, scope, diag, node, f"collision filter group "
                                                               f"'{group}' member")
        if self.graph.frames[full].kind != "link":
            diag.error(node, f"collision filter group '{group}' member '{ref}' is a "
                             f"{self.graph.frames[full].kind}, not a link")

    # ---- files ----------------------------------------------------------------------------
    def check_sdf_root(self, root, diag: Diagnostic) -> list:
        if tag(root) != "sdf":
            diag.error(root, f"an SDFormat file's root element must be <sdf>, not <{tag(root)}>")
        version = get_attr(root, "version")
        if not version:
            diag.error(root, "<sdf> is missing required attribute 'version'")
        if not version.startswith("1."):
            diag.error(root, f"unsupported SDFormat version '{version}' (1.x expected)")
        items = [c for c in children(root) if tag(c) in ("model", "world")]
        for c in children(root):
            if tag(c) not in ("model", "world"):
                diag.warning(c, f"unknown element <{tag(c)}> in <sdf> is ignored")
        if not items:
            diag.error(root, "the file has no <model> or <world>")
        if len(items) > 1:
            worlds = sum(tag(c) == "world" for c in items)
            diag.error(items[1], f"a file must have exactly one <model> or exactly one <world>, "
                                 f"but this one has {len(items) - worlds} models and {worlds} "
                                 f"worlds")
        return items

    def read_world(self, node, diag: Diagnostic, root_dir: str) -> None:
        known = {"model", "include", "frame", "joint"} | _IGNORED
        self.warn_unknown(node, known, diag)
        for c in children(node):
            t = tag(c)
            if t == "model":
                self.read_model(c, "", diag, root_dir)
            elif t == "include" and get_attr(c, "merge") in ("true", "1"):
                self.merge_include(c, "", diag, root_dir, None)
            elif t == "include":
                self.read_include(c, "", diag, root_dir)
            elif t == "frame":
                fname = self.required_name(c, diag)
                attached = get_attr(c, "attached_to") or WORLD_FRAME
                rel, X = self.pose_of(c, diag)
                self.graph.add(fname, "", rel if rel else attached, X, attached, c, diag, "frame")
                self.world_frames.append(FrameRecord(fname, "", "", np.eye(4), c.sourceline))
            elif t == "joint":
                if get_attr(c, "type") != "fixed":
                    diag.error(c, f"only fixed joints are permitted in world joints; joint "
                                  f"'{get_attr(c, 'name')}' is '{get_attr(c, 'type')}'")
                self.read_joint(c, "", diag, self.world_joints)

    def run(self, root, diag: Diagnostic, root_dir: str) -> list:
        for item in self.check_sdf_root(root, diag):
            if tag(item) == "world":
                self.read_world(item, diag, root_dir)
            else:
                self.read_model(item, "", diag, root_dir)
        for step in self.pending:
            step()
        for rec in self.world_frames:
            self.finish_frame(None, rec, "")
        by_name = {m.name: m for m in self.models}
        for j in self.world_joints.joints:  # (pydrake puts a joint in its child's instance)
            by_name[j.child_model].joints.append(j)
        self.weld_static_models()
        if self.world_frames and self.models:
            # World-scope frames belong to the world model instance (body_model may be "" or a
            # model, as `attached_to` says); they ride along with the first model's records.
            self.models[0].frames.extend(self.world_frames)
        return self.models


def ReadSdf(filename: Optional[str] = None, *, file_contents: Optional[str] = None,
            package_map: Optional[PackageMap] = None, strict: bool = False) -> list:
    """Read an SDFormat file (or `file_contents`) into a list of `ModelRecord`s, outer models
    before the models they nest or include.

    Raises ParseError (a ValueError) naming file, line and element on bad input; unknown
    elements are ParseWarnings, or errors when `strict`.
    """
    if (filename is None) == (file_contents is None):
        raise ValueError("ReadSdf: pass exactly one of filename or file_contents")
    package_map = package_map if package_map is not None else PackageMap()
    root, diag, root_dir = read_model_source(filename, file_contents, strict)
    return _SdfReader(package_map, strict).run(root, diag, root_dir)
