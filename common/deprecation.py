"""`DrakeDeprecationWarning`: the warning category of pydrake APIs that Drake has deprecated and mallard keeps
until Drake removes them (pydrake.common.deprecation).

It derives from FutureWarning, Python's category for deprecations aimed at end users, so scripts see it without
changing warning filters (pydrake derives from DeprecationWarning and installs a filter to show it instead).
"""
from __future__ import annotations

__all__ = ["DrakeDeprecationWarning"]


class DrakeDeprecationWarning(FutureWarning):
    """A pydrake API deprecated by Drake; the message says what replaces it and when it goes away."""

    addendum = ""
