"""GeometryState: SceneGraph's registry of sources, frames and geometries with their roles, and
the collision filters. SceneGraph keeps one as its model; each Context gets its own copy (copied on write)."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from mallard.geometry.identifiers import FilterId, FrameId, GeometryId, GeometryLookupError, SourceId
from mallard.geometry.properties import (GeometryProperties, IllustrationProperties,
                                         PerceptionProperties, ProximityProperties, Role, RoleAssign,
                                         GetMujocoContactParameters, HYDRO_GROUP, HydroelasticType,
                                         copy_properties)
from mallard.geometry.shapes import Shape

_WORLD_FRAME_ID = FrameId.get_new_id()
_WORLD_SOURCE_ID = SourceId.get_new_id()
_ROLES = (Role.kProximity, Role.kIllustration, Role.kPerception)


class GeometryVersion:
    """Which revision of each role's geometry data a SceneGraph holds (pydrake.geometry.GeometryVersion).
    Two versions are the same for a role when no change touching that role separates them; a default-made
    version matches no SceneGraph's."""

    __slots__ = ("_ids",)

    def __init__(self, other: "GeometryVersion | None" = None):
        self._ids = dict(other._ids) if other is not None else {r: FilterId.get_new_id() for r in _ROLES}

    def IsSameAs(self, other: "GeometryVersion", role: Role) -> bool:
        if not isinstance(other, GeometryVersion):
            raise TypeError(f"GeometryVersion.IsSameAs needs a GeometryVersion; given {type(other).__name__}")
        if role not in self._ids:
            raise ValueError(f"GeometryVersion.IsSameAs: role must be kProximity, kIllustration or kPerception; "
                             f"given {role!r}")
        return self._ids[role] == other._ids[role]

    def _bumped(self, roles) -> "GeometryVersion":
        new = GeometryVersion(self)
        for r in roles:
            new._ids[r] = FilterId.get_new_id()
        return new

    def __eq__(self, other) -> bool:
        return isinstance(other, GeometryVersion) and self._ids == other._ids

    def __hash__(self):
        return hash(tuple(self._ids[r] for r in _ROLES))

    def __copy__(self) -> "GeometryVersion":
        return self

    def __deepcopy__(self, memo) -> "GeometryVersion":
        return self  # immutable

    def __repr__(self) -> str:
        return "GeometryVersion(" + ", ".join(f"{r.name}={self._ids[r].get_value()}" for r in _ROLES) + ")"


def world_frame_id() -> FrameId:
    """The FrameId of the world frame (the same for every SceneGraph)."""
    return _WORLD_FRAME_ID


@dataclass
class FrameRecord:
    id: FrameId
    name: str
    group: int
    source: SourceId
    parent: FrameId
    geometries: list = field(default_factory=list)
    children: list = field(default_factory=list)


@dataclass
class GeometryRecord:
    id: GeometryId
    name: str
    shape: Shape
    frame: FrameId
    source: SourceId
    R_FG: np.ndarray
    p_FG: np.ndarray
    proximity: ProximityProperties | None = None
    illustration: IllustrationProperties | None = None
    perception: PerceptionProperties | None = None


def _backfill_hydroelastic(props: ProximityProperties, defaults) -> bool:
    """Adds to `props` the hydroelastic properties it lacks and `defaults` sets; True when any was added."""
    added = False
    values = [("compliance_type", HydroelasticType(defaults.compliance_type))] \
        if defaults.compliance_type != "undefined" else []
    values += [(name, getattr(defaults, name)) for name in
               ("hydroelastic_modulus", "resolution_hint", "slab_thickness", "margin")]
    for name, value in values:
        if value is not None and not props.HasProperty(HYDRO_GROUP, name):
            props.AddProperty(HYDRO_GROUP, name, value if name == "compliance_type" else float(value))
            added = True
    return added


class GeometryState:
    """The registered sources, frames and geometries, their properties and collision filters."""

    def __init__(self):
        self.sources: dict[SourceId, str] = {_WORLD_SOURCE_ID: "SceneGraph"}
        self.source_frames: dict[SourceId, list[FrameId]] = {_WORLD_SOURCE_ID: []}
        self.source_anchored: dict[SourceId, list[GeometryId]] = {_WORLD_SOURCE_ID: []}
        self.frames: dict[FrameId, FrameRecord] = {
            _WORLD_FRAME_ID: FrameRecord(_WORLD_FRAME_ID, "world", 0, _WORLD_SOURCE_ID, _WORLD_FRAME_ID)}
        self.geometries: dict[GeometryId, GeometryRecord] = {}
        self.excluded: set[frozenset] = set()  # the effective exclusions: persistent, then transient ones
        self._persistent_excluded: set[frozenset] = set()
        self._transient: list[tuple[FilterId, list]] = []  # (id, expanded statements) in application order
        self.version = 0
        self.geometry_version = GeometryVersion()
        self._compiled = None
        self.proximity_defaults = None  # SceneGraphConfig.default_proximity_properties (set_proximity_defaults)

    # Copy on write (a full copy of an iiwa's took ~0.6 ms, 3 per context): a clone shares its source's containers
    # and records until either changes them (each mutating method first calls _own, which copies them) or hands out
    # a part (properties(): _expose); a state that handed out parts is cloned in full (the holder may change them).
    _shared = False  # the containers may be another state's too: copy them before changing or handing them out
    _handed_out: dict = {}  # {id: object} handed out; never filled here: a state gets its own at its first _expose

    def Clone(self) -> "GeometryState":
        return copy.deepcopy(self)

    def __deepcopy__(self, memo):
        if self._handed_out:
            return self._copied(memo)
        new = GeometryState.__new__(GeometryState)
        new.__dict__.update(self.__dict__)
        self._shared = new._shared = True
        return new

    def _copied(self, memo) -> "GeometryState":
        """A copy owning all its containers, records, properties and pose arrays (shapes are shared)."""
        new = GeometryState.__new__(GeometryState)
        new.sources = dict(self.sources)
        new.source_frames = {k: list(v) for k, v in self.source_frames.items()}
        new.source_anchored = {k: list(v) for k, v in self.source_anchored.items()}
        new.frames = {k: FrameRecord(f.id, f.name, f.group, f.source, f.parent, list(f.geometries), list(f.children))
                      for k, f in self.frames.items()}
        new.geometries = {k: GeometryRecord(g.id, g.name, g.shape, g.frame, g.source, g.R_FG.copy(), g.p_FG.copy(),
                                            copy.deepcopy(g.proximity, memo), copy.deepcopy(g.illustration, memo),
                                            copy.deepcopy(g.perception, memo))
                          for k, g in self.geometries.items()}
        new.excluded = set(self.excluded)
        new._persistent_excluded = set(self._persistent_excluded)
        new._transient = list(self._transient)
        new.version = self.version
        new.geometry_version = self.geometry_version
        new._compiled = self._compiled  # immutable once built; invalidated by version
        new.proximity_defaults = self.proximity_defaults  # replaced, never mutated
        return new

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_handed_out" in state:  # keyed by id: the loaded objects' ids
            self._handed_out = {id(part): part for part in state["_handed_out"].values()}

    def _own(self) -> None:
        """Before a change: take a copy of the containers this state shares with a clone."""
        if self._shared:  # (a shared state has handed nothing out: see _expose and __deepcopy__)
            self.__dict__.update(self._copied({}).__dict__)
            self._shared = False

    def _expose(self, part):
        """`part` of this state, to hand out: the state owns its parts first, and is cloned in full from now on."""
        self._own()
        if "_handed_out" not in self.__dict__:
            self._handed_out = {}
        self._handed_out[id(part)] = part
        return part

    def set_proximity_defaults(self, defaults) -> None:
        """Backfill every proximity geometry's hydroelastic properties it lacks from `defaults` (a
        DefaultProximityProperties), now and at later role assignments, as Drake's SceneGraph applies its config.
        Only the "hydroelastic" group is filled here (compliance_type when not "undefined", hydroelastic_modulus,
        resolution_hint, slab_thickness, margin when set); the contact material defaults (friction, dissipation,
        stiffness) are read from the config where contacts are made (multibody/contact/geometry_table.py)."""
        self._own()
        self.proximity_defaults = copy.deepcopy(defaults)
        changed = False
        for rec in self.geometries.values():
            if rec.proximity is not None:
                changed |= _backfill_hydroelastic(rec.proximity, self.proximity_defaults)
        if changed:
            self._touch(roles=(Role.kProximity,))

    def _touch(self, roles=None) -> None:
        """Record a change; ``roles`` (default: all) are the roles whose GeometryVersion it advances."""
        self.version += 1
        self._compiled = None
        changed = _ROLES if roles is None else tuple(roles)
        if changed:
            self.geometry_version = self.geometry_version._bumped(changed)

    def _roles_of(self, rec: "GeometryRecord") -> tuple:
        return tuple(r for r in _ROLES if self._role_props(rec, r) is not None)

    # ----- lookups that raise ------------------------------------------------------------------------
    def source(self, source_id: SourceId) -> str:
        if not isinstance(source_id, SourceId) or source_id not in self.sources:
            raise GeometryLookupError(f"Referenced geometry source {source_id!r} is not registered; registered "
                                      f"sources: {sorted(self.sources.values())}")
        return self.sources[source_id]

    def frame(self, frame_id: FrameId) -> FrameRecord:
        if not isinstance(frame_id, FrameId) or frame_id not in self.frames:
            raise GeometryLookupError(f"Referenced frame {frame_id!r} has not been registered "
                                      f"({len(self.frames)} frames are, including the world)")
        return self.frames[frame_id]

    def geometry(self, geometry_id: GeometryId) -> GeometryRecord:
        if not isinstance(geometry_id, GeometryId) or geometry_id not in self.geometries:
            raise GeometryLookupError(f"Referenced geometry {geometry_id!r} has not been registered "
                                      f"({len(self.geometries)} geometries are)")
        return self.geometries[geometry_id]

    def _owned(self, source_id: SourceId, frame_id: FrameId | None = None, geometry_id: GeometryId | None = None):
        name = self.source(source_id)
        if frame_id is not None and frame_id != _WORLD_FRAME_ID and self.frame(frame_id).source != source_id:
            raise RuntimeError(f"Frame '{self.frames[frame_id].name}' does not belong to source '{name}'")
        if geometry_id is not None and self.geometry(geometry_id).source != source_id:
            raise RuntimeError(f"Geometry '{self.geometries[geometry_id].name}' does not belong to source '{name}'")

    # ----- registration ------------------------------------------------------------------------------
    def register_source(self, name: str) -> SourceId:
        self._own()
        if name in self.sources.values():
            raise RuntimeError(f"SceneGraph.RegisterSource: a source named '{name}' is already registered; "
                               "source names must be unique")
        sid = SourceId.get_new_id()
        self.sources[sid] = name
        self.source_frames[sid] = []
        self.source_anchored[sid] = []
        self._touch(roles=())
        return sid

    def register_frame(self, source_id: SourceId, parent_id: FrameId, frame) -> FrameId:
        self._own()
        self._owned(source_id, parent_id)
        if frame.id() in self.frames:
            raise RuntimeError(f"Frame '{frame.name()}' ({frame.id()!r}) is already registered")
        for fid in self.source_frames[source_id]:
            if self.frames[fid].name == frame.name():
                raise RuntimeError(f"Source '{self.sources[source_id]}' already has a frame named '{frame.name()}'; "
                                   "frame names must be unique within a source")
        rec = FrameRecord(frame.id(), frame.name(), frame.frame_group(), source_id, parent_id)
        self.frames[frame.id()] = rec
        self.frames[parent_id].children.append(frame.id())
        self.source_frames[source_id].append(frame.id())
        self._touch(roles=())
        return frame.id()

    def register_geometry(self, source_id: SourceId, frame_id: FrameId, instance) -> GeometryId:
        self._own()
        self._owned(source_id, frame_id)
        gid = instance.id()
        if gid in self.geometries:
            raise RuntimeError(f"Geometry '{instance.name()}' ({gid!r}) is already registered")
        rec = GeometryRecord(gid, instance.name(), instance.shape(), frame_id, source_id, instance._R.copy(),
                             instance._p.copy())
        self.geometries[gid] = rec
        self.frames[frame_id].geometries.append(gid)
        if frame_id == _WORLD_FRAME_ID:
            self.source_anchored[source_id].append(gid)
        for role, props in ((Role.kProximity, instance.proximity_properties()),
                            (Role.kIllustration, instance.illustration_properties()),
                            (Role.kPerception, instance.perception_properties())):
            if props is not None:
                self._check_name_unique(rec, role)
                self._set_role(rec, role, copy_properties(props))
        self._touch(roles=self._roles_of(rec))
        return gid

    def _check_name_unique(self, rec: GeometryRecord, role: Role) -> None:
        for other in self.frames[rec.frame].geometries:
            o = self.geometries[other]
            if o.id != rec.id and o.name == rec.name and self._role_props(o, role) is not None:
                raise RuntimeError(f"The name '{rec.name}' has already been used by a geometry with the "
                                   f"{role.name[1:].lower()} role on frame '{self.frames[rec.frame].name}'")

    @staticmethod
    def _role_props(rec: GeometryRecord, role: Role):
        return {Role.kProximity: rec.proximity, Role.kIllustration: rec.illustration,
                Role.kPerception: rec.perception}.get(role)

    def _set_role(self, rec: GeometryRecord, role: Role, props) -> None:
        if role == Role.kProximity:
            if props is not None and self.proximity_defaults is not None:
                _backfill_hydroelastic(props, self.proximity_defaults)
            rec.proximity = props
        elif role == Role.kIllustration:
            rec.illustration = props
        elif role == Role.kPerception:
            rec.perception = props

    def assign_role(self, source_id, geometry_id, properties, assign=RoleAssign.kNew) -> None:
        self._own()
        self._owned(source_id, geometry_id=geometry_id)
        rec = self.geometries[geometry_id]
        role = {ProximityProperties: Role.kProximity, IllustrationProperties: Role.kIllustration,
                PerceptionProperties: Role.kPerception}.get(type(properties))
        if role is None:
            raise ValueError("AssignRole needs ProximityProperties, IllustrationProperties or PerceptionProperties; "
                             f"given {type(properties).__name__}")
        if role == Role.kProximity and isinstance(rec.shape, type(None)):
            raise ValueError("geometry without a shape cannot have the proximity role")
        existing = self._role_props(rec, role)
        if existing is not None and assign == RoleAssign.kNew:
            raise RuntimeError(f"AssignRole: geometry '{rec.name}' already has the {role.name[1:].lower()} role; "
                               "pass RoleAssign.kReplace to replace its properties")
        if existing is None and assign == RoleAssign.kReplace:
            raise RuntimeError(f"AssignRole(kReplace): geometry '{rec.name}' has no {role.name[1:].lower()} role "
                               "to replace; use RoleAssign.kNew")
        if existing is None:
            self._check_name_unique(rec, role)
        self._set_role(rec, role, copy.deepcopy(properties))
        self._touch(roles=(role,))

    def remove_role(self, source_id, geometry_id, role: Role) -> int:
        self._own()
        self._owned(source_id, geometry_id=geometry_id)
        rec = self.geometries[geometry_id]
        removed = []
        for r in _ROLES:
            if (role == Role.kUnassigned or r == role) and self._role_props(rec, r) is not None:
                self._set_role(rec, r, None)
                removed.append(r)
        if removed:
            self._touch(roles=removed)
        return len(removed)

    def remove_frame_role(self, source_id, frame_id, role: Role) -> int:
        """Remove ``role`` from every geometry of the source attached to the frame; the count removed."""
        self._owned(source_id, frame_id)
        return sum(self.remove_role(source_id, gid, role) for gid in list(self.frame(frame_id).geometries)
                   if self.geometries[gid].source == source_id)

    def remove_geometry(self, source_id, geometry_id) -> None:
        self._own()
        self._owned(source_id, geometry_id=geometry_id)
        rec = self.geometries.pop(geometry_id)
        self.frames[rec.frame].geometries.remove(geometry_id)
        if geometry_id in self.source_anchored[source_id]:
            self.source_anchored[source_id].remove(geometry_id)
        self._persistent_excluded = {p for p in self._persistent_excluded if geometry_id not in p}
        self._recompute_filters()
        self._touch(roles=self._roles_of(rec))

    def change_shape(self, source_id, geometry_id, shape: Shape, R=None, p=None) -> None:
        self._own()
        self._owned(source_id, geometry_id=geometry_id)
        if not isinstance(shape, Shape):
            raise ValueError(f"ChangeShape needs a Shape; given {type(shape).__name__}")
        rec = self.geometries[geometry_id]
        rec.shape = shape
        if R is not None:
            rec.R_FG, rec.p_FG = R, p
        self._touch(roles=self._roles_of(rec))

    def rename_frame(self, frame_id, name: str) -> None:
        self._own()
        rec = self.frame(frame_id)
        for fid in self.source_frames.get(rec.source, []):
            if fid != frame_id and self.frames[fid].name == name:
                raise RuntimeError(f"RenameFrame: source '{self.sources[rec.source]}' already has a frame named '{name}'")
        rec.name = name
        self._touch(roles=())

    def rename_geometry(self, geometry_id, name: str) -> None:
        self._own()
        rec = self.geometry(geometry_id)
        old = rec.name
        rec.name = name
        try:
            for role in (Role.kProximity, Role.kIllustration, Role.kPerception):
                if self._role_props(rec, role) is not None:
                    self._check_name_unique(rec, role)
        except RuntimeError:
            rec.name = old
            raise
        self._touch(roles=self._roles_of(rec))

    # ----- filters -----------------------------------------------------------------------------------
    def expand_set(self, gset) -> list[GeometryId]:
        ids = []
        for gid in gset.geometries():
            self.geometry(gid)
            ids.append(gid)
        for fid in gset.frames():
            ids.extend(self.frame(fid).geometries)
        return sorted(set(ids))

    def apply_filters(self, statements: list, transient: bool = False) -> FilterId | None:
        """Apply expanded filter statements [(kind, ids_a, ids_b)]: persistently, or as a transient declaration
        that RemoveDeclaration can undo (its FilterId is returned)."""
        self._own()
        if transient:
            fid = FilterId.get_new_id()
            self._transient.append((fid, statements))
        else:
            if self._transient:
                raise RuntimeError("CollisionFilterManager.Apply: a persistent declaration cannot be applied while "
                                   "transient declarations are active; remove them (RemoveDeclaration) first")
            _apply_statements(self._persistent_excluded, statements)
            fid = None
        self._recompute_filters()
        self._touch(roles=(Role.kProximity,))
        return fid

    def remove_filter(self, filter_id: FilterId) -> bool:
        """Undo a transient declaration; False when it is not active."""
        self._own()
        for k, (fid, _) in enumerate(self._transient):
            if fid == filter_id:
                del self._transient[k]
                self._recompute_filters()
                self._touch(roles=(Role.kProximity,))
                return True
        return False

    def filter_is_active(self, filter_id: FilterId) -> bool:
        return any(fid == filter_id for fid, _ in self._transient)

    def has_transient_filters(self) -> bool:
        return bool(self._transient)

    def _recompute_filters(self) -> None:
        excluded = set(self._persistent_excluded)
        for _, statements in self._transient:
            _apply_statements(excluded, statements)
        self.excluded = {p for p in excluded if all(g in self.geometries for g in p)}

    def is_anchored(self, gid: GeometryId) -> bool:
        return self.geometries[gid].frame == _WORLD_FRAME_ID

    def collision_filtered(self, a: GeometryId, b: GeometryId) -> bool:
        ra, rb = self.geometry(a), self.geometry(b)
        if ra.frame == rb.frame:
            return True
        if frozenset((a, b)) in self.excluded:
            return True
        ma, mb = GetMujocoContactParameters(ra.proximity), GetMujocoContactParameters(rb.proximity)
        return not ((ma.contype & mb.conaffinity) or (mb.contype & ma.conaffinity))

    # ----- frame kinematics --------------------------------------------------------------------------
    def frame_order(self) -> list[FrameId]:
        """Frames in parent-before-child order, world first."""
        order = [_WORLD_FRAME_ID]
        k = 0
        while k < len(order):
            order.extend(self.frames[order[k]].children)
            k += 1
        return order

    def compiled(self):
        """The proximity geometries compiled for the collision engine (cached per version)."""
        if self._compiled is None:
            from mallard.geometry.compiled_scene import CompiledScene

            self._compiled = CompiledScene(self)
        return self._compiled

    # ----- role queries ------------------------------------------------------------------------------
    def has_role(self, gid: GeometryId, role: Role | None) -> bool:
        rec = self.geometries[gid]
        if role is None:
            return True
        if role == Role.kUnassigned:
            return rec.proximity is None and rec.illustration is None and rec.perception is None
        return self._role_props(rec, role) is not None

    def properties(self, gid: GeometryId, role: Role) -> GeometryProperties | None:
        """The role's properties of the geometry (None without the role): the state's own object, which the
        caller may keep and change, so this state stops sharing it with its clones (_expose)."""
        if self._role_props(self.geometry(gid), role) is None:
            return None
        self._own()  # (replaces the records of a shared state)
        return self._expose(self._role_props(self.geometries[gid], role))


def _apply_statements(excluded: set, statements: list) -> None:
    """Apply (kind, ids_a, ids_b) exclusion statements to a set of excluded pairs in place."""
    for kind, ida, idb in statements:
        if kind in ("exclude_within", "allow_within"):
            pairs = {frozenset((ida[a], ida[b])) for a in range(len(ida)) for b in range(a + 1, len(ida))}
        else:
            pairs = {frozenset((a, b)) for a in ida for b in idb if a != b}
        if kind.startswith("exclude"):
            excluded |= pairs
        else:
            excluded -= pairs
