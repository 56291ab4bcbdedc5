"""`mallard.trajectories`: pydrake's module path for the trajectory classes, whose code lives in
`mallard.systems.trajectories`."""
from mallard.systems import trajectories as _impl
from mallard.systems.trajectories import *  # noqa: F401,F403
from mallard.systems.trajectories import __all__  # noqa: F401

# Pickles written by Drake <= v1.12 name the float classes "Foo_[float]": keep them loadable.
for _name in __all__:
    if not _name.startswith("_") and not _name.endswith("_"):
        globals()[f"{_name}_[float]"] = getattr(_impl, _name)
del _name
