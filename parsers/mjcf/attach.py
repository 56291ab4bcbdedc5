"""`<attach>`: importing a body subtree (or a whole world body) from an `asset/model` sub-model.

The sub-model is read with its own compiler settings, default classes and assets; every name it
defines gets the attach `prefix`. Its tree elements are inserted at the attach point (inside the
enclosing frames); its tendons, actuators, equalities, contacts and sensors are compiled after the
parent model's own, with their references resolved inside the sub-model's (prefixed) names.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .assets import read_assets
from .attach_keys import ChildKeys, NestedAttach, read_child_keys
from .context import CompileContext
from .defaults import DefaultClasses
from .errors import error_at
from .reader import Element, read_mjcf
from .references import Names
from .sections import read_compiler


@dataclass
class Attached:
    """One attached sub-model: its validated tree, its compile context and the name prefix."""

    root: Element
    ctx: CompileContext
    prefix: str
    suffix: str = ""  #: the replicate copy's suffix when the attach sits inside a replicate
    child_keys: ChildKeys | None = None  #: the sub-model's keyframes and their layout (attach_keys)
    copy0: bool = True  #: not inside a replicate, or its first copy (which takes the keyframe values)
    asset_id: int = 0  #: identity of the <model> asset: attaches of one asset share its keyframe values
    first_body: int = 0  #: the tree walk's bodies [first_body, end_body) come from this attach
    end_body: int = 0

    def affix(self, name: str) -> str:
        """A sub-model name as the model knows it."""
        return self.prefix + name + self.suffix


class PrefixedNames:
    """A view of `Names` that looks names up with a prefix (references inside an attached model)."""

    def __init__(self, names: Names, prefix: str, suffix: str = ""):
        self.names = names
        self.prefix = prefix
        self.suffix = suffix

    def id(self, kind, name, where, what):
        return self.names.id(kind, None if name is None else self.prefix + name + self.suffix, where, what)

    def opt(self, kind, name, where, what):
        return -1 if name is None else self.id(kind, name, where, what)


def _find_body(el: Element, name: str) -> Element | None:
    for c in el.children:
        if c.tag == "body" and c.get("name") == name:
            return c
        found = _find_body(c, name) if c.tag in ("body", "frame", "worldbody", "replicate") else None
        if found is not None:
            return found
    return None


def _share_meshes(ctx: CompileContext, sub: CompileContext, first: int, prefix: str) -> None:
    """Prefix the meshes the sub-model just added (from index `first`); one whose prefixed name an earlier
    attach already added is dropped and the sub-model's lookup points at the earlier one."""
    known = {m.name: i for i, m in enumerate(ctx.mesh_list[:first])}
    new = ctx.mesh_list[first:]
    del ctx.mesh_list[first:]
    where = {}
    for i, m in enumerate(new):
        m.name = prefix + m.name
        if m.name in known:
            where[first + i] = known[m.name]
        else:
            where[first + i] = len(ctx.mesh_list)
            ctx.mesh_list.append(m)
    sub.meshes = {k: where.get(i, i) for k, i in sub.meshes.items()}


def attach_submodel(walker, bid: int, el: Element, frame, suffix: str = "") -> None:
    """Handle an <attach> element met while walking the tree of the parent model. Names of the sub-model
    become prefix + name + suffix: the prefixes of enclosing attaches then this one's, and the suffix of the
    enclosing replicate copies (MuJoCo's namespacing)."""
    ctx: CompileContext = walker.ctx
    name = el.get("model")
    if name not in ctx.submodels:
        raise error_at(el.where, f"attach references undefined model asset '{name}' "
                                 f"(defined: {', '.join(sorted(ctx.submodels)) or 'none'})")
    asset = ctx.submodels[name]
    path = Path(asset.get("file"))
    if not path.is_absolute():
        if not isinstance(ctx.model_dir, Path):
            raise error_at(asset.where, f"model file '{asset.get('file')}': attaching sub-models of a model read "
                                        f"from a resource URI is not supported; give an absolute file path")
        path = ctx.model_dir / path
    if not path.is_file():
        raise error_at(asset.where, f"model file '{asset.get('file')}' not found (looked for {path})")
    key = str(path.resolve())
    if key in ctx.attach_stack:
        raise error_at(el.where, f"attach cycle: model '{name}' attaches itself")
    root, model_dir = read_mjcf(path, strict=ctx.strict)
    sub = CompileContext(read_compiler(root), DefaultClasses(root.find_all("default")), model_dir, ctx.strict,
                         mesh_list=ctx.mesh_list, warned=ctx.warned, unsupported=ctx.unsupported,
                         attach_stack=ctx.attach_stack + [key], attached=ctx.attached)
    first_mesh = len(ctx.mesh_list)
    read_assets(sub, root)
    prefix = walker.prefix + (el.get("prefix") or "")
    # the sub-model's assets join the model under prefixed names (its own lookups stay unprefixed); attached
    # again under the same prefix (inside a replicate), it shares the assets of the first attach, as in MuJoCo
    _share_meshes(ctx, sub, first_mesh, prefix)
    ctx.materials.update({prefix + k: v for k, v in sub.materials.items()})
    ctx.hfields.update({prefix + k: v for k, v in sub.hfields.items()})
    ctx.textures.extend(sub.textures)
    from .tree import TreeWalker  # local import: tree imports this module's handler

    sw = TreeWalker(sub, attach_handler=attach_submodel, prefix=prefix, bodies=walker.bodies)
    sw.copy0 = walker.copy0
    first_body = len(walker.bodies)
    worlds = root.find_all("worldbody")
    if el.get("body") is not None:
        body = next((b for w in worlds for b in [_find_body(w, el.get("body"))] if b is not None), None)
        if body is None:
            raise error_at(el.where, f"attach: model '{name}' has no body named '{el.get('body')}'")
        sw.walk_body(bid, body, frame, "main", suffix)
    else:
        for w in worlds:
            sw.walk_contents(bid, w, frame, suffix)
    child_keys = None
    try:  # only the first copy of a replicate takes keyframe values (attach_keys)
        child_keys = read_child_keys(root, model_dir, ctx.strict) if walker.copy0 else None
    except NestedAttach as e:
        ctx.warn(el.where, f"keyframes of attached model '{name}' are not imported: it attaches models itself "
                           f"({e})", "attach_keys")
    ctx.attached.append(Attached(root, sub, prefix, suffix, child_keys, walker.copy0, id(asset), first_body,
                                 len(walker.bodies)))
