"""`CppEnum`: the base of mallard's pydrake enums, printing as pydrake's do (`str` gives `Type.kName`)."""
from __future__ import annotations

import enum

__all__ = ["CppEnum"]


class CppEnum(enum.IntEnum):
    """An IntEnum whose `str()` / f-string is `TypeName.kMember` (pydrake's spelling), not the integer."""

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
