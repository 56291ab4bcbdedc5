"""`DrakeDeprecationWarning`: the warning category of pydrake APIs that Drake has deprecated and mallard keeps
until Drake removes them (pydrake.common.deprecation)."""
from __future__ import annotations

__all__ = ["DrakeDeprecationWarning"]


class DrakeDeprecationWarning(DeprecationWarning):
    """A pydrake API deprecated by Drake; the message says what replaces it and when it goes away."""

    addendum = ""
