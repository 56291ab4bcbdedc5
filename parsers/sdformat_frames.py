"""SDFormat frame semantics: scoped names, the pose graph (`relative_to`) and the attached-to
graph (which link a frame moves with), resolved exactly with networkx.

Every frame has a globally scoped name: `outer::inner::link`, a model's own frame is
`outer::inner::__model__`, the world is `world`. Each frame is posed relative to exactly one
other frame (an edge of the pose graph) and attached to one frame (ending at a link or the
world). Cycles and references to frames that do not exist raise ParseError at the element.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from mallard.common.lazy_import import LazyModule

from .errors import Diagnostic

nx = LazyModule("networkx")  # imported when first used (the frame graph of an SDFormat model)

__all__ = ["FrameGraph", "MergedScope", "join_scope", "WORLD_FRAME", "MODEL_FRAME"]

WORLD_FRAME = "world"
MODEL_FRAME = "__model__"


def join_scope(scope: str, name: str) -> str:
    """`scope::name` (just `name` at world scope "")."""
    return f"{scope}::{name}" if scope else name


class MergedScope(str):
    """The scope of a model merged into its parent by `<include merge="true">`: names resolve in
    the parent's scope, but `__model__` means the proxy frame `model_frame` that stands for the
    merged model's frame (`parent::_merged__<name>__model__`)."""

    model_frame: str

    def __new__(cls, scope: str, model_frame: str) -> "MergedScope":
        obj = super().__new__(cls, scope)
        obj.model_frame = model_frame
        return obj


@dataclass
class _Frame:
    name: str                 # scoped name
    scope: str                # scope in which its references resolve
    pose_ref: Optional[str]   # reference for relative_to (None → the world)
    X_RF: np.ndarray          # pose relative to pose_ref
    attach_ref: Optional[str]  # reference of attached_to (None: this frame is a body)
    node: object              # element for error messages
    diag: Diagnostic
    kind: str                 # "link", "frame", "joint", "model", "world"
    attach_scope: Optional[str] = None  # scope for attach_ref (default: scope)
    placement: Optional[str] = None  # placement_frame: X_RF poses this frame, not the model frame
    placement_scope: Optional[str] = None  # scope in which `placement` resolves
    pose_what: str = "relative_to"  # what `pose_ref` is, for error messages
    placement_site: Optional[tuple] = None  # (element, Diagnostic) naming the placement frame


class FrameGraph:
    """Collects SDFormat frames across all model scopes and resolves their poses and bodies."""

    def __init__(self) -> None:
        self.frames: dict[str, _Frame] = {}
        self.models: set[str] = set()
        self.frames[WORLD_FRAME] = _Frame(WORLD_FRAME, "", None, np.eye(4), None, None, None,
                                          "world")
        self._X_W: dict[str, np.ndarray] = {WORLD_FRAME: np.eye(4)}
        self._body: dict[str, str] = {WORLD_FRAME: WORLD_FRAME}
        self._pose_graph: Optional[nx.DiGraph] = None

    def add(self, name: str, scope: str, pose_ref: Optional[str], X_RF: np.ndarray,
            attach_ref: Optional[str], node, diag: Diagnostic, kind: str,
            pose_what: str = "relative_to") -> None:
        """Declare frame `name` (scoped). `pose_ref`/`attach_ref` are resolved in `scope`;
        `pose_what` says what `pose_ref` is in error messages."""
        if name in self.frames:
            other = self.frames[name]
            line = other.node.sourceline if other.node is not None else "?"
            if other.diag is not None and other.diag.filename != diag.filename:
                line = f"{other.diag.filename}:{line}"
            diag.error(node, f"name '{name}' is already used by a {other.kind} (line {line}); "
                             f"frame, link, joint and model names must be unique in a model")
        if kind == "model":
            self.models.add(name[: -len("::" + MODEL_FRAME)] if name.endswith(MODEL_FRAME)
                            else name)
        self.frames[name] = _Frame(name, scope, pose_ref, np.asarray(X_RF, float), attach_ref,
                                   node, diag, kind, pose_what=pose_what)
        self._pose_graph = None

    def resolve_name(self, ref: str, scope: str, diag: Diagnostic, node, what: str,
                     allow_world: bool = False) -> str:
        """The scoped frame name that reference `ref` means inside `scope` (ParseError if none).
        Inside a model only a joint's parent may name the world (`allow_world`)."""
        if ref == WORLD_FRAME:
            if scope and not allow_world:
                diag.error(node, f"{what} '{ref}': the world frame cannot be referenced inside "
                                 f"model '{scope}' (only a joint's <parent> may name it)")
            return WORLD_FRAME
        if ref == MODEL_FRAME:
            if isinstance(scope, MergedScope):
                return scope.model_frame
            return join_scope(scope, MODEL_FRAME) if scope else WORLD_FRAME
        full = join_scope(scope, ref)
        if full in self.models:
            full = join_scope(full, MODEL_FRAME)
        if full not in self.frames:
            local = sorted(n[len(scope) + 2:] if scope else n for n in self.frames
                           if (n.startswith(scope + "::") if scope else True)
                           and not n.endswith(MODEL_FRAME))
            diag.error(node, f"{what} '{ref}' does not name a frame, link, joint or model in "
                             f"scope '{scope or 'world'}'; known: {local}")
        return full

    def _build(self) -> None:
        graph = nx.DiGraph()
        graph.add_node(WORLD_FRAME)
        for f in self.frames.values():
            if f.name == WORLD_FRAME:
                continue
            ref = WORLD_FRAME if f.pose_ref is None else self.resolve_name(
                f.pose_ref, f.scope, f.diag, f.node, f.pose_what)
            graph.add_edge(ref, f.name)
        try:
            cycle = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            cycle = None
        if cycle:
            names = " -> ".join(u for u, _ in cycle) + f" -> {cycle[0][0]}"
            f = self.frames[cycle[0][1]]
            f.diag.error(f.node, f"the pose graph has a cycle: {names} (each pose is relative to "
                                 f"the next frame)")
        self._pose_graph = graph

    def X_W(self, name: str) -> np.ndarray:
        """Pose of scoped frame `name` in world, X_WF."""
        if self._pose_graph is None:
            self._build()
        if name in self._X_W:
            return self._X_W[name]
        chain = []
        cur = name
        while cur not in self._X_W:
            chain.append(cur)
            preds = list(self._pose_graph.predecessors(cur))
            cur = preds[0]
        X = self._X_W[cur]
        for n in reversed(chain):
            X = X @ self._X_RF(n)
            self._X_W[n] = X
        return self._X_W[name]

    def _X_RF(self, name: str) -> np.ndarray:
        """Pose of frame `name` relative to its pose-graph parent R. For a model frame M with a
        placement frame P, the given pose is X_RP, so X_RM = X_RP · X_MP⁻¹ with X_MP taken from
        the model's own pose graph."""
        f = self.frames[name]
        if f.placement is None:
            return f.X_RF
        scope = f.scope if f.placement_scope is None else f.placement_scope
        node, diag = f.placement_site or (f.node, f.diag)
        target = self.resolve_name(f.placement, scope, diag, node, "placement_frame")
        X_MP = np.eye(4)
        cur = target
        while cur != name:
            if cur == WORLD_FRAME:
                diag.error(node, f"placement_frame '{f.placement}' is not posed (through "
                                 f"relative_to) inside the model it places")
            X_MP = self._X_RF(cur) @ X_MP
            cur = next(iter(self._pose_graph.predecessors(cur)))
        return f.X_RF @ np.linalg.inv(X_MP)

    def body_of(self, name: str) -> str:
        """The scoped name of the link (or `world`) that frame `name` is attached to."""
        if name in self._body:
            return self._body[name]
        seen = []
        cur = name
        while cur not in self._body:
            f = self.frames[cur]
            if f.attach_ref is None:
                self._body[cur] = cur
                break
            if cur in seen:
                names = " -> ".join(seen + [cur])
                f.diag.error(f.node, f"the attached_to graph has a cycle: {names}")
            seen.append(cur)
            scope = f.scope if f.attach_scope is None else f.attach_scope
            cur = self.resolve_name(f.attach_ref, scope, f.diag, f.node, "attached_to")
        body = self._body[cur]
        for s in seen:
            self._body[s] = body
        return body

    def X_AB(self, a: str, b: str) -> np.ndarray:
        """Pose of frame b in frame a (both scoped names)."""
        return np.linalg.solve(self.X_W(a), self.X_W(b))
