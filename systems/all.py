"""`mallard.systems.all`: every public name of mallard's systems modules in one namespace, as
`pydrake.systems.all` (its LCM, rendering, sensors, perception and estimators parts are out of mallard's scope)."""
# ruff: noqa: F403 (import-star, as pydrake.systems.all)
from .analysis import *
from .controllers import *
from .drawing import *
from .framework import *
from .planar_scenegraph_visualizer import *
from .primitives import *
from .pyplot_visualizer import *
from .scalar_conversion import *
