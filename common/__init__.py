"""mallard.common: pydrake.common-style names (value types, RandomDistribution)."""
from mallard.systems.primitives.random_source import RandomDistribution

from .containers import namedview
from .memory_file import MemoryFile
from .value import AbstractValue, Value

__all__ = ["AbstractValue", "MemoryFile", "RandomDistribution", "Value", "namedview"]
