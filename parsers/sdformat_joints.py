"""SDFormat joints → JointRecord / ActuatorRecord (a mixin of the SDFormat reader).

Joint poses default to the child frame; `<parent>`/`<child>` may name any frame (the joint
attaches to the link that frame is attached to); `//axis/xyz[@expressed_in]` (or 1.6's
`use_parent_model_frame`) is re-expressed in the joint frame J through the frame graph. As in
Drake, a single-dof joint with a non-zero effort limit (negative meaning unlimited) gets an
actuator of the same name, with `drake:gear_ratio` and `drake:rotor_inertia`; static models
take fixed joints only; `<drake:joint type="planar">` is Drake's planar joint.
"""
from __future__ import annotations

import numpy as np

from .errors import Diagnostic
from .model_records import WORLD, ActuatorRecord, JointRecord, MimicRecord, ModelRecord
from .sdformat_frames import MODEL_FRAME, WORLD_FRAME, join_scope
from .xml_values import child, get_attr, parse_bool, parse_float, parse_vector, tag, text_of

__all__ = ["SdfJointReader"]

_JOINT_CHILDREN = {"pose", "parent", "child", "axis", "axis2", "drake:gear_ratio",
                   "drake:rotor_inertia", "drake:mimic", "screw_thread_pitch", "physics",
                   "sensor", "drake:controller_gains"}
_JOINT_DOFS = {"revolute": 1, "continuous": 1, "prismatic": 1, "screw": 1, "fixed": 0,
               "ball": 3, "universal": 2}


class SdfJointReader:
    """Joint parsing for the SDFormat reader (needs its graph, pending list and value helpers)."""

    def read_joint(self, node, scope: str, diag: Diagnostic, model: ModelRecord) -> None:
        name = self.required_name(node, diag)
        jtype = get_attr(node, "type")
        if not jtype:
            diag.error(node, f"joint '{name}' is missing required attribute 'type'")
        if jtype in ("revolute2", "gearbox"):
            diag.error(node, f"joint '{name}': type '{jtype}' is not supported by MultibodyPlant")
        if jtype not in _JOINT_DOFS:
            diag.error(node, f"joint '{name}' has unknown type '{jtype}'; expected one of "
                             f"{sorted(_JOINT_DOFS)}")
        if model.static and jtype != "fixed":
            diag.error(node, f"joint '{name}': only fixed joints are permitted in static models "
                             f"(this one is {jtype})")
        self.warn_unknown(node, _JOINT_CHILDREN, diag)
        ends = {}
        for end in ("parent", "child"):
            e = child(node, end)
            if e is None or not text_of(e):
                diag.error(node if e is None else e, f"joint '{name}' needs a <{end}> frame name")
            ends[end] = (text_of(e), e)
        rel, X = self.pose_of(node, diag)
        frame = join_scope(scope, name)
        self.graph.add(frame, scope, rel if rel else ends["child"][0], X, ends["child"][0], node,
                       diag, "joint", "relative_to" if rel else f"joint '{name}' child")
        rec = JointRecord(name=name, type=jtype, parent="", child="", line=node.sourceline)
        ndof = _JOINT_DOFS[jtype]
        inf = np.inf
        rec.lower, rec.upper = np.full(ndof, -inf), np.full(ndof, inf)
        rec.velocity, rec.acceleration = np.full(ndof, inf), np.full(ndof, inf)
        rec.damping = np.zeros(ndof)
        axis_nodes = [child(node, "axis"), child(node, "axis2")]
        if jtype in ("revolute", "continuous", "prismatic", "screw"):
            if axis_nodes[0] is None:
                diag.error(node, f"an <axis> must be specified for {jtype} joint '{name}'")
            self.read_axis_limits(axis_nodes[0], rec, diag, jtype)
        elif jtype in ("ball", "universal") and axis_nodes[0] is not None:
            # As Drake: the first axis' damping applies to every degree of freedom.
            rec.damping[:] = self.value(child(axis_nodes[0], "dynamics"), "damping", diag, 0.0)
        if jtype == "screw":
            pitch = child(node, "screw_thread_pitch")
            rec.screw_thread_pitch = 1.0 if pitch is None else parse_float(
                text_of(pitch), diag, pitch, "<screw_thread_pitch>")
        mimic = child(node, "drake:mimic")
        if mimic is not None:
            rec.mimic = MimicRecord(
                joint=get_attr(mimic, "joint") or diag.error(mimic, "missing attribute 'joint'"),
                multiplier=float(parse_float(get_attr(mimic, "multiplier") or "1", diag, mimic,
                                             "attribute 'multiplier'")),
                offset=float(parse_float(get_attr(mimic, "offset") or "0", diag, mimic,
                                         "attribute 'offset'")))
        model.joints.append(rec)
        if ndof == 1 and jtype != "universal" and rec.effort != 0:
            act = ActuatorRecord(name=name, joint=name, effort_limit=rec.effort,
                                 line=node.sourceline)
            for key in ("drake:gear_ratio", "drake:rotor_inertia"):
                e = child(node, key)
                if e is not None:
                    setattr(act, key[6:], parse_float(text_of(e), diag, e, f"<{key}>"))
            model.actuators.append(act)
        elif jtype == "universal" and rec.effort not in (0, inf):
            diag.warning(node, f"actuation of universal joint '{name}' is not supported; ignored")
        self.pending.append(lambda: self.finish_joint(rec, ends, axis_nodes[0], frame, scope,
                                                      diag, node))

    def read_drake_joint(self, node, scope: str, diag: Diagnostic, model: ModelRecord) -> None:
        """`<drake:joint type="planar">` (the only type Drake's SDFormat parser takes): frame F is
        `drake:parent`, frame M is `drake:child`, the plane is F's xy plane, and the three
        `drake:damping` values damp (x, y, θ)."""
        name = self.required_name(node, diag)
        jtype = get_attr(node, "type")
        if jtype != "planar":
            diag.error(node, f"<drake:joint> '{name}' has unrecognized value for 'type' "
                             f"attribute: {jtype}; only 'planar' is supported in SDFormat")
        ends = {}
        for c in node:
            if not isinstance(c.tag, str):
                continue
            t = tag(c)
            if t in ("drake:parent", "drake:child"):
                ends[t[6:]] = (text_of(c), c)
            elif t != "drake:damping":
                diag.error(c, f"<drake:joint> '{name}': unsupported element <{t}> (it takes "
                              f"<drake:parent>, <drake:child> and <drake:damping>)")
        for end in ("parent", "child"):
            if not ends.get(end, ("", None))[0]:
                diag.error(node, f"<drake:joint> '{name}' needs a <drake:{end}> frame name")
        damping = child(node, "drake:damping")
        if damping is None:
            diag.error(node, f"<drake:joint> '{name}': unable to find the <drake:damping> child "
                             f"tag")
        rec = JointRecord(name=name, type="planar", parent="", child="", line=node.sourceline,
                          axis=np.array([0.0, 0.0, 1.0]),
                          damping=parse_vector(text_of(damping), diag, damping,
                                               "<drake:damping>", 3))
        if np.any(rec.damping < 0):
            diag.error(damping, f"<drake:joint> '{name}': damping must be non-negative")
        model.joints.append(rec)
        self.pending.append(lambda: self.finish_drake_joint(rec, ends, scope, diag))

    def finish_drake_joint(self, rec: JointRecord, ends: dict, scope: str,
                           diag: Diagnostic) -> None:
        g = self.graph
        for end, X_name in (("parent", "X_PJ"), ("child", "X_CJ")):
            ref, e = ends[end]
            full = g.resolve_name(ref, scope, diag, e, f"joint '{rec.name}' {end}",
                                  allow_world=True)
            body = g.body_of(full)
            if body == WORLD_FRAME:
                if end == "child":
                    diag.error(e, f"joint '{rec.name}': the world cannot be a child")
                rec.parent, rec.parent_model = WORLD, ""
            else:
                model, _, link = body.rpartition("::")
                setattr(rec, end, link)
                setattr(rec, end + "_model", model)
            setattr(rec, X_name, g.X_AB(body, full))

    def read_axis_limits(self, ax, rec: JointRecord, diag: Diagnostic, jtype: str) -> None:
        limit = child(ax, "limit")
        if limit is not None:
            lower = self.value(limit, "lower", diag, -np.inf, allow_inf=True)
            upper = self.value(limit, "upper", diag, np.inf, allow_inf=True)
            if jtype != "continuous":
                rec.lower[:], rec.upper[:] = lower, upper
                if lower > upper:
                    diag.error(limit, f"joint '{rec.name}': lower limit {lower} exceeds upper "
                                      f"limit {upper}")
            velocity = self.value(limit, "velocity", diag, -1.0, allow_inf=True)
            rec.velocity[:] = np.inf if velocity < 0 else velocity
            accel = self.value(limit, "drake:acceleration", diag, -1.0, allow_inf=True)
            rec.acceleration[:] = np.inf if accel < 0 else accel
            effort = self.value(limit, "effort", diag, -1.0, allow_inf=True)
            rec.effort = np.inf if effort < 0 else effort
        else:
            rec.effort = np.inf
        dyn = child(ax, "dynamics")
        if dyn is not None:
            rec.damping[:] = self.value(dyn, "damping", diag, 0.0)
            if rec.damping[0] < 0:
                diag.error(dyn, f"joint '{rec.name}': damping must be non-negative")
            rec.friction = self.value(dyn, "friction", diag, 0.0)
            if rec.friction != 0.0:
                diag.warning(dyn, f"joint '{rec.name}': non-zero joint friction is not supported "
                                  f"by MultibodyPlant and is ignored")
            rec.spring_reference = self.value(dyn, "spring_reference", diag, 0.0)
            rec.spring_stiffness = self.value(dyn, "spring_stiffness", diag, 0.0)

    def finish_joint(self, rec: JointRecord, ends: dict, axis_node, frame: str, scope: str,
                     diag: Diagnostic, node) -> None:
        g = self.graph
        bodies = {}
        for end in ("parent", "child"):
            ref, e = ends[end]
            full = g.resolve_name(ref, scope, diag, e, f"joint '{rec.name}' {end}",
                                  allow_world=True)
            body = g.body_of(full)
            bodies[end] = body
            if body == WORLD_FRAME:
                setattr(rec, end, WORLD)
                setattr(rec, end + "_model", "")
            else:
                model, _, link = body.rpartition("::")
                setattr(rec, end, link)
                setattr(rec, end + "_model", model)
        if bodies["child"] == WORLD_FRAME:
            diag.error(ends["child"][1], f"joint '{rec.name}': the world cannot be a child")
        if bodies["child"] == bodies["parent"]:
            diag.error(node, f"joint '{rec.name}' connects link '{rec.child}' to itself")
        rec.X_PJ = g.X_AB(bodies["parent"], frame)
        rec.X_CJ = g.X_AB(bodies["child"], frame)
        if rec.type in ("revolute", "continuous", "prismatic", "screw"):
            rec.axis = self.axis_in_joint_frame(axis_node, rec, frame, scope, diag)
        elif rec.type == "universal":
            # Drake's universal joint turns about x then y of a frame whose x is `axis` and y is
            # `axis2`: report both in J so the front end can build that frame.
            rec.axis = self.axis_in_joint_frame(axis_node, rec, frame, scope, diag,
                                                default=(1.0, 0.0, 0.0))
            rec.axis2 = self.axis_in_joint_frame(child(node, "axis2"), rec, frame, scope, diag,
                                                 default=(0.0, 1.0, 0.0))
            if abs(float(rec.axis @ rec.axis2)) > 1e-6:
                diag.error(node, f"universal joint '{rec.name}': <axis> and <axis2> must be "
                                 f"orthogonal")

    def axis_in_joint_frame(self, axis_node, rec: JointRecord, frame: str, scope: str,
                            diag: Diagnostic, default=(0.0, 0.0, 1.0)) -> np.ndarray:
        """Unit `//axis/xyz` re-expressed in the joint frame J (SDFormat's default is +z of J)."""
        xyz = child(axis_node, "xyz") if axis_node is not None else None
        if xyz is None:
            return np.array(default, dtype=float)
        v = parse_vector(text_of(xyz), diag, xyz, "<xyz>", 3)
        if float(np.linalg.norm(v)) < 1e-8:
            diag.error(xyz, f"joint '{rec.name}' axis is zero")
        expressed = get_attr(xyz, "expressed_in")
        upmf = child(axis_node, "use_parent_model_frame")
        if not expressed and upmf is not None and parse_bool(
                text_of(upmf), diag, upmf, "<use_parent_model_frame>"):
            expressed = MODEL_FRAME
        if expressed:
            e_frame = self.graph.resolve_name(expressed, scope, diag, xyz, "expressed_in")
            v = self.graph.X_AB(frame, e_frame)[:3, :3] @ v
        return v / np.linalg.norm(v)
