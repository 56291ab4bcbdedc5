"""SDFormat links (a mixin of the SDFormat reader): pose, inertial, visuals and collisions.

As Drake, a link without `<inertial>` has SDFormat's default unit mass and inertia, and a
physically invalid mass/inertia pair is replaced (with a warning) by a solid sphere of water
with the given mass about the given center of mass.
"""
from __future__ import annotations

import numpy as np

from .errors import Diagnostic
from .model_records import InertialRecord, LinkRecord, ModelRecord
from .sdformat_frames import MODEL_FRAME, join_scope
from .sdformat_geometry import read_geometry
from .xml_values import child, children, parse_bool, text_of

__all__ = ["SdfLinkReader", "IGNORED_ELEMENTS"]

# Elements with no effect on a MultibodyPlant (simulator GUI, sensors, plugins, environment).
IGNORED_ELEMENTS = {"self_collide", "enable_wind", "allow_auto_disable", "plugin", "gripper",
                    "velocity_decay", "must_be_base_link", "sensor", "projector", "audio_sink",
                    "audio_source", "battery", "light", "particle_emitter", "physics", "scene",
                    "gui", "spherical_coordinates", "atmosphere", "wind", "magnetic_field",
                    "gravity", "state", "road", "population", "audio", "rtf", "camera",
                    "drake:controller_gains", "kinematic"}
_LINK_CHILDREN = {"pose", "inertial", "collision", "visual"} | IGNORED_ELEMENTS


class SdfLinkReader:
    """Link parsing for the SDFormat reader (needs its graph, pending list and value helpers)."""

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
        inertia = child(node, "inertia")
        v = {k: self.value(inertia, k, diag, 1.0 if k in ("ixx", "iyy", "izz") else 0.0)
             for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
        R = X[:3, :3]
        rec = InertialRecord(mass, X[:3, 3].copy(), R @ I @ R.T)
        problem = _InertiaProblem(rec)
        if problem:
            # As Drake: warn, and use a plausible stand-in, a solid sphere of water with the
            # given mass (1 kg if none) about the given center of mass.
            diag.warning(node, f"{problem}; the link gets a solid sphere of water's density "
                               f"instead")
            m = mass if mass > 0 else 1.0
            r2 = np.cbrt(3.0 * m / (4.0 * np.pi * 1000.0)) ** 2
            rec = InertialRecord(m, X[:3, 3].copy(), 0.4 * m * r2 * np.eye(3))
        return rec


def _InertiaProblem(rec: InertialRecord) -> str:
    """Why `rec` is not a physically valid mass/inertia pair ("" if it is)."""
    from mallard.multibody.tree import RotationalInertia, SpatialInertia
    I = rec.I_BBcm_B
    if rec.mass < 0:
        return f"negative mass {rec.mass}"
    try:
        central = RotationalInertia(I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2])
        if not central.CouldBePhysicallyValid():
            return (f"the inertia matrix {I.tolist()} is not physically valid (a negative "
                    f"principal moment, or moments that break the triangle inequality)")
        if rec.mass == 0.0 and not np.any(I):
            return ""
        SpatialInertia.MakeFromCentralInertia(rec.mass, rec.p_BoBcm_B, central)
    except (ValueError, RuntimeError) as exc:
        return f"invalid mass properties: {exc}"
    return ""
