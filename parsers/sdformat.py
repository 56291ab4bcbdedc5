"""SDFormat (1.x) reader: a model or world file → `ModelRecord`s, following Drake's semantics.

Handles nested models (scoped instance names `outer::inner`), `//include` (SDFormat or URDF, by
`model://`, `package://`, `file://` or relative URI, with name/pose/static overrides),
`//frame`, `//pose[@relative_to]` and `//axis/xyz[@expressed_in]` through the frame graph,
links and inertials, joints (revolute, continuous, prismatic, ball, universal, fixed, screw;
revolute2/gearbox are errors), limits, dynamics, actuators (a joint with a non-zero effort limit
gets an actuator of the same name), geometries, surface friction, `drake:` extensions and static
models (each link welded to the world).
"""
from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .errors import Diagnostic, parse_xml, read_model_source
from .model_records import (WORLD, CollisionFilterGroupRecord, FrameRecord, InertialRecord,
                            JointRecord, LinkRecord, ModelRecord)
from .package_map import PackageMap
from .sdformat_frames import MODEL_FRAME, WORLD_FRAME, FrameGraph, join_scope
from .sdformat_geometry import read_geometry
from .sdformat_joints import SdfJointReader
from .xml_values import (child, children, get_attr, invert_transform, make_transform,
                         parse_bool, parse_float, parse_vector, resolve_path, rpy_to_rotation,
                         tag, text_of, quaternion_to_rotation)

__all__ = ["ReadSdf"]

# Elements with no effect on a MultibodyPlant (simulator GUI, sensors, plugins, environment).
_IGNORED = {"self_collide", "enable_wind", "allow_auto_disable", "plugin", "gripper",
            "velocity_decay", "must_be_base_link", "sensor", "projector", "audio_sink",
            "audio_source", "battery", "light", "particle_emitter", "physics", "scene", "gui",
            "spherical_coordinates", "atmosphere", "wind", "magnetic_field", "gravity", "state",
            "road", "population", "audio", "rtf", "camera", "drake:controller_gains",
            "kinematic"}
_MODEL_CHILDREN = {"static", "pose", "link", "joint", "model", "include", "frame",
                   "drake:collision_filter_group", "placement_frame"} | _IGNORED
_LINK_CHILDREN = {"pose", "inertial", "collision", "visual"} | _IGNORED


class _SdfReader(SdfJointReader):
    """Reads one top-level file and everything it includes into records and a frame graph."""

    def __init__(self, package_map: PackageMap, strict: bool) -> None:
        self.package_map = package_map
        self.strict = strict
        self.graph = FrameGraph()
        self.models: list[ModelRecord] = []
        self.pending: list = []   # callables run once every frame is declared
        self.include_depth = 0
        self.world_frames: list[FrameRecord] = []

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
                   static: Optional[bool] = None, parent_static: bool = False) -> ModelRecord:
        name = name or self.required_name(node, diag)
        scope = join_scope(parent_scope, name)
        self.warn_unknown(node, _MODEL_CHILDREN, diag)
        model = ModelRecord(name=scope, filename=diag.filename, format="sdf")
        if any(m.name == scope for m in self.models):
            diag.error(node, f"model instance name '{scope}' is used twice")
        self.models.append(model)
        if static is None:
            static_node = child(node, "static")
            static = parent_static or (static_node is not None and parse_bool(
                text_of(static_node), diag, static_node, "<static>"))
        model.static = static or parent_static
        if child(node, "placement_frame") is not None or get_attr(node, "placement_frame"):
            diag.error(node, "placement_frame is not supported")
        pose_ref, X = pose if pose is not None else self.pose_of(node, diag)
        link_nodes = list(children(node, "link"))
        nested_nodes = [c for c in children(node) if tag(c) in ("model", "include")]
        canonical = get_attr(node, "canonical_link")
        model_frame = join_scope(scope, MODEL_FRAME)
        first_canonical = None
        if canonical:
            first_canonical = canonical
        elif link_nodes:
            first_canonical = get_attr(link_nodes[0], "name")
        self.graph.add(model_frame, parent_scope, pose_ref, X, None, node, diag, "model")
        link_names = []
        for ln in link_nodes:
            link = self.read_link(ln, scope, diag, root_dir, model)
            link_names.append(link.name)
        for fn in children(node, "frame"):
            fname = self.required_name(fn, diag)
            attached = get_attr(fn, "attached_to") or MODEL_FRAME
            rel, X_RF = self.pose_of(fn, diag)
            self.graph.add(join_scope(scope, fname), scope, rel if rel else attached, X_RF,
                           attached, fn, diag, "frame")
            model.frames.append(FrameRecord(fname, "", "", np.eye(4), fn.sourceline))
            self.pending.append(lambda m=model, f=model.frames[-1], s=scope:
                                self.finish_frame(m, f, s))
        for nn in nested_nodes:
            if tag(nn) == "model":
                sub = self.read_model(nn, scope, diag, root_dir, parent_static=model.static)
            else:
                sub = self.read_include(nn, scope, diag, root_dir, model.static)
            if first_canonical is None:
                first_canonical = sub.name[len(scope) + 2:]
        # The model frame is attached to its canonical link (or nested model's canonical link).
        self.graph.frames[model_frame].attach_ref = first_canonical
        self.graph.frames[model_frame].attach_scope = scope
        if first_canonical is None:
            diag.error(node, f"model '{scope}' has no links: a model needs at least one link")
        for jn in children(node, "joint"):
            self.read_joint(jn, scope, diag, model)
        for gn in children(node, "drake:collision_filter_group"):
            model.collision_filter_groups.append(self.read_filter_group(gn, diag, scope))
        self.pending.append(lambda: self.finish_model(model, link_names))
        return model

    def read_include(self, node, parent_scope: str, diag: Diagnostic, root_dir: str,
                     parent_static: bool) -> ModelRecord:
        self.warn_unknown(node, {"uri", "name", "pose", "static", "plugin", "placement_frame",
                                 "merge"}, diag)
        if self.include_depth > 32:
            diag.error(node, "includes nested more than 32 deep (an include cycle?)")
        uri_node = child(node, "uri")
        if uri_node is None or not text_of(uri_node):
            diag.error(node, "<include> needs a <uri>")
        if get_attr(node, "merge") in ("true", "1"):
            diag.error(node, "<include merge=\"true\"> is not supported")
        path = resolve_path(diag, uri_node, text_of(uri_node), self.package_map, root_dir)
        if os.path.isdir(path):
            path = self.model_file_in_folder(path, diag, uri_node)
        name_node = child(node, "name")
        name = text_of(name_node) if name_node is not None else None
        if name_node is not None and (not name or "::" in name or name == WORLD_FRAME):
            diag.error(name_node, f"invalid include name {name!r}: it must be non-empty, not "
                                  f"'world', and contain no '::'")
        static_node = child(node, "static")
        static = None if static_node is None else parse_bool(text_of(static_node), diag,
                                                             static_node, "<static>")
        pose = self.pose_of(node, diag) if child(node, "pose") is not None else None
        self.include_depth += 1
        try:
            if path.endswith(".urdf"):
                return self.include_urdf(path, parent_scope, name, pose, node, diag)
            sub_diag = Diagnostic(path, self.strict)
            with open(path, "rb") as f:
                root = parse_xml(f.read(), sub_diag)
            model_nodes = self.check_sdf_root(root, sub_diag)
            if len(model_nodes) != 1 or tag(model_nodes[0]) != "model":
                diag.error(node, f"included file '{path}' must contain exactly one <model>")
            return self.read_model(model_nodes[0], parent_scope, sub_diag, os.path.dirname(path),
                                   name=name, pose=pose,
                                   static=(static or parent_static) if static is not None
                                   or parent_static else None)
        finally:
            self.include_depth -= 1

    def model_file_in_folder(self, folder: str, diag: Diagnostic, node) -> str:
        config = os.path.join(folder, "model.config")
        if os.path.isfile(config):
            cdiag = Diagnostic(config, self.strict)
            with open(config, "rb") as f:
                root = parse_xml(f.read(), cdiag)
            sdfs = [text_of(s) for s in children(root, "sdf") if text_of(s)]
            if sdfs:
                return os.path.join(folder, sdfs[-1])
        candidate = os.path.join(folder, "model.sdf")
        if os.path.isfile(candidate):
            return candidate
        diag.error(node, f"folder '{folder}' has neither a model.config naming an <sdf> file nor "
                         f"a model.sdf")

    def include_urdf(self, path: str, parent_scope: str, name: Optional[str], pose, node,
                     diag: Diagnostic) -> ModelRecord:
        from .model_records import CalcLinkPosesInWorld
        from .urdf import ReadUrdf
        model = ReadUrdf(path, package_map=self.package_map, strict=self.strict)[0]
        local = name or model.name
        scope = join_scope(parent_scope, local)
        model.name = scope
        for j in model.joints:
            j.child_model = scope
            j.parent_model = scope if j.parent != WORLD else ""
        for f in model.frames:
            f.body_model = scope if f.body != WORLD else ""
        self.models.append(model)
        pose_ref, X = pose if pose is not None else (None, np.eye(4))
        model_frame = join_scope(scope, MODEL_FRAME)
        self.graph.add(model_frame, parent_scope, pose_ref, X, None, node, diag, "model")
        # Link poses at q = 0 relative to the model frame, from the URDF joint tree.
        X_ML = CalcLinkPosesInWorld([model])
        for lk in model.links:
            self.graph.add(join_scope(scope, lk.name), scope, MODEL_FRAME,
                           X_ML[(scope, lk.name)], None, node, diag, "link")
        if not model.links:
            diag.error(node, f"included URDF '{path}' has no links")
        self.graph.frames[model_frame].attach_ref = model.links[0].name
        self.graph.frames[model_frame].attach_scope = scope

        def finish():
            model.X_WM = self.graph.X_W(model_frame)
            for j in model.joints:
                if j.parent == WORLD:
                    j.X_PJ = model.X_WM @ j.X_PJ
        self.pending.append(finish)
        return model

    # ---- links ----------------------------------------------------------------------------
    def read_link(self, node, scope: str, diag: Diagnostic, root_dir: str,
                  model: ModelRecord) -> LinkRecord:
        name = self.required_name(node, diag)
        self.warn_unknown(node, _LINK_CHILDREN, diag)
        rel, X = self.pose_of(node, diag)
        self.graph.add(join_scope(scope, name), scope, rel if rel else MODEL_FRAME, X, None,
                       node, diag, "link")
        link = LinkRecord(name=name, line=node.sourceline)
        for flag, default in (("kinematic", False), ("gravity", True)):
            e = child(node, flag)
            if e is not None and parse_bool(text_of(e), diag, e, f"<{flag}>") != default:
                diag.warning(e, f"link '{name}': <{flag}>{text_of(e)}</{flag}> is not supported "
                                f"by MultibodyPlant and is ignored")
        link.inertial = self.read_inertial(child(node, "inertial"), diag)
        for role in ("visual", "collision"):
            names = set()
            for g in children(node, role):
                rec, rel_g = read_geometry(g, role, diag, self.package_map, root_dir,
                                           self.parse_pose)
                if rec is None:
                    continue
                if rec.name in names:
                    diag.error(g, f"link '{name}' has two {role}s named '{rec.name}'")
                names.add(rec.name)
                (link.visuals if role == "visual" else link.collisions).append(rec)
                if rel_g is not None:
                    self.pending.append(lambda r=rec, ref=rel_g, n=g, ln=name:
                                        self.reexpress_geometry(r, ref, n, diag, scope, ln))
        model.links.append(link)
        return link

    def reexpress_geometry(self, rec, ref: str, node, diag, scope: str, link: str) -> None:
        frame = self.graph.resolve_name(ref, scope, diag, node, "relative_to")
        rec.X_BG = self.graph.X_AB(join_scope(scope, link), frame) @ rec.X_BG

    def read_inertial(self, node, diag: Diagnostic) -> InertialRecord:
        if node is None:  # SDFormat's defaults: unit mass, unit inertia
            return InertialRecord(1.0, np.zeros(3), np.eye(3))
        self.warn_unknown(node, {"pose", "mass", "inertia", "density", "auto",
                                 "fluid_added_mass"}, diag)
        p = child(node, "pose")
        X = np.eye(4)
        if p is not None:
            rel, X = self.parse_pose(p, diag)
            if rel is not None:
                diag.error(p, "//inertial/pose with relative_to is not supported")
        mass = self.value(node, "mass", diag, 1.0)
        if mass < 0:
            diag.error(child(node, "mass"), f"negative mass {mass}")
        inertia = child(node, "inertia")
        v = {k: self.value(inertia, k, diag, 1.0 if k in ("ixx", "iyy", "izz") else 0.0)
             for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
        R = X[:3, :3]
        return InertialRecord(mass, X[:3, 3].copy(), R @ I @ R.T)

    def finish_frame(self, model: Optional[ModelRecord], rec: FrameRecord, scope: str) -> None:
        full = join_scope(scope, rec.name)
        body = self.graph.body_of(full)
        if body == WORLD_FRAME:
            rec.body, rec.body_model = WORLD, ""
        else:
            rec.body_model, _, rec.body = body.rpartition("::")
        rec.X_BF = self.graph.X_AB(body, full)

    def finish_model(self, model: ModelRecord, link_names: list) -> None:
        scope = model.name
        model.X_WM = self.graph.X_W(join_scope(scope, MODEL_FRAME))
        X_MW = invert_transform(model.X_WM)
        for lk in model.links:
            lk.X_MB = X_MW @ self.graph.X_W(join_scope(scope, lk.name))
        if model.static:
            for lk in model.links:
                model.joints.append(JointRecord(
                    name=f"sdformat_model_static_world_welds_to_{lk.name}", type="fixed",
                    parent=WORLD, child=lk.name, parent_model="", child_model=scope,
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
        return items

    def read_world(self, node, diag: Diagnostic, root_dir: str) -> None:
        known = {"model", "include", "frame", "joint"} | _IGNORED
        self.warn_unknown(node, known, diag)
        for c in children(node):
            t = tag(c)
            if t == "model":
                self.read_model(c, "", diag, root_dir)
            elif t == "include":
                self.read_include(c, "", diag, root_dir, False)
            elif t == "frame":
                fname = self.required_name(c, diag)
                attached = get_attr(c, "attached_to") or WORLD_FRAME
                rel, X = self.pose_of(c, diag)
                self.graph.add(fname, "", rel if rel else attached, X, attached, c, diag, "frame")
                self.world_frames.append(FrameRecord(fname, "", "", np.eye(4), c.sourceline))
            elif t == "joint":
                diag.error(c, "joints at world scope are not supported; put the joint in a model "
                              "and name 'world' as its parent")

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
