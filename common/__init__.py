"""mallard.common: pydrake.common-style helpers (value types)."""
from .value import AbstractValue, Value

__all__ = ["AbstractValue", "Value"]
