"""`mallard.trajectories`: pydrake's module path for the trajectory classes, whose code lives in
`mallard.systems.trajectories`."""
from mallard.systems.trajectories import *  # noqa: F401,F403
from mallard.systems.trajectories import __all__  # noqa: F401
