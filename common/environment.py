"""Process-environment helpers of pydrake.common: `temp_directory()` and `configure_logging()`."""
from __future__ import annotations

import logging
import os
import tempfile

__all__ = ["configure_logging", "temp_directory"]


def temp_directory() -> str:
    """A new directory `${parent}/robotlocomotion_drake_XXXXXX`, parent being $TEST_TMPDIR, else $TMPDIR,
    else /tmp (Drake's rule). The caller may delete it."""
    parent = os.environ.get("TEST_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"
    if not os.path.isdir(parent):
        raise RuntimeError(f"temp_directory: the parent folder {parent!r} (from TEST_TMPDIR / TMPDIR) is not a "
                           "directory; set TMPDIR to an existing writable folder")
    return tempfile.mkdtemp(prefix="robotlocomotion_drake_", dir=parent).rstrip("/")


def configure_logging() -> None:
    """Configures the root `logging` logger with timestamps at INFO level, as pydrake's helper does (mallard's
    messages go to the `"mallard"` logger tree; `"drake"` is reset too for scripts that use pydrake's name)."""
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s] [%(name)s] [%(levelname)s] %(message)s")
    logging.getLogger("drake").setLevel(logging.NOTSET)
    logging.getLogger("mallard").setLevel(logging.NOTSET)
    logging.addLevelName(5, "TRACE")
