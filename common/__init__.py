"""mallard.common: pydrake.common-style names (value types, RandomDistribution, RandomGenerator, Parallelism)."""
from mallard.systems.primitives.random_source import RandomDistribution

from .containers import namedview
from .memory_file import MemoryFile
from .parallelism import Parallelism
from .random_generator import RandomGenerator
from .value import AbstractValue, Value

__all__ = ["AbstractValue", "MemoryFile", "Parallelism", "RandomDistribution", "RandomGenerator", "Value",
           "namedview"]
