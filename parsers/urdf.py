"""URDF reader: a `<robot>` file → one `ModelRecord`, following Drake's URDF semantics.

Supported: links (inertial, visual, collision with box/cylinder/sphere/capsule/ellipsoid/mesh),
materials (top-level and inline), joints (revolute, continuous, prismatic, fixed, floating,
planar; `drake:joint` ball, universal, screw), limits (position, velocity, effort,
`drake:acceleration`), dynamics (damping, friction), mimic, SimpleTransmission actuators with
`drake:rotor_inertia` / `drake:gear_ratio`, `<frame>`, `drake:proximity_properties`,
`drake:collision_filter_group`, `drake:linear_bushing_rpy`, `drake:ball_constraint`. Xacro
files must be expanded by xacro first.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .errors import Diagnostic, read_model_source
from .model_records import (WORLD, ActuatorRecord, CollisionFilterGroupRecord, FrameRecord,
                            InertialRecord, JointRecord, LinkRecord, MimicRecord, ModelRecord)
from .package_map import PackageMap
from .sdformat_drake import BALL_CONSTRAINT, BUSHING, read_ball_constraint, read_bushing
from .urdf_geometry import UrdfGeometryReader
from .xml_values import (child, children, get_attr, make_transform, parse_float, parse_vector,
                         rpy_to_rotation, tag, text_of)

__all__ = ["ReadUrdf", "XACRO_MESSAGE"]

XACRO_MESSAGE = ("xacro is not supported: run xacro first (e.g. `xacro model.urdf.xacro > "
                 "model.urdf`) and load the generated .urdf")

_ROBOT_CHILDREN = {"link", "joint", "drake:joint", "transmission", "material", "frame",
                   "drake:collision_filter_group", "gazebo", BUSHING, BALL_CONSTRAINT}
_LINK_CHILDREN = {"inertial", "visual", "collision", "self_collision_checking"}
_JOINT_CHILDREN = {"origin", "parent", "child", "axis", "limit", "dynamics", "mimic",
                   "drake:screw_thread_pitch"}
_STANDARD_JOINTS = {"revolute", "continuous", "prismatic", "fixed", "floating", "planar"}
_DRAKE_JOINTS = {"ball", "universal", "screw"}


class _UrdfReader(UrdfGeometryReader):
    def __init__(self, diag: Diagnostic, package_map: PackageMap, root_dir: Optional[str]):
        self.diag = diag
        self.package_map = package_map
        self.root_dir = root_dir

    # ---- small helpers --------------------------------------------------------------------
    def required_attr(self, node, name: str) -> str:
        value = get_attr(node, name)
        if value is None or (name == "name" and not value.strip()):
            self.diag.error(node, f"missing required attribute '{name}'")
        return value

    def float_attr(self, node, name: str, default: Optional[float] = None,
                   allow_inf: bool = False) -> Optional[float]:
        value = get_attr(node, name)
        if value is None:
            return default
        return parse_float(value, self.diag, node, f"attribute '{name}'", allow_inf)

    def vector_attr(self, node, name: str, size: int, default=None) -> Optional[np.ndarray]:
        value = get_attr(node, name)
        if value is None:
            return None if default is None else np.array(default, dtype=float)
        return parse_vector(value, self.diag, node, f"attribute '{name}'", size)

    def origin(self, node) -> np.ndarray:
        """X from an element carrying xyz/rpy attributes (identity when node is None)."""
        if node is None:
            return np.eye(4)
        xyz = self.vector_attr(node, "xyz", 3, (0, 0, 0))
        rpy = self.vector_attr(node, "rpy", 3, (0, 0, 0))
        return make_transform(rpy_to_rotation(rpy), xyz)

    def warn_unknown(self, node, known: set) -> None:
        for c in children(node):
            if tag(c) not in known:
                self.diag.warning(c, f"unknown or unsupported element <{tag(c)}> in "
                                       f"<{tag(node)}> is ignored")

    # ---- model ----------------------------------------------------------------------------
    def read(self, root, model_name: Optional[str]) -> ModelRecord:
        if tag(root) != "robot":
            if any(t.startswith("xacro:") for t in (tag(e) for e in root.iter()
                                                    if isinstance(e.tag, str))):
                self.diag.error(root, XACRO_MESSAGE)
            self.diag.error(root, f"a URDF file's root element must be <robot>, not <{tag(root)}>")
        for e in root.iter():
            if isinstance(e.tag, str) and tag(e).startswith("xacro:"):
                self.diag.error(e, XACRO_MESSAGE)
        name = model_name or get_attr(root, "name")
        if not name:
            self.diag.error(root, "missing required attribute 'name' (or pass a model name)")
        if not name.replace("::", ""):
            self.diag.error(root, f"model name {name!r} is empty: it holds only '::' scope separators")
        model = ModelRecord(name=name, filename=self.diag.filename, format="urdf")
        if get_attr(root, "version") is not None:  # as urdfdom and Drake: read nowhere, so said to be ignored
            self.diag.warning(root, "The attribute 'version' found in a 'robot' tag is currently unsupported and "
                                    "will be ignored.")
        self.warn_unknown(root, _ROBOT_CHILDREN)
        for m in children(root, "material"):
            self.material(m, model.materials, top_level=True)
        seen: dict = {}
        for lk in children(root, "link"):
            link = self.link(lk, model)
            if link is None:
                continue
            if link.name in seen:
                self.diag.error(lk, f"duplicate link name '{link.name}' (first on line "
                                    f"{seen[link.name]})")
            seen[link.name] = lk.sourceline
            model.links.append(link)
        links = {lk.name for lk in model.links}
        joint_nodes = [j for j in children(root) if tag(j) in ("joint", "drake:joint")]
        joints_by_name: dict = {}
        for jn in joint_nodes:
            joint = self.joint(jn, links, name)
            if joint is None:
                continue
            if any(j.name == joint.name for j in model.joints) or joint.name in joints_by_name:
                self.diag.error(jn, f"duplicate joint name '{joint.name}'")
            joints_by_name[joint.name] = joint
            if joint.type != "floating":
                model.joints.append(joint)
        self.check_tree(model, joint_nodes)
        for t in children(root, "transmission"):
            act = self.transmission(t, joints_by_name)
            if act is not None:
                if any(a.name == act.name for a in model.actuators):
                    self.diag.error(t, f"duplicate actuator name '{act.name}'")
                model.actuators.append(act)
        for f in children(root, "frame"):
            fname = self.required_attr(f, "name")
            body = self.required_attr(f, "link")
            if body not in links and body != WORLD:
                self.diag.error(f, f"frame '{fname}' refers to link '{body}' which does not "
                                   f"exist; links: {sorted(links)}")
            model.frames.append(FrameRecord(fname, body, name if body != WORLD else "",
                                            self.origin(f), f.sourceline))
        for g in children(root, "drake:collision_filter_group"):
            model.collision_filter_groups.append(self.filter_group(g, links))
        for e in children(root, BUSHING):
            model.bushings.append(read_bushing(e, self.diag, urdf=True))
        for e in children(root, BALL_CONSTRAINT):
            model.ball_constraints.append(read_ball_constraint(e, self.diag, urdf=True))
        for jn in joint_nodes:
            mimic = child(jn, "mimic")
            if mimic is not None:
                jname = get_attr(jn, "name")
                target = self.required_attr(mimic, "joint")
                if target not in joints_by_name:
                    self.diag.error(mimic, f"joint '{jname}' mimics joint '{target}' which does "
                                           f"not exist")
        return model

    def check_tree(self, model: ModelRecord, joint_nodes) -> None:
        parent_of: dict = {}
        by_name = {get_attr(j, "name"): j for j in joint_nodes}
        for j in model.joints:
            if j.child in parent_of:
                self.diag.error(by_name.get(j.name), f"link '{j.child}' is the child of two joints"
                                f" ('{parent_of[j.child]}' and '{j.name}'): URDF models are trees")
            parent_of[j.child] = j.name
        parents = {j.child: j.parent for j in model.joints}
        for start in parents:
            node, steps = start, 0
            while node in parents:
                node = parents[node]
                steps += 1
                if node == start or steps > len(parents):
                    self.diag.error(by_name.get(parent_of[start]),
                                    f"joints form a cycle through link '{start}'")

    # ---- links ----------------------------------------------------------------------------
    def link(self, node, model: ModelRecord) -> Optional[LinkRecord]:
        if get_attr(node, "drake_ignore") == "true":
            return None
        name = self.required_attr(node, "name")
        self.warn_unknown(node, _LINK_CHILDREN)
        inertial_node = child(node, "inertial")
        link = LinkRecord(name=name, line=node.sourceline)
        if inertial_node is not None:
            link.inertial = self.inertial(inertial_node)
        visual_names: set = set()  # geometry names are unique per link and role, as in Drake
        for i, v in enumerate(children(node, "visual")):
            link.visuals.append(self.geometry(v, "visual", name, i, visual_names, model))
        collision_names: set = set()
        for i, c in enumerate(children(node, "collision")):
            link.collisions.append(self.geometry(c, "collision", name, i, collision_names, model))
        if name == WORLD:
            if inertial_node is not None:
                self.diag.warning(inertial_node, "the world link cannot have mass properties; "
                                                 "<inertial> is ignored")
            model.world_geometries.extend(link.visuals + link.collisions)
            return None
        return link

    def inertial(self, node) -> InertialRecord:
        self.warn_unknown(node, {"origin", "mass", "inertia"})
        X = self.origin(child(node, "origin"))
        mass_node = child(node, "mass")
        mass = 0.0
        if mass_node is not None:
            mass = parse_float(self.required_attr(mass_node, "value"), self.diag, mass_node,
                               "attribute 'value'")
            if mass < 0:
                self.diag.error(mass_node, f"negative mass {mass}")
        inertia = child(node, "inertia")
        I = np.zeros((3, 3))
        if inertia is not None:
            v = {k: self.float_attr(inertia, k, 0.0) for k in
                 ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
            I = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                          [v["ixy"], v["iyy"], v["iyz"]],
                          [v["ixz"], v["iyz"], v["izz"]]])
        R = X[:3, :3]
        return InertialRecord(mass=mass, p_BoBcm_B=X[:3, 3].copy(), I_BBcm_B=R @ I @ R.T)

    # ---- joints ---------------------------------------------------------------------------
    def joint(self, node, links: set, model_name: str) -> Optional[JointRecord]:
        if get_attr(node, "drake_ignore") == "true":
            return None
        self.warn_unknown(node, _JOINT_CHILDREN)
        name = self.required_attr(node, "name")
        jtype = self.required_attr(node, "type")
        is_custom = tag(node) == "drake:joint"
        if jtype in _STANDARD_JOINTS and is_custom:
            self.diag.error(node, f"joint '{name}' of type '{jtype}' is a standard joint type "
                                  f"and should be a <joint>")
        if jtype in _DRAKE_JOINTS and not is_custom:
            self.diag.error(node, f"joint '{name}' of type '{jtype}' is a custom joint type and "
                                  f"should be a <drake:joint>")
        if jtype not in _STANDARD_JOINTS and jtype not in _DRAKE_JOINTS:
            self.diag.error(node, f"joint '{name}' has unknown type '{jtype}'; expected one of "
                                  f"{sorted(_STANDARD_JOINTS | _DRAKE_JOINTS)}")
        ends = {}
        for end in ("parent", "child"):
            e = child(node, end)
            if e is None:
                self.diag.error(node, f"joint '{name}' has no <{end}>")
            link = self.required_attr(e, "link")
            if link not in links and link != WORLD:
                self.diag.error(e, f"joint '{name}' refers to {end} link '{link}' which does "
                                   f"not exist; links: {sorted(links)}")
            ends[end] = link
        if ends["child"] == WORLD:
            self.diag.error(child(node, "child"), f"joint '{name}': the world cannot be a child")
        if ends["child"] == ends["parent"]:
            self.diag.error(node, f"joint '{name}' connects link '{ends['child']}' to itself")
        rec = JointRecord(name=name, type=jtype, parent=ends["parent"], child=ends["child"],
                          parent_model="" if ends["parent"] == WORLD else model_name,
                          child_model=model_name, line=node.sourceline)
        rec.X_PJ = self.origin(child(node, "origin"))
        axis_node = child(node, "axis")
        if axis_node is not None and jtype not in ("fixed", "floating", "ball"):
            axis = self.vector_attr(axis_node, "xyz", 3, (1, 0, 0))
            norm = float(np.linalg.norm(axis))
            if norm < 1e-8:
                self.diag.error(axis_node, f"joint '{name}' axis is zero")
            rec.axis = axis / norm
        ndof = {"revolute": 1, "continuous": 1, "prismatic": 1, "screw": 1, "fixed": 0,
                "floating": 6, "planar": 3, "ball": 3, "universal": 2}[jtype]
        inf = np.inf
        rec.lower, rec.upper = np.full(ndof, -inf), np.full(ndof, inf)
        rec.velocity, rec.acceleration = np.full(ndof, inf), np.full(ndof, inf)
        rec.damping = np.zeros(ndof)
        limit = child(node, "limit")
        if jtype in ("revolute", "continuous", "prismatic") and limit is not None:
            rec.lower[:] = self.float_attr(limit, "lower", -inf, allow_inf=True)
            rec.upper[:] = self.float_attr(limit, "upper", inf, allow_inf=True)
            rec.velocity[:] = self.float_attr(limit, "velocity", inf, allow_inf=True)
            rec.acceleration[:] = self.float_attr(limit, "drake:acceleration", inf, allow_inf=True)
            rec.effort = self.float_attr(limit, "effort", inf, allow_inf=True)
            if rec.lower[0] > rec.upper[0]:
                self.diag.error(limit, f"joint '{name}': lower limit {rec.lower[0]} exceeds "
                                       f"upper limit {rec.upper[0]}")
        dyn = child(node, "dynamics")
        if dyn is not None and jtype not in ("fixed", "floating"):
            if jtype == "planar":
                rec.damping = self.vector_attr(dyn, "damping", 3, (0, 0, 0))
            else:
                rec.damping[:] = self.float_attr(dyn, "damping", 0.0)
            rec.friction = self.float_attr(dyn, "friction", 0.0)
            if rec.friction != 0.0:
                self.diag.warning(dyn, f"joint '{name}': non-zero joint friction is not "
                                       f"supported by MultibodyPlant and is ignored")
            if np.any(rec.damping < 0):
                self.diag.error(dyn, f"joint '{name}': damping must be non-negative")
        if jtype == "screw":
            pitch = child(node, "drake:screw_thread_pitch")
            if pitch is None:
                self.diag.error(node, f"screw joint '{name}' needs <drake:screw_thread_pitch>")
            rec.screw_thread_pitch = parse_float(self.required_attr(pitch, "value"), self.diag,
                                                 pitch, "attribute 'value'")
        if jtype == "universal":
            rec.axis, rec.axis2 = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
        if jtype == "floating":
            self.diag.warning(node, f"joint '{name}' of type floating is not supported by "
                                    f"MultibodyPlant; link '{rec.child}' is left a free body")
        mimic = child(node, "mimic")
        if mimic is not None:
            rec.mimic = MimicRecord(joint=get_attr(mimic, "joint") or "",
                                    multiplier=self.float_attr(mimic, "multiplier", 1.0),
                                    offset=self.float_attr(mimic, "offset", 0.0))
        return rec

    def transmission(self, node, joints: dict) -> Optional[ActuatorRecord]:
        type_node = child(node, "type")
        ttype = text_of(type_node) if type_node is not None else get_attr(node, "type")
        if not ttype:
            self.diag.error(node, "transmission has no type")
        if "SimpleTransmission" not in ttype:
            self.diag.warning(node, f"transmission type '{ttype}' is not SimpleTransmission; "
                                    f"only SimpleTransmission is supported, ignored")
            return None
        act = child(node, "actuator")
        if act is None:
            self.diag.error(node, "transmission has no <actuator>")
        act_name = self.required_attr(act, "name")
        jnode = child(node, "joint")
        if jnode is None:
            self.diag.error(node, "transmission has no <joint>")
        jname = self.required_attr(jnode, "name")
        if jname not in joints:
            self.diag.error(jnode, f"transmission refers to joint '{jname}' which does not "
                                   f"exist; joints: {sorted(joints)}")
        joint = joints[jname]
        if joint.type == "fixed" or joint.type == "floating":
            self.diag.warning(jnode, f"transmission on {joint.type} joint '{jname}' is skipped")
            return None
        if joint.effort < 0:
            self.diag.error(jnode, f"transmission refers to joint '{jname}' which has a negative "
                                   f"effort limit")
        if joint.effort == 0:
            self.diag.warning(jnode, f"transmission on joint '{jname}' with zero effort limit "
                                     f"is skipped")
            return None
        rec = ActuatorRecord(name=act_name, joint=jname, effort_limit=joint.effort,
                             line=act.sourceline)
        for key in ("drake:rotor_inertia", "drake:gear_ratio"):
            e = child(act, key)
            if e is not None:
                value = parse_float(self.required_attr(e, "value"), self.diag, e,
                                    "attribute 'value'")
                setattr(rec, key[6:], value)
        return rec

    def filter_group(self, node, links: set) -> CollisionFilterGroupRecord:
        rec = CollisionFilterGroupRecord(name=self.required_attr(node, "name"),
                                         line=node.sourceline)
        for m in children(node):
            t = tag(m)
            if t == "drake:member":
                link = self.required_attr(m, "link")
                if link not in links:
                    self.diag.error(m, f"collision filter group '{rec.name}' member link "
                                       f"'{link}' does not exist")
                rec.members.append(link)
            elif t == "drake:member_group":
                rec.member_groups.append(self.required_attr(m, "name"))
            elif t == "drake:ignored_collision_filter_group":
                rec.ignored_groups.append(self.required_attr(m, "name"))
            else:
                self.diag.warning(m, f"unknown element <{t}> in collision filter group ignored")
        return rec


def ReadUrdf(filename: Optional[str] = None, *, file_contents: Optional[str] = None,
             package_map: Optional[PackageMap] = None, model_name: Optional[str] = None,
             strict: bool = False) -> list:
    """Read a URDF file (or `file_contents`) into `[ModelRecord]`.

    Relative mesh paths resolve against the file's folder (the working directory for strings).
    Raises ParseError (a ValueError) naming file, line and element on bad input; unknown
    elements are ParseWarnings, or errors when `strict`.
    """
    if (filename is None) == (file_contents is None):
        raise ValueError("ReadUrdf: pass exactly one of filename or file_contents")
    package_map = package_map if package_map is not None else PackageMap()
    root, diag, root_dir = read_model_source(filename, file_contents, strict, XACRO_MESSAGE, ".xacro")
    reader = _UrdfReader(diag, package_map, root_dir)
    return [reader.read(root, model_name)]
