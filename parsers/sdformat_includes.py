"""SDFormat `//include` (a mixin of the SDFormat reader): included SDFormat models become nested
model instances with the include's name, pose, placement frame and static overrides; URDF files
become instances posed by the include; `<include merge="true">` merges the included model's
contents into the including model behind a proxy frame `_merged__<name>__model__`.
"""
from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .errors import Diagnostic, parse_xml
from .resources import ReadFileBounded
from .model_records import WORLD, FrameRecord, ModelRecord
from .sdformat_frames import MODEL_FRAME, WORLD_FRAME, MergedScope, join_scope
from .xml_values import child, children, parse_bool, resolve_path, tag, text_of

__all__ = ["SdfIncludeReader"]


class SdfIncludeReader:
    """Include handling for the SDFormat reader (needs its graph, models, pending list,
    `read_model`, `read_contents` and value helpers)."""

    def include_args(self, node, diag: Diagnostic, root_dir: str) -> tuple:
        """(file path, name override, static override, pose override, placement frame) of an
        `//include`."""
        self.warn_unknown(node, {"uri", "name", "pose", "static", "plugin", "placement_frame"},
                          diag)
        if self.include_depth > 32:
            diag.error(node, "includes nested more than 32 deep (an include cycle?)")
        uri_node = child(node, "uri")
        if uri_node is None or not text_of(uri_node):
            diag.error(node, "<include> needs a <uri>")
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
        placement_node = child(node, "placement_frame")
        placement = None
        if placement_node is not None:
            placement = text_of(placement_node)
            if not placement:
                diag.error(placement_node, "<placement_frame> is empty")
            if pose is None:
                diag.error(placement_node, "<pose> is required when specifying the "
                                           "placement_frame element")
        return path, name, static, pose, placement

    def read_included_model(self, path: str, node, diag: Diagnostic) -> tuple:
        """(diagnostic, `<model>` element) of included SDFormat file `path`."""
        sub_diag = Diagnostic(path, self.strict)
        try:
            text = ReadFileBounded(path)
        except OSError as exc:
            diag.error(node, f"cannot read included file: {exc}")
        root = parse_xml(text, sub_diag)
        model_nodes = self.check_sdf_root(root, sub_diag)
        if len(model_nodes) != 1 or tag(model_nodes[0]) != "model":
            diag.error(node, f"included file '{path}' must contain exactly one <model>")
        return sub_diag, model_nodes[0]

    def read_include(self, node, parent_scope: str, diag: Diagnostic,
                     root_dir: str) -> ModelRecord:
        path, name, static, pose, placement = self.include_args(node, diag, root_dir)
        self.include_depth += 1
        try:
            if path.endswith(".urdf"):
                if placement is not None:
                    diag.warning(child(node, "placement_frame"), "placement_frame is ignored for "
                                 "an included URDF file (as Drake does): the pose places its "
                                 "model frame")
                return self.include_urdf(path, parent_scope, name, pose, node, diag)
            sub_diag, model_node = self.read_included_model(path, node, diag)
            return self.read_model(model_node, parent_scope, sub_diag, os.path.dirname(path),
                                   name=name, pose=pose, static=static, placement=placement,
                                   site=(child(node, "pose"), diag) if pose else None,
                                   placement_site=(child(node, "placement_frame"), diag))
        finally:
            self.include_depth -= 1

    def merge_include(self, node, scope: str, diag: Diagnostic, root_dir: str,
                      model: ModelRecord) -> None:
        """`<include merge="true">`: the included model's links, frames, joints and nested
        models join `model` under their own names; a proxy frame
        `_merged__<name>__model__`, attached to the included model's canonical link and posed
        by the include, stands for the included model's frame."""
        if not scope:
            diag.error(node, "<include merge=\"true\"> is only allowed inside a <model>, not at "
                             "world scope")
        path, name, static, pose, placement = self.include_args(node, diag, root_dir)
        if path.endswith(".urdf"):
            self.merge_urdf(path, scope, name, pose, placement, node, diag, model)
            return
        self.include_depth += 1
        try:
            sub_diag, model_node = self.read_included_model(path, node, diag)
            name = name or self.required_name(model_node, sub_diag)
            proxy = join_scope(scope, f"_merged__{name}__model__")
            pose_ref, X = pose if pose is not None else self.pose_of(model_node, sub_diag)
            site = ((child(node, "pose"), diag) if pose else
                    (child(model_node, "pose") if child(model_node, "pose") is not None
                     else model_node, sub_diag))
            self.graph.add(proxy, scope, pose_ref or MODEL_FRAME, X, None, *site, "frame")
            merged = MergedScope(scope, proxy)
            self.set_placement(proxy, model_node, placement, merged,
                               (child(node, "placement_frame"), diag))
            if static or child(model_node, "static") is not None:
                diag.warning(node, "<static> of a merged include is ignored (as Drake does)")
            canonical = self.read_contents(model_node, merged, sub_diag, os.path.dirname(path),
                                           model)
        finally:
            self.include_depth -= 1
        if canonical is None:
            sub_diag.error(model_node, f"included model '{name}' has no links")
        self.graph.frames[proxy].attach_ref = canonical
        self.graph.frames[proxy].attach_scope = merged
        model.frames.append(FrameRecord(proxy.rpartition("::")[2], "", "", np.eye(4),
                                        node.sourceline))
        self.pending.append(lambda f=model.frames[-1]: self.finish_frame(model, f, scope))

    def model_file_in_folder(self, folder: str, diag: Diagnostic, node) -> str:
        config = os.path.join(folder, "model.config")
        if os.path.isfile(config):
            cdiag = Diagnostic(config, self.strict)
            try:
                text = ReadFileBounded(config)
            except OSError as exc:
                diag.error(node, f"cannot read '{config}': {exc}")
            root = parse_xml(text, cdiag)
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
        self.graph.add(model_frame, parent_scope, pose_ref or MODEL_FRAME, X, None, node, diag,
                       "model")
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

    def merge_urdf(self, path: str, scope: str, name: Optional[str], pose, placement, node,
                   diag: Diagnostic, model: ModelRecord) -> None:
        """`<include merge="true">` of a URDF file. As pydrake (which reads the URDF before the
        SDFormat model), its links, joints and actuators come first in `model`; the proxy frame
        `_merged__<name>__model__` is posed by the include and fixed to the URDF's first link."""
        from .model_records import CalcLinkPosesInWorld
        from .urdf import ReadUrdf
        if placement is not None:
            diag.warning(child(node, "placement_frame"), "placement_frame is ignored for an "
                         "included URDF file (as Drake does)")
        urdf = ReadUrdf(path, package_map=self.package_map, strict=self.strict)[0]
        if not urdf.links:
            diag.error(node, f"included URDF '{path}' has no links")
        proxy_local = f"_merged__{name or urdf.name}__model__"
        proxy = join_scope(scope, proxy_local)
        pose_ref, X = pose if pose is not None else (None, np.eye(4))
        self.graph.add(proxy, scope, pose_ref or MODEL_FRAME, X, urdf.links[0].name, node, diag,
                       "frame")
        X_PL = CalcLinkPosesInWorld([urdf])  # (poses in the URDF's frame, the proxy P)
        for lk in urdf.links:
            self.graph.add(join_scope(scope, lk.name), scope, proxy_local,
                           X_PL[(urdf.name, lk.name)], None, node, diag, "link")
            self.urdf_merged_links.add(join_scope(scope, lk.name))
        for j in urdf.joints:
            j.child_model = scope
            j.parent_model = scope if j.parent != WORLD else ""
        for f in urdf.frames:
            f.body_model = scope if f.body != WORLD else ""
        if urdf.collision_filter_groups:
            diag.warning(node, "collision filter groups of a merged include are ignored (as "
                               "Drake does)")
        model.links[0:0] = urdf.links
        model.joints[0:0] = urdf.joints
        model.actuators[0:0] = urdf.actuators
        model.frames.extend(urdf.frames)
        model.materials.update(urdf.materials)
        model.world_geometries.extend(urdf.world_geometries)
        model.frames.append(FrameRecord(proxy_local, "", "", np.eye(4), node.sourceline))
        self.pending.append(lambda f=model.frames[-1]: self.finish_frame(model, f, scope))

        def finish():
            X_WP = self.graph.X_W(proxy)
            for j in urdf.joints:
                if j.parent == WORLD:
                    j.X_PJ = X_WP @ j.X_PJ
        self.pending.append(finish)
