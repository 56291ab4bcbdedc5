"""Errors and warnings raised by the MJCF reader and compiler."""
from __future__ import annotations

from dataclasses import dataclass


class MjcfError(ValueError):
    """A malformed or invalid MJCF model: the message names the file, line and element."""


class MjcfUnsupportedWarning(UserWarning):
    """An MJCF element or feature that is parsed and kept but cannot be simulated (tier 3)."""


@dataclass(frozen=True)
class Where:
    """Location of an XML element: file name, 1-based line number and tag."""

    file: str
    line: int
    tag: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: <{self.tag}>"


def error_at(where: Where | None, message: str) -> MjcfError:
    """Build an MjcfError whose message starts with `file:line: <element>`."""
    if where is None:
        return MjcfError(f"MJCF: {message}")
    return MjcfError(f"{where}: {message}")
