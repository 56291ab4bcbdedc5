"""mallard's text log, as pydrake's: the Python logger named "drake" at INFO level.

pydrake's messages (Meshcat's URL, ModelVisualizer's hints) go through `logging.getLogger("drake")`, whose level
starts at INFO, and the first message that passes calls `logging.basicConfig()`, so by default they appear on
stderr as `INFO:drake:...`. mallard logs through the same logger, so a ported script prints the same lines and its
`logging.getLogger("drake").setLevel(...)` or `configure_logging()` calls keep their effect.
"""
from __future__ import annotations

import logging

__all__ = ["log"]

_LOGGER = logging.getLogger("drake")
if _LOGGER.level == logging.NOTSET:
    _LOGGER.setLevel(logging.INFO)


class _BasicConfigOnFirstRecord(logging.Filter):
    """Calls logging.basicConfig() before the first record that passes the level check (as pydrake's sink)."""

    def filter(self, record: logging.LogRecord) -> bool:
        logging.basicConfig()
        _LOGGER.removeFilter(self)
        return True


if not any(isinstance(f, _BasicConfigOnFirstRecord) for f in _LOGGER.filters):
    _LOGGER.addFilter(_BasicConfigOnFirstRecord())


def log() -> logging.Logger:
    """The logger mallard writes its messages to (pydrake's "drake" logger)."""
    return _LOGGER
