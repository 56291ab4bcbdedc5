"""MemoryFile: a file held in memory (pydrake.common.MemoryFile), e.g. the mesh of an InMemoryMesh."""
from __future__ import annotations

import os

from .sha256 import Sha256

__all__ = ["MemoryFile", "MemoryFileError"]


class MemoryFileError(ValueError, RuntimeError):
    """A bad MemoryFile argument: pydrake's RuntimeError, and a ValueError for Python code."""

# repr() shows the whole contents up to this many bytes (then it can be eval'd back), a prefix beyond.
_REPR_LIMIT = 100


class MemoryFile:
    """A virtual file: its ``contents`` (bytes), the ``extension`` usually associated with such contents
    ('' or '.foo', stored lower case) and a one-line ``filename_hint`` used in messages."""

    __slots__ = ("_contents", "_extension", "_filename_hint")

    def __init__(self, contents: str | bytes = b"", extension: str = "", filename_hint: str = ""):
        self._contents = contents.encode("utf-8") if isinstance(contents, str) else bytes(contents)
        ext = str(extension)
        if ext and (not ext.startswith(".") or len(ext) < 2):
            raise MemoryFileError(f"MemoryFile given invalid extension. Must be empty or of the form '.foo'; "
                               f"given '{ext}'.")
        hint = str(filename_hint)
        if "\n" in hint:
            raise MemoryFileError(f"MemoryFile: the filename_hint must be a single line; given {hint!r}")
        self._extension = ext.lower()
        self._filename_hint = hint

    @staticmethod
    def Make(path: str | os.PathLike) -> "MemoryFile":
        """A MemoryFile holding the bytes of the file at ``path``; its hint is the path, its extension the
        path's. Raises RuntimeError naming the path when it cannot be read."""
        path = os.fspath(path)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise RuntimeError(f"MemoryFile.Make: cannot read the file '{path}': {exc.strerror}") from None
        return MemoryFile(data, os.path.splitext(path)[1], path)

    def contents(self) -> bytes:
        return self._contents

    def extension(self) -> str:
        return self._extension

    def filename_hint(self) -> str:
        return self._filename_hint

    def sha256(self) -> Sha256:
        """The SHA-256 checksum of the contents (`.to_string()` gives its hex digits)."""
        return Sha256.Checksum(self._contents)

    def __eq__(self, other) -> bool:
        return (isinstance(other, MemoryFile) and self._contents == other._contents
                and self._extension == other._extension and self._filename_hint == other._filename_hint)

    def __hash__(self):
        return hash((self._contents, self._extension, self._filename_hint))

    def __repr__(self) -> str:
        if len(self._contents) <= _REPR_LIMIT:
            contents = repr(self._contents)
        else:
            contents = f"<{self._contents[:_REPR_LIMIT]!r}...>"
        return (f"MemoryFile(contents={contents}, extension={self._extension!r}, "
                f"filename_hint={self._filename_hint!r})")

    def __copy__(self) -> "MemoryFile":
        return self

    def __deepcopy__(self, memo) -> "MemoryFile":
        return self  # immutable

    def __getstate__(self) -> dict:
        return {"contents": self._contents, "extension": self._extension, "filename_hint": self._filename_hint}

    def __setstate__(self, state: dict) -> None:
        contents = state.get("contents", b"")
        self._contents = contents.encode("utf-8") if isinstance(contents, str) else bytes(contents)
        self._extension = str(state.get("extension", "")).lower()
        self._filename_hint = str(state.get("filename_hint", ""))
