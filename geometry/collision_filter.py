"""Collision filtering: GeometrySet, CollisionFilterDeclaration and CollisionFilterManager
(pydrake.geometry). A declaration lists exclusions; the manager applies them to a geometry state."""
from __future__ import annotations

import enum
from typing import Iterable

from mallard.geometry.identifiers import FilterId, FrameId, GeometryId


class CollisionFilterScope(enum.IntEnum):
    """Which geometries a declaration applies to: all, or all but deformable ones (mallard has no
    deformable geometry, so both are the same)."""

    kAll = 0
    kOmitDeformable = 1


class GeometrySet:
    """A set of GeometryIds and FrameIds (a frame stands for all geometries attached to it)."""

    def __init__(self, *ids, geometry_id: GeometryId | None = None, frame_id: FrameId | None = None,
                 geometry_ids: Iterable | None = None, frame_ids: Iterable | None = None):
        """GeometrySet(), GeometrySet(geometry_id=), (frame_id=), (geometry_ids=[...]), (frame_ids=[...]),
        (geometry_ids, frame_ids), or any GeometryIds / FrameIds / lists of them positionally."""
        self._geometries: set[GeometryId] = set()
        self._frames: set[FrameId] = set()
        self.Add(*ids, geometry_id=geometry_id, frame_id=frame_id, geometry_ids=geometry_ids, frame_ids=frame_ids)

    def Add(self, *ids, geometry_id: GeometryId | None = None, frame_id: FrameId | None = None,
            geometry_ids: Iterable | None = None, frame_ids: Iterable | None = None) -> None:
        """Add GeometryIds and FrameIds: by pydrake's keywords (geometry_id, frame_id, geometry_ids,
        frame_ids), or positionally as ids, GeometrySets or iterables of them."""
        for name, value, kind, many in (("geometry_id", geometry_id, GeometryId, False),
                                        ("frame_id", frame_id, FrameId, False),
                                        ("geometry_ids", geometry_ids, GeometryId, True),
                                        ("frame_ids", frame_ids, FrameId, True)):
            if value is None:
                continue
            items = list(value) if many else [value]
            if not all(isinstance(i, kind) for i in items):
                raise ValueError(f"GeometrySet: {name} must hold {kind.__name__}s; given "
                                 f"{[type(i).__name__ for i in items]}")
            for item in items:
                self._add_one(item)
        for item in ids:
            self._add_one(item)

    def _add_one(self, ids) -> None:
        if isinstance(ids, GeometryId):
            self._geometries.add(ids)
        elif isinstance(ids, FrameId):
            self._frames.add(ids)
        elif isinstance(ids, GeometrySet):
            self._geometries |= ids._geometries
            self._frames |= ids._frames
        elif isinstance(ids, Iterable) and not isinstance(ids, (str, bytes)):
            for item in ids:
                self._add_one(item)
        else:
            raise ValueError(f"GeometrySet.Add takes GeometryId, FrameId, GeometrySet or a list of them; "
                             f"given {type(ids).__name__}")

    def num_geometries(self) -> int:
        return len(self._geometries)

    def num_frames(self) -> int:
        return len(self._frames)

    def geometries(self) -> set:
        return set(self._geometries)

    def frames(self) -> set:
        return set(self._frames)

    def __repr__(self) -> str:
        return f"GeometrySet(geometries={len(self._geometries)}, frames={len(self._frames)})"


class CollisionFilterDeclaration:
    """A list of filter statements: ExcludeWithin(set), ExcludeBetween(set_a, set_b), and their
    Allow* inverses. Methods return self so statements chain."""

    def __init__(self, scope: CollisionFilterScope = CollisionFilterScope.kAll):
        if not isinstance(scope, CollisionFilterScope):
            raise ValueError(f"CollisionFilterDeclaration: scope must be a CollisionFilterScope; given {scope!r}")
        self._scope = scope
        self._statements: list[tuple[str, GeometrySet, GeometrySet | None]] = []

    def _set(self, s, who: str) -> GeometrySet:
        if isinstance(s, GeometrySet):
            return s
        try:
            return GeometrySet(s)
        except ValueError:
            raise ValueError(f"CollisionFilterDeclaration.{who} needs a GeometrySet; given {type(s).__name__}") from None

    def ExcludeWithin(self, geometry_set) -> "CollisionFilterDeclaration":
        """No pair of geometries within the set collides."""
        self._statements.append(("exclude_within", self._set(geometry_set, "ExcludeWithin"), None))
        return self

    def ExcludeBetween(self, set_A, set_B) -> "CollisionFilterDeclaration":
        """No geometry of set_A collides with any geometry of set_B."""
        self._statements.append(("exclude_between", self._set(set_A, "ExcludeBetween"),
                                 self._set(set_B, "ExcludeBetween")))
        return self

    def AllowWithin(self, geometry_set) -> "CollisionFilterDeclaration":
        """Remove exclusions among the set's geometries (same-frame pairs stay filtered)."""
        self._statements.append(("allow_within", self._set(geometry_set, "AllowWithin"), None))
        return self

    def AllowBetween(self, set_A, set_B) -> "CollisionFilterDeclaration":
        """Remove exclusions between the two sets (same-frame pairs stay filtered)."""
        self._statements.append(("allow_between", self._set(set_A, "AllowBetween"), self._set(set_B, "AllowBetween")))
        return self

    def statements(self) -> list:
        return list(self._statements)


class CollisionFilterManager:
    """Applies CollisionFilterDeclarations to the geometry data of a SceneGraph (its model, or a
    context's copy). Get one from ``SceneGraph.collision_filter_manager([context])``."""

    def __init__(self, state):
        self._state = state

    def _expanded(self, declaration, who: str) -> list:
        if not isinstance(declaration, CollisionFilterDeclaration):
            raise ValueError(f"CollisionFilterManager.{who} needs a CollisionFilterDeclaration; "
                             f"given {type(declaration).__name__}")
        st = self._state
        return [(kind, st.expand_set(a), st.expand_set(b) if b is not None else None)
                for kind, a, b in declaration.statements()]

    def Apply(self, declaration: CollisionFilterDeclaration) -> None:
        """Apply every statement of ``declaration`` persistently; unknown ids raise GeometryLookupError, and
        so does applying while transient declarations are active (RuntimeError)."""
        self._state.apply_filters(self._expanded(declaration, "Apply"))

    def ApplyTransient(self, declaration: CollisionFilterDeclaration) -> FilterId:
        """Apply ``declaration`` on top of the persistent filters, undoably: returns the id RemoveDeclaration
        takes."""
        return self._state.apply_filters(self._expanded(declaration, "ApplyTransient"), transient=True)

    def RemoveDeclaration(self, filter_id: FilterId) -> bool:
        """Undo the transient declaration ``filter_id``; False when it is not active."""
        return self._state.remove_filter(filter_id)

    def IsActive(self, filter_id: FilterId) -> bool:
        return self._state.filter_is_active(filter_id)

    def has_transient_history(self) -> bool:
        return self._state.has_transient_filters()
