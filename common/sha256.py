"""Sha256: a SHA-256 checksum as a value (pydrake.common.Sha256), e.g. a MemoryFile's or a remote package's."""
from __future__ import annotations

import hashlib

__all__ = ["Sha256"]

_HEX = frozenset("0123456789abcdefABCDEF")


class Sha256:
    """The 32 bytes of a SHA-256 checksum; `Sha256()` is all zeros. Compared byte-wise (==, !=, <), printed as
    64 lower-case hex digits by `to_string()`, pickled as that string."""

    __slots__ = ("_bytes",)

    def __init__(self) -> None:
        self._bytes = bytes(32)

    @staticmethod
    def Checksum(data: str | bytes) -> "Sha256":
        """The checksum of `data` (a str is hashed as its UTF-8 bytes)."""
        result = Sha256()
        result._bytes = hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else bytes(data)).digest()
        return result

    @staticmethod
    def Parse(sha256: str) -> "Sha256 | None":
        """The checksum written as 64 hex digits (either case), or None when `sha256` is not that."""
        if not isinstance(sha256, str) or len(sha256) != 64 or not _HEX.issuperset(sha256):
            return None
        result = Sha256()
        result._bytes = bytes.fromhex(sha256)
        return result

    def to_string(self) -> str:
        return self._bytes.hex()

    def __eq__(self, other: object) -> bool:
        return self._bytes == other._bytes if isinstance(other, Sha256) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._bytes != other._bytes if isinstance(other, Sha256) else NotImplemented

    def __lt__(self, other: "Sha256") -> bool:
        return self._bytes < other._bytes if isinstance(other, Sha256) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __reduce__(self):
        return _FromString, (self.to_string(),)

    def __copy__(self) -> "Sha256":
        return self  # immutable

    def __deepcopy__(self, memo) -> "Sha256":
        return self


def _FromString(text: str) -> Sha256:
    value = Sha256.Parse(text)
    if value is None:
        raise ValueError(f"Sha256: cannot unpickle {text!r}: not 64 hex digits")
    return value
