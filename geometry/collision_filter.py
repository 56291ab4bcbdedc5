"""Collision filtering: GeometrySet, CollisionFilterDeclaration and CollisionFilterManager
(pydrake.geometry). A declaration lists exclusions; the manager applies them to a geometry state."""
from __future__ import annotations

from typing import Iterable

from mallard.geometry.identifiers import FrameId, GeometryId


class GeometrySet:
    """A set of GeometryIds and FrameIds (a frame stands for all geometries attached to it)."""

    def __init__(self, *ids):
        self._geometries: set[GeometryId] = set()
        self._frames: set[FrameId] = set()
        for item in ids:
            self.Add(item)

    def Add(self, ids) -> None:
        """Add a GeometryId, a FrameId, another GeometrySet, or an iterable of those."""
        if isinstance(ids, GeometryId):
            self._geometries.add(ids)
        elif isinstance(ids, FrameId):
            self._frames.add(ids)
        elif isinstance(ids, GeometrySet):
            self._geometries |= ids._geometries
            self._frames |= ids._frames
        elif isinstance(ids, Iterable) and not isinstance(ids, (str, bytes)):
            for item in ids:
                self.Add(item)
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

    def __init__(self):
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

    def Apply(self, declaration: CollisionFilterDeclaration) -> None:
        """Apply every statement of ``declaration``; unknown ids raise GeometryLookupError."""
        if not isinstance(declaration, CollisionFilterDeclaration):
            raise ValueError(f"CollisionFilterManager.Apply needs a CollisionFilterDeclaration; "
                             f"given {type(declaration).__name__}")
        st = self._state
        for kind, a, b in declaration.statements():
            ga = st.expand_set(a)
            gb = st.expand_set(b) if b is not None else None
            if kind == "exclude_within":
                st.exclude_within(ga)
            elif kind == "exclude_between":
                st.exclude_between(ga, gb)
            elif kind == "allow_within":
                st.allow_within(ga)
            else:
                st.allow_between(ga, gb)

    def has_transient_history(self) -> bool:
        return False
