"""ScopedName: a name `namespace::element` (pydrake.multibody.tree.ScopedName), split at the last "::".

The namespace may itself hold "::" (nested model instances); the element may not.
"""
from __future__ import annotations

from typing import Optional

__all__ = ["ScopedName"]

_DELIM = "::"


class ScopedName:
    """A scoped name: get_namespace() "::" get_element(), or just the element when the namespace is empty."""

    __slots__ = ("_name", "_begin")

    def __init__(self, namespace_name: Optional[str] = None, element_name: Optional[str] = None) -> None:
        self._name, self._begin = "", 0
        if namespace_name is None and element_name is None:
            return
        made = ScopedName.Make(namespace_name or "", element_name or "")
        if made is None:
            raise ValueError(f"Cannot create a ScopedName('{namespace_name}', '{element_name}') with mis-placed "
                             "delimiters")
        self._name, self._begin = made._name, made._begin

    @staticmethod
    def Make(namespace_name: str, element_name: str) -> Optional["ScopedName"]:
        """The ScopedName of the two parts, or None when the namespace starts or ends with "::" or the element
        is empty or holds "::"."""
        if namespace_name.startswith(_DELIM) or namespace_name.endswith(_DELIM) or not element_name \
                or _DELIM in element_name:
            return None
        out = ScopedName()
        if namespace_name:
            out._name, out._begin = f"{namespace_name}{_DELIM}{element_name}", len(namespace_name) + len(_DELIM)
        else:
            out._name = element_name
        return out

    @staticmethod
    def Join(name1: str, name2: str) -> "ScopedName":
        """name1 "::" name2, normalized by Parse (empty parts and repeated delimiters dropped)."""
        return ScopedName.Parse(f"{name1}{_DELIM}{name2}")

    @staticmethod
    def Parse(scoped_name: str) -> "ScopedName":
        """Split at the last "::" after removing leading / trailing delimiters and collapsing repeated ones."""
        s = str(scoped_name)
        while s.endswith(_DELIM):
            s = s[:-len(_DELIM)]
        while s.startswith(_DELIM):
            s = s[len(_DELIM):]
        while "::::" in s:
            s = s.replace("::::", _DELIM)
        out = ScopedName()
        out._name = s
        i = s.rfind(_DELIM)
        out._begin = 0 if i < 0 else i + len(_DELIM)
        return out

    def get_namespace(self) -> str:
        return "" if self._begin == 0 else self._name[:self._begin - len(_DELIM)]

    def get_element(self) -> str:
        return self._name[self._begin:]

    def get_full(self) -> str:
        return self._name

    def to_string(self) -> str:
        return self._name

    def set_namespace(self, namespace_name: str) -> None:
        new = ScopedName(namespace_name, self.get_element())
        self._name, self._begin = new._name, new._begin

    def set_element(self, element_name: str) -> None:
        new = ScopedName(self.get_namespace(), element_name)
        self._name, self._begin = new._name, new._begin

    def __eq__(self, other) -> bool:
        return isinstance(other, ScopedName) and self._name == other._name and self._begin == other._begin

    def __hash__(self) -> int:
        return hash((self._name, self._begin))

    def __getstate__(self):
        return self._name, self._begin

    def __setstate__(self, state) -> None:
        self._name, self._begin = state

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"ScopedName({self.get_namespace()!r}, {self.get_element()!r})"
