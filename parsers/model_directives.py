"""Model directives: Drake's YAML language that assembles several model files into one plant
(pydrake.multibody.parsing ModelDirectives, LoadModelDirectives*, FlattenModelDirectives).

The schema mirrors drake/multibody/parsing/model_directives.h: a `directives:` list whose items each hold one of
add_model, add_model_instance, add_frame, add_weld, add_collision_filter_group or add_directives. Poses are
Drake's schema::Transform: `base_frame`, `translation` and a `rotation` tagged `!Rpy {deg: [r, p, y]}`,
`!AngleAxis {angle_deg: a, axis: [x, y, z]}` or `!Identity {}`. Unknown keys are errors, as in Drake.
Processing the directives into a plant is in process_model_directives.
"""
from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import yaml

from mallard.multibody.math import AngleAxis, RigidTransform, RollPitchYaw, RotationMatrix
from mallard.multibody.tree.scoped_name import ScopedName

from .package_map import PackageMap

__all__ = ["AddCollisionFilterGroup", "AddDirectives", "AddFrame", "AddModel", "AddModelInstance", "AddWeld",
           "FlattenModelDirectives", "LoadModelDirectives", "LoadModelDirectivesFromString", "ModelDirective",
           "ModelDirectives", "Transform", "DmdScopedNameJoin"]


class ModelDirectivesError(ValueError, RuntimeError):
    """A model directives file that Drake would reject (bad YAML, unknown key, invalid directive)."""


@dataclass
class Transform:
    """Drake's schema::Transform: X_PF with its parent `base_frame` (None: the directive's default), a
    `translation` (m) and a `rotation` (a RotationMatrix; YAML gives it as !Rpy, !AngleAxis or !Identity)."""

    base_frame: Optional[str] = None
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3))
    rotation: RotationMatrix = field(default_factory=RotationMatrix)

    def GetDeterministicValue(self) -> RigidTransform:
        return RigidTransform(self.rotation, np.asarray(self.translation, dtype=float))

    def IsDeterministic(self) -> bool:
        return True


@dataclass
class AddWeld:
    """Weld `child` to `parent` (scoped frame names) at X_PC (identity when None)."""
    parent: str = ""
    child: str = ""
    X_PC: Optional[Transform] = None

    def IsValid(self) -> bool:
        return bool(self.parent and self.child and (self.X_PC is None or self.X_PC.base_frame is None))


@dataclass
class AddModel:
    """Add the model of `file` (a package:// URL) as model instance `name`, with default joint positions and
    free-body poses keyed by names inside the model."""
    file: str = ""
    name: str = ""
    default_joint_positions: dict = field(default_factory=dict)
    default_free_body_pose: dict = field(default_factory=dict)

    def IsValid(self) -> bool:
        return bool(self.file and self.name)


@dataclass
class AddModelInstance:
    """Add an empty model instance `name` (a namespace for later directives)."""
    name: str = ""

    def IsValid(self) -> bool:
        return bool(self.name)


@dataclass
class AddFrame:
    """Add frame `name` fixed to X_PF.base_frame at pose X_PF."""
    name: str = ""
    X_PF: Transform = field(default_factory=Transform)

    def IsValid(self) -> bool:
        return bool(self.name and self.X_PF.base_frame)


@dataclass
class AddCollisionFilterGroup:
    """A collision filter group: its members (bodies) and member groups, and the groups it ignores."""
    name: str = ""
    members: list = field(default_factory=list)
    member_groups: list = field(default_factory=list)
    model_namespace: Optional[str] = None
    ignored_collision_filter_groups: list = field(default_factory=list)

    def IsValid(self) -> bool:
        return bool(self.name and (self.members or self.member_groups))


@dataclass
class AddDirectives:
    """Include the directives of `file`, scoped under `model_namespace` when given."""
    file: str = ""
    model_namespace: Optional[str] = None

    def IsValid(self) -> bool:
        return bool(self.file)


_KINDS = {"add_model": AddModel, "add_model_instance": AddModelInstance, "add_frame": AddFrame,
          "add_weld": AddWeld, "add_collision_filter_group": AddCollisionFilterGroup, "add_directives": AddDirectives}


@dataclass
class ModelDirective:
    """One directive: exactly one of its fields is set."""
    add_model: Optional[AddModel] = None
    add_model_instance: Optional[AddModelInstance] = None
    add_frame: Optional[AddFrame] = None
    add_weld: Optional[AddWeld] = None
    add_collision_filter_group: Optional[AddCollisionFilterGroup] = None
    add_directives: Optional[AddDirectives] = None

    def IsValid(self) -> bool:
        set_ = [getattr(self, k) for k in _KINDS if getattr(self, k) is not None]
        return len(set_) == 1 and set_[0].IsValid()


@dataclass
class ModelDirectives:
    """A model directives document: the list of directives, processed in order."""
    directives: list = field(default_factory=list)

    def IsValid(self) -> bool:
        return all(d.IsValid() for d in self.directives)


# ---- YAML -----------------------------------------------------------------------------------------------

class _Tagged(dict):
    """A YAML mapping written with a tag (`!Rpy {...}`); `tag` keeps it."""
    tag = ""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader that keeps `!Tag` mappings (Drake's variant tags) instead of rejecting them."""


def _tagged(loader, tag_suffix, node):
    out = _Tagged(loader.construct_mapping(node, deep=True) if isinstance(node, yaml.MappingNode) else {})
    out.tag = tag_suffix
    return out


_Loader.add_multi_constructor("!", _tagged)


def _fields(where: str, data, allowed) -> dict:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ModelDirectivesError(f"{where}: expected a mapping, got {data!r}")
    unknown = set(data) - set(allowed)
    if unknown:
        raise ModelDirectivesError(f"{where}: unknown key(s) {sorted(unknown)}; allowed keys: {sorted(allowed)}")
    return data


def _rotation(where: str, data) -> RotationMatrix:
    if data is None:
        return RotationMatrix()
    tag = getattr(data, "tag", "")
    if tag == "Rpy":
        deg = _fields(where, data, ("deg",)).get("deg", [0.0, 0.0, 0.0])
        return RotationMatrix(RollPitchYaw(np.radians(np.asarray(deg, dtype=float))))
    if tag == "AngleAxis":
        d = _fields(where, data, ("angle_deg", "axis"))
        axis = np.asarray(d.get("axis", [0.0, 0.0, 1.0]), dtype=float)
        return RotationMatrix(AngleAxis(math.radians(float(d.get("angle_deg", 0.0))), axis / np.linalg.norm(axis)))
    if tag in ("", "Identity"):
        _fields(where, data, ())
        return RotationMatrix()
    raise ModelDirectivesError(f"{where}: rotation tag '!{tag}' is not supported; use !Rpy {{deg: [r, p, y]}}, "
                               "!AngleAxis {angle_deg: a, axis: [x, y, z]} or !Identity {} (random rotations are "
                               "not supported in model directives)")


def _transform(where: str, data) -> Transform:
    d = _fields(where, data, ("base_frame", "translation", "rotation"))
    translation = np.asarray(d.get("translation", [0.0, 0.0, 0.0]), dtype=float)
    if translation.shape != (3,):
        raise ModelDirectivesError(f"{where}.translation: expected 3 numbers, got {d.get('translation')!r}")
    base = d.get("base_frame")
    return Transform(None if base is None else str(base), translation, _rotation(f"{where}.rotation", d.get("rotation")))


def _directive(where: str, data) -> ModelDirective:
    d = _fields(where, data, tuple(_KINDS))
    out = ModelDirective()
    for key, value in d.items():
        w = f"{where}.{key}"
        if key == "add_model":
            v = _fields(w, value, ("file", "name", "default_joint_positions", "default_free_body_pose"))
            item = AddModel(str(v.get("file", "")), str(v.get("name", "")),
                            {str(k): np.atleast_1d(np.asarray(p, dtype=float))
                             for k, p in (v.get("default_joint_positions") or {}).items()},
                            {str(k): _transform(f"{w}.default_free_body_pose.{k}", p)
                             for k, p in (v.get("default_free_body_pose") or {}).items()})
        elif key == "add_frame":
            v = _fields(w, value, ("name", "X_PF"))
            item = AddFrame(str(v.get("name", "")), _transform(f"{w}.X_PF", v.get("X_PF")))
        elif key == "add_weld":
            v = _fields(w, value, ("parent", "child", "X_PC"))
            item = AddWeld(str(v.get("parent", "")), str(v.get("child", "")),
                           None if v.get("X_PC") is None else _transform(f"{w}.X_PC", v["X_PC"]))
        elif key == "add_collision_filter_group":
            v = _fields(w, value, ("name", "members", "member_groups", "model_namespace",
                                   "ignored_collision_filter_groups"))
            item = AddCollisionFilterGroup(str(v.get("name", "")), [str(m) for m in v.get("members") or []],
                                           [str(m) for m in v.get("member_groups") or []], v.get("model_namespace"),
                                           [str(m) for m in v.get("ignored_collision_filter_groups") or []])
        else:
            item = _KINDS[key](**_fields(w, value, [f for f in _KINDS[key].__dataclass_fields__]))
        setattr(out, key, item)
    return out


def _load(text: str, source: str) -> ModelDirectives:
    try:
        doc = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise ModelDirectivesError(f"{source}: invalid YAML: {exc}") from None
    d = _fields(source, doc, ("directives",))
    items = d.get("directives") or []
    if not isinstance(items, list):
        raise ModelDirectivesError(f"{source}: 'directives' must be a list")
    out = ModelDirectives([_directive(f"{source}: directives[{i}]", item) for i, item in enumerate(items)])
    for i, directive in enumerate(out.directives):
        if not directive.IsValid():
            raise ModelDirectivesError(f"{source}: directives[{i}] is invalid: specify exactly one of "
                                       f"{', '.join(_KINDS)} with its required fields ({directive!r})")
    return out


def LoadModelDirectives(filename: str | os.PathLike) -> ModelDirectives:
    """The directives of a `.dmd.yaml` file."""
    path = os.fspath(filename)
    if not os.path.exists(path):
        raise ModelDirectivesError(f"No such file {path} during LoadModelDirectives")
    with open(path, encoding="utf-8") as f:
        return _load(f.read(), path)


def LoadModelDirectivesFromString(model_directives: str) -> ModelDirectives:
    """The directives of a YAML string."""
    return _load(model_directives, "<string>")


def DmdScopedNameJoin(namespace_name: str, element_name: str) -> ScopedName:
    """namespace::element, except that "world" is never scoped."""
    if element_name == "world":
        return ScopedName("", element_name)
    return ScopedName.Join(namespace_name, element_name)


def ResolveModelDirectiveUri(uri: str, package_map: PackageMap) -> str:
    """The file a directive's `file:` URL names."""
    return package_map.ResolveUrl(uri)


def _apply_namespace(kind: str, orig, ns: str):
    out = copy.deepcopy(orig)
    if kind == "add_weld" and ns:
        out.parent = DmdScopedNameJoin(ns, orig.parent).to_string()
        out.child = DmdScopedNameJoin(ns, orig.child).to_string()
    elif kind in ("add_model", "add_model_instance") and ns:
        out.name = DmdScopedNameJoin(ns, orig.name).to_string()
    elif kind == "add_frame":
        if ns:
            out.name = DmdScopedNameJoin(ns, orig.name).to_string()
            out.X_PF.base_frame = DmdScopedNameJoin(ns, orig.X_PF.base_frame).to_string()
        parsed = ScopedName.Parse(orig.name)
        if not parsed.get_namespace():
            base_ns = ScopedName.Parse(orig.X_PF.base_frame).get_namespace()
            out.name = DmdScopedNameJoin(ns, DmdScopedNameJoin(base_ns, parsed.get_element()).to_string()).to_string()
    elif kind == "add_collision_filter_group" and ns:
        full = DmdScopedNameJoin(ns, DmdScopedNameJoin(orig.model_namespace or "", orig.name).to_string())
        out = AddCollisionFilterGroup(full.get_element(), list(orig.members), [], full.get_namespace() or None,
                                      list(orig.ignored_collision_filter_groups))
    return out


def _flatten(directives: ModelDirectives, package_map: PackageMap, out: ModelDirectives, ns: str) -> None:
    for d in directives.directives:
        if d.add_directives is not None:
            sub = d.add_directives
            sub_ns = ns if sub.model_namespace is None else DmdScopedNameJoin(ns, sub.model_namespace).to_string()
            _flatten(LoadModelDirectives(ResolveModelDirectiveUri(sub.file, package_map)), package_map, out, sub_ns)
            continue
        kind = next(k for k in _KINDS if getattr(d, k) is not None)
        out.directives.append(ModelDirective(**{kind: _apply_namespace(kind, getattr(d, kind), ns)}))


def FlattenModelDirectives(directives: ModelDirectives, package_map: PackageMap) -> ModelDirectives:
    """The same directives with every add_directives replaced by its (namespaced) contents."""
    out = ModelDirectives()
    _flatten(directives, package_map, out, "")
    return out
