"""`ToleranceType`: whether a comparison tolerance is absolute or relative (pydrake.common.ToleranceType)."""
from __future__ import annotations

from .cpp_enum import CppEnum

__all__ = ["ToleranceType"]


class ToleranceType(CppEnum):
    """kAbsolute: |a - b| <= tol; kRelative: |a - b| <= tol * min(|a|, |b|) (Drake's coefficient comparisons)."""

    kAbsolute = 0
    kRelative = 1
