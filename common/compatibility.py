"""pydrake.common.compatibility: maybe_patch_numpy_formatters, pydrake's patch that lets NumPy < 1.13 print arrays
of symbolic scalars."""
from __future__ import annotations

__all__ = ["maybe_patch_numpy_formatters"]


def maybe_patch_numpy_formatters() -> None:
    """Does nothing, as pydrake's does on NumPy >= 1.13: the patch is needed only by older NumPy, which mallard
    does not support, and only for symbolic arrays, which mallard does not have."""
