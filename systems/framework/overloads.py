"""Argument handling for pydrake's overloaded constructors and declarations (one argument, several names)."""
from __future__ import annotations

from typing import Any

__all__ = ["one_argument"]


def one_argument(what: str, args: tuple, **named) -> Any:
    """The single argument of an overload set, given positionally or under one of pydrake's keyword names
    (`named`, None when absent); TypeError naming the accepted forms otherwise."""
    given = [value for value in named.values() if value is not None]
    if len(args) + len(given) != 1:
        raise TypeError(f"{what}: give exactly one of {', '.join(named)} (or one positional argument); got "
                        f"{len(args)} positional and {sorted(k for k, v in named.items() if v is not None)}")
    return args[0] if args else given[0]
