"""`mallard.multibody.all`: every public name of mallard's multibody modules in one namespace, as
`pydrake.multibody.all` (its IK, optimization, deformable (fem), rational-forward-kinematics and benchmark parts are
out of mallard's scope)."""
# ruff: noqa: F403 (import-star, as pydrake.multibody.all)
from .math import *
from .meshcat import *
from .parsing import *
from .plant import *
from .tree import *
