"""`mallard.common.all`: every public name of mallard.common and its sub-modules in one namespace, as
`pydrake.common.all`."""
# ruff: noqa: F403 (import-star, as pydrake.common.all)
from . import *
from .containers import *
from .eigen_geometry import *
from .schema import *
from .value import *
from .yaml import *
