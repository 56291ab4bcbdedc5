"""mallard.common: pydrake.common-style names (values, containers, RandomDistribution, RandomGenerator, Parallelism,
logging and temp-folder helpers)."""
from .containers import namedview
from .environment import configure_logging, temp_directory
from .find_resource import FindResourceOrThrow, GetDrakePath
from .memory_file import MemoryFile
from .parallelism import Parallelism
from .random_distribution import CalcProbabilityDensity, RandomDistribution
from .random_generator import RandomGenerator
from .scalar_template import pretty_class_name
from .sha256 import Sha256
from .tolerance_type import ToleranceType
from .value import AbstractValue, Value

__all__ = ["AbstractValue", "CalcProbabilityDensity", "FindResourceOrThrow", "GetDrakePath", "MemoryFile", "Parallelism",
           "RandomDistribution", "RandomGenerator", "Sha256", "ToleranceType", "Value", "configure_logging", "namedview",
           "pretty_class_name", "temp_directory"]
